"""Hostile inputs through ``redecode run``, each a whole process: what a crawl can throw at a
worker, and what the run does with it.

    python -m bench.hostile_bench [--only NAME]...

Every input is built small on disk in a process of its own (Linux keeps ``ru_maxrss`` across
``exec``, so a parent that had built a 1 GiB line would pass its peak on to every run
measured). Each WARC input holds a ``warcinfo`` record, the hostile record(s) and a normal
page after them, so a record that swallows the next one shows. Each input is then run once
as ``redecode run INPUT --out OUT --workers 1`` (:mod:`bench.proc` measures the process),
and the table says:

- **records**: records in the input, as built;
- **written / skipped / errors rows**: what the run's counters say (an errors row is a
  record that could not be decoded, with its locator and reason);
- **unaccounted**: records in the input that the run neither wrote, skipped nor recorded
  as an error (records lost silently: must be 0);
- **aborted**: the run stopped because of one record (an exit code other than 0 and 3, a
  traceback, or no ``runs`` row);
- **crash**: the process died of a signal (or ran past the time limit);
- **touched outside --out**: files and folders created, changed or removed anywhere in the
  bench's folder (the input folder, the working directory, ``TMPDIR`` and the cache
  folder, which the run is pointed at) but under ``--out``, found by listing it before and
  after the run;
- wall and CPU seconds, and the process's peak RSS.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

from bench.proc import compile_project, measure, own_rss_mb

ROOT = Path(__file__).resolve().parent.parent
#: A run still going after this many seconds is killed and counted as a crash.
TIME_LIMIT = 900.0
#: The issue's memory target per worker on every hostile input.
RSS_TARGET_MB = 300

NORMAL = (b"<!doctype html><html><head><meta charset=utf-8><title>After</title></head><body>"
          b"<p>A normal page after the hostile record: it must be read and written.</p></body></html>")


def _rid(n: int) -> str:
    return f"<urn:uuid:00000000-0000-4000-8000-{n:012d}>"


def _record(rtype: str, n: int, block: bytes, extra: dict[str, str] | None = None,
            content_length: int | None = None) -> bytes:
    ctype = {"response": "application/http;msgtype=response", "metadata": "application/warc-fields",
             "warcinfo": "application/warc-fields"}[rtype]
    lines = ["WARC/1.1", f"WARC-Type: {rtype}", f"WARC-Record-ID: {_rid(n)}",
             "WARC-Date: 2026-01-02T03:04:05Z", f"Content-Type: {ctype}"]
    if rtype != "warcinfo":
        lines.append(f"WARC-Target-URI: http://hostile.test/{n}")
    lines += [f"{k}: {v}" for k, v in (extra or {}).items()]
    lines.append(f"Content-Length: {len(block) if content_length is None else content_length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + block + b"\r\n\r\n"


def _http(body: bytes, headers: str = "Content-Type: text/html; charset=utf-8",
          length: bool = True) -> bytes:
    head = f"HTTP/1.1 200 OK\r\n{headers}\r\n"
    if length:
        head += f"Content-Length: {len(body)}\r\n"
    return head.encode() + b"\r\n" + body


def _warcinfo() -> bytes:
    return _record("warcinfo", 1, b"software: redecode hostile bench\r\n")


def _page_warc(body: bytes, headers: str = "Content-Type: text/html; charset=utf-8") -> bytes:
    """warcinfo, one response with ``body``, a normal response (per-record gzip)."""
    return b"".join(gzip.compress(r, 1, mtime=0) for r in (
        _warcinfo(), _record("response", 2, _http(body, headers)), _record("response", 3, _http(NORMAL))))


def _compressed(make: Callable[[], object], total: int, chunk: bytes = b"\0" * (1 << 20)) -> bytes:
    """``total`` bytes of ``chunk`` repeated, through a streaming compressor (``make()``)."""
    comp = make()
    out = io.BytesIO()
    for _ in range(total // len(chunk)):
        out.write(comp.compress(chunk))  # type: ignore[attr-defined]
    out.write(comp.flush())  # type: ignore[attr-defined]
    return out.getvalue()


class _Brotli:
    """brotli's streaming compressor under zlib's method names."""

    def __init__(self, comp: object) -> None:
        self.comp = comp

    def compress(self, data: bytes) -> bytes:
        return self.comp.process(data)  # type: ignore[attr-defined]

    def flush(self) -> bytes:
        return self.comp.finish()  # type: ignore[attr-defined]


def _bomb(encoding: str) -> bytes:
    import brotli
    import zstandard

    total = 1 << 30  # 1 GiB of zeros once decoded
    if encoding == "gzip":
        payload = _compressed(lambda: zlib.compressobj(9, zlib.DEFLATED, 31), total)
    elif encoding == "deflate":
        payload = _compressed(lambda: zlib.compressobj(9, zlib.DEFLATED, 15), total)
    elif encoding == "br":
        payload = _compressed(lambda: _Brotli(brotli.Compressor(quality=5)), total)
    else:
        payload = _compressed(lambda: zstandard.ZstdCompressor(level=3).compressobj(), total)
    return _page_warc(payload, f"Content-Type: text/html\r\nContent-Encoding: {encoding}")


def _long_warc_header_line() -> bytes:
    # A 1 GiB WARC header line in one gzip member of ~1 MB, streamed.
    comp = zlib.compressobj(1, zlib.DEFLATED, 31)
    out = io.BytesIO()
    out.write(comp.compress(b"WARC/1.1\r\nWARC-Type: response\r\nX-Long: "))
    chunk = b"a" * (1 << 20)
    for _ in range(1024):
        out.write(comp.compress(chunk))
    out.write(comp.compress(b"\r\nContent-Length: 0\r\n\r\n\r\n\r\n"))
    out.write(comp.flush())
    return (gzip.compress(_warcinfo(), mtime=0) + out.getvalue()
            + gzip.compress(_record("response", 3, _http(NORMAL)), mtime=0))


def _lying_length() -> bytes:
    # Content-Length 2 GiB on the 2nd of 9 records (plain WARC): the rest must not vanish.
    liar = _record("response", 2, _http(NORMAL), content_length=2**31)
    return _warcinfo() + liar + b"".join(_record("response", 3 + i, _http(NORMAL)) for i in range(7))


def _many_lies() -> bytes:
    # Content-Length 2 GiB on every other record of 20,001, per-record gzip, each lie with
    # a 20 KB page after it: every lie must end at the next record, not at the end of the file.
    page = _http(NORMAL * 100)
    records = [_warcinfo()]
    for i in range(10_000):
        records.append(_record("response", 2 * i + 2, _http(NORMAL), content_length=2**31))
        records.append(_record("response", 2 * i + 3, page))
    return b"".join(gzip.compress(r, 1, mtime=0) for r in records)


def _deep_metadata() -> bytes:
    meta = b"fetchTimeMs: 1\r\ncharset-detected: UTF-8\r\nlanguages-cld2: " + b"[" * 100_000 + b"\r\n"
    return b"".join(gzip.compress(r, mtime=0) for r in (
        _warcinfo(), _record("response", 2, _http(NORMAL)),
        _record("metadata", 3, meta, {"WARC-Concurrent-To": _rid(2)}),
        _record("response", 4, _http(NORMAL))))


def _nested_mixed_case() -> bytes:
    tags = ["<Div>", "<dIV>", "<SPAN>", "<table><tr><td>", "<Section>", "<b>", "<I>", "<UL><li>",
            "<BlockQuote>", "<a href=/x>"]
    body = "".join(tags[i % len(tags)] + "x" for i in range(200_000))
    return _page_warc(b"<!doctype html><title>deep</title>" + body.encode())


def _many_attributes() -> bytes:
    element = "<DiV " + " ".join(f"a{k}=v{k}" for k in range(5_000)) + ">text</div>"
    return _page_warc(b"<!doctype html><title>attrs</title>" + (element * 40).encode())


def _one_tag_of_distinct_attributes() -> bytes:
    element = "<div " + " ".join(f"a{k}" for k in range(160_000)) + ">text</div>"
    return _page_warc(b"<!doctype html><title>attrs</title>" + element.encode())


def _distinct_names() -> bytes:
    # 300,000 distinct attribute names, 1,000 to a tag: each tag under the attribute limit
    tags = "".join("<div " + " ".join(f"n{t * 1_000 + k}" for k in range(1_000)) + ">x</div>"
                   for t in range(300))
    return _page_warc(b"<!doctype html><title>names</title>" + tags.encode())


def _colliding_names() -> bytes:
    # 2,048 distinct names (the limit) that all fall in one bucket of Lexbor's name table
    # (128 buckets), then 4 MiB of tags that use the last 500: the costliest page under it
    names: list[bytes] = []
    k = 0
    while len(names) < 2_048:
        name = b"d%06d" % k
        k += 1
        if _lexbor_name_hash(name) % 128 == 5:
            names.append(name)
    define = b"".join(b"<i " + b" ".join(names[i:i + 500]) + b"></i>" for i in range(0, len(names), 500))
    tag = b"<i " + b" ".join(names[-500:]) + b"></i>"
    body = define + tag * ((4 << 20) // len(tag))
    return _page_warc(b"<!doctype html><title>names</title>" + body[: (4 << 20) - 64])


def _lexbor_name_hash(name: bytes) -> int:
    """lexbor_hash_make_id_lower (Lexbor's core/hash.c), for ASCII lowercase names."""
    x = 0
    for c in name:
        x = (x + c) & 0xFFFFFFFF
        x = (x + (x << 10)) & 0xFFFFFFFF
        x ^= x >> 6
    x = (x + (x << 3)) & 0xFFFFFFFF
    x ^= x >> 11
    return (x + (x << 15)) & 0xFFFFFFFF


def _srcset() -> bytes:
    imgs = "".join(f'<img src="/i/{k}.jpg" srcset="/i/{k}.jpg 1x, /i/{k}@2x.jpg 2x, '
                   f'/i/{k}@3x.jpg 3x" alt="{k}">' for k in range(100_000))
    return _page_warc(b"<!doctype html><title>srcset</title><body>" + imgs.encode())


def _inline_script() -> bytes:
    script = ("var a = '<div>' + x < y && z > w; // </scr" + "ipt-not>\n") * (5 * 2**20 // 48)
    return _page_warc(b"<!doctype html><title>script</title><script>" + script.encode()
                      + b"</script><p>after the script</p>")


def _comments_in_head() -> bytes:
    # No charset in the header, none in the first 1024 bytes: Chromium's meta scan reads on
    # through the <head> (4,000 comments) to the <meta> after them.
    body = (b"<!doctype html><html><head>" + b"<!-- x -->" * 4_000 + b"<meta charset=windows-1252>"
            b"<title>comments</title></head><body><p>" + b"a" * 10_000_000)
    return _page_warc(body, "Content-Type: text/html")


def _long_http_header_line() -> bytes:
    body = NORMAL
    block = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Long: " + b"b" * (1 << 20)
             + b"\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    return b"".join(gzip.compress(r, mtime=0) for r in (
        _warcinfo(), _record("response", 2, block), _record("response", 3, _http(NORMAL))))


