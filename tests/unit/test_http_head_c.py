"""The compiled head split (pipeline/http/_head.c) against its oracle,
``tests/oracles/http_head.py``: the same ResponseHead (status, status line, fields, body start, notes
in order) on every block of the 42 WARC samples and the fixtures, on generated heads (bare
LF, CR CR LF, obs-fold, duplicate fields, odd whitespace, lines without a colon) and at the
caps; and the same HttpResponse from parse_response either way."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.errors import RecordError
from pipeline.http import HttpResponse, message, parse_response, select
from pipeline.http import parse as http_parse
from pipeline.http.message import parse_head
from pipeline.sources import iter_records
from pipeline.sources.record import RawRecord
from tests.oracles import http_head
from tests.oracles.http_head import MAX_FIELD_LINE, MAX_HEAD

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "warc"


def _same(block: bytes) -> message.ResponseHead | None:
    fast, reference = parse_head(block), http_head.parse_head(block)
    assert fast == reference, block[:200]
    return fast


def _blocks(folder: Path) -> list[bytes]:
    blocks = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.endswith(".md")):
        for item in iter_records(str(path)):
            if not isinstance(item, RecordError) and item.http_block:
                blocks.append(item.http_block)
    return blocks


def test_every_sample_and_fixture_block(corpus: Path) -> None:
    blocks = _blocks(corpus / "warc-samples") + _blocks(FIXTURES)
    heads = [_same(block) for block in blocks]
    parsed = [h for h in heads if h is not None]
    # 263 kept blocks, 211 HTTP heads among them: LF-only (ClueWeb09), CR CR LF, 302s
    # without a reason phrase, a head without its end, the over-cap fixture.
    assert len(blocks) >= 263 and len(parsed) >= 211
    assert any("no-header-end" in h.notes for h in parsed)
    assert any("lf-only-header-lines" in h.notes for h in parsed)
    assert any("header-section-over-cap" in h.notes for h in parsed)  # http-faults fixture


_STATUS = [b"HTTP/1.1 200 OK", b"HTTP/1.0 404", b"HTTP/2 301 ", b"HTTP/1.1 \t 200\t",
           b"HTTP/1.1 2000", b"HTTPX/1.1 200", b"HTTP/1. 200", b"HTTP/1.1 abc", b"HTTP/1.1 200\r",
           b"HTTP/9.9 999 x", b"http/1.1 200", b"HTTP/1.1 20", b" HTTP/1.1 200", b"HTTP/11 200"]
_EOL = [b"\r\n", b"\n", b"\r\r\n", b"\r", b""]
_FIELDS = [b"Content-Type: text/html", b"content-type:text/plain", b"Set-Cookie: a=b",
           b"Set-Cookie : c", b"X-Empty:", b"X-Sp: \t v \t", b" folded more", b"\tfolded tab",
           b"no colon here", b":no name", b"A:b:c", b"X-Bin: \x00\xff\xe6\x97\xa5", b"   ",
           b"Transfer-Encoding: chunked", b"\r", b"K:\rv"]


@given(st.sampled_from(_STATUS), st.lists(st.tuples(st.sampled_from(_FIELDS), st.sampled_from(_EOL)),
                                          max_size=12),
       st.sampled_from(_EOL), st.sampled_from(_EOL), st.binary(max_size=40))
@settings(max_examples=3000, deadline=None)
def test_generated_heads(status: bytes, fields: list[tuple[bytes, bytes]], eol: bytes, end: bytes,
                         body: bytes) -> None:
    block = status + eol + b"".join(f + e for f, e in fields) + end + body
    _same(block)


@given(st.binary(max_size=300))
@settings(max_examples=3000, deadline=None)
def test_random_bytes_after_a_status_line(rest: bytes) -> None:
    _same(b"HTTP/1.1 200 OK\r\n" + rest)
    _same(b"HTTP/1.1 200" + rest)
    _same(rest)


@pytest.mark.parametrize("block", [
    # a field line over MAX_FIELD_LINE, in CRLF and LF heads
    b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * MAX_FIELD_LINE + b"\r\nA: b\r\n\r\n<p>",
    b"HTTP/1.1 200 OK\nA: b\nX-Big: " + b"a" * MAX_FIELD_LINE + b"\n\n<p>",
    # exactly at the field-line cap (kept) and one over (dropped)
    b"HTTP/1.1 200 OK\r\nX: " + b"a" * (MAX_FIELD_LINE - 3) + b"\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nX: " + b"a" * (MAX_FIELD_LINE - 2) + b"\r\n\r\n",
    # a header section over MAX_HEAD: the lines past it dropped, one cut in the middle
    b"HTTP/1.1 200 OK\r\n" + b"X-Many: " + b"b" * 1000 + b"\r\n" * 1 + (b"Y: " + b"c" * 1000 + b"\r\n") * 1100
    + b"\r\nbody",
    # a header section over MAX_HEAD with no LF at all in its first MiB
    b"HTTP/1.1 200 OK\r\n" + b"z" * (MAX_HEAD + 10) + b"\r\n\r\nbody",
    # no LF in the first MiB: the whole block is the status line
    b"HTTP/1.1 200 OK " + b"x" * MAX_HEAD,
    b"HTTP/1.1" + b" " * (MAX_HEAD + 5) + b"200\n",
    b"HTTP/1.1" + b" " * (MAX_HEAD + 5) + b"200\r\n",
    # the end of the head past MAX_HEAD (body start still found)
    b"HTTP/1.1 200 OK\n" + b"A: b\n" * (MAX_HEAD // 5 + 3) + b"\nbody",
    # CR CR LF head end, and an empty line made of CRs between LFs
    b"HTTP/1.0 302 \r\r\nLocation: /x\r\r\n\r\r\nbody",
    b"HTTP/1.1 200 OK\n\r\r\r\nbody",
    b"HTTP/1.1 200 OK\r\n\r\n",
    b"HTTP/1.1 200 OK",
    b"HTTP/1.1 200 OK\r\n",
    b"HTTP/1.1 200 OK\r\nA: b",
])
def test_caps_and_edges(block: bytes) -> None:
    _same(block)


def test_obs_fold_and_duplicates_kept_in_order() -> None:
    head = _same(b"HTTP/1.1 200 OK\r\nA: 1\r\n  two\r\n\tthree \r\na: 4\r\nno colon\r\nB:\r\n\r\n")
    assert head is not None
    assert head.headers == ((b"A", b"1 two three"), (b"a", b"4"), (b"B", b""))
    assert head.notes == ("header-line-without-colon",)


def test_notes_keep_the_order_they_are_met() -> None:
    # LF-only first, then a line without a colon, then one over the field-line cap
    block = b"HTTP/1.1 200 OK\nx\nY: " + b"y" * MAX_FIELD_LINE + b"\n\nbody"
    head = _same(block)
    assert head is not None
    assert head.notes == ("lf-only-header-lines", "header-line-without-colon", "header-section-over-cap")


# parse_response end to end, with the compiled head split and with the oracle's.
def _responses(records: list[RawRecord], monkeypatch: pytest.MonkeyPatch) -> list[object]:
    fast = [parse_response(r) for r in records]
    with monkeypatch.context() as m:
        m.setattr(http_parse, "parse_head", http_head.parse_head)
        reference = [parse_response(r) for r in records]
    assert fast == reference
    return fast


def _response_record(block: bytes) -> RawRecord:
    return RawRecord("f.warc", 0, len(block), "<urn:uuid:1>", "response", "http://x.test/", None,
                     block, warc_content_type="application/http;msgtype=response")


def test_parse_response_same_on_samples(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = []
    for folder in (corpus / "warc-samples", FIXTURES):
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.endswith(".md")):
            records += [r for r in iter_records(str(path))
                        if not isinstance(r, RecordError) and select(r) is None]
    responses = _responses(records, monkeypatch)
    assert sum(isinstance(r, HttpResponse) for r in responses) >= 211


_BODIES = [b"<p>x", b"", gzip.compress(b"<p>zipped", mtime=0), b"4\r\nWiki\r\n0\r\n\r\n", b"\x89PNG\r\n\x1a\n"]
_MORE_FIELDS = [b"Content-Encoding: gzip", b"Transfer-Encoding: gzip, chunked", b"Content-Length: 99",
                b"X-Content-Type-Options: nosniff", b"Content-Type: text/plain", b"Content-Type: */*",
                b"Content-Type:", b"content-type: image/png"]


@given(st.sampled_from(_STATUS[:4]), st.lists(st.tuples(st.sampled_from(_FIELDS + _MORE_FIELDS),
                                                       st.sampled_from(_EOL)), max_size=8),
       st.sampled_from(_EOL), st.sampled_from(_BODIES))
@settings(max_examples=1500, deadline=None)
def test_parse_response_same_on_generated(status: bytes, fields: list[tuple[bytes, bytes]], eol: bytes,
                                          body: bytes) -> None:
    block = status + eol + b"".join(f + e for f, e in fields) + eol + body
    with pytest.MonkeyPatch.context() as monkeypatch:
        _responses([_response_record(block)], monkeypatch)
