"""URL resolution against WPT's urltestdata.json, document-encoding query encoding against
percent-encoding.json, and the query encoders against the WHATWG indexes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.encoding.lookup import get_an_encoding
from pipeline.extract.query_encoding import ENCODERS, SINGLE_BYTE_CODECS, percent_encode_query
from pipeline.extract.url_resolution import resolve_url


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


def _index(corpus: Path, name: str) -> dict[int, int]:
    table = {}
    for line in (corpus / "whatwg-encoding" / f"index-{name}.txt").read_text("utf-8").split("\n"):
        if line.startswith("#") or not line.strip():
            continue
        pointer, code_point = line.split()[:2]
        table[int(pointer)] = int(code_point, 16)
    return table


@pytest.mark.parametrize("name", sorted(SINGLE_BYTE_CODECS))
def test_single_byte_encoder_matches_the_whatwg_index(corpus: Path, name: str) -> None:
    index_name = "iso-8859-8" if name == "ISO-8859-8-I" else name.lower()
    expected: dict[int, bytes] = {}
    for pointer, code_point in _index(corpus, index_name).items():
        expected.setdefault(code_point, bytes([pointer + 0x80]))
    encode = ENCODERS[name]
    wrong = {hex(cp): (want, encode(cp)) for cp, want in expected.items() if encode(cp) != want}
    assert wrong == {}
    # Code points outside the index are errors (their NCR goes in the URL instead).
    extra = [hex(cp) for cp in range(0x80, 0x3000) if cp not in expected and encode(cp) is not None]
    assert extra == []


def _two_byte(corpus: Path, name: str, rule) -> dict[int, bytes]:
    expected: dict[int, bytes] = {}
    for pointer, code_point in sorted(_index(corpus, name).items()):
        out = rule(pointer, code_point)
        if out is not None:
            expected.setdefault(code_point, out)
    return expected


def test_euc_kr_encoder_matches_the_index(corpus: Path) -> None:
    expected = _two_byte(corpus, "euc-kr", lambda p, _: bytes([p // 190 + 0x81, p % 190 + 0x41]))
    assert {hex(c) for c, b in expected.items() if ENCODERS["EUC-KR"](c) != b} == set()


def _gb_pair(pointer: int, _: int) -> bytes:
    trail = pointer % 190
    return bytes([pointer // 190 + 0x81, trail + (0x40 if trail < 0x3F else 0x41)])


def test_gb18030_and_gbk_encoders_match_the_index(corpus: Path) -> None:
    expected = _two_byte(corpus, "gb18030", _gb_pair)
    # "If code point is U+E5E5, return error with code point."
    expected.pop(0xE5E5, None)
    assert ENCODERS["gb18030"](0xE5E5) is None
    assert {hex(c) for c, b in expected.items() if ENCODERS["gb18030"](c) != b} == set()
    assert {hex(c) for c, b in expected.items() if ENCODERS["GBK"](c) != b} == {"0x20ac"}
    # GBK: U+20AC is 0x80, and four-byte sequences are errors.
    assert ENCODERS["GBK"](0x20AC) == b"\x80"
    assert ENCODERS["GBK"](0x00A5) is None
    assert ENCODERS["gb18030"](0x00A5) == "\u00a5".encode("gb18030")
    # The GB18030-2022 swap: U+E7C7 takes U+1E3F's old four-byte code.
    assert ENCODERS["gb18030"](0xE7C7) == b"\x81\x35\xf4\x37"


def test_shift_jis_encoder_matches_the_index(corpus: Path) -> None:
    def rule(pointer: int, _: int) -> bytes | None:
        # "index Shift_JIS pointer": pointers 8272 to 8835 are excluded.
        if 8272 <= pointer <= 8835:
            return None
        lead, trail = divmod(pointer, 188)
        return bytes([lead + (0x81 if lead < 0x1F else 0xC1), trail + (0x40 if trail < 0x3F else 0x41)])

    expected = _two_byte(corpus, "jis0208", rule)
    assert {hex(c) for c, b in expected.items() if ENCODERS["Shift_JIS"](c) != b} == set()
    assert ENCODERS["Shift_JIS"](0xA5) == b"\x5c"
    assert ENCODERS["Shift_JIS"](0xFF61) == b"\xa1"


def test_euc_jp_encoder_matches_the_index(corpus: Path) -> None:
    expected = _two_byte(
        corpus, "jis0208",
        lambda p, _: bytes([p // 94 + 0xA1, p % 94 + 0xA1]) if p < 94 * 94 else None,
    )
    assert {hex(c) for c, b in expected.items() if ENCODERS["EUC-JP"](c) != b} == set()
    assert ENCODERS["EUC-JP"](0xFF61) == b"\x8e\xa1"


def test_iso_2022_jp_katakana_follows_the_index(corpus: Path) -> None:
    index = _index(corpus, "iso-2022-jp-katakana")
    for pointer, code_point in index.items():
        half_width = chr(0xFF61 + pointer)
        assert percent_encode_query(half_width, "ISO-2022-JP", True) == percent_encode_query(
            chr(code_point), "ISO-2022-JP", True
        )


#: DEVIATION (cjk_encoders.big5_encode): these code points encode as Python's
#: big5hkscs/cp950 do, not as index Big5. Pinned so that any change shows.
BIG5_KNOWN_DEVIATIONS = {
    "0xff0f", "0xff3c", "0x256d", "0x256e", "0x256f", "0x2570", "0x5ef4", "0x65e0",
    "0x7676", "0x96b6", "0x4edd", "0x5605", "0x5ed0", "0x60a4", "0x732a",
}


def test_big5_encoder_matches_the_index_except_documented_deviations(corpus: Path) -> None:
    index = _index(corpus, "big5")
    last = {0x2550, 0x255E, 0x2561, 0x256A, 0x5341, 0x5345}
    pointers: dict[int, int] = {}
    for pointer, code_point in sorted(index.items()):
        if pointer < (0xA1 - 0x81) * 157:
            continue
        if code_point in last or code_point not in pointers:
            pointers[code_point] = pointer
    wrong = set()
    for code_point, pointer in pointers.items():
        lead, trail = divmod(pointer, 157)
        want = bytes([lead + 0x81, trail + (0x40 if trail < 0x3F else 0x62)])
        if ENCODERS["Big5"](code_point) != want:
            wrong.add(hex(code_point))
    assert wrong <= BIG5_KNOWN_DEVIATIONS


def test_the_batch_parser_is_bound_and_passes_urltestdata(corpus: Path) -> None:
    # Resolver.many parses a document's hrefs in one call through ada's C API (ada-url's
    # public Python API in the no-compiler job).
    import os

    from pipeline.extract import url_resolution as urls

    if not os.environ.get("REDECODE_EXPECT_PURE_PYTHON"):
        assert urls._urls is not None, "pipeline.extract._urls is not built"
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
