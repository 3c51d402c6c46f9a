"""A run's folder: one safe id pattern, exact-name cleanup, atomic files, an exclusive lock."""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.rules import load_rules
from pipeline.runners.local import run
from pipeline.runners.lock import RunLock
from pipeline.runners.rundir import RunDir, RunRefused, new_attempt, new_run_id, validate_run_id
from pipeline.storage import Storage, join
from tests.crawl_builder import write_warc


def rundir(out: Path, run_id: str) -> RunDir:
    return RunDir(Storage(), str(out), run_id)


@pytest.mark.parametrize(
    "run_id",
    ["../escape", "/abs/path", "a/b", "a=b", "a\nb", "a%2Fb", ".hidden", "..", "", "x" * 129,
     "sp ace", "[red]x"],
    ids=["dotdot", "absolute", "slash", "equals", "newline", "percent", "leading-dot", "parent",
         "empty", "too-long", "space", "markup"],
)
def test_unsafe_run_ids_are_refused(run_id: str) -> None:
    with pytest.raises(RunRefused, match="--run-id"):
        validate_run_id(run_id)


@pytest.mark.parametrize("run_id", ["nightly-1", "2026.01.02_a", "x" * 128, "A"])
def test_safe_run_ids_pass(run_id: str) -> None:
    assert validate_run_id(run_id) == run_id


def test_automatic_ids_differ_within_one_second_and_are_valid() -> None:
    ids = {new_run_id("abcdef0123") for _ in range(50)}
    assert len(ids) == 50
    assert all(validate_run_id(i) for i in ids)


def test_an_absolute_run_id_touches_nothing_outside_out(tmp_path: Path) -> None:
    crawl = tmp_path / "c.warc.gz"
    write_warc(crawl, 1)
    target = tmp_path / "elsewhere"
    with pytest.raises(RunRefused):
        run([str(crawl)], tmp_path / "out", load_rules(None), run_id=str(target))
    assert not target.exists() and not (tmp_path / "out").exists()


def test_a_run_removes_only_the_files_it_made(tmp_path: Path) -> None:
    crawl = tmp_path / "c.warc.gz"
    write_warc(crawl, 2)
    out = tmp_path / "out"
    theirs = [out / "records" / "run_id=X" / ".mine.tmp", out / "records" / "run_id=X" / "notes.txt",
              out / "_runs" / "X" / "_stats" / ".backup.tmp"]
    for path in theirs:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("not the run's")
    # a run killed mid-write left its own temporary parts (two attempts, and one of an
    # earlier version's names): they go, by name
    ours = [out / "records" / "run_id=X" / ".part-00000.parquet.tmp",
            out / "links" / "run_id=X" / ".part-00000-0000.parquet.0a1b2c3d4e5f.tmp",
            out / "errors" / "run_id=X" / ".part-00000-0001.parquet.0a1b2c3d4e5f.tmp"]
    for path in ours:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"partial")
    summary = run([str(crawl)], out, load_rules(None), run_id="X", resume=True, workers=1)
    assert summary.invariant_ok, summary.problems
    assert all(p.read_text() == "not the run's" for p in theirs)
    assert not any(p.exists() for p in ours)
    made = rundir(out, "X").existing_files()
    # (no errors part: the task wrote no errors row)
    assert sorted(Path(p).relative_to(out).as_posix() for p in made) == [
        "_runs/X/_completions/00000", "_runs/X/_finished", "_runs/X/_run.json",
        "_runs/X/_stats/00000.json", "links/run_id=X/part-00000-0000.parquet",
        "records/run_id=X/part-00000-0000.parquet", "runs/run_id=X/part-00000.parquet"]
    assert rundir(out, "X").remove() == len(made)  # what --overwrite does
    assert all(p.read_text() == "not the run's" for p in theirs)
    assert rundir(out, "X").existing_files() == []


@pytest.mark.parametrize("rank", [99_999, 100_000, 1_234_567])
def test_every_reader_of_a_run_folder_sees_a_rank_of_any_width(tmp_path: Path, rank: int) -> None:
    from pipeline.audit import find_parts
    from pipeline.runners.task import run_and_commit
    from pipeline.runners.taskinfo import Task, read_committed

    crawl = tmp_path / "c.warc.gz"
    write_warc(crawl, 3)
    out = tmp_path / "out"
    task = Task(rank, str(crawl), "W", str(out), load_rules(None))
    stats = run_and_commit(task)  # the real task and commit, at this rank
    runs = task.rundir
    digits = str(rank).zfill(5)
    assert Path(runs.task_part("records", rank, 0)).name == f"part-{digits}-0000.parquet"
    assert runs.committed() == {rank}  # what --resume and the accounting trust
    assert read_committed(runs, [rank]) == {rank: stats}
    made = sorted(Path(p).relative_to(out).as_posix() for p in runs.existing_files())
    assert made == [f"_runs/W/_completions/{digits}", f"_runs/W/_stats/{digits}.json",
                    f"links/run_id=W/part-{digits}-0000.parquet",
                    f"records/run_id=W/part-{digits}-0000.parquet"]
    assert runs.final_parts({rank}) == [str(out / f) for f in made[3:1:-1]]
    assert runs.final_parts({rank + 1}) == []
    # what a killed attempt leaves is found by its rank, and removed with the run
    leftover = Path(runs.temp_part("links", rank, 1, new_attempt()))
    leftover.write_bytes(b"partial")
    assert runs.temporary_files() == {rank: [str(leftover)]}
    # the audits read the committed parts (the run has bookkeeping but no _finished)
    (out / "_runs" / "W" / "_run.json").write_text(json.dumps({"inputs": [str(crawl)]}))
    parts = find_parts(out)
    assert parts.files["records"] == (
        str(out / "records" / "run_id=W" / f"part-{digits}-0000.parquet"),)
    assert parts.unreadable == ()
    assert [(u.committed, u.uncommitted_parts) for u in parts.unfinished] == [(1, 0)]
    assert runs.remove() == len(made) + 2  # with the leftover and _run.json
    assert not out.joinpath("records", "run_id=W").exists()


