"""The run's progress: the bar and its time left follow the bytes of the input files read
(a large file moves the bar while it is read), beside files, records and rates."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from pipeline.rules import load_rules
from pipeline.runners.local import run
from pipeline.runners.progress import RunProgress, run_progress
from tests.crawl_builder import write_warc

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "warc"
SAMPLE = Path(__file__).resolve().parent.parent.parent / "data" / "sample"


def test_the_bar_follows_bytes_read_and_a_resumed_file_leaves_the_total() -> None:
    state = RunProgress([1000, 3000, None])
    assert state.by_bytes and state.total == 6000  # the unknown size counts as the mean
    state.update("records", 100, 1500)  # half of the 3000-byte file, no file done yet
    assert (state.completed, state.files_done, state.records) == (1500, 0, 100)
    state.update("resumed", 0, 0)  # rank 0 was committed by an earlier run
    assert state.total == 5000 and state.files_done == 1
    state.update("records", 20, 1500)
    state.update("file", 0, 0)
    state.update("records", 5, 2000)
    state.update("file", 0, 0)
    assert state.completed == state.total  # every file done: the bar is full
    assert state.line(1.0).startswith("3/3 files  125 records")


def test_without_any_size_the_bar_counts_files() -> None:
    state = RunProgress([None, None])
    assert not state.by_bytes and state.total == 2
    state.update("records", 10, 999)
    state.update("file", 0, 0)
    assert state.completed == 1


def test_a_run_reports_the_bytes_of_its_files_as_they_are_read(tmp_path: Path) -> None:
    # Bytes are the files' read positions, not the records' lengths: a whole-file gzip
    # (records' lengths are uncompressed) and a Parquet table (bodies' lengths) are counted
    # by what was read of them, and a file of many records moves the bar before it ends.
    big = tmp_path / "big.warc.gz"
    write_warc(big, 450, seed="p")
    files = [big, FIXTURES / "concatenated-whole-file-gzip.warc.gz", SAMPLE / "sample.parquet"]
    events: list[tuple[str, int, int]] = []
    summary = run([str(f) for f in files], tmp_path / "out", load_rules(None), workers=1,
                  progress=lambda *event: events.append(event))
    assert summary.invariant_ok
    read = [nbytes for kind, _, nbytes in events if kind == "records"]
    assert sum(read) == sum(f.stat().st_size for f in files)
    assert sum(count for kind, count, _ in events if kind == "records") == summary.seen
    # tasks run in the order of their paths, so the big file's own events come from a run
    # of it alone
    alone: list[tuple[str, int, int]] = []
    run([str(big)], tmp_path / "alone", load_rules(None), workers=1,
        progress=lambda *event: alone.append(event))
    steps = [nbytes for kind, _, nbytes in alone if kind == "records"]
    assert sum(steps) == big.stat().st_size
    # the reader takes the file in blocks: some reports move nothing, several move it
    moved_before_the_end = [step for step in steps[:-1] if step > 0]
    assert len(moved_before_the_end) >= 2


def test_the_display_shows_files_records_percent_and_time_left() -> None:
    out = io.StringIO()
    console = Console(file=out, width=160, force_terminal=False)
    with run_progress([4000, 4000], console) as update:
        update("records", 300, 2000)
        update("records", 200, 2000)
        update("file", 0, 0)
    text = out.getvalue()
    assert "1/2 files  500 records" in text and "50%" in text and "left" in text
