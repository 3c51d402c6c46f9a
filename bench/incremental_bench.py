"""What a local rule change costs with ``--base-run`` against a full run, whole process.

The crawl is :func:`bench.crawl.write_real_crawl` (Common Crawl shaped: a request, a response
and a metadata record per capture, per-record gzip) with enough repeats for at least
100,000 records. A base run decodes it without rules; then new rules add fallback
overrides for whole hosts (each host reached in every repeat), chosen so that they reach
about 1% and about 6% of the responses. Each rules file is run twice, taking turns: as a full
run and as an incremental run from the base (``redecode run --base-run``), one worker, the
whole process tree measured (bench/proc.py: start-up and imports included); best of the
rounds. The incremental run's rows are checked equal to the full run's.

``python -m bench.incremental_bench [--repeats N] [--rounds R]`` prints the table.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from bench.proc import Measured, compile_project, measure

ROOT = Path(__file__).resolve().parent.parent
REDECODE = str(Path(sys.executable).parent / "redecode")
#: Shares of the responses the two changes reach.
TARGETS = (0.01, 0.06)


def _hosts_reaching(pages: list[tuple[str, str]], share: float) -> list[str]:
    """Base hosts (without the repeat's ``rN.`` label) whose pages make up about ``share``
    of ``pages`` (url, true encoding), legacy hosts first (a rule changes what they decode
    as), in a fixed order."""
    by_host: dict[str, int] = {}
    for url, _ in pages:
        by_host[urlsplit(url).hostname or ""] = by_host.get(urlsplit(url).hostname or "", 0) + 1
    legacy = sorted({urlsplit(url).hostname or "" for url, enc in pages if enc != "UTF-8"})
    others = sorted(set(by_host) - set(legacy))
    chosen: list[str] = []
    reached = 0
    for host in legacy + others:
        if reached >= share * len(pages):
            break
        chosen.append(host)
        reached += by_host[host]
    return chosen


def _rules(hosts: list[str]) -> str:
    return "".join(f'[[encoding.override]]\nhost = "{host}"\nencoding = "Shift_JIS"\n'
                   'mode = "fallback"\n\n' for host in hosts)


def _run(crawl: Path, out: Path, run_id: str, rules: Path | None,
         base: str | None = None) -> Measured:
    cmd = [REDECODE, "run", str(crawl), "--out", str(out), "--run-id", run_id, "-q", "-w", "1"]
    cmd += ["--rules", str(rules)] if rules else []
    cmd += ["--base-run", base] if base else []
    result = measure(cmd)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {result.returncode}\n{result.stderr}")
    return result


def _same_rows(out: Path, a: str, b: str) -> bool:
    import duckdb

    con = duckdb.connect()
    for table in ("records", "links", "errors"):
        one, two = (f"select * exclude (run_id) from read_parquet("
                    f"'{out / table / f'run_id={run}' / '*.parquet'}')" for run in (a, b))
        differ = con.execute(f"select (select count(*) from ({one} except all {two})) + "
                             f"(select count(*) from ({two} except all {one}))").fetchone()
        if differ != (0,):
            return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=58)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    compile_project()
    from bench.crawl import real_pages

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        crawl = work / "crawl"
        written = json.loads(subprocess.run(
            [sys.executable, "-m", "bench.crawl", str(crawl), "--repeats", str(args.repeats),
             "--files", "8"], cwd=ROOT, stdout=subprocess.PIPE, text=True, check=True).stdout)
        out = work / "out"
        base = _run(crawl, out, "base", None)
        pages = [(url, encoding) for url, _, encoding in real_pages()]
        measured: list[tuple[float, int, Measured, Measured]] = []
        for share in TARGETS:
            hosts = _hosts_reaching(pages, share)
            rules = work / f"rules-{share}.toml"
            rules.write_text(_rules(hosts))
            best_full = best_incremental = None
            for round_ in range(args.rounds):
                full = _run(crawl, out, f"full-{share}-{round_}", rules)
                incremental = _run(crawl, out, f"inc-{share}-{round_}", rules, "base")
                best_full = full if best_full is None or full.cpu < best_full.cpu else best_full
                best_incremental = (incremental if best_incremental is None
                                    or incremental.cpu < best_incremental.cpu else best_incremental)
            assert best_full is not None and best_incremental is not None
            measured.append((share, len(hosts), best_full, best_incremental))
        # compared once every command is measured: DuckDB's memory in this process would be
        # the floor of the peak RSS of every command measured after it (bench/proc.py)
        rows = [(share, hosts, duckdb_runs(out, f"inc-{share}-0"), full, incremental,
                 _same_rows(out, f"full-{share}-0", f"inc-{share}-0"))
                for share, hosts, full, incremental in measured]
    print(f"## Incremental re-decode (`--base-run`) against a full run, one worker\n\n"
          f"A Common Crawl shaped crawl (`bench.crawl.write_real_crawl`, {args.repeats} "
          f"repeats: {written['records']:,} records, {written['pages']:,} HTML responses, 8 "
          f"files); the base run took {base.cpu:.1f} s of CPU. New rules add fallback "
          "overrides for whole hosts; each is run in full and from the base, taking turns, "
          f"best CPU of {args.rounds} rounds, whole process tree (start-up included).\n\n"
          "| change reaches | hosts | records copied | decoded again | full run CPU s | "
          "incremental CPU s | ratio | peak RSS MB (full / incremental) | rows equal |\n"
          "|---|---|---|---|---|---|---|---|---|")
    for share, n_hosts, (copied, redecoded), full, incremental, same in rows:
        print(f"| {redecoded / max(copied + redecoded, 1):.1%} of the records "
              f"(target {share:.0%}) | {n_hosts} | {copied:,} | {redecoded:,} | {full.cpu:.1f} | "
              f"{incremental.cpu:.1f} | **{incremental.cpu / full.cpu:.3f}x** | "
              f"{full.peak_rss_mb:.0f} / {incremental.peak_rss_mb:.0f} | "
              f"{'yes' if same else 'NO'} |")


def duckdb_runs(out: Path, run_id: str) -> tuple[int, int]:
    """(records copied, records decoded again) of a run, from its runs row."""
    import duckdb

    row = duckdb.connect().execute(f"select records_copied, records_redecoded from read_parquet("
                                   f"'{out}/runs/run_id={run_id}/*.parquet')").fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


if __name__ == "__main__":
    main()
