"""The extraction step: one parse, every field (metadata, links, main text, language).

Metadata and links come from one compiled walk over the parsed tree, the main text from
another (which leaves the tree as parsed, so a second main-text pass reads it again).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from pipeline.encoding.lookup import get_an_encoding
from pipeline.extract import document
from pipeline.extract.document import ExtractionLimit, parser_input
from pipeline.extract.fields import Extracted
from pipeline.extract.lang import MAX_CHARS, choose_language, detect_language
from pipeline.extract.links import NO_LINKS, LinkCandidate, extract_links, refresh_candidate
from pipeline.extract.main_text import Block, longest_block, main_text_of
from pipeline.extract.meta import Metadata, extract_metadata
from pipeline.extract.options import ExtractOptions
from pipeline.extract.url_attributes import KINDS
from pipeline.extract.url_resolution import parse_url
from pipeline.native import document as core

_DEFAULT_OPTIONS = ExtractOptions()
_REFRESH = KINDS.index("refresh")
#: The fallback runs only on pages with this many times ``fallback_min_chars`` of text; a
#: smaller page whose main text is empty gets its longest block (``longest_block``: on the
#: fit half of main-text-fit no page changes score; on larger pages the longest block, where
#: nothing scored, is mostly a list of links the gold leaves out: Dragnet -0.0045).
FALLBACK_RATIO = 4
#: No second main-text pass on trees this big: real articles stay far below (the largest of
#: the 181 benchmark pages has 1,709 elements by `scan`) and on 512 KB of unclosed <a> the second
#: pass doubled a 0.5 s extraction.
RETRY_MAX_ELEMENTS = 20_000
#: Main texts shorter than this are not enough to detect a language: use the visible text.
MIN_TEXT_FOR_LANGUAGE = 200
#: Characters of the visible text kept beside its length: the language sample's worth.
VISIBLE_PREFIX = 1024
assert MAX_CHARS <= VISIBLE_PREFIX, "the language sample needs MAX_CHARS of visible text"


def _failure(part: str, exc: Exception) -> str:
    return f"{part}: {type(exc).__name__}: {exc}"


def _check_budget(deadline: float, budget: float, part: str) -> None:
    """Raise :class:`ExtractionLimit` once the thread's CPU time has passed ``deadline``."""
    if deadline and time.thread_time() > deadline:
        raise ExtractionLimit("time-budget", f"more than {budget:g} CPU seconds by the end of {part}")


