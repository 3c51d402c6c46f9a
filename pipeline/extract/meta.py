"""Document metadata: ``document.title``, the document base URL, meta description,
OpenGraph and Twitter cards, the canonical link and ``<html lang>``.

https://html.spec.whatwg.org/multipage/dom.html#document.title
https://html.spec.whatwg.org/multipage/urls-and-fetching.html#document-base-url
"""

from __future__ import annotations

from dataclasses import dataclass

from selectolax.lexbor import LexborNode

from pipeline.extract.tree import (
    ASCII_WHITESPACE,
    Scan,
    TagIndex,
    is_html_element,
    rel_keywords,
    strip_and_collapse,
    strip_ascii,
)
from pipeline.extract.urls import resolve_url

#: OpenGraph and Twitter keys collected (``og:image`` and ``twitter:image`` are resolved).
OG_KEYS = ("og:title", "og:description", "og:image", "og:url", "og:type", "og:site_name", "og:locale")
TWITTER_KEYS = ("twitter:card", "twitter:title", "twitter:description", "twitter:image")
#: Fallbacks, used only when the main key is absent.
_ALIASES = {"og:image": ("og:image:url", "og:image:secure_url"), "twitter:image": ("twitter:image:src",)}
_URL_KEYS = frozenset({"og:image", "og:url", "twitter:image"})
_WANTED = frozenset({*OG_KEYS, *TWITTER_KEYS, "description"} | {a for v in _ALIASES.values() for a in v})


@dataclass(frozen=True, slots=True)
class Metadata:
    """Metadata fields of one document (see :class:`pipeline.extract.fields.Extracted`)."""

    title: str | None
    description: str | None
    social: dict[str, str]  # "og:title" -> value, ... (URLs already resolved)
    canonical_url: str | None
    base_url: str | None  # the document base URL links resolve against
    base_href: str | None  # the <base href> as written
    html_lang: str | None


def document_title(titles: list[LexborNode]) -> str | None:
    """The HTML Standard's ``document.title`` getter, for an HTML document.

    "Otherwise, let value be the child text content of the title element, or the empty
    string if the title element is null." / "Strip and collapse ASCII whitespace in
    value." The title element is "the first title element in the document (in tree
    order)" — an HTML ``title``: SVG's ``title`` elements do not count. None when there
    is no title element (``document.title`` would be the empty string).

    >>> from pipeline.extract.tree import parse_document
    >>> titles = parse_document("<svg><title>no</title></svg><title> A \\n b </title>").css("title")
    >>> document_title(titles)
    'A b'
    """
    for node in titles:
        if is_html_element(node):
            return strip_and_collapse(node.text(deep=False))
    return None


def document_base_url(bases: list[LexborNode], url: str | None, encoding: str) -> tuple[str | None, str | None]:
    """The document base URL and the ``<base href>`` as written.

    "If there is no base element that has an href attribute in the Document, then return
    the Document's fallback base URL" (the record URL here). Otherwise the frozen base
    URL: the first such element's href parsed against the fallback base URL with the
    document's encoding; on failure, the fallback base URL.
    """
    href = next((h for h in (b.attributes.get("href") for b in bases) if h is not None), None)
    if href is None:
        return url, None
    resolved = resolve_url(href, url, encoding)
    return (resolved if resolved is not None else url), href


def extract_metadata(found: Scan | TagIndex, url: str | None, encoding: str) -> Metadata:
    """Collect every metadata field of a parsed document (the tree is not modified).

    ``found`` gives the elements by tag (:func:`pipeline.extract.tree.scan`'s result or a
    :class:`~pipeline.extract.tree.TagIndex`); ``url`` is the parsed record URL (or None); ``encoding`` the document's WHATWG name.
    Meta values are ASCII-whitespace stripped; the first non-empty one of a key wins;
    ``property`` and ``name`` forms both count; key matching is ASCII case-insensitive.
    """
    base_url, base_href = document_base_url(found["base"], url, encoding)
    values: dict[str, str] = {}
    for meta in found["meta"]:
        attrs = meta.attributes
        content = strip_ascii(attrs.get("content"))
        if content is None:
            continue
        for key_attr in ("property", "name"):
            key = attrs.get(key_attr)
            if key is None:
                continue
            key = key.strip(ASCII_WHITESPACE).lower()
            if key in _WANTED and key not in values:
                values[key] = content
    social: dict[str, str] = {}
    for key in (*OG_KEYS, *TWITTER_KEYS):
        value = values.get(key)
        if value is None:
            value = next((values[a] for a in _ALIASES.get(key, ()) if a in values), None)
        if value is None:
            continue
        if key in _URL_KEYS:
            value = resolve_url(value, base_url, encoding) or value
        social[key] = value
    return Metadata(
        title=document_title(found["title"]),
        description=values.get("description"),
        social=social,
        canonical_url=_canonical(found["link"], base_url, encoding),
        base_url=base_url,
        base_href=base_href,
        html_lang=_html_lang(found["html"]),
    )


def _canonical(links: list[LexborNode], base_url: str | None, encoding: str) -> str | None:
    for link in links:
        attrs = link.attributes
        href = attrs.get("href")
        if href is not None and "canonical" in rel_keywords(attrs.get("rel")):
            return resolve_url(href, base_url, encoding)
    return None


def _html_lang(roots: list[LexborNode]) -> str | None:
    # The document element: the first html element in tree order.
    return strip_ascii(roots[0].attributes.get("lang")) if roots else None
