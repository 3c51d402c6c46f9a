"""The links of a document: every URL a browser would load or a crawler would follow.

Three steps, each with a compiled form and this pure-Python reference (tests compare them):

1. *Candidates* (:func:`link_candidates`; compiled: the ``facts`` walk of ``_document.c``
   with the tokenizers of ``_urltext.c``): in tree order, each URL of each URL-valued
   attribute and of each content that holds URLs, as ``(kind, tag, attr, value, rel,
   text)`` — the table is :mod:`pipeline.extract.url_attributes`.
   The walk reads URLs out of text as it goes: a ``srcset`` split into its image
   candidates, ``ping``/``itemtype`` into their tokens, CSS into its URLs, a script into its
   URL-like strings; the first meta refresh that parses gives one more
   (:func:`refresh_candidate`).
2. *Links* (:func:`extract_links`; compiled: ``_urls.links``): each candidate resolved per
   the URL Standard, with its ``internal`` flag from the one host parser
   (:mod:`pipeline.urlhost`).

Resolution (HTML Standard §2.4.2 *encoding-parse a URL*): against the document base URL
with the document's encoding for the query; a ``base`` element's own ``href`` against the
document's fallback base URL (the record URL), as its ``href`` IDL attribute does; an empty
``action``/``formaction`` is the document's URL (§4.10.21.3 form submission, step "If
action is the empty string"); a meta refresh without a URL is the document's URL; script
strings as ``new URL(value, document.baseURI)`` parses them (UTF-8: the encoding a script's
``fetch()`` and ``new URL()`` use).
https://html.spec.whatwg.org/commit-snapshots/2c2f4ac1bcae32e4b8af5f6a5a2fb8f5dc2b4e83/#encoding-parsing-a-url
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from functools import lru_cache
from typing import Any, NamedTuple

from pipeline.extract.css_urls import css_urls, css_urls_possible
from pipeline.extract.fields import Link
from pipeline.extract.reference_tree import Scan
from pipeline.extract.refresh import parse_refresh
from pipeline.extract.script_strings import string_literals, url_like
from pipeline.extract.srcset import parse_srcset
from pipeline.extract.url_attributes import (
    ELEMENT_ATTRIBUTES,
    EMPTY_KEPT,
    GLOBAL_ATTRIBUTES,
    KINDS,
    SPACE_SEPARATED,
    SRCSET,
    link_kind,
    script_is_read,
)
from pipeline.extract.url_resolution import Resolver, resolve_url
from pipeline.urlhost import parse_host, registered_domain

#: One source or candidate: (kind, tag, attr, value, rel, text) — attr None for an
#: element's content; rel for a/area/link; text is the anchor's text for ``a`` or the
#: ``alt`` of an ``area``, whitespace collapsed, "" for the others.
LinkCandidate = tuple[str, str, str | None, str, str | None, str]


class Packed(NamedTuple):
    """The compiled walk's candidates without a Python object per candidate
    (``pipeline/extract/_candidates.h``): the records, and the objects they index."""

    pack: bytes
    objects: list[Any]
#: Per-kind limits, in :data:`KINDS` order.
Limits = tuple[int, ...]
_SPLIT = str.maketrans({c: " " for c in "\t\n\x0c\r "})
_ASCII_WHITESPACE = "\t\n\x0c\r "


@lru_cache(maxsize=1024)  # pages repeat a few rel values ("nofollow", "noopener noreferrer")
def rel_keywords(rel: str | None) -> tuple[str, ...]:
    """A ``rel`` value split on ASCII whitespace, ASCII-lowercased (link types are ASCII
    case-insensitive keywords, HTML Standard §4.6.7).

    >>> rel_keywords(" NoFollow\\tnoopener ")
    ('nofollow', 'noopener')
    """
    if not rel:
        return ()
    return tuple(k.lower() if k.isascii() else k for k in rel.translate(_SPLIT).split(" ") if k)


def _empty(value: str) -> bool:
    return not value.strip(_ASCII_WHITESPACE)


def _script_urls(text: str) -> list[str]:
    return [value for value in string_literals(text) if url_like(value)]


def _tokens(value: str) -> list[str]:
    """A space-separated value's tokens (split on ASCII whitespace, Infra Standard)."""
    return [token for token in value.translate(_SPLIT).split(" ") if token]


