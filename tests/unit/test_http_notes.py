"""What the HTTP layer notices about a response's framing is kept: ``records.http_notes``
and the ``audit_http_notes`` view."""

from __future__ import annotations

import glob
import gzip
from pathlib import Path

from pipeline import audit
from pipeline.http import parse_response
from pipeline.http.response import HTTP_NOTES
from pipeline.rules import Rules
from pipeline.runners import worker
from pipeline.runners.local import run
from pipeline.sources import iter_records
from pipeline.sources.record import RawRecord

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "warc"
SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "warc-samples"

# LF-only head lines, a chunked header over a body stored de-chunked, a gzip header over a
# plain body, and a head line without a colon.
ODD = (b"HTTP/1.1 200 OK\nContent-Type: text/html\nTransfer-Encoding: chunked\n"
       b"Content-Encoding: gzip\nno colon here\n\n<html><title>odd</title>plain</html>")
CLEAN = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html><title>clean</title></html>"


def _warc_record(url: str, block: bytes) -> bytes:
    head = (f"WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\n"
            f"WARC-Date: 2026-01-02T03:04:05Z\r\nWARC-Record-ID: <urn:uuid:{abs(hash(url)):032x}>\r\n"
            f"Content-Type: application/http;msgtype=response\r\n"
            f"Content-Length: {len(block)}\r\n\r\n").encode()
    return head + block + b"\r\n\r\n"


def test_the_notes_of_a_response_are_in_its_row():
    raw = RawRecord("x.warc", 0, len(ODD), "<urn:uuid:1>", "response", "http://odd.example/",
                    None, ODD)
    rows = worker.process_record(raw, Rules(), "r")
    assert isinstance(rows, worker.Rows)
    assert rows.record["http_notes"] == ("lf-only-header-lines,header-line-without-colon,"
                                         "chunked-not-framed,content-encoding-not-applied")
    clean = worker.process_record(
        RawRecord("x.warc", 0, len(CLEAN), "<urn:uuid:2>", "response", "http://a.example/",
                  None, CLEAN), Rules(), "r")
    assert isinstance(clean, worker.Rows)
    assert clean.record["http_notes"] is None


def test_a_run_writes_the_notes_and_the_audit_counts_them(tmp_path: Path):
    crawl = tmp_path / "crawl.warc.gz"
    crawl.write_bytes(b"".join(gzip.compress(_warc_record(url, block)) for url, block in (
        ("http://odd.example/", ODD), ("http://clean.example/", CLEAN))))
    run([str(crawl)], tmp_path / "out", Rules(), workers=1, run_id="notes")
    con = audit.connect(tmp_path / "out")
    rows = dict(con.sql("select url, http_notes from records").fetchall())
    assert rows["http://clean.example/"] is None
    assert rows["http://odd.example/"].split(",") == [
        "lf-only-header-lines", "header-line-without-colon", "chunked-not-framed",
        "content-encoding-not-applied"]
    counts = audit.query(con, "audit_http_notes")
    by_note = {row[0]: row[1] for row in counts.rows}
    assert by_note == dict.fromkeys(rows["http://odd.example/"].split(","), 1)


def _archives() -> list[str]:
    samples = (SAMPLES / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()[1:]
    return [str(SAMPLES / line.split("\t")[0]) for line in samples] + sorted(glob.glob(str(FIXTURES / "*")))


def test_every_note_made_on_real_archives_is_declared():
    made: set[str] = set()
    for path in _archives():
        for item in iter_records(path):
            if isinstance(item, RawRecord) and item.record_type in ("response", "resource"):
                made |= set(getattr(parse_response(item), "http_notes", ()))
    # the 42 samples and the fixtures make several kinds of note, all declared
    assert len(made) >= 3 and made <= HTTP_NOTES
