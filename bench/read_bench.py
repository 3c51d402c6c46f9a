"""Reading alone: redecode's readers against FastWARC's own loop, and peak RSS on hostile inputs.

    .venv/bin/python -m bench.read_bench [--pages 2000] [--rounds 5] [--rss-only] [--real]

Speed: one Common Crawl shaped crawl (request, response, metadata per page; HTML bodies
2-200 KB, a fifth gzip-encoded, some chunked; per-record gzip written by warcio) is read
by each contender in turn, round after round, in this one process, and each keeps its best
CPU time (``time.process_time``: per core, whatever else runs on the machine). The process
is set up as ``redecode run``'s workers are (``start_worker``: the C library's mmap and trim
thresholds, the garbage collector's thresholds), so every contender reads under the
settings the pipeline reads under:

- ``redecode``: ``iter_records`` (fast path, metadata join) + ``select`` + ``parse_response``;
- ``redecode without the metadata join``: ``iter_archive`` + ``select`` + ``parse_response``
  (FastWARC's loop joins nothing; the Common Crawl join is ``ccmeta.join_metadata``);
- ``redecode, reading only``: ``iter_records``;
- ``FastWARC, HTTP decoded``: ``ArchiveIterator(parse_http=True, auto_decode="all")``, the
  decoded body read, record id, URI, date, Content-Type and status looked up;
- ``FastWARC, raw``: ``ArchiveIterator(parse_http=False)``, each block read.

``--real`` reads the end-to-end benchmark's crawl instead (:func:`bench.crawl.write_real_crawl`:
real pages, larger bodies, most stored decoded).

(FastWARC's ``auto_decode="all"`` stops silently on a response that is both gzip-encoded
and chunked, so the crawl has none; redecode reads those.)

Memory: each hostile input is read (reading + ``parse_response``) in a fresh process,
whose peak RSS (``ru_maxrss``) is reported. That process is not set up as a worker: setting
up imports Arrow (61 MB of RSS before any record is read, 17 without), which would hide
what reading holds.
"""

from __future__ import annotations

