"""The oracles' tree: the document parsed by selectolax (the Lexbor build inside
selectolax), its one scan, and the namespace test metadata needs.

The walks of ``tests/oracles/walks.py`` read this tree; the tests compare them with the
compiled walks over the compiled core's own Lexbor parse (:mod:`pipeline.extract.document`).
Lexbor implements the HTML Standard's tree construction (§13.2.6), so the tree is the one a
browser builds.

Deviations:
  * ``is_html_element`` never treats MathML ``annotation-xml`` as an HTML integration
    point (the spec does when its encoding is text/html or application/xhtml+xml).
"""

from __future__ import annotations

from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser, LexborNode

from pipeline.extract.document import INTEGRATION_POINTS, INVISIBLE_TAGS


def parse_document(text: str | bytes) -> LexborHTMLParser:
    """Parse ``text`` (a ``str``, or its UTF-8 bytes) with selectolax as an HTML document
    (never raises on any ``str``).

    Text from the WHATWG decoders never holds lone surrogates (they decode to U+FFFD).
    Other callers beware: selectolax encodes with ``errors="ignore"``, so a lone surrogate
    is dropped by the parser, not replaced.

    >>> parse_document("<title>a</title><p>b").body.text()
    'b'
    """
    # UTF-8 bytes parse faster than a str (selectolax then encodes with errors="ignore")
    return LexborHTMLParser(text if isinstance(text, bytes) else text.encode("utf-8", "ignore"))


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
        if tag in INTEGRATION_POINTS:
            return True
        if tag in ("svg", "math"):
            return False
        if tag in ("body", "head", "html"):
            return True
        parent = parent.parent
    return True


#: Tags the one shared scan collects: what metadata, links and main text need from the
#: untouched tree. One walk in tree order serves every extractor (a CSS selector list of
#: these 27 tags costs twice a Python walk that dispatches on Lexbor's tag ids).
SCAN_TAGS = (
    "html", "title", "base", "meta", "link", "a", "area",
    # never rendered as text: removed before the main text is measured (the compiled walk's
    # table, but for the title, which the scan keeps with the head's tags)
    *(tag for tag in INVISIBLE_TAGS if tag != "title"),
)
_LINK_TAGS = frozenset({"a", "area", "link"})
#: Removed before the main text is measured (a ``title`` in the body is not rendered).
_INVISIBLE = frozenset(INVISIBLE_TAGS)


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
            root = LexborHTMLParser(f"{context}<{tag}></{tag}>").root
            found = [node.tag_id for node in root.traverse() if node.tag == tag] if root else []
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
    elements: int  # every node the walk visits (elements and comments)
    elements_in_order: list[LexborNode]  # every element, in tree order (the links' sources)

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
    in_order: list[LexborNode] = []
    wanted = _TAG_IDS
    elements = 0
    root = tree.root
    for node in root.traverse() if root is not None else ():
        elements += 1
        if node.tag != "_comment":
            in_order.append(node)
        tag = wanted.get(node.tag_id)
        if tag is None:
            continue
        tags[tag].append(node)
        if tag in _LINK_TAGS:
            links.append(node)
        elif tag in _INVISIBLE:
            invisible.append(node)
    return Scan(tags, links, invisible, elements, in_order)
