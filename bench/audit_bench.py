"""The audits over runs of many tiny parts: peak RSS and seconds of ``redecode audit``,
``diff`` and ``report`` (each under ``/usr/bin/time -v``).

    python -m bench.audit_bench --ranks 100000 --second 1000 [--keep DIR] [-- --memory-limit 1GB]

Decoding 100,000 files is not what is measured, so the two runs (``a`` of ``--ranks`` tasks,
``b`` of ``--second``) are made from one real task each (``tests/many_parts.py``): one tiny
WARC file (5 pages) is decoded for real, then its parts, stats and completion marker are
given to every other rank, each rank's records naming its own input (the record keys stay
unique and ``--check all`` passes; ``--linked`` hard-links run a's instead), and the ``runs``
row counts them all.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REDECODE = str(Path(sys.executable).with_name("redecode"))
#: Pages in the one real input file.
PAGES = 5


def build(out: Path, ranks: int, second: int | None = None, *, distinct: bool = True) -> None:
    """Runs ``a`` of ``ranks`` and ``b`` of ``second`` (default: as many) committed tasks in
    ``out`` (see the module); ``distinct=False`` hard-links rank 0's records part to every
    rank of ``a`` (fast, but its record keys repeat and ``check_record_key_unique`` fails;
    ``b`` keeps distinct record ids, or the diff's join on them would grow as the product
    of the two runs)."""
    from tests.crawl_builder import write_warc
    from tests.many_parts import spread

    work = Path(tempfile.mkdtemp(prefix="audit-bench-"))
    crawl = work / "crawl"
    crawl.mkdir()
    write_warc(crawl / "f000000.warc.gz", PAGES, seed="a")
    for run_id, count in (("a", ranks), ("b", ranks if second is None else second)):
        subprocess.run([REDECODE, "run", str(crawl), "--out", str(out), "--run-id", run_id,
                        "-w", "1", "-q"], check=True, capture_output=True)
        spread(out, run_id, count, distinct=distinct or run_id == "b")
    shutil.rmtree(work)


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
    parser.add_argument("--ranks", type=int, default=20_000, help="tasks of run a")
    parser.add_argument("--second", type=int, help="tasks of run b (default: --ranks)")
    parser.add_argument("--linked", action="store_true",
                        help="hard-link every records part of run a to rank 0's (minutes for "
                             "100,000 ranks instead of hours; check_record_key_unique fails)")
    parser.add_argument("--keep", type=Path, help="build (or reuse) the runs in this folder")
    parser.add_argument("--only", choices=("audit", "diff", "report"), action="append")
    parser.add_argument("extra", nargs="*", help="more options for each command")
    args = parser.parse_args()
    out = args.keep or Path(tempfile.mkdtemp(prefix="audit-bench-out-"))
    if not (out / "_runs").is_dir():
        print(f"building runs of {args.ranks} and {args.second or args.ranks} tasks in {out}",
              file=sys.stderr)
        build(out, args.ranks, args.second, distinct=not args.linked)
    print(f"| command (runs of {args.ranks} and {args.second or args.ranks} tasks) | exit "
          "| peak RSS MB | wall s "
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
