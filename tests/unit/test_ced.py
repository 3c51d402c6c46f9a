"""Compact Encoding Detection as Chromium calls it (``pipeline/encoding/sniff/ced.py``) and the
compiled module under it (``pipeline/encoding/_ced.cpp``)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.encoding.sniff import ced
from pipeline.native import ced as _ced


def test_the_ced_compiled_in_is_the_pinned_one() -> None:
    assert ced.CED_VERSION == _ced.CED_VERSION == "2.2"


def test_url_hint_is_the_serialized_url() -> None:
    # KURL::GetString(): host lowercased, IDNA applied; CED takes the TLD from it
    assert ced.url_hint("http://WWW.Example.RU:8080/x") == "http://www.example.ru:8080/x"
    assert ced.url_hint("http://пример.рф/") == "http://xn--e1afmkfd.xn--p1ai/"
    assert ced.url_hint(None) == ""
    assert ced.url_hint("not a url") == "not a url"


def test_local_resources_are_file_urls() -> None:
    assert ced.is_local("file:///tmp/a.html") and ced.is_local("FILE:/x")
    assert not ced.is_local("http://x/") and not ced.is_local(None) and not ced.is_local("")


@pytest.mark.parametrize(("body", "url", "expected"), [
    # Chromium's table of what CED's names become (WHATWG labels)
    ("Съешь же ещё этих мягких французских булок".encode("cp1251"), "http://x.ru/", ("windows-1251", "detected")),
    ("Съешь же ещё этих мягких французских булок".encode("koi8_r"), "http://x.ru/", ("KOI8-R", "detected")),
    ("日本語のテキストです。これはテストです。".encode("euc_jp"), "http://x.jp/", ("EUC-JP", "detected")),
    ("日本語のテキストです。これはテストです。".encode("cp932"), "http://x.jp/", ("Shift_JIS", "detected")),
    # UTF-8 is thrown away on http(s): the TLD default stays
    ("日本語のテキストです。".encode(), "http://x.jp/", ("Shift_JIS", "default")),
    # ASCII is read as windows-1252 whatever the TLD
    (b"<p>plain</p>", "http://x.jp/", ("windows-1252", "default")),
    # HZ and ISO-2022-KR are ASCII in HTML5 mode
    ("<p>中文</p>".encode("hz"), "http://x.cn/", ("windows-1252", "default")),
    ("<p>한국어</p>".encode("iso2022_kr"), "http://x.kr/", ("windows-1252", "default")),
], ids=["cp1251", "koi8-r", "euc-jp", "shift_jis", "utf-8", "ascii", "hz", "iso-2022-kr"])
def test_chromium_sniff(body: bytes, url: str, expected: tuple[str, str]) -> None:
    default = {"ru": "windows-1251", "jp": "Shift_JIS", "cn": "GBK", "kr": "EUC-KR"}[url.split(".")[-1].strip("/")]
    assert ced.chromium_sniff(body, url, default)[:2] == expected


def test_names_blink_does_not_know_keep_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    # SetEncoding keeps the default for a name that is no encoding (CED's csn_369103, cp852)
    monkeypatch.setattr(ced, "detect_encoding", lambda body, url: ced.CedAnswer("csn_369103", "CSN_369103", False, 9))
    assert ced.chromium_sniff(b"\xe8", "http://x.cz/", "windows-1250")[:2] == ("windows-1250", "default")
    monkeypatch.setattr(ced, "detect_encoding", lambda body, url: ced.CedAnswer("x-unknown", "Unknown", False, 1))
    assert ced.chromium_sniff(b"\xe8", "http://x.cz/", "windows-1250")[:2] == ("windows-1250", "default")


@given(st.binary(max_size=3000), st.sampled_from(["http://x.jp/", "http://x/", "", "file:///a", "x"]),
       st.sampled_from([None, "", "utf-8", "koi8-r", "nonsense"]),
       st.sampled_from([None, "en", "ja", "xx"]), st.integers(0, 3), st.booleans())
@settings(max_examples=400, deadline=None)
def test_the_compiled_call_takes_any_bytes_and_hints(data: bytes, url: str, encoding: str | None,
                                                    language: str | None, corpus: int, ignore_7bit: bool) -> None:
    found = _ced.detect(data, url, encoding, encoding, encoding, language, corpus, ignore_7bit)
    mime, name, reliable, consumed = found
    assert isinstance(mime, str) and isinstance(name, str) and isinstance(reliable, bool)
    assert 0 <= consumed <= len(data) + 1
    assert _ced.detect(data, url, encoding, encoding, encoding, language, corpus, ignore_7bit) == found


def test_the_compiled_call_refuses_bad_arguments() -> None:
    with pytest.raises(TypeError):
        _ced.detect("text", None)
    with pytest.raises(TypeError):
        _ced.detect(b"x", 3)
    with pytest.raises(ValueError):
        _ced.detect(b"x", None, corpus=9)
    assert _ced.detect(memoryview(b"abc")[1:], None)[1] == "ASCII-7-bit"
