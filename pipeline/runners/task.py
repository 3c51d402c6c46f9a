"""One task = one input file of a run, a group of small ones (read one after the other into
the same parts) or a batch of saved pages: read it, process every record, write its parts.

The same function serves the local pool, the single-process path and Spark executors.
:func:`run_task` writes the parts under temporary names unique to the attempt;
:func:`~pipeline.runners.taskinfo.commit_task` puts them under their final names, then
writes the stats, then the completion marker (the commit), so ``--resume`` and the audits
can trust a marker. In the local pool a worker commits its own task; on Spark the driver
commits the one attempt per rank that Spark reports as successful (see
:mod:`pipeline.runners.spark`), importing only :mod:`~pipeline.runners.taskinfo`. The
record loop and the parts are :mod:`pipeline.runners.parts`'.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from pipeline.errors import RecordError
from pipeline.runners.parts import (
    Counts,
    PartsWriter,
    RecordLoop,
    members,
    task_stats,
)
from pipeline.runners.ranged import RangeReading
from pipeline.runners.rundir import new_attempt
from pipeline.runners.startup import settle_heap
from pipeline.runners.taskinfo import (
    StrictModeError,
    Task,
    TaskStats,
    commit_task,
)
from pipeline.sources import iter_records
from pipeline.sources.pages import page_record
from pipeline.sources.record import RawRecord
from pipeline.storage import StorageError, redact_url

__all__ = ["StrictModeError", "Task", "commit_task", "members", "record_task_failure",
           "run_and_commit", "run_task"]


def run_task(task: Task, progress: Callable[[int, int], None] | None = None) -> TaskStats:
    """Process the task's input file (or each of its group, in order) end to end and write
    its parts under the temporary names of a new attempt (:func:`commit_task` puts them in
    place); returns its counters, which name the attempt and list the parts. A task with a
    base run copies what the rules change cannot alter
    (:func:`pipeline.runners.incremental.run_incremental`).

    ``progress(records, bytes)`` is called with increments as the task goes: records
    read, and bytes of the input files read (their read positions, so a compressed file
    counts what was read of it; by the end, the files' sizes).
    """
    if task.base is not None:
        # imported here: a run without a base run does not load it (nor pyarrow.compute)
        from pipeline.runners.incremental import run_incremental

        return run_incremental(task, progress)
    settle_heap()
    started = time.monotonic()
    cpu_started = time.process_time()
    attempt = new_attempt()
    counts = Counts()
    writer = PartsWriter(task, counts, attempt)
    columns = dict(task.columns) or None
    readings: list[RecordLoop] = []
    try:
        for member in members(task):
            writer.task = member  # (its errors rows name it)
            opened: _Opened | RangeReading = (RangeReading(member) if member.ranges is not None
                                              else _Opened(member))
            reading = RecordLoop(member, writer, progress, opened.advance)
            for item in _records(member, columns, opened):
                reading.take(item)
            reading.report(rest=opened.finish())
            readings.append(reading)
        writer.task = task
        writer.close()
    except BaseException as exc:
        writer.abort(exc)
        raise
    if not task.group:
        if isinstance(opened, RangeReading):  # a listed record that is not there is no unreadable file
            return task_stats(task, readings[0], counts, attempt, started, cpu_started,
                              unreadable=opened.unreadable)
        return task_stats(task, readings[0], counts, attempt, started, cpu_started)
    skipped: Counter[str] = Counter()
    notes: dict[str, dict[str, Any]] = {}
    for reading in readings:
        skipped.update(reading.skipped)
        said = _said(reading)
        if said:
            notes[reading.task.name] = said
    return task_stats(task, readings[0], counts, attempt, started, cpu_started,
                      seen=sum(r.seen for r in readings),
                      bytes_read=sum(r.bytes_read for r in readings),
                      skipped=dict(sorted(skipped.items())), unreadable=None, truncated=None,
                      notes=notes)


def _said(reading: RecordLoop) -> dict[str, Any]:
    """What the summary says of one input file of a group (``TaskStats.notes``)."""
    said: dict[str, Any] = {}
    unreadable = reading.unreadable()
    if unreadable is not None:
        said["unreadable"] = unreadable
    if reading.truncated is not None:
        said["truncated"] = reading.truncated
    if unreadable is None and reading.seen and reading.seen == sum(reading.skipped.values()):
        said["nothing"] = dict(sorted(reading.skipped.items()))
    return said


class _Opened:
    """The task's input file, opened by the storage layer (streamed from a remote store),
    with how far it has been read (for progress); for a batch of saved pages, the bytes of
    the pages read so far."""

    def __init__(self, task: Task) -> None:
        self.fh: BinaryIO | None = None
        self.error: StorageError | None = None
        self.size = 0
        self._reported = 0
        if task.pages:
            return  # each page is opened as it is read (page_records)
        try:
            self.fh = task.storage.open_read(task.path)
        except StorageError as exc:
            self.error = exc
            return
        try:
            self.size = self.fh.seek(0, 2)
        except (OSError, ValueError):  # size unknown: progress counts records only
            self.size = 0
        with contextlib.suppress(OSError, ValueError):
            self.fh.seek(0)

    def read_page(self, size: int) -> None:
        """A page of ``size`` bytes of a batch was read."""
        self.size += size

    def advance(self) -> int:
        """Bytes read since the last call (the file's position moves back only to
        recover from damage: the furthest position counts)."""
        try:
            where = (self.fh.tell() if self.fh is not None and not self.fh.closed
                     else self.size)
        except (OSError, ValueError):
            where = 0
        step = max(min(where, self.size) - self._reported, 0)
        self._reported += step
        return step

    def close(self) -> None:
        """Close the file (if it was opened)."""
        if self.fh is not None:
            with contextlib.suppress(Exception):
                self.fh.close()

    def finish(self) -> int:
        """The bytes not reported yet: by the end the whole file counts as read."""
        step = max(self.size - self._reported, 0)
        self._reported = self.size
        return step


def _records(task: Task, columns: dict[str, str] | None,
             opened: _Opened | RangeReading) -> Iterator[RawRecord | RecordError]:
    """The input's records, read from the file ``opened`` holds; an input that cannot be
    opened is one file-level ``errors`` row, and so is a reader bug (the rest of the file
    is lost, the records read so far stay). A record list's task reads its records by
    their ranges (:mod:`pipeline.runners.ranged`)."""
    if isinstance(opened, RangeReading):
        yield from opened.records()
        return
    if task.pages:
        yield from _page_records(task, opened)
        return
    fh = opened.fh
    if fh is None:
        yield RecordError("source", "source-unreadable-file", str(opened.error),
                          task.warc_filename)
        return
    try:
        yield from iter_records(task.warc_filename, columns=columns, fileobj=fh,
                                max_block=task.rules.max_decompressed)
    except Exception as exc:
        yield RecordError("source", "source-reader-failed",
                          f"reading stopped: {type(exc).__name__}: {exc}"[:2000],
                          task.warc_filename)
    finally:
        with contextlib.suppress(Exception):
            fh.close()


def _page_records(task: Task, opened: _Opened) -> Iterator[RawRecord | RecordError]:
    """The saved pages of a batch, one record each (a page that cannot be read is one
    ``errors`` row naming it; the batch goes on)."""
    cap = task.rules.max_decompressed
    for path, name, url in task.pages:
        shown = redact_url(path)
        try:
            with task.storage.open_read(path) as fh:
                size = fh.seek(0, 2)
                fh.seek(0)
                data = fh.read(min(size, cap))
        except (OSError, ValueError) as exc:
            message = str(exc) if isinstance(exc, StorageError) else f"{type(exc).__name__}: {exc}"
            yield RecordError("source", "source-unreadable-file", message, shown)
            continue
        opened.read_page(size)
        yield page_record(shown, name, url, data, size)


def run_and_commit(task: Task, progress: Callable[[int, int], None] | None = None) -> TaskStats:
    """:func:`run_task`, then :func:`commit_task`: what a local worker does with a task."""
    stats = run_task(task, progress)
    commit_task(task, stats)
    return stats


def record_task_failure(task: Task, error: RecordError) -> TaskStats:
    """Write and commit the parts of a task that could not run at all: one file-level
    ``errors`` row for each of its input files, which counts as one record seen and lost,
    as an unreadable file does (no ``records`` or ``links`` part)."""
    attempt = new_attempt()
    writer = PartsWriter(task, Counts(), attempt)
    each = members(task)
    try:
        for member in each:
            writer.task = member
            writer.error(dataclasses.replace(error, warc_filename=member.warc_filename))
        writer.close()
    except BaseException as exc:
        writer.abort(exc)
        raise
    why = f"{error.error_type}: {error.message}"
    stats = TaskStats(rank=task.rank, path=task.name, seen=len(each), written=0,
                      errors=len(each), unreadable=None if task.group else why,
                      attempt=attempt, parts=writer.parts,
                      notes={m.name: {"unreadable": why} for m in each} if task.group else {})
    commit_task(task, stats)
    return stats