def _bad_chunked() -> bytes:
    bad = b"5\r\nhello\r\nZZZ-not-hex\r\n" + NORMAL + b"\r\n0\r\n\r\n"
    block = _http(bad, "Content-Type: text/html\r\nTransfer-Encoding: chunked", length=False)
    return b"".join(gzip.compress(r, mtime=0) for r in (
        _warcinfo(), _record("response", 2, block), _record("response", 3, _http(NORMAL))))


def _zeros_where_a_record_starts(codec: str) -> bytes:
    """warcinfo, a member of 256 MiB of zeros where a record should start, a normal page:
    each record compressed on its own (one zstd frame or gzip member)."""
    import zstandard

    if codec == "zstd":
        def one(raw: bytes) -> bytes:
            return zstandard.ZstdCompressor(level=3).compress(raw)
        junk = _compressed(lambda: zstandard.ZstdCompressor(level=3).compressobj(), 256 << 20)
    else:
        def one(raw: bytes) -> bytes:
            return gzip.compress(raw, 1, mtime=0)
        junk = _compressed(lambda: zlib.compressobj(9, zlib.DEFLATED, 31), 256 << 20)
    return one(_warcinfo()) + junk + one(_record("response", 3, _http(NORMAL)))


def _parquet_bodies(path: Path, plain: bool = False) -> None:
    """64 equal 24 MiB bodies: dictionary-encoded (98 KB on disk), or ``plain``: then all
    64 are one zstd data page of 1.5 GiB decoded (~50 KB on disk)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    big = b"<p>" + b"z" * (24 << 20)
    pq.write_table(pa.table({"url": [f"http://a.test/{i}" for i in range(64)], "body": [big] * 64}),
                   path, compression="zstd", use_dictionary=not plain)


def _parquet_row_groups(path: Path) -> None:
    """200,000 one-row row groups: a 44 MB footer that Arrow parses whole before any row."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = 200_000
    pq.write_table(pa.table({"url": [f"http://a.test/{i}" for i in range(rows)],
                             "body": [b"<p>x</p>"] * rows}), path, row_group_size=1, compression="zstd")


