"""End to end against the peer stacks: one crawl, each pipeline a whole process, interleaved.

    python -m bench.e2e_bench [--repeats 4] [--rounds 5]

The crawl (:func:`bench.crawl.write_real_crawl`) is shaped like a Common Crawl file (request,
response, metadata per capture; per-record gzip) and made of real pages: the 181
article-extraction pages and the chardet corpus, ``--repeats`` times under other URLs, plus
the real (and partly broken) files of ``warc-samples``. Each round runs every contender once,
in turn, so all meet the same moments of a shared machine; each keeps its best CPU time.

A contender's CPU time is that of its whole process tree (pool workers and the fork server
included; :mod:`bench.proc`), start-up and imports included; its peak RSS is that of its
largest process. ``pages`` is what each wrote (the peers stop reading a file at a broken
record, so they may write fewer).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.crawl import CORPUS, RealCrawl
from bench.proc import Measured, compile_project, measure, own_rss_mb

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = 5
#: The naive stack is ~10x slower than the others; its ratio target (6x) is far from noise.
NAIVE_ROUNDS = 3
_SAMPLE_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz", ".warc.lz4")
#: The rules of "redecode-lean": what the resiliparse stack gives (encoding, title, main
#: text) with redecode's own columns, no links and no language detection.
LEAN_RULES = "[extract]\nmax_links = 0\ndetect_language = false\n"


@dataclass(frozen=True, slots=True)
class Contender:
    """One pipeline: a label, the command that runs it, how many worker processes it uses."""

    key: str
    label: str
    workers: int


CONTENDERS = (
    Contender("redecode-1", "redecode run, 1 worker (all fields)", 1),
    Contender("redecode-2", "redecode run, 2 workers (all fields)", 2),
    Contender("redecode-lean", "redecode run, 1 worker, without links and language detection "
              "(rules: `max_links = 0`, `detect_language = false`)", 1),
    Contender("resiliparse", "resiliparse stack: FastWARC + detect_encoding + HTMLTree + "
              "html2text main content + Parquet", 1),
    Contender("charset-normalizer", "charset-normalizer stack: warcio + header charset, else "
              "charset-normalizer + lxml.html + Parquet", 1),
    Contender("naive", "naive stack: warcio + requests' decoding (header charset, else "
              "ISO-8859-1) + BeautifulSoup + Parquet", 1),
    Contender("floor", "floor: warcio + header charset (else UTF-8) + Parquet, no parse", 1),
    Contender("floor-2", "floor, two processes at once (every other file each)", 2),
    # The same pairs with each process in a session of its own (setsid): the kernel's
    # autogroup scheduler shares the CPU between sessions first, so two processes of one
    # session under load get one session's share between them (see the scaling table).
    Contender("redecode-2s", "two redecode runs, 1 worker each, own sessions", 2),
    Contender("floor-2s", "floor, two processes, own sessions", 2),
)
#: The contenders of the main table (the others are for the scaling table only).
PEERS = ("redecode-1", "redecode-2", "redecode-lean", "resiliparse", "charset-normalizer", "naive", "floor",
         "floor-2")


def sample_inputs() -> list[Path]:
    """The real WARC/ARC files of warc-samples (broken ones included)."""
    return sorted(p for p in (CORPUS / "warc-samples").rglob("*")
                  if p.is_file() and p.name.endswith(_SAMPLE_SUFFIXES))


@dataclass(frozen=True, slots=True)
class Run:
    """One contender's run: the process tree measured, the pages written, and for redecode the
    CPU seconds its tasks reported (the workers' time inside ``run_task``)."""

    measured: Measured
    pages: int
    task_cpu: float | None
    loadavg: float  # the machine's 1-minute load average when the run ended
    rss_floor_mb: float  # the measuring process's RSS when it started the run (bench/proc.py)


def _run(contender: Contender, inputs: list[Path], work: Path) -> Run:
    """Run one contender once."""
    out = work / f"out-{contender.key}"
    shutil.rmtree(out, ignore_errors=True)
    stacks = [sys.executable, "-m", "bench.stacks"]
    prog = " ".join(map(shlex.quote, stacks))
    halves = [" ".join(shlex.quote(str(p)) for p in inputs[i::2]) for i in range(2)]
    run = [sys.executable, "-m", "pipeline", "run"]
    if contender.key in ("redecode-1", "redecode-2", "redecode-lean"):
        cmd = [*run, *map(str, inputs), "--out", str(out), "--workers", str(contender.workers),
               "--quiet", "--run-id", "bench"]
        if contender.key == "redecode-lean":
            rules = work / "lean-rules.toml"
            rules.write_text(LEAN_RULES, "utf-8")
            cmd += ["--rules", str(rules)]
    elif contender.key == "redecode-2s":
        ours = " ".join(map(shlex.quote, run))
        cmd = ["sh", "-c", " & ".join(
            f"setsid -w {ours} {halves[i]} --out {out} --workers 1 --quiet --run-id bench{i}"
            for i in range(2)) + "; wait"]
    elif contender.key in ("floor-2", "floor-2s"):
        out.mkdir(parents=True)
        setsid = "setsid -w " if contender.key == "floor-2s" else ""
        cmd = ["sh", "-c", " & ".join(f"{setsid}{prog} floor {out}/{i}.parquet {halves[i]}"
                                      for i in range(2)) + "; wait"]
    else:
        out.mkdir(parents=True)
        cmd = [*stacks, contender.key, str(out / "pages.parquet"), *map(str, inputs)]
    floor = own_rss_mb()
    measured = measure(cmd, cwd=ROOT)
    if measured.returncode not in (0, 3):  # 3: some samples are unreadable, by design
        raise RuntimeError(f"{contender.key} exited {measured.returncode}: {measured.stderr[-2000:]}")
    task_cpu = None
    if contender.key.startswith("redecode"):
        stats = [json.loads(p.read_text()) for p in out.glob("_runs/bench*/_stats/*.json")]
        pages = sum(s["written"] for s in stats)
        task_cpu = sum(s["cpu_seconds"] for s in stats)
    else:
        pages = sum(int(n) for n in measured.stdout.split())
    return Run(measured, pages, task_cpu, os.getloadavg()[0], floor)


def startup(contender: Contender, work: Path) -> float:
    """The contender's CPU seconds on a crawl of one page per worker: start-up, imports and
    first-use loading (best of three)."""
    tiny = []
    for k in range(contender.workers):
        path = work / "tiny" / f"tiny-{k}.warc.gz"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_one_page(path, k)
        tiny.append(path)
    return min(_run(contender, tiny, work).measured.cpu for _ in range(3))


def _write_one_page(path: Path, k: int) -> None:
    import io

    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    body = (b"<!doctype html><html lang=en><head><title>One</title></head><body><p>"
            b"A single page, so that what a pipeline costs before its first page shows.</p>"
            b"</body></html>")
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        writer.write_record(writer.create_warc_record(
            f"http://one.example/{k}", "response", payload=io.BytesIO(body),
            http_headers=StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")],
                                          protocol="HTTP/1.1")))