import argparse
import gzip
import io
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_cc_crawl(path: Path, pages: int, seed: int = 5) -> None:
    """A per-record-gzip WARC shaped like a Common Crawl file, written by warcio."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    from bench.crawl import _KINDS, page

    rng = random.Random(seed)
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for i in range(pages):
            url_t, ctype, codec, lang, declare = _KINDS[i % len(_KINDS)]
            url = url_t.format(n=i % 50, i=i)
            size = int(min(200_000, max(2000, rng.lognormvariate(10.3, 0.8))))
            body = page(rng, lang, codec, declare, i, size)
            headers = [("Content-Type", ctype), ("Server", "nginx"), ("Cache-Control", "max-age=60"),
                       ("Date", "Mon, 01 Jan 2026 00:00:00 GMT"), ("Set-Cookie", "a=b; path=/")]
            if i % 5 == 0:
                body = gzip.compress(body, mtime=0)
                headers.append(("Content-Encoding", "gzip"))
            if i % 7 == 1 and i % 5 != 0:
                body = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
                headers.append(("Transfer-Encoding", "chunked"))
            else:
                headers.append(("Content-Length", str(len(body))))
            rid = f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, url)}>"
            date = {"WARC-Date": "2026-11-01T00:00:00Z"}
            writer.write_record(writer.create_warc_record(
                url, "request", payload=io.BytesIO(b""),
                http_headers=StatusAndHeaders("GET / HTTP/1.1", [("Host", "x")], is_http_request=True),
                warc_headers_dict={**date, "WARC-Concurrent-To": rid}))
            writer.write_record(writer.create_warc_record(
                url, "response", payload=io.BytesIO(body),
                http_headers=StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1"),
                warc_headers_dict={**date, "WARC-Record-ID": rid}))
            meta = (b"fetchTimeMs: 10\r\ncharset-detected: UTF-8\r\nlanguages-cld2: "
                    b'{"reliable":true,"languages":[{"code":"en","code-iso-639-3":"eng"}]}\r\n')
            writer.write_record(writer.create_warc_record(
                url, "metadata", payload=io.BytesIO(meta), warc_content_type="application/warc-fields",
                warc_headers_dict={**date, "WARC-Concurrent-To": rid}))


def ours(path: str, parse: bool = True, join: bool = True) -> int:
    from pipeline.errors import RecordError
    from pipeline.http import parse_response, select
    from pipeline.sources import iter_records
    from pipeline.sources.archive import iter_archive

    n = 0
    for item in (iter_records if join else iter_archive)(path):
        n += 1
        if parse and not isinstance(item, RecordError) and select(item) is None:
            parse_response(item)
    return n


def fastwarc_http(path: str) -> int:
    from fastwarc.warc import ArchiveIterator

    n = 0
    with open(path, "rb") as fh:
        for rec in ArchiveIterator(fh, parse_http=True, auto_decode="all"):
            n += 1
            headers = rec.headers
            fields = [headers.get("WARC-Target-URI"), headers.get("WARC-Date"), rec.record_id]
            if rec.is_http:
                fields += [rec.http_content_type, rec.http_headers.status_code]
            fields.append(rec.reader.read())
    return n


def fastwarc_raw(path: str) -> int:
    from fastwarc.warc import ArchiveIterator

    n = 0
    with open(path, "rb") as fh:
        for rec in ArchiveIterator(fh, parse_http=False):
            n += 1
            rec.reader.read()
    return n


def speed(paths: list[Path], rounds: int, what: str) -> list[str]:
    """The contenders over ``paths`` (``what`` describes them), best CPU time of ``rounds``."""
    contenders: dict[str, Callable[[str], int]] = {
        "redecode (reading + parse_response)": ours,
        "redecode without the metadata join": lambda p: ours(p, join=False),
        "redecode, reading only (iter_records)": lambda p: ours(p, parse=False),
        "FastWARC, HTTP decoded (auto_decode=all)": fastwarc_http,
        "FastWARC, raw blocks": fastwarc_raw,
    }
    from pipeline.runners.startup import start_worker

    start_worker()  # (idempotent: the process reads as a worker from here on)
    best = dict.fromkeys(contenders, float("inf"))
    counts: dict[str, int] = {}
    for _ in range(rounds):
        for name, fn in contenders.items():
            start = time.process_time()
            counts[name] = sum(fn(str(path)) for path in paths)
            best[name] = min(best[name], time.process_time() - start)
    mb = sum(path.stat().st_size for path in paths) / 1e6
    ref = best["FastWARC, HTTP decoded (auto_decode=all)"]
    lines = [f"## Reading alone ({counts['FastWARC, raw blocks']} records, {mb:.1f} MB, {what}, "
             f"best of {rounds} interleaved rounds, CPU time, a process set up as a worker)", "",
             "| reader | records | records/s per core | MB/s per core | x FastWARC HTTP decoded |",
             "|---|---|---|---|---|"]
    for name, secs in best.items():
        lines.append(f"| {name} | {counts[name]} | {counts[name] / secs:,.0f} | {mb / secs:.1f} | "
                     f"{ref / secs:.2f} |")
    return lines + [""]


def _hostile_paths(folder: Path) -> dict[str, Path]:
    return {"1 GiB WARC header line (.warc.gz)": folder / "long-line.warc.gz",
            "Content-Length 2 GiB (9 records)": folder / "lies.warc",
            "Parquet, 64 x 24 MiB bodies": folder / "bodies.parquet",
            "HTTP faults (bad chunks, 1 MiB header line)": folder / "http-faults.warc.gz"}


def _hostile_inputs(folder: Path) -> dict[str, Path]:
    """The issue's hostile inputs, rebuilt: each small on disk, large once read."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sys.path.insert(0, str(ROOT / "scripts"))
    import make_warc_fixtures as fx

    out: dict[str, Path] = {}
    # A 1 GiB WARC header line in a ~1 MB gzip member.
    line_member = gzip.compress(b"WARC/1.1\r\nWARC-Type: response\r\nX-Long: " + b"a" * (1 << 30)
                                + b"\r\nContent-Length: 0\r\n\r\n\r\n\r\n", 1)
    out["1 GiB WARC header line (.warc.gz)"] = folder / "long-line.warc.gz"
    out["1 GiB WARC header line (.warc.gz)"].write_bytes(fx.gz(fx.warcinfo()) + line_member + fx.gz(fx.response(3)))
    # Content-Length: 2 GiB on the second of 9 records, plain and gzip.
    liar = fx.record("response", 2, fx.HTTP_OK % len(fx.PAGE) + fx.PAGE, content_length=2**31)
    rest = b"".join(fx.response(3 + i) for i in range(7))
    out["Content-Length 2 GiB (9 records)"] = folder / "lies.warc"
    out["Content-Length 2 GiB (9 records)"].write_bytes(fx.warcinfo() + liar + rest)
    # 64 bodies of 24 MiB in a ~100 KB Parquet file.
    big = b"<p>" + b"z" * (24 << 20)
    out["Parquet, 64 x 24 MiB bodies"] = folder / "bodies.parquet"
    pq.write_table(pa.table({"url": [f"http://a.test/{i}" for i in range(64)], "body": [big] * 64}),
                   out["Parquet, 64 x 24 MiB bodies"], compression="zstd")
    # Invalid chunked framing, and a 1 MB HTTP header line.
    out["HTTP faults (bad chunks, 1 MiB header line)"] = folder / "http-faults.warc.gz"
    out["HTTP faults (bad chunks, 1 MiB header line)"].write_bytes(fx.build()["http-faults.warc.gz"])
    return out


