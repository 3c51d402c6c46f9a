"""One task = one input file of a run: read it, process every record, write its parts.

The same function serves the local pool, the single-process path and Spark executors.
:func:`run_task` writes the three parts under temporary names unique to the attempt;
:func:`~pipeline.runners.taskinfo.commit_task` puts them under their final names, then
writes the stats, then the completion marker (the commit), so ``--resume`` and the audits
can trust a marker. In the local pool a worker commits its own task; on Spark the driver
commits the one attempt per rank that Spark reports as successful (see
:mod:`pipeline.runners.spark`), importing only :mod:`~pipeline.runners.taskinfo`.

Every record is counted once: ``seen = written + skipped + errors``. A record that fails
any stage, or whose row Arrow cannot convert (found when its row group is converted; it
never spoils the others), is an ``errors`` row. A part that failed in a record that was
still written is an ``errors`` row too, counted apart in ``partial_errors``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import resource
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any, BinaryIO

import pyarrow as pa

from pipeline.errors import RecordError, Skip
from pipeline.runners.rundir import TASK_TABLES, new_attempt
from pipeline.runners.startup import settle_heap
from pipeline.runners.taskinfo import (
    StrictModeError,
    Task,
    TaskStats,
    commit_task,
    fault_at,
    inject,
)
from pipeline.runners.worker import Rows, error_row, link_rows, links_table, process_record
from pipeline.schema import ERRORS, FREE_TEXT, LINKS, RECORDS, UNIQUE_VALUED
from pipeline.sinks.parquet import ROW_GROUP_BYTES, ROW_GROUP_ROWS, ParquetSink
from pipeline.sinks.rowcheck import row_problem
from pipeline.sources import iter_records
from pipeline.sources.pages import page_record
from pipeline.sources.record import RawRecord
from pipeline.storage import StorageError, redact_url

#: Progress is reported every this many records (and at the end).
PROGRESS_EVERY = 100
#: What a record's ``block_truncation`` says when the file ends inside it: its Content-Length
#: runs past the end of the file, or its gzip member is cut off (a cut download).
FILE_ENDS_INSIDE = {"length": "the file ends before its Content-Length",
                    "gzip": "its gzip member is cut off"}


#: Link rows staged at most before the staged records and their links are converted and
#: handed to the sinks. A page holds ~100-300 links, so this, not ``ROW_GROUP_ROWS``, ends
#: most stages: each is a links row group, and the records sink gathers stages into row
#: groups up to its own limits (:meth:`ParquetSink.write_table`). At 4,000 links, when each
#: stage was also a records row group, that held ~37 rows and Arrow's zstd set up a fresh
#: context for each of its 55 column chunks (16,000: 4% less CPU for a one-worker run).
MAX_STAGED_LINKS = 32 * ROW_GROUP_ROWS
#: A row group with this much text (characters; only pages of tens of MB of text reach it)
#: hands Arrow's cached memory back to the system once written: jemalloc keeps the freed
#: conversion and compression buffers (~7x the text) for reuse, on top of the next record's
#: decoding (64 pages of 24 MiB: 755 MB peak RSS without, see bench/hostile_bench.py).
RELEASE_AFTER_BYTES = 8 * ROW_GROUP_BYTES
#: What Arrow raises when a Python value does not convert to its column.
_CONVERSION_ERRORS = (pa.ArrowException, OverflowError, TypeError, ValueError)


@dataclass(slots=True)
class _Counts:
    written: int = 0
    errors: int = 0
    partial_errors: int = 0
    links: int = 0
    sources: Counter[str] = field(default_factory=Counter)
    matched: Counter[str] = field(default_factory=Counter)
    decided: Counter[str] = field(default_factory=Counter)


class _Writer:
    """The task's three parts. Decoded records are staged with their links and partial errors
    and written together once Arrow has converted them: a row Arrow refuses (a status above
    int32, a lone surrogate, a missing column) costs its own record only, as an ``errors``
    row (``sink-invalid-row``), never the row group it was in, and the three tables stay
    consistent. Converting once per row group keeps the check free for good rows."""

    def __init__(self, task: Task, counts: _Counts, attempt: str) -> None:
        self.task = task
        self.counts = counts
        rundir = task.rundir
        self._files = contextlib.ExitStack()
        opened: list[IO[bytes]] = []
        try:
            for name in TASK_TABLES:
                tmp = rundir.temp_part(name, task.rank, attempt)
                opened.append(self._files.enter_context(task.storage.open_write(tmp, sync=True)))
        except BaseException:
            self._files.close()
            raise
        self.records, self.links, self.errors = (
            ParquetSink(fh, schema, UNIQUE_VALUED.get(name, frozenset()),
                        FREE_TEXT.get(name, frozenset()))
            for fh, (name, schema) in zip(
                opened, (("records", RECORDS), ("links", LINKS), ("errors", ERRORS)), strict=True)
        )
        self._staged: list[Rows] = []
        self._staged_links = 0
        self._staged_text = 0

    def error(self, err: RecordError, *, partial: bool = False) -> None:
        """Write an ``errors`` row (its strings made writable if they are not)."""
        row = error_row(_scrubbed(err, self.task), self.task.run_id, partial=partial)
        if row_problem(row, ERRORS) is not None:
            row = {k: v.encode("utf-8", "backslashreplace").decode() if isinstance(v, str) else v
                   for k, v in row.items()}
        self.errors.write(row)
        if partial:
            self.counts.partial_errors += 1
        else:
            self.counts.errors += 1

    def stage(self, rows: Rows) -> None:
        """Stage a decoded record; a full stage is written as one row group per table."""
        self._staged.append(rows)
        self._staged_links += len(rows.links)
        self._staged_text += self.records.text_size(rows.record)
        if (len(self._staged) >= ROW_GROUP_ROWS or self._staged_text >= ROW_GROUP_BYTES
                or self._staged_links >= MAX_STAGED_LINKS):
            self.flush()

    def flush(self) -> None:
        """Convert and write what is staged; a record Arrow refuses becomes an errors row."""
        staged, self._staged = self._staged, []
        text = self._staged_text
        huge = text >= RELEASE_AFTER_BYTES
        self._staged_links = self._staged_text = 0
        if not staged:
            return
        try:
            tables = _tables(staged)
        except _CONVERSION_ERRORS:  # rare: find the records that do not convert
            good = []
            for rows in staged:
                refusal = _refusal(rows)
                if refusal is None:
                    good.append(rows)
                    continue
                record = rows.record
                err = RecordError("sink", "sink-invalid-row", refusal, record["warc_filename"],
                                  record["warc_record_offset"], record["record_id"],
                                  record["warc_record_offset_in_member"],
                                  record["warc_record_length"])
                _raise_if_strict(self.task, err)
                self.error(err)
            staged = good
            tables = _tables(staged)
            text = sum(self.records.text_size(rows.record) for rows in staged)
        self.records.write_table(tables[0], text)
        self.links.write_table(tables[1])
        counts = self.counts
        for rows in staged:
            counts.written += 1
            counts.links += len(rows.links)
            source = rows.record["encoding_source"]
            counts.sources[source] += 1
            if rows.rule is not None:
                counts.matched[str(rows.rule)] += 1
                if source == "rule":
                    counts.decided[str(rows.rule)] += 1
            for part in rows.partial:
                self.error(part, partial=True)
        if huge:
            # A page of tens of MB of text leaves its conversion and compression buffers in
            # the allocator's cache; hand them back before the next record is decoded.
            pa.default_memory_pool().release_unused()

    def copy_records(self, rows: pa.Table, rules: list[int | None]) -> None:
        """Write ``records`` rows copied from a base run (this run's id and rules version
        in them already); ``rules``: the override each one's URL matches under this run's
        rules, as :func:`flush` counts them for decoded records."""
        self.records.write_table(rows, self.records.table_text_size(rows))
        counts = self.counts
        counts.written += rows.num_rows
        for source, rule in zip(rows.column("encoding_source").to_pylist(), rules, strict=True):
            counts.sources[source] += 1
            if rule is not None:
                counts.matched[str(rule)] += 1
                if source == "rule":
                    counts.decided[str(rule)] += 1

    def copy_links(self, rows: pa.Table) -> None:
        """Write ``links`` rows copied from a base run."""
        self.links.write_table(rows, self.links.table_text_size(rows))
        self.counts.links += rows.num_rows

    def copy_errors(self, rows: pa.Table) -> None:
        """Write ``errors`` rows copied from a base run."""
        self.errors.write_table(rows, self.errors.table_text_size(rows))
        partial = sum(rows.column("is_partial").to_pylist())
        self.counts.partial_errors += partial
        self.counts.errors += rows.num_rows - partial

    def close(self) -> None:
        """Write what is staged and every footer, and close the three files (an object
        store's uploads complete here)."""
        self.flush()
        for sink in (self.records, self.links, self.errors):
            sink.close()
        self._files.close()

    def abort(self, exc: BaseException) -> None:
        """Discard the three files (removed; an unfinished upload never appears)."""
        for sink in (self.records, self.links, self.errors):
            sink.abort()
        self._files.__exit__(type(exc), exc, exc.__traceback__)


def _scrubbed(err: RecordError, task: Task) -> RecordError:
    """``err`` without the input's credentials (a presigned URL's query, user information)
    or a secret storage option in its message."""
    message = task.storage.scrub_secrets(err.message)
    if task.path != task.name:
        message = message.replace(task.path, task.name)
    return err if message == err.message else dataclasses.replace(err, message=message)


def _tables(staged: list[Rows]) -> tuple[pa.Table, pa.Table]:
    records = pa.Table.from_pylist([rows.record for rows in staged], schema=RECORDS)
    return records, links_table(staged)


def _refusal(rows: Rows) -> str | None:
    """Why Arrow refuses ``rows`` (naming the table and column), or None."""
    for table, schema, values in (("records", RECORDS, [rows.record]), ("links", LINKS, link_rows(rows))):
        try:
            pa.Table.from_pylist(values, schema=schema)
        except _CONVERSION_ERRORS as exc:
            problems = (row_problem(value, schema) for value in values)
            named = next((p for p in problems if p is not None), None)
            return f"{table}.{named}" if named else f"{table}: {type(exc).__name__}: {exc}"
    return None


class _Reading:
    """A task's record loop: every record read is decoded and staged, skipped or an error,
    and counted as seen (the incremental task feeds it the records it reads again)."""

    def __init__(self, task: Task, writer: _Writer,
                 progress: Callable[[int, int], None] | None,
                 position: Callable[[], int] | None = None) -> None:
        self.task = task
        self.writer = writer
        self.progress = progress
        #: bytes of the input read since the last call (for progress)
        self._position = position
        self.seen = self.bytes_read = 0
        self.skipped: Counter[str] = Counter()
        self.first_error: RecordError | None = None
        self.read_any = False
        self.truncated: str | None = None
        self._pending = 0
        self._fault = fault_at(task)

    def take(self, item: RawRecord | RecordError) -> None:
        """Decode one record read (or write the error it is) and count it."""
        task, writer = self.task, self.writer
        self.seen += 1
        if self._fault is not None and 0 <= self._fault[0] < self.seen:
            inject(self._fault)
        if isinstance(item, RecordError):
            _raise_if_strict(task, item)
            self.first_error = self.first_error or item
            writer.error(item)
            return
        self.read_any = True
        if item.block_truncation in FILE_ENDS_INSIDE:
            self.truncated = (f"the file ends inside the record at byte "
                              f"{item.warc_record_offset} "
                              f"({FILE_ENDS_INSIDE[item.block_truncation]})")
        self.bytes_read += item.warc_record_length
        outcome = process_record(item, task.rules, task.run_id)
        if isinstance(outcome, Rows):
            for part in outcome.partial:
                _raise_if_strict(task, part)
            writer.stage(outcome)
        elif isinstance(outcome, Skip):
            self.skipped[outcome.reason] += 1
        else:
            _raise_if_strict(task, outcome)
            writer.error(outcome)
        self._pending += 1
        if self._pending >= PROGRESS_EVERY:
            self.report()

    def report(self, records: int = 0, rest: int = 0) -> None:
        """Hand ``progress`` the records not reported yet (and ``records`` more) and the
        bytes of the input read since (and ``rest`` more: the rest of the file, at its end)."""
        step = (self._position() if self._position is not None else 0) + rest
        records += self._pending
        self._pending = 0
        if self.progress is not None and (records or step):
            self.progress(records, step)

    def unreadable(self) -> str | None:
        """Why nothing at all could be read from the file (None: a record was read)."""
        if self.read_any:
            return None
        first = self.first_error
        return f"{first.error_type}: {_scrubbed(first, self.task).message}" if first else "no records"


def _stats(task: Task, reading: _Reading, counts: _Counts, attempt: str, started: float,
           cpu_started: float, **extra: Any) -> TaskStats:
    """The task's counters once its parts are written (``extra``: fields the caller knows
    better than the loop, such as an incremental task's)."""
    values: dict[str, Any] = dict(
        rank=task.rank,
        path=task.name,
        seen=reading.seen,
        written=counts.written,
        skipped=dict(sorted(reading.skipped.items())),
        errors=counts.errors,
        partial_errors=counts.partial_errors,
        links=counts.links,
        bytes_read=reading.bytes_read,
        seconds=round(time.monotonic() - started, 3),
        cpu_seconds=round(time.process_time() - cpu_started, 3),
        peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        sources=dict(sorted(counts.sources.items())),
        unreadable=reading.unreadable(),
        truncated=reading.truncated,
        rules_matched=dict(sorted(counts.matched.items())),
        rules_decided=dict(sorted(counts.decided.items())),
        attempt=attempt,
    )
    return TaskStats(**(values | extra))


def run_task(task: Task, progress: Callable[[int, int], None] | None = None) -> TaskStats:
    """Process one input file end to end and write its parts under the temporary names of a
    new attempt (:func:`commit_task` puts them in place); returns its counters, which name
    the attempt. A task with a base run copies what the rules change cannot alter
    (:func:`pipeline.runners.incremental.run_incremental`).

    ``progress(records, bytes)`` is called with increments as the task goes: records
    read, and bytes of the input file read (its read position, so a compressed file
    counts what was read of it; by the end, the file's size).
    """
    if task.base is not None:
        from pipeline.runners.incremental import run_incremental

        return run_incremental(task, progress)
    settle_heap()
    started = time.monotonic()
    cpu_started = time.process_time()
    attempt = new_attempt()
    counts = _Counts()
    opened = _Opened(task)
    try:
        writer = _Writer(task, counts, attempt)
    except BaseException:
        opened.close()
        raise
    reading = _Reading(task, writer, progress, opened.advance)
    columns = dict(task.columns) or None
    try:
        for item in _records(task, columns, opened):
            reading.take(item)
        writer.close()
    except BaseException as exc:
        writer.abort(exc)
        raise
    reading.report(rest=opened.finish())
    return _stats(task, reading, counts, attempt, started, cpu_started)


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
             opened: _Opened) -> Iterator[RawRecord | RecordError]:
    """The input's records, read from the file ``opened`` holds; an input that cannot be
    opened is one file-level ``errors`` row, and so is a reader bug (the rest of the file
    is lost, the records read so far stay)."""
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
    """Write and commit the parts of a task that could not run at all: empty ``records``
    and ``links``, one file-level ``errors`` row (the file counts as one record seen and
    lost, as an unreadable file does)."""
    attempt = new_attempt()
    writer = _Writer(task, _Counts(), attempt)
    try:
        writer.error(error)
        writer.close()
    except BaseException as exc:
        writer.abort(exc)
        raise
    stats = TaskStats(rank=task.rank, path=task.name, seen=1, written=0, errors=1,
                      unreadable=f"{error.error_type}: {error.message}", attempt=attempt)
    commit_task(task, stats)
    return stats


def _raise_if_strict(task: Task, error: RecordError) -> None:
    if task.strict:
        # (the input as it was given, not its warc_filename: the user knows it so)
        shown = task.name if error.warc_filename == task.warc_filename else error.warc_filename
        where = shown + (f"@{error.offset}" if error.offset is not None else "")
        raise StrictModeError(f"{where}: {error.stage}/{error.error_type}: {error.message}")
