"""MIME Sniffing "parse a MIME type" and Fetch "extract a MIME type": one edge case per test."""

from __future__ import annotations

import pytest

from pipeline.http.content_type import (
    charset_from_content_type,
    extract_mime_type,
    parse_mime_type,
    split_header_value,
)


@pytest.mark.parametrize(
    ("value", "essence", "parameters"),
    [
        ("text/html", "text/html", {}),
        # type and subtype are ASCII-lowercased, parameter values keep their case
        ("Text/HTML; Charset=Shift_JIS", "text/html", {"charset": "Shift_JIS"}),
        # leading and trailing HTTP whitespace is removed
        ("  text/html ;charset=utf-8 \t", "text/html", {"charset": "utf-8"}),
        # the first charset parameter wins
        ("text/html;charset=gbk;charset=utf-8", "text/html", {"charset": "gbk"}),
        # quoted strings: escapes are resolved and ';' inside quotes is data
        ('text/html;charset="a\\"b;c"', "text/html", {"charset": 'a"b;c'}),
        # text after the closing quote is dropped
        ('text/html;charset="utf-8"junk;x=y', "text/html", {"charset": "utf-8", "x": "y"}),
        # an unterminated quoted string runs to the end
        ('text/html;charset="utf-8', "text/html", {"charset": "utf-8"}),
        # whitespace before "=" makes the name "charset " which is not a token: ignored
        ("text/html;charset =utf-8", "text/html", {}),
        # whitespace after "=" is kept in the value (get an encoding trims it later)
        ("text/html;charset= utf-8", "text/html", {"charset": " utf-8"}),
        # an empty unquoted value is skipped, and a later charset can then win
        ("text/html;charset=;charset=koi8-r", "text/html", {"charset": "koi8-r"}),
        # a parameter without "=" is skipped
        ("text/html;charset;charset=koi8-r", "text/html", {"charset": "koi8-r"}),
        # parameter names are lowercased
        ("text/html;CHARSET=koi8-r", "text/html", {"charset": "koi8-r"}),
        # an empty quoted string is a value (the empty string)
        ('text/html;charset=""', "text/html", {"charset": ""}),
    ],
    ids=[
        "plain", "case", "whitespace", "first-charset-wins", "quoted-escapes", "after-quote",
        "unterminated-quote", "space-before-equals", "space-after-equals", "empty-value-skipped",
        "no-equals-skipped", "name-lowercased", "empty-quoted",
    ],
)
def test_parse_mime_type(value: str, essence: str, parameters: dict[str, str]) -> None:
    mime = parse_mime_type(value)
    assert mime is not None
    assert mime.essence == essence
    assert mime.parameters == parameters


@pytest.mark.parametrize(
    "value",
    ["", "text", "text/", "/html", "te xt/html", "text/ht ml", "text/html\x00", "текст/html"],
    ids=["empty", "no-slash", "no-subtype", "no-type", "space-in-type", "space-in-subtype", "nul", "non-ascii"],
)
def test_parse_mime_type_failure(value: str) -> None:
    # not a MIME type: failure, never an exception
    assert parse_mime_type(value) is None


def test_split_header_value_respects_quotes() -> None:
    # a comma inside a quoted string does not split
    assert split_header_value('a;b="x,y" , c') == ['a;b="x,y"', "c"]


def test_extract_mime_type_last_value_wins() -> None:
    # several Content-Type values: the last one that parses wins
    assert extract_mime_type("text/plain, text/html").essence == "text/html"


def test_extract_mime_type_charset_carried_over_same_essence() -> None:
    # same essence, the later value has no charset: the earlier charset is kept
    assert charset_from_content_type("text/html;charset=gbk, text/html") == "gbk"


def test_extract_mime_type_charset_dropped_other_essence() -> None:
    # a different essence resets the charset
    assert charset_from_content_type("text/html;charset=gbk, text/plain") is None


def test_extract_mime_type_star_star_skipped() -> None:
    # "*/*" is skipped
    assert extract_mime_type("text/html;charset=gbk, */*").parameters == {"charset": "gbk"}


def test_extract_mime_type_unparsable_skipped() -> None:
    assert charset_from_content_type("text/html;charset=koi8-r, garbage") == "koi8-r"


def test_charset_from_content_type_none() -> None:
    assert charset_from_content_type(None) is None
    assert charset_from_content_type("") is None


def test_unknown_label_is_returned_raw() -> None:
    # the raw label is returned; resolving (and ignoring unknown labels) is the caller's job
    assert charset_from_content_type("text/html; charset=foo-bar") == "foo-bar"
