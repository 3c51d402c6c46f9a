"""One task = one input file of a run: read it, process every record, write its parts.

The same function serves the local pool, the single-process path and Spark executors. A
task's parts land atomically, then its stats, then its completion marker, so ``--resume``
can trust a marker.

Every record is counted once: ``seen = written + skipped + errors``. A record that fails
any stage, or whose row Arrow cannot convert (found when its row group is converted; it
never spoils the others), is an ``errors`` row. A part that failed in a record that was
still written is an ``errors`` row too, counted apart in ``partial_errors``.
"""

from __future__ import annotations

import resource
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import pyarrow as pa

from pipeline.errors import RecordError, Skip
from pipeline.rules import Rules
from pipeline.runners.rundir import (
    MetadataError,
    completion_marker,
    part_path,
    read_json,
    stats_path,
    write_json,
)
from pipeline.runners.worker import Rows, error_row, process_record
from pipeline.schema import ERRORS, LINKS, RECORDS, UNIQUE_VALUED
from pipeline.sinks.parquet import ROW_GROUP_BYTES, ROW_GROUP_ROWS, ParquetSink
from pipeline.sinks.rowcheck import row_problem
from pipeline.sources import iter_records
from pipeline.sources.record import RawRecord

#: Progress is reported every this many records (and at the end).
PROGRESS_EVERY = 100


@dataclass(frozen=True, slots=True)
class Task:
    """A unit of work: one input file, with its rank in the run."""

    rank: int
    path: str
    run_id: str
    out: str
    rules: Rules
    columns: tuple[tuple[str, str], ...] = ()
    strict: bool = False  # raise on the first record error instead of recording it


class StrictModeError(RuntimeError):
    """A record failed a stage while the run was started with ``--strict``."""


@dataclass(frozen=True, slots=True)
class TaskStats:
    """Per-task counters (also stored as ``_stats/<rank>.json``)."""

    rank: int
    path: str
    seen: int
    written: int
    skipped: dict[str, int] = field(default_factory=dict)
    errors: int = 0  # records lost (errors rows with is_partial false)
    partial_errors: int = 0  # errors rows of records still written
    links: int = 0
    bytes_read: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # CPU time of this task in its worker process
    peak_rss_mb: float = 0.0  # the worker process's peak RSS when the task ended
    sources: dict[str, int] = field(default_factory=dict)  # encoding_source → records
    #: why nothing at all could be read from the file (None: at least one record was read)
    unreadable: str | None = None
    #: override index (as a string, JSON keys) → records whose URL it matched / it decided
    rules_matched: dict[str, int] = field(default_factory=dict)
    rules_decided: dict[str, int] = field(default_factory=dict)


#: Link rows staged at most before the staged records are written with them.
MAX_STAGED_LINKS = 8 * ROW_GROUP_ROWS
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

    def __init__(self, task: Task, counts: _Counts) -> None:
        out = Path(task.out)
        self.task = task
        self.counts = counts
        self.records, self.links, self.errors = (
            ParquetSink(part_path(out, name, task.run_id, task.rank), schema,
                        UNIQUE_VALUED.get(name, frozenset()))
            for name, schema in (("records", RECORDS), ("links", LINKS), ("errors", ERRORS))
        )
        self._staged: list[Rows] = []
        self._staged_links = 0
        self._staged_text = 0

    def error(self, err: RecordError, *, partial: bool = False) -> None:
        """Write an ``errors`` row (its strings made writable if they are not)."""
        row = error_row(err, self.task.run_id, partial=partial)
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
                                  record["warc_record_offset"], record["record_id"])
                _raise_if_strict(self.task, err)
                self.error(err)
            staged = good
            tables = _tables(staged)
        self.records.write_table(tables[0])
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

    def close(self) -> None:
        self.flush()
        for sink in (self.records, self.links, self.errors):
            sink.close()

    def abort(self) -> None:
        for sink in (self.records, self.links, self.errors):
            sink.abort()


def _tables(staged: list[Rows]) -> tuple[pa.Table, pa.Table]:
    records = pa.Table.from_pylist([rows.record for rows in staged], schema=RECORDS)
    links = pa.Table.from_pylist([link for rows in staged for link in rows.links], schema=LINKS)
    return records, links


def _refusal(rows: Rows) -> str | None:
    """Why Arrow refuses ``rows`` (naming the table and column), or None."""
    for table, schema, values in (("records", RECORDS, [rows.record]), ("links", LINKS, rows.links)):
        try:
            pa.Table.from_pylist(values, schema=schema)
        except _CONVERSION_ERRORS as exc:
            problems = (row_problem(value, schema) for value in values)
            named = next((p for p in problems if p is not None), None)
            return f"{table}.{named}" if named else f"{table}: {type(exc).__name__}: {exc}"
    return None