def test_the_accounting_check_reads_the_markers_and_parts_of_six_digit_ranks(
    tmp_path: Path,
) -> None:
    # what a run of 100,002 tasks checks at its end (tests/test_many_tasks.py, slow), here
    # with only ranks 99,999 to 100,001 run and committed for real
    import pyarrow.parquet as pq

    from pipeline.runners.local import check_accounting as _check
    from pipeline.runners.task import run_and_commit
    from pipeline.runners.taskinfo import Task

    crawl = tmp_path / "c.warc.gz"
    write_warc(crawl, 3)
    out = tmp_path / "out"
    done = [run_and_commit(Task(rank, str(crawl), "C", str(out), load_rules(None)))
            for rank in (99_999, 100_000, 100_001)]
    runs = rundir(out, "C")
    never = [f"rank {rank}: never finished (no stats)" for rank in range(99_999)]
    # every part of the three ranks is found under its own rank, as its stats list it
    assert _check(runs, done, 100_002) == never
    # a leading zero makes no rank's name; a part rewritten (its size differs from what the
    # commit wrote) and a lost marker are named by the rank's own six-digit names
    records = out / "records" / "run_id=C"
    (records / "part-100000-0000.parquet").rename(records / "part-0100000-0000.parquet")
    part = records / "part-100001-0000.parquet"
    wrote = part.stat().st_size
    pq.write_table(pq.read_table(part).slice(1), part)
    (out / "_runs" / "C" / "_completions" / "100001").unlink()
    assert done[1].parts["records"][0][2] == wrote
    assert _check(runs, done, 100_002) == [
        *never,
        f"{runs.marker(100_001)}: missing (rank 100001 is not committed)",
        f"{join(runs.partition('records'), 'part-0100000-0000.parquet')}: a file no task of "
        "this run wrote",
        f"{runs.task_part('records', 100_001, 0)}: {part.stat().st_size} bytes, the commit "
        f"wrote {wrote}",
        f"{runs.task_part('records', 100_000, 0)}: missing (rank 100000 wrote it, {wrote} "
        "bytes)",
    ]
    # the counters of a task and the rows of the parts it lists must agree
    short = dataclasses.replace(done[0], written=done[0].written + 1,
                                seen=done[0].seen + 1)
    assert f"{runs.stats(99_999)}: its records parts hold {done[0].written} rows, counters " \
        f"say {done[0].written + 1}" in _check(runs, [short, *done[1:]], 100_002)


def test_a_rank_written_with_a_leading_zero_past_five_digits_is_no_rank(tmp_path: Path) -> None:
    # one name per rank: 000042 and 0100000 are not what a run writes for 42 or 100000
    runs = rundir(tmp_path, "Z")
    markers = tmp_path / "_runs" / "Z" / "_completions"
    markers.mkdir(parents=True)
    for name in ("00042", "000042", "100000", "0100000", "1e5", "99999"):
        (markers / name).write_text("{}")
    assert runs.committed() == {42, 99_999, 100_000}


def test_write_atomic_keeps_the_old_file_when_writing_fails(tmp_path: Path) -> None:
    path = tmp_path / "_run.json"
    Storage().write_bytes(str(path), b'{"old": true}')
    # a real failing write: a child process whose file size limit is 10 bytes (EFBIG)
    code = (
        "import resource, signal, sys\n"
        "from pipeline.storage import Storage\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (10, 10))\n"
        "try:\n"
        f"    Storage().write_bytes({str(path)!r}, b'x' * 1000)\n"
        "except OSError as exc:\n"
        "    sys.exit(7)\n"
    )
    assert subprocess.run([sys.executable, "-c", code]).returncode == 7
    assert path.read_bytes() == b'{"old": true}'
    assert [p.name for p in tmp_path.iterdir()] == ["_run.json"]  # no temporary file left


def test_a_held_lock_refuses_a_second_writer(tmp_path: Path) -> None:
    with RunLock(rundir(tmp_path, "r")) as lock:
        holder = json.loads(Path(lock.path).read_text())
        assert holder["pid"] == os.getpid() and holder["host"] == socket.gethostname()
        with pytest.raises(RunRefused, match=f"being written by pid {os.getpid()}"):
            RunLock(rundir(tmp_path, "r")).acquire()
    assert not Path(lock.path).exists()
    RunLock(rundir(tmp_path, "r")).acquire().release()  # free again


def test_a_dead_holders_lock_is_taken_over(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    path = tmp_path / "_runs" / "r" / "_lock"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"pid": int(dead), "host": socket.gethostname(), "since": "then"}))
    lock = RunLock(rundir(tmp_path, "r")).acquire()
    try:
        assert lock.stale_holder == {"pid": int(dead), "host": socket.gethostname(), "since": "then"}
        assert json.loads(path.read_text())["pid"] == os.getpid()
    finally:
        lock.release()


def test_a_lock_from_another_host_is_not_taken_over(tmp_path: Path) -> None:
    path = tmp_path / "_runs" / "r" / "_lock"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"pid": 1, "host": "other-host.example", "since": "then"}))
    with pytest.raises(RunRefused, match="locked by pid 1 on host other-host.example"):
        RunLock(rundir(tmp_path, "r")).acquire()
    assert json.loads(path.read_text())["host"] == "other-host.example"