def _parquet_header_map(path: Path) -> None:
    """A header map of 1,000,000 fields on the first of two rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    headers = pa.array([[(f"x-h{i}", f"v{i}") for i in range(1_000_000)], [("content-type", "text/html")]],
                       pa.map_(pa.string(), pa.string()))
    pq.write_table(pa.table({"url": ["http://a.test/0", "http://a.test/1"], "body": [NORMAL] * 2,
                             "headers": headers}), path, compression="zstd")


#: name -> (file name, records in it, builder: bytes, or writes the path itself).
INPUTS: dict[str, tuple[str, int, Callable[[], bytes] | Callable[[Path], None]]] = {
    "1 GiB WARC header line (gzip member)": ("long-warc-line.warc.gz", 3, _long_warc_header_line),
    "Content-Length: 2 GiB on record 2 of 9": ("lying-length.warc", 9, _lying_length),
    "Content-Length: 2 GiB on 10,000 records of 20,001 (gzip)": ("many-lies.warc.gz", 20_001, _many_lies),
    "Parquet, 64 x 24 MiB bodies": ("bodies.parquet", 64, _parquet_bodies),
    "Parquet, one 1.5 GiB page (64 x 24 MiB, plain)": (
        "plain-page.parquet", 64, lambda path: _parquet_bodies(path, plain=True)),
    "Parquet, 200,000 one-row row groups": ("row-groups.parquet", 200_000, _parquet_row_groups),
    "Parquet, a header map of 1,000,000 fields": ("header-map.parquet", 2, _parquet_header_map),
    "gzip bomb (1 GiB of zeros)": ("bomb-gzip.warc.gz", 3, lambda: _bomb("gzip")),
    "deflate bomb (1 GiB)": ("bomb-deflate.warc.gz", 3, lambda: _bomb("deflate")),
    "br bomb (1 GiB)": ("bomb-br.warc.gz", 3, lambda: _bomb("br")),
    "zstd bomb (1 GiB)": ("bomb-zstd.warc.gz", 3, lambda: _bomb("zstd")),
    "256 MiB of zeros where a record starts (.warc.zst)": (
        "zeros.warc.zst", 3, lambda: _zeros_where_a_record_starts("zstd")),
    "256 MiB of zeros where a record starts (.warc.gz)": (
        "zeros.warc.gz", 3, lambda: _zeros_where_a_record_starts("gzip")),
    "metadata JSON nested 100,000 deep": ("deep-metadata.warc.gz", 4, _deep_metadata),
    "200,000 unclosed mixed-case tags": ("nested-tags.warc.gz", 3, _nested_mixed_case),
    "40 elements x 5,000 attributes": ("many-attributes.warc.gz", 3, _many_attributes),
    "one start tag of 160,000 distinct attributes": ("one-tag-attributes.warc.gz", 3,
                                                     _one_tag_of_distinct_attributes),
    "300,000 distinct attribute names, 1,000 to a tag": ("distinct-names.warc.gz", 3, _distinct_names),
    "2,048 names in one hash bucket, 4 MiB of tags using them": (
        "colliding-names.warc.gz", 3, _colliding_names),
    "100,000 srcset attribute values": ("srcset.warc.gz", 3, _srcset),
    "5 MB inline script": ("inline-script.warc.gz", 3, _inline_script),
    "4,000 comments in the `<head>`, then 10 MB of text": ("comments.warc.gz", 3, _comments_in_head),
    "1 MiB HTTP header line": ("long-http-header.warc.gz", 3, _long_http_header_line),
    "invalid chunked framing": ("bad-chunked.warc.gz", 3, _bad_chunked),
}


def make_inputs(folder: Path, names: list[str]) -> None:
    """Write the inputs named (in a process of its own: see the module docstring)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        file, _, build = INPUTS[name]
        path = folder / file
        if file.endswith(".parquet"):
            build(path)  # type: ignore[call-arg]
        else:
            path.write_bytes(build())  # type: ignore[call-arg]


