"""One task's cost against another checkout's, taking turns: a task's CPU seconds (run and
committed, as a pool worker does) and peak RSS over the bench crawl, each checkout in its
own process, alternating, best of N. The crawl is :func:`bench.crawl.write_crawl`'s
generated pages (``--mb``), or with ``--real N`` the end-to-end benchmark's real pages
(:func:`bench.crawl.write_real_crawl`, N times over).

    python -m bench.task_bench --baseline /tmp/main-export [--rounds 5] [--mb 20 | --real 1]

``--baseline`` is a source tree of another commit (``git archive main | tar -x -C DIR``, with
the compiled ``*.so`` files copied beside their sources); it runs with the same interpreter.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Run in a child process: best-of-3 CPU per file over the crawl, after one warm-up task.
_CHILD = """
import resource, sys, tempfile, time
from pathlib import Path
from pipeline.rules import load_rules
from pipeline.runners.task import Task
try:  # parts written under an attempt's names, then committed (what a pool worker does)
    from pipeline.runners.task import run_and_commit as run_task
except ImportError:  # a checkout whose run_task put its parts in place itself
    from pipeline.runners.task import run_task
try:
    from pipeline.runners.startup import start_worker
    start_worker()
except ImportError:  # a checkout from before start_worker: run_task set up the process
    pass
paths = sorted(Path(sys.argv[1]).glob("*.warc.gz"))
rules, out = load_rules(None), tempfile.mkdtemp()
run_task(Task(99, str(paths[0]), "warm", out, rules))
total = 0.0
for i, path in enumerate(paths):
    best = float("inf")
    for attempt in range(3):
        start = time.process_time()
        run_task(Task(i, str(path), f"r{attempt}", out, rules))
        best = min(best, time.process_time() - start)
    total += best
print(total, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def measure(tree: Path, crawl: Path) -> tuple[float, float]:
    """(CPU seconds, peak RSS MB) of the tasks over ``crawl`` with the code in ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", _CHILD, str(crawl)], env=env, cwd=tree,
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.task_bench")
    parser.add_argument("--baseline", type=Path, required=True, help="the other source tree")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--mb", type=int, default=20, help="MB of HTML in the crawl")
    parser.add_argument("--real", type=int, default=0, metavar="N",
                        help="the real pages of the end-to-end benchmark, N times over, instead")
    args = parser.parse_args()
    from bench.crawl import write_crawl, write_real_crawl

    crawl = Path(tempfile.mkdtemp(prefix="redecode-task-bench-")) / "crawl"
    if args.real:
        real = write_real_crawl(crawl, repeats=args.real, files=2)
        paths, pages = list(real.paths), real.pages
    else:
        paths = write_crawl(crawl, total_mb=args.mb, files=2)
        pages = args.mb * 1024 // 40
    best = {"baseline": (float("inf"), 0.0), "this checkout": (float("inf"), 0.0)}
    for round_ in range(args.rounds):
        for name, tree in (("baseline", args.baseline), ("this checkout", ROOT)):
            cpu, rss = measure(tree, crawl)
            best[name] = (min(best[name][0], cpu), max(best[name][1], rss))
            print(f"round {round_ + 1}: {name}: {cpu:.3f} s CPU", file=sys.stderr, flush=True)
    print(f"| tree | pages per CPU-second (best of {args.rounds}) | peak RSS MB |")
    print("|---|---|---|")
    for name, (cpu, rss) in best.items():
        print(f"| {name} | {pages / cpu:.0f} | {rss:.0f} |")
    ratio = best["baseline"][0] / best["this checkout"][0]
    print(f"\nthis checkout / baseline, pages per CPU-second: {ratio:.3f} "
          f"({len(paths)} files, {pages} pages)")


if __name__ == "__main__":
    main()
