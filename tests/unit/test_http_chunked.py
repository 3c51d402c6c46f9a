"""De-chunking (RFC 9112 §7.1) with extensions, trailers, bad sizes, truncation, and the
fallback for bodies stored already de-chunked under a chunked header."""

from __future__ import annotations

import pytest

from pipeline.http.chunked import dechunk


def test_chunks_with_extensions_and_trailers() -> None:
    data = b"5;name=value;q=\"x\"\r\nHello\r\n7 ; ext\r\n, world\r\n0;last\r\nTrailer: 1\r\nOther: 2\r\n\r\n"
    assert dechunk(data) == (b"Hello, world", "ok")


def test_uppercase_hex_and_leading_zeros() -> None:
    assert dechunk(b"0000A\r\n0123456789\r\n0\r\n\r\n") == (b"0123456789", "ok")


def test_lf_only_framing_is_accepted() -> None:
    # DEVIATION: bare LF accepted where RFC 9112 wants CRLF
    assert dechunk(b"3\nabc\n0\n\n") == (b"abc", "ok")


def test_body_already_dechunked_is_returned_unchanged() -> None:
    body = b"<!DOCTYPE html>\n<html><body>stored de-chunked</body></html>"
    assert dechunk(body) == (body, "not-chunked")


def test_hex_looking_first_line_without_chunk_framing_is_not_chunked() -> None:
    # "cafe" parses as hex, but no CRLF follows 0xcafe bytes: a de-chunked text body
    body = b"cafe\n" + b"x" * 60000 + b"more text"
    assert dechunk(body) == (body, "not-chunked")


def test_bad_chunk_size_after_good_chunks_keeps_every_byte() -> None:
    data = b"3\r\nabc\r\nzz\r\nrest"
    assert dechunk(data) == (b"abczz\r\nrest", "bad-framing")


@pytest.mark.parametrize("size_line", [b"-5", b"0x10", b"1 2", b"ffffffffffffffffff"])
def test_invalid_first_size_line_means_not_chunked(size_line: bytes) -> None:
    data = size_line + b"\r\nabc\r\n0\r\n\r\n"
    assert dechunk(data) == (data, "not-chunked")


def test_missing_last_chunk_is_truncated() -> None:
    assert dechunk(b"3\r\nabc\r\n4\r\ndefg\r\n") == (b"abcdefg", "truncated")


def test_chunk_cut_inside_its_data_is_truncated() -> None:
    assert dechunk(b"3\r\nabc\r\n10\r\nonly-") == (b"abconly-", "truncated")


def test_empty_body_is_not_chunked() -> None:
    assert dechunk(b"") == (b"", "not-chunked")
