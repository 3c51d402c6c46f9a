"""The parts a task writes and the loop that fills them: every record read is decoded and
staged (:class:`RecordLoop`), and its rows, with their links and partial errors, are
converted and written together (:class:`PartsWriter`). The full task
(:mod:`pipeline.runners.task`) and the incremental one (:mod:`pipeline.runners.incremental`)
share both.

Every record is counted once: ``seen = written + skipped + errors``. A record that fails
any stage, or whose row Arrow cannot convert (found when its row group is converted; it
never spoils the others), is an ``errors`` row. A part that failed in a record that was
still written is an ``errors`` row too, counted apart in ``partial_errors``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import resource
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

import pyarrow as pa

from pipeline.errors import RecordError, Skip
from pipeline.runners.rundir import part_name
from pipeline.runners.taskinfo import StrictModeError, Task, TaskStats, fault_at, inject
from pipeline.runners.worker import Rows, error_row, link_rows, links_table, process_record
from pipeline.schema import ERRORS, FREE_TEXT, LINKS, RECORDS, UNIQUE_VALUED
from pipeline.sinks.parquet import ROW_GROUP_BYTES, ROW_GROUP_ROWS, ParquetSink
from pipeline.sinks.rowcheck import row_problem
from pipeline.sources.record import RawRecord

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
class Counts:
    written: int = 0
    errors: int = 0
    partial_errors: int = 0
    links: int = 0
    sources: Counter[str] = field(default_factory=Counter)
    matched: Counter[str] = field(default_factory=Counter)
    decided: Counter[str] = field(default_factory=Counter)


class TablePart:
    """One table's parts in a task: the first is opened at the table's first row (a table
    the task has no row of gets no file at all), and each is closed and the next one
    started once it holds the task's ``part_size`` bytes. Each is written under the
    attempt's temporary name; :attr:`done` lists ``[file name, rows, bytes]`` of each."""

    def __init__(self, task: Task, table: str, schema: pa.Schema, attempt: str) -> None:
        self.task = task
        self.table = table
        self.schema = schema
        self.attempt = attempt
        self.done: list[list[Any]] = []
        self._unique = UNIQUE_VALUED.get(table, frozenset())
        self._free = FREE_TEXT.get(table, frozenset())
        #: never written: measures rows as the open part's sink does
        self.measure = ParquetSink(io.BytesIO(), schema, self._unique, self._free)
        self._file: contextlib.ExitStack | None = None
        self._fh: IO[bytes] | None = None
        self._sink: ParquetSink | None = None
        self._temporary: list[str] = []  # every part this attempt wrote, by temporary name

    def _open(self) -> ParquetSink:
        if self._sink is not None:
            return self._sink
        rundir = self.task.rundir
        tmp = rundir.temp_part(self.table, self.task.rank, len(self.done), self.attempt)
        stack = contextlib.ExitStack()
        self._fh = stack.enter_context(self.task.storage.open_write(tmp, sync=True))
        self._file = stack
        self._temporary.append(tmp)
        self._sink = ParquetSink(self._fh, self.schema, self._unique, self._free)
        return self._sink

    def write(self, row: dict[str, Any]) -> None:
        """Write one row (it opens the table's next part when none is open)."""
        self._open().write(row)
        self._roll()

    def write_table(self, table: pa.Table, text: int) -> None:
        """Write converted rows (``text``: their characters, as the sink counts them)."""
        if table.num_rows:
            self._open().write_table(table, text)
            self._roll()

    def _roll(self) -> None:
        assert self._fh is not None
        if self._fh.tell() >= self.task.part_size:
            self.close()

    def close(self) -> None:
        """Write the open part's footer and close it (an object store's upload completes)."""
        sink, fh, stack = self._sink, self._fh, self._file
        if sink is None or fh is None or stack is None:
            return
        self._sink = self._fh = self._file = None
        try:
            sink.close()
            fh.flush()
            size = fh.tell()
        except BaseException as exc:
            stack.__exit__(type(exc), exc, exc.__traceback__)
            raise
        stack.close()
        self.done.append([part_name(self.task.rank, len(self.done)), sink.rows_written, size])

    def abort(self, exc: BaseException) -> None:
        """Discard the open part (removed; an unfinished upload never appears) and every
        part this attempt closed."""
        if self._sink is not None and self._file is not None:
            self._sink.abort()
            self._file.__exit__(type(exc), exc, exc.__traceback__)
        self._sink = self._fh = self._file = None
        closed = self._temporary[:len(self.done)]
        if closed:
            with contextlib.suppress(Exception):  # what is left is removed by name later
                self.task.storage.remove_all(closed)


