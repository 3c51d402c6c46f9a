"""Which records are decoded, and the skip reasons for the others."""

from __future__ import annotations

import pytest

from pipeline.errors import Skip
from pipeline.http import HttpResponse, select, select_response
from pipeline.sources.record import RawRecord


def raw(record_type: str, block: bytes = b"HTTP/1.1 200 OK\r\n\r\nx", url: str = "http://x.test/",
        warc_content_type: str | None = "application/http;msgtype=response") -> RawRecord:
    return RawRecord("f", 0, 1, "id", record_type, url, None, block, warc_content_type=warc_content_type)


@pytest.mark.parametrize("record_type", ["request", "revisit", "metadata", "warcinfo", "conversion", "continuation"])
def test_non_response_records_are_skipped_by_type(record_type: str) -> None:
    assert select(raw(record_type)) == Skip(record_type)


def test_unknown_record_types() -> None:
    assert select(raw("unknown")) == Skip("unknown-record-type")


def test_response_and_resource_records_go_on() -> None:
    assert select(raw("response")) is None
    assert select(raw("resource", b"<p>", "file:///a.html", "text/html")) is None


def test_dns_and_other_non_http_captures_are_skipped() -> None:
    assert select(raw("response", b"20080430204825\nwww.archive.org. 589 IN A 1.2.3.4", "dns:www.archive.org",
                      "text/dns")) == Skip("non-http")


def test_empty_or_whitespace_blocks_are_skipped() -> None:
    assert select(raw("response", b"")) == Skip("empty-record")
    assert select(raw("response", b"\n")) == Skip("empty-record")


def resp(mime: str | None, body: bytes = b"x", status: int | None = 200) -> HttpResponse:
    return HttpResponse(status, (), mime, mime, False, body, len(body), None)


@pytest.mark.parametrize("mime", ["text/html", "application/xhtml+xml", "text/plain", "text/xml", "text/css"])
def test_html_xhtml_and_text_are_decoded(mime: str) -> None:
    assert select_response(resp(mime)) is None


@pytest.mark.parametrize("mime", ["application/json", "image/png", "application/octet-stream", "application/pdf"])
def test_other_mime_types_are_skipped(mime: str) -> None:
    assert select_response(resp(mime)) == Skip("non-text-mime")


@pytest.mark.parametrize("status", [301, 404, 500])
def test_non_2xx_text_pages_are_decoded(status: int) -> None:
    # decision: error pages and redirect bodies are text a visitor saw; fetch_status filters them
    assert select_response(resp("text/html", b"<p>Not found", status)) is None


def test_empty_bodies_are_skipped() -> None:
    assert select_response(resp("text/html", b"", 304)) == Skip("empty-body")
