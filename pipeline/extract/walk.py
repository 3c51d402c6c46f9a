"""The compiled walks (``_walk.c``) over the Lexbor tree: set-up, self-test, and the calls
the extractors make (:func:`links`, :func:`main_text`, :func:`blocks`, and the parse
guard :func:`unclosed_nesting`, which reads bytes only and needs no configuration).

``_walk`` reads Lexbor's structs directly, so before it is used this module teaches it
the tag and attribute ids (read off parsed samples through selectolax's own API) and
runs both it and the pure-Python reference on a self-test document. Any difference —
a selectolax upgrade that moved a field, say — leaves :data:`AVAILABLE` False and the
extractors on the Python path (same results, slower); :data:`UNAVAILABLE_REASON` says
why. ``REDECODE_PURE_PYTHON=1`` forces the Python path.
"""

from __future__ import annotations

import os
from functools import lru_cache

from selectolax.lexbor import LexborHTMLParser

from pipeline.extract.links import LinkCandidate
from pipeline.extract.main_text import Block
from pipeline.extract.meta import WANTED_KEYS, HeadFacts
from pipeline.extract.tree import _INTEGRATION_POINTS as tree_integration_points
from pipeline.extract.tree import MAX_UNCLOSED_NESTING, NESTING_NAMES, tag_ids
from pipeline.extract.tree import unclosed_nesting as tree_unclosed_nesting

try:
    from pipeline.extract import _walk  # type: ignore[attr-defined]
except ImportError as exc:  # no compiler at install time: the Python path serves
    _walk = None
    _IMPORT_ERROR = str(exc)
else:
    _IMPORT_ERROR = ""


_ATTRS = ("href", "rel", "alt", "class", "id", "style", "hidden", "aria-hidden", "role",
          "itemprop", "content", "property", "name", "lang")
_FLAG_INVISIBLE, _FLAG_BOILERPLATE, _FLAG_PATTERN, _FLAG_ARTICLE = 1, 2, 4, 8


def _attr_ids() -> dict[str, int]:
    """Lexbor's static attribute ids for ``_ATTRS`` (0 for names it interns per document)."""
    sample = LexborHTMLParser("<div " + " ".join(f"{name}=v" for name in _ATTRS) + "></div>")
    node = sample.css_first("div")
    names = list(node.attributes)
    ids = _walk.attr_ids(node.mem_id)
    if names != list(_ATTRS) or len(ids) != len(names):
        raise RuntimeError(f"attribute order differs: {names} / {ids}")
    return dict(zip(names, ids, strict=True))


def _text_id() -> int:
    sample = LexborHTMLParser("<p>x</p>")
    text = next(n for n in sample.body.traverse(include_text=True) if n.tag == "-text")
    local_name, node_type = _walk.tag_id(text.mem_id)
    if node_type != 3 or local_name != text.tag_id:
        raise RuntimeError(f"text node reads as ({local_name}, {node_type}), not ({text.tag_id}, 3)")
    return local_name


