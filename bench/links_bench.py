"""A page's links, from extraction to the links table, against another checkout's, taking
turns: ``extract()`` and the links table of a row group (:func:`pipeline.runners.worker.links_table`)
over the end-to-end benchmark's real pages (:func:`bench.crawl.real_pages`), each checkout in
its own process, alternating, CPU time per page, best of N.

    python -m bench.links_bench --baseline /tmp/main-export [--rounds 4]

``--baseline`` is a source tree of another commit (``git archive main | tar -x -C DIR``, with
the compiled ``*.so`` files copied beside their sources and the shared corpus at
``DIR/../shared``); it runs with the same interpreter.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Run in a child process: best of 3 passes over the pages, CPU time per page (µs) of
# extract() and of the links tables of row groups of 60 records.
_CHILD = """
import sys, time
from bench.crawl import real_pages
from pipeline.runners.startup import start_worker
start_worker()
from pipeline.extract import extract
from pipeline.runners.worker import Rows, links_table
pages = []
for url, body, encoding in real_pages():
    try:
        pages.append((url, body.decode(encoding, "replace"), encoding))
    except LookupError:  # (a WHATWG label Python does not know)
        pass
clock = time.process_time
best_extract = best_table = float("inf")
for _ in range(3):
    start = clock()
    staged = []
    for i, (url, text, encoding) in enumerate(pages):
        links = extract(text, url, encoding).links
        staged.append(Rows(record={"run_id": "r", "record_id": f"<urn:{i}>", "url": url}, links=links))
    best_extract = min(best_extract, clock() - start)
    start = clock()
    for k in range(0, len(staged), 60):
        links_table(staged[k:k + 60])
    best_table = min(best_table, clock() - start)
print(len(pages), sum(len(rows.links) for rows in staged), best_extract, best_table)
"""


def measure(tree: Path) -> tuple[int, int, float, float]:
    """(pages, links, extract CPU seconds, links tables CPU seconds) with the code in ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", _CHILD], env=env, cwd=tree, capture_output=True,
                         text=True, check=True).stdout.split()
    return int(out[0]), int(out[1]), float(out[2]), float(out[3])


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.links_bench")
    parser.add_argument("--baseline", type=Path, required=True, help="the other source tree")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    best = {"baseline": (float("inf"), float("inf")), "this checkout": (float("inf"), float("inf"))}
    pages = links = 0
    for round_ in range(args.rounds):
        for name, tree in (("baseline", args.baseline), ("this checkout", ROOT)):
            pages, links, extract, table = measure(tree)
            best[name] = (min(best[name][0], extract), min(best[name][1], table))
            print(f"round {round_ + 1}: {name}: extract {extract / pages * 1e6:.0f} µs, links table "
                  f"{table / pages * 1e6:.1f} µs a page", file=sys.stderr, flush=True)
    print(f"| tree | extract, µs a page | links table, µs a page | together (best of {args.rounds}) |")
    print("|---|---|---|---|")
    for name, (extract, table) in best.items():
        print(f"| {name} | {extract / pages * 1e6:.0f} | {table / pages * 1e6:.1f} | "
              f"{(extract + table) / pages * 1e6:.0f} |")
    before, after = best["baseline"], best["this checkout"]
    print(f"\nthis checkout / baseline, pages per CPU-second: extract {before[0] / after[0]:.3f}, "
          f"links table {before[1] / after[1]:.2f}, together {sum(before) / sum(after):.3f} "
          f"({pages} pages, {links} links)")


if __name__ == "__main__":
    main()
