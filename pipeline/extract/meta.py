"""Document metadata: ``document.title``, the document base URL, meta description,
OpenGraph and Twitter cards, the canonical link and ``<html lang>``.

https://html.spec.whatwg.org/multipage/dom.html#document.title
https://html.spec.whatwg.org/multipage/urls-and-fetching.html#document-base-url
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.extract.infra import ASCII_WHITESPACE, strip_and_collapse, strip_ascii
from pipeline.extract.url_resolution import resolve_url

#: OpenGraph and Twitter keys collected (``og:image`` and ``twitter:image`` are resolved).
OG_KEYS = ("og:title", "og:description", "og:image", "og:url", "og:type", "og:site_name", "og:locale")
TWITTER_KEYS = ("twitter:card", "twitter:title", "twitter:description", "twitter:image")
#: Fallbacks, used only when the main key is absent.
_ALIASES = {"og:image": ("og:image:url", "og:image:secure_url"), "twitter:image": ("twitter:image:src",)}
_URL_KEYS = frozenset({"og:image", "og:url", "twitter:image"})
_SOCIAL_KEYS = (*OG_KEYS, *TWITTER_KEYS)
#: The meta keys read (their property or name, stripped and lowercased).
WANTED_KEYS = frozenset({*OG_KEYS, *TWITTER_KEYS, "description"} | {a for v in _ALIASES.values() for a in v})


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


def document_title(child_text: str | None) -> str | None:
    """The HTML Standard's ``document.title`` getter, for an HTML document, given the child
    text content of the title element (:attr:`HeadFacts.title`).

    "Otherwise, let value be the child text content of the title element, or the empty
    string if the title element is null." / "Strip and collapse ASCII whitespace in
    value." The title element is "the first title element in the document (in tree
    order)" — an HTML ``title``: SVG's ``title`` elements do not count. None when there
    is no title element (``document.title`` would be the empty string).

    >>> from pipeline.extract.document import facts, parse
    >>> tree = parse("<svg><title>no</title></svg><title> A \\n b </title>".encode(), 0, 0, 0.0)
    >>> document_title(facts(tree, (0,) * 7)[4].title)
    'A b'
    """
    return strip_and_collapse(child_text) if child_text is not None else None


def document_base_url(href: str | None, url: str | None, encoding: str) -> tuple[str | None, str | None]:
    """The document base URL and the ``<base href>`` as written (``href``: the first base
    element's href, if any).

    "If there is no base element that has an href attribute in the Document, then return
    the Document's fallback base URL" (the record URL here). Otherwise the frozen base
    URL: the first such element's href parsed against the fallback base URL with the
    document's encoding; on failure, the fallback base URL.
    """
    if href is None:
        return url, None
    resolved = resolve_url(href, url, encoding)
    return (resolved if resolved is not None else url), href


@dataclass(frozen=True, slots=True)
class HeadFacts:
    """What metadata reads off the tree (attribute values as written; None when absent or
    value-less), from the compiled walk (:func:`pipeline.extract.document.facts`)."""

    metas: list[tuple[str | None, str | None, str]]  # (property, name, content): a content, a wanted key
    base_href: str | None  # the href of the first base element that has one
    title: str | None  # child text of the first HTML title element; None: no such element
    links: list[tuple[str, str | None]]  # (href, rel) of the link elements with an href, rel canonical
    html_lang: str | None  # lang of the document element (the first html element)


def extract_metadata(facts: HeadFacts, url: str | None, encoding: str) -> Metadata:
    """Every metadata field of a parsed document, from its :class:`HeadFacts`.

    ``url`` is the parsed record URL (or None); ``encoding`` the document's WHATWG name.
    Meta values are ASCII-whitespace stripped; the first non-empty one of a key wins;
    ``property`` and ``name`` forms both count; key matching is ASCII case-insensitive.
    """
    base_url, base_href = document_base_url(facts.base_href, url, encoding)
    values: dict[str, str] = {}
    for key_property, key_name, raw_content in facts.metas:
        content = strip_ascii(raw_content)
        if content is None:
            continue
        for key in (key_property, key_name):
            if key is None:
                continue
            key = key.strip(ASCII_WHITESPACE).lower()
            if key in WANTED_KEYS and key not in values:
                values[key] = content
    social: dict[str, str] = {}
    for key in _SOCIAL_KEYS if values else ():
        value = values.get(key)
        if value is None:
            for alias in _ALIASES.get(key, ()):
                if alias in values:
                    value = values[alias]
                    break
            else:
                continue
        if key in _URL_KEYS:
            value = resolve_url(value, base_url, encoding) or value
        social[key] = value
    return Metadata(
        title=document_title(facts.title),
        description=values.get("description"),
        social=social,
        canonical_url=_canonical(facts.links, base_url, encoding),
        base_url=base_url,
        base_href=base_href,
        html_lang=strip_ascii(facts.html_lang),
    )


def _canonical(links: list[tuple[str, str | None]], base_url: str | None, encoding: str) -> str | None:
    # HeadFacts.links holds only canonical links (both paths filter): the first one wins
    return resolve_url(links[0][0], base_url, encoding) if links else None
