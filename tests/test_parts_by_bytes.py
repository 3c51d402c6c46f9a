"""Parts sized by bytes: small input files grouped into tasks, parts rolled at ``--part-size``,
no empty part, the accounting from the stats and one listing per folder (no footer read),
commits ``--commit-width`` at a time; a kill in the middle of a commit and ``--resume``
still give exactly the rows of an uninterrupted run."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.audit import find_parts
from pipeline.rules import load_rules
from pipeline.runners.local import check_accounting, run
from pipeline.runners.rundir import TASK_PART_NAME, RunDir
from pipeline.runners.taskinfo import in_parallel, read_committed
from pipeline.storage import Storage
from tests.cli_helpers import redecode, runs_row
from tests.crawl_builder import write_warc
from tests.run_tables import differences, table_rows


def tiny_crawl(folder: Path, files: int) -> list[Path]:
    """``files`` one-page WARC files (hard links to one: each its own input by its name)."""
    folder.mkdir(parents=True)
    source = folder.parent / f"{folder.name}-source.warc.gz"
    write_warc(source, 1, seed="tiny")
    paths = [folder / f"f{n:05d}.warc.gz" for n in range(files)]
    for path in paths:
        os.link(source, path)
    return paths


def files_in(out: Path) -> list[Path]:
    return sorted(p for p in out.rglob("*") if p.is_file())


def test_many_small_inputs_make_few_parts_and_no_empty_one(tmp_path: Path) -> None:
    tiny_crawl(tmp_path / "crawl", 400)
    out = tmp_path / "out"
    result = redecode("run", str(tmp_path / "crawl"), "--out", str(out), "--run-id", "m",
                      "-w", "2", "-q")
    assert result.returncode == 0, result.stderr
    # at most 400 / (4 tasks per worker x 2 workers) = 50 files a task: 8 tasks
    stats = [json.loads(p.read_text()) for p in (out / "_runs" / "m" / "_stats").iterdir()]
    assert len(stats) == 8 and all(s["path"].endswith("(50 input files)") for s in stats)
    written = files_in(out)
    assert len(written) <= 400 / 20 + 100
    parts = [p for p in written if p.suffix == ".parquet" and "runs" not in p.parts]
    # a records and a links part a task, each holding rows; no errors row, no errors part
    assert len(parts) == 16 and not (out / "errors" / "run_id=m").exists()
    assert all(TASK_PART_NAME.fullmatch(p.name) for p in parts)
    assert all(pq.read_metadata(p).num_rows > 0 for p in parts)
    row = runs_row(out, "m")
    assert (row["files"], row["records_written"], row["invariant_ok"]) == (400, 400, True)
    config = json.loads((out / "_runs" / "m" / "_run.json").read_text())
    assert config["task_inputs"] == [[50, 8]] and config["part_size"] == 256 * 2**20
    # every input is read once: 400 rows, each naming its own file
    names = [name for p in parts if "records" in p.parts
             for name in pq.read_table(p).column("warc_filename").to_pylist()]
    assert len(names) == len(set(names)) == 400


def test_a_task_rolls_its_parts_at_the_part_size_and_writes_the_same_rows(
    tmp_path: Path,
) -> None:
    crawl = tmp_path / "c.warc.gz"
    write_warc(crawl, 1500, seed="roll")  # three records row groups of ~35 KB
    small = run([str(crawl)], tmp_path / "small", load_rules(None), workers=1, run_id="r",
                part_size=20_000)
    whole = run([str(crawl)], tmp_path / "whole", load_rules(None), workers=1, run_id="r")
    assert small.invariant_ok and whole.invariant_ok, small.problems
    (stats,) = read_committed(RunDir(Storage(), str(tmp_path / "small"), "r"), [0]).values()
    records = stats.parts["records"]
    assert len(records) > 2 and [name for name, _, _ in records] == [
        f"part-00000-{seq:04d}.parquet" for seq in range(len(records))]
    folder = tmp_path / "small" / "records" / "run_id=r"
    for name, rows, size in records:
        assert (pq.read_metadata(folder / name).num_rows, (folder / name).stat().st_size) == (
            rows, size)
    assert all(size >= 20_000 for _, _, size in records[:-1])  # closed once past the size
    assert sum(rows for _, rows, _ in records) == small.written == 1500
    got = table_rows(Storage(), str(tmp_path / "small"), "r")
    want = table_rows(Storage(), str(tmp_path / "whole"), "r")
    assert {t: got[t] for t in ("records", "links", "errors")} == {
        t: want[t] for t in ("records", "links", "errors")}, differences(got, want)


def test_a_kill_in_the_middle_of_a_commit_then_resume_give_the_uninterrupted_rows(
    tmp_path: Path,
) -> None:
    paths = tiny_crawl(tmp_path / "crawl", 20)
    for path in paths[::6]:  # a few files with more pages
        path.unlink()
        write_warc(path, 30, seed=path.name)
    out = tmp_path / "out"
    args = [str(tmp_path / "crawl"), "--out", str(out), "--run-id", "k", "-q"]
    # one worker: 20 / 4 = 5 files a task (4 tasks); rank 2's first part is put in place,
    # then the process is killed (no marker)
    fault = f"k:2:-1:{tmp_path / 'fired'}:kill"
    killed = redecode("run", *args, "-w", "1", env={"REDECODE_TEST_FAULT": fault})
    assert killed.returncode == -9 and (tmp_path / "fired").exists(), killed.stderr
    markers = sorted(p.name for p in (out / "_runs" / "k" / "_completions").iterdir())
    assert markers == ["00000", "00001"]
    assert len(list(out.glob("*/run_id=k/part-00002-*.parquet"))) == 1
    assert len(list(out.glob("*/run_id=k/.part-00002-*.tmp"))) > 0
    # the audits never read the half-committed rank
    assert all("part-00002-" not in path for files in find_parts(out).files.values()
               for path in files)
    # resumed with two workers, the run keeps its groups (two workers would make others)
    resumed = redecode("run", *args, "-w", "2", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "20 (10 resumed)" in resumed.stdout
    config = json.loads((out / "_runs" / "k" / "_run.json").read_text())
    assert config["task_inputs"] == [[5, 4]]
    clean = tmp_path / "clean"
    run([str(tmp_path / "crawl")], clean, load_rules(None), workers=2, run_id="k")
    got = table_rows(Storage(), str(out), "k", str(tmp_path / "crawl"))
    want = table_rows(Storage(), str(clean), "k", str(tmp_path / "crawl"))
    for table in ("records", "links", "errors"):
        assert got[table] == want[table], differences(got, want)
    assert list(out.rglob("*.tmp")) == [] and runs_row(out, "k")["invariant_ok"]


def test_the_accounting_reads_no_part_and_the_audit_reads_them_all(tmp_path: Path) -> None:
    crawl = tmp_path / "c.warc.gz"
    write_warc(crawl, 20, seed="acct")
    out = tmp_path / "out"
    summary = run([str(crawl)], out, load_rules(None), workers=1, run_id="a")
    assert summary.invariant_ok
    rundir = RunDir(Storage(), str(out), "a")
    done = list(read_committed(rundir, [0]).values())
    part = out / "records" / "run_id=a" / "part-00000-0000.parquet"
    # the part's footer damaged in place, its size kept: unreadable to every reader
    data = bytearray(part.read_bytes())
    data[-8:] = b"\0" * 8
    part.write_bytes(bytes(data))
    with pytest.raises(pa.ArrowException):
        pq.read_metadata(part)
    # the accounting, from the stats and the listings, does not open it: nothing to say
    assert check_accounting(rundir, done, 1) == []
    # the audit opens every part: it names it, and its own accounting check fails
    audit = redecode("audit", "--out", str(out), "--check", "all")
    assert audit.returncode == 1, audit.stderr
    assert f"unreadable: {part}: not a readable Parquet file" in audit.stderr
    assert "FAILED check check_accounting_invariant" in audit.stderr
    # a part whose size is not what the commit wrote is found without opening it
    part.write_bytes(bytes(data[:-1]))
    assert check_accounting(rundir, done, 1) == [
        f"{part}: {len(data) - 1} bytes, the commit wrote {len(data)}"]


def test_commits_run_at_most_the_commit_width_at_once() -> None:
    running = 0
    most = 0
    wanted = 0
    changed = threading.Condition()

    def promote(_: int) -> None:
        # each waits (1 s at most) for as many as the width allows to be running at once
        nonlocal running, most
        with changed:
            running += 1
            most = max(most, running)
            changed.notify_all()
            changed.wait_for(lambda: running >= wanted, timeout=1)
            running -= 1

    for width, expected in ((1, 1), (3, 3), (16, 10)):
        most, wanted = 0, expected
        started = time.monotonic()
        in_parallel(promote, list(range(10)), width)
        assert most == expected, width
        if width > 1:  # never waited out: they ran side by side
            assert time.monotonic() - started < 5


def test_a_grouped_run_says_what_each_input_held_as_a_task_per_file(
    tmp_path: Path, corpus: Path,
) -> None:
    # 43 real and broken files: grouped (one worker: 11 files a task at most) and a task per
    # file give the same rows and name the same unreadable, truncated and empty files
    files = sorted(str(p) for p in (corpus / "warc-samples").rglob("*")
                   if p.is_file() and p.name not in ("README.md", "MANIFEST.tsv"))
    junk = tmp_path / "junk.warc.gz"  # and one that holds no record at all
    junk.write_bytes(b"not an archive" * 100)
    files.append(str(junk))
    grouped = run(files, tmp_path / "g", load_rules(None), workers=1, run_id="s")
    alone = run(files, tmp_path / "a", load_rules(None), workers=1, run_id="s", task_size=0)
    assert grouped.invariant_ok and alone.invariant_ok, grouped.problems
    assert len(list((tmp_path / "g" / "_runs" / "s" / "_stats").iterdir())) < 42
    assert grouped.unreadable and grouped.truncated and grouped.nothing_to_decode
    for field in ("unreadable", "truncated", "nothing_to_decode"):
        assert sorted(getattr(grouped, field)) == sorted(getattr(alone, field)), field
    got = table_rows(Storage(), str(tmp_path / "g"), "s")
    want = table_rows(Storage(), str(tmp_path / "a"), "s")
    for table in ("records", "links", "errors"):
        assert got[table] == want[table], differences(got, want)


def test_the_sizes_the_command_line_takes_and_its_defaults() -> None:
    import inspect

    import typer

    from pipeline import cli
    from pipeline.runners.plan import TASK_SIZE
    from pipeline.runners.taskinfo import COMMIT_WIDTH, PART_SIZE

    assert [cli.parse_size("--part-size", v) for v in ("300000", "128MB", "64 MiB", "1GiB")] \
        == [300_000, 128_000_000, 64 * 2**20, 2**30]
    for bad in ("", "12 parsecs", "MB", "-5MB"):
        with pytest.raises(typer.BadParameter, match="--part-size"):
            cli.parse_size("--part-size", bad)
    # the command line's defaults are the runner's (one home for each)
    defaults = {name: p.default for name, p in inspect.signature(cli.run).parameters.items()}
    assert cli.parse_size("--part-size", defaults["part_size"]) == PART_SIZE
    assert cli.parse_size("--task-size", defaults["task_size"]) == TASK_SIZE
    assert defaults["commit_width"] == COMMIT_WIDTH


def test_a_part_size_of_nothing_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    crawl = tmp_path / "c.warc.gz"
    write_warc(crawl, 1)
    for option in (["--part-size", "0"], ["--part-size", "big"], ["--commit-width", "0"]):
        result = redecode("run", str(crawl), "--out", str(tmp_path / "out"), "-q", *option)
        assert result.returncode == 2, result.stderr
        assert option[0] in result.stderr
    assert not (tmp_path / "out").exists()


def test_the_progress_bar_follows_the_bytes_of_a_group(tmp_path: Path) -> None:
    from pipeline import cli
    from pipeline.runners.plan import plan

    paths = tiny_crawl(tmp_path / "crawl", 16)
    planned = plan([str(tmp_path / "crawl")], tmp_path / "out", load_rules(None), workers=1)
    assert [len(planned.groups[name]) for name in planned.files] == [4, 4, 4, 4]
    assert cli._sizes(planned) == [4 * paths[0].stat().st_size] * 4
