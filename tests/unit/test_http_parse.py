"""parse_response end to end on crafted records: codings, truncation reasons, errors, MIME."""

from __future__ import annotations

import gzip

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.errors import RecordError
from pipeline.http import HttpResponse, parse_response, select_response
from pipeline.sources.record import RawRecord

PAGE = b"<!doctype html><title>t</title><p>caf\xc3\xa9</p>"


def raw(block: bytes, **kw: object) -> RawRecord:
    fields: dict[str, object] = dict(warc_filename="f.warc.gz", warc_record_offset=42, warc_record_length=99,
                                     record_id="<urn:uuid:1>", record_type="response", url="http://x.test/",
                                     fetch_time=None, http_block=block,
                                     warc_content_type="application/http;msgtype=response")
    fields.update(kw)
    return RawRecord(**fields)  # type: ignore[arg-type]


def ok(record: RawRecord, **kw: int) -> HttpResponse:
    resp = parse_response(record, **kw)
    assert isinstance(resp, HttpResponse), resp
    return resp


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n0\r\n\r\n" % (len(data), data)


def test_plain_response() -> None:
    resp = ok(raw(b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + PAGE))
    assert (resp.status, resp.mime_type, resp.mime_sniffed, resp.body) == (200, "text/html", False, PAGE)
    assert resp.content_type == "text/html; charset=utf-8" and resp.content_length == len(PAGE)
    assert resp.content_truncated is None and resp.status_line == b"HTTP/1.1 200 OK"


