"""The parsed document: Lexbor's parse under limits, and what the extractors read off the
tree in compiled walks.

The compiled core (``_document``, built by ``setup.py`` with Lexbor's own sources and
headers) owns each parsed tree in a ``Document`` object, whose methods are the walks: no
address crosses from Python, and no walk can outlive its tree. ``tests/oracles/`` restates
the walks in Python over selectolax's tree (the Lexbor build inside selectolax), and the
tests compare the two.

Limits: Lexbor's tree construction scans the stack of open elements for many start tags
and an element's attribute list for each attribute it appends, so a document nesting
thousands of unclosed elements, or a start tag with thousands of attributes, costs time
quadratic in them (a 1.8 MB page took 267 s). The parse is stopped by the parser's own
state (the depth of its stack of open elements, the attributes of the token it is about to
handle, the distinct names outside Lexbor's tables, the thread's CPU time).
"""

from __future__ import annotations

from functools import lru_cache

from pipeline.extract.links import Packed
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
from pipeline.extract.url_attributes import (
    EMPTY_KEPT,
    JAVASCRIPT_TYPES,
    JSON_SCRIPT_TYPES,
    KINDS,
    RESOURCE_RELS,
    walk_tables,
)
from pipeline.native import document as core
from pipeline.native import utf8 as encoder


class ExtractionLimit(Exception):
    """A document refused by a limit of :class:`~pipeline.extract.options.ExtractOptions`
    (``code``: ``too-deep``, ``too-many-attributes``, ``too-many-names`` or ``time-budget``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


# Walk configuration flags (the compiled walk's F_INVISIBLE ... F_COMMENT).
_FLAG_INVISIBLE, _FLAG_BOILERPLATE, _FLAG_PATTERN, _FLAG_ARTICLE, _FLAG_COMMENT = 1, 2, 4, 8, 16
#: Never rendered as text (or not text at all): removed before the main text is measured,
#: with a ``title`` in the body.
INVISIBLE_TAGS = ("script", "style", "noscript", "template", "svg", "math", "iframe", "object",
                  "embed", "canvas", "select", "textarea", "button", "input", "video", "audio",
                  "map", "datalist", "dialog", "title")
#: HTML integration points (SVG) and MathML text integration points, as Lexbor spells their
#: tag names: a ``title`` under one of them is an HTML ``title`` (HTML Standard §13.2.6.5).
INTEGRATION_POINTS = frozenset(
    {"foreignObject", "foreignobject", "desc", "title", "mi", "mo", "mn", "ms", "mtext"}
)


def _configure() -> None:
    """Hand the compiled walks the extractors' tag tables and the tests they call back."""
    flags: dict[str, int] = {}
    for group, flag in ((INVISIBLE_TAGS, _FLAG_INVISIBLE), (BOILERPLATE_TAGS, _FLAG_BOILERPLATE),
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
    # the oracle: the same answer as long as no word holds a "k" (KELVIN SIGN lowercases to it)
    if any("k" in word for word in CONTENT_CLASSES | HIDDEN_CLASSES):
        raise RuntimeError("a class token the compiled test cannot match like str.lower()")
    core.configure_patterns(
        tuple(BOILERPLATE_PATTERNS), tuple(COMMENT_PATTERNS), tuple(sorted(CONTENT_CLASSES)),
        lru_cache(maxsize=4096)(lambda value: len(value) > 1 and comment_names(value.lower()) is not None),
        tuple(sorted(HIDDEN_CLASSES)), tuple(COMMENT_FORM_PATTERNS),
        lru_cache(maxsize=4096)(lambda value: len(value) > 1 and form_names(value.lower()) is not None))
    # The C walk ASCII-lowercases meta keys where the oracle's wanted_key uses str.lower():
    # the same answer as long as no non-ASCII character lowercases into a wanted key (only
    # KELVIN SIGN -> "k" and I WITH DOT -> "i" + U+0307 lowercase into ASCII letters at all).
    if any(not key.isascii() or "k" in key for key in WANTED_KEYS):
        raise RuntimeError("a wanted meta key the compiled test cannot match like str.lower()")
    core.configure_head(tuple(sorted({name.lower() for name in INTEGRATION_POINTS})),
                        tuple(sorted(WANTED_KEYS)))
    per_element, global_attributes = walk_tables()
    core.configure_urls(KINDS, per_element, global_attributes, EMPTY_KEPT, tuple(sorted(RESOURCE_RELS)),
                        tuple(sorted(JAVASCRIPT_TYPES)), tuple(sorted(JSON_SCRIPT_TYPES)))


_configure()


def utf8_of(text: str) -> bytes:
    """``text`` as UTF-8, as the parser gets it (lone surrogates dropped, as selectolax does
    with a ``str``)."""
    data = encoder.encode(text)  # (2x Python's encoder on the usual markup-heavy page)
    return data if data is not None else text.encode("utf-8", "ignore")


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
          max_names: int = 0) -> core.Document:
    """The compiled core's ``Document`` for the UTF-8 ``data``; raises
    :class:`ExtractionLimit` when the parse passes a limit or the thread CPU ``deadline``
    (``time.thread_time()`` seconds; 0: none)."""
    try:
        return core.Document(data, max_open_elements, max_attributes, deadline, max_names)
    except core.ParseLimitError as exc:
        code, message = exc.args
        raise ExtractionLimit(code, message) from None


def facts(doc: core.Document, limits: tuple[int, ...]) -> tuple[int, Packed, list[int], list[str], HeadFacts]:
    """What the links and metadata read, in one compiled walk: (nodes in the document as
    selectolax's ``traverse()`` counts them, the link candidates in tree order, at most
    ``limits[k]`` of each kind, packed for :func:`pipeline.extract.links.extract_links` (no
    Python object per candidate), the URLs left out per kind, the meta refresh contents,
    and the head facts)."""
    elements, (pack, objects), dropped, refresh, head = doc.facts(limits, True)
    return elements, Packed(pack, objects), dropped, refresh, HeadFacts(*head)


def main_text(doc: core.Document, drop_boilerplate_tags: bool, drop_hidden: bool, prune_patterns: bool,
              prefer_article: bool, max_share: float, article_min_share: float, comments: bool,
              comment_max_share: float, prefix_chars: int) -> tuple[list[Block], int, str, list[Block]]:
    """(ExtractContent blocks of the scoring scope, length of the visible text, its first
    ``prefix_chars`` characters, blocks of the comment sections — empty unless ``comments``):
    the tree's invisible and boilerplate elements left out, its blocks, lines and links
    marked, the marked text cut into blocks, without modifying the tree."""
    blocks_, length, prefix, _, comment_blocks = doc.main_text(
        drop_boilerplate_tags, drop_hidden, prune_patterns, prefer_article, max_share,
        article_min_share, comments, comment_max_share, prefix_chars)
    return blocks_, length, prefix, comment_blocks
