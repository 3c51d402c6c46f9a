"""Main text: ExtractContent (Nakatani, Cybozu Labs, 2007) over the DOM, plus the
boilerplate removal the best extractors do first.

The original (``extractcontent.rb``) splits raw HTML on ``div``/``td``/``center`` tags
with regular expressions; here the blocks are cut from the parsed tree: the compiled walk
(:func:`pipeline.extract.document.main_text`) marks the start and end of every block
element and of every link in the scoring scope's text, and cuts that text into blocks
(``tests/oracles/walks.py`` restates it over selectolax's tree). Scoring follows the
original step by step:

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
table's cells are lines of one block (data, not layout); CJK punctuation counts; comment
sections (class/id naming comments) leave the scoring scope and, with ``comments``, follow
the article; blocks that read as code are not scored.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from pipeline.extract.options import DEFAULT_WASTE_EXPRESSIONS, ExtractOptions

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


def is_code(text: bytes, length: int) -> bool:
    """Whether a block's text outside links (UTF-8, ``length`` characters) reads as code.

    >>> is_code(b"var a = []; a.push(1); (function() { go(); })();", 48)
    True
    >>> is_code(b"He came; he saw; he left; and then (as ever) he wrote it all down.", 66)
    False
    >>> is_code(b"a { b } c", 9)  # braces, but too few marks
    False
    """
    # (the braces first: prose has none, and a regex over an article's paragraphs cost
    # more than the rest of the scoring)
    if b"{" not in text or b"}" not in text:
        return False
    marks = text.count(b"{") + text.count(b"}") + text.count(b";")
    return marks >= CODE_MIN_MARKS and marks >= CODE_MIN_DENSITY * length


@lru_cache(maxsize=32)
def _compiled(expression: str) -> re.Pattern[str]:
    return re.compile(expression)


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
