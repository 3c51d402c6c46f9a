"""Chromium's meta scan (Blink HTMLMetaCharsetParser) and XML declaration check."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.encoding.sniff.late_meta import (
    MAX_TOKENS,
    _CommentEnds,
    extract_charset,
    scan_meta_charset,
)
from pipeline.encoding.sniff.xml_declaration import check_xml_declaration

PAD = b"<!--" + b"x" * 2000 + b"-->"  # pushes what follows past byte 1024


def _scan(body: bytes) -> str | None:
    found = scan_meta_charset(body)
    return None if found is None else found.encoding


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (PAD + b"<meta charset=koi8-r>", "KOI8-R"),  # late, still in head
        (b"<html><head><title>t</title>" + PAD + b"<meta charset=koi8-r>", "KOI8-R"),
        (b"<link rel=x><script>x</script><style>y</style>" + PAD + b"<meta charset=koi8-r>", "KOI8-R"),
        (b"<head></head>" + PAD + b"<meta charset=koi8-r>", None),  # </head> leaves the head
        (b"<body>" + PAD + b"<meta charset=koi8-r>", None),
        (b"<custom-element>" + PAD + b"<meta charset=koi8-r>", None),  # unknown tags leave it too
        (b"<body><meta charset=koi8-r>", "KOI8-R"),  # out of head but within 1024 bytes
        (b"text in head does not end it" + PAD + b"<meta charset=koi8-r>", "KOI8-R"),
        (b"<script><meta charset=koi8-r></script>", None),  # script data is not markup
        (b"<style><meta charset=koi8-r></style>", None),
        (b"<title><meta charset=koi8-r></title>", None),  # RCDATA
        (b"<textarea><meta charset=koi8-r></textarea>", None),
        (b"<noscript><meta charset=koi8-r></noscript>", "KOI8-R"),  # scripting off: markup
        (b"<script>a</SCRIPT ><meta charset=koi8-r>", "KOI8-R"),
        (b"<!-- <meta charset=gbk> --><meta charset=koi8-r>", "KOI8-R"),
        (b"<!--><meta charset=koi8-r>", "KOI8-R"),  # abrupt comment close
        (b"<!-- a --!><meta charset=koi8-r>", "KOI8-R"),
        (b'<p title="<meta charset=gbk>"><meta charset=koi8-r>', "KOI8-R"),
        (b"<meta charset=bogus><meta charset=koi8-r>", "KOI8-R"),  # invalid: keep looking
        (b"<meta http-equiv=content-type content='text/html; charset=koi8-r'>", "KOI8-R"),
        (b"<meta content='text/html; charset=koi8-r'>", None),  # no pragma
        (b"<meta content='text/html; charset=gbk' charset=koi8-r http-equiv=content-type>", "GBK"),
        (b"<meta charset=x-user-defined>", "windows-1252"),
        (b"<meta charset=utf-16>", "UTF-8"),
        (b'<meta charset="koi8-r', None),  # the tag runs to the end
        (b"<meta charset=&#107;oi8-r>", "KOI8-R"),  # character references are decoded
        (b"<plaintext><meta charset=koi8-r>", None),
    ],
    ids=[
        "late-in-head", "after-title", "head-tags", "after-end-head", "after-body", "unknown-tag",
        "body-within-1024", "text-keeps-head", "in-script", "in-style", "in-title", "in-textarea",
        "in-noscript", "script-end-tag-case", "comment", "abrupt-comment", "comment-bang",
        "in-attribute", "bogus-then-good", "http-equiv", "no-pragma", "first-of-content-or-charset",
        "x-user-defined", "utf16", "unterminated", "char-ref", "plaintext",
    ],
)
def test_scan_meta_charset(body: bytes, expected: str | None) -> None:
    assert _scan(body) == expected


def test_scan_reports_position_and_head_state() -> None:
    found = scan_meta_charset(PAD + b"<meta charset=koi8-r>")
    assert found is not None
    assert found.offset == len(PAD) and found.in_head and found.end == len(PAD) + 21


def test_deviation_script_double_escape_not_modelled() -> None:
    # DEVIATION: script data ends at the first "</script" even inside "<!--<script>": Blink's
    # tokenizer would stay in the double-escaped state and not see this meta.
    body = b"<script><!--<script></script><meta charset=koi8-r></script>-->"
    assert _scan(body) == "KOI8-R"


def test_deviation_only_numeric_and_basic_named_references() -> None:
    # DEVIATION: "&nbsp;"-style named references other than amp/quot/apos/lt/gt stay as written
    assert _scan(b"<meta charset=&#x4b;OI8-R>") == "KOI8-R"
    assert _scan(b"<meta charset=koi8&hyphen;r>") is None


def test_deviation_token_cap() -> None:
    # DEVIATION: the scan gives up after MAX_TOKENS tags in <head>
    assert _scan(b"<link>" * (MAX_TOKENS - 1) + b"<meta charset=koi8-r>") == "KOI8-R"
    assert _scan(b"<link>" * (MAX_TOKENS + 1) + b"<meta charset=koi8-r>") is None


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("text/html; charset=koi8-r", "koi8-r"),
        ("text/html; charset = 'koi8-r'", "koi8-r"),
        ('charset="koi8-r', ""),
        ("text/html; charset=koi8-r'", "koi8-r"),  # unquoted value stops at a quote
        ("text/html", ""),
    ],
    ids=["plain", "quoted", "unclosed", "stray-quote", "none"],
)
def test_extract_charset(content: str, expected: str) -> None:
    assert extract_charset(content) == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'<?xml version="1.0" encoding="koi8-r"?><rss/>', ("KOI8-R", "xml-declaration")),
        (b'<?xml version="1.0" encoding="bogus"?><rss/>', (None, "xml-declaration")),
        (b'<?xml version="1.0" encoding="utf-16"?><rss/>', ("UTF-8", "xml-declaration")),
        ('<?xml version="1.0"?>'.encode("utf-16-be"), ("UTF-16BE", "xml-utf16")),
        (b'<?xml encoding="gbk"', None),  # no ">": not (yet) a declaration
        (b"<?xml", None),  # shorter than 8 bytes
        (b'\n<?xml version="1.0" encoding="koi8-r"?>', None),  # must be at the very start
    ],
    ids=["label", "unknown-label", "utf16-to-utf8", "utf16be-no-bom", "no-end", "too-short", "not-first"],
)
def test_check_xml_declaration(body: bytes, expected: tuple[str | None, str] | None) -> None:
    found = check_xml_declaration(body)
    assert (None if found is None else (found.encoding, found.kind)) == expected


def test_xml_declaration_end_may_lie_past_1024() -> None:
    # Chromium reads the declaration whatever its length (the standard's prescan would not)
    body = b'<?xml version="1.0" ' + b" " * 2000 + b'encoding="koi8-r"?><rss/>'
    found = check_xml_declaration(body)
    assert found is not None and found.encoding == "KOI8-R"


# --- shortcuts that end the scan early: they must not change an answer ---------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # out of <head> before byte 1024: only a <meta> starting before 1024 can still answer
        (b"<body>" + b"x" * 1000 + b"<meta charset=koi8-r>", "KOI8-R"),  # starts at 1006
        (b"<body>" + b"x" * 1017 + b"<meta charset=koi8-r>", "KOI8-R"),  # starts at 1023
        (b"<body>" + b"x" * 1017 + b"<META/charset=koi8-r>", "KOI8-R"),
        (b"<body>" + b"x" * 1018 + b"<meta charset=koi8-r>", None),  # starts at 1024
        (b"<body><p>" + b"x" * 500, None),
        (b"<body><textarea><meta charset=koi8-r></textarea>", None),
        # in <head> past byte 1024: a charset can still come as "charset" in any case or
        # through numeric references to its letters
        (b"<title>t</title>" + b"<link>" * 200 + b"<meta CharSet=koi8-r>", "KOI8-R"),
        (b"<link>" * 200 + b"<meta content='text/html; &#99;harset=koi8-r' http-equiv=content-type>", "KOI8-R"),
        (b"<link>" * 200 + b"<meta content='text/html; ch&#x0041;rset=koi8-r' http-equiv=content-type>", "KOI8-R"),
        (b"<link>" * 200 + b"<meta c&#104;arset=koi8-r>", None),  # attribute names take no references
        (b"<link>" * 200 + b"<meta name=x content=y>", None),
    ],
)
def test_scan_shortcuts_keep_the_answer(body: bytes, expected: str | None) -> None:
    assert _scan(body) == expected


# --- comments: each ending searched for once per stretch of the document -------------------


def _first_end(data: bytes, start: int) -> int:
    """The comment end states' answer, the plain way: just past the first "-->" or "--!>"."""
    ends = [i + len(e) for e in (b"-->", b"--!>") if (i := data.find(e, start)) >= 0]
    return min(ends) if ends else -1


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"-", b"!", b">", b"--", b"-->", b"--!>", b"x", b"<!--"]), max_size=40),
       st.lists(st.integers(0, 200), max_size=12))