def rss(folder: Path) -> list[str]:
    lines = ["## Peak RSS reading hostile inputs (reading + parse_response, one process each)", "",
             "| input | size on disk | records | errors | peak RSS MB |", "|---|---|---|---|---|"]
    # Built in a process of their own: Linux keeps ru_maxrss across exec, so a parent that
    # had built a 1 GiB line would pass its peak on to every child measured.
    subprocess.run([sys.executable, "-m", "bench.read_bench", "--make-inputs", str(folder)],
                   cwd=ROOT, check=True)
    for name, path in _hostile_paths(folder).items():
        out = subprocess.run([sys.executable, "-m", "bench.read_bench", "--rss-of", str(path)],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
        lines.append(f"| {name} | {path.stat().st_size / 1e3:,.0f} KB | {out[0]} | {out[1]} | {out[2]} |")
    return lines + [""]


def _rss_of(path: str) -> None:
    from pipeline.errors import RecordError
    from pipeline.http import parse_response, select
    from pipeline.sources import iter_records

    records = errors = 0
    for item in iter_records(path):
        if isinstance(item, RecordError):
            errors += 1
            continue
        records += 1
        if select(item) is None and isinstance(parse_response(item), RecordError):
            errors += 1
    print(records, errors, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.read_bench")
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rss-only", action="store_true")
    parser.add_argument("--real", action="store_true",
                        help="read the end-to-end benchmark's crawl of real pages instead")
    parser.add_argument("--rss-of", help=argparse.SUPPRESS)
    parser.add_argument("--make-inputs", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make_inputs:
        _hostile_inputs(Path(args.make_inputs))
        return
    if args.rss_of:
        _rss_of(args.rss_of)
        return
    lines = [f"# Reading benchmark ({time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores)", ""]
    with tempfile.TemporaryDirectory(prefix="redecode-read-") as tmp:
        folder = Path(tmp)
        if not args.rss_only and args.real:
            from bench.crawl import write_real_crawl

            real = write_real_crawl(folder / "real")
            lines += speed(list(real.paths), args.rounds,
                           "the end-to-end benchmark's crawl of real pages, per-record gzip")
        elif not args.rss_only:
            crawl = folder / "cc.warc.gz"
            write_cc_crawl(crawl, args.pages)
            lines += speed([crawl], args.rounds, "per-record gzip")
        lines += rss(folder)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