def test_chunked_then_gzip() -> None:
    body = chunk(gzip.compress(PAGE, mtime=0))
    resp = ok(raw(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n" + body))
    assert resp.body == PAGE and resp.codings_removed == ("chunked", "gzip")
    assert resp.mime_type == "text/html" and resp.mime_sniffed
    assert (resp.transfer_encoding, resp.content_encoding) == ("chunked", "gzip")
    assert resp.headers == ((b"Transfer-Encoding", b"chunked"), (b"Content-Encoding", b"gzip"))


def test_chunked_header_over_a_dechunked_body_keeps_the_bytes() -> None:
    # pywb's iana.org crawl: "Transfer-Encoding: chunked" over a stored de-chunked body
    resp = ok(raw(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + PAGE))
    assert resp.body == PAGE and "chunked-not-framed" in resp.http_notes and resp.codings_removed == ()


def test_gzip_header_over_a_decoded_body_keeps_the_bytes() -> None:
    # ClueWeb09: "Content-Encoding: gzip" over a body stored decoded, LF-only headers
    resp = ok(raw(b"HTTP/1.1 200 OK\nContent-Encoding: gzip\nContent-Type: text/html\n\n" + PAGE))
    assert resp.body == PAGE and resp.http_notes == ("lf-only-header-lines", "content-encoding-not-applied")


def test_common_crawl_renamed_coding_headers_are_not_applied() -> None:
    block = (b"HTTP/1.1 200 OK\r\nX-Crawler-Content-Encoding: gzip\r\nX-Crawler-Transfer-Encoding: chunked\r\n"
             b"Content-Length: %d\r\nContent-Type: text/html\r\n\r\n" % len(PAGE)) + PAGE
    resp = ok(raw(block))
    assert resp.body == PAGE and resp.codings_removed == () and resp.http_notes == ()
    assert resp.content_encoding is None and resp.content_truncated is None


def test_over_the_cap_is_an_http_error_row() -> None:
    body = gzip.compress(b"a" * 5000, mtime=0)
    err = parse_response(raw(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n" + body), max_decompressed=1000)
    assert isinstance(err, RecordError)
    assert (err.stage, err.error_type) == ("http", "http-decompressed-too-large")
    assert (err.warc_filename, err.offset, err.record_id) == ("f.warc.gz", 42, "<urn:uuid:1>")


def test_uncompressed_body_over_the_cap_is_an_error_too() -> None:
    err = parse_response(raw(b"HTTP/1.1 200 OK\r\n\r\n" + b"a" * 2000), max_decompressed=1000)
    assert isinstance(err, RecordError) and err.error_type == "http-decompressed-too-large"


def test_corrupt_compressed_body_is_an_http_error_row() -> None:
    err = parse_response(raw(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n\x1f\x8b\x08\x00" + bytes(range(256))))
    assert isinstance(err, RecordError) and err.error_type == "http-content-encoding-failed"


def test_truncation_reasons() -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
    assert ok(raw(head + b"\r\n" + PAGE, warc_truncated="length")).content_truncated == "warc-truncated:length"
    assert ok(raw(head + b"\r\n" + PAGE, block_truncated=True, block_truncation="gzip")).content_truncated == "gzip"
    shorter = head + b"Content-Length: 500\r\n\r\n" + PAGE
    assert ok(raw(shorter)).content_truncated == "http-content-length"
    cut_chunks = head + b"Transfer-Encoding: chunked\r\n\r\n" + b"5\r\nhello\r\n"
    assert ok(raw(cut_chunks)).content_truncated == "chunked"
    cut_gzip = head + b"Content-Encoding: gzip\r\n\r\n" + gzip.compress(PAGE * 20, mtime=0)[:40]
    assert ok(raw(cut_gzip)).content_truncated == "content-encoding"
    # the crawler's own WARC-Truncated comes first
    assert ok(raw(shorter, warc_truncated="time", block_truncated=True)).content_truncated == "warc-truncated:time"


def test_missing_content_type_is_sniffed() -> None:
    resp = ok(raw(b"HTTP/1.0 200 OK\r\n\r\n  <html><body>x"))
    assert (resp.mime_type, resp.mime_sniffed, resp.content_type) == ("text/html", True, None)


def test_resource_record_takes_the_warc_content_type() -> None:
    resp = ok(raw(PAGE, record_type="resource", warc_content_type="text/html; charset=utf-8", url="file:///x"))
    assert resp.status is None and resp.body == PAGE and resp.mime_type == "text/html"
    assert resp.content_type == "text/html; charset=utf-8" and resp.headers == ()


def test_response_block_that_is_not_http_is_an_error_row() -> None:
    err = parse_response(raw(b"HTTPX/1.1 200 OK\r\n\r\n" + PAGE))
    assert isinstance(err, RecordError) and err.error_type == "http-malformed-status-line"


def test_parquet_style_separate_headers() -> None:
    record = raw(gzip.compress(PAGE, mtime=0), http_status=404,
                 http_headers=((b"Content-Encoding", b"gzip"), (b"Content-Type", b"text/html")))
    resp = ok(record)
    assert resp.status == 404 and resp.body == PAGE and resp.status_line is None


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400), st.sampled_from([b"", b"Transfer-Encoding: chunked\r\n",
                                                 b"Content-Encoding: gzip, br\r\n", b"Content-Encoding: deflate\r\n",
                                                 b"Content-Encoding: zstd\r\nTransfer-Encoding: chunked\r\n"]))
def test_never_raises_on_any_bytes(body: bytes, headers: bytes) -> None:
    result = parse_response(raw(b"HTTP/1.1 200 OK\r\n" + headers + b"\r\n" + body))
    assert isinstance(result, (HttpResponse, RecordError))
    if isinstance(result, HttpResponse):
        assert result.content_length == len(result.body)


def test_undecodable_body_of_a_declared_non_text_type_is_not_an_error() -> None:
    block = b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Encoding: gzip\r\n\r\n\x89PNG\x00\x01"
    resp = ok(raw(block))
    assert resp.mime_type == "image/png" and resp.http_notes == ("content-encoding-failed",)
    assert resp.body == b"\x89PNG\x00\x01"
    # the same bytes declared as HTML are an error row
    err = parse_response(raw(block.replace(b"image/png", b"text/html")))
    assert isinstance(err, RecordError) and err.error_type == "http-content-encoding-failed"


def _fault_responses() -> list:
    from pathlib import Path

    from pipeline.sources import iter_records

    path = Path(__file__).resolve().parents[1] / "fixtures" / "warc" / "http-faults.warc.gz"
    return [parse_response(r) for r in iter_records(str(path)) if r.record_type == "response"]


def test_invalid_chunked_framing_is_flagged_not_written_as_fine() -> None:
    bad_chunked, _ = _fault_responses()
    # "3" announces 3 bytes, the page follows: the framing is invalid, the body kept as stored
    assert bad_chunked.content_truncated == "chunked-framing"
    assert bad_chunked.body.startswith(b"3\r\n<!doctype html>")


def test_a_one_mib_header_line_does_not_hide_the_body() -> None:
    _, long_header = _fault_responses()
    assert long_header.content_truncated == "http-headers"
    assert long_header.body.startswith(b"<!doctype html>") and long_header.mime_type == "text/html"
    assert select_response(long_header) is None  # decoded, not skipped as empty-body
