"""Parse a decoded document once (Lexbor via selectolax) and the small text helpers every
extractor shares.

Lexbor implements the HTML Standard's tree construction (§13.2.6), so the tree is the
one a browser builds: misnested and unclosed tags, raw ``<`` in text and unterminated
``<script>`` all come out in linear time. (Not so tens of thousands of nested unclosed
block elements such as ``<div>``: each start tag scans the stack of open elements, so the
parse is quadratic in the nesting depth — see docs/extract.md.)

Deviations:
  * ``is_html_element`` never treats MathML ``annotation-xml`` as an HTML integration
    point (the spec does when its encoding is text/html or application/xhtml+xml).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from selectolax.lexbor import LexborHTMLParser, LexborNode

try:
    from pipeline.encoding import _utf8  # type: ignore[attr-defined]
except ImportError:  # built without a compiler
    _utf8 = None

#: ASCII whitespace per the Infra Standard: TAB, LF, FF, CR, SPACE (not NBSP).
ASCII_WHITESPACE = "\t\n\x0c\r "
_SPLIT = str.maketrans({c: " " for c in ASCII_WHITESPACE})
_TO_SPACE = str.maketrans({"\t": " ", "\n": " ", "\x0c": " ", "\r": " "})


@lru_cache(maxsize=1024)  # pages repeat a few rel values ("nofollow", "noopener noreferrer")
def rel_keywords(rel: str | None) -> tuple[str, ...]:
    """A ``rel`` value split on ASCII whitespace, ASCII-lowercased (keywords are
    ASCII case-insensitive).

    >>> rel_keywords(" NoFollow\\tnoopener ")
    ('nofollow', 'noopener')
    """
    if not rel:
        return ()
    return tuple(k.lower() if k.isascii() else k for k in rel.translate(_SPLIT).split(" ") if k)



#: Containers whose unclosed start tags nest (the parser keeps them all open).
_NESTING_TAGS = ("div", "span", "font", "blockquote", "section", "table", "ul", "ol")
#: Above this many unclosed nesting containers, Lexbor's parse turns quadratic (each start
#: tag scans the stack of open elements: 10,000 nested divs parse in ~0.4 s, 100,000 in
#: minutes). Chromium caps the tree depth at 512 instead; we refuse to build such trees.
MAX_UNCLOSED_NESTING = 10_000


def unclosed_nesting(data: bytes) -> int:
    """An upper-bound estimate of how deep unclosed containers could nest in the UTF-8
    document ``data`` (start tags minus end tags of ``_NESTING_TAGS``, lower/upper case; a
    cost guard, not a parse). The pure-Python reference of
    :func:`pipeline.extract.walk.unclosed_nesting`.

    >>> unclosed_nesting(b"<div><div></div>" + b"<SPAN>" * 3 + b"<i>" * MAX_UNCLOSED_NESTING)
    4
    """
    if data.count(b"<") <= MAX_UNCLOSED_NESTING:
        return 0  # fewer tags than the limit: no need to look closer (the common case)
    depth = 0
    for name in NESTING_NAMES:
        depth += data.count(b"<" + name) - data.count(b"</" + name)
    return depth


#: The spellings :func:`unclosed_nesting` counts.
NESTING_NAMES = tuple(spelled.encode() for tag in _NESTING_TAGS for spelled in (tag, tag.upper()))


def utf8_of(text: str) -> bytes:
    """``text`` as UTF-8, as the parser gets it (lone surrogates dropped, as selectolax does
    with a ``str``)."""
    if _utf8 is not None:
        data = _utf8.encode(text)  # (2x Python's encoder on the usual markup-heavy page)
        if data is not None:
            return data
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "ignore")


def parse_document(text: str | bytes) -> LexborHTMLParser:
    """Parse ``text`` (a ``str``, or its :func:`utf8_of` bytes) as an HTML document (never
    raises on any ``str``).

    Text from the WHATWG decoders never holds lone surrogates (they decode to U+FFFD).
    Other callers beware: selectolax encodes with ``errors="ignore"``, so a lone surrogate
    is dropped by the parser, not replaced.

    >>> parse_document("<title>a</title><p>b").body.text()
    'b'
    """
    # UTF-8 bytes parse faster than a str (selectolax then encodes with errors="ignore")
    return LexborHTMLParser(text if isinstance(text, bytes) else utf8_of(text))


def strip_and_collapse(value: str) -> str:
    """Infra Standard *strip and collapse ASCII whitespace*.

    "replace any sequence of one or more consecutive code points that are ASCII
    whitespace in the string with a single U+0020 SPACE code point, and then remove
    any leading and trailing ASCII whitespace from that string."

    >>> strip_and_collapse("\\t a \\n\\n b\\u00a0 ")
    'a b\\xa0'
    """
    return " ".join(part for part in value.translate(_TO_SPACE).split(" ") if part)


def strip_ascii(value: str | None) -> str | None:
    """Strip leading and trailing ASCII whitespace; None for a missing or empty value.

    >>> strip_ascii("  x \\n"), strip_ascii(" "), strip_ascii(None)
    ('x', None, None)
    """
    if value is None:
        return None
    value = value.strip(ASCII_WHITESPACE)
    return value or None


def is_html_element(node: LexborNode) -> bool:
    """Whether the element ``node`` is in the HTML namespace (not SVG or MathML).

    selectolax does not expose namespaces, so this follows the tree builder: inside
    ``svg``/``math`` a start tag makes a foreign element, except directly under an HTML
    integration point (SVG ``foreignObject``, ``desc``, ``title``) or a MathML text
    integration point (``mi``, ``mo``, ``mn``, ``ms``, ``mtext``), where "the rules for
    parsing tokens in foreign content" hand it to the HTML insertion mode (HTML Standard
    §13.2.6.5). An element named ``title`` above another element can only be SVG's
    (an HTML ``title`` holds text only).

    >>> tree = parse_document("<svg><title>s</title><desc><title>h</title></desc></svg>")
    >>> [is_html_element(t) for t in tree.css("title")]
    [False, True]
    """
    parent = node.parent
    while parent is not None:
        tag = parent.tag
        # DEVIATION: MathML annotation-xml is an HTML integration point only with
        # encoding="text/html" or "application/xhtml+xml"; it is never treated as one
        # here — a title inside it is taken as MathML (tested; no real page does this).
        if tag in _INTEGRATION_POINTS:
            return True
        if tag in ("svg", "math"):
            return False
        if tag in ("body", "head", "html"):
            return True
        parent = parent.parent
    return True


_INTEGRATION_POINTS = frozenset(
    {"foreignObject", "foreignobject", "desc", "title", "mi", "mo", "mn", "ms", "mtext"}
)


#: Tags the one shared scan collects: what metadata, links and main text need from the
#: untouched tree. One walk in tree order serves every extractor (a CSS selector list of
#: these 27 tags costs twice a Python walk that dispatches on Lexbor's tag ids).
SCAN_TAGS = (
    "html", "title", "base", "meta", "link", "a", "area",
    # never rendered as text: removed before the main text is measured
    "script", "style", "noscript", "template", "svg", "math", "iframe", "object", "embed",
    "canvas", "select", "textarea", "button", "input", "video", "audio", "map", "datalist",
    "dialog",
)
_LINK_TAGS = frozenset({"a", "area", "link"})
#: Removed before the main text is measured (a ``title`` in the body is not rendered).
_INVISIBLE = frozenset(SCAN_TAGS[7:]) | {"title"}


def tag_ids(names: tuple[str, ...] | frozenset[str]) -> dict[int, str]:
    """Lexbor tag id → tag name for ``names`` (HTML elements), read off a parsed sample:
    the ids are constants of the library, and an int compares faster than a name.

    >>> sorted(tag_ids(("p", "a")).values())
    ['a', 'p']
    """
    ids: dict[int, str] = {}
    for tag in names:
        # Table parts only exist inside a table: try the contexts the tree builder needs.
        for context in ("", "<table><tbody><tr>"):
            sample = LexborHTMLParser(f"{context}<{tag}></{tag}>")
            found = [node.tag_id for node in sample.root.traverse() if node.tag == tag]
            if found:
                ids[found[0]] = tag
                break
    missing = set(names) - set(ids.values())
    if missing:
        raise ValueError(f"no Lexbor tag id for {sorted(missing)}")
    return ids


_TAG_IDS = tag_ids(SCAN_TAGS)


@dataclass(slots=True)
class Scan:
    """The one walk's findings: ``SCAN_TAGS`` elements by tag, in tree order."""

    tags: dict[str, list[LexborNode]]
    links: list[LexborNode]  # a, area and link elements, in tree order
    invisible: list[LexborNode]  # never-rendered elements (script ... dialog), in tree order
    elements: int  # every element of the document

    def __getitem__(self, key: str) -> list[LexborNode]:
        if key == "links":
            return self.links
        if key == "invisible":
            return self.invisible
        return self.tags[key]


