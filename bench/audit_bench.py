"""The audits over a run of many tiny parts: peak RSS and seconds of ``redecode audit``,
``diff`` and ``report`` (each under ``/usr/bin/time -v``) against the number of parts.

    python -m bench.audit_bench --ranks 100000 [--keep DIR] [--memory-limit 1GB]

Decoding 100,000 files is not what is measured, so two runs (``a`` and ``b``) of ``--ranks``
tasks are made from one real task each: one tiny WARC file (5 pages) is decoded for real,
then its parts, stats and completion marker are given to every other rank, each rank's
records naming its own input (so the record keys stay unique and ``--check all`` passes),
and the ``runs`` row is the real one with its counts multiplied (the accounting adds up).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
REDECODE = str(Path(sys.executable).with_name("redecode"))
#: Pages in the one real input file.
PAGES = 5
#: The ``runs`` columns that count, multiplied by the number of ranks.
COUNTS = ("files", "records_seen", "records_written", "records_skipped", "errors",
          "partial_errors", "links_written", "bytes_read")


def build(out: Path, ranks: int, run_ids: tuple[str, ...] = ("a", "b")) -> None:
    """Runs ``run_ids`` of ``ranks`` committed tasks each in ``out`` (see the module)."""
    from tests.crawl_builder import write_warc

    work = Path(tempfile.mkdtemp(prefix="audit-bench-"))
    crawl = work / "crawl"
    crawl.mkdir()
    write_warc(crawl / "f000000.warc.gz", PAGES, seed="a")
    for run_id in run_ids:
        subprocess.run([REDECODE, "run", str(crawl), "--out", str(out), "--run-id", run_id,
                        "-w", "1", "-q"], check=True, capture_output=True)
        spread(out, run_id, ranks)
    shutil.rmtree(work)


def spread(out: Path, run_id: str, ranks: int) -> None:
    """Give rank 0's parts, stats and marker of ``run_id`` to ranks 1 to ``ranks - 1``."""
    meta = out / "_runs" / run_id
    stats = json.loads((meta / "_stats" / "00000.json").read_text())
    marker = json.loads((meta / "_completions" / "00000").read_text())
    folder = {table: out / table / f"run_id={run_id}" for table in ("records", "links", "errors")}
    records = pq.read_table(folder["records"] / "part-00000.parquet")
    for table in ("links", "errors"):
        shutil.copyfile(folder[table] / "part-00000.parquet", meta / f"{table}.parquet")
    inputs = [re.sub(r"f000000", f"f{n:06d}", stats["path"]) for n in range(ranks)]
    for n in range(1, ranks):
        name = f"{n:05d}"
        pq.write_table(records.set_column(
            records.schema.get_field_index("warc_filename"), "warc_filename",
            pa.array([f"f{n:06d}.warc.gz"] * len(records), pa.string()),
        ).set_column(
            records.schema.get_field_index("record_id"), "record_id",
            pa.array([f"{rid}-{n}" for rid in records["record_id"].to_pylist()], pa.string()),
        ), folder["records"] / f"part-{name}.parquet")
        for table in ("links", "errors"):
            # hard links: ext4 takes 65,000 per file, so a fresh copy every 60,000
            source = meta / f"{table}.parquet.{n // 60_000}"
            if not source.exists():
                shutil.copyfile(meta / f"{table}.parquet", source)
            os.link(source, folder[table] / f"part-{name}.parquet")
        (meta / "_stats" / f"{name}.json").write_text(
            json.dumps(stats | {"rank": n, "path": inputs[n]}))
        (meta / "_completions" / name).write_text(json.dumps(marker | {"path": inputs[n]}))
    for path in meta.glob("*.parquet*"):
        path.unlink()
    runs_part = out / "runs" / f"run_id={run_id}" / "part-00000.parquet"
    row = pq.read_table(runs_part).to_pylist()[0]
    row.update({name: row[name] * ranks for name in COUNTS}, inputs=inputs)
    pq.write_table(pa.Table.from_pylist([row], schema=pq.read_schema(runs_part)), runs_part)


def measure(command: list[str]) -> dict[str, float | int]:
    """Exit code, peak RSS (MB), wall and CPU seconds of ``command`` (``/usr/bin/time -v``)."""
    done = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, text=True)
    stats = dict(re.findall(r"^\s*(.+?): (.+)$", done.stderr, re.MULTILINE))
    minutes, _, seconds = stats["Elapsed (wall clock) time (h:mm:ss or m:ss)"].rpartition(":")
    return {
        "exit": done.returncode,
        "rss_mb": int(stats["Maximum resident set size (kbytes)"]) // 1024,
        "wall_s": round(float(seconds) + 60 * sum(
            int(part) * 60 ** index for index, part in enumerate(reversed(minutes.split(":"))))
            if minutes else float(seconds), 1),
        "cpu_s": round(float(stats["User time (seconds)"])
                       + float(stats["System time (seconds)"]), 1),
    }


def commands(out: Path, extra: list[str]) -> dict[str, list[str]]:
    """The three commands measured over ``out``."""
    return {
        "audit": [REDECODE, "audit", "--out", str(out), "--check", "all", *extra],
        "diff": [REDECODE, "diff", "a", "b", "--out", str(out), *extra],
        "report": [REDECODE, "report", "--out", str(out), "-o", str(out / "report.html"),
                   "--check", "all", *extra],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=20_000)
    parser.add_argument("--keep", type=Path, help="build (or reuse) the runs in this folder")
    parser.add_argument("--only", choices=("audit", "diff", "report"), action="append")
    parser.add_argument("extra", nargs="*", help="more options for each command")
    args = parser.parse_args()
    out = args.keep or Path(tempfile.mkdtemp(prefix="audit-bench-out-"))
    if not (out / "_runs").is_dir():
        print(f"building 2 runs of {args.ranks} tasks in {out}", file=sys.stderr)
        build(out, args.ranks)
    print(f"| command ({args.ranks} tasks a run, 3 tables) | exit | peak RSS MB | wall s "
          "| CPU s |\n|---|---|---|---|---|")
    for name, command in commands(out, args.extra).items():
        if args.only and name not in args.only:
            continue
        result = measure(command)
        print(f"| {name} | {result['exit']} | {result['rss_mb']} | {result['wall_s']} "
              f"| {result['cpu_s']} |", flush=True)
    if args.keep is None:
        shutil.rmtree(out)


if __name__ == "__main__":
    main()
