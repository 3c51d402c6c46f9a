"""URL resolution against WPT's urltestdata.json, document-encoding query encoding against
percent-encoding.json (the encoders themselves: test_encoders.py)."""

from __future__ import annotations

import json
from pathlib import Path

from pipeline.encoding.lookup import get_an_encoding
from pipeline.extract.query_encoding import percent_encode_query
from pipeline.extract.url_resolution import resolve_url
from tests.conformance.whatwg_index import index_file


def _url_tests(corpus: Path) -> list[dict]:
    data = json.loads((corpus / "wpt-url" / "urltestdata.json").read_text("utf-8"))
    return [entry for entry in data if isinstance(entry, dict)]


def test_urltestdata_has_891_test_objects(corpus: Path) -> None:
    assert len(_url_tests(corpus)) == 891


def test_every_urltestdata_case_resolves_as_expected(corpus: Path) -> None:
    failures = []
    for case in _url_tests(corpus):
        got = resolve_url(case["input"], case["base"])
        if case.get("failure"):
            # A failure case must fail: no URL at all.
            if got is not None:
                failures.append((case["input"], case["base"], "expected failure", got))
        elif got != case["href"]:
            failures.append((case["input"], case["base"], case["href"], got))
    assert failures == [], f"{len(failures)} of 891 failed, first: {failures[:5]}"


def _percent_cases(corpus: Path) -> list[tuple[str, str, str]]:
    data = json.loads((corpus / "wpt-url" / "percent-encoding.json").read_text("utf-8"))
    return [
        (entry["input"], label, expected)
        for entry in data if isinstance(entry, dict)
        for label, expected in entry["output"].items()
    ]


def test_percent_encoding_lists_every_encoding(corpus: Path) -> None:
    labels = {label for _, label, _ in _percent_cases(corpus)}
    assert labels == {"big5", "euc-kr", "utf-8", "windows-1252", "iso-2022-jp", "gb18030",
                      "shift_jis", "iso-8859-2"}


def test_query_is_percent_encoded_in_the_document_encoding(corpus: Path) -> None:
    # WPT's test: new URL("https://doesnotmatter.invalid/?" + input) in a document of
    # that encoding; the query must equal the expected output.
    failures = []
    for text, label, expected in _percent_cases(corpus):
        encoding = get_an_encoding(label)
        assert encoding is not None, label
        got = resolve_url("?" + text, "https://doesnotmatter.invalid/", encoding)
        if got != "https://doesnotmatter.invalid/?" + expected:
            failures.append((text, label, expected, got))
    assert failures == []


def test_iso_2022_jp_katakana_follows_the_index(corpus: Path) -> None:
    index = index_file(corpus, "iso-2022-jp-katakana")
    for pointer, code_point in index.items():
        half_width = chr(0xFF61 + pointer)
        assert percent_encode_query(half_width, "ISO-2022-JP", True) == percent_encode_query(
            chr(code_point), "ISO-2022-JP", True
        )


def test_the_batch_parser_is_bound_and_passes_urltestdata(corpus: Path) -> None:
    # Resolver.many parses a document's hrefs in one call through ada's C API.
    from pipeline.extract import url_resolution as urls

    failures = []
    for case in _url_tests(corpus):
        got = urls.Resolver(case["base"]).many([case["input"]])[0]
        expected = None if case.get("failure") else case["href"]
        if got != expected:
            failures.append((case["input"], case["base"], expected, got))
    assert failures == [], f"{len(failures)} of 891 failed, first: {failures[:5]}"


def test_the_batch_parser_encodes_queries_in_the_document_encoding(corpus: Path) -> None:
    from pipeline.extract.url_resolution import Resolver

    for text, label, expected in _percent_cases(corpus):
        resolver = Resolver("https://doesnotmatter.invalid/", get_an_encoding(label) or "")
        assert resolver.many(["?" + text]) == ["https://doesnotmatter.invalid/?" + expected]


def test_many_equals_one_at_a_time_with_surrogates_and_repeats() -> None:
    from pipeline.extract.url_resolution import Resolver

    hrefs = ["/a", "/a", "//h.example/x", "b?q=\u00e9", "\ud800", "http://[::1", "#f", "../c", ""]
    assert Resolver("http://e.example/p/q", "windows-1252").many(hrefs) == [
        Resolver("http://e.example/p/q", "windows-1252")(h) for h in hrefs
    ]
