"""HTML Standard prescan, get an attribute, meta content extraction, get an XML encoding, and BOM sniff."""

from __future__ import annotations

import pytest

from pipeline.encoding.sniff.bom import bom_sniff
from pipeline.encoding.sniff.prescan import (
    extract_encoding_from_meta,
    get_an_xml_encoding,
    prescan_byte_stream,
)


def _prescan(body: bytes) -> str | None:
    found = prescan_byte_stream(body)
    return None if found is None else found.encoding


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'<meta charset="koi8-r">', "KOI8-R"),
        (b"<META CHARSET=KOI8-R>", "KOI8-R"),
        (b"<meta/charset=koi8-r>", "KOI8-R"),  # "/" after "meta" starts the attributes
        (b"<metacharset=koi8-r>", None),  # no space or slash after "meta": another tag
        (b'<meta http-equiv="content-type" content="text/html; charset=koi8-r">', "KOI8-R"),
        (b'<meta content="text/html; charset=koi8-r" http-equiv="Content-Type">', "KOI8-R"),
        (b'<meta content="text/html; charset=koi8-r">', None),  # need pragma, no pragma
        (b'<meta http-equiv="Content-Type ">', None),  # no charset at all
        (b'<meta charset="utf-16le">', "UTF-8"),  # UTF-16 from meta means UTF-8
        (b'<meta charset="x-user-defined">', "windows-1252"),
        (b'<meta charset="bogus"><meta charset="koi8-r">', "KOI8-R"),  # failure: next meta
        (b'<meta charset="koi8-r" charset="gbk">', "KOI8-R"),  # duplicate attribute ignored
        (b'<meta content="text/html; charset=gbk" charset="koi8-r" http-equiv=content-type>', "KOI8-R"),
        (b'<!-- <meta charset="gbk"> --><meta charset="koi8-r">', "KOI8-R"),
        (b'<!--><meta charset="koi8-r">', "KOI8-R"),  # "<!-->" ends at once (shared dashes)
        (b'<!-- <meta charset="gbk">', None),  # unterminated comment swallows the rest
        (b'<p title="<meta charset=gbk>"><meta charset="koi8-r">', "KOI8-R"),  # inside attribute
        (b'<p title="x><meta charset=gbk>', None),
        (b'<!DOCTYPE html><meta charset="koi8-r">', "KOI8-R"),
        (b'<?php x ?><meta charset="koi8-r">', "KOI8-R"),
        (b'</ x><meta charset="koi8-r">', "KOI8-R"),  # "</" not followed by a letter: skip to ">"
        (b'<script><meta charset="koi8-r"></script>', "KOI8-R"),  # the prescan knows no script
        (b'<meta charset="koi8-r', None),  # runs off the end
        (b" " * 1020 + b'<meta charset="koi8-r">', None),  # the meta ends after byte 1024
        (b" " * 990 + b'<meta charset="koi8-r">', "KOI8-R"),
    ],
    ids=[
        "charset", "uppercase", "slash-after-meta", "metacharset", "http-equiv", "http-equiv-after",
        "content-without-pragma", "pragma-without-content", "utf16-becomes-utf8",
        "x-user-defined-becomes-1252", "bogus-then-good", "duplicate-attribute",
        "charset-beats-content", "comment-skipped", "empty-comment", "unterminated-comment",
        "meta-in-attribute-value", "open-attribute-swallows", "doctype", "processing-instruction",
        "end-tag-open-nonletter", "script-not-special", "truncated", "beyond-1024", "within-1024",
    ],
)
def test_prescan(body: bytes, expected: str | None) -> None:
    assert _prescan(body) == expected


def test_prescan_records_label_and_kind() -> None:
    found = prescan_byte_stream(b'<meta http-equiv=Content-Type content="text/html;charset=Latin1">')
    assert found is not None
    assert (found.encoding, found.label, found.kind) == ("windows-1252", "latin1", "meta-http-equiv")


def test_prescan_utf16_xml_fallback() -> None:
    # "<?x" in UTF-16LE without a BOM: the prescan's fallback utf-16 encoding
    found = prescan_byte_stream('<?xml version="1.0"?><a/>'.encode("utf-16-le"))
    assert found is not None and (found.encoding, found.kind) == ("UTF-16LE", "xml-utf16")


def test_prescan_meta_beats_xml_declaration() -> None:
    body = b'<?xml version="1.0" encoding="gbk"?><html><meta charset="koi8-r">'
    assert _prescan(body) == "KOI8-R"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("text/html; charset=koi8-r", ("KOI8-R", "koi8-r")),
        ("text/html; CHARSET = koi8-r", ("KOI8-R", "koi8-r")),
        ("text/html; charset='koi8-r'", ("KOI8-R", "koi8-r")),
        ('text/html; charset="koi8-r', (None, None)),  # unmatched quote: nothing
        ("text/html; charset=", (None, None)),  # no next character: nothing
        ("charset;charset=koi8-r", ("KOI8-R", "koi8-r")),  # first "charset" has no "=": loop
        ("text/html; charset=koi8-r;x", ("KOI8-R", "koi8-r")),
        ("text/html; charset=bogus", (None, "bogus")),
    ],
    ids=["plain", "spaces-and-case", "quoted", "unmatched-quote", "empty", "loop", "semicolon", "unknown"],
)
def test_extract_encoding_from_meta(content: str, expected: tuple[str | None, str | None]) -> None:
    assert extract_encoding_from_meta(content) == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'<?xml version="1.0" encoding="koi8-r"?>', "KOI8-R"),
        (b"<?xml version='1.0' encoding = 'koi8-r'?>", "KOI8-R"),
        (b'<?xml version="1.0" encoding="utf-16"?>', "UTF-8"),
        (b'<?xml version="1.0"?>', None),
        (b'<?xml version="1.0" encoding="koi8 r"?>', None),  # a byte <= 0x20 in the label
        (b'<?xml version="1.0" encoding="koi8-r"', None),  # no ">"
        (b' <?xml version="1.0" encoding="koi8-r"?>', None),  # not at the very start
    ],
    ids=["double", "single-spaces", "utf16-to-utf8", "no-encoding", "space-in-label", "no-end", "not-first"],
)
def test_get_an_xml_encoding(body: bytes, expected: str | None) -> None:
    assert get_an_xml_encoding(body)[0] == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"\xef\xbb\xbfx", ("UTF-8", 3)),
        (b"\xfe\xffx", ("UTF-16BE", 2)),
        (b"\xff\xfex", ("UTF-16LE", 2)),
        (b"\xff\xfe\x00\x00", ("UTF-16LE", 2)),  # no UTF-32 in the Encoding Standard
        (b"\xef\xbb", (None, 0)),
        (b"", (None, 0)),
    ],
    ids=["utf8", "utf16be", "utf16le", "utf32le-is-utf16le", "truncated-utf8-bom", "empty"],
)
def test_bom_sniff(body: bytes, expected: tuple[str | None, int]) -> None:
    assert bom_sniff(body) == expected
