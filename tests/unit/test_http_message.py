"""Status line and header fields kept as raw bytes, with the leniencies archives need."""

from __future__ import annotations

import pytest

from pipeline.http.message import get_all, get_combined, parse_head


def test_crlf_head_and_body_offset() -> None:
    block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-A:  spaced \t\r\n\r\n<p>"
    head = parse_head(block)
    assert head is not None
    assert head.status == 200 and head.status_line == b"HTTP/1.1 200 OK"
    assert head.headers == ((b"Content-Type", b"text/html"), (b"X-A", b"spaced"))
    assert block[head.body_start :] == b"<p>"
    assert head.notes == ()


def test_lf_only_header_lines_are_tolerated_and_noted() -> None:
    # DEVIATION: ClueWeb09 stores LF-only header lines
    head = parse_head(b"HTTP/1.0 200 OK\nContent-Type: text/html; charset=EUC-JP\n\nbody")
    assert head is not None
    assert head.headers == ((b"Content-Type", b"text/html; charset=EUC-JP"),)
    assert head.notes == ("lf-only-header-lines",)


def test_cr_cr_lf_line_ends() -> None:
    head = parse_head(b"HTTP/1.0 302 \r\r\nLocation: /x\r\r\n\r\r\nbody")
    assert head is not None and head.status == 302 and head.headers == ((b"Location", b"/x"),)


def test_status_line_without_reason_phrase() -> None:
    head = parse_head(b"HTTP/1.1 404\r\n\r\n")
    assert head is not None and head.status == 404 and head.headers == ()


def test_obs_fold_joins_with_one_space() -> None:
    head = parse_head(b"HTTP/1.1 200 OK\r\nX-Long: a\r\n  b\r\n\tc\r\n\r\n")
    assert head is not None and head.headers == ((b"X-Long", b"a b c"),)


def test_line_without_colon_is_dropped_and_noted() -> None:
    # DEVIATION: a field line without a colon is dropped, the message is kept
    head = parse_head(b"HTTP/1.1 200 OK\r\ngarbage line\r\nA: b\r\n\r\n")
    assert head is not None and head.headers == ((b"A", b"b"),)
    assert "header-line-without-colon" in head.notes


def test_non_ascii_header_bytes_stay_bytes() -> None:
    head = parse_head(b"HTTP/1.1 200 OK\r\nContent-Disposition: attachment; filename=\xe6\x97\xa5.html\r\n\r\n")
    assert head is not None and head.headers[0][1] == b"attachment; filename=\xe6\x97\xa5.html"


def test_head_without_end_keeps_fields_and_has_no_body() -> None:
    block = b"HTTP/1.1 200 OK\r\nContent-Length: 0"
    head = parse_head(block)
    assert head is not None and head.body_start == len(block)
    assert head.headers == ((b"Content-Length", b"0"),) and head.notes == ("no-header-end",)


@pytest.mark.parametrize("block", [b"", b"<html>", b"HTTPX/1.1 200 OK\r\n\r\n", b"HTTP/1.1 abc\r\n\r\n", b"\n"])
def test_no_status_line(block: bytes) -> None:
    assert parse_head(block) is None


def test_repeated_headers_are_all_kept_and_combined() -> None:
    head = parse_head(b"HTTP/1.1 200 OK\r\nSet-Cookie: a\r\nset-cookie: b\r\n\r\n")
    assert head is not None
    assert get_all(head.headers, b"Set-Cookie") == [b"a", b"b"]
    assert get_combined(head.headers, b"SET-COOKIE") == b"a, b"
    assert get_combined(head.headers, b"content-type") is None
