"""Main text: ExtractContent (Nakatani, Cybozu Labs, 2007) over the DOM, plus the
boilerplate removal the best extractors do first.

The original (``extractcontent.rb``) splits raw HTML on ``div``/``td``/``center`` tags
with regular expressions; here the blocks are cut from the parsed tree: a marker text
node is inserted at the start and end of every block element and of every link, the
container's text is read once (one C call) and split on the markers. Scoring follows
the original step by step:

- a block whose non-link text is shorter than 20 characters per link is a link block
  and dropped (``eliminate_link``); so is one shorter than ``min_length``. The
  original's ``islinklist`` (a block holding a list whose items are mostly links) is
  covered by cutting ``ul``/``ol``/``dl`` into blocks of their own: a list of links has
  no non-link text and fails the link rule;
- score = (length + punctuation matches × punctuation_weight) × factor, where factor
  decays by ``decay_factor`` per scored block; × 0.72 per waste-expression match;
- continuity: every block seen after the body started divides ``continuous`` by
  ``continuous_factor``; a block whose score × continuous passes ``threshold`` extends
  the current cluster, one that passes only on its own starts a new cluster; the
  cluster with the highest summed score wins.

Bugs of the popular Python port not carried over: punctuation is counted once per match
(not once per alternative of the expression), options are per call (no class state),
and nothing is quadratic: the regex port's backtracking over unclosed tags is gone
because the tree builder already closed them.

Improvements (each a switch in :class:`~pipeline.extract.options.ExtractOptions`): drop
invisible and hidden nodes; drop ``nav``/``aside``/``footer``/``form``-like elements and
class/id boilerplate patterns, but only nodes holding less than ``prune_max_share`` of
the text (unguarded — ``prune_max_share=1`` — 6 of the 181 benchmark pages come out
empty and F1 drops to 0.930); score inside
``[itemprop=articleBody]`` / the biggest ``article`` when it holds enough text, where a
table's cells are lines of one block (data, not layout); CJK punctuation counts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from selectolax.lexbor import LexborHTMLParser, LexborNode

from pipeline.extract.options import DEFAULT_WASTE_EXPRESSIONS, ExtractOptions
from pipeline.extract.reference_tree import tag_ids

#: Never rendered as text (or not text at all): removed before anything is measured.
INVISIBLE_SELECTOR = (
    "script, style, noscript, template, svg, math, iframe, object, embed, canvas, select, "
    "textarea, button, input, video, audio, map, datalist, dialog, title"
)
#: Structural boilerplate: dropped when it holds less than ``prune_max_share`` of the text
#: (an ASP.NET page wraps everything in one ``form``).
BOILERPLATE_TAGS = frozenset({"nav", "aside", "footer", "form", "menu"})
BOILERPLATE_ROLES = frozenset({"navigation", "complementary", "contentinfo", "banner", "search"})
#: Elements whose class/id is matched against ``BOILERPLATE_PATTERNS`` (containers, not the
#: inline elements inside them: those go with their container or with the link-density rule).
PATTERN_TAGS = frozenset({"div", "section", "ul", "ol", "aside", "header", "footer", "nav",
                          "figure", "figcaption", "table", "span", "p", "dl", "form"})
#: Class/id substrings that name boilerplate (matched ASCII case-insensitively).
BOILERPLATE_PATTERNS = (
    "share", "social", "related", "sidebar", "footer", "breadcrumb", "advert",
    "promo", "newsletter", "subscribe", "cookie", "popup", "modal", "outbrain", "taboola",
    "recommend", "sponsor", "byline", "author", "caption", "tags", "toolbar", "signup",
    "masthead", "header", "menu", "nav", "widget",
)
#: Class tokens that name the content itself: an element that carries one is never pruned
#: by its other class/id words (TypePad's post wrapper is ``entry-author-NAME entry``,
#: WordPress's ``post-ID post ... hentry author-NAME``).
CONTENT_CLASSES = frozenset({"entry", "hentry", "post", "article", "story", "content",
                             "entry-content", "post-content", "post-body", "entry-body",
                             "article-body", "article-content", "story-body"})
#: Class/id substrings that name a comment section (matched like ``BOILERPLATE_PATTERNS``):
#: removed from the scoring scope, and kept apart as the comments when they are wanted.
COMMENT_PATTERNS = ("comment",)
#: Elements whose class/id may name a comment section (the pattern containers, plus the
#: list items and sections comment threads are built of).
COMMENT_TAGS = PATTERN_TAGS | frozenset({"li", "article"})
#: Class/id substrings that name a comment section's reply form (WordPress: ``div#respond``,
#: ``form#commentform``, ``p.comment-form-author``; the form's notes and labels are often
#: outside the ``form`` element): removed inside a comment section. (On the fit half of
#: main-text-fit these three words give what a longer list with login, akismet and notes
#: gave, Dragnet 0.8880, against 0.8874 without them.)
COMMENT_FORM_PATTERNS = ("respond", "comment-form", "commentform")
#: Class tokens that hide their element by the site's style sheet (Bootstrap's ``hidden``,
#: ``hide``, ``invisible``, ``d-none``; TypePad's ``hiddenBox`` around its comment preview
#: and captcha texts): removed inside a comment section, with ``drop_hidden``. Outside them
#: they are left to the share rules (+0.0006 on Dragnet's fit half for a class test on
#: every element of the structural walk: not worth its cost).
HIDDEN_CLASSES = frozenset({"hidden", "hide", "hiddenbox", "invisible", "d-none"})
#: A share no element reaches: inside a comment section every hidden or structural element is
#: removed, a reply form that holds all of a section's text too (the compiled walk's EVERY_SHARE).
EVERY_SHARE = 2.0
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
_ASCII_WHITESPACE = re.compile(r"[\t\n\f\r ]+")
HIDDEN_STYLE = re.compile(r"(?:display\s*:\s*none|visibility\s*:\s*hidden)", re.ASCII | re.IGNORECASE)
#: Elements that start and end an ExtractContent block (the original's div/td/center,
#: plus the HTML5 sectioning and table/list containers that play their role today).
BLOCK_TAGS = ("div", "td", "th", "center", "section", "article", "main", "header", "table", "ul",
              "ol", "dl", "figure", "blockquote", "pre")
#: Elements that only start a new line inside a block.
LINE_TAGS = ("p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "dt", "dd", "tr", "br", "figcaption", "hr")
#: ExtractContent marker kinds (the compiled walk's K_BLOCK, K_LINE, K_LINK).
BLOCK, LINE_START, LINK = 1, 2, 3
#: The marker kind of each marked element, by tag name.
MARK_KINDS: dict[str, int] = {
    **{tag: BLOCK for tag in BLOCK_TAGS},
    **{tag: LINE_START for tag in LINE_TAGS},
    "a": LINK,
}
#: Inside an article container a table is content (standings, specifications), not page
#: layout: its cells are lines of one block, so short cells are not scored away one by
#: one. Outside, td/th keep the original's block role (table-layout pages).
CONTAINER_MARK_KINDS: dict[str, int] = {**MARK_KINDS, "td": LINE_START, "th": LINE_START,
                                        "table": LINE_START}
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
#: The original's "waste" penalty per match (0.72 ** matches).
WASTE_PENALTY = 0.72
#: A block is a link block when its non-link text is shorter than this per link.
LINK_TEXT_PER_LINK = 20
#: The longest block of a small page is its main text only from this many characters (a
#: countdown's "1 Secs" on a page of script loaders is no text).
LONGEST_BLOCK_MIN_CHARS = 20


#: Code left as text (a script or style sheet that broken markup turned into text, a JSON
#: blob): a block whose text outside links holds at least CODE_MIN_MARKS of ``{ } ;``, at
#: least CODE_MIN_DENSITY of them per character, and a ``{`` and a ``}``. Prose may have
#: one ``;`` per 30 characters but hardly ever braces; minified code has a mark every few
#: characters. No page of the fit half of main-text-fit changes with the rule (a defect
#: guard, not a tuned score).
CODE_MIN_MARKS = 4
CODE_MIN_DENSITY = 0.03
_CODE_MARKS = re.compile(rb"[{};]")


def is_code(text: bytes, length: int) -> bool:
    """Whether a block's text outside links (UTF-8, ``length`` characters) reads as code.

    >>> is_code(b"var a = []; a.push(1); (function() { go(); })();", 48)
    True
    >>> is_code(b"He came; he saw; he left; and then (as ever) he wrote it all down.", 66)
    False
    >>> is_code(b"a { b } c", 9)  # braces, but too few marks
    False
    """
    marks = len(_CODE_MARKS.findall(text))
    return marks >= CODE_MIN_MARKS and marks >= CODE_MIN_DENSITY * length and b"{" in text and b"}" in text


@lru_cache(maxsize=32)
def _compiled(expression: str) -> re.Pattern[str]:
    return re.compile(expression)


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
    """Whether a container element's class or id names boilerplate (or ``patterns``)."""
    search = patterns.search
    content = CONTENT_CLASSES

    def test(node: LexborNode) -> bool:
        if node.tag_id not in tag_ids:  # an int test before building the attributes
            return False
        attrs = node.attributes
        names = f"{attrs.get('class') or ''} {attrs.get('id') or ''}"
        if len(names) <= 1 or search(names.lower()) is None:
            return False
        # (HTML splits a class value on ASCII white space, as the compiled test does)
        return not content.intersection(_ASCII_WHITESPACE.split((attrs.get("class") or "").lower()))

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
        if hidden and cls and HIDDEN_CLASSES.intersection(_ASCII_WHITESPACE.split(cls.lower())):
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