def scan(tree: LexborHTMLParser) -> Scan:
    """Walk the document once and collect what the extractors need.

    >>> found = scan(parse_document("<title>t</title><a href=x>1</a><a>2</a>"))
    >>> [n.text() for n in found["a"]], len(found["title"]), found.elements
    (['1', '2'], 1, 6)
    """
    tags: dict[str, list[LexborNode]] = {tag: [] for tag in SCAN_TAGS}
    links: list[LexborNode] = []
    invisible: list[LexborNode] = []
    wanted = _TAG_IDS
    elements = 0
    for node in tree.root.traverse():
        elements += 1
        tag = wanted.get(node.tag_id)
        if tag is None:
            continue
        tags[tag].append(node)
        if tag in _LINK_TAGS:
            links.append(node)
        elif tag in _INVISIBLE:
            invisible.append(node)
    return Scan(tags, links, invisible, elements)


class TagIndex:
    """Elements by tag name in tree order, looked up on demand (Lexbor's
    getElementsByTagName): what metadata needs when the compiled walk replaced ``scan``.

    >>> [n.tag for n in TagIndex(parse_document("<title>t</title><p>x"))["title"]]
    ['title']
    """

    __slots__ = ("_tree",)

    def __init__(self, tree: LexborHTMLParser) -> None:
        self._tree = tree

    def __getitem__(self, tag: str) -> list[LexborNode]:
        return self._tree.tags(tag)
