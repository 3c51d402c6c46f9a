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
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.encoding.decision import Decoded, EncodingDecision, Signal
from pipeline.extract import extract
from pipeline.rules import load_rules
from pipeline.runners.local import run
from pipeline.runners.task import StrictModeError
from pipeline.runners.worker import partial_errors
from pipeline.sources.record import RawRecord
from tests.cli_helpers import readers_of, redecode, runs_row, start
from tests.crawl_builder import http_response, write_records, write_warc

ROOT = Path(__file__).resolve().parent.parent


def table_rows(out: Path, table: str, run_id: str) -> list[tuple]:
    """All rows of one run's table, run_id dropped, sorted (order across parts is not fixed;
    a table without a row has no part)."""
    parts = sorted(str(p) for p in (out / table / f"run_id={run_id}").glob("*.parquet"))
    if not parts:
        return []
    rel = duckdb.execute("select * exclude (run_id) from read_parquet(?)", [parts])
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
    runs = duckdb.execute(f"select records_seen, invariant_ok from read_parquet('{out}/runs/*/*.parquet')")
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

    def markers() -> int:  # (a marker being written is a hidden .tmp file: not one yet)
        return len([p for p in completions.iterdir() if not p.name.startswith(".")])

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if completions.is_dir() and markers() >= 2:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be killed; make the input bigger"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = markers()
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
    # (a task per file: its stats say what each file held)
    summary = run([str(p) for p in files], out, load_rules(None), workers=2, run_id="ws",
                  task_size=0)
    assert summary.invariant_ok, summary.problems
    assert summary.files == 42
    seen = {
        data["path"]: data["seen"]
        for data in (json.loads(p.read_text()) for p in (out / "_runs" / "ws" / "_stats").glob("*.json"))
    }
    assert len(seen) == 42 and min(seen.values()) > 0, seen
    ((error_rows,),) = duckdb.execute(
        f"select count(*) from read_parquet('{out}/errors/run_id=ws/*.parquet')"
    ).fetchall()
    assert error_rows == summary.errors > 0  # the broken files are in the errors table


# --- no single record stops a run --------------------------------------------------------------


def hostile_crawl(folder: Path) -> list[str]:
    """Three files, each with one record that stopped whole runs, beside good ones."""
    folder.mkdir()
    good = http_response(b"<title>fine</title><p>fine</p>")
    write_records(folder / "date.warc.gz", [
        # year 0 in UTC: OverflowError when the time was converted
        ("response", "http://a.example/1", good,
         {"WARC-Date": "0001-01-01T00:00:00+01:00", "WARC-Record-ID": "<urn:uuid:d1>"}),
        ("response", "http://a.example/2", good, {"WARC-Record-ID": "<urn:uuid:d2>"}),
    ])
    write_records(folder / "ccmeta.warc.gz", [
        ("response", "http://b.example/1", good, {"WARC-Record-ID": "<urn:uuid:c1>"}),
        # a language JSON nested 100,000 deep: RecursionError in the metadata join
        ("metadata", "http://b.example/1", b"languages-cld2: " + b'{"a":[' * 50_000 + b"\r\n",
         {"WARC-Concurrent-To": "<urn:uuid:c1>", "WARC-Record-ID": "<urn:uuid:c2>"}),
        ("response", "http://b.example/2", good, {"WARC-Record-ID": "<urn:uuid:c3>"}),
    ])
    pq.write_table(pa.table({
        "url": ["http://c.example/1", "http://c.example/2"],
        "body": [b"<title>big status</title>", b"<title>fine</title>"],
        "status": pa.array([2**40, 200], pa.int64()),  # ArrowInvalid when written as int32
        "headers": pa.array([[("Content-Type", "text/html")]] * 2, pa.map_(pa.string(), pa.string())),
    }), folder / "status.parquet")
    return [str(folder)]


def test_no_single_record_stops_a_run_and_resume_passes(tmp_path: Path) -> None:
    inputs = hostile_crawl(tmp_path / "crawl")
    out = tmp_path / "out"
    summary = run(inputs, out, load_rules(None), workers=2, run_id="h")
    assert summary.invariant_ok, summary.problems
    assert (summary.seen, summary.written, summary.errors) == (7, 5, 2)
    errors = duckdb.execute(
        f"select error_type, message from read_parquet('{out}/errors/run_id=h/*.parquet') order by 1"
    ).fetchall()
    assert [e[0] for e in errors] == ["sink-invalid-row", "source-cc-metadata-invalid"]
    assert "fetch_status: 1099511627776 does not fit int32" in errors[0][1]
    assert "nested too deeply" in errors[1][1]
    ((times,),) = duckdb.execute(
        f"select list(fetch_time is null order by url) from read_parquet('{out}/records/run_id=h/*.parquet') "
        "where url like 'http://a.example/%'"
    ).fetchall()
    assert times == [True, False]  # a time UTC cannot hold is NULL; the record is kept
    # a run killed before its markers were written is resumed over the same records
    for marker in [*(out / "_runs" / "h" / "_completions").iterdir(), out / "_runs" / "h" / "_finished"]:
        marker.unlink()
    resumed = run(inputs, out, load_rules(None), workers=2, run_id="h", resume=True)
    assert resumed.invariant_ok, resumed.problems
    assert resumed.resumed_files == 0 and (resumed.written, resumed.errors) == (5, 2)


