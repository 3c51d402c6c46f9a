"""The local runner: accounting, determinism, and resume after SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from pipeline.rules import load_rules
from pipeline.runners.local import run
from tests.crawl_builder import write_warc

ROOT = Path(__file__).resolve().parent.parent


def table_rows(out: Path, table: str, run_id: str) -> list[tuple]:
    """All rows of one run's table, run_id dropped, sorted (order across parts is not fixed)."""
    rel = duckdb.sql(
        f"select * exclude (run_id) from read_parquet('{out}/{table}/run_id={run_id}/*.parquet')"
    )
    return sorted(rel.fetchall(), key=repr)


@pytest.fixture()
def crawl(tmp_path: Path) -> list[str]:
    paths = []
    for n in range(3):
        path = tmp_path / f"in-{n}.warc.gz"
        write_warc(path, 20 + n, seed=f"f{n}-")
        paths.append(str(path))
    return paths


def test_counts_reconcile_with_the_rows_written(tmp_path: Path, crawl: list[str]) -> None:
    out = tmp_path / "out"
    summary = run(crawl, out, load_rules(None), workers=2, run_id="r1")
    assert summary.invariant_ok, summary.problems
    assert summary.seen == 2 * (20 + 21 + 22)  # a response and a request per page
    assert summary.skipped == {"request": 63}
    assert summary.written == 63 and summary.errors == 0
    assert len(table_rows(out, "records", "r1")) == 63
    runs = duckdb.sql(f"select records_seen, invariant_ok from read_parquet('{out}/runs/*/*.parquet')")
    assert runs.fetchall() == [(126, True)]


def test_same_inputs_and_rules_give_the_same_rows(tmp_path: Path, crawl: list[str]) -> None:
    rules = load_rules(None)
    run(crawl, tmp_path / "a", rules, workers=1, run_id="same")
    run(crawl, tmp_path / "b", rules, workers=2, run_id="same")
    for table in ("records", "links", "errors"):
        assert table_rows(tmp_path / "a", table, "same") == table_rows(tmp_path / "b", table, "same")


def test_resume_after_sigkill_gives_exactly_the_uninterrupted_rows(tmp_path: Path) -> None:
    inputs = []
    for n in range(8):
        path = tmp_path / f"big-{n}.warc.gz"
        write_warc(path, 150, seed=f"b{n}-")
        inputs.append(str(path))
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "pipeline", "run", *inputs, "--out", str(out),
           "--run-id", "k", "--workers", "1", "--quiet"]
    proc = subprocess.Popen(cmd, cwd=ROOT, start_new_session=True)
    completions = out / "_runs" / "k" / "_completions"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if completions.is_dir() and len(list(completions.iterdir())) >= 2:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be killed; make the input bigger"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = len(list(completions.iterdir()))
    assert 2 <= done_before < 8
    assert not (out / "_runs" / "k" / "_finished").exists()

    resumed = run(inputs, out, load_rules(None), workers=2, run_id="k", resume=True)
    assert resumed.invariant_ok, resumed.problems
    assert resumed.resumed_files >= done_before
    leftovers = [p for p in out.rglob("*.tmp")]
    assert leftovers == []

    clean = tmp_path / "clean"
    run(inputs, clean, load_rules(None), workers=2, run_id="k")
    for table in ("records", "links", "errors"):
        assert table_rows(out, table, "k") == table_rows(clean, table, "k")


def test_every_warc_sample_is_accounted_and_the_invariant_holds(tmp_path: Path, corpus: Path) -> None:
    # 42 real and broken files from six projects: each yields records or errors rows, the
    # run goes on through every failure, and seen = written + skipped + errors holds against
    # the rows actually written (the per-file counts are pinned in test_warc_samples.py).
    samples = corpus / "warc-samples"
    files = sorted(p for p in samples.rglob("*") if p.is_file() and p.name not in ("README.md", "MANIFEST.tsv"))
    assert len(files) == 42
    out = tmp_path / "out"
    summary = run([str(p) for p in files], out, load_rules(None), workers=2, run_id="ws")
    assert summary.invariant_ok, summary.problems
    assert summary.files == 42
    seen = {
        data["path"]: data["seen"]
        for data in (json.loads(p.read_text()) for p in (out / "_runs" / "ws" / "_stats").glob("*.json"))
    }
    assert len(seen) == 42 and min(seen.values()) > 0, seen
    ((error_rows,),) = duckdb.sql(
        f"select count(*) from read_parquet('{out}/errors/run_id=ws/*.parquet')"
    ).fetchall()
    assert error_rows == summary.errors > 0  # the broken files are in the errors table