def extract(
    text: str, url: str | None, encoding: str, options: ExtractOptions = _DEFAULT_OPTIONS,
    *, utf8: bytes | None = None,
) -> Extracted:
    """Extract every field of a decoded HTML document.

    ``text`` is the decoded document, ``url`` the record URL (the fallback base URL;
    None when unknown), ``encoding`` the WHATWG name (or label) of the encoding it was
    decoded with — link queries are percent-encoded in it, as browsers do. ``utf8`` is
    ``text`` encoded as UTF-8 when the caller has it (``Decoded.utf8``): the parser reads
    UTF-8, so it saves encoding the text again; passing other bytes is a misuse.

    Never raises on any input text: malformed HTML is parsed as a browser would, bad URLs
    are counted in ``bad_urls``, and if a part fails internally (a bug) the other parts
    are still returned and the failure is listed in ``Extracted.errors`` for the caller
    to record as an ``extract`` RecordError. It raises only for programming errors in
    its arguments (``text`` not a ``str``, ``options`` not an :class:`ExtractOptions`).

    >>> e = extract("<title>T</title><a href='/x?q=\\u00e9'>x</a>", "http://a.example/", "windows-1252")
    >>> e.title, e.links[0].url, e.links[0].internal
    ('T', 'http://a.example/x?q=%E9', True)
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    if not isinstance(options, ExtractOptions):
        raise TypeError(f"options must be ExtractOptions, not {type(options).__name__}")
    errors: list[str] = []
    doc_encoding = get_an_encoding(encoding) or "UTF-8"
    page_url = parse_url(url)
    budget = options.time_budget
    deadline = time.thread_time() + budget if budget else 0.0
    data, capped = parser_input(text, utf8, options.max_parse_bytes)
    if capped:
        errors.append(capped)
    limits = options.max_links.as_tuple()
    try:
        tree = document.parse(data, options.max_open_elements, options.max_attributes, deadline,
                              options.max_names)
        # (the candidates stay packed until the links are made)
        elements, packed, dropped, refresh, facts = document.facts(tree, limits)
        _check_budget(deadline, budget, "the parse")
    except Exception as exc:  # a limit, or nothing to extract from: the caller records why
        return _empty(page_url, (*errors, _failure("parse", exc)))

    meta = Metadata(None, None, {}, None, page_url, None, None)
    try:
        meta = extract_metadata(facts, page_url, doc_encoding)
    except Exception as exc:  # a bug must not cost the record its other fields
        errors.append(_failure("metadata", exc))

    links = NO_LINKS
    bad_urls = 0
    try:
        candidates: list[LinkCandidate] = []  # (the refresh; the walk's stay packed)
        target = refresh_candidate(refresh, meta.base_url, page_url, doc_encoding)
        if target is not None:
            if limits[_REFRESH] > 0:
                candidates.append(target)
            else:
                dropped[_REFRESH] += 1
        links, bad_urls = extract_links(candidates, meta.base_url, page_url, doc_encoding, packed)
        _check_budget(deadline, budget, "the links")
    except ExtractionLimit as exc:
        return _empty(page_url, (*errors, _failure("links", exc)))
    except Exception as exc:
        errors.append(_failure("links", exc))

    main_text, visible, visible_length = "", "", 0
    try:
        main_text, visible_length, visible = choose_main_text(
            lambda chosen, _again: _blocks(tree, chosen), elements, options)
        _check_budget(deadline, budget, "the main text")
    except ExtractionLimit as exc:
        return _empty(page_url, (*errors, _failure("main-text", exc)))
    except Exception as exc:
        errors.append(_failure("main-text", exc))

    lang, lang_detected = None, None
    try:
        detected = None
        if options.detect_language:
            sample = main_text if len(main_text) >= MIN_TEXT_FOR_LANGUAGE else visible
            detected = detect_language(sample)
        lang, lang_detected = choose_language(meta.html_lang, detected)
    except Exception as exc:
        errors.append(_failure("language", exc))

    social = meta.social
    return Extracted(
        title=meta.title,
        description=meta.description,
        og_title=social.get("og:title"),
        og_description=social.get("og:description"),
        og_image=social.get("og:image"),
        og_url=social.get("og:url"),
        og_type=social.get("og:type"),
        og_site_name=social.get("og:site_name"),
        og_locale=social.get("og:locale"),
        twitter_card=social.get("twitter:card"),
        twitter_title=social.get("twitter:title"),
        twitter_description=social.get("twitter:description"),
        twitter_image=social.get("twitter:image"),
        canonical_url=meta.canonical_url,
        base_url=meta.base_url,
        html_lang=meta.html_lang,
        lang=lang,
        lang_detected=lang_detected,
        main_text=main_text,
        text_length=visible_length,
        links=links,
        bad_urls=bad_urls,
        base_href=meta.base_href,
        errors=tuple(errors),
        links_truncated=sum(dropped),
        links_dropped=tuple((kind, count) for kind, count in zip(KINDS, dropped, strict=True) if count),
    )


def _empty(base_url: str | None, errors: tuple[str, ...]) -> Extracted:
    return Extracted(
        title=None, description=None, og_title=None, og_description=None, og_image=None,
        og_url=None, og_type=None, og_site_name=None, og_locale=None, twitter_card=None,
        twitter_title=None, twitter_description=None, twitter_image=None, canonical_url=None,
        base_url=base_url, html_lang=None, lang=None, lang_detected=None, main_text="",
        text_length=0, links=NO_LINKS, bad_urls=0, errors=errors,
    )


#: The walk a main-text pass runs: (blocks, visible length, visible prefix, comment blocks)
#: for the options given; ``again`` is True for a fallback pass over the same page.
BlocksFor = Callable[[ExtractOptions, bool], tuple[list[Block], int, str, list[Block]]]


def choose_main_text(blocks_for: BlocksFor, elements: int,
                     options: ExtractOptions) -> tuple[str, int, str]:
    """(main text, visible text length, its first characters) of a page of ``elements``
    elements: the first pass, the fallback's passes when it found too little on a page with
    enough text, and a small page's longest block when nothing scored."""
    prune = elements <= options.max_pruned_elements
    first = options if prune else _without_pruning(options)
    blocks, visible_length, visible, comments = blocks_for(first, False)
    main_text = main_text_of(blocks, first, comments)
    if (
        prune
        and elements <= RETRY_MAX_ELEMENTS
        and options.prune_patterns
        and len(main_text) < options.fallback_min_chars
        and visible_length >= FALLBACK_RATIO * options.fallback_min_chars
    ):
        # Score again without the class/id patterns, then also without the structural
        # tags (a post in an <aside class=blogPost> under 30% of the text).
        for retry in _retries(options):
            again, _, _, _ = blocks_for(retry, True)
            second = main_text_of(again, retry)
            if len(second) > len(main_text):
                main_text = second
            if len(main_text) >= options.fallback_min_chars:
                break
    if not main_text and prune and visible_length < FALLBACK_RATIO * options.fallback_min_chars:
        # A page too small for the fallback: its longest block, when nothing scored.
        main_text = longest_block(blocks, first)
    return main_text, visible_length, visible


def _blocks(tree: core.Document, options: ExtractOptions) -> tuple[list[Block], int, str, list[Block]]:
    """(ExtractContent blocks, visible text length, its first ``VISIBLE_PREFIX`` characters,
    the comment sections' blocks): the compiled walk over a
    :func:`pipeline.extract.document.parse` tree."""
    return document.main_text(tree, options.drop_boilerplate_tags, options.drop_hidden,
                              options.prune_patterns, options.prefer_article,
                              options.prune_max_share, options.article_min_share,
                              options.comments, options.comment_max_share, VISIBLE_PREFIX)


def _retries(options: ExtractOptions) -> tuple[ExtractOptions, ...]:
    """The fallback's passes, each pruning less than the one before: without the class/id
    patterns, then without the structural tags too (hidden elements stay out)."""
    without_patterns = replace(options, prune_patterns=False)
    if not options.drop_boilerplate_tags:
        return (without_patterns,)
    return without_patterns, replace(without_patterns, drop_boilerplate_tags=False)


def _without_pruning(options: ExtractOptions) -> ExtractOptions:
    return replace(options, drop_boilerplate_tags=False, drop_hidden=False, prune_patterns=False,
                   prefer_article=False)