def test_a_part_that_failed_in_a_written_record_is_an_errors_row_counted_apart(tmp_path: Path) -> None:
    # 20,000 unclosed <div>: the parse guard keeps the record but extracts nothing from it
    deep = http_response(b"<title>deep</title>" + b"<div>" * 20_000)
    write_records(tmp_path / "deep.warc.gz", [
        ("response", "http://d.example/deep", deep, {"WARC-Record-ID": "<urn:uuid:p1>"}),
        ("response", "http://d.example/ok", http_response(b"<p>ok</p>"), {"WARC-Record-ID": "<urn:uuid:p2>"}),
    ])
    out = tmp_path / "out"
    summary = run([str(tmp_path / "deep.warc.gz")], out, load_rules(None), workers=1, run_id="p")
    assert summary.invariant_ok, summary.problems
    assert (summary.written, summary.errors, summary.partial_errors) == (2, 0, 1)
    ((stage, error_type, partial, record_id),) = duckdb.execute(
        f"select stage, error_type, is_partial, record_id from read_parquet('{out}/errors/run_id=p/*.parquet')"
    ).fetchall()
    assert (stage, error_type, partial, record_id) == ("extract", "extract-parse-failed", True, "<urn:uuid:p1>")
    runs_row = duckdb.execute(
        f"select errors, partial_errors from read_parquet('{out}/runs/run_id=p/*.parquet')").fetchall()
    assert runs_row == [(0, 1)]
    with pytest.raises(StrictModeError, match="extract-parse-failed"):
        run([str(tmp_path / "deep.warc.gz")], tmp_path / "strict", load_rules(None), workers=1,
            run_id="p", strict=True)


