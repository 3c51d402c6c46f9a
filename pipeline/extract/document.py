"""The parsed document: Lexbor's parse under limits, and what the extractors read off the
tree in compiled walks.

The compiled core (``_document``, built by ``setup.py`` with Lexbor's own sources and
headers) owns each parsed tree in a :class:`Document` object, whose methods are the
walks: no address crosses from Python, and no walk can outlive its tree. Without it (no
compiler at install time, or ``REDECODE_PURE_PYTHON=1``) the extractors take the
pure-Python reference path over selectolax's tree (:mod:`pipeline.extract.reference_tree`);
:func:`native_status` says which path serves and why, and the fallback is announced once
per run on stderr (the only change importing this module makes to the process, and only
on the fallback path: it sets ``REDECODE_FALLBACK_ANNOUNCED`` for the processes it starts).

Limits: Lexbor's tree construction scans the stack of open elements for many start tags
and an element's attribute list for each attribute it appends, so a document nesting
thousands of unclosed elements, or a start tag with thousands of attributes, costs time
quadratic in them (a 1.8 MB page took 267 s). The compiled parse is stopped by the parser's
own state (the depth of its stack of open elements, the attributes of the token it is
about to handle, the thread's CPU time); the reference path, which cannot look inside
selectolax's parse, estimates the same two quantities from the bytes first
(:func:`estimate_limits`, an over-estimate: it never lets through what the compiled
parse would stop).
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from functools import lru_cache
from typing import Any

from pipeline.extract.links import LinkCandidate, Packed
from pipeline.extract.main_text import (
    BOILERPLATE_PATTERNS,
    BOILERPLATE_ROLES,
    BOILERPLATE_TAGS,
    COMMENT_FORM_PATTERNS,
    COMMENT_PATTERNS,
    COMMENT_TAGS,
    CONTAINER_MARK_KINDS,
    CONTENT_CLASSES,
    HIDDEN_CLASSES,
    HIDDEN_STYLE,
    MARK_KINDS,
    PATTERN_TAGS,
    Block,
    boilerplate_pattern,
)
from pipeline.extract.meta import WANTED_KEYS, HeadFacts
from pipeline.extract.reference_tree import INTEGRATION_POINTS, SCAN_TAGS
from pipeline.extract.url_attributes import (
    EMPTY_KEPT,
    JAVASCRIPT_TYPES,
    JSON_SCRIPT_TYPES,
    KINDS,
    RESOURCE_RELS,
    walk_tables,
)

try:
    from pipeline.encoding import _utf8  # type: ignore[attr-defined]
except ImportError:  # built without a compiler
    _utf8 = None

try:
    _document: Any = importlib.import_module("pipeline.extract._document")
except ImportError as exc:  # no compiler at install time: the reference path serves
    _document = None
    _IMPORT_ERROR = str(exc)
else:
    _IMPORT_ERROR = ""


class ExtractionLimit(Exception):
    """A document refused by a limit of :class:`~pipeline.extract.options.ExtractOptions`
    (``code``: ``too-deep``, ``too-many-attributes`` or ``time-budget``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


# Walk configuration flags (the compiled walk's F_INVISIBLE ... F_COMMENT).
_FLAG_INVISIBLE, _FLAG_BOILERPLATE, _FLAG_PATTERN, _FLAG_ARTICLE, _FLAG_COMMENT = 1, 2, 4, 8, 16
#: Never rendered as text: the scan's invisible tags, and a ``title`` in the body.
_INVISIBLE_TAGS = (*SCAN_TAGS[SCAN_TAGS.index("script"):], "title")


def _configure(core: Any) -> None:
    """Hand the compiled walks the extractors' tag tables and the tests they call back."""
    flags: dict[str, int] = {}
    for group, flag in ((_INVISIBLE_TAGS, _FLAG_INVISIBLE), (BOILERPLATE_TAGS, _FLAG_BOILERPLATE),
                        (PATTERN_TAGS, _FLAG_PATTERN), (("article",), _FLAG_ARTICLE),
                        (COMMENT_TAGS, _FLAG_COMMENT)):
        for tag in group:
            flags[tag] = flags.get(tag, 0) | flag
    style = HIDDEN_STYLE.search
    names = boilerplate_pattern(BOILERPLATE_PATTERNS).search
    comment_names = boilerplate_pattern(COMMENT_PATTERNS).search
    form_names = boilerplate_pattern(COMMENT_FORM_PATTERNS).search
    core.configure(
        flags, MARK_KINDS, CONTAINER_MARK_KINDS,
        # Cached: pages repeat the same class/style values on many elements, and each test
        # is a regex search.
        lru_cache(maxsize=4096)(lambda value: style(value) is not None),
        lru_cache(maxsize=4096)(lambda value: len(value) > 1 and names(value.lower()) is not None),
        lambda value: value.lower() in BOILERPLATE_ROLES,
    )
    # the class/id words, searched in C for ASCII names (others go to the regexes); the
    # content and hidden class tokens are compared ASCII-lowercased in C, str.lower()ed in
    # Python: the same answer as long as no word holds a "k" (KELVIN SIGN lowercases to it)
    if any("k" in word for word in CONTENT_CLASSES | HIDDEN_CLASSES):
        raise RuntimeError("a class token the compiled test cannot match like str.lower()")
    core.configure_patterns(
        tuple(BOILERPLATE_PATTERNS), tuple(COMMENT_PATTERNS), tuple(sorted(CONTENT_CLASSES)),
        lru_cache(maxsize=4096)(lambda value: len(value) > 1 and comment_names(value.lower()) is not None),
        tuple(sorted(HIDDEN_CLASSES)), tuple(COMMENT_FORM_PATTERNS),
        lru_cache(maxsize=4096)(lambda value: len(value) > 1 and form_names(value.lower()) is not None))
    # The C walk ASCII-lowercases meta keys where meta.wanted_key uses str.lower(): the same
    # answer as long as no non-ASCII character lowercases into a wanted key (only KELVIN
    # SIGN -> "k" and I WITH DOT -> "i" + U+0307 lowercase into ASCII letters at all).
    if any(not key.isascii() or "k" in key for key in WANTED_KEYS):
        raise RuntimeError("a wanted meta key the compiled test cannot match like str.lower()")
    core.configure_head(tuple(sorted({name.lower() for name in INTEGRATION_POINTS})),
                        tuple(sorted(WANTED_KEYS)))
    per_element, global_attributes = walk_tables()
    core.configure_urls(KINDS, per_element, global_attributes, EMPTY_KEPT, tuple(sorted(RESOURCE_RELS)),
                        tuple(sorted(JAVASCRIPT_TYPES)), tuple(sorted(JSON_SCRIPT_TYPES)))


def _status() -> str | None:
    if os.environ.get("REDECODE_PURE_PYTHON"):
        return "REDECODE_PURE_PYTHON is set"
    if _document is None:
        return f"pipeline.extract._document is not built ({_IMPORT_ERROR})"
    try:
        _configure(_document)
    except (ValueError, TypeError, RuntimeError) as exc:  # a table the core refuses
        return f"the compiled core refused its configuration: {exc}"
    return None


_STATUS = _status()
#: Whether the compiled core serves (else the reference path, same results, slower).
NATIVE = _STATUS is None


def native_status() -> str | None:
    """None when the compiled core serves extraction; otherwise why the pure-Python
    reference path serves instead (same results, about 3x slower)."""
    return _STATUS


#: Set by the process that announced the fallback, so that the processes it starts (a
#: run's workers, which import this module again) do not repeat it: once per run.
ANNOUNCED = "REDECODE_FALLBACK_ANNOUNCED"
if not NATIVE and not os.environ.get(ANNOUNCED):
    print(f"redecode: extraction runs in pure Python (slower): {_STATUS}", file=sys.stderr)
    os.environ[ANNOUNCED] = "1"


def utf8_of(text: str) -> bytes:
    """``text`` as UTF-8, as the parser gets it (lone surrogates dropped, as selectolax does
    with a ``str``)."""
    if _utf8 is not None:
        data = _utf8.encode(text)  # (2x Python's encoder on the usual markup-heavy page)
        if data is not None:
            return bytes(data)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "ignore")