def _build_crawl(folder: Path, repeats: int) -> RealCrawl:
    # In a process of its own: the pages it reads would stay in this one's RSS, the floor of
    # every peak RSS measured from here (bench/proc.py).
    out = subprocess.run([sys.executable, "-m", "bench.crawl", str(folder), "--repeats",
                          str(repeats), "--files", "4"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    data = json.loads(out)
    return RealCrawl(tuple(Path(p) for p in data["paths"]), data["pages"], data["html_bytes"],
                     data["records"])


def run(lines: list[str], *, repeats: int = 4, rounds: int = ROUNDS, progress=None) -> dict:
    """Append the end-to-end section to ``lines``; returns the raw bests (for the scaling
    section)."""
    work = Path(tempfile.mkdtemp(prefix="redecode-e2e-"))
    try:
        compile_project()
        crawl = _build_crawl(work / "crawl", repeats)
        inputs = [*crawl.paths, *sample_inputs()]
        best: dict[str, Run] = {}
        walls: dict[str, list[float]] = {c.key: [] for c in CONTENDERS}
        loads: list[float] = []
        for round_ in range(rounds):
            for contender in CONTENDERS:
                if contender.key == "naive" and round_ >= NAIVE_ROUNDS:
                    continue
                result = _run(contender, inputs, work)
                walls[contender.key].append(result.measured.wall)
                loads.append(result.loadavg)
                if progress:
                    progress(f"e2e round {round_ + 1}/{rounds}: {contender.key} "
                             f"{result.measured.cpu:.2f} s CPU, {result.measured.wall:.2f} s wall, "
                             f"load {result.loadavg:.1f}")
                held = best.get(contender.key)
                if held is None or result.measured.cpu < held.measured.cpu:
                    best[contender.key] = result
        starts = {c.key: startup(c, work) for c in CONTENDERS if c.key in PEERS}
        _table(lines, crawl, len(inputs) - len(crawl.paths), best, starts, rounds)
        _scaling(lines, best, walls, loads)
        return best
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _table(lines: list[str], crawl: RealCrawl, samples: int, best: dict[str, Run],
           starts: dict[str, float], rounds: int) -> None:
    mb = crawl.html_bytes / 1e6
    warc_mb = sum(p.stat().st_size for p in crawl.paths) / 1e6
    lines += [f"## End to end against the peer stacks ({crawl.pages:,} real HTML pages, {mb:.0f} MB "
              f"of HTML in {crawl.records:,} records, {warc_mb:.0f} MB WARC.gz, Common Crawl "
              f"shaped; plus the {samples} warc-samples files)", "",
              f"Each pipeline a whole process tree (start-up, imports and pool workers included), "
              f"taking turns, best CPU time of {rounds} rounds (naive: {NAIVE_ROUNDS}). MB = HTML "
              "payload of the crawl; per core = per CPU-second. Start-up: CPU on a crawl of one "
              "page per worker; \"after start-up\" divides by the CPU time less that. Peak RSS: "
              f"the largest process (the measuring process held "
              f"{max(r.rss_floor_mb for r in best.values()):.0f} MB, the floor "
              "of any peak: bench/proc.py).", "",
              "| pipeline | pages written | CPU s | pages per CPU-second | MB/s per core | "
              "start-up CPU s | pages per CPU-second after start-up | peak RSS MB | x resiliparse "
              "| x naive |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    rates = {key: run.pages / run.measured.cpu for key, run in best.items()}
    after = {key: run.pages / max(run.measured.cpu - starts[key], 1e-9) for key, run in best.items()
             if key in starts}
    for contender in CONTENDERS:
        if contender.key not in PEERS:
            continue
        run = best[contender.key]
        lines.append(
            f"| {contender.label} | {run.pages:,} | {run.measured.cpu:.2f} | "
            f"{rates[contender.key]:.0f} | {mb / run.measured.cpu:.1f} | {starts[contender.key]:.2f} | "
            f"{after[contender.key]:.0f} | {run.measured.peak_rss_mb:.0f} | "
            f"{rates[contender.key] / rates['resiliparse']:.2f} | "
            f"{rates[contender.key] / rates['naive']:.2f} |")
    one = rates["redecode-1"]
    lines += ["", f"redecode, one worker, pages per CPU-second: **{one / rates['resiliparse']:.2f}x** "
              f"the resiliparse stack ({after['redecode-1'] / after['resiliparse']:.2f}x after "
              f"start-up), **{one / rates['charset-normalizer']:.2f}x** the charset-normalizer stack, "
              f"**{one / rates['naive']:.1f}x** the naive stack ({time.strftime('%Y-%m-%d')}, "
              f"{os.cpu_count()} cores). Without links and language detection: "
              f"**{rates['redecode-lean'] / rates['resiliparse']:.2f}x** the resiliparse stack "
              f"({after['redecode-lean'] / after['resiliparse']:.2f}x after start-up).", ""]


def _scaling(lines: list[str], best: dict[str, Run], walls: dict[str, list[float]],
             loads: list[float]) -> None:
    one, two = best["redecode-1"], best["redecode-2"]
    f1, f2 = best["floor"], best["floor-2"]
    assert one.task_cpu and two.task_cpu
    lines += ["### Two workers against one (same rounds)", "",
              "CPU per page says whether a second worker makes each page dearer (memory, caches, "
              "start-up, a serial step). Wall time also depends on what else the machine runs: the "
              f"1-minute load average during these rounds was {min(loads):.1f}-{max(loads):.1f} on "
              f"{os.cpu_count()} cores, and with the kernel's autogroup scheduling "
              f"(`kernel.sched_autogroup_enabled` = {_autogroup()}) the CPU is shared between "
              "sessions first: the processes of one run (one session) share one session's share "
              "when other sessions are busy, so a second worker adds little wall-clock speed then, "
              "for redecode as for the floor. Two processes in sessions of their own get two "
              "shares (last two rows).", "",
              "| pipeline | CPU ms per page, 1 | CPU ms per page, 2 | x | best wall s, 1 | "
              "best wall s, 2 | wall speed-up |", "|---|---|---|---|---|---|---|"]
    rows = [("redecode, whole process tree", one.measured.cpu / one.pages, two.measured.cpu / two.pages,
             min(walls["redecode-1"]), min(walls["redecode-2"])),
            ("redecode, inside its tasks", one.task_cpu / one.pages, two.task_cpu / two.pages,
             None, None),
            ("floor (one process vs two)", f1.measured.cpu / f1.pages, f2.measured.cpu / f2.pages,
             min(walls["floor"]), min(walls["floor-2"])),
            ("redecode: one run vs two runs in sessions of their own",
             one.measured.cpu / one.pages,
             best["redecode-2s"].measured.cpu / best["redecode-2s"].pages,
             min(walls["redecode-1"]), min(walls["redecode-2s"])),
            ("floor: one process vs two in sessions of their own", f1.measured.cpu / f1.pages,
             best["floor-2s"].measured.cpu / best["floor-2s"].pages, min(walls["floor"]),
             min(walls["floor-2s"]))]
    for name, c1, c2, w1, w2 in rows:
        wall = (f"{w1:.2f} | {w2:.2f} | {w1 / w2:.2f}x" if w1 is not None and w2 is not None
                else "| |")
        lines.append(f"| {name} | {c1 * 1e3:.3f} | {c2 * 1e3:.3f} | {c2 / c1:.2f} | {wall} |")
    lines.append("")


def _autogroup() -> str:
    try:
        return Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip()
    except OSError:
        return "n/a"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.e2e_bench")
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args()
    lines: list[str] = []
    run(lines, repeats=args.repeats, rounds=args.rounds,
        progress=lambda msg: print(msg, file=sys.stderr, flush=True))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
