"""Write the tiny crafted archives under tests/fixtures/warc/, one per defect.

Every byte comes from text written here; the output is deterministic (gzip mtime 0), and a
test checks that the committed files equal what this script builds.

    .venv/bin/python scripts/make_warc_fixtures.py tests/fixtures/warc
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

PAGE = (b"<!doctype html><html><head><meta charset=utf-8><title>Fixture</title></head>"
        b"<body><p>Caf\xc3\xa9 cr\xc3\xa8me br\xc3\xbbl\xc3\xa9e, a crafted test page.</p></body></html>\n")
HTTP_OK = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n"


def rid(n: int) -> str:
    return f"<urn:uuid:00000000-0000-4000-8000-{n:012d}>"


def record(rtype: str, n: int, block: bytes, extra: dict[str, str] | None = None,
           content_length: int | str | None = -1, url: str = "http://example.test/") -> bytes:
    """One WARC/1.1 record; ``content_length`` None leaves the header out, -1 = len(block),
    a str is written as is."""
    lines = ["WARC/1.1", f"WARC-Type: {rtype}", f"WARC-Record-ID: {rid(n)}",
             "WARC-Date: 2026-01-02T03:04:05Z"]
    if rtype != "warcinfo":
        lines.append(f"WARC-Target-URI: {url}")
    ctype = {"response": "application/http;msgtype=response",
             "request": "application/http;msgtype=request",
             "metadata": "application/warc-fields",
             "warcinfo": "application/warc-fields"}.get(rtype, "text/html")
    lines.append(f"Content-Type: {ctype}")
    for key, value in (extra or {}).items():
        lines.append(f"{key}: {value}")
    if content_length is not None:
        lines.append(f"Content-Length: {len(block) if content_length == -1 else content_length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + block + b"\r\n\r\n"


def response(n: int, body: bytes = PAGE, extra: dict[str, str] | None = None,
             url: str = "http://example.test/") -> bytes:
    return record("response", n, HTTP_OK % len(body) + body, extra, url=url)


def gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def warcinfo(n: int = 1) -> bytes:
    return record("warcinfo", n, b"software: redecode fixtures\r\nformat: WARC File Format 1.1\r\n")


def build() -> dict[str, bytes]:
    """File name → bytes of every fixture."""
    out: dict[str, bytes] = {}
    # A per-record gzip file whose last member is cut off mid-payload (silent truncation).
    last = gz(response(2))
    out["truncated-gzip-member.warc.gz"] = gz(warcinfo()) + last[:-30]
    # ... and one cut inside its WARC header: the record cannot be read at all.
    out["truncated-in-header.warc.gz"] = gz(warcinfo()) + last[:60]
    # The middle member's CRC-32 is wrong: that record is an error, the others are read.
    bad = bytearray(gz(response(2)))
    bad[-8] ^= 0xFF
    out["gzip-bad-crc.warc.gz"] = gz(warcinfo()) + bytes(bad) + gz(response(3))
    # Junk bytes between two members.
    out["garbage-between-members.warc.gz"] = gz(warcinfo()) + b"this is not gzip\n" + gz(response(2))
    # Deflate data corrupted in the middle of a member: error, then the next member.
    broken = bytearray(gz(response(2)))
    for i in range(20, 40):
        broken[i] = 0xFF
    out["corrupt-deflate-data.warc.gz"] = gz(warcinfo()) + bytes(broken) + gz(response(3))
    # The whole file is one gzip member (warcio refuses these).
    out["whole-file-gzip.warc.gz"] = gz(warcinfo() + response(2) + record("request", 3, b"GET / HTTP/1.1\r\n\r\n"))
    # A whole-file gzip with junk between two records: resync inside the one member.
    out["whole-file-gzip-junk-inside.warc.gz"] = gz(warcinfo() + b"junk line\r\n" + b"\x00\xff" * 40000
                                                  + b"\r\n" + response(2) + response(3))
    # One record split over two gzip members.
    rec = response(2)
    out["record-split-over-members.warc.gz"] = gz(warcinfo()) + gz(rec[:150]) + gz(rec[150:]) + gz(response(3))
    # A record without Content-Length: error, then the reader finds the next record.
    out["missing-content-length.warc"] = (warcinfo() + record("response", 2, HTTP_OK % 5 + b"hello", content_length=None)
                                          + response(3))
    # Content-Lengths that str.isdigit() or int() take for numbers, but that are not the WARC
    # grammar's ASCII DIGITs ("²", Arabic-Indic and fullwidth digits): an error each.
    odd = [record("response", 2 + i, HTTP_OK % 5 + b"hello", content_length=value)
           for i, value in enumerate(["\u00b2", "\u0661\u0662", "\uff15"])]
    out["content-length-not-ascii-digits.warc"] = warcinfo() + b"".join(odd) + response(5)
    out["content-length-not-ascii-digits.warc.gz"] = b"".join(map(gz, [warcinfo(), *odd, response(5)]))
    # Two whole-file gzip WARCs concatenated (cat a.warc.gz b.warc.gz): members of three
    # records each. FastWARC reports the 2nd and 3rd records of a member at the next
    # member's start; their records are read carefully, none is lost.
    out["concatenated-whole-file-gzip.warc.gz"] = (gz(warcinfo() + response(2) + response(3))
                                                   + gz(warcinfo(4) + response(5) + response(6)))
    # The last record declares more bytes than the file holds.
    out["content-length-too-long.warc"] = warcinfo() + record("response", 2, HTTP_OK % len(PAGE) + PAGE,
                                                              content_length=len(PAGE) + 500)[:-4]
    # Common Crawl layout: request, response, then metadata pointing back at the response.
    meta = (b"fetchTimeMs: 12\r\ncharset-detected: windows-1252\r\nlanguages-cld2: "
            b'{"reliable":true,"text-bytes":90,"languages":[{"code":"fr","code-iso-639-3":"fra",'
            b'"text-covered":0.8},{"code":"en","code-iso-639-3":"eng","text-covered":0.2}]}\r\n')
    out["cc-metadata-join.warc.gz"] = b"".join(gz(r) for r in (
        warcinfo(),
        record("request", 2, b"GET / HTTP/1.1\r\n\r\n", {"WARC-Concurrent-To": rid(3)}),
        response(3, extra={"WARC-Identified-Payload-Type": "text/html"}),
        record("metadata", 4, meta, {"WARC-Concurrent-To": rid(3)}),
        response(5, extra={"WARC-Identified-Content-Charset": "UTF-8", "WARC-Truncated": "length"},
                 url="http://example.test/second"),
    ))
    # The metadata record arrives after more than the join window of records.
    fill = [record("request", 10 + i, b"GET / HTTP/1.1\r\n\r\n") for i in range(12)]
    out["metadata-outside-window.warc.gz"] = b"".join(gz(r) for r in (
        response(2), *fill, record("metadata", 3, meta, {"WARC-Concurrent-To": rid(2)})))
    # Heritrix-style ARC v1: no blank line between records (warcio loses a record here).
    body = HTTP_OK % len(PAGE) + PAGE
    arc_head = b"URL IP-address Archive-date Content-type Archive-length\n"
    desc = b"1 0 redecode\n" + arc_head
    out["arc-no-blank-lines.arc"] = (
        b"filedesc://arc-no-blank-lines.arc 0.0.0.0 20260102030405 text/plain %d\n" % len(desc) + desc
        + b"http://example.test/a 127.0.0.1 20260102030405 text/html %d\n" % len(body) + body
        + b"http://example.test/b 127.0.0.1 20260102030406 text/html %d\n" % len(body) + body)
    # Junk lines between plain records: the reader resyncs at the next "WARC/1.1" line.
    out["junk-between-records.warc"] = (warcinfo() + b"stray text\r\nWARC/1.1 not a version line\r\n"
                                        + b"x" * 300 + b"\n" + response(2))
    out["empty.warc.gz"] = b""
    # An LZ4 frame magic followed by zeros: a corrupt frame, nothing readable.
    out["lz4-corrupt-frame.warc.lz4"] = b"\x04\x22\x4d\x18" + b"\x00" * 16
    # Junk after a record whose Content-Length is 2 bytes short (warcio's example-trunc).
    short = record("response", 2, HTTP_OK % len(PAGE) + PAGE, content_length=len(HTTP_OK % len(PAGE)) + len(PAGE) - 2)
    out["content-length-too-short.warc"] = warcinfo() + short + response(3)
    # A response whose Content-Length claims 2 GiB, then 7 more records (issue: 7 of 9 lost).
    liar = record("response", 2, HTTP_OK % len(PAGE) + PAGE, content_length=2**31)
    rest = [response(3 + i) for i in range(7)]
    out["content-length-lies.warc"] = warcinfo() + liar + b"".join(rest)
    out["content-length-lies.warc.gz"] = gz(warcinfo()) + gz(liar) + b"".join(gz(r) for r in rest)
    # The same lie on a request record (its block is not kept: the reader reads back).
    lying_request = record("request", 2, b"GET / HTTP/1.1\r\n\r\n", content_length=2**31)
    out["content-length-lies-request.warc.gz"] = (gz(warcinfo()) + gz(lying_request)
                                                  + b"".join(gz(r) for r in rest[:3]))
    # A WARC header line of 2 MiB (over the 1 MiB header cap) in a gzip member: an error,
    # then the next record; 2 KB on disk.
    long_line = record("response", 2, HTTP_OK % 5 + b"hello", {"X-Long": "a" * (2 << 20)})
    out["header-line-over-cap.warc.gz"] = gz(warcinfo()) + gz(long_line) + gz(response(3))
    # Responses for the HTTP framing checks: chunked framing that breaks in the first chunk,
    # and a 1 MiB header line before a body that must still be decoded.
    bad_chunks = b"3\r\n" + PAGE + b"\r\n0\r\n\r\n"
    http_bad_chunked = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + bad_chunks)
    http_long_header = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Long: " + b"b" * (1 << 20)
                        + b"\r\n\r\n" + PAGE)
    out["http-faults.warc.gz"] = (gz(warcinfo()) + gz(record("response", 2, http_bad_chunked))
                                  + gz(record("response", 3, http_long_header)))
    return out


def main(argv: list[str]) -> int:
    target = Path(argv[1] if len(argv) > 1 else "tests/fixtures/warc")
    target.mkdir(parents=True, exist_ok=True)
    for name, data in sorted(build().items()):
        (target / name).write_bytes(data)
        print(f"{name}: {len(data)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
