"""What a record list costs: planning a columnar-index query's result, and reading a share of
a crawl's records by their byte ranges against reading the whole files.

1. Planning: a list shaped like a Common Crawl columnar-index query's result (int32 offsets
   and lengths, a URL and a status column beside them), ``--rows`` rows over ``--files``
   files, read, checked, resolved and grouped into tasks
   (:func:`pipeline.sources.record_lists.read_record_lists`), in a process of its own:
   wall seconds and the process's peak RSS.
2. Reading: the Common Crawl shaped crawl of :func:`bench.crawl.write_real_crawl`, run
   whole once; then lists of about 1% and 10% of its responses (every 100th, every 10th,
   from the whole run's ``records``), each run as ``redecode run LIST --input-base CRAWL``
   and against the whole-file run, one worker, taking turns, whole process tree (start-up
   included), best CPU of the rounds. Each list run's rows are checked equal to the whole
   run's rows of its records.
3. Requests: one file of that crawl on moto's S3 server on loopback, its records of each
   list (and of every 2nd response) read by :func:`pipeline.sources.ranges.read_located`
   with and without ``coalesce``: the GET requests the S3 file made (fsspec's cache misses:
   each a ranged GET), the bytes they asked for, and the wall time (best of the rounds).

``python -m bench.record_lists_bench [--rows N] [--files F] [--repeats R] [--rounds K]``
prints the tables.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.proc import Measured, compile_project, measure

ROOT = Path(__file__).resolve().parent.parent
REDECODE = str(Path(sys.executable).parent / "redecode")
#: Every n-th response listed: about 1% and 10% of them.
EVERY = (100, 10)

_PLAN = """
import sys, time
import numpy as np, pyarrow as pa, pyarrow.parquet as pq
from pipeline.sources.record_lists import read_record_lists
from pipeline.storage import Storage
rows, files, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = np.random.default_rng(7)
file_of = rng.integers(0, files, rows)
pq.write_table(pa.table({
    "url": pa.array([f"https://h{i % 9973}.example/p/{i}" for i in range(rows)]),
    "fetch_status": pa.array(np.full(rows, 200, np.int16)),
    "warc_filename": pa.array([f"crawl-data/CC-MAIN-2024-10/segments/1/warc/f-{f:05d}.warc.gz"
                               for f in file_of.tolist()]),
    "warc_record_offset": pa.array(rng.integers(0, 1 << 30, rows).astype(np.int32)),
    "warc_record_length": pa.array(rng.integers(500, 60000, rows).astype(np.int32)),
}), path)
start = time.perf_counter()
listed = read_record_lists([path], Storage(), "s3://commoncrawl/")
seconds = time.perf_counter() - start
print(f"{seconds:.2f} {len(listed.tasks)} {sum(len(t) for t in listed.tasks.values())}")
"""


def _plan(rows: int, files: int, work: Path) -> tuple[float, int, int, Measured]:
    """Plan a list of ``rows`` rows in a process of its own: (seconds in
    ``read_record_lists``, tasks, records, the process)."""
    result = measure([sys.executable, "-c", _PLAN, str(rows), str(files),
                      str(work / "index.parquet")], cwd=ROOT)
    if result.returncode != 0:
        raise SystemExit(f"planning failed: {result.stderr}")
    seconds, tasks, records = result.stdout.split()
    return float(seconds), int(tasks), int(records), result


def _run(args: list[str], out: Path, run_id: str) -> Measured:
    cmd = [REDECODE, "run", *args, "--out", str(out), "--run-id", run_id, "-q", "-w", "1"]
    result = measure(cmd)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {result.returncode}\n{result.stderr}")
    return result


def _write_list(out: Path, every: int, path: Path) -> int:
    """A list of every ``every``-th response of the whole run (by file and offset)."""
    import duckdb

    con = duckdb.connect()
    con.execute(f"""
        copy (select warc_filename, warc_record_offset::integer as warc_record_offset,
                     warc_record_length::integer as warc_record_length
              from (select *, row_number() over (order by warc_filename, warc_record_offset) as n
                    from read_parquet('{out}/records/run_id=whole/*.parquet'))
              where n % {every} = 0) to '{path}' (format parquet)""")
    (count,) = con.execute(f"select count(*) from read_parquet('{path}')").fetchone() or (0,)
    return int(count)


def _same_rows(out: Path, listed: str, path: Path) -> bool:
    """The list run's ``records`` rows equal the whole run's rows of the records the list
    at ``path`` names."""
    import duckdb

    con = duckdb.connect()
    part = out / "records" / f"run_id={listed}" / "*.parquet"
    whole = out / "records" / "run_id=whole" / "*.parquet"
    one = f"select * exclude (run_id) from read_parquet('{part}')"
    two = (f"select w.* exclude (run_id) from read_parquet('{whole}') w semi join "
           f"read_parquet('{path}') l using (warc_filename, warc_record_offset)")
    differ = con.execute(f"select (select count(*) from ({one} except all {two})) + "
                         f"(select count(*) from ({two} except all {one})), "
                         f"(select count(*) from ({one}))").fetchone()
    return differ is not None and differ[0] == 0 and differ[1] > 0


def _s3_requests(crawl: Path, out: Path, rounds: int) -> list[str]:
    """Section 3: the GETs reading one file's listed records costs, with and without
    ``coalesce`` (markdown table rows)."""
    import os
    import time

    import duckdb

    from pipeline.sources.ranges import Locator, read_located
    from pipeline.storage import Storage
    from tests.s3server import start_s3_server

    first = sorted(crawl.glob("*.warc.gz"))[0]
    ordered = duckdb.connect().execute(
        f"select warc_record_offset, warc_record_length from read_parquet("
        f"'{out}/records/run_id=whole/*.parquet') where warc_filename = '{first.name}' "
        "order by warc_record_offset").fetchall()
    server = start_s3_server()
    lines = []
    try:
        os.environ.update(server.env)
        bucket = server.make_bucket("bench-lists")
        server.client().upload_file(str(first), bucket.removeprefix("s3://"), first.name)
        storage = Storage()
        for every in (2, *EVERY):
            wanted = [Locator(o, n) for o, n in ordered[every - 1::every]]
            found = {}
            for coalesce in (False, True):
                best = float("inf")
                for _ in range(rounds):
                    with storage.open_read(f"{bucket}/{first.name}", random_access=True) as fh:
                        started = time.perf_counter()
                        got = list(read_located(fh, first.name, wanted, coalesce=coalesce))
                        best = min(best, time.perf_counter() - started)
                        cache = fh.cache  # type: ignore[attr-defined]
                        found[coalesce] = (cache.miss_count, cache.total_requested_bytes, best,
                                           got)
            assert found[False][3] == found[True][3]
            (gets, asked, wall, _), (gets_c, asked_c, wall_c, _) = found[False], found[True]
            lines.append(f"| 1 response in {every} | {len(wanted):,} | {gets:,} / {gets_c:,} "
                         f"| {asked / 1e6:.1f} / {asked_c / 1e6:.1f} | {wall:.2f} / {wall_c:.2f} |")
        size = first.stat().st_size
    finally:
        server.stop()
    return [f"One file of the crawl ({size / 1e6:.1f} MB, {len(ordered):,} HTML responses) on "
            "moto's S3 server on loopback, its listed records read by `read_located`, without "
            "/ with `coalesce` (the records equal); fsspec reads ahead 1 MiB past each read "
            "(`RANDOM_BLOCK`) either way.", "",
            "| records | listed | GET requests | MB requested | wall s |", "|---|---|---|---|---|",
            *lines]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    compile_project()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        seconds, tasks, records, planned = _plan(args.rows, args.files, work)
        crawl = work / "crawl"
        written = json.loads(subprocess.run(
            [sys.executable, "-m", "bench.crawl", str(crawl), "--repeats", str(args.repeats),
             "--files", "8"], cwd=ROOT, stdout=subprocess.PIPE, text=True, check=True).stdout)
        out = work / "out"
        _run([str(crawl)], out, "whole")
        lists = {every: work / f"every-{every}.parquet" for every in EVERY}
        listed = {every: _write_list(out, every, path) for every, path in lists.items()}
        best: dict[str, Measured] = {}
        for round_ in range(args.rounds):
            runs = {"whole": [str(crawl)],
                    **{f"every-{e}": [str(p), "--input-base", str(crawl)] for e, p in lists.items()}}
            for name, run_args in runs.items():
                result = _run(run_args, out, f"{name}-{round_}")
                if name not in best or result.cpu < best[name].cpu:
                    best[name] = result
        same = {every: _same_rows(out, f"every-{every}-0", lists[every]) for every in EVERY}
        requests = _s3_requests(crawl, out, args.rounds)
    print(f"## Record lists: planning a columnar-index query's result\n\n"
          f"{args.rows:,} rows over {args.files:,} files (int32 offsets and lengths, a URL and "
          f"a status column), one process: `read_record_lists` {seconds:.2f} s, "
          f"{tasks:,} tasks of {records:,} records; the process's peak RSS "
          f"{planned.peak_rss_mb:.0f} MB (the list written by it too).\n")
    print(f"## Record lists: a share of a crawl read by byte ranges against the whole files\n\n"
          f"A Common Crawl shaped crawl (`bench.crawl.write_real_crawl`, {args.repeats} repeats: "
          f"{written['records']:,} records, {written['pages']:,} HTML responses, 8 files, "
          "per-record gzip); one worker, whole process tree (start-up included), best CPU of "
          f"{args.rounds} rounds taking turns.\n\n"
          "| run | records listed | CPU s | wall s | peak RSS MB | rows equal the whole run's |\n"
          "|---|---|---|---|---|---|")
    whole = best["whole"]
    print(f"| whole files | all | {whole.cpu:.2f} | {whole.wall:.2f} | {whole.peak_rss_mb:.0f} | - |")
    for every in EVERY:
        run = best[f"every-{every}"]
        print(f"| 1 response in {every} | {listed[every]:,} | {run.cpu:.2f} "
              f"({run.cpu / whole.cpu:.3f}x) | {run.wall:.2f} | {run.peak_rss_mb:.0f} | "
              f"{'yes' if same[every] else 'NO'} |")
    print("\n## Record lists on S3: requests with and without coalescing\n")
    print("\n".join(requests))


if __name__ == "__main__":
    main()