def test_a_page_past_max_parse_bytes_is_written_with_a_partial_error(tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text("[extract]\nmax_parse_bytes = 1000\n")
    long_page = http_response(b"<title>long</title><p>" + b"word " * 1000 + b"<a href='/late'>l</a>")
    write_records(tmp_path / "long.warc.gz", [
        ("response", "http://d.example/long", long_page, {"WARC-Record-ID": "<urn:uuid:c1>"}),
        ("response", "http://d.example/ok", http_response(b"<p>ok</p>"), {"WARC-Record-ID": "<urn:uuid:c2>"}),
    ])
    out = tmp_path / "out"
    summary = run([str(tmp_path / "long.warc.gz")], out, load_rules(rules), workers=1, run_id="c")
    assert summary.invariant_ok, summary.problems
    assert (summary.written, summary.errors, summary.partial_errors) == (2, 0, 1)
    ((error_type, partial, record_id, message),) = duckdb.execute(
        "select error_type, is_partial, record_id, message "
        f"from read_parquet('{out}/errors/run_id=c/*.parquet')").fetchall()
    assert (error_type, partial, record_id) == ("extract-input-capped", True, "<urn:uuid:c1>")
    assert "first 1,000 bytes" in message
    ((title, links, fffd),) = duckdb.execute(
        "select title, links_count, replacement_chars "
        f"from read_parquet('{out}/records/run_id=c/*.parquet') where url like '%/long'").fetchall()
    assert (title, links, fffd) == ("long", 0, 0)  # the link past the cut is not read


def test_the_rules_max_decompressed_caps_a_stored_block_as_the_reader_reads_it(tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text("[http]\nmax_decompressed = 2000\n")
    write_records(tmp_path / "big.warc.gz", [
        ("response", "http://d.example/big", http_response(b"<p>" + b"x" * 5000), {}),
        ("response", "http://d.example/small", http_response(b"<p>ok</p>"), {}),
    ])
    out = tmp_path / "out"
    summary = run([str(tmp_path / "big.warc.gz")], out, load_rules(rules), workers=1, run_id="m")
    assert summary.invariant_ok, summary.problems
    rows = duckdb.execute(
        "select url, content_truncated from "
        f"read_parquet('{out}/records/run_id=m/*.parquet') order by url").fetchall()
    assert rows == [("http://d.example/big", "cap"), ("http://d.example/small", None)]


def test_an_internal_error_in_the_decision_becomes_a_partial_error() -> None:
    # decide() never raises: after an internal error it decodes as the browser default and
    # leaves a signal, which must reach the errors table (and --strict)
    raw = RawRecord("f.warc", 7, 10, "<urn:uuid:i>", "response", "http://x.example/", None, b"")
    signal_ = Signal("internal-error", None, None, "IndexError: boom")
    decision = EncodingDecision("windows-1252", "default", "windows-1252", "default", "tentative",
                                "standard", None, None, None, (signal_,))
    decoded = Decoded("text", decision, 0, 0)
    fields = extract("<p>text</p>", "http://x.example/", "windows-1252")
    (error,) = partial_errors(raw, decoded, fields)
    assert (error.stage, error.error_type, error.offset, error.record_id) == (
        "encoding", "encoding-decision-failed", 7, "<urn:uuid:i>")
    assert error.message.startswith("IndexError: boom; decoded as windows-1252 (default)")


# --- a killed worker ----------------------------------------------------------------------------


def _kill_readers(path: Path, times: int, deadline: float, run: int) -> int:
    """SIGKILL each process of the run ``run`` (a pid) that opens ``path``, ``times`` times;
    returns how many it killed."""
    killed: set[int] = set()
    while len(killed) < times and time.monotonic() < deadline:
        for pid in readers_of(path, within=run):
            if pid not in killed:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
        time.sleep(0.005)
    return len(killed)


def _crawl_with_victim(folder: Path) -> tuple[list[str], Path]:
    folder.mkdir()
    inputs = []
    for n in range(3):
        path = folder / f"in-{n}.warc.gz"
        write_warc(path, 30, seed=f"w{n}")
        inputs.append(str(path))
    victim = folder / "victim.warc.gz"
    write_warc(victim, 800, seed="v")
    return [*inputs, str(victim)], victim


def test_a_worker_killed_once_is_replaced_and_its_file_retried(tmp_path: Path) -> None:
    inputs, victim = _crawl_with_victim(tmp_path / "crawl")
    out = tmp_path / "out"
    proc = start("run", *inputs, "--out", str(out), "-q", "--run-id", "k1", "--workers", "2")
    assert _kill_readers(victim, 1, time.monotonic() + 60, proc.pid) == 1
    _, stderr = proc.communicate(timeout=120)  # never waits forever
    assert proc.returncode == 0, stderr
    run(inputs, tmp_path / "clean", load_rules(None), workers=1, run_id="k1")
    for table in ("records", "links", "errors"):
        assert table_rows(out, table, "k1") == table_rows(tmp_path / "clean", table, "k1")


def test_a_worker_killed_under_a_task_is_counted_as_a_lost_attempt_and_executor(
    tmp_path: Path, crawl: list[str],
) -> None:
    out = tmp_path / "out"
    fault = f"c:1:3:{tmp_path / 'fired'}:kill"  # rank 1's worker is killed after 3 records
    result = redecode("run", *crawl, "--out", str(out), "--run-id", "c", "--workers", "2",
                      env={"REDECODE_TEST_FAULT": fault})
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "fired").exists()
    row = runs_row(out, "c")
    assert (row["attempts_lost"], row["executors_lost"]) == (1, 1)
    lost = json.loads((out / "_runs" / "c" / "_lost.json").read_text())
    assert [(item["kind"], item["ranks"], item["inputs"]) for item in lost] == [
        ("executor", [], []), ("attempt", [1], [crawl[1]])]
    assert lost[0]["where"] == lost[1]["where"] and lost[0]["where"].startswith("worker process ")
    assert "killed by signal 9 (SIGKILL" in lost[1]["reason"]
    assert f"lost attempt: {lost[1]['where']} ({crawl[1]}): the worker process reading it " \
           "was killed by signal 9" in " ".join(result.stderr.split())
    # the retried attempt gave every row once
    run(crawl, tmp_path / "clean", load_rules(None), workers=1, run_id="c")
    for table in ("records", "links", "errors"):
        assert table_rows(out, table, "c") == table_rows(tmp_path / "clean", table, "c")
    assert runs_row(tmp_path / "clean", "c")["attempts_lost"] == 0


def test_a_file_whose_worker_dies_twice_is_an_errors_row_and_exit_3(tmp_path: Path) -> None:
    inputs, victim = _crawl_with_victim(tmp_path / "crawl")
    out = tmp_path / "out"
    proc = start("run", *inputs, "--out", str(out), "-q", "--run-id", "k2", "--workers", "2")
    assert _kill_readers(victim, 2, time.monotonic() + 60, proc.pid) == 2
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 3, stderr
    assert f"unreadable: {victim}: runner-worker-died: the worker process reading this file was " \
           "killed by signal 9 (SIGKILL" in stderr
    rows = duckdb.execute(
        f"select warc_filename, warc_record_offset, stage, error_type "
        f"from read_parquet('{out}/errors/run_id=k2/*.parquet')").fetchall()
    # (named relative to the run's input root, the crawl folder)
    assert rows == [(victim.relative_to(tmp_path / "crawl").as_posix(), None, "runner",
                     "runner-worker-died")]
    assert len(table_rows(out, "records", "k2")) == 90  # the other files are all there
    row = runs_row(out, "k2")  # both deaths counted, each with the attempt it ended
    assert (row["attempts_lost"], row["executors_lost"]) == (2, 2)
    assert list(out.rglob("*.tmp")) == []
