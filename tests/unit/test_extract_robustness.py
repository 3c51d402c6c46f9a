"""extract() never raises on any text, and stays linear on pathological markup (timings
are measured by hand in docs/extract.md, never asserted here)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.extract import Extracted, ExtractOptions, extract

_TAGS = ["<a href='", "<a href=?\u00e9>", "</a>", "<div>", "</div>", "<p>", "<title>", "</title>",
         "<script>", "</script>", "<base href='", "<meta property=og:image content='", "<svg>",
         "<table><td>", "<!--", "-->", "<article>", "'>", "<", ">", "&", "&#x110000;", "\x00",
         "\ud800", "<form>", "<nav>", "\u3002", "http://[", "<area href=", "<link rel=canonical href="]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_TAGS), st.text(max_size=40)), max_size=40),
       st.sampled_from(["UTF-8", "windows-1252", "Shift_JIS", "ISO-2022-JP", "Big5", "GBK",
                        "replacement", "no-such-label"]),
       st.one_of(st.none(), st.just("https://example.com/a/"), st.text(max_size=20)))
def test_extract_never_raises_on_markup_soup(parts: list[str], encoding: str, url: str | None) -> None:
    e = extract("".join(parts), url, encoding)
    assert isinstance(e, Extracted)
    assert e.errors == ()
    assert e.bad_urls >= 0


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=400))
def test_extract_never_raises_on_binary_junk_decoded_as_latin1(data: bytes) -> None:
    e = extract(data.decode("latin-1"), "http://example.com/", "windows-1252")
    assert e.errors == ()


def test_lone_surrogates_and_nul_do_not_break_anything() -> None:
    e = extract("<title>a\ud800b\x00c</title><a href='/x?\ud800'>x</a>", "https://e.example/", "windows-1252")
    assert e.title is not None and e.errors == ()


def test_pathological_unclosed_markup_still_extracts() -> None:
    for unit in ("<a href=/x>", "<h2>", "<div></div>", "< "):
        e = extract(unit * 2000 + "<p>end of the document, a sentence.</p>", "https://e.example/", "UTF-8")
        assert e.errors == ()
    e = extract("<script>" + "x" * 10_000, "https://e.example/", "UTF-8")
    assert e.main_text == "" and e.errors == ()


def test_non_str_text_is_a_programming_error() -> None:
    import pytest

    with pytest.raises(TypeError):
        extract(b"<p>bytes</p>", None, "UTF-8")  # type: ignore[arg-type]


def test_links_beyond_max_links_are_counted_not_recorded() -> None:
    from dataclasses import replace

    from pipeline.extract import ExtractOptions
    from pipeline.extract.options import LinkLimits

    html = "".join(f"<a href=/p{i}>{i}</a><img srcset='/i{i}a 1x, /i{i}b 2x'>" for i in range(30))
    limits = LinkLimits(navigation=10, resource=15)
    e = extract(html, "https://e.example/", "UTF-8", replace(ExtractOptions(), max_links=limits))
    # 20 anchors and 45 srcset URLs are left out once 10 and 15 are recorded
    assert [link.kind for link in e.links].count("navigation") == 10
    assert [link.kind for link in e.links].count("resource") == 15
    assert e.links_dropped == (("navigation", 20), ("resource", 45)) and e.links_truncated == 65
    assert [link.url for link in e.links if link.kind == "navigation"][-1] == "https://e.example/p9"


def test_huge_documents_skip_pruning_but_still_extract() -> None:
    from dataclasses import replace

    from pipeline.extract import ExtractOptions

    sentence = "A sentence of plain article text, long enough to be a block on its own here."
    html = f"<nav><p>Home navigation menu entries</p></nav><div><p>{sentence * 3}</p></div>"
    small = replace(ExtractOptions(), max_pruned_elements=3, min_length=10, threshold=10.0)
    # With pruning skipped the nav paragraph is scored like any other block.
    assert "navigation" in extract(html, None, "UTF-8", small).main_text
    pruned = extract(html, None, "UTF-8", replace(small, max_pruned_elements=50_000)).main_text
    assert "navigation" not in pruned and sentence in pruned


def test_an_internal_failure_keeps_the_other_fields(monkeypatch) -> None:
    import importlib

    module = importlib.import_module("pipeline.extract.extract")

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(module, "extract_links", broken)
    e = extract("<title>T</title><a href=/x>x</a>", "https://e.example/", "UTF-8")
    assert e.title == "T" and e.links == ()
    assert e.errors == ("links: RuntimeError: boom",)


def test_a_failing_parse_returns_an_empty_record_with_the_error(monkeypatch) -> None:
    import importlib

    module = importlib.import_module("pipeline.extract.extract")

    def broken(*args: object) -> None:
        raise MemoryError("no room")

    monkeypatch.setattr(module.document, "parse", broken)
    e = extract("<title>T</title>", "https://e.example/", "UTF-8")
    assert e.title is None and e.main_text == "" and e.base_url == "https://e.example/"
    assert e.errors == ("parse: MemoryError: no room",)


def test_deeply_nested_unclosed_containers_are_refused_not_parsed() -> None:
    # 512 KB of unclosed <div>: Lexbor's parse is quadratic in the nesting depth (minutes);
    # the guard stops it at the limit and says why, instead of stalling the worker.
    text = "<title>deep</title>" + "<div>" * (512 * 1024 // 5)
    result = extract(text, "http://deep.example/", "UTF-8")
    assert result.links == () and result.main_text == ""
    assert any("too-deep" in error for error in result.errors)


def test_many_closed_containers_are_parsed_normally() -> None:
    text = "<title>flat</title>" + "<div><p>text here.</p></div>" * 20_000
    result = extract(text, "http://flat.example/", "UTF-8")
    assert result.title == "flat"
    assert not result.errors


def test_hostile_link_texts_are_bounded_per_kind() -> None:
    # 100,000 srcset candidates, a 5 MB inline script of URL-like strings, a style sheet of
    # 60,000 url()s: each kind keeps max_links (10,000) rows and counts the rest; the
    # reading stays linear (bench/extract_bench.py --hostile --only "one "). The 7 MB page is
    # parsed whole (max_parse_bytes off): the per-kind bounds are what is tested here.
    srcset = "<img srcset='" + "/i.png 1x, " * 100_000 + "'>"
    script = "<script>var a = [" + "'/p/x', " * 625_000 + "];</script>"
    style = "<style>" + "a{b:url(/i.png)}" * 60_000 + "</style>"
    e = extract(srcset + script + style, "http://x.example/", "UTF-8", ExtractOptions(max_parse_bytes=0))
    assert e.errors == ()
    kinds = [link.kind for link in e.links]
    assert (kinds.count("resource"), kinds.count("script-string"), kinds.count("css")) == (10_000,) * 3
    assert e.links_dropped == (("resource", 90_000), ("css", 50_000), ("script-string", 615_000))
    assert e.links_truncated == 755_000