def link_candidates(found: Scan, limits: Limits) -> tuple[list[LinkCandidate], list[int], list[str]]:
    """The document's link candidates in tree order, one per URL (a ``srcset`` split into
    its image candidates, ``ping``/``itemtype`` into their tokens, a style sheet into its
    URLs, a script into its URL-like strings), at most ``limits[k]`` of each kind; per kind
    the URLs left out past its limit; and the ``content`` of each meta refresh, in tree
    order (:func:`refresh_candidate` picks the one that acts). The pure-Python reference of
    the compiled walk (:func:`pipeline.extract.document.facts`)."""
    out: list[LinkCandidate] = []
    refresh: list[str] = []
    seen = [0] * len(KINDS)
    index: dict[str, int] = {kind: k for k, kind in enumerate(KINDS)}

    def add(kind: str, tag: str, attr: str | None, values: list[str], rel: str | None = None,
            text: str = "") -> None:
        k = index[kind]
        for value in values:
            seen[k] += 1
            if seen[k] <= limits[k]:
                out.append((kind, tag, attr, value, rel, text))

    for node in found.elements_in_order:
        tag = node.tag or ""  # (an element always has a tag name)
        attrs = node.attributes
        if not attrs and tag not in ("style", "script"):
            continue
        for attr, kind, form in (*ELEMENT_ATTRIBUTES.get(tag, ()), *GLOBAL_ATTRIBUTES):
            value = attrs.get(attr)
            if value is None or (_empty(value) and attr not in EMPTY_KEPT):
                continue
            if tag == "input" and attr == "src" and (attrs.get("type") or "").lower() != "image":
                continue
            if form == SRCSET:
                add(kind, tag, attr, parse_srcset(value))
            elif form == SPACE_SEPARATED:
                add(kind, tag, attr, _tokens(value))
            elif tag in ("a", "area", "link") and attr == "href":
                rel = attrs.get("rel")
                if tag == "link":
                    add(link_kind(rel_keywords(rel)), tag, attr, [value], rel)
                elif seen[index[kind]] >= limits[index[kind]]:
                    seen[index[kind]] += 1  # (its text is not read)
                elif tag == "a":
                    add(kind, tag, attr, [value], rel, " ".join(node.text().split()))
                else:
                    add(kind, tag, attr, [value], rel, " ".join((attrs.get("alt") or "").split()))
            else:
                add(kind, tag, attr, [value])
        style = attrs.get("style")
        if style is not None and css_urls_possible(style):
            add("css", tag, "style", css_urls(style))
        if tag == "style":
            text = node.text(deep=False)
            if css_urls_possible(text):
                add("css", tag, None, css_urls(text))
        elif tag == "script" and "src" not in attrs and script_is_read(attrs.get("type"), attrs.get("language")):
            add("script-string", tag, None, _script_urls(node.text(deep=False)))
        elif tag == "meta" and (attrs.get("http-equiv") or "").lower() == "refresh":
            content = attrs.get("content")
            if content is not None:
                refresh.append(content)
    dropped = [max(0, count - limit) for count, limit in zip(seen, limits, strict=True)]
    return out, dropped, refresh


def refresh_candidate(contents: list[str], base_url: str | None, page_url: str | None,
                      encoding: str) -> LinkCandidate | None:
    """The meta refresh that acts, as a candidate: the first ``content`` that parses and
    whose URL (if any) parses — the shared declarative refresh steps set the document's
    "will declaratively refresh" after the first that succeeds. Its target is the document's
    own URL when it names none."""
    for content in contents:
        parsed = parse_refresh(content)
        if parsed is None:
            continue
        if parsed[1] is None:  # (it acts: no later one does, even without a record URL)
            return None if page_url is None else ("refresh", "meta", "content", page_url, None, "")
        if resolve_url(parsed[1], base_url, encoding) is not None:
            return ("refresh", "meta", "content", parsed[1], None, "")
    return None


