"""The links of a document: every ``a[href]`` and ``area[href]``, and
``link[rel~=canonical|alternate|next|prev]``, resolved per the WHATWG URL Standard.

https://html.spec.whatwg.org/multipage/links.html#following-hyperlinks-2 (URLs are
*encoding-parsed* against the document base URL with the document's encoding)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields

from pipeline.extract.domains import registered_domain, url_host
from pipeline.extract.fields import Link
from pipeline.extract.tree import Scan, rel_keywords, tag_ids
from pipeline.extract.urls import Resolver

#: ``link`` elements kept (by rel keyword).
LINK_RELS = frozenset({"canonical", "alternate", "next", "prev"})
_TAG_ID = {name: tag_id for tag_id, name in tag_ids(("a", "area")).items()}
_A_ID, _AREA_ID = _TAG_ID["a"], _TAG_ID["area"]


def link_candidates(found: Scan, max_links: int) -> list[tuple[str, str, str | None, str | None]]:
    """(tag, href, rel, text) of the ``a``, ``area`` and ``link`` elements with an href
    among the first ``max_links`` of them, in tree order — text is the anchor's text
    (``node.text()``), the ``alt`` of an ``area``, "" for a ``link``. The pure-Python
    reference of :func:`pipeline.extract.walk.links`.
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
        if tag_id == a_id:
            out.append(("a", href, attrs.get("rel"), node.text()))
        elif tag_id == area_id:
            out.append(("area", href, attrs.get("rel"), attrs.get("alt")))
        else:
            out.append(("link", href, attrs.get("rel"), ""))
    return out


def extract_links(
    candidates: list[tuple[str, str, str | None, str | None]], total: int,
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
    # Targets on the page's own host skip host parsing: a serialized special URL has a
    # path, so "scheme://host/" is exactly "same host, no userinfo, default port".
    same_host = f"//{page_host}/"
    resolve = Resolver(base_url, encoding)
    internal_of: dict[str | None, bool | None] = {}
    seen: dict[str, tuple[str | None, bool | None]] = {}

    def _target(href: str) -> tuple[str | None, bool | None]:
        target = resolve(href)
        if target is None or page_domain is None:
            return target, None
        if target.startswith(same_host, target.find(":") + 1):
            return target, True
        host = url_host(target)
        if host in internal_of:
            return target, internal_of[host]
        domain = registered_domain(host)
        internal = internal_of[host] = None if domain is None else domain == page_domain
        return target, internal

    links: list[Link] = []
    append = links.append
    bad = 0
    truncated = max(0, total - max_links)
    for tag, href, rel, text in candidates:
        keywords = rel_keywords(rel) if rel else ()
        if tag == "a":
            # Anchor text: every run of whitespace (Unicode's, NBSP included) becomes one
            # space. Text that is printable (so has no whitespace but U+0020), without
            # doubled, leading or trailing spaces, is already collapsed.
            if not (text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " "):
                text = " ".join(text.split())
        elif tag == "area":
            text = " ".join((text or "").split())
        elif not LINK_RELS.intersection(keywords):
            continue
        # Per distinct href: its target and whether it is internal (computed once).
        known = seen.get(href)
        if known is None:
            known = seen[href] = _target(href)
        target, internal = known
        if target is None:
            bad += 1
            continue
        append(_new_link(target, text, rel, tag, "href", internal, "nofollow" in keywords))
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
