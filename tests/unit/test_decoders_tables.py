"""The bundled index tables, the gb18030 ranges, the registered codecs and per-thread counting."""

from __future__ import annotations

import codecs
import threading

import pytest

from pipeline.encoding.decoders import DecodeResult, decode
from pipeline.encoding.decoders.tables import gb18030_ranges_code_point, index_table, source_commit


@pytest.mark.parametrize(
    ("pointer", "expected"),
    [
        (0, 0x80),
        (7457, 0xE7C7),  # "If pointer is 7457, return code point U+E7C7."
        (39419, 0xFFFF),  # the last BMP pointer
        (39420, None),  # "greater than 39419 and less than 189000": null
        (188999, None),
        (189000, 0x10000),
        (1237575, 0x10FFFF),
        (1237576, None),  # "greater than 1237575": null
    ],
)
def test_gb18030_ranges_code_point(pointer: int, expected: int | None) -> None:
    assert gb18030_ranges_code_point(pointer) == expected


def test_index_tables_have_the_expected_extent() -> None:
    # Last pointer + 1 of each index file (a NUL marks a pointer without code point).
    assert len(index_table("jis0208")) == 11104
    assert len(index_table("jis0212")) == 7211
    assert len(index_table("big5")) == 19782
    assert len(index_table("euc-kr")) == 23750
    assert len(index_table("gb18030")) == 23940
    assert index_table("jis0208")[8836] == "\0"  # no entry: Shift_JIS maps it to the PUA


def test_source_commit_is_the_generators() -> None:
    assert source_commit() == "a985b62a9b45c17da3e17a9f0a0b4e30c34c4a8a"


def test_registered_single_byte_codecs() -> None:
    info = codecs.lookup("whatwg_windows_1252")
    assert info.decode(b"\x80\x81")[0] == "\u20ac\x81"
    assert "\u20ac".encode("whatwg_windows_1252") == b"\x80"
    with pytest.raises(UnicodeDecodeError):
        b"\xa1".decode("whatwg_iso_8859_8")  # unmapped: the spec's error
    assert b"\xa1".decode("whatwg_iso_8859_8", "replace") == "\ufffd"
    assert codecs.lookup("WHATWG-X-USER-DEFINED").name == "whatwg_x_user_defined"


def test_error_counts_are_per_thread() -> None:
    # The error handlers count per thread: concurrent decodes do not mix their counts. (One
    # error in 12+ bytes: the codec path with its error handler throughout.)
    pad = "abcdefghij"
    cases = {
        "Shift_JIS": ((b"\x81\xfd" + pad.encode()) * 500, DecodeResult(("\ufffd" + pad) * 500, 500)),
        "EUC-KR": ((b"\xc9\xa1" + pad.encode()) * 300, DecodeResult(("\ufffd" + pad) * 300, 300)),
        "gb18030": ((b"\x81\x30" + pad.encode()) * 200, DecodeResult(("\ufffd0" + pad) * 200, 200)),
    }
    failures: list[str] = []

    def work(encoding: str) -> None:
        body, expected = cases[encoding]
        for _ in range(50):
            if decode(body, encoding) != expected:
                failures.append(encoding)

    threads = [threading.Thread(target=work, args=(e,)) for e in cases for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