def _trie(words: list[str]) -> str:
    """A regular expression equal to ``a|b|c`` for the literal ``words``, as a prefix trie
    (the regex engine then tries a handful of branches per position, not all of them).

    >>> _trie(["share", "social", "sidebar", "nav"])
    '(?:nav|s(?:hare|idebar|ocial))'
    """
    groups: dict[str, list[str]] = {}
    ends = False
    for word in sorted(set(words)):
        if word:
            groups.setdefault(word[0], []).append(word[1:])
        else:
            ends = True
    branches = [re.escape(head) + (_trie(tails) if len(tails) > 1 or tails[0] else "")
                if len(tails) > 1 else re.escape(head + tails[0])
                for head, tails in groups.items()]
    body = "|".join(branches)
    if ends:
        return f"(?:{body})?"
    return f"(?:{body})" if len(branches) > 1 else body


@lru_cache(maxsize=8)
def boilerplate_pattern(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """One regular expression for the class/id words (a trie of alternatives)."""
    return re.compile(_trie(list(patterns)))


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


def _waste_counter(expression: str) -> Callable[[bytes, bool], int]:
    """Count waste-expression matches in a block's UTF-8 text; for the default expression,
    the block's "maybe waste" flag first skips the decode and the regex on text that cannot
    match."""
    pattern = _compiled(expression)
    if expression != DEFAULT_WASTE_EXPRESSIONS:
        return lambda text, maybe_waste: len(pattern.findall(text.decode()))

    def count(text: bytes, maybe_waste: bool) -> int:
        # A match holds "copyr" or "all r" in some ASCII case: under the regex's IGNORECASE
        # only the two ASCII cases of c, o, p, y, r, a and l match those letters (checked
        # over every code point in the tests; it is i and s that have other forms, İ ı ſ).
        # (A casefold() test is not exact: the regex matches "COPYRİGHT", casefold gives
        # "copyri̇ght"; and it cost 0.8 ms on 40 KB of Cyrillic.)
        if not maybe_waste:
            return 0
        # So a match starts where one of them does: the regex runs there only, on the bytes a
        # match can span, not over the whole block decoded (a block of an article's text
        # with a copyright line cost ~100 µs). findall's matches do not overlap: a start
        # inside the last match is passed over.
        low = text.lower()  # (ASCII's)
        found = end = 0
        for start in sorted(_places(low, b"copyr") + _places(low, b"all r")):
            if start < end:
                continue
            # ("ignore": only a character cut at the window's end can be incomplete)
            match = pattern.match(text[start : start + _WASTE_WINDOW].decode("utf-8", "ignore"))
            if match is not None:
                found += 1
                end = start + len(match.group().encode())
        return found

    return count


#: Bytes enough for any match of the default waste expressions (19 characters of at most
#: 4 bytes each).
_WASTE_WINDOW = 4 * len("All Rights Reserved")


def _places(data: bytes, needle: bytes) -> list[int]:
    """Every offset of ``needle`` in ``data``."""
    places = []
    at = data.find(needle)
    while at >= 0:
        places.append(at)
        at = data.find(needle, at + 1)
    return places


#: A block ready for scoring: (length with markers, length of the text outside links,
#: that text with whitespace collapsed, whether that text may hold a default waste
#: expression, number of links, cleaned lines) — both texts as UTF-8 bytes, decoded only
#: for the blocks that need them (scored closely, or kept). The flag ("copyr" or "all r"
#: in any ASCII case) rules out the default waste expressions without a regex.
Block = tuple[int, int, bytes, bool, int, bytes]


def _maybe_waste(text: bytes) -> bool:
    low = text.lower()  # (bytes.lower() is ASCII's)
    return b"copyr" in low or b"all r" in low


def prepare_blocks(marked: str) -> list[Block]:
    """Cut marked text into ExtractContent blocks, dropping empty and blank ones (the
    pure-Python reference of :func:`pipeline.extract.document.blocks`)."""
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


def score_blocks(blocks: list[Block], options: ExtractOptions) -> list[str]:
    """ExtractContent's scoring and clustering over prepared blocks.

    Returns the winning cluster's blocks (cleaned text, markers removed).
    """
    punctuations = _compiled(options.punctuations)
    waste = _waste_counter(options.waste_expressions)
    # With continuous_factor 1 continuity never changes, so there is one cluster and a
    # block's exact score only matters when its length alone does not pass the threshold.
    lazy = options.continuous_factor == 1.0
    factor = continuous = 1.0
    body: list[bytes] = []
    score = 0.0
    clusters: list[tuple[list[bytes], float]] = []
    for marked_length, length, notlinked, maybe_waste, links, cleaned in blocks:
        if body:
            continuous /= options.continuous_factor
        if marked_length < options.min_length:  # the non-link text can only be shorter
            continue
        if length < LINK_TEXT_PER_LINK * links or length < options.min_length:
            continue
        if is_code(notlinked, length):
            continue
        penalty = WASTE_PENALTY ** waste(notlinked, maybe_waste)
        if lazy and length * factor * penalty > options.threshold:
            c = length * factor * penalty  # a lower bound that already passes
        else:
            punctuation = len(punctuations.findall(notlinked.decode()))
            c = (length + punctuation * options.punctuation_weight) * factor * penalty
        factor *= options.decay_factor
        c1 = c * continuous
        if c1 > options.threshold:
            body.append(cleaned)
            score += c1
            continuous = options.continuous_factor
        elif c > options.threshold:
            clusters.append((body, score))
            body = [cleaned]
            score = c
            continuous = options.continuous_factor
    clusters.append((body, score))
    best_body, best_score = clusters[0]
    for cluster_body, cluster_score in clusters[1:]:
        if cluster_score > best_score:
            best_body, best_score = cluster_body, cluster_score
    return [text.decode() for text in best_body if text]


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
    document's whole visible text, and the comment sections' marked text — the pure-Python
    reference of :func:`pipeline.extract.document.main_text`.

    The visible text is the body's text nodes, each stripped, joined by spaces. Comment
    sections (:data:`COMMENT_PATTERNS`) are taken out of the scope; their text (hidden and
    structural boilerplate and the reply form removed, each section a block of its own,
    sections that are boilerplate themselves left out) is returned only when
    ``options.comments``. ``invisible`` is the never-rendered elements in tree order when
    the caller already has them (:func:`pipeline.extract.reference_tree.scan`). MUTATES
    ``tree`` (boilerplate is removed and markers inserted): run every other extractor on
    the tree first.
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


def comment_text(blocks: list[Block], options: ExtractOptions) -> list[str]:
    """The comment sections' lines: every block but link blocks and blocks shorter than
    ``comment_min_length`` (reply links, "Reply", vote counts), in order, without decay
    (a thread's hundredth comment is as much a comment as its first)."""
    kept = []
    for _, length, _, _, links, cleaned in blocks:
        if length < LINK_TEXT_PER_LINK * links or length < options.comment_min_length:
            continue
        if cleaned:
            kept.append(cleaned.decode())
    return kept


def longest_block(blocks: list[Block], options: ExtractOptions) -> str:
    """The lines of the longest block that is no link block, else of the longest block (the
    first of equal ones), none with a waste expression or code, when it has at least
    ``LONGEST_BLOCK_MIN_CHARS``: the main text of a page too small for ExtractContent's
    lengths (a notice shorter than ``min_length``, a short list of links), when nothing
    scored."""
    waste = _waste_counter(options.waste_expressions)
    best, best_key = b"", (False, 0)
    for _, length, notlinked, maybe_waste, links, cleaned in blocks:
        # a block with text of its own first (a notice beside a menu the share guard kept)
        key = (length >= LINK_TEXT_PER_LINK * max(links, 1), len(cleaned))
        if key > best_key and not waste(notlinked, maybe_waste) and not is_code(notlinked, length):
            best, best_key = cleaned, key
    text = best.decode()
    return text if len(text) >= LONGEST_BLOCK_MIN_CHARS else ""


def main_text_of(blocks: list[Block], options: ExtractOptions, comments: list[Block] | None = None) -> str:
    """The main text: the blocks scored, the best cluster's lines; then, when
    ``options.comments``, the comment sections' lines."""
    lines = score_blocks(blocks, options)
    if options.comments and comments:
        lines += comment_text(comments, options)
    return "\n".join(lines)
