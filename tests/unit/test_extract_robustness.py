"""extract() never raises on any text, and stays linear on pathological markup (timings
are measured by hand in notes/extract.md, never asserted here)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.extract import Extracted, extract

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
    for unit in ("<a href=/x>", "<h2>", "<div>", "< "):
        e = extract(unit * 2000 + "<p>end of the document, a sentence.</p>", "https://e.example/", "UTF-8")
        assert e.errors == ()
    e = extract("<script>" + "x" * 10_000, "https://e.example/", "UTF-8")
    assert e.main_text == "" and e.errors == ()


def test_non_str_text_is_a_programming_error() -> None:
    import pytest

    with pytest.raises(TypeError):
        extract(b"<p>bytes</p>", None, "UTF-8")  # type: ignore[arg-type]