def _listing(root: Path, skip: Path) -> dict[str, tuple[int, int, int]]:
    """Every file and folder under ``root`` but ``skip``: (size, mtime ns, mode)."""
    found: dict[str, tuple[int, int, int]] = {}
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        dirs[:] = [d for d in dirs if here / d != skip]
        for name in dirs + files:
            path = here / name
            st = path.lstat()
            found[str(path.relative_to(root))] = (st.st_size if name in files else 0,
                                                  st.st_mtime_ns, st.st_mode)
    return found


def _touched(before: dict[str, tuple[int, int, int]], after: dict[str, tuple[int, int, int]]) -> list[str]:
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def run_one(name: str, work: Path, env: dict[str, str]) -> dict:
    """Run ``redecode run`` on one input; the row of the table as a dict."""
    file, records, _ = INPUTS[name]
    out = work / "out" / file.replace(".", "-")
    cwd = work / "cwd"
    before = _listing(work, work / "out")
    floor = own_rss_mb()
    run_id = "hostile"
    measured = measure([sys.executable, "-m", "pipeline", "run", str(work / "inputs" / file),
                        "--out", str(out), "--workers", "1", "--run-id", run_id, "--quiet"],
                       cwd=cwd, env=env, timeout=TIME_LIMIT)
    touched = _touched(before, _listing(work, work / "out"))
    stats_files = list((out / "_runs" / run_id / "_stats").glob("*.json"))
    stats = [json.loads(p.read_text()) for p in stats_files]
    written = sum(s["written"] for s in stats)
    skipped = sum(sum(s["skipped"].values()) for s in stats)
    errors = sum(s["errors"] for s in stats)
    partial = sum(s["partial_errors"] for s in stats)
    runs_row = any((out / "runs").rglob("*.parquet")) if (out / "runs").exists() else False
    crashed = measured.returncode < 0 or measured.returncode == -999
    aborted = (measured.returncode not in (0, 3) or "Traceback" in measured.stderr
               or not runs_row)
    return {"name": name, "records": records, "written": written, "skipped": skipped,
            "errors": errors, "partial": partial,
            "unaccounted": records - (written + skipped + errors) if stats else records,
            "aborted": aborted, "crash": crashed, "touched": touched, "exit": measured.returncode,
            "wall": measured.wall, "cpu": measured.cpu, "rss": measured.peak_rss_mb,
            "size": (work / "inputs" / file).stat().st_size,
            "stderr": measured.stderr[-400:] if aborted else "", "out": out, "floor": floor}


