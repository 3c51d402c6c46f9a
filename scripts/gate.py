"""The regression gate over the sample crawl (STYLE.md rule 12, trafilatura's baseline gate).

    python scripts/gate.py            # compare a fresh run of data/sample with the baseline
    python scripts/gate.py --update   # rewrite tests/gate/baseline.json (only ever tightening)
    python scripts/gate.py --update --allow-regression   # loosen it, on purpose

The baseline pins the sha256 of every file in data/sample/, the decision of every decoded
record, and totals that must never rise (replacement characters, decode errors, mojibake
flags, errors rows).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import duckdb

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample"
BASELINE = ROOT / "tests" / "gate" / "baseline.json"
#: Totals where a rise is a regression.
NEVER_RISE = ("replacement_chars", "decode_errors", "mojibake_flagged", "error_rows")


def measure() -> dict[str, Any]:
    """Run the pipeline on data/sample (with its rules) and collect what the gate pins."""
    from pipeline.encoding.mojibake import MOJIBAKE_THRESHOLD
    from pipeline.rules import load_rules
    from pipeline.runners.local import run

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        run([str(SAMPLE)], out, load_rules(SAMPLE / "rules.toml"), workers=1, run_id="gate")
        con = duckdb.connect()
        records = con.sql(
            f"select warc_filename, url, encoding, encoding_source, encoding_browser, "
            f"replacement_chars, decode_errors, mojibake_score "
            f"from read_parquet('{out}/records/run_id=gate/*.parquet')"
        ).fetchall()
        ((error_rows,),) = con.sql(
            f"select count(*) from read_parquet('{out}/errors/run_id=gate/*.parquet')"
        ).fetchall()
    decisions = {
        f"{Path(name).name} {url}": f"{enc} / {source} / browser {browser}"
        for name, url, enc, source, browser, *_ in records
    }
    return {
        "sample_sha256": {
            p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(SAMPLE.iterdir())
        },
        "decisions": dict(sorted(decisions.items())),
        "totals": {
            "records": len(records),
            "replacement_chars": sum(r[5] for r in records),
            "decode_errors": sum(r[6] for r in records),
            "mojibake_flagged": sum(1 for r in records if r[7] > MOJIBAKE_THRESHOLD),
            "error_rows": error_rows,
        },
    }


def compare(baseline: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """What got worse (or drifted) since the baseline; empty when the gate passes."""
    problems = []
    if now["sample_sha256"] != baseline["sample_sha256"]:
        problems.append("data/sample changed: regenerate the baseline with --update")
    for key, want in baseline["decisions"].items():
        got = now["decisions"].get(key)
        if got != want:
            problems.append(f"decision drifted for {key}: {want} -> {got}")
    for key in now["decisions"].keys() - baseline["decisions"].keys():
        problems.append(f"new decoded record {key}: {now['decisions'][key]}")
    for name in NEVER_RISE:
        if now["totals"][name] > baseline["totals"][name]:
            problems.append(f"{name} rose: {baseline['totals'][name]} -> {now['totals'][name]}")
    if now["totals"]["records"] != baseline["totals"]["records"]:
        problems.append(f"records: {baseline['totals']['records']} -> {now['totals']['records']}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/gate.py")
    parser.add_argument("--update", action="store_true", help="rewrite the baseline")
    parser.add_argument("--allow-regression", action="store_true",
                        help="with --update: accept a baseline that is worse than the old one")
    args = parser.parse_args(argv)
    now = measure()
    baseline = json.loads(BASELINE.read_text()) if BASELINE.exists() else None
    if args.update:
        worse = [
            name for name in NEVER_RISE
            if baseline is not None and now["totals"][name] > baseline["totals"][name]
        ]
        if worse and not args.allow_regression:
            print(f"refusing to loosen the baseline ({', '.join(worse)} rose); "
                  "pass --allow-regression to do it on purpose", file=sys.stderr)
            return 1
        BASELINE.write_text(json.dumps(now, indent=2, ensure_ascii=False, sort_keys=True) + "\n")
        print(f"wrote {BASELINE}")
        return 0
    if baseline is None:
        print(f"no baseline at {BASELINE}: run with --update", file=sys.stderr)
        return 1
    problems = compare(baseline, now)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