def extract_links(
    candidates: list[LinkCandidate], base_url: str | None, page_url: str | None, encoding: str,
    packed: Packed | None = None,
) -> tuple[tuple[Link, ...], int]:
    """Every link of the document, in order, and the count of URLs that failed to parse
    (a script string that does not parse is not a URL, not a failure). ``packed``: the
    compiled walk's candidates, which come before ``candidates`` (only where
    :data:`PACKED` says they can be read).

    ``internal`` is whether the target's registered domain equals the page's (None when
    either has none, e.g. ``mailto:`` or a page without URL).
    """
    page = parse_host(page_url)
    page_host = page[0] if page is not None and page[1] else None
    page_domain = registered_domain(page_host)
    # internal flag by target host (the page's own host is internal when it has a domain)
    internal_of: dict[str | None, bool | None] = {page_host: page_domain is not None}

    def internal_fn(host: str) -> bool | None:
        domain = registered_domain(host)
        return None if domain is None else domain == page_domain

    resolve = Resolver(base_url, encoding)
    if _compiled is not None and (args := resolve.compiled_args()) is not None:
        page_data = page_url.encode("utf-8") if page_url is not None else None
        if packed is not None:
            made, bad = _compiled.links_packed(packed.pack, packed.objects, candidates, args[0], page_data,
                                               page_url, page_domain is not None, internal_of, internal_fn,
                                               args[1], args[2])
        else:
            made, bad = _compiled.links(candidates, args[0], page_data, page_url, page_domain is not None,
                                        internal_of, internal_fn, args[1], args[2])
        return made, bad
    if packed is not None:
        raise ValueError("packed candidates need the compiled links (links.PACKED)")
    against_page = Resolver(page_url, encoding)
    as_script = Resolver(base_url, "UTF-8")
    links: list[Link] = []
    bad = 0
    for kind, tag, attr, value, rel, text in candidates:
        if kind == "form" and value == "" or kind == "refresh" and value == page_url:
            target = page_url
        elif tag == "base":
            target = against_page(value)
        elif kind == "script-string":
            target = as_script(value)
            if target is None:
                continue
        else:
            target = resolve(value)
        if target is None:
            bad += 1
            continue
        internal: bool | None = None
        if page_domain is not None:
            found = parse_host(target)
            if found is not None and found[1]:
                host = found[0]
                if host not in internal_of:
                    internal_of[host] = internal_fn(host)
                internal = internal_of[host]
        keywords = rel_keywords(rel) if rel else ()
        links.append(_new_link(target, text, rel, tag, attr, kind, internal, "nofollow" in keywords))
    return tuple(links), bad


def _link_factory() -> Callable[[str, str, str | None, str, str | None, str, bool | None, bool], Link]:
    """A constructor for the frozen ``Link`` that sets its slots through their member
    descriptors: the generated frozen ``__init__`` goes through ``object.__setattr__`` by
    name per field, which costs 1.7x as much, on every one of ~200 links a page."""
    setters = [getattr(Link, field.name).__set__ for field in fields(Link)]
    s0, s1, s2, s3, s4, s5, s6, s7 = setters
    new = object.__new__

    def make(url: str, anchor_text: str, rel: str | None, tag: str, attr: str | None, kind: str,
             internal: bool | None, nofollow: bool) -> Link:
        link = new(Link)
        s0(link, url)
        s1(link, anchor_text)
        s2(link, rel)
        s3(link, tag)
        s4(link, attr)
        s5(link, kind)
        s6(link, internal)
        s7(link, nofollow)
        return link

    assert [f.name for f in fields(Link)] == [
        "url", "anchor_text", "rel", "tag", "attr", "kind", "internal", "nofollow"
    ], "Link's fields changed: update _link_factory"
    return make


_new_link = _link_factory()


def _bind_compiled() -> Any:
    """``_urls.links`` bound to ``Link``'s slots; None without the extension (or if
    ``Link`` stops being a slots class: the Python loop serves)."""
    try:
        from pipeline.extract import _urls  # type: ignore[attr-defined]

        _urls.bind_links(Link, tuple(field.name for field in fields(Link)), KINDS)
    except (ImportError, AttributeError, TypeError, ValueError):
        return None
    return _urls


_compiled = _bind_compiled()
#: Whether :func:`extract_links` reads packed candidates (the compiled walk's, ``Packed``).
PACKED = _compiled is not None and hasattr(_compiled, "links_packed")
