"""The compiled core (pipeline/extract/_document.c) against its oracle (tests/oracles/), and
the parse limits of both.

Every extractor result must be the same: the compiled walks compute what the oracle's
``scan`` + ``link_candidates`` and ``marked_text`` compute over selectolax's tree.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.extract import document, extract
from pipeline.extract.document import utf8_of
from pipeline.extract.meta import HeadFacts
from pipeline.extract.options import ExtractOptions
from pipeline.native import document as core
from tests.oracles import extract as oracle
from tests.oracles.tree import parse_document, scan
from tests.oracles.walks import head_facts, link_candidates, marked_text, prepare_blocks


def _native(html: str) -> core.Document:
    return document.parse(utf8_of(html), 0, 0, 0.0)

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "article-extraction"


def _python_links(html: str, limits: tuple[int, ...]) -> tuple[int, list, list]:
    found = scan(parse_document(html))
    return (found.elements, *link_candidates(found, limits))


def _both_main_text(html: str, options: ExtractOptions) -> tuple[tuple, tuple]:
    fast = document.main_text(_native(html), options.drop_boilerplate_tags, options.drop_hidden,
                              options.prune_patterns, options.prefer_article,
                              options.prune_max_share, options.article_min_share,
                              options.comments, options.comment_max_share, 50)
    marked, visible, comments = marked_text(parse_document(html), options)
    return fast, (prepare_blocks(marked), len(visible), visible[:50], prepare_blocks(comments))


_TAGS = ["div", "p", "a", "span", "article", "section", "nav", "aside", "footer", "form", "ul",
         "li", "td", "table", "tr", "h2", "br", "script", "style", "svg", "title", "area", "map",
         "link", "header", "figure", "b", "center", "pre", "template", "noscript", "math",
         "meta", "base", "html",
         # the links' sources (pipeline.extract.url_attributes)
         "img", "source", "iframe", "frame", "embed", "audio", "video", "track", "input", "object",
         "body", "td", "th", "button", "blockquote", "q", "del", "ins", "x-custom", "picture"]
_ATTRS = ['class="share"', 'class="content main"', "id=nav", "id=''", "class", "hidden",
          "aria-hidden=true", "aria-hidden=TRUE", 'style="display : none"', "style='color:red'",
          "role=navigation", "role=Main", "itemprop=articleBody", "itemprop=articlebody",
          "href=/x", "href", 'href="http://e.example/?q=é"', "rel='NoFollow canonical'",
          "alt=' a\tb '", "data-x=1", "CLASS=Sidebar",
          # class/id words searched in C for ASCII names, by Python's regex for the others
          # (str.lower() maps KELVIN SIGN to "k", so "coo\u212aie" names a cookie box)
          'class="x-COMMENTS y"', "id=Social-Links", 'class="entry author-x"', "id=comments",
          'class="comment-body\u00a0entry"', 'class="Comment\u212a"', "class='POST by-author'", 'class="coo\u212aie"', 'class="nav\u0130"',
          "id=a", 'class=""', "class=breadcrumbs", 'class="menü"', "id=NAVBAR", "class=ta",
          # metadata: wanted and unwanted meta keys, canonical links, base, lang
          "property=og:title", "name=' Description\t'", "name=viewport", "content=x", "content",
          'property="OG:IMAGE"', "name=twitter:t\u0130tle", "rel=canonical", "rel='x CANONICAL'",
          "lang=fr", "href=/b/",
          # URL-valued attributes, each form of value, and the ones that decide a kind
          "src=/i.png", "src=''", "src='  '", "srcset='a.png 1x, b.png 2x'", "srcset='c 1h, d'",
          "poster=p.jpg", "data=o.swf", "action=''", "action=/go", "formaction=/f", "cite=/c",
          "longdesc=/l", "background=bg.gif", "ping='/p1 /p2'", "manifest=m.appcache",
          "itemid=urn:x", "itemtype='http://schema.org/A http://schema.org/B'", "type=image",
          "type=IMAGE", "type='text/template'", "type=application/ld+json", "type=module",
          "language=vbscript", "http-equiv=refresh", "http-equiv=REFRESH", "content='1; url=/r'",
          "content='0'", "rel=stylesheet", "rel='shortcut icon'", "style='background:url(s.png)'",
          "style=\"b:url('q.png') image-set('i.png' 1x)\"", "href=''", "src=http://[::1"]
_TEXTS = ["word ", "Longer sentence with words, and punctuation. ", "\u00a0", " \u3000 ", "\t\n",
          "\x0b", "\u2003x\u2003", "日本語の文章。", "&amp;&lt;", "\u200b", "<!-- c -->", "é" * 30,
          "\u1680y\u205f", "\u0085", "\u2028\u3001", "x\ue000\ue001 \ue003y",
          # white space runs longer than the 16-byte windows strip_utf8 skips at once
          " " * 17, "\n" + " " * 31, "\x1c\x1d\x1e\x1f\x0b" * 4, "\u00a0" + "\t" * 20, "\r\n" * 9,
          # script and style contents
          "p{background:url(x.png)} @import 'i.css';", "var a='/x', b=\"https:\\/\\/e.example\\/y\";",
          "{\"@id\": \"https://e.example/#org\", \"url\": \"/about\"}", "r = /'no'/g; s = 4 / 2 / '/p';"]


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
@given(documents(), st.integers(0, 31), st.sampled_from([0.01, 0.3, 1.0]), st.sampled_from([0.0, 0.15, 0.9]),
       st.integers(0, 6), st.sampled_from([0.05, 0.9, 1.0]))
def test_walks_equal_the_oracle(
    html: str, switches: int, share: float, article_share: float, max_links: int, comment_share: float
) -> None:
    on = [bool(switches & (1 << i)) for i in range(5)]
    options = ExtractOptions(drop_boilerplate_tags=on[0], drop_hidden=on[1], prune_patterns=on[2],
                             prefer_article=on[3], prune_max_share=share,
                             article_min_share=article_share, comments=on[4],
                             comment_max_share=comment_share)
    fast, reference = _both_main_text(html, options)
    assert fast == reference
    facts = head_facts(scan(parse_document(html)))
    limits = (max_links, max_links, max_links, max_links, max_links, max_links + 1, max_links + 2)
    elements, candidates, dropped, refresh, head = _native(html).facts(limits)
    assert (elements, candidates, dropped, refresh, HeadFacts(*head)) == (*_python_links(html, limits), facts)


#: Class/id names where a word starts inside a partial match of another or of itself (the
#: automaton must fall back, not restart after the byte that broke the match), in any case,
#: and near misses.
_TRICKY_NAMES = ["sshare", "shshare", "navnav", "nanav", "recommenrecommend", "headheader",
                 "commcomment", "co-comment", "xCOMMENTx", "sidebasidebar", "mmenu", "menmenu",
                 "tagstags", "adverauthor", "SoCiAl", "shar", "comm-ent", "caption_", "tabooltaboola",
                 "x y", "pop pup", "popup", "respondd", "comment-formm", "newsletternav", "b y l i n e"]


@pytest.mark.parametrize("name", _TRICKY_NAMES)
@pytest.mark.parametrize("attribute", ["class", "id"])
def test_class_and_id_words_are_found_as_the_oracles_regex_finds_them(name: str, attribute: str) -> None:
    html = (f"<body><div {attribute}='{name}'><p>{'short words here. ' * 3}</p></div>"
            f"<div><p>{'The article goes on for a while, sentence after sentence. ' * 12}</p></div>"
            f"<div class=comments><div {attribute}='{name}'><p>{'A reply of some length. ' * 3}</p></div></div>")
    fast, reference = _both_main_text(html, ExtractOptions())
    assert fast == reference


def _corpus() -> list[tuple[str, str]]:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus/article-extraction is not present")
    truth = json.loads((CORPUS / "ground-truth.json").read_text("utf-8"))
    return [(truth[key]["url"], gzip.decompress((CORPUS / "html" / f"{key}.html.gz").read_bytes())
             .decode("utf-8")) for key in sorted(truth)]


def test_every_field_is_the_same_as_the_oracles_on_real_pages() -> None:
    pages = _corpus()
    fast = [extract(html, url, "UTF-8") for url, html in pages]
    # the text's UTF-8 handed in (Decoded.utf8) gives the same fields
    assert fast == [extract(html, url, "UTF-8", utf8=html.encode()) for url, html in pages]
    reference = [oracle.extract(html, url, "UTF-8") for url, html in pages]
    differing = [url for (url, _), a, b in zip(pages, fast, reference, strict=True) if a != b]
    assert differing == []
    assert [e.errors for e in fast if e.errors] == []  # no real page meets a limit
    assert sum(len(e.links) for e in fast) > 10_000  # the pages do exercise the link walk


def test_a_body_a_frameset_replaced_is_not_read_by_either() -> None:
    # Found by the fuzzer: the tree builder detaches the body (and the title inside it)
    # when a frameset follows; the compiled walk skipped the title, the oracle counted it.
    seed = Path(__file__).resolve().parents[1] / "fixtures" / "fuzz" / "detached-body-found-by-fuzzing.html"
    html = seed.read_text("utf-8")
    fast = extract(html, "http://h.example/", "UTF-8")
    assert fast == oracle.extract(html, "http://h.example/", "UTF-8")
    assert fast.text_length == 0 and fast.main_text == ""


@pytest.mark.parametrize("piece", ["<a href=/x>a", "<h2>a", "<script>a", "<", "<span>x", "<Div>x",
                                   "<a href=/x><div>card</div>text</a>"])
def test_the_oracle_agrees_on_hostile_input(piece: str) -> None:
    html = "<body>" + piece * 2000
    fast = extract(html, "http://h.example/", "UTF-8")
    assert fast == oracle.extract(html, "http://h.example/", "UTF-8")


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
    marked = "".join(pieces)
    assert core.blocks(marked) == prepare_blocks(marked)


# --- the parse limits: by what the parser does, any tag name in any case; the oracle's too ---

_URL = "http://h.example/"


def _on_both_paths(html: str, options: ExtractOptions) -> list:
    return [extract(html, _URL, "UTF-8", options), oracle.extract(html, _URL, "UTF-8", options)]


def test_the_depth_limit_is_the_parsers_stack_of_open_elements() -> None:
    # html and body are open too: 8 divs make 10 open elements
    document.parse(b"<div>" * 8 + b"x", 10, 0, 0.0)
    with pytest.raises(document.ExtractionLimit, match="too-deep: more than 10 open elements"):
        document.parse(b"<div>" * 9 + b"x", 10, 0, 0.0)
    # closed elements never accumulate, however many
    document.parse(b"<div><span>x</span></div>" * 5_000, 10, 0, 0.0)


def test_the_attribute_limit_counts_the_start_tags_attributes_duplicates_included() -> None:
    def tag(count: int, name: bytes = b"a") -> bytes:
        return b"<div " + b" ".join(name + (str(i).encode() if name == b"a" else b"") for i in range(count)) + b">"

    document.parse(tag(5), 0, 5, 0.0)
    with pytest.raises(document.ExtractionLimit, match="too-many-attributes: a start tag with more than 5"):
        document.parse(tag(6), 0, 5, 0.0)
    # the tree builder drops duplicates one by one: they cost the same, so they count
    with pytest.raises(document.ExtractionLimit, match="too-many-attributes"):
        document.parse(tag(6, b"x"), 0, 5, 0.0)


def test_the_cpu_deadline_stops_the_parse_itself() -> None:
    import time

    with pytest.raises(document.ExtractionLimit, match="time-budget"):
        document.parse(b"<p>x</p>" * 10_000, 0, 0, time.thread_time())


def test_the_cpu_deadline_is_checked_as_the_input_is_read_not_only_every_256_tokens() -> None:
    # One start tag of 20,000 attributes is one token (and a document of four): the deadline,
    # already past, stops the parse after the first 8 KiB of the tag, however few the tokens.
    tag = b"<div " + b" ".join(b"a%d" % i for i in range(20_000)) + b">x</div>"
    with pytest.raises(document.ExtractionLimit, match="time-budget: the parse passed the deadline"):
        document.parse(tag, 0, 0, 1e-9)


def test_a_start_tag_past_the_attribute_limit_is_refused_while_it_is_read() -> None:
    # Unterminated at the end of the input, the tag is never emitted as a token: only the
    # check after each piece of input sees it (the tokenizer compares each attribute of a tag
    # with the ones before it, so a tag of 160,000 took 10-50 s before it was refused).
    tag = b"<div " + b" ".join(b"a%d" % i for i in range(5_000))
    with pytest.raises(document.ExtractionLimit, match="too-many-attributes: a start tag with more than 1024"):
        document.parse(tag, 0, 1_024, 0.0)


def test_distinct_names_past_max_names_refuse_the_document() -> None:
    def custom_elements(count: int) -> bytes:
        return b"".join(b"<x-%d></x-%d>" % (i, i) for i in range(count))

    document.parse(custom_elements(100), 0, 0, 0.0, 100)
    with pytest.raises(document.ExtractionLimit, match="too-many-names: more than 100 distinct tag and attribute"):
        document.parse(custom_elements(101), 0, 0, 0.0, 100)
    # names of Lexbor's own tables do not count, however often used; any other name does
    document.parse(b"<div class=a id=b href=c style=d data-x=1>" * 3_000, 0, 0, 0.0, 1)
    with pytest.raises(document.ExtractionLimit, match="too-many-names: more than 1 "):
        document.parse(b"<div class=a data-x=1 data-y=2>", 0, 0, 0.0, 1)
    # within one start tag too, before the tag ends (each tag under the attribute limit)
    with pytest.raises(document.ExtractionLimit, match="too-many-names"):
        document.parse(b"<div " + b" ".join(b"n%d" % i for i in range(5_000)), 0, 0, 0.0, 2_048)


def test_a_page_of_many_distinct_names_is_refused_by_default() -> None:
    # 3,000 distinct attribute names, 500 to a tag (each tag under the attribute limit): the
    # lookups of a document's names grow with them (300,000 ran past the 10 s budget)
    html = "<title>t</title>" + "".join(
        "<div " + " ".join(f"data-n{t * 500 + k}" for k in range(500)) + ">x</div>" for t in range(6))
    result = extract(html, _URL, "UTF-8")
    assert result.title is None and result.errors == (
        "parse: ExtractionLimit: too-many-names: more than 2048 distinct tag and attribute names",)


@pytest.mark.parametrize("unit", ["<Div>", "<DIV>x", "<section>", "<b>", "<font size=2>", "<custom-el>",
                                  "<blockquote>", "<span>", "<svg><g>", "<table><tr><td><div>"])
def test_hostile_nesting_is_refused_by_both(unit: str) -> None:
    # 3,000 levels of anything that stays open: refused up front, and the record says why
    html = "<title>deep</title>" + unit * 3_000
    for result in _on_both_paths(html, ExtractOptions()):
        assert result.title is None and result.links == () and result.main_text == ""
        assert len(result.errors) == 1 and result.errors[0].startswith(
            "parse: ExtractionLimit: too-deep: more than 1024 open elements"), result.errors


@pytest.mark.parametrize("name", ["a", "A", "data-x", "x"])
def test_a_start_tag_with_thousands_of_attributes_is_refused_by_both(name: str) -> None:
    html = "<title>t</title><Div " + " ".join(f"{name}{i}=v" for i in range(5_000)) + ">x</div>"
    for result in _on_both_paths(html, ExtractOptions()):
        assert result.errors[0].startswith(
            "parse: ExtractionLimit: too-many-attributes: a start tag with more than 1024 attributes")


@pytest.mark.parametrize("html", [
    "<div><p>text here.</p></div>" * 5_000,
    "<p>paragraph without an end tag " * 5_000,  # each p closes the one before
    "<ul>" + "<li>item" * 5_000 + "</ul>",
    "<table>" + "<tr><td>cell<td>cell" * 3_000 + "</table>",
    "<script>" + "<div>" * 5_000 + "</script><p>after the script</p>",
    "<div " + " ".join(f"a{i}" for i in range(1_000)) + ">x</div>",
])
def test_large_flat_documents_are_not_refused(html: str) -> None:
    for result in _on_both_paths(html, ExtractOptions()):
        assert result.errors == ()


def test_the_time_budget_yields_an_error_not_a_stall() -> None:
    from dataclasses import replace

    options = replace(ExtractOptions(), time_budget=1e-9)
    for result in _on_both_paths("<title>t</title><p>text</p>", options):
        assert result.title is None and result.main_text == ""
        assert len(result.errors) == 1 and "ExtractionLimit: time-budget:" in result.errors[0]
    # 0 switches the budget off
    assert extract("<p>x", _URL, "UTF-8", replace(options, time_budget=0.0)).errors == ()


def test_the_core_takes_no_address_from_python() -> None:
    _document = core
    # Everything the walks read hangs off a Document, which owns its tree.
    public = {name for name in dir(_document) if not name.startswith("_")}
    assert public == {"Document", "ParseLimitError", "LEXBOR_VERSION", "configure",
                      "configure_head", "configure_patterns", "configure_urls", "blocks",
                      # the tokenizers of the links' texts, on a str (the tests compare them)
                      "css_urls", "script_urls", "srcset_urls"}
    assert set(dir(_document.Document)) >= {"facts", "main_text"}
    with pytest.raises(TypeError):
        _document.Document(12345)
    tree = _document.Document(b"<title>t</title><a href=/x>x</a>")
    facts = tree.facts((10,) * 7)
    del tree  # the facts are Python objects: nothing refers into the freed tree
    assert facts[4][2] == "t" and facts[1][0][3] == "/x"


@given(st.text(max_size=60), st.integers(min_value=1, max_value=40), st.booleans())
def test_the_parser_input_is_cut_before_a_character_never_inside_one(
    text: str, limit: int, given_utf8: bool,
) -> None:
    whole = utf8_of(text)
    data, note = document.parser_input(text, whole if given_utf8 else None, limit)
    assert data.decode("utf-8").encode() == data  # whole characters only
    assert whole.startswith(data)
    if len(whole) <= limit:
        assert (data, note) == (whole, None)
    else:
        assert note is not None and note.startswith(f"{document.CAPPED}: ")
        assert limit - 3 <= len(data) <= limit  # at most one 4-byte character left out


def test_a_document_past_max_parse_bytes_is_extracted_from_its_start() -> None:
    page = ("<title>T</title><a href='/first'>a</a>" + "<p>" + "é" * 3000 + "</p>"
            + "<a href='/late'>b</a>")
    options = ExtractOptions(max_parse_bytes=2000)
    for run in (extract, oracle.extract):
        fields = run(page, "http://a.example/", "utf-8", options)
        assert fields.title == "T"
        assert [link.url for link in fields.links] == ["http://a.example/first"]
        assert fields.main_text == "a\n" + "é" * 979  # (2,000 - 41 bytes of markup) // 2
        (note,) = fields.errors
        assert note == ("input-capped: the parser read the first 1,999 bytes of 3,066 characters "
                        "(max_parse_bytes = 2,000)")
        whole = extract(page, "http://a.example/", "utf-8")
        assert whole.errors == () and len(whole.links) == 2
        uncut = extract(page, "http://a.example/", "utf-8", ExtractOptions(max_parse_bytes=0))
        assert uncut == whole
    with pytest.raises(ValueError, match="max_parse_bytes"):
        ExtractOptions(max_parse_bytes=-1)
