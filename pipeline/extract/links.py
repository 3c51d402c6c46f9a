"""The links of a document: every ``a[href]`` and ``area[href]``, and
``link[rel~=canonical|alternate|next|prev]``, resolved per the WHATWG URL Standard.

https://html.spec.whatwg.org/multipage/links.html#following-hyperlinks-2 (URLs are
*encoding-parsed* against the document base URL with the document's encoding)
"""

from __future__ import annotations

from pipeline.extract.domains import registered_domain, url_host
from pipeline.extract.fields import Link
from pipeline.extract.tree import Scan, rel_keywords
from pipeline.extract.urls import Resolver

#: ``link`` elements kept (by rel keyword).
LINK_RELS = frozenset({"canonical", "alternate", "next", "prev"})


def extract_links(
    found: Scan, base_url: str | None, page_url: str | None, encoding: str,
    max_links: int = 10_000,
) -> tuple[tuple[Link, ...], int, int]:
    """Every link of the document, in tree order, the count of hrefs that failed, and the
    count of links beyond ``max_links`` (elements not looked at).

    ``found`` is :func:`pipeline.extract.tree.scan`'s result (its ``"links"`` list holds
    the ``a``, ``area`` and ``link`` elements in tree order). ``internal`` is whether the
    target's registered domain equals the page's (None when either has no registered
    domain, e.g. ``mailto:`` or a page without URL).
    """
    page_domain = registered_domain(url_host(page_url)) if page_url else None
    resolve = Resolver(base_url, encoding)
    internal_of: dict[str, bool | None] = {}
    links: list[Link] = []
    bad = 0
    candidates = found.links
    truncated = max(0, len(candidates) - max_links)
    for node in candidates[:max_links] if truncated else candidates:
        attrs = node.attributes
        href = attrs.get("href")
        if href is None:
            continue
        tag = node.tag or ""
        rel = attrs.get("rel")
        keywords = rel_keywords(rel) if rel else []
        if tag == "link":
            if not LINK_RELS.intersection(keywords):
                continue
            text = ""
        elif tag == "area":
            text = " ".join((attrs.get("alt") or "").split())
        else:
            # Anchor text: every run of whitespace (Unicode's, NBSP included) becomes one space.
            text = " ".join(node.text().split())
        parsed = resolve(href)
        if parsed is None:
            bad += 1
            continue
        target, host = parsed
        if host in internal_of:
            internal = internal_of[host]
        else:
            domain = registered_domain(host) if page_domain is not None else None
            internal = internal_of[host] = None if domain is None else domain == page_domain
        links.append(Link(target, text, rel, tag, "href", internal, "nofollow" in keywords))
    return tuple(links), bad, truncated