#: The first word of the ``Extracted.errors`` line of a document cut to ``max_parse_bytes``.
CAPPED = "input-capped"


def parser_input(text: str, utf8: bytes | None, limit: int) -> tuple[bytes, str | None]:
    """What the parser reads: ``text`` as UTF-8 (``utf8`` when the caller has it), cut to at
    most ``limit`` bytes before the character that would cross it; and, when it was cut,
    the ``Extracted.errors`` line that says so (else None). A longer text is never encoded
    whole: its first ``limit`` characters are at least ``limit`` bytes. ``limit`` 0: no cut."""
    if not limit:
        return (utf8 if utf8 is not None else utf8_of(text)), None
    if utf8 is not None:
        data, whole = utf8, f"{len(utf8):,} bytes"
    else:
        data, whole = utf8_of(text if len(text) <= limit else text[:limit]), f"{len(text):,} characters"
    if len(data) > limit:
        end = limit
        while end > 0 and data[end] & 0xC0 == 0x80:  # a continuation byte: its character began before
            end -= 1
        data = data[:end]
    elif utf8 is not None or len(text) <= limit:
        return data, None
    return data, (f"{CAPPED}: the parser read the first {len(data):,} bytes of {whole} "
                  f"(max_parse_bytes = {limit:,})")


def parse(data: bytes, max_open_elements: int, max_attributes: int, deadline: float,
          max_names: int = 0) -> Any:
    """The compiled core's :class:`Document` for the UTF-8 ``data``; raises
    :class:`ExtractionLimit` when the parse passes a limit or the thread CPU ``deadline``
    (``time.thread_time()`` seconds; 0: none)."""
    try:
        return _document.Document(data, max_open_elements, max_attributes, deadline, max_names)
    except _document.ParseLimitError as exc:
        code, message = exc.args
        raise ExtractionLimit(code, message) from None