class PartsWriter:
    """The task's parts (:class:`TablePart` for each of its tables). Decoded records are
    staged with their links and partial errors and written together once Arrow has
    converted them: a row Arrow refuses (a status above int32, a lone surrogate, a missing
    column) costs its own record only, as an ``errors`` row (``sink-invalid-row``), never
    the row group it was in, and the three tables stay consistent. Converting once per row
    group keeps the check free for good rows.

    :attr:`task` is the input being read (one of a group's, which names its errors rows);
    the parts are the task's, named by its rank."""

    def __init__(self, task: Task, counts: Counts, attempt: str) -> None:
        self.task = task
        self.counts = counts
        self.records, self.links, self.errors = (
            TablePart(task, name, schema, attempt)
            for name, schema in (("records", RECORDS), ("links", LINKS), ("errors", ERRORS)))
        self._staged: list[Rows] = []
        self._staged_links = 0
        self._staged_text = 0

    @property
    def parts(self) -> dict[str, list[list[Any]]]:
        """``[file name, rows, bytes]`` of every part written, by table (once closed)."""
        return {part.table: part.done for part in (self.records, self.links, self.errors)
                if part.done}

    def error(self, err: RecordError, *, partial: bool = False) -> None:
        """Write an ``errors`` row (its strings made writable if they are not)."""
        row = error_row(scrubbed(err, self.task), self.task.run_id, partial=partial)
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
        self._staged_text += self.records.measure.text_size(rows.record)
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
            converted = tables(staged)
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
                raise_if_strict(self.task, err)
                self.error(err)
            staged = good
            converted = tables(staged)
            text = sum(self.records.measure.text_size(rows.record) for rows in staged)
        self.records.write_table(converted[0], text)
        self.links.write_table(converted[1], 0)
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
        self.records.write_table(rows, self.records.measure.table_text_size(rows))
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
        self.links.write_table(rows, self.links.measure.table_text_size(rows))
        self.counts.links += rows.num_rows

    def copy_errors(self, rows: pa.Table) -> None:
        """Write ``errors`` rows copied from a base run."""
        self.errors.write_table(rows, self.errors.measure.table_text_size(rows))
        partial = sum(rows.column("is_partial").to_pylist())
        self.counts.partial_errors += partial
        self.counts.errors += rows.num_rows - partial

    def close(self) -> None:
        """Write what is staged and close the open parts (an object store's uploads
        complete here)."""
        self.flush()
        for part in (self.records, self.links, self.errors):
            part.close()

    def abort(self, exc: BaseException) -> None:
        """Discard every part written (removed; an unfinished upload never appears)."""
        for part in (self.records, self.links, self.errors):
            part.abort(exc)


def scrubbed(err: RecordError, task: Task) -> RecordError:
    """``err`` without the input's credentials (a presigned URL's query, user information)
    or a secret storage option in its message."""
    message = task.storage.scrub_secrets(err.message)
    if task.path != task.name:
        message = message.replace(task.path, task.name)
    return err if message == err.message else dataclasses.replace(err, message=message)


def tables(staged: list[Rows]) -> tuple[pa.Table, pa.Table]:
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


class RecordLoop:
    """A task's record loop: every record read is decoded and staged, skipped or an error,
    and counted as seen (the incremental task feeds it the records it reads again)."""

    def __init__(self, task: Task, writer: PartsWriter,
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
            raise_if_strict(task, item)
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
                raise_if_strict(task, part)
            writer.stage(outcome)
        elif isinstance(outcome, Skip):
            self.skipped[outcome.reason] += 1
        else:
            raise_if_strict(task, outcome)
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
        return f"{first.error_type}: {scrubbed(first, self.task).message}" if first else "no records"


def members(task: Task) -> list[Task]:
    """The tasks of each input file of a group, in order (the task itself for one file)."""
    if not task.group:
        return [task]
    return [dataclasses.replace(task, path=path, key=key, group=()) for path, key in task.group]


def task_stats(task: Task, reading: RecordLoop, counts: Counts, attempt: str, started: float,
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
        parts=reading.writer.parts,
    )
    return TaskStats(**(values | extra))


def raise_if_strict(task: Task, error: RecordError) -> None:
    if task.strict:
        # (the input as it was given, not its warc_filename: the user knows it so)
        shown = task.name if error.warc_filename == task.warc_filename else error.warc_filename
        where = shown + (f"@{error.offset}" if error.offset is not None else "")
        raise StrictModeError(f"{where}: {error.stage}/{error.error_type}: {error.message}")
