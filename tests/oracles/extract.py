"""The oracle of :func:`pipeline.extract.extract`: the same steps over selectolax's tree,
with the walks of :mod:`tests.oracles.walks` and the links resolved one at a time in
Python (the compiled ``_urls.links`` restated), the parts that are Python in the pipeline
(metadata from the head facts, the refresh, scoring, language) shared with it.

The differences from the pipeline are the oracle's own: the parse limits are estimated
from the bytes (:func:`tests.oracles.walks.estimate_limits`; the distinct names not at all),
so a document one of them refuses is compared by the compiled path alone; and the main-text
walk prunes and marks the tree, so every further main-text pass parses again.
"""

from __future__ import annotations

import time

from pipeline.encoding.lookup import get_an_encoding
from pipeline.extract.document import ExtractionLimit, parser_input
from pipeline.extract.extract import (
    _DEFAULT_OPTIONS,
    _REFRESH,
    MIN_TEXT_FOR_LANGUAGE,
    VISIBLE_PREFIX,
    _check_budget,
    _empty,
    _failure,
    choose_main_text,
)
from pipeline.extract.fields import Extracted, Link
from pipeline.extract.lang import choose_language, detect_language
from pipeline.extract.links import LinkCandidate, refresh_candidate, rel_keywords
from pipeline.extract.main_text import Block
from pipeline.extract.meta import Metadata, extract_metadata
from pipeline.extract.options import ExtractOptions
from pipeline.extract.url_attributes import KINDS
from pipeline.extract.url_resolution import Resolver, parse_url
from pipeline.urlhost import parse_host, registered_domain
from tests.oracles.tree import Scan, parse_document, scan
from tests.oracles.walks import (
    estimate_limits,
    head_facts,
    link_candidates,
    marked_text,
    prepare_blocks,
)


def extract_links(candidates: list[LinkCandidate], base_url: str | None, page_url: str | None,
                  encoding: str) -> tuple[tuple[Link, ...], int]:
    """:func:`pipeline.extract.links.extract_links` one candidate at a time: each resolved
    per the URL Standard (against the page for a ``base``, as a script's ``new URL()`` for a
    script string), its ``internal`` flag from the registered domains of its host and the
    page's."""
    page = parse_host(page_url)
    page_host = page[0] if page is not None and page[1] else None
    page_domain = registered_domain(page_host)
    internal_of: dict[str | None, bool | None] = {page_host: page_domain is not None}
    resolve = Resolver(base_url, encoding)
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
                    domain = registered_domain(host)
                    internal_of[host] = None if domain is None else domain == page_domain
                internal = internal_of[host]
        keywords = rel_keywords(rel) if rel else ()
        links.append(Link(target, text, rel, tag, attr, kind, internal, "nofollow" in keywords))
    return tuple(links), bad


def _blocks(tree: object, options: ExtractOptions,
            found: Scan | None) -> tuple[list[Block], int, str, list[Block]]:
    marked, visible, comments = marked_text(tree, options, found.invisible if found is not None else None)  # type: ignore[arg-type]
    return prepare_blocks(marked), len(visible), visible[:VISIBLE_PREFIX], prepare_blocks(comments)


def extract(
    text: str, url: str | None, encoding: str, options: ExtractOptions = _DEFAULT_OPTIONS,
    *, utf8: bytes | None = None,
) -> Extracted:
    """:func:`pipeline.extract.extract` over selectolax's tree (see the module docstring)."""
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
        estimate_limits(data, options.max_open_elements, options.max_attributes)
        tree = parse_document(data)
        found = scan(tree)
        _check_budget(deadline, budget, "the parse")
    except Exception as exc:
        return _empty(page_url, (*errors, _failure("parse", exc)))

    meta = Metadata(None, None, {}, None, page_url, None, None)
    try:
        meta = extract_metadata(head_facts(found), page_url, doc_encoding)
    except Exception as exc:
        errors.append(_failure("metadata", exc))

    links: tuple[Link, ...] = ()
    bad_urls = 0
    dropped: list[int] = [0] * len(KINDS)
    try:
        candidates, dropped, refresh = link_candidates(found, limits)
        target = refresh_candidate(refresh, meta.base_url, page_url, doc_encoding)
        if target is not None:
            if limits[_REFRESH] > 0:
                candidates.append(target)
            else:
                dropped[_REFRESH] += 1
        links, bad_urls = extract_links(candidates, meta.base_url, page_url, doc_encoding)
        _check_budget(deadline, budget, "the links")
    except ExtractionLimit as exc:
        return _empty(page_url, (*errors, _failure("links", exc)))
    except Exception as exc:
        errors.append(_failure("links", exc))

    main_text, visible, visible_length = "", "", 0
    elements = found.elements
    try:
        # each fallback pass prunes and marks the tree: it parses again
        main_text, visible_length, visible = choose_main_text(
            lambda chosen, again: (_blocks(parse_document(data), chosen, None) if again
                                   else _blocks(tree, chosen, found)),
            elements, options)
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