def facts(doc: Any, limits: tuple[int, ...]) -> tuple[int, list[LinkCandidate], list[int], list[str], HeadFacts]:
    """What the links and metadata read, in one compiled walk: (nodes in the document as
    selectolax's ``traverse()`` counts them, the link candidates in tree order, at most
    ``limits[k]`` of each kind, the URLs left out per kind, the meta refresh contents, and
    the head facts) — what ``scan`` + ``link_candidates`` + ``head_facts`` give on the
    reference path."""
    elements, candidates, dropped, refresh, head = doc.facts(limits)
    return elements, candidates, dropped, refresh, HeadFacts(*head)


def packed_facts(doc: Any, limits: tuple[int, ...]) -> tuple[int, Packed, list[int], list[str], HeadFacts]:
    """:func:`facts` with the candidates packed (for :func:`pipeline.extract.links.extract_links`:
    no Python object per candidate)."""
    elements, (pack, objects), dropped, refresh, head = doc.facts(limits, True)
    return elements, Packed(pack, objects), dropped, refresh, HeadFacts(*head)


def main_text(doc: Any, drop_boilerplate_tags: bool, drop_hidden: bool, prune_patterns: bool,
              prefer_article: bool, max_share: float, article_min_share: float, comments: bool,
              comment_max_share: float, prefix_chars: int) -> tuple[list[Block], int, str, list[Block]]:
    """(ExtractContent blocks of the scoring scope, length of the visible text, its first
    ``prefix_chars`` characters, blocks of the comment sections — empty unless ``comments``):
    what the reference path's pruning, marking and ``prepare_blocks`` give, without modifying
    the tree."""
    blocks_, length, prefix, _, comment_blocks = doc.main_text(
        drop_boilerplate_tags, drop_hidden, prune_patterns, prefer_article, max_share,
        article_min_share, comments, comment_max_share, prefix_chars)
    return blocks_, length, prefix, comment_blocks


def blocks(marked: str) -> list[Block]:
    """:func:`pipeline.extract.main_text.prepare_blocks`, compiled."""
    result: list[Block] = _document.blocks(marked)
    return result