def run(lines: list[str], names: list[str] | None = None,
        progress: Callable[[str], None] | None = None) -> list[dict]:
    """Build the inputs, run each, append the table to ``lines``; returns the rows."""
    names = names or list(INPUTS)
    work = Path(tempfile.mkdtemp(prefix="redecode-hostile-"))
    try:
        compile_project()
        for sub in ("inputs", "out", "cwd", "tmp", "cache"):
            (work / sub).mkdir()
        subprocess.run([sys.executable, "-m", "bench.hostile_bench", "--make-inputs",
                        str(work / "inputs"), *sum((["--only", n] for n in names), [])],
                       cwd=ROOT, check=True)
        env = {**os.environ, "TMPDIR": str(work / "tmp"), "REDECODE_CACHE_DIR": str(work / "cache")}
        # One run first, not measured, so the cache folder is filled before the listings.
        warm = work / "warm.warc.gz"
        warm.write_bytes(gzip.compress(_record("response", 2, _http(NORMAL)), mtime=0))
        subprocess.run([sys.executable, "-m", "pipeline", "run", str(warm), "--out",
                        str(work / "out" / "warm"), "--quiet"], cwd=work / "cwd", env=env,
                       check=True, capture_output=True)
        rows = []
        for name in names:
            row = run_one(name, work, env)
            rows.append(row)
            if progress:
                progress(f"hostile: {name}: {row['wall']:.1f} s, {row['rss']:.0f} MB, exit {row['exit']}")
        _error_types(rows)  # after every measurement: pyarrow would raise this process's RSS
        _table(lines, rows)
        return rows
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _error_types(rows: list[dict]) -> None:
    """Each row's ``errors`` rows as ``stage/error_type`` (partial ones marked), distinct."""
    import pyarrow.parquet as pq

    for row in rows:
        found: dict[str, None] = {}
        for part in sorted((row["out"] / "errors").rglob("*.parquet")):
            table = pq.read_table(part, columns=["stage", "error_type", "is_partial"]).to_pylist()
            for err in table:
                found[f"{err['error_type']}{' (partial)' if err['is_partial'] else ''}"] = None
        row["error_types"] = ", ".join(found) or "-"


