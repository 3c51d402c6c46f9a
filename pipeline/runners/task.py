"""One task = one input file of a run: read it, process every record, write its parts.

The same function serves the local pool, the single-process path and Spark executors. A
task's parts land atomically, then its stats, then its completion marker, so ``--resume``
can trust a marker.

Every record is counted once: ``seen = written + skipped + errors``. A record that fails
any stage, or whose row cannot be written (checked against the schema before it is
buffered, so one bad row never spoils a row group), is an ``errors`` row. A part that
failed in a record that was still written is an ``errors`` row too, counted apart in
``partial_errors``.
"""

from __future__ import annotations

import resource
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

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
from pipeline.sinks.parquet import ParquetSink
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


class _Sinks:
    """The task's three parts, counting what goes into each."""

    def __init__(self, task: Task) -> None:
        out = Path(task.out)
        self.run_id = task.run_id
        self.records, self.links, self.errors = (
            ParquetSink(part_path(out, name, task.run_id, task.rank), schema,
                        UNIQUE_VALUED.get(name, frozenset()))
            for name, schema in (("records", RECORDS), ("links", LINKS), ("errors", ERRORS))
        )

    def error(self, err: RecordError, *, partial: bool = False) -> None:
        self.errors.write(error_row(err, self.run_id, partial=partial))

    def close(self) -> None:
        for sink in (self.records, self.links, self.errors):
            sink.close()

    def abort(self) -> None:
        for sink in (self.records, self.links, self.errors):
            sink.abort()


def run_task(task: Task, progress: Callable[[int, int], None] | None = None) -> TaskStats:
    """Process one input file end to end; returns its counters.

    ``progress(records, bytes)`` is called with increments as the task goes.
    """
    started = time.monotonic()
    cpu_started = time.process_time()
    sinks = _Sinks(task)
    seen = written = errors = partial_errors = links = bytes_read = 0
    skipped: Counter[str] = Counter()
    sources: Counter[str] = Counter()
    matched: Counter[str] = Counter()
    decided: Counter[str] = Counter()
    first_error: RecordError | None = None
    read_any = False
    pending_records = pending_bytes = 0
    columns = dict(task.columns) or None
    try:
        for item in _records(task.path, columns):
            seen += 1
            if isinstance(item, RecordError):
                _raise_if_strict(task, item)
                errors += 1
                first_error = first_error or item
                sinks.error(item)
                continue
            read_any = True
            size = item.warc_record_length
            bytes_read += size
            pending_bytes += size
            outcome = process_record(item, task.rules, task.run_id)
            if isinstance(outcome, Rows):
                problem = _rows_problem(outcome)
                if problem is not None:
                    outcome = RecordError("sink", "sink-invalid-row", problem, item.warc_filename,
                                          item.warc_record_offset, item.record_id)
            if isinstance(outcome, Rows):
                for part in outcome.partial:
                    _raise_if_strict(task, part)
                written += 1
                record = outcome.record
                sources[record["encoding_source"]] += 1
                sinks.records.write(record)
                sinks.links.write_many(outcome.links)
                links += len(outcome.links)
                for part in outcome.partial:
                    sinks.error(part, partial=True)
                partial_errors += len(outcome.partial)
                if outcome.rule is not None:
                    matched[str(outcome.rule)] += 1
                    if record["encoding_source"] == "rule":
                        decided[str(outcome.rule)] += 1
            elif isinstance(outcome, Skip):
                skipped[outcome.reason] += 1
            else:
                _raise_if_strict(task, outcome)
                errors += 1
                sinks.error(outcome)
            pending_records += 1
            if progress is not None and pending_records >= PROGRESS_EVERY:
                progress(pending_records, pending_bytes)
                pending_records = pending_bytes = 0
        sinks.close()
    except BaseException:
        sinks.abort()
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
        written=written,
        skipped=dict(sorted(skipped.items())),
        errors=errors,
        partial_errors=partial_errors,
        links=links,
        bytes_read=bytes_read,
        seconds=round(time.monotonic() - started, 3),
        cpu_seconds=round(time.process_time() - cpu_started, 3),
        peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        sources=dict(sorted(sources.items())),
        unreadable=unreadable,
        rules_matched=dict(sorted(matched.items())),
        rules_decided=dict(sorted(decided.items())),
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


def _rows_problem(rows: Rows) -> str | None:
    problem = row_problem(rows.record, RECORDS)
    if problem is not None:
        return f"records.{problem}"
    for link in rows.links:
        problem = row_problem(link, LINKS)
        if problem is not None:
            return f"links.{problem}"
    return None


def record_task_failure(task: Task, error: RecordError) -> TaskStats:
    """Write the parts of a task that could not run at all: empty ``records`` and ``links``,
    one file-level ``errors`` row, its stats and completion marker (the file counts as one
    record seen and lost, as an unreadable file does)."""
    sinks = _Sinks(task)
    try:
        sinks.error(error)
        sinks.close()
    except BaseException:
        sinks.abort()
        raise
    stats = TaskStats(rank=task.rank, path=task.path, seen=1, written=0, errors=1,
                      unreadable=f"{error.error_type}: {error.message}")
    _mark_complete(task, stats)
    return stats


def _mark_complete(task: Task, stats: TaskStats) -> None:
    out = Path(task.out)
    write_json(stats_path(out, task.run_id, task.rank), asdict(stats))
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
