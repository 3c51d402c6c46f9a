"""MIME Sniffing Standard §7: the computed MIME type, and §7.1 for resources without one."""

from __future__ import annotations

import pytest

from pipeline.http.mime_sniff import (
    computed_mime_type,
    has_binary_data_byte,
    identify_unknown_mime_type,
)

UNKNOWN_CASES = [
    # §7.1 step 1: HTML signatures, case-insensitive, after whitespace, ended by SP or ">"
    (b"<!DOCTYPE HTML>", "text/html"),
    (b"\t\r\n <!doctype html>", "text/html"),
    (b"<html lang=en>", "text/html"),
    (b"<HEAD>", "text/html"),
    (b"<script>x</script>", "text/html"),
    (b"<iframe src=x>", "text/html"),
    (b"<h1>t</h1>", "text/html"),
    (b"<div>", "text/html"),
    (b"<font>", "text/html"),
    (b"<table>", "text/html"),
    (b"<a href=x>", "text/html"),
    (b"<style>", "text/html"),
    (b"<title>", "text/html"),
    (b"<b>", "text/html"),
    (b"<body>", "text/html"),
    (b"<br>", "text/html"),
    (b"<p>", "text/html"),
    (b"<!-- c -->", "text/html"),
    # a tag name must be followed by a tag-terminating byte: "<bx" is not "<b"
    (b"<bx>", "text/plain"),
    (b"<htmlx>", "text/plain"),
    (b"<?xml version=\"1.0\"?>", "text/xml"),
    (b"%PDF-1.7\n", "application/pdf"),
    # step 2
    (b"%!PS-Adobe-3.0", "application/postscript"),
    (b"\xfe\xff\x00<", "text/plain"),
    (b"\xff\xfe<\x00", "text/plain"),
    (b"\xef\xbb\xbf<p>", "text/plain"),  # the BOM row comes after the HTML rows, no WS skip
    # steps 3-5: image, audio/video, archive signatures
    (b"\x89PNG\r\n\x1a\n\x00\x00", "image/png"),
    (b"GIF87a\x01\x00", "image/gif"),
    (b"\xff\xd8\xff\xe0", "image/jpeg"),
    (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"),
    (b"RIFF\x00\x00\x00\x00WAVE", "audio/wave"),
    (b"ID3\x03", "audio/mpeg"),
    (b"PK\x03\x04\x14\x00", "application/zip"),
    (b"\x1f\x8b\x08\x00", "application/x-gzip"),
    # step 6 and 7
    (b"plain words, tabs\t and form feeds \x0c and ESC \x1b", "text/plain"),
    (b"text then a NUL \x00", "application/octet-stream"),
    (b"", "text/plain"),
]


@pytest.mark.parametrize(("header", "expected"), UNKNOWN_CASES, ids=[repr(c[0][:14]) for c in UNKNOWN_CASES])
def test_rules_for_identifying_an_unknown_mime_type(header: bytes, expected: str) -> None:
    assert identify_unknown_mime_type(header) == expected


def test_without_sniff_scriptable_html_is_plain_text() -> None:
    # §7.1: the HTML rows only run when the sniff-scriptable flag is set (no nosniff)
    assert identify_unknown_mime_type(b"<html>", sniff_scriptable=False) == "text/plain"


def test_only_the_first_1445_bytes_count() -> None:
    assert identify_unknown_mime_type(b"a" * 1445 + b"\x00") == "text/plain"


def test_binary_data_bytes_are_exactly_the_spec_ranges() -> None:
    binary = set(range(0x00, 0x09)) | {0x0B} | set(range(0x0E, 0x1B)) | set(range(0x1C, 0x20))
    for b in range(256):
        assert has_binary_data_byte(bytes([b])) == (b in binary), hex(b)


@pytest.mark.parametrize(("content_type", "body", "expected"), [
    ("text/html; charset=Shift_JIS", b"\x00\x01", ("text/html", False)),  # supplied type wins
    ("Application/XHTML+XML", b"<html>", ("application/xhtml+xml", False)),
    (None, b"<html><p>", ("text/html", True)),
    ("", b"<html><p>", ("text/html", True)),  # unparsable = undefined
    ("garbage", b"just text", ("text/plain", True)),
    ("unknown/unknown", b"<p>x", ("text/html", True)),
    ("application/unknown", b"<p>x", ("text/html", True)),
    ("*/*", b"\x00", ("application/octet-stream", True)),
    ("image/png", b"<html>", ("image/png", False)),
    # §7 step 3, the check-for-apache-bug flag: text/plain on binary bytes is sniffed
    ("text/plain; charset=ISO-8859-1", b"\x00\x01\x02", ("application/octet-stream", True)),
    ("text/plain; charset=UTF-8", b"plain", ("text/plain", False)),
    ("text/plain;charset=UTF-8", b"\x00\x01", ("text/plain", False)),  # not byte-exact: no check
])
def test_computed_mime_type(content_type: str | None, body: bytes, expected: tuple[str, bool]) -> None:
    assert computed_mime_type(content_type, body) == expected


def test_nosniff_keeps_the_supplied_type_and_stops_html_sniffing() -> None:
    assert computed_mime_type("text/plain", b"\x00\x01", no_sniff=True) == ("text/plain", False)
    assert computed_mime_type(None, b"<html>", no_sniff=True) == ("text/plain", True)


def test_feeds_served_as_html_stay_html() -> None:
    # DEVIATION: no feed sniffing for text/html (an RSS feed served as text/html is text)
    assert computed_mime_type("text/html", b"<?xml version='1.0'?><rss>") == ("text/html", False)


def test_mp4_without_its_own_algorithm_is_still_binary() -> None:
    # DEVIATION: no MP4 signature algorithm; the binary-data-byte test makes it non-text
    mp4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
    assert identify_unknown_mime_type(mp4) == "application/octet-stream"
