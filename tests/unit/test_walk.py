"""The compiled walks (pipeline/extract/_walk.c) against the pure-Python reference.

Every extractor result must be the same on both paths: the compiled walks are only a
faster way to compute what ``scan`` + ``link_candidates`` and ``marked_text`` compute.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.extract import extract, walk
from pipeline.extract.links import link_candidates
from pipeline.extract.main_text import marked_text, prepare_blocks
from pipeline.extract.meta import head_facts
from pipeline.extract.options import ExtractOptions
from pipeline.extract.tree import parse_document, scan

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "article-extraction"


def test_the_compiled_walks_are_built_and_pass_their_self_test() -> None:
    # CI machines have a compiler: a silent fall-back to Python would hide a build break.
    assert walk.AVAILABLE, walk.UNAVAILABLE_REASON


def _python_links(html: str, max_links: int) -> tuple[int, int, list]:
    found = scan(parse_document(html))
    return found.elements, len(found.links), link_candidates(found, max_links)


def _both_main_text(html: str, options: ExtractOptions) -> tuple[tuple, tuple]:
    fast = walk.main_text(parse_document(html), options.drop_boilerplate_tags, options.drop_hidden,
                          options.prune_patterns, options.prefer_article,
                          options.prune_max_share, options.article_min_share, 50)
    marked, visible = marked_text(parse_document(html), options)
    return fast, (prepare_blocks(marked), len(visible), visible[:50])


_TAGS = ["div", "p", "a", "span", "article", "section", "nav", "aside", "footer", "form", "ul",
         "li", "td", "table", "tr", "h2", "br", "script", "style", "svg", "title", "area", "map",
         "link", "header", "figure", "b", "center", "pre", "template", "noscript", "math",
         "meta", "base", "html"]
_ATTRS = ['class="share"', 'class="content main"', "id=nav", "id=''", "class", "hidden",
          "aria-hidden=true", "aria-hidden=TRUE", 'style="display : none"', "style='color:red'",
          "role=navigation", "role=Main", "itemprop=articleBody", "itemprop=articlebody",
          "href=/x", "href", 'href="http://e.example/?q=é"', "rel='NoFollow canonical'",
          "alt=' a\tb '", "data-x=1", "CLASS=Sidebar",
          # class/id words searched in C for ASCII names, by Python's regex for the others
          # (str.lower() maps KELVIN SIGN to "k", so "coo\u212aie" names a cookie box)
          'class="x-COMMENTS y"', "id=Social-Links", 'class="coo\u212aie"', 'class="nav\u0130"',
          "id=a", 'class=""', "class=breadcrumbs", 'class="menü"', "id=NAVBAR", "class=ta",
          # metadata: wanted and unwanted meta keys, canonical links, base, lang
          "property=og:title", "name=' Description\t'", "name=viewport", "content=x", "content",
          'property="OG:IMAGE"', "name=twitter:t\u0130tle", "rel=canonical", "rel='x CANONICAL'",
          "lang=fr", "href=/b/"]
_TEXTS = ["word ", "Longer sentence with words, and punctuation. ", "\u00a0", " \u3000 ", "\t\n",
          "\x0b", "\u2003x\u2003", "日本語の文章。", "&amp;&lt;", "\u200b", "<!-- c -->", "é" * 30,
          "\u1680y\u205f", "\u0085", "\u2028\u3001", "x\ue000\ue001 \ue003y",
          # white space runs longer than the 16-byte windows strip_utf8 skips at once
          " " * 17, "\n" + " " * 31, "\x1c\x1d\x1e\x1f\x0b" * 4, "\u00a0" + "\t" * 20, "\r\n" * 9]


@st.composite
def documents(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(0, 60))):
        kind = draw(st.integers(0, 2))
        if kind == 0:
            attrs = draw(st.lists(st.sampled_from(_ATTRS), max_size=3))
            parts.append(f"<{draw(st.sampled_from(_TAGS))} {' '.join(attrs)}>")
        elif kind == 1:
            parts.append(f"</{draw(st.sampled_from(_TAGS))}>")
        else:
            parts.append(draw(st.sampled_from(_TEXTS)) * draw(st.integers(1, 8)))
    prefix = draw(st.sampled_from(["", "<!doctype html><title>T</title>", "<body itemprop=articleBody>"]))
    return prefix + "".join(parts)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.integers(0, 15), st.sampled_from([0.01, 0.3, 1.0]), st.sampled_from([0.0, 0.15, 0.9]),
       st.integers(0, 6))
def test_walks_equal_the_python_reference(
    html: str, switches: int, share: float, article_share: float, max_links: int
) -> None:
    on = [bool(switches & (1 << i)) for i in range(4)]
    options = ExtractOptions(drop_boilerplate_tags=on[0], drop_hidden=on[1], prune_patterns=on[2],
                             prefer_article=on[3], prune_max_share=share,
                             article_min_share=article_share)
    fast, reference = _both_main_text(html, options)
    assert fast == reference
    facts = head_facts(scan(parse_document(html)))
    assert walk.document(parse_document(html), max_links) == (*_python_links(html, max_links), facts)


def _corpus() -> list[tuple[str, str]]:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus/article-extraction is not present")
    truth = json.loads((CORPUS / "ground-truth.json").read_text("utf-8"))
    return [(truth[key]["url"], gzip.decompress((CORPUS / "html" / f"{key}.html.gz").read_bytes())
             .decode("utf-8")) for key in sorted(truth)]


def test_every_field_is_the_same_on_both_paths_on_real_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    pages = _corpus()
    fast = [extract(html, url, "UTF-8") for url, html in pages]
    # the text's UTF-8 handed in (Decoded.utf8) gives the same fields
    assert fast == [extract(html, url, "UTF-8", utf8=html.encode()) for url, html in pages]
    monkeypatch.setattr(walk, "AVAILABLE", False)
    reference = [extract(html, url, "UTF-8") for url, html in pages]
    differing = [url for (url, _), a, b in zip(pages, fast, reference, strict=True) if a != b]
    assert differing == []
    assert sum(len(e.links) for e in fast) > 10_000  # the pages do exercise the link walk


@pytest.mark.parametrize("piece", ["<a href=/x>a", "<h2>a", "<script>a", "<", "<span>x"])
def test_both_paths_agree_on_hostile_input(piece: str, monkeypatch: pytest.MonkeyPatch) -> None:
    html = "<body>" + piece * 2000
    fast = extract(html, "http://h.example/", "UTF-8")
    monkeypatch.setattr(walk, "AVAILABLE", False)
    assert fast == extract(html, "http://h.example/", "UTF-8")


_MARKED_PIECES = ["\ue000", "\ue001", "\ue002", "\ue003", " ", "\u00a0", "\t\n", "\u3000", "word",
                  "Wörter", "文章。", "\x1c", "🙂", "a, b. c!",
                  # spaces and near-misses sharing their first UTF-8 bytes
                  "\u0085", "\u00a1", "\u1680", "\u1681", "\u2003", "\u200b", "\u2028", "\u205f",
                  "\u2060", "\u3001", "\ue004", "\ue0ff",
                  # runs longer than the 16-byte windows the cutter skips at once
                  "abcdefghijklmnopqrstuvwxyz0123456789", "日本語の長い文章を書きます", "ÉéÈèÀàÇç" * 3,
                  # single spaces kept inside a run, at every offset of a 16-byte window
                  "the quick brown fox jumps over a lazy dog", "a b", " x", "y ", "a  b", "é ü",
                  # the waste prefilter's words, whole and cut, in mixed cases
                  "Copyright", "cOPYr", "copy", "r", "All Rights", "ALL R", "all", "aLl r", "C", "a"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_MARKED_PIECES), max_size=80))
def test_compiled_blocks_equal_prepare_blocks(pieces: list[str]) -> None:
    from pipeline.extract.main_text import prepare_blocks

    marked = "".join(pieces)
    assert walk.blocks(marked) == prepare_blocks(marked)


# --- the parse guard's one-pass count equals the reference's per-spelling counts ---

_NESTING_PIECES = ["<div", "</div", "<DIV", "</DIV", "<Div", "<span", "</SPAN>", "<ul>", "</ol",
                   "<blockquote>", "<table", "<b", "<", "</", "x", "é", "<d", "iv", "<<div"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_NESTING_PIECES), max_size=60), st.integers(0, 40))
def test_compiled_nesting_equals_the_reference(pieces: list[str], filler: int) -> None:
    from pipeline.extract import tree

    data = ("<p>" * filler + "".join(pieces)).encode()
    reference = sum(data.count(b"<" + n) - data.count(b"</" + n) for n in tree.NESTING_NAMES)
    for limit in (0, 10, 10_000):  # low limits compare the counting, not only the shortcut
        assert walk._walk.nesting(data, tree.NESTING_NAMES, limit) == (reference if data.count(b"<") > limit else 0)
    assert walk.unclosed_nesting(data) == tree.unclosed_nesting(data)


def test_nesting_over_the_limit() -> None:
    from pipeline.extract import tree

    data = b"<div><SPAN>" * 6_000 + b"</div>" * 100
    assert walk.unclosed_nesting(data) == tree.unclosed_nesting(data) == 11_900