def _configure() -> None:
    from pipeline.extract import main_text as mt
    from pipeline.extract.tree import SCAN_TAGS

    invisible = (*SCAN_TAGS[7:], "title")
    flags: dict[int, int] = {}
    for group, flag in ((invisible, _FLAG_INVISIBLE), (mt.BOILERPLATE_TAGS, _FLAG_BOILERPLATE),
                        (mt.PATTERN_TAGS, _FLAG_PATTERN), (("article",), _FLAG_ARTICLE)):
        for tag_id in tag_ids(tuple(group)):
            flags[tag_id] = flags.get(tag_id, 0) | flag
    links = {name: tag_id for tag_id, name in tag_ids(("a", "area", "link")).items()}
    style = mt._HIDDEN_STYLE.search
    names = mt._patterns(mt.BOILERPLATE_PATTERNS).search
    roles = mt.BOILERPLATE_ROLES
    _walk.configure(
        flags, dict(mt._MARK_KINDS), dict(mt._CONTAINER_MARK_KINDS), _attr_ids(), _text_id(),
        links["a"], links["area"], links["link"],
        # Cached: pages repeat the same class/style values on many elements, and each test
        # is a regex search.
        lru_cache(maxsize=4096)(lambda value: style(value) is not None),  # _structural_test's style rule
        lru_cache(maxsize=4096)(lambda value: len(value) > 1 and names(value.lower()) is not None),  # _classed_test
        lambda value: value.lower() in roles,
    )
    # the class/id words, searched in C for ASCII names (others go to the regex above)
    _walk.configure_patterns(tuple(mt.BOILERPLATE_PATTERNS))
    # metadata: the tags head() reads, and those tree.is_html_element looks for above a title
    ids = {name: tag_id for tag_id, name in tag_ids(
        ("meta", "base", "title", "html", "head", "body", "svg", "math", *_INTEGRATION_POINTS)).items()}
    # The C walk ASCII-lowercases meta keys where meta.wanted_key uses str.lower(): the same
    # answer as long as no non-ASCII character lowercases into a wanted key (only KELVIN
    # SIGN -> "k" and I WITH DOT -> "i" + U+0307 lowercase into ASCII letters at all).
    if any(not key.isascii() or "k" in key for key in WANTED_KEYS):
        raise RuntimeError("a wanted meta key the compiled test cannot match like str.lower()")
    _walk.configure_head(tuple(ids[name] for name in ("meta", "base", "title", "html", "head", "body",
                                                      "svg", "math")),
                         tuple(ids[name] for name in _INTEGRATION_POINTS), tuple(sorted(WANTED_KEYS)))


#: tree._INTEGRATION_POINTS by Lexbor's (case-insensitive) tag names.
_INTEGRATION_POINTS = tuple(sorted({name.lower() for name in tree_integration_points}))


def document(tree: LexborHTMLParser, max_links: int) -> tuple[int, int, list[LinkCandidate], HeadFacts]:
    """What the links and metadata read, in one compiled walk: (elements in the document,
    a/area/link elements, the candidates with an href among the first ``max_links`` of
    them, in tree order — ``scan`` + ``link_candidates`` on the Python path — and
    :func:`pipeline.extract.meta.head_facts`' facts)."""
    root = tree.root
    if root is None:
        return 0, 0, [], HeadFacts([], None, None, [], None)
    elements, total, candidates, facts = _walk.document(root.mem_id, max_links)
    return elements, total, candidates, HeadFacts(*facts)


def unclosed_nesting(data: bytes) -> int:
    """:func:`pipeline.extract.tree.unclosed_nesting` in one pass (the Python reference counts
    each spelling in its own pass over the document)."""
    if _walk is None:
        return tree_unclosed_nesting(data)
    return _walk.nesting(data, NESTING_NAMES, MAX_UNCLOSED_NESTING)


def main_text(tree: LexborHTMLParser, drop_boilerplate_tags: bool, drop_hidden: bool,
              prune_patterns: bool, prefer_article: bool, max_share: float,
              article_min_share: float, prefix_chars: int) -> tuple[list[Block], int, str]:
    """(ExtractContent blocks of the scoring scope, length of the visible text, its first
    ``prefix_chars`` characters): what the Python path's pruning, ``_mark`` and
    ``prepare_blocks`` give, without modifying the tree."""
    body = tree.body
    if body is None:
        return [], 0, ""
    blocks_, length, prefix, _ = _walk.main_text(body.mem_id, drop_boilerplate_tags, drop_hidden,
                                                 prune_patterns, prefer_article, max_share,
                                                 article_min_share, prefix_chars)
    return blocks_, length, prefix


def blocks(marked: str) -> list[Block]:
    """:func:`pipeline.extract.main_text.prepare_blocks`, compiled."""
    return _walk.blocks(marked)


