"""The oracles of the compiled walks over a parsed document (``pipeline/extract/_document.c``
with ``_urltext.c``): what metadata, links and main text read off the tree, restated in
Python over selectolax's tree (:mod:`tests.oracles.tree`).

- :func:`head_facts` and :func:`link_candidates`: the ``facts`` walk;
- :func:`marked_text` and :func:`prepare_blocks`: the ``main_text`` walk (pruning, marking,
  cutting into blocks) and ``blocks``;
- :func:`estimate_limits`: the oracle's guard standing in for the compiled parse's limits.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from selectolax.lexbor import LexborHTMLParser, LexborNode

from pipeline.extract.document import INVISIBLE_TAGS, ExtractionLimit
from pipeline.extract.infra import ASCII_WHITESPACE
from pipeline.extract.links import LinkCandidate, rel_keywords
from pipeline.extract.main_text import (
    BLOCK,
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
    LINE_START,
    LINK,
    MARK_KINDS,
    PATTERN_TAGS,
    Block,
    boilerplate_pattern,
)
from pipeline.extract.meta import WANTED_KEYS, HeadFacts
from pipeline.extract.options import ExtractOptions
from pipeline.extract.url_attributes import (
    ELEMENT_ATTRIBUTES,
    EMPTY_KEPT,
    GLOBAL_ATTRIBUTES,
    JAVASCRIPT_TYPES,
    JSON_SCRIPT_TYPES,
    KINDS,
    RESOURCE_RELS,
    SPACE_SEPARATED,
    SRCSET,
    Kind,
)
from tests.oracles.css_urls import css_urls, css_urls_possible
from tests.oracles.script_strings import string_literals, url_like
from tests.oracles.srcset import parse_srcset
from tests.oracles.tree import Scan, is_html_element, tag_ids

#: Per-kind limits, in ``KINDS`` order.
Limits = tuple[int, ...]
_SPLIT = str.maketrans({c: " " for c in "\t\n\x0c\r "})
_ASCII_WHITESPACE = ASCII_WHITESPACE


# ---- metadata: the head facts ------------------------------------------------------------

def wanted_key(key: str | None) -> bool:
    """Whether a meta ``property`` or ``name`` is one metadata reads (ASCII whitespace
    stripped, lowercased).

    >>> wanted_key(" OG:Title "), wanted_key("viewport"), wanted_key(None)
    (True, False, False)
    """
    return key is not None and key.strip(ASCII_WHITESPACE).lower() in WANTED_KEYS


def head_facts(found: Scan) -> HeadFacts:
    """:class:`HeadFacts` through selectolax (the oracle of the compiled walk)."""
    metas = []
    for meta in found["meta"]:
        attrs = meta.attributes
        content = attrs.get("content")
        key_property, key_name = attrs.get("property"), attrs.get("name")
        if content is not None and (wanted_key(key_property) or wanted_key(key_name)):
            metas.append((key_property, key_name, content))
    base_href = next((h for h in (b.attributes.get("href") for b in found["base"]) if h is not None), None)
    title = next((node.text(deep=False) for node in found["title"] if is_html_element(node)), None)
    links = []
    for link in found["link"]:
        attrs = link.attributes
        href, rel = attrs.get("href"), attrs.get("rel")
        if href is not None and "canonical" in rel_keywords(rel):
            links.append((href, rel))
    roots = found["html"]
    return HeadFacts(metas, base_href, title, links, roots[0].attributes.get("lang") if roots else None)


# ---- links: the candidates ---------------------------------------------------------------

def script_is_read(script_type: str | None, language: str | None) -> bool:
    """Whether a ``script`` element's text is read for URL-like strings: a classic or module
    script (HTML Standard §4.12.1.1 "the script's type"), an import map or speculation
    rules, or a JSON data block (MIME Sniffing §4.6: a JSON MIME type, ``application/json``,
    ``text/json`` or ``*/*+json``; ``application/ld+json``).

    >>> [script_is_read(t, None) for t in (None, "", " TEXT/JavaScript ", "module", "application/ld+json")]
    [True, True, True, True, True]
    >>> [script_is_read(t, None) for t in ("text/template", "text/javascript; x=1", "text/html")]
    [False, False, False]
    >>> script_is_read(None, "JavaScript"), script_is_read(None, "vbscript")
    (True, False)
    """
    if script_type is None:
        # "the type attribute is absent and ... the language attribute is absent or empty",
        # else "text/" followed by the language attribute's value.
        if not language:
            return True
        essence = "text/" + language.lower()
        return essence in JAVASCRIPT_TYPES
    essence = script_type.strip(_ASCII_WHITESPACE).lower()
    if essence == "" or essence in JAVASCRIPT_TYPES or essence == "module" or essence in JSON_SCRIPT_TYPES:
        return True
    # A data block: read when its MIME type's essence is a JSON MIME type (parameters allowed).
    essence = essence.split(";", 1)[0].strip(_ASCII_WHITESPACE)
    return essence in ("application/json", "text/json") or (
        "/" in essence and essence.endswith("+json"))


def link_kind(rel_keywords: tuple[str, ...]) -> Kind:
    """The kind of a ``link href`` with these (lowercased) rel keywords.

    >>> link_kind(("stylesheet",)), link_kind(("shortcut", "icon")), link_kind(("canonical",)), link_kind(())
    ('resource', 'resource', 'navigation', 'navigation')
    """
    return "resource" if RESOURCE_RELS.intersection(rel_keywords) else "navigation"


def _empty(value: str) -> bool:
    return not value.strip(_ASCII_WHITESPACE)


def _script_urls(text: str) -> list[str]:
    return [value for value in string_literals(text) if url_like(value)]


def _tokens(value: str) -> list[str]:
    """A space-separated value's tokens (split on ASCII whitespace, Infra Standard)."""
    return [token for token in value.translate(_SPLIT).split(" ") if token]


def link_candidates(found: Scan, limits: Limits) -> tuple[list[LinkCandidate], list[int], list[str]]:
    """The document's link candidates in tree order, one per URL (a ``srcset`` split into
    its image candidates, ``ping``/``itemtype`` into their tokens, a style sheet into its
    URLs, a script into its URL-like strings), at most ``limits[k]`` of each kind; per kind
    the URLs left out past its limit; and the ``content`` of each meta refresh, in tree
    order (``refresh_candidate`` picks the one that acts). The oracle of the compiled walk
    (:func:`pipeline.extract.document.facts`)."""
    out: list[LinkCandidate] = []
    refresh: list[str] = []
    seen = [0] * len(KINDS)
    index: dict[str, int] = {kind: k for k, kind in enumerate(KINDS)}

    def add(kind: str, tag: str, attr: str | None, values: list[str], rel: str | None = None,
            text: str = "") -> None:
        k = index[kind]
        for value in values:
            seen[k] += 1
            if seen[k] <= limits[k]:
                out.append((kind, tag, attr, value, rel, text))

    for node in found.elements_in_order:
        tag = node.tag or ""  # (an element always has a tag name)
        attrs = node.attributes
        if not attrs and tag not in ("style", "script"):
            continue
        for attr, kind, form in (*ELEMENT_ATTRIBUTES.get(tag, ()), *GLOBAL_ATTRIBUTES):
            value = attrs.get(attr)
            if value is None or (_empty(value) and attr not in EMPTY_KEPT):
                continue
            if tag == "input" and attr == "src" and (attrs.get("type") or "").lower() != "image":
                continue
            if form == SRCSET:
                add(kind, tag, attr, parse_srcset(value))
            elif form == SPACE_SEPARATED:
                add(kind, tag, attr, _tokens(value))
            elif tag in ("a", "area", "link") and attr == "href":
                rel = attrs.get("rel")
                if tag == "link":
                    add(link_kind(rel_keywords(rel)), tag, attr, [value], rel)
                elif seen[index[kind]] >= limits[index[kind]]:
                    seen[index[kind]] += 1  # (its text is not read)
                elif tag == "a":
                    add(kind, tag, attr, [value], rel, " ".join(node.text().split()))
                else:
                    add(kind, tag, attr, [value], rel, " ".join((attrs.get("alt") or "").split()))
            else:
                add(kind, tag, attr, [value])
        style = attrs.get("style")
        if style is not None and css_urls_possible(style):
            add("css", tag, "style", css_urls(style))
        if tag == "style":
            text = node.text(deep=False)
            if css_urls_possible(text):
                add("css", tag, None, css_urls(text))
        elif tag == "script" and "src" not in attrs and script_is_read(attrs.get("type"), attrs.get("language")):
            add("script-string", tag, None, _script_urls(node.text(deep=False)))
        elif tag == "meta" and (attrs.get("http-equiv") or "").lower() == "refresh":
            content = attrs.get("content")
            if content is not None:
                refresh.append(content)
    dropped = [max(0, count - limit) for count, limit in zip(seen, limits, strict=True)]
    return out, dropped, refresh


# ---- main text: pruning, marking, blocks -------------------------------------------------

#: Never rendered as text (or not text at all): removed before anything is measured.
INVISIBLE_SELECTOR = ", ".join(INVISIBLE_TAGS)

#: Candidates come from short CSS selector lists (Lexbor tests every element against every
#: selector, so ``[class], [id]`` plus a tag-id test in Python beats 30 ``tag[class]``
#: selectors); the attribute tests run on what they return.
_STRUCTURE_CANDIDATES = ", ".join([*sorted(BOILERPLATE_TAGS), "[role]", "[hidden]",
                                   "[aria-hidden]", "[style]"])
_PATTERN_CANDIDATES = "[class], [id]"
_COMMENT_INSIDE_CANDIDATES = f"{_STRUCTURE_CANDIDATES}, {_PATTERN_CANDIDATES}"
_BOILERPLATE_TAG_IDS = frozenset(tag_ids(BOILERPLATE_TAGS))
_PATTERN_TAG_IDS = frozenset(tag_ids(PATTERN_TAGS))
_COMMENT_TAG_IDS = frozenset(tag_ids(COMMENT_TAGS))
#: HTML splits a class value into tokens on ASCII whitespace, as the compiled test does.
_CLASS_TOKENS = re.compile(r"[\t\n\f\r ]+")
#: A share no element reaches: inside a comment section every hidden or structural element is
#: removed, a reply form that holds all of a section's text too (the compiled walk's EVERY_SHARE).
EVERY_SHARE = 2.0

# The reference walk dispatches on selectolax's tag ids.
_MARK_KINDS = {tag_id: MARK_KINDS[name] for tag_id, name in tag_ids(tuple(MARK_KINDS)).items()}
_CONTAINER_MARK_KINDS = {tag_id: CONTAINER_MARK_KINDS[name]
                         for tag_id, name in tag_ids(tuple(CONTAINER_MARK_KINDS)).items()}

_HARD = "\ue000"  # block boundary
_LINK_OPEN = "\ue001"
_LINK_CLOSE = "\ue002"
_LINE = "\ue003"
#: A block boundary inside a link: the link closed before it and opened again after it, so
#: that the text of a link around block elements (a teaser card: a heading and a summary in
#: one ``a``) is link text in every block the boundary cuts it into.
LINKED_HARD = _LINK_CLOSE + _HARD + _LINK_OPEN


def _unique(nodes: list[LexborNode]) -> list[LexborNode]:
    """Lexbor returns a node once per matching selector of a list: keep the first."""
    seen: set[int] = set()
    out = []
    for node in nodes:
        key = node.mem_id
        if key not in seen:
            seen.add(key)
            out.append(node)
    return out


def _text_length(node: LexborNode) -> int:
    # Characters of the text with every text node stripped (indentation does not count).
    return len(node.text(strip=True))


def _remove(nodes: list[LexborNode]) -> None:
    """Decompose ``nodes`` (in document order) in reverse, so that a descendant is always
    detached before its ancestor is destroyed (no node is touched after it is freed)."""
    for node in reversed(nodes):
        node.decompose()


def _structural_test(options: ExtractOptions) -> Callable[[LexborNode], bool]:
    """Whether a node is hidden or structural boilerplate (nav, aside, footer, ...)."""
    tags = options.drop_boilerplate_tags
    hidden = options.drop_hidden
    tag_ids = _BOILERPLATE_TAG_IDS
    hidden_style = HIDDEN_STYLE.search

    def test(node: LexborNode) -> bool:
        if tags and node.tag_id in tag_ids:
            return True
        attrs = node.attributes
        if hidden and (
            "hidden" in attrs
            or (attrs.get("aria-hidden") or "").lower() == "true"
            or hidden_style(attrs.get("style") or "") is not None
        ):
            return True
        return tags and (attrs.get("role") or "").lower() in BOILERPLATE_ROLES

    return test


def _classed_test(patterns: re.Pattern[str], tag_ids: frozenset[int] = _PATTERN_TAG_IDS,
                  ) -> Callable[[LexborNode], bool]:
    """Whether a container element's class or id names boilerplate (or ``patterns``), and
    no class token names the content (:data:`CONTENT_CLASSES`)."""
    search = patterns.search
    content = CONTENT_CLASSES

    def test(node: LexborNode) -> bool:
        if node.tag_id not in tag_ids:  # an int test before building the attributes
            return False
        attrs = node.attributes
        names = f"{attrs.get('class') or ''} {attrs.get('id') or ''}"
        if len(names) <= 1 or search(names.lower()) is None:
            return False
        return not content.intersection(_CLASS_TOKENS.split((attrs.get("class") or "").lower()))

    return test


def _comment_inside_test(options: ExtractOptions) -> Callable[[LexborNode], bool]:
    """Whether an element inside a comment section goes: hidden or structural boilerplate
    (the reply ``form``), a :data:`HIDDEN_CLASSES` token (with ``drop_hidden``), or class/id
    words naming the reply form (:data:`COMMENT_FORM_PATTERNS`)."""
    structural = _structural_test(options)
    form = boilerplate_pattern(COMMENT_FORM_PATTERNS).search
    hidden = options.drop_hidden

    def test(node: LexborNode) -> bool:
        if structural(node):
            return True
        attrs = node.attributes
        cls = attrs.get("class")
        if hidden and cls and HIDDEN_CLASSES.intersection(_CLASS_TOKENS.split(cls.lower())):
            return True
        if "class" not in attrs and "id" not in attrs:
            return False
        names = f"{cls or ''} {attrs.get('id') or ''}"
        return len(names) > 1 and form(names.lower()) is not None

    return test


def _boilerplate_section(options: ExtractOptions) -> Callable[[LexborNode], bool]:
    """Whether a comment section is boilerplate itself: structural (a comment ``aside``, a
    ``form`` classed ``commentform``, a hidden box) or classed like boilerplate (a comment
    rules ``modal``, a recent-comments ``widget``). It is taken out of the scope like a
    section, and its text is not kept."""
    structural = _structural_test(options)
    classed = _classed_test(boilerplate_pattern(BOILERPLATE_PATTERNS))
    return lambda node: structural(node) or classed(node)



def _prune(scope: LexborNode, selector: str, test: Callable[[LexborNode], bool], max_share: float) -> None:
    """Remove the nodes under ``scope`` matching ``selector`` and ``test`` that hold less
    than ``max_share`` of ``scope``'s text.

    Shares are measured before anything is removed (unguarded, 6 of the 181 benchmark
    pages come out empty).
    """
    matched = [node for node in scope.css(selector) if test(node)]
    if not matched:
        return
    limit = max_share * _text_length(scope)
    scope_id = scope.mem_id
    # Deduplicate (a node matching two selectors comes twice) only what the test kept.
    doomed = [
        node for node in _unique(matched)
        if node.mem_id != scope_id and _text_length(node) < limit
    ]
    _remove(doomed)


def _container(root: LexborNode, total: int, options: ExtractOptions) -> LexborNode:
    """``[itemprop=articleBody]`` or the biggest ``article``, when it holds enough text."""
    best: LexborNode | None = None
    best_length = 0
    for node in root.css("[itemprop=articleBody], article"):
        length = _text_length(node)
        if length > best_length:
            best, best_length = node, length
    if best is not None and best_length >= options.article_min_share * total and best_length > 0:
        return best
    return root


def _inside_link(node: LexborNode, root_id: int, kinds: dict[int, int]) -> bool:
    """Whether an ancestor of ``node`` below the marked root is a link."""
    parent = node.parent
    while parent is not None and parent.mem_id != root_id:
        if kinds.get(parent.tag_id) == LINK:
            return True
        parent = parent.parent
    return False


def _mark(root: LexborNode, in_container: bool = False) -> None:
    """Insert the marker text nodes (one walk; the nodes are collected before the tree
    changes)."""
    kinds = _CONTAINER_MARK_KINDS if in_container else _MARK_KINDS
    # (not around root itself: its markers would land in its parent, which a comment
    # section's removal leaves in the tree)
    root_id = root.mem_id
    marked = [(node, kind) for node in root.traverse()
              if (kind := kinds.get(node.tag_id)) and node.mem_id != root_id]
    for node, kind in marked:
        if kind == BLOCK:
            hard = LINKED_HARD if _inside_link(node, root_id, kinds) else _HARD
            node.insert_before(hard)
            node.insert_after(hard)
        elif kind == LINE_START:
            node.insert_before(_LINE)
        else:
            node.insert_before(_LINK_OPEN)
            node.insert_after(_LINK_CLOSE)


def _split_links(block: str) -> tuple[str, int]:
    """The block's text outside links, and how many links it has."""
    parts = block.split(_LINK_OPEN)
    if len(parts) == 1:
        return block, 0
    outside = [parts[0]]
    for part in parts[1:]:
        close = part.find(_LINK_CLOSE)
        if close >= 0:
            outside.append(part[close + 1 :])
    return " ".join(outside), len(parts) - 1


def _clean(block: str) -> str:
    lines = block.replace(_LINK_OPEN, "").replace(_LINK_CLOSE, "").split(_LINE)
    out = []
    for line in lines:
        words = line.split()
        if words:
            out.append(" ".join(words))
    return "\n".join(out)



def _maybe_waste(text: bytes) -> bool:
    low = text.lower()  # (bytes.lower() is ASCII's)
    return b"copyr" in low or b"all r" in low


def prepare_blocks(marked: str) -> list[Block]:
    """Cut marked text into ExtractContent blocks, dropping empty and blank ones (the
    compiled core's ``blocks``)."""
    out = []
    for block in marked.split(_HARD):
        if block.isspace() or not block:
            continue
        notlinked, links = _split_links(block)
        # (str.translate with a dict costs 20x more than these replaces)
        notlinked = " ".join(notlinked.replace(_LINE, " ").replace(_LINK_CLOSE, " ").split())
        data = notlinked.encode()
        out.append((len(block), len(notlinked), data, _maybe_waste(data), links, _clean(block).encode()))
    return out



def _outermost(nodes: list[LexborNode]) -> list[LexborNode]:
    """``nodes`` (in tree order) without those inside another of them."""
    kept: list[LexborNode] = []
    ids: set[int] = set()
    for node in nodes:
        parent = node.parent
        inside = False
        while parent is not None:
            if parent.mem_id in ids:
                inside = True
                break
            parent = parent.parent
        if not inside:
            kept.append(node)
            ids.add(node.mem_id)
    return kept


def _comment_sections(root: LexborNode, scope: LexborNode, total: int,
                      options: ExtractOptions) -> list[LexborNode]:
    """The outermost elements under ``root`` whose class/id names comments, each holding less
    than ``comment_max_share`` of the visible text ``total`` (a page-wide wrapper is no
    comment), none of them ``scope`` or an ancestor of it."""
    test = _classed_test(boilerplate_pattern(COMMENT_PATTERNS), _COMMENT_TAG_IDS)
    limit = options.comment_max_share * total
    root_id = root.mem_id
    found = [node for node in _unique(root.css(_PATTERN_CANDIDATES))
             if node.mem_id != root_id and test(node)]
    holding_scope = set()
    node: LexborNode | None = scope
    while node is not None:
        holding_scope.add(node.mem_id)
        node = node.parent
    return [node for node in _outermost(found)
            if _text_length(node) < limit and node.mem_id not in holding_scope]


def marked_text(
    tree: LexborHTMLParser, options: ExtractOptions, invisible: list[LexborNode] | None = None
) -> tuple[str, str, str]:
    """The scoring scope's text with ExtractContent's block, line and link markers, the
    document's whole visible text, and the comment sections' marked text — the oracle of
    :func:`pipeline.extract.document.main_text`.

    The visible text is the body's text nodes, each stripped, joined by spaces. Comment
    sections (:data:`~pipeline.extract.main_text.COMMENT_PATTERNS`) are taken out of the
    scope; their text (hidden and structural boilerplate and the reply form removed, each
    section a block of its own, sections that are boilerplate themselves left out) is
    returned only when ``options.comments``. ``invisible`` is the never-rendered elements
    in tree order when the caller already has them (:func:`tests.oracles.tree.scan`).
    MUTATES ``tree`` (boilerplate is removed and markers inserted): run every other
    extractor on the tree first.
    """
    root = tree.body
    if root is None or root.parent is None:
        # No body, or one the tree builder took out of the document (a frameset replaced
        # it: HTML Standard §13.2.6.4.7, "frameset" start tag): nothing of it is rendered.
        return "", "", ""
    _remove(_unique(tree.css(INVISIBLE_SELECTOR)) if invisible is None else invisible)
    visible = root.text(separator=" ", strip=True, skip_empty=True)
    if not visible:
        return "", "", ""
    scope = _container(root, len(visible), options) if options.prefer_article else root
    comments: list[str] = []
    if options.prune_patterns:
        sections = _comment_sections(root, scope, len(visible), options)
        if options.comments:
            boilerplate = _boilerplate_section(options)
            inside = _comment_inside_test(options)
            for section in sections:
                if boilerplate(section):
                    continue
                _prune(section, _COMMENT_INSIDE_CANDIDATES, inside, EVERY_SHARE)
                _mark(section)
                comments.append(section.text())
        _remove(sections)
    # Phase 1, structure and visibility; phase 2, class/id patterns, their share measured
    # against the text phase 1 left.
    if options.drop_boilerplate_tags or options.drop_hidden:
        _prune(scope, _STRUCTURE_CANDIDATES, _structural_test(options), options.prune_max_share)
    if options.prune_patterns:
        _prune(scope, _PATTERN_CANDIDATES, _classed_test(boilerplate_pattern(BOILERPLATE_PATTERNS)),
               options.prune_max_share)
    _mark(scope, in_container=scope.mem_id != root.mem_id)
    return scope.text(), visible, _HARD.join(comments)


# ---- the parse's limits -------------------------------------------------------------------

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
    attributes, judged from its tags alone (names in any case): the oracle's guard before
    selectolax parses (it cannot look inside selectolax's parse, where the compiled parse
    reads the parser's own state).

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
