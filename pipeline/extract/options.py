"""Options of the extraction step (every one of them can sit in the rules file).

The ExtractContent options keep the names of Nakatani's original (Cybozu Labs, 2007,
``extractcontent.rb``); their defaults are the values measured best on the
article-extraction corpus (``bench/extract_bench.py``), not the original's
(threshold 100, continuous_factor 1.62). The improvement switches all default to on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: ExtractContent's punctuation expression, plus the CJK full stops and commas
#: (、。，．！？ were in the original; the full-width forms ！？ and the ideographic
#: full stop are what CJK pages actually use between unspaced sentences).
DEFAULT_PUNCTUATIONS = r"[、。，．！？]|\.[^A-Za-z0-9]|,[^0-9]|!|\?"

#: The original's waste expressions (a block that matches is scored down by 0.72 per match).
DEFAULT_WASTE_EXPRESSIONS = r"(?i:Copyright|All Rights Reserved)"


@dataclass(frozen=True, slots=True)
class LinkLimits:
    """Links recorded per document, per kind (``pipeline.extract.url_attributes.KINDS``);
    what is past a limit is counted in ``Extracted.links_dropped``. In the rules file:
    ``[extract.max_links]`` with one key per kind (``script_string`` for ``script-string``),
    or ``max_links = N`` under ``[extract]`` for one limit for every kind."""

    navigation: int = 10_000
    resource: int = 10_000
    form: int = 1_000
    refresh: int = 10
    metadata: int = 10_000
    css: int = 10_000
    script_string: int = 10_000

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"ExtractOptions.max_links.{name} must be an integer >= 0")

    @classmethod
    def uniform(cls, limit: int) -> LinkLimits:
        """The same limit for every kind (``max_links = N`` in the rules file)."""
        return cls(**dict.fromkeys(cls.__dataclass_fields__, limit))

    def as_tuple(self) -> tuple[int, ...]:
        """The limits in ``KINDS`` order."""
        return (self.navigation, self.resource, self.form, self.refresh, self.metadata, self.css,
                self.script_string)


@dataclass(frozen=True, slots=True)
class ExtractOptions:
    """Per-call options of :func:`pipeline.extract.extract` (never shared class state).

    ExtractContent scoring (names as in the original):

    - ``threshold``: a block joins the body when its score exceeds this.
    - ``min_length``: blocks whose non-link text is shorter are ignored.
    - ``decay_factor``: each scored block multiplies the position factor by this.
    - ``continuous_factor``: a gap between scored blocks divides the continuity by this.
    - ``punctuation_weight``: score added per punctuation match.
    - ``punctuations`` / ``waste_expressions``: regular expressions over a block's TEXT.

    Improvements over the original (each can be switched off to measure it):

    - ``drop_boilerplate_tags``: remove nav/aside/footer/form/header-like elements first.
    - ``drop_hidden``: remove ``hidden``, ``aria-hidden=true`` and ``display:none`` nodes.
    - ``prefer_article``: score inside ``[itemprop=articleBody]`` or the biggest
      ``article`` when one holds enough of the text.
    - ``prune_patterns``: remove nodes whose class/id says boilerplate, only when they hold
      less than ``prune_max_share`` of the text.
    - ``fallback_min_chars``: when pruning left a main text shorter than this on a page
      whose visible text is 4x longer, the page is parsed again and scored without the
      class/id patterns (a content wrapper classed ``and-w-sidebar`` on a page whose
      menus outweigh the article).
    - ``comments``: append the comment sections' text (elements whose class/id names
      comments) after the article; they are taken out of the scoring scope either way. On
      by default: the web-content-extraction benchmark's Dragnet gold keeps the comments.
    - ``comment_max_share``: a comment-classed element holding this share of the visible
      text or more is no comment section (a page-wide wrapper).
    - ``comment_min_length``: comment blocks shorter than this are left out ("Reply").
    - ``detect_language``: run the language detector on the main text.

    Bounds for pathological documents (real pages stay far below them; the parse is
    linear, the Python work per link and per candidate node is what they cap):

    - ``max_links``: links recorded per document, per kind (:class:`LinkLimits`); the rest
      are counted in ``Extracted.links_dropped`` (and their sum in ``links_truncated``).
    - ``max_pruned_elements``: above this many elements, boilerplate pruning is skipped
      and ExtractContent runs on the whole body.

    Limits that refuse a document (its fields stay empty and ``Extracted.errors`` says
    why, for the worker to record), because past them the parser's cost is no longer
    linear (Lexbor's tree construction scans the stack of open elements and an element's
    attribute list):

    - ``max_open_elements``: the stack of open elements may not grow deeper than this
      (Chromium's parser stops nesting at 512; the deepest tree of the 181 benchmark pages
      is 51 elements deep).
    - ``max_attributes``: attributes on one start tag.
    - ``max_names``: distinct tag and attribute names in one document outside Lexbor's own
      tables (custom elements, ``data-*``, invented names): the parser looks each name up in
      a table whose chains grow with them (the 1,378 pages of the conformance corpora hold
      at most 114; 2,048 names chosen to collide cost 4 MiB of such tags ~5 s).
    - ``time_budget``: CPU seconds for one document's extraction, parse included (0: none),
      checked after every 8 KiB of the parse's input and every 256 tokens.

    A limit that cuts a document (its fields come from the part read, and ``Extracted.errors``
    says so): ``max_parse_bytes``, the UTF-8 bytes of the document the parser reads (4 MiB:
    every page of the conformance corpora is under 2 MiB; extraction holds ~9 bytes per
    byte parsed, so a page of tens of MB would otherwise cost a worker hundreds of MB; 0:
    none). The encoding decision and the U+FFFD count always see the whole document.
    """

    threshold: float = 80.0
    min_length: int = 80
    # (no decay: on the fit half of main-text-fit 1.0 beats 0.93 by +0.030 on CleanEval and
    # +0.002 on Dragnet, and costs article-extraction 0.002; long articles and CleanEval's
    # long documents lost their ends to the decay)
    decay_factor: float = 1.0
    continuous_factor: float = 1.0
    punctuation_weight: float = 10.0
    punctuations: str = DEFAULT_PUNCTUATIONS
    waste_expressions: str = DEFAULT_WASTE_EXPRESSIONS
    drop_boilerplate_tags: bool = True
    drop_hidden: bool = True
    prefer_article: bool = True
    article_min_share: float = 0.15
    prune_patterns: bool = True
    prune_max_share: float = 0.3
    comments: bool = True
    # (0.9: a thread is often most of a blog page's text; a wrapper holds nearly all of it)
    comment_max_share: float = 0.9
    # ("Reply", "Report", vote counts and dates alone are shorter)
    comment_min_length: int = 20
    fallback_min_chars: int = 200
    max_links: LinkLimits = LinkLimits()
    max_pruned_elements: int = 50_000
    detect_language: bool = True
    max_open_elements: int = 1_024
    max_attributes: int = 1_024
    max_names: int = 2_048
    time_budget: float = 10.0
    max_parse_bytes: int = 4 * 2**20

    def __post_init__(self) -> None:
        # Bad options are a configuration error, raised when the rules file is loaded,
        # not a per-record failure.
        for name in ("punctuations", "waste_expressions"):
            try:
                re.compile(getattr(self, name))
            except (re.error, TypeError) as exc:
                raise ValueError(f"ExtractOptions.{name}: not a regular expression: {exc}") from None
        for name in ("decay_factor", "continuous_factor"):
            if not getattr(self, name) > 0:
                raise ValueError(f"ExtractOptions.{name} must be > 0")
        if not 0 < self.prune_max_share <= 1:
            raise ValueError("ExtractOptions.prune_max_share must be in (0, 1]")
        if not 0 < self.comment_max_share <= 1:
            raise ValueError("ExtractOptions.comment_max_share must be in (0, 1]")
        if not 0 <= self.article_min_share <= 1:
            raise ValueError("ExtractOptions.article_min_share must be in [0, 1]")
        if not isinstance(self.max_links, LinkLimits):
            raise ValueError("ExtractOptions.max_links must be a LinkLimits")
        if self.max_pruned_elements < 0:
            raise ValueError("ExtractOptions.max_pruned_elements must be >= 0")
        for name in ("max_open_elements", "max_attributes", "max_names"):
            if getattr(self, name) < 1:
                raise ValueError(f"ExtractOptions.{name} must be >= 1")
        if self.max_parse_bytes < 0:
            raise ValueError("ExtractOptions.max_parse_bytes must be >= 0 (0: none)")
        if not self.time_budget >= 0:
            raise ValueError("ExtractOptions.time_budget must be >= 0 (0: none)")
