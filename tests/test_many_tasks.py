"""A run of more than 100,000 tasks: ranks past 99,999 are named, committed, counted, resumed
and audited like the others (file names carry as many digits as a rank takes).

A task per file (``--task-size 0``: else these small files would be a few tasks). Decoding
100,002 files is not what is tested, so the first 100,000 ranks are committed as a run that
was killed after them would have left them: rank 0 is decoded and committed for real, then
its parts, stats and marker are given to ranks 1 to 99,999 (the parts as hard links, the
stats listing each rank's own parts and naming its own input, the markers its input). The
resume then decodes ranks 100,000 and 100,001 for real, checks the accounting of all
100,002 ranks against their stats and one listing per table folder, and writes the runs
row; a second resume finds nothing to do, and the audits' reader lists every committed
part (reading every footer: most of the time goes there).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from pipeline.audit import find_parts
from tests.cli_helpers import redecode, runs_row
from tests.crawl_builder import write_warc

pytestmark = pytest.mark.slow  # 200,004 parts written, then their footers read by the audit
TASKS = 100_002
#: A file takes at most 65,000 hard links on ext4: one copy of a source per this many.
LINKS_PER_COPY = 60_000


def link(source: Path, target: Path, n: int) -> None:
    """``target`` as a hard link to a copy of ``source`` (the ``n // LINKS_PER_COPY``-th)."""
    copy = source.with_name(f"{source.name}.{n // LINKS_PER_COPY}")
    if not copy.exists():
        shutil.copyfile(source, copy)
    os.link(copy, target)


def test_a_run_of_more_than_100000_tasks_commits_resumes_checks_and_audits(tmp_path: Path) -> None:
    sources = tmp_path / "sources"
    sources.mkdir()
    write_warc(sources / "one.warc.gz", 1, seed="m")
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    inputs = [crawl / f"f{n:06d}.warc.gz" for n in range(TASKS)]  # rank n reads inputs[n]
    for n, path in enumerate(inputs):
        link(sources / "one.warc.gz", path, n)
    out = tmp_path / "out"
    args = [str(crawl), "--out", str(out), "--run-id", "many", "-w", "1", "-q",
            "--task-size", "0"]
    # the real run: rank 0 is committed, the process is killed in the middle of rank 1's
    # commit (its first part in place, no marker)
    fault = f"many:1:-1:{tmp_path / 'fired'}:kill"
    killed = redecode(*["run", *args], env={"REDECODE_TEST_FAULT": fault}, timeout=900)
    assert killed.returncode == -9, killed.stderr
    meta = out / "_runs" / "many"
    assert sorted(p.name for p in (meta / "_completions").iterdir()) == ["00000"]
    # ranks 1 to 99,999 committed as rank 0 was (a records and a links part each: the
    # file has no errors row)
    stats = json.loads((meta / "_stats" / "00000.json").read_text())
    marker = json.loads((meta / "_completions" / "00000").read_text())
    assert stats["parts"].keys() == {"records", "links"}
    for table in stats["parts"]:
        folder = out / table / "run_id=many"
        shutil.copyfile(folder / "part-00000-0000.parquet", sources / f"{table}.parquet")
        for n in range(1, 100_000):
            part = folder / f"part-{n:05d}-0000.parquet"
            part.unlink(missing_ok=True)
            link(sources / f"{table}.parquet", part, n)
    for n in range(1, 100_000):
        name = str(inputs[n])
        parts = {table: [[f"part-{n:05d}-0000.parquet", *listed[0][1:]]]
                 for table, listed in stats["parts"].items()}
        (meta / "_stats" / f"{n:05d}.json").write_text(
            json.dumps(stats | {"rank": n, "path": name, "parts": parts}))
        (meta / "_completions" / f"{n:05d}").write_text(json.dumps(marker | {"path": name}))

    resumed = redecode(*["run", *args, "--resume"], timeout=3600)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "100002 (100000 resumed)" in resumed.stdout
    for rank in ("100000", "100001"):  # written in six digits, read back by every reader
        assert (meta / "_completions" / rank).is_file()
        assert (meta / "_stats" / f"{rank}.json").is_file()
        for table in ("records", "links"):
            assert (out / table / "run_id=many" / f"part-{rank}-0000.parquet").is_file()
    row = runs_row(out, "many")
    assert (row["files"], row["records_written"], row["invariant_ok"]) == (TASKS, TASKS, True)
    again = redecode(*["run", *args, "--resume"], timeout=3600)
    assert again.returncode == 0 and "nothing to do" in again.stderr, again.stderr[-3000:]
    assert "has finished" in again.stderr

    parts = find_parts(out)
    assert parts.unreadable == () and parts.unfinished == ()
    assert {table: len(files) for table, files in parts.files.items()} == {
        "records": TASKS, "links": TASKS, "errors": 0, "runs": 1}
    assert str(out / "records" / "run_id=many" / "part-100001-0000.parquet") in parts.files[
        "records"]