def _table(lines: list[str], rows: list[dict]) -> None:
    lines += ["## Hostile inputs through `redecode run` (one worker, each a whole process)", "",
              f"(The measuring process held {max(r['floor'] for r in rows):.0f} MB, the floor of "
              "any peak RSS below: bench/proc.py.)", "",
              "| input | on disk | records | written | skipped | errors rows | unaccounted | "
              "run aborted | crash | touched outside --out | wall s | CPU s | peak RSS MB | "
              "errors rows' types |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        size = f"{r['size'] / 1e6:.1f} MB" if r["size"] >= 1e5 else f"{r['size'] / 1e3:.0f} KB"
        errors = f"{r['errors']}" + (f" (+{r['partial']} partial)" if r["partial"] else "")
        lines.append(f"| {r['name']} | {size} | {r['records']} | {r['written']} | {r['skipped']} | "
                     f"{errors} | {r['unaccounted']} | {'yes' if r['aborted'] else 0} | "
                     f"{'yes' if r['crash'] else 0} | {len(r['touched'])} | {r['wall']:.1f} | "
                     f"{r['cpu']:.1f} | {r['rss']:.0f} | {r['error_types']} |")
    worst_rss = max(rows, key=lambda r: r["rss"])
    worst_time = max(rows, key=lambda r: r["wall"])
    lines += ["", f"Totals over {len(rows)} inputs: unaccounted records "
              f"{sum(r['unaccounted'] for r in rows)}, runs aborted by one record "
              f"{sum(r['aborted'] for r in rows)}, crashes {sum(r['crash'] for r in rows)}, "
              f"paths touched outside --out {sum(len(r['touched']) for r in rows)}; worst peak RSS "
              f"{worst_rss['rss']:.0f} MB ({worst_rss['name']}; target {RSS_TARGET_MB} MB per "
              f"worker), worst time {worst_time['wall']:.1f} s wall ({worst_time['name']}).", ""]
    for r in rows:
        if r["touched"] or r["aborted"]:
            lines.append(f"- {r['name']}: exit {r['exit']}; touched {r['touched'][:5]}; "
                         f"{r['stderr'].strip()[-300:]}")
    if any(r["touched"] or r["aborted"] for r in rows):
        lines.append("")


def _iter_names(values: list[str] | None) -> Iterator[str]:
    for value in values or []:
        if value not in INPUTS:
            raise SystemExit(f"unknown input {value!r}; known: {', '.join(INPUTS)}")
        yield value


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.hostile_bench")
    parser.add_argument("--only", action="append", help="an input's name (repeatable)")
    parser.add_argument("--make-inputs", help=argparse.SUPPRESS)
    args = parser.parse_args()
    names = list(_iter_names(args.only)) or list(INPUTS)
    if args.make_inputs:
        make_inputs(Path(args.make_inputs), names)
        return
    lines: list[str] = []
    run(lines, names, progress=lambda msg: print(msg, file=sys.stderr, flush=True))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