def test_comment_ends_are_the_first_ending_from_every_start(parts: list[bytes], starts: list[int]) -> None:
    data = b"".join(parts)
    ends = _CommentEnds(data)
    for start in sorted(s for s in starts if s <= len(data)):  # the scan only moves forward
        assert ends.after(start) == _first_end(data, start)


def test_a_head_of_many_comments_reads_the_document_at_most_once() -> None:
    # Searching the rest for both endings at every comment took this page 102 s to decode
    # (the "--!>" that never comes looked for 4,000 times over 10 MB); searching it once a
    # page still read every page's rest once.
    class Counted(bytes):
        """Bytes that count the bytes a search for a comment ending goes through."""

        examined = 0

        def find(self, sub, start=0, end=None):  # type: ignore[no-untyped-def, override]
            found = super().find(sub, start, len(self) if end is None else end)
            if sub in (b"-->", b"--!>"):
                stop = found + len(sub) if found >= 0 else (len(self) if end is None else end)
                Counted.examined += stop - start
            return found

    for comment in (b"<!-- x -->", b"<!-- x --!>"):
        data = b"<head>" + comment * 4_000 + b"<meta charset=koi8-r>" + b"a" * 10_000_000
        Counted.examined = 0
        ends = _CommentEnds(Counted(data))
        start = 0
        while (start := data.find(b"<!--", start)) >= 0:
            start = ends.after(start + 4)
        # comments closed by "-->": no search goes past the comments (each is searched for
        # both endings); closed by "--!>": the absent "-->" is looked for through the rest of
        # the document once
        head = len(b"<head>") + 4_000 * len(comment)
        assert 0 < Counted.examined <= (2 * head if comment.endswith(b"-->") else len(data) + head)
        assert _scan(data) == "KOI8-R"
