"""The links of a document: every URL a browser would load or a crawler would follow.

Two steps, both compiled (``tests/oracles/extract.py`` restates them in Python, and the tests
compare the two):

1. *Candidates* (the ``facts`` walk of ``_document.c`` with the tokenizers of
   ``_urltext.c``, :func:`pipeline.extract.document.facts`): in tree order, each URL
   of each URL-valued attribute and of each content that holds URLs, as ``(kind, tag, attr,
   value, rel, text)`` — the table is :mod:`pipeline.extract.url_attributes`.
   The walk reads URLs out of text as it goes: a ``srcset`` split into its image
   candidates, ``ping``/``itemtype`` into their tokens, CSS into its URLs, a script into its
   URL-like strings; the first meta refresh that parses gives one more
   (:func:`refresh_candidate`).
2. *Links* (:func:`extract_links`, ``_urls.links``): each candidate resolved per the URL
   Standard, with its ``internal`` flag from the one host parser (:mod:`pipeline.urlhost`).
   The links stay compiled values (a :class:`PageLinks`, each link a :class:`Link` only when
   read) until the links table of a batch of records is written from them
   (:func:`pipeline.runners.worker.links_table`).

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

from dataclasses import fields
from functools import lru_cache
from typing import Any, NamedTuple

from pipeline.extract.fields import Link
from pipeline.extract.refresh import parse_refresh
from pipeline.extract.url_attributes import KINDS
from pipeline.extract.url_resolution import Resolver, resolve_url
from pipeline.native import urls
from pipeline.urlhost import parse_host, registered_domain

PageLinks = urls.PageLinks
#: A page without links (``PageLinks`` holds no reference that could change: one is shared).
NO_LINKS = PageLinks()

#: One source or candidate: (kind, tag, attr, value, rel, text) — attr None for an
#: element's content; rel for a/area/link; text is the anchor's text for ``a`` or the
#: ``alt`` of an ``area``, whitespace collapsed, "" for the others.
LinkCandidate = tuple[str, str, str | None, str, str | None, str]


class Packed(NamedTuple):
    """The compiled walk's candidates without a Python object per candidate
    (``pipeline/extract/_candidates.h``): the records, and the objects they index."""

    pack: bytes
    objects: list[Any]


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
) -> tuple[PageLinks, int]:
    """Every link of the document, in order, and the count of URLs that failed to parse
    (a script string that does not parse is not a URL, not a failure). ``packed``: the
    compiled walk's candidates, which come before ``candidates``.

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

    base, reencode, reencode_all = Resolver(base_url, encoding).compiled_args()
    page_data = page_url.encode("utf-8") if page_url is not None else None
    if packed is not None:
        return urls.links_packed(packed.pack, packed.objects, candidates, base, page_data, page_url,
                                 page_domain is not None, internal_of, internal_fn, reencode,
                                 reencode_all)
    return urls.links(candidates, base, page_data, page_url, page_domain is not None, internal_of,
                      internal_fn, reencode, reencode_all)


# A ``PageLinks`` read from Python makes Link objects in C: ``_urls`` is handed the class and
# its fields' order (and checks that each is an object slot).
urls.bind_links(Link, tuple(field.name for field in fields(Link)), KINDS)
