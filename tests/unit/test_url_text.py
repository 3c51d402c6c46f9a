"""The URLs inside text (srcset values, style sheets, scripts): the compiled tokenizers
(``_urltext.c``) against their oracles (``tests/oracles/``), the oracles against independent
tokenizers (tinycss2 for CSS, esprima for ECMAScript) on the article pages, and the spec
cases (WPT meta refresh parsing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.extract_bench import CORPUS, load_corpus
from pipeline.extract.refresh import parse_refresh
from pipeline.extract.url_resolution import resolve_url
from pipeline.native import document as _document
from tests.oracles.css_urls import css_urls
from tests.oracles.script_strings import string_literals, url_like
from tests.oracles.srcset import parse_srcset
from tests.oracles.tree import parse_document
from tests.oracles.walks import _script_urls, script_is_read

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "links"


@pytest.fixture(scope="module")
def page_texts() -> dict[str, list[str]]:
    """The style sheets, style attributes, read scripts and srcset values of the 181 pages."""
    if not CORPUS.is_dir():
        pytest.fail("../shared/corpus/article-extraction is not present")
    texts: dict[str, list[str]] = {"css": [], "script": [], "srcset": []}
    for _, _, html, _ in load_corpus():
        tree = parse_document(html)
        texts["css"] += [node.text(deep=False) for node in tree.css("style")]
        texts["css"] += [node.attributes["style"] or "" for node in tree.css("[style]")]
        texts["srcset"] += [node.attributes["srcset"] or "" for node in tree.css("[srcset]")]
        texts["script"] += [node.text(deep=False) for node in tree.css("script")
                            if "src" not in node.attributes
                            and script_is_read(node.attributes.get("type"), node.attributes.get("language"))]
    return texts


def test_compiled_tokenizers_equal_the_oracles_on_the_article_pages(page_texts: dict[str, list[str]]) -> None:
    assert [t for t in page_texts["css"] if _document.css_urls(t) != css_urls(t)] == []
    assert [t for t in page_texts["script"] if _document.script_urls(t) != _script_urls(t)] == []
    assert [t for t in page_texts["srcset"] if _document.srcset_urls(t) != parse_srcset(t)] == []
    found = sum(len(css_urls(t)) for t in page_texts["css"]), sum(len(_script_urls(t)) for t in page_texts["script"])
    assert found[0] > 2_000 and found[1] > 5_000, found  # the pages exercise both


_CSS_PIECES = ["url(", "URL(", "u\\72l(", ")", "(", "'", '"', "\\", "\\29", "\\\n", "/*", "*/", " ", "\n",
               "\r\n", "\f", "\t", "x.png", "#f", "@import", "@IMPORT", "@namespace", ";", "{", "}", "image-set(",
               "-webkit-image-set(", "-webKit-image-set(", "1x", "5", "-", "--", "-->", "<!--", "\x00", "\x01",
               "é", "\ud7ff", ",", "%", ".5", "e3", "+"]
_JS_PIECES = ["'", '"', "`", "${", "}", "{", "/", "//", "/*", "*/", "\\", "\\u002f", "\\x2F", "\\u{1F600}",
              "\\uD83D", "\\uDE00", "\\0", "\\012", "\\8", "\\\n", "\n", "\r", "\u2028", "<!--", "-->", "return",
              "x", "4", ")", "]", "(", "[", "https://a.example/p", "//cdn.example.com/x.js", "/path", "./r", "../r",
              " ", "\u00a0", "é", "=", ";", ",", "$", "#", "?", "@", "http://[::1]/", "\t"]
_SRCSET_PIECES = ["a.png", " ", ",", "1x", "2x", "-0x", "1.5e1x", "100w", "0w", "50h", "(", ")", "\t", "\n",
                  "\f", "\u00a0", "data:,a", "foo", "1e999x", "-1x", "é"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_CSS_PIECES), max_size=40), st.lists(st.sampled_from(_JS_PIECES), max_size=40),
       st.lists(st.sampled_from(_SRCSET_PIECES), max_size=20))
def test_compiled_tokenizers_equal_the_oracles_on_generated_text(css: list[str], js: list[str],
                                                                srcset: list[str]) -> None:
    text = "".join(css)
    assert _document.css_urls(text) == css_urls(text)
    text = "".join(js)
    assert _document.script_urls(text) == _script_urls(text)
    text = "".join(srcset)
    assert _document.srcset_urls(text) == parse_srcset(text)


def _tinycss2_urls(text: str) -> list[str]:
    """The URLs css_urls keeps, read off tinycss2's component values (an independent CSS
    Syntax tokenizer): url tokens, url("..."), @import strings, image-set() strings; none in
    an @namespace prelude; empty and fragment-only ones left out."""
    import tinycss2

    out: list[str] = []

    def keep(value: str, namespace: bool) -> None:
        if value and not value.startswith("#") and not namespace:
            out.append(value)

    def walk(tokens: list, namespace: bool, image_set: bool, import_first: bool) -> None:
        first = import_first
        for token in tokens:
            if token.type in ("whitespace", "comment"):
                continue
            if token.type == "url":
                keep(token.value, namespace)
            elif token.type == "string" and (image_set or first):
                keep(token.value, namespace)
            elif token.type == "function":
                arguments = [a for a in token.arguments if a.type not in ("whitespace", "comment")]
                if token.lower_name == "url" and arguments and arguments[0].type == "string":
                    keep(arguments[0].value, namespace)
                    walk(token.arguments[token.arguments.index(arguments[0]) + 1:], namespace, False, False)
                else:
                    walk(token.arguments, namespace, token.lower_name in ("image-set", "-webkit-image-set"),
                         False)
            elif token.type in ("() block", "[] block", "{} block"):
                walk(token.content, namespace, False, False)
            first = False

    prelude, fresh = "", False
    for token in tinycss2.parse_component_value_list(text):
        if token.type in ("whitespace", "comment"):
            continue
        if token.type == "at-keyword":
            prelude = token.lower_value if token.lower_value in ("import", "namespace") else ""
            fresh = True
            continue
        if token.type == "literal" and token.value == ";":
            prelude, fresh = "", False
            continue
        if token.type == "{} block":
            walk(token.content, False, False, False)
            prelude, fresh = "", False
            continue
        walk([token], prelude == "namespace", False, fresh and prelude == "import")
        fresh = False
    return out


def test_css_urls_equal_tinycss2s_tokens_on_the_article_pages(page_texts: dict[str, list[str]]) -> None:
    differing = [text for text in page_texts["css"] if css_urls(text) != _tinycss2_urls(text)]
    assert differing == []
    assert len(page_texts["css"]) > 3_000


def _esprima_strings(code: str) -> list[str]:
    """The string literals (and substitution-free templates) esprima's tokenizer finds,
    their values decoded by esprima's parser, as USVStrings."""
    import esprima

    out = []
    for token in esprima.tokenize(code):
        if token.type == "String":
            out.append(esprima.parseScript(token.value).body[0].expression.value)
        elif token.type == "Template" and len(token.value) > 1 and token.value[0] == token.value[-1] == "`":
            out.append(esprima.parseScript(token.value).body[0].expression.quasis[0].value.cooked)
    return [value.encode("utf-16", "surrogatepass").decode("utf-16", "replace") for value in out]


