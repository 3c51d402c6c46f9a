"""The crawl where it lives: reading from an S3-compatible server against the local disk,
Spark local mode against the local runner, Spark's start-up cost, and the per-core rate the
README's full-crawl estimate is computed from.

    python -m bench.storage_bench [--mb 40] [--rounds 3]      (also a section of `make bench`)

Each comparison alternates its two sides, round by round, and keeps the best of each (the
machine is shared: read the ratios). The S3 server is moto's, on loopback, on the same
cores: its own CPU is part of the S3 side's cost, so the ratio is a pessimistic one.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _cpu() -> float:
    """CPU seconds of this process and its finished children (pool workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _read_all(storage: object, paths: list[str]) -> tuple[int, int]:
    """Every record of ``paths`` read through the storage layer (no decoding): records, bytes."""
    from pipeline.sources import iter_records

    records = size = 0
    for path in paths:
        with storage.open_read(path) as fh:  # type: ignore[attr-defined]
            for item in iter_records(path, fileobj=fh):
                records += 1
                size += getattr(item, "warc_record_length", 0)
    return records, size


def _run_tasks(paths: list[str], out: str, run_id: str, executor: object = None,
               workers: int = 1) -> float:
    """Wall seconds of a whole run (plan, tasks, commits, accounting, runs row)."""
    from pipeline.rules import load_rules
    from pipeline.runners.local import run

    started = time.perf_counter()
    summary = run(paths, out, load_rules(None), run_id=run_id, workers=workers,
                  executor=executor)  # type: ignore[arg-type]
    assert summary.invariant_ok, summary.problems
    return time.perf_counter() - started


def bench_s3_reading(lines: list[str], crawl: list[Path], rounds: int) -> dict[str, float]:
    """Reading and decoding from the loopback S3 server against the local disk, one worker."""
    from pipeline.storage import Storage
    from tests.s3server import start_s3_server

    server = start_s3_server()
    try:
        os.environ.update(server.env)
        bucket = server.make_bucket("bench-crawl")
        remote = server.upload_tree(crawl[0].parent, f"{bucket}/crawl")
        local = [str(p) for p in crawl]
        size_mb = sum(p.stat().st_size for p in crawl) / 1e6
        storage = Storage()
        best = {k: float("inf") for k in ("read local", "read s3", "run local", "run s3")}
        cpu = dict.fromkeys(best, float("inf"))
        work = Path(tempfile.mkdtemp(prefix="redecode-storage-bench-"))
        for round_ in range(rounds):
            for name, paths in (("local", local), ("s3", remote)):
                started, cpu0 = time.perf_counter(), _cpu()
                _read_all(storage, paths)
                best[f"read {name}"] = min(best[f"read {name}"], time.perf_counter() - started)
                cpu[f"read {name}"] = min(cpu[f"read {name}"], _cpu() - cpu0)
                cpu0 = _cpu()
                wall = _run_tasks(paths, str(work / f"{name}-{round_}"), "b")
                best[f"run {name}"] = min(best[f"run {name}"], wall)
                cpu[f"run {name}"] = min(cpu[f"run {name}"], _cpu() - cpu0)
            print(f"storage bench: round {round_ + 1}: " + ", ".join(
                f"{k} {v:.2f} s" for k, v in best.items()), file=sys.stderr, flush=True)
    finally:
        server.stop()
    lines += [f"## Reading from S3 (moto on loopback) against the local disk, one worker "
              f"(best of {rounds}, alternating)", "",
              f"{len(crawl)} files, {size_mb:.1f} MB of .warc.gz.", "",
              "| what | local disk MB/s | S3 MB/s | S3 / local (target ≥ 0.8) "
              "| CPU s local | CPU s S3 (this process) |",
              "|---|---|---|---|---|---|"]
    ratios = {}
    for what in ("read", "run"):
        mb_local = size_mb / best[f"{what} local"]
        mb_s3 = size_mb / best[f"{what} s3"]
        ratios[what] = mb_s3 / mb_local
        label = ("reading only (records framed, not decoded)" if what == "read"
                 else "whole task: decode and write the parts")
        lines.append(f"| {label} | {mb_local:.1f} | {mb_s3:.1f} | {ratios[what]:.2f} | "
                     f"{cpu[f'{what} local']:.2f} | {cpu[f'{what} s3']:.2f} |")
    lines.append("")
    pages = _pages(crawl)
    return {"mb_per_cpu_second": size_mb / cpu["run local"],
            "pages_per_cpu_second": pages / cpu["run local"]}


def _pages(crawl: list[Path]) -> int:
    """HTML responses in the bench crawl."""
    from pipeline.sources import iter_records

    return sum(1 for path in crawl for item in iter_records(str(path))
               if getattr(item, "record_type", None) == "response")


def bench_spark(lines: list[str], crawl: list[Path], rounds: int) -> None:
    """Spark local mode on 2 cores against the local runner with 2 workers, and the fixed
    cost of starting Spark."""
    from pipeline.runners.spark import spark_executor, spark_session

    started = time.perf_counter()
    session = spark_session("local[2]")
    session.sparkContext.parallelize([0], 1).count()  # the first job starts the workers
    startup = time.perf_counter() - started
    paths = [str(p) for p in crawl]
    work = Path(tempfile.mkdtemp(prefix="redecode-spark-bench-"))
    best = {"local": float("inf"), "spark": float("inf")}
    try:
        for round_ in range(rounds):
            best["local"] = min(best["local"], _run_tasks(paths, str(work / f"l{round_}"), "b",
                                                          workers=2))
            best["spark"] = min(best["spark"], _run_tasks(
                paths, str(work / f"s{round_}"), "b", executor=spark_executor(session)))
            print(f"storage bench: spark round {round_ + 1}: local {best['local']:.2f} s, "
                  f"spark {best['spark']:.2f} s", file=sys.stderr, flush=True)
    finally:
        session.stop()
    lines += [f"## Spark local mode against the local runner, 2 cores (best of {rounds}, "
              "alternating)", "",
              "| runner | seconds for the crawl | local / this |", "|---|---|---|",
              f"| local runner, 2 workers | {best['local']:.2f} | 1.00 |",
              f"| Spark local[2], one task per file | {best['spark']:.2f} | "
              f"{best['local'] / best['spark']:.2f} |", "",
              f"Spark's fixed start-up (session and its first job, before any file): "
              f"{startup:.1f} s.", ""]


#: A Common Crawl monthly crawl (2024-2026): ~90,000 WARC files, ~100 TB gzipped, ~2.7
#: billion HTML responses (Common Crawl's own announcements give 2.5-3.0 billion pages).
CRAWL_TB, CRAWL_PAGES = 100.0, 2.7e9


def full_crawl_estimate(lines: list[str], mb_per_cpu_second: float,
                        pages_per_cpu_second: float) -> None:
    """Core-hours per TB of .warc.gz and for one Common Crawl monthly crawl, from the
    measured per-core rates (the README's section takes these lines)."""
    per_tb = 1e6 / mb_per_cpu_second / 3600
    by_bytes = per_tb * CRAWL_TB
    by_pages = CRAWL_PAGES / pages_per_cpu_second / 3600
    lines += ["## A full crawl, from the measured per-core rate", "",
              f"One core: {mb_per_cpu_second:.2f} MB of .warc.gz and {pages_per_cpu_second:,.0f} "
              "pages per CPU-second (the local runner, one worker, the bench crawl). Per TB, if "
              f"the cost follows the bytes: {per_tb:,.0f} core-hours. One monthly crawl "
              f"(~{CRAWL_TB:.0f} TB, ~{CRAWL_PAGES / 1e9:.1f} billion pages): "
              f"{by_bytes:,.0f} core-hours if the cost follows the bytes, {by_pages:,.0f} if it "
              "follows the pages.", "",
              "| executors × cores | wall hours (by bytes) | wall hours (by pages) |",
              "|---|---|---|"]
    for executors, cores in ((10, 8), (50, 8), (100, 16)):
        lines.append(f"| {executors} × {cores} | {by_bytes / (executors * cores):,.1f} | "
                     f"{by_pages / (executors * cores):,.1f} |")
    lines.append("")


def run(lines: list[str], total_mb: int = 40, rounds: int = 3) -> None:
    """All of this module's sections (what `make bench` calls): the S3 comparison on a crawl
    of ``total_mb`` MB of HTML in 4 files, the Spark one on four times that in 8 files (so
    that a run's fixed costs, a pool's start or a job's scheduling, weigh little)."""
    from bench.crawl import write_crawl

    folder = Path(tempfile.mkdtemp(prefix="redecode-storage-crawl-"))
    crawl = write_crawl(folder / "small", total_mb=total_mb, files=4)
    measured = bench_s3_reading(lines, crawl, rounds)
    bench_spark(lines, write_crawl(folder / "large", total_mb=4 * total_mb, files=8), rounds)
    full_crawl_estimate(lines, measured["mb_per_cpu_second"], measured["pages_per_cpu_second"])


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.storage_bench")
    parser.add_argument("--mb", type=int, default=40, help="MB of HTML in the crawl")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    lines: list[str] = [f"# Storage and Spark ({time.strftime('%Y-%m-%d')}, "
                        f"{os.cpu_count()} cores)", ""]
    run(lines, args.mb, args.rounds)
    print("\n".join(lines))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