# ---- the reference path's estimate -----------------------------------------------------

#: A start or end tag as the tokenizer's tag open state begins one: "<" then an ASCII
#: alpha (or "/" and one), the name up to whitespace, "/" or ">" (HTML Standard §13.2.5.6-8).
_TAG = re.compile(rb"<(/?)([A-Za-z][^\t\n\f\r />]*)([^>]*)")
#: One attribute in a tag's rest: a name, then maybe "=" and a quoted or unquoted value
#: (§13.2.5.32-38; a quoted value may hold spaces).
_ATTRIBUTE = re.compile(rb"""[^\t\n\f\r /=][^\t\n\f\r />=]*"""
                        rb"""(?:[\t\n\f\r ]*=[\t\n\f\r ]*(?:"[^"]*"|'[^']*'|[^\t\n\f\r >]*))?""")
#: Elements that never stay open (void elements, §13.1.2), that the tree builder closes
#: implicitly when a sibling starts (p, li, dd, dt, option, table parts, ...), or that do
#: not nest in themselves ("a" and "nobr" run the adoption agency algorithm, a heading or
#: a button closes an open one, §13.2.6.4.7): the estimate does not count them.
_NEVER_NEST = frozenset({
    b"a", b"nobr", b"h1", b"h2", b"h3", b"h4", b"h5", b"h6", b"button",
    b"area", b"base", b"br", b"col", b"embed", b"hr", b"img", b"input", b"link", b"meta",
    b"source", b"track", b"wbr", b"p", b"li", b"dd", b"dt", b"option", b"optgroup", b"tr",
    b"td", b"th", b"tbody", b"thead", b"tfoot", b"caption", b"colgroup", b"rb", b"rt", b"rp",
    b"rtc", b"html", b"head", b"body", b"frame", b"param", b"keygen", b"basefont", b"bgsound",
})


#: Elements whose content the tokenizer reads as text up to their end tag (RAWTEXT,
#: RCDATA and script data, §13.2.5.2-4): no tags inside are counted.
_RAW_TEXT = frozenset({b"script", b"style", b"textarea", b"title", b"xmp", b"iframe", b"noembed",
                       b"noframes"})


def estimate_limits(data: bytes, max_open_elements: int, max_attributes: int) -> None:
    """Raise :class:`ExtractionLimit` when the UTF-8 document ``data`` may nest deeper than
    ``max_open_elements`` or carry a start tag with more than ``max_attributes``
    attributes, judged from its tags alone (names in any case). The reference path's
    guard before selectolax parses.

    An over-estimate of the parser's stack: every start tag of an element that can stay
    open counts one, every end tag closes one, as if the document closed its elements in
    order.

    >>> estimate_limits(b"<DIV><Div><div></div>x", 2, 10)
    Traceback (most recent call last):
    ...
    pipeline.extract.document.ExtractionLimit: too-deep: more than 2 open elements
    >>> estimate_limits(b"<p>" * 5000 + b"<script><b><b><b></script><a href=x class=y>", 4, 2)
    """
    depth = 0
    search = _TAG.search
    at = 0
    while (match := search(data, at)) is not None:
        at = match.end()
        closing, name, rest = match.groups()
        if closing:
            depth = max(depth - 1, 0)
            continue
        # (each attribute takes at least two bytes, its name and a separator)
        if len(rest) > 2 * max_attributes and len(_ATTRIBUTE.findall(rest)) > max_attributes:
            raise ExtractionLimit(
                "too-many-attributes",
                f"a start tag with more than {max_attributes} attributes")
        name = name.lower()
        if name in _RAW_TEXT:
            end = re.compile(rb"</" + name, re.IGNORECASE).search(data, at)
            at = len(data) if end is None else end.start()
        if name in _NEVER_NEST:  # ("<div/>" opens a div: the slash is ignored in HTML)
            continue
        depth += 1
        if depth > max_open_elements:
            raise ExtractionLimit("too-deep", f"more than {max_open_elements} open elements")
