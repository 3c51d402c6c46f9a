"""Measure reading + parse_response throughput on one core (records/s and MB/s).

    .venv/bin/python scripts/bench_sources.py                      # warc-samples + generated
    .venv/bin/python scripts/bench_sources.py --pages 20000 FILE...

The generated crawl is Common Crawl shaped: per-record gzip, request / response / metadata
per page, HTML bodies of 5-60 KB; a quarter gzip-encoded, an eighth chunked. Each input is
read REPEAT times and the best CPU time (``time.process_time``) is kept, so the figure is
per core even when other processes share the machine.
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.errors import RecordError  # noqa: E402
from pipeline.http import parse_response, select  # noqa: E402
from pipeline.sources import iter_records  # noqa: E402

WORDS = ("crawl archive page record charset decode browser header meta text "
         "Grüße naïve café 日本語 русский 中文 한국어").split()


def _record(rtype: str, n: int, block: bytes, extra: str = "") -> bytes:
    head = (f"WARC/1.0\r\nWARC-Type: {rtype}\r\nWARC-Record-ID: <urn:uuid:{n:032x}>\r\n"
            f"WARC-Date: 2026-01-01T00:00:00Z\r\nWARC-Target-URI: http://bench.test/{n}\r\n{extra}"
            f"Content-Length: {len(block)}\r\n\r\n")
    return gzip.compress(head.encode() + block + b"\r\n\r\n", compresslevel=6, mtime=0)


def generate(path: Path, pages: int, seed: int = 7) -> None:
    """Write a CC-shaped per-record-gzip WARC with ``pages`` captures."""
    rng = random.Random(seed)
    with open(path, "wb") as out:
        for i in range(pages):
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(700, 9000)))
            body = f"<!doctype html><html><head><meta charset=utf-8><title>{i}</title></head><body><p>{text}</p></body></html>".encode()
            headers = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
            if i % 4 == 0:
                body = gzip.compress(body, mtime=0)
                headers += "Content-Encoding: gzip\r\n"
            if i % 8 == 1:
                body = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
                headers += "Transfer-Encoding: chunked\r\n"
            else:
                headers += f"Content-Length: {len(body)}\r\n"
            rid = 3 * i
            out.write(_record("request", rid, b"GET / HTTP/1.1\r\nHost: bench.test\r\n\r\n"))
            out.write(_record("response", rid + 1, headers.encode() + b"\r\n" + body))
            meta = b"fetchTimeMs: 10\r\ncharset-detected: UTF-8\r\nlanguages-cld2: {\"languages\":[{\"code-iso-639-3\":\"eng\"}]}\r\n"
            out.write(_record("metadata", rid + 2, meta, f"WARC-Concurrent-To: <urn:uuid:{rid + 1:032x}>\r\n"))


def measure(paths: list[str], repeat: int) -> tuple[int, int, int, float]:
    """(records, responses parsed, bytes, best seconds) for reading + parse_response."""
    best = float("inf")
    records = responses = 0
    for _ in range(repeat):
        records = responses = 0
        start = time.process_time()  # CPU seconds: per-core speed even on a busy machine
        for path in paths:
            for item in iter_records(path):
                records += 1
                if isinstance(item, RecordError) or select(item) is not None:
                    continue
                parse_response(item)
                responses += 1
        best = min(best, time.process_time() - start)
    size = sum(os.path.getsize(p) for p in paths)
    return records, responses, size, best


def measure_warcio(path: str, repeat: int) -> tuple[int, float]:
    """(records, best CPU seconds) for bare warcio: ArchiveIterator + content_stream().read()."""
    from warcio.archiveiterator import ArchiveIterator

    best, records = float("inf"), 0
    for _ in range(repeat):
        records = 0
        start = time.process_time()
        with open(path, "rb") as fh:
            for rec in ArchiveIterator(fh):
                records += 1
                (rec.content_stream() if rec.rec_type == "response" else rec.raw_stream).read()
        best = min(best, time.process_time() - start)
    return records, best


def report(label: str, paths: list[str], repeat: int) -> None:
    records, responses, size, secs = measure(paths, repeat)
    print(f"{label}: {records} records ({responses} parsed responses), {size / 1e6:.1f} MB in {secs:.2f} CPU s"
          f" -> {records / secs:,.0f} records/s, {responses / secs:,.0f} responses/s, "
          f"{size / 1e6 / secs:.1f} MB/s (one core)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--pages", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.files:
        report("given files", args.files, args.repeat)
        return 0
    samples = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "warc-samples"
    files = sorted(str(p) for p in samples.rglob("*") if p.is_file() and p.suffix not in (".md", ".tsv"))
    report("warc-samples (42 files)", files, args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.warc.gz"
        generate(path, args.pages)
        report(f"generated CC-shaped crawl ({args.pages} pages)", [str(path)], args.repeat)
        records, secs = measure_warcio(str(path), args.repeat)
        print(f"  baseline, bare warcio on the same file: {records / secs:,.0f} records/s (one core)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
