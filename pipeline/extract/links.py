"""The links of a document: every ``a[href]`` and ``area[href]``, and
``link[rel~=canonical|alternate|next|prev]``, resolved per the WHATWG URL Standard.

https://html.spec.whatwg.org/multipage/links.html#following-hyperlinks-2 (URLs are
*encoding-parsed* against the document base URL with the document's encoding)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from functools import lru_cache
from typing import Any

from pipeline.extract.domains import registered_domain, url_host, url_hosts
from pipeline.extract.fields import Link
from pipeline.extract.reference_tree import Scan, tag_ids
from pipeline.extract.url_resolution import Resolver

#: One link candidate: (tag, href, rel, text) — text is the anchor's text for ``a`` or the
#: ``alt`` value for ``area``, whitespace collapsed; "" for ``link``.
LinkCandidate = tuple[str, str, str | None, str]
#: ``link`` elements kept (by rel keyword).
LINK_RELS = frozenset({"canonical", "alternate", "next", "prev"})
_TAG_ID = {name: tag_id for tag_id, name in tag_ids(("a", "area")).items()}
_A_ID, _AREA_ID = _TAG_ID["a"], _TAG_ID["area"]
_SPLIT = str.maketrans({c: " " for c in "\t\n\x0c\r "})


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


def link_candidates(found: Scan, max_links: int) -> list[LinkCandidate]:
    """(tag, href, rel, text) of the ``a``, ``area`` and ``link`` elements with an href
    among the first ``max_links`` of them, in tree order — text is the anchor's text
    (``node.text()``) or the ``alt`` of an ``area``, whitespace collapsed; "" for a ``link``. The pure-Python
    reference of :func:`pipeline.extract.document.facts`' link candidates.
    """
    out = []
    a_id, area_id = _A_ID, _AREA_ID
    for node in found.links[:max_links]:
        # (``node.attrs.get`` costs more: a missing attribute raises KeyError inside it)
        attrs = node.attributes
        href = attrs.get("href")
        if href is None:
            continue
        tag_id = node.tag_id
        # Texts collapsed: every run of whitespace (Unicode's, NBSP included) is one space.
        if tag_id == a_id:
            out.append(("a", href, attrs.get("rel"), " ".join(node.text().split())))
        elif tag_id == area_id:
            out.append(("area", href, attrs.get("rel"), " ".join((attrs.get("alt") or "").split())))
        else:
            out.append(("link", href, attrs.get("rel"), ""))
    return out


def extract_links(
    candidates: list[LinkCandidate], total: int,
    base_url: str | None, page_url: str | None, encoding: str, max_links: int = 10_000,
) -> tuple[tuple[Link, ...], int, int]:
    """Every link of the document, in tree order, the count of hrefs that failed, and the
    count of links beyond ``max_links`` (elements not looked at).

    ``candidates`` is :func:`link_candidates`' (or the compiled walk's) result, ``total``
    the number of ``a``, ``area`` and ``link`` elements. ``internal`` is whether the
    target's registered domain equals the page's (None when either has no registered
    domain, e.g. ``mailto:`` or a page without URL).
    """
    page_host = url_host(page_url) if page_url else None
    page_domain = registered_domain(page_host)
    resolve = Resolver(base_url, encoding)
    # internal flag by target host (the page's own host is internal when it has a domain)
    internal_of: dict[str | None, bool | None] = {page_host: page_domain is not None}
    truncated = max(0, total - max_links)
    args = resolve.compiled_args() if _compiled is not None else None
    if args is not None:  # the loop below in one C call (tests compare the two)
        def internal_fn(host: str | None) -> bool | None:
            domain = registered_domain(host)
            return None if domain is None else domain == page_domain

        made, bad = _compiled.links(candidates, args[0], page_domain is not None, internal_of,
                                    internal_fn, args[1], args[2])
        return made, bad, truncated
    kept = []
    for tag, href, rel, text in candidates:
        keywords = rel_keywords(rel) if rel else ()
        if tag != "link" or LINK_RELS.intersection(keywords):
            kept.append((tag, href, rel, text, "nofollow" in keywords))
    # Every distinct href resolved once and its host found (in one C call each), then its
    # internal flag.
    hrefs = list(dict.fromkeys(c[1] for c in kept))
    resolved = resolve.many(hrefs)
    targets: dict[str, tuple[str | None, bool | None]] = {}
    for href, target, host in zip(hrefs, resolved, url_hosts(resolved), strict=True):
        internal: bool | None = None
        if target is not None and page_domain is not None:
            if host in internal_of:
                internal = internal_of[host]
            else:
                domain = registered_domain(host)
                internal = internal_of[host] = None if domain is None else domain == page_domain
        targets[href] = (target, internal)
    if _compiled is not None:  # (when ada's batch parser is not bound)
        made, bad = _compiled.make_links(kept, targets)
        return made, bad, truncated
    links: list[Link] = []
    append = links.append
    bad = 0
    for tag, href, rel, text, nofollow in kept:
        target, internal = targets[href]
        if target is None:
            bad += 1
            continue
        append(_new_link(target, text, rel, tag, "href", internal, nofollow))
    return tuple(links), bad, truncated


def _link_factory() -> Callable[[str, str, str | None, str, str, bool | None, bool], Link]:
    """A constructor for the frozen ``Link`` that sets its slots through their member
    descriptors: the generated frozen ``__init__`` goes through ``object.__setattr__`` by
    name per field, which costs 1.7x as much, on every one of ~150 links a page."""
    setters = [getattr(Link, field.name).__set__ for field in fields(Link)]
    s0, s1, s2, s3, s4, s5, s6 = setters
    new = object.__new__

    def make(url: str, anchor_text: str, rel: str | None, tag: str, attr: str,
             internal: bool | None, nofollow: bool) -> Link:
        link = new(Link)
        s0(link, url)
        s1(link, anchor_text)
        s2(link, rel)
        s3(link, tag)
        s4(link, attr)
        s5(link, internal)
        s6(link, nofollow)
        return link

    assert [f.name for f in fields(Link)] == [
        "url", "anchor_text", "rel", "tag", "attr", "internal", "nofollow"
    ], "Link's fields changed: update _link_factory"
    return make


_new_link = _link_factory()


def _bind_compiled() -> Any:
    """``_urls.make_links`` bound to ``Link``'s slots; None without the extension (or if
    ``Link`` stops being a slots class: the Python loop serves)."""
    try:
        from pipeline.extract import _urls  # type: ignore[attr-defined]

        _urls.bind_links(Link, tuple(field.name for field in fields(Link)))
    except (ImportError, AttributeError, TypeError, ValueError):
        return None
    return _urls


_compiled = _bind_compiled()