def run_task(task: Task, progress: Callable[[int, int], None] | None = None) -> TaskStats:
    """Process one input file end to end; returns its counters.

    ``progress(records, bytes)`` is called with increments as the task goes.
    """
    started = time.monotonic()
    cpu_started = time.process_time()
    counts = _Counts()
    writer = _Writer(task, counts)
    seen = bytes_read = 0
    skipped: Counter[str] = Counter()
    first_error: RecordError | None = None
    read_any = False
    pending_records = pending_bytes = 0
    columns = dict(task.columns) or None
    try:
        for item in _records(task.path, columns):
            seen += 1
            if isinstance(item, RecordError):
                _raise_if_strict(task, item)
                first_error = first_error or item
                writer.error(item)
                continue
            read_any = True
            size = item.warc_record_length
            bytes_read += size
            pending_bytes += size
            outcome = process_record(item, task.rules, task.run_id)
            if isinstance(outcome, Rows):
                for part in outcome.partial:
                    _raise_if_strict(task, part)
                writer.stage(outcome)
            elif isinstance(outcome, Skip):
                skipped[outcome.reason] += 1
            else:
                _raise_if_strict(task, outcome)
                writer.error(outcome)
            pending_records += 1
            if progress is not None and pending_records >= PROGRESS_EVERY:
                progress(pending_records, pending_bytes)
                pending_records = pending_bytes = 0
        writer.close()
    except BaseException:
        writer.abort()
        raise
    if progress is not None and (pending_records or pending_bytes):
        progress(pending_records, pending_bytes)
    unreadable = None
    if not read_any:
        unreadable = (f"{first_error.error_type}: {first_error.message}" if first_error
                      else "no records")
    stats = TaskStats(
        rank=task.rank,
        path=task.path,
        seen=seen,
        written=counts.written,
        skipped=dict(sorted(skipped.items())),
        errors=counts.errors,
        partial_errors=counts.partial_errors,
        links=counts.links,
        bytes_read=bytes_read,
        seconds=round(time.monotonic() - started, 3),
        cpu_seconds=round(time.process_time() - cpu_started, 3),
        peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        sources=dict(sorted(counts.sources.items())),
        unreadable=unreadable,
        rules_matched=dict(sorted(counts.matched.items())),
        rules_decided=dict(sorted(counts.decided.items())),
    )
    _mark_complete(task, stats)
    return stats


def _records(path: str, columns: dict[str, str] | None) -> Iterator[RawRecord | RecordError]:
    """``iter_records`` that survives a reader bug: if the reader raises, the rest of the file
    is lost, and that is one file-level ``errors`` row (the records read so far stay)."""
    try:
        yield from iter_records(path, columns=columns)
    except Exception as exc:
        yield RecordError("source", "source-reader-failed",
                          f"reading stopped: {type(exc).__name__}: {exc}"[:2000], path)


def record_task_failure(task: Task, error: RecordError) -> TaskStats:
    """Write the parts of a task that could not run at all: empty ``records`` and ``links``,
    one file-level ``errors`` row, its stats and completion marker (the file counts as one
    record seen and lost, as an unreadable file does)."""
    writer = _Writer(task, _Counts())
    try:
        writer.error(error)
        writer.close()
    except BaseException:
        writer.abort()
        raise
    stats = TaskStats(rank=task.rank, path=task.path, seen=1, written=0, errors=1,
                      unreadable=f"{error.error_type}: {error.message}")
    _mark_complete(task, stats)
    return stats


def _mark_complete(task: Task, stats: TaskStats) -> None:
    out = Path(task.out)
    # The stats go first and the marker last; only the marker (what --resume trusts) is
    # flushed to the disk, with its folder, which makes what was renamed before it durable
    # too on journalling file systems (ext4, XFS).
    write_json(stats_path(out, task.run_id, task.rank), asdict(stats), durable=False)
    write_json(completion_marker(out, task.run_id, task.rank), {"path": task.path})


def _raise_if_strict(task: Task, error: RecordError) -> None:
    if task.strict:
        raise StrictModeError(
            f"{error.warc_filename}@{error.offset}: {error.stage}/{error.error_type}: {error.message}"
        )


def read_stats(out: Path, run_id: str, rank: int) -> TaskStats | None:
    """The stats of a completed task, or None when the task has not completed;
    :class:`MetadataError` when its stats file is corrupt."""
    if not completion_marker(out, run_id, rank).exists():
        return None
    path = stats_path(out, run_id, rank)
    data: Any = read_json(path)
    names = {f.name for f in fields(TaskStats)}
    if not isinstance(data, dict) or not {"rank", "path", "seen", "written"} <= data.keys() <= names:
        raise MetadataError(f"{path}: not the stats of a task; remove the run with --overwrite")
    return TaskStats(**data)