@pytest.mark.slow  # esprima (pure Python) reads the pages' 3,800 scripts in ~20 s
def test_string_literals_equal_esprimas_on_the_article_pages(page_texts: dict[str, list[str]]) -> None:
    differing, refused = [], 0
    for code in page_texts["script"]:
        try:
            expected = _esprima_strings(code)
        except Exception:  # not a valid script: esprima stops where we read on
            refused += 1
            continue
        if string_literals(code) != expected:
            differing.append(code[:80])
    assert differing == []
    assert refused < 10 and len(page_texts["script"]) > 3_000


def test_string_literals_equal_esprimas_on_a_sample_of_scripts(page_texts: dict[str, list[str]]) -> None:
    sample = [code for code in page_texts["script"][::40] if len(code) < 20_000]
    assert len(sample) > 50
    for code in sample:
        try:
            expected = _esprima_strings(code)
        except Exception:
            continue
        assert string_literals(code) == expected, code[:80]


@pytest.mark.parametrize(("content", "expected"), json.loads((FIXTURES / "wpt-refresh.json").read_text("utf-8"))["cases"])
def test_refresh_parsing_follows_the_wpt_cases(content: str, expected: list) -> None:
    # WPT: [] is no refresh; [time, url] with url unresolved, "refresh.sub.html" is the
    # document's own URL. Compared after resolution (the URL parser drops tabs/newlines).
    page = "http://h.example/support/refresh.sub.html"
    parsed = parse_refresh(content)
    if not expected:
        assert parsed is None
        return
    assert parsed is not None and parsed[0] == expected[0]
    got = page if parsed[1] is None else resolve_url(parsed[1], page)
    assert got == resolve_url(expected[1], page)


@pytest.mark.parametrize(("value", "kept"), [
    ("https://cdn.example.com/a.js", True), ("HTTP://Example.COM/x", True), ("//cdn.example.com/x", True),
    ("/api/v1/items?id=3#top", True), ("./a/b.png", True), ("../up", True), ("/日本", True),
    ("wss://live.example.org/socket", True), ("https://u:p@h.example/x", True),
    # not URLs a crawler would take
    ("/", False), ("//", False), ("https://", False), ("http://localhost/", False), ("text/html", False),
    ("a b", False), ("/{id}/edit", False), ("/*", False), ("mailto:a@b.example", False), ("", False),
    ("javascript:void(0)", False), ("data:image/png;base64,AAAA", False), ("1.5", False),
])
def test_which_script_strings_are_url_like(value: str, kept: bool) -> None:
    assert url_like(value) is kept


def test_script_strings_beat_gospiders_expression_on_the_labelled_scripts() -> None:
    # bench/script_strings.py: 89 real inline scripts (article pages, WARC samples), every
    # URL in them labelled by hand (tests/fixtures/links/script-labels.json).
    from bench.script_strings import score

    results = score()
    ours, gospider = results["redecode"], results["gospider"]
    assert ours["scripts"] >= 80 and ours["true"] >= 150
    assert ours["precision"] > gospider["precision"] and ours["recall"] > gospider["recall"], results
    assert ours["precision"] >= 0.98 and ours["recall"] >= 0.95, ours
