"""A run of many tiny input files: CPU per input and objects written.

    python -m bench.many_inputs_bench [--inputs 10000] [--workers 2] [--keep DIR]
        [--tree DIR] [redecode run options...]

Writes ``--inputs`` one-record WARC files (hard links to one file, so writing them costs
nothing; each is still its own input, named by its own path), runs ``redecode run`` over
them as a user does, and prints the CPU time of the run and all its processes, that CPU
per input, the wall time, and the files the run left in ``--out`` (parts, stats, markers,
the run's metadata). The CPU is ``RUSAGE_CHILDREN`` of this process, made a child
subreaper (``PR_SET_CHILD_SUBREAPER``) so that the pool's fork server, which outlives
``redecode`` for a moment and reaps the workers, is reparented here and reaped too: its
workers' CPU would be lost otherwise. ``--tree`` runs the code of another source tree
(``git archive COMMIT | tar -x -C DIR``, the compiled ``*.so`` files copied beside their
sources) with the same interpreter.
"""

from __future__ import annotations

import argparse
import ctypes
import io
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter


def write_one(path: Path) -> None:
    """One WARC file holding one small HTML response."""
    body = b"<html><head><title>t</title></head><body><p>hello, world</p></body></html>"
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8"),
                                              ("Content-Length", str(len(body)))],
                                   protocol="HTTP/1.1")
        writer.write_record(writer.create_warc_record(
            "http://example.com/", "response", payload=io.BytesIO(body), http_headers=headers,
            warc_headers_dict={"WARC-Date": "2026-01-02T03:04:05Z"}))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.many_inputs_bench")
    parser.add_argument("--inputs", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", type=Path, default=None, help="work here (kept)")
    parser.add_argument("--tree", type=Path, default=None, help="run this source tree")
    args, extra = parser.parse_known_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="redecode-many-inputs-"))
    crawl = work / "crawl"
    crawl.mkdir(parents=True, exist_ok=True)
    source = work / "one.warc.gz"
    write_one(source)
    for n in range(args.inputs):
        target = crawl / f"f{n:07d}.warc.gz"
        copy = source.with_name(f"one-{n // 60_000}.warc.gz")  # ext4: 65,000 links a file
        if not copy.exists():
            copy.write_bytes(source.read_bytes())
        if not target.exists():
            os.link(copy, target)
    out = work / "out"
    if out.exists():
        sys.exit(f"{out} exists: remove it first")
    command = [sys.executable, "-c", "import sys; from pipeline.cli import app; "
               "sys.argv[0] = 'redecode'; sys.exit(app())", "run", str(crawl), "--out",
               str(out), "-w", str(args.workers), "-q", *extra]
    env = dict(os.environ)
    if args.tree:
        env["PYTHONPATH"] = str(args.tree.resolve())
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env,
                          cwd=args.tree or None)
    wall = time.monotonic() - started
    while True:  # the orphans reparented here (the fork server): their CPU counts once reaped
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"redecode exited {done.returncode}: {done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    objects = sum(len(files) for _, _, files in os.walk(out))
    print(f"{args.inputs} inputs, {args.workers} workers: {cpu:.1f} s CPU "
          f"({1000 * cpu / args.inputs:.2f} ms per input), {wall:.1f} s wall, "
          f"{objects} files in --out (inputs / 20 + 100 = {args.inputs // 20 + 100})")


if __name__ == "__main__":
    main()
