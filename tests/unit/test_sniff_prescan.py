"""HTML Standard prescan, get an attribute, meta content extraction, get an XML encoding, and BOM sniff."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# --- get an attribute: the regex against the algorithm written byte by byte ---------------

_SPACE = b"\t\n\x0c\r "


class _Ran(Exception):
    pass


def _get_an_attribute_bytewise(data: bytes, position: int) -> tuple[str, str, int] | None:
    """The HTML Standard's *get an attribute*, one byte at a time (the reference)."""

    def at(i: int) -> int:
        if i >= len(data):
            raise _Ran
        return data[i]

    def low(byte: int) -> int:
        return byte + 0x20 if 0x41 <= byte <= 0x5A else byte

    while at(position) in _SPACE + b"/":  # step 1
        position += 1
    if at(position) == 0x3E:  # step 2
        return None
    name: list[int] = []
    value: list[int] = []
    while True:  # steps 4-5
        byte = at(position)
        if byte == 0x3D and name:
            position += 1
            break
        if byte in _SPACE:  # steps 6-8
            while at(position) in _SPACE:
                position += 1
            if at(position) != 0x3D:
                return bytes(name).decode("latin-1"), "", position
            position += 1
            break
        if byte in (0x2F, 0x3E):
            return bytes(name).decode("latin-1"), "", position
        name.append(low(byte))
        position += 1
    while at(position) in _SPACE:  # step 9
        position += 1
    byte = at(position)  # step 10
    if byte in (0x22, 0x27):
        while True:
            position += 1
            if at(position) == byte:
                return bytes(name).decode("latin-1"), bytes(value).decode("latin-1"), position + 1
            value.append(low(at(position)))
    if byte == 0x3E:
        return bytes(name).decode("latin-1"), "", position
    while at(position) not in _SPACE + b">":  # steps 11-12
        value.append(low(at(position)))
        position += 1
    return bytes(name).decode("latin-1"), bytes(value).decode("latin-1"), position


_ATTRIBUTE_BYTES = st.lists(
    st.sampled_from([b" ", b"\t", b"/", b"=", b">", b'"', b"'", b"a", b"Z", b"\xe9", b"charset", b"-", b"<"]),
    max_size=24,
).map(b"".join)


@settings(max_examples=500, deadline=None)
@given(_ATTRIBUTE_BYTES, st.integers(0, 24))
def test_get_an_attribute_regex_equals_the_bytewise_algorithm(data: bytes, position: int) -> None:
    from pipeline.encoding.sniff.prescan import _End, _get_an_attribute

    position = min(position, len(data))
    try:
        expected: object = _get_an_attribute_bytewise(data, position)
    except _Ran:
        expected = "end"
    try:
        got: object = _get_an_attribute(data, position)
    except _End:
        got = "end"
    assert got == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"<a ", b"<P x=", b"</b ", b"<meta ", b"<!-- ", b"-->", b"<! ", b"<?", b"'", b'"',
                                 b">", b" ", b"/", b"=", b"charset=koi8-r", b"<", b"x"]), max_size=30).map(b"".join))
def test_other_tags_skip_like_repeated_get_an_attribute(body: bytes) -> None:
    # _OTHER_TAG_RE does steps 1-2 of the "<" + letter branch in one match: it must stop at the
    # same ">" as skipping to a space or ">" and getting attributes until none is found.
    from pipeline.encoding.sniff.prescan import _OTHER_TAG_RE

    for start in (i for i in range(len(body)) if body[i] == 0x3C):
        position = start
        while position < len(body) and body[position] not in _SPACE + b">":
            position += 1
        try:
            if position >= len(body):
                raise _Ran
            while (attribute := _get_an_attribute_bytewise(body, position)) is not None:
                position = attribute[2]
            while body[position] in _SPACE + b"/":
                position += 1
            expected: int | None = position + 1
        except _Ran:
            expected = None
        match = _OTHER_TAG_RE.match(body, start)
        assert (match.end() if match else None) == expected


def _prescan_loop_bytewise(data: bytes) -> object:
    """The prescan loop taking one "<" at a time (the reference for the regex shortcuts)."""
    from pipeline.encoding.sniff.prescan import _END, _prescan_one_meta

    def letter(i: int) -> bool:
        return i < len(data) and chr(data[i]).isascii() and chr(data[i]).isalpha()

    position = 0
    while position < len(data):
        if data[position] != 0x3C:
            position += 1
            continue
        start = position
        if data.startswith(b"<!--", position):
            end = data.find(b"-->", position + 2)
            if end < 0:
                return None
            position = end + 2
        elif data[position + 1 : position + 5].lower() == b"meta" and data[position + 5 : position + 6] in (
            b"\t", b"\n", b"\x0c", b"\r", b" ", b"/"
        ):
            found, position = _prescan_one_meta(data, position)
            if found is _END:
                return None
            if found is not None:
                return found
        elif letter(position + 1) or (data[position + 1 : position + 2] == b"/" and letter(position + 2)):
            while position < len(data) and data[position] not in _SPACE + b">":
                position += 1
            try:
                if position >= len(data):
                    raise _Ran
                while (attribute := _get_an_attribute_bytewise(data, position)) is not None:
                    position = attribute[2]
                while data[position] in _SPACE + b"/":
                    position += 1
            except _Ran:
                return None
        elif data.startswith((b"<!", b"</", b"<?"), position):
            end = data.find(b">", position + 1)
            if end < 0:
                return None
            position = end
        position = max(position, start) + 1
    return None


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([b"<a ", b"<P x=", b"</b ", b"<meta ", b"<META/", b"<!--", b"-->", b"-", b"<!", b"<?",
                                 b"</", b"'", b'"', b">", b" ", b"/", b"=", b"charset=koi8-r", b"<", b"x", b"http-equiv",
                                 b"content-type", b"content='text/html; charset=big5'"]), max_size=30).map(b"".join))
def test_prescan_loop_equals_one_construct_at_a_time(body: bytes) -> None:
    from pipeline.encoding.sniff.prescan import _prescan_meta

    assert _prescan_meta(body) == _prescan_loop_bytewise(body)
