"""Build small WARC files for runner tests from text written here (deterministic)."""

from __future__ import annotations

import io
import uuid
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

PAGES = [
    ("http://example.com/{i}", "text/html; charset=utf-8", "utf-8",
     "<html><head><title>Page {i}</title></head><body><p>Café number {i}, "
     "a plain paragraph of text with several words in it.</p><a href='/next'>next</a></body></html>"),
    ("http://example.ru/{i}", "text/html", "windows-1251",
     "<html><head><meta charset=windows-1251><title>Страница {i}</title></head>"
     "<body><p>Привет, мир! Это страница номер {i}.</p></body></html>"),
    ("http://example.jp/{i}", "text/html; charset=Shift_JIS", "shift_jis",
     "<html><head><title>ページ {i}</title></head><body><p>こんにちは、世界。{i}</p></body></html>"),
]


def write_warc(path: Path, records: int, *, seed: str = "") -> list[str]:
    """Write ``records`` HTML responses plus one request each; returns the response record ids."""
    ids = []
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for i in range(records):
            url_t, ctype, codec, body_t = PAGES[i % len(PAGES)]
            url = url_t.format(i=f"{seed}{i}")
            body = body_t.format(i=i).encode(codec)
            rid = f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, seed + url)}>"
            headers = StatusAndHeaders(
                "200 OK", [("Content-Type", ctype), ("Content-Length", str(len(body)))],
                protocol="HTTP/1.1",
            )
            rec = writer.create_warc_record(
                url, "response", payload=io.BytesIO(body), http_headers=headers,
                warc_headers_dict={"WARC-Record-ID": rid, "WARC-Date": "2026-01-02T03:04:05Z"},
            )
            writer.write_record(rec)
            req = writer.create_warc_record(
                url, "request", payload=io.BytesIO(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
                warc_headers_dict={
                    "WARC-Record-ID": f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, 'req' + seed + url)}>",
                    "WARC-Date": "2026-01-02T03:04:05Z",
                },
            )
            writer.write_record(req)
            ids.append(rid)
    return ids


def write_records(path: Path, records: list[tuple[str, str, bytes, dict[str, str]]]) -> None:
    """Write WARC records as given: (record type, target URI, block, extra WARC headers);
    ``response`` blocks are HTTP messages, ``metadata`` blocks ``application/warc-fields``."""
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for rtype, url, block, headers in records:
            warc_headers = {"WARC-Date": "2026-01-02T03:04:05Z", **headers}
            content_type = {"response": "application/http; msgtype=response",
                            "metadata": "application/warc-fields"}.get(rtype)
            rec = writer.create_warc_record(url, rtype, payload=io.BytesIO(block),
                                            warc_content_type=content_type,
                                            warc_headers_dict=warc_headers)
            writer.write_record(rec)


def http_response(body: bytes, content_type: str = "text/html; charset=utf-8") -> bytes:
    """A stored HTTP/1.1 200 response with ``body``."""
    head = f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n"
    return head.encode() + body
