"""Extracted fields: the boundary between ``extract`` and ``sinks``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (the compiled module is imported where links are made)
    from pipeline.native import urls


@dataclass(frozen=True, slots=True)
class Link:
    """One outgoing link (a row of the ``links`` table, minus run/record ids)."""

    url: str  # target resolved per the WHATWG URL Standard (document-encoding query)
    anchor_text: str
    rel: str | None
    tag: str  # the element's local name: "a", "img", "script", "style", "meta", ...
    attr: str | None  # "href", "src", "srcset", "style", ...; None for an element's content
    kind: str  # "navigation", "resource", "form", "refresh", "metadata", "css", "script-string"
    internal: bool | None  # same registered domain as the page; None if unknown
    nofollow: bool


@dataclass(frozen=True, slots=True)
class Extracted:
    """Everything extracted from one decoded document."""

    title: str | None
    description: str | None
    og_title: str | None
    og_description: str | None
    og_image: str | None
    og_url: str | None
    og_type: str | None
    og_site_name: str | None
    og_locale: str | None
    twitter_card: str | None
    twitter_title: str | None
    twitter_description: str | None
    twitter_image: str | None
    canonical_url: str | None
    base_url: str | None
    html_lang: str | None  # <html lang> as written
    lang: str | None  # best language: html lang if plausible, else detected
    lang_detected: str | None
    main_text: str
    text_length: int  # length of the whole visible text
    # the links in order, kept compiled (each a Link when read); the links table is written
    # from them without a Python object per link (pipeline.runners.worker.links_table)
    links: urls.PageLinks
    bad_urls: int  # hrefs that failed to parse
    # Added by the extract stage (defaults keep older constructors working):
    base_href: str | None = None  # <base href> as written (base_url is its resolved form)
    errors: tuple[str, ...] = ()  # "<part>: <ExceptionType>: <message>" for parts that failed
    links_truncated: int = 0  # links beyond ExtractOptions.max_links, not recorded (all kinds)
    # (kind, count) of what links_truncated counts, in url_attributes.KINDS order, kinds
    # with none left out
    links_dropped: tuple[tuple[str, int], ...] = ()