#: Exercises every attribute, tag group and text rule the walks read (dynamic attribute
#: names, NBSP-only text, nested candidates, value-less attributes, svg, tables...).
SELF_TEST_HTML = """<!doctype html><html lang=en><head><title>t</title>
<link rel=canonical href=/c><link rel=stylesheet href=/s.css><link href></head>
<body><div class="nav-bar"><a href=/1>one</a> <a href='/2' rel='nofollow'>t<b>w</b>o</a></div>
<article itemprop=articleBody><h2>Head</h2><p>Some text, long enough to count, really.
\u00a0 <span> \u00a0 </span><a>no href</a><a href>empty</a></p>
<div hidden>gone</div><div aria-hidden=TRUE>gone too</div><p style="display: none">x</p>
<aside role=navigation>side</aside><nav>menu</nav><div role=main>kept text</div>
<table><tr><td>cell one</td><td>cell two</td></tr></table>
<div class=share id=x>share this</div><ul class=related><li><a href=/r>r</a></ul>
<script>var a = "<p>not text</p>";</script><svg><a href=/svg>svg</a><title>s</title></svg>
<map><area href=/area alt=" A  rea "><area href=/b></map></article>
<div itemprop=articleBody>short</div><p>tail \u3000text\u2003</p><br><hr>
<form><input value=x><label>form label</label></form></body></html>"""


#: Metadata corner cases: a foreign title first, empty and value-less values, several
#: bases, an integration point, a dynamic attribute name, a second html element.
SELF_TEST_HEAD_HTML = """<html lang=" de "><svg><title>svg</title><foreignObject><b>x</b>
<title>in foreignObject</title></foreignObject></svg><math><mi><title>mi</title></mi></math>
<title> first\n html  title </title><base target=_top><base href><base href="">
<base href=/b/><meta content name><meta content="" property=og:title><meta name=description>
<meta content=x><meta property=og:type name=Twitter:Card content=" T "><meta data-x content=y
name=og:url><link href rel=canonical><link rel=canonical><link href=/c rel="CANONICAL x">
<meta name=viewport content=v><meta property=" OG:Image	" content=/i><meta name="twitter:tİtle"
content=t><meta name="descrıption" content=d><meta name="K" content=k><link href=/e rel=icon>
<link href=/f rel=canonicalx><link href=/g rel=" canonical">
<html lang=fr><link href=/d>"""


def _self_test() -> None:
    """Both paths on ``SELF_TEST_HTML``, under every switch combination."""
    from pipeline.extract import links as py_links
    from pipeline.extract import main_text as mt
    from pipeline.extract.meta import head_facts
    from pipeline.extract.options import ExtractOptions
    from pipeline.extract.tree import parse_document, scan

    for html in (SELF_TEST_HTML, SELF_TEST_HEAD_HTML):
        found = scan(parse_document(html))
        expected = (found.elements, len(found.links), py_links.link_candidates(found, 10_000),
                    head_facts(found))
        got = document(parse_document(html), 10_000)
        if got != expected:
            raise RuntimeError(f"links or head facts differ: {got!r} != {expected!r}")
    for switches in range(16):
        on = [bool(switches & (1 << i)) for i in range(4)]
        options = ExtractOptions(drop_boilerplate_tags=on[0], drop_hidden=on[1],
                                 prune_patterns=on[2], prefer_article=on[3])
        marked, visible = mt.marked_text(parse_document(SELF_TEST_HTML), options)
        expected = (mt.prepare_blocks(marked), len(visible), visible[:40])
        fast = main_text(parse_document(SELF_TEST_HTML), *on, options.prune_max_share,
                         options.article_min_share, 40)
        if fast != expected or blocks(marked) != expected[0]:
            raise RuntimeError(f"main text differs under {options}: {fast!r} != {expected!r}")


def _enable() -> tuple[bool, str]:
    if os.environ.get("REDECODE_PURE_PYTHON"):
        return False, "REDECODE_PURE_PYTHON is set"
    if _walk is None:
        return False, f"pipeline.extract._walk is not built ({_IMPORT_ERROR})"
    try:
        _configure()
        _self_test()
    except Exception as exc:  # any mismatch: never use walks that misread the tree
        return False, f"self-test failed: {type(exc).__name__}: {exc}"
    return True, ""


AVAILABLE, UNAVAILABLE_REASON = _enable()
