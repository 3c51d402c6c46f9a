"""One task = one input file of a run: read it, process every record, write its parts.

The same function serves the local pool, the single-process path and Spark executors.
:func:`run_task` writes the three parts under temporary names unique to the attempt;
:func:`commit_task` puts them under their final names, then writes the stats, then the
completion marker (the commit), so ``--resume`` and the audits can trust a marker. In the
local pool a worker commits its own task; on Spark the driver commits the one attempt per
rank that Spark reports as successful (see :mod:`pipeline.runners.spark`).

Every record is counted once: ``seen = written + skipped + errors``. A record that fails
any stage, or whose row Arrow cannot convert (found when its row group is converted; it
never spoils the others), is an ``errors`` row. A part that failed in a record that was
still written is an ``errors`` row too, counted apart in ``partial_errors``.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, fields
from typing import IO, Any

import pyarrow as pa

from pipeline.errors import RecordError, Skip
from pipeline.rules import Rules
from pipeline.runners.rundir import (
    TASK_TABLES,
    MetadataError,
    RunDir,
    new_attempt,
    parse_json,
)
from pipeline.runners.worker import Rows, error_row, process_record
from pipeline.schema import ERRORS, LINKS, RECORDS, UNIQUE_VALUED
from pipeline.sinks.parquet import ROW_GROUP_BYTES, ROW_GROUP_ROWS, ParquetSink
from pipeline.sinks.rowcheck import row_problem
from pipeline.sources import iter_records
from pipeline.sources.record import RawRecord
from pipeline.storage import Storage, StorageError, redact_url

#: Progress is reported every this many records (and at the end).
PROGRESS_EVERY = 100


@dataclass(frozen=True, slots=True)
class Task:
    """A unit of work: one input file, with its rank in the run.

    ``path`` is what is opened (a URL may carry credentials in a presigned query);
    :attr:`name`, the path without them, is what every row, stats file and message shows.
    """

    rank: int
    path: str
    run_id: str
    out: str
    rules: Rules
    columns: tuple[tuple[str, str], ...] = ()
    strict: bool = False  # raise on the first record error instead of recording it
    storage: Storage = field(default_factory=Storage)

    @property
    def name(self) -> str:
        """The input as rows and messages name it (no user information, no query)."""
        return redact_url(self.path)

    @property
    def rundir(self) -> RunDir:
        """The run's files."""
        return RunDir(self.storage, self.out, self.run_id)


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
    #: the attempt that wrote the parts (their temporary names carry it until the commit)
    attempt: str = ""


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
            ParquetSink(fh, schema, UNIQUE_VALUED.get(name, frozenset()))
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
    return err if message == err.message else RecordError(
        err.stage, err.error_type, message, err.warc_filename, err.offset, err.record_id)


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


#: Test-only fault injection (documented in docs/run.md): ``RUN_ID:RANK:RECORDS:FLAG[:kill]``
#: makes the task at rank RANK of run RUN_ID fail once after RECORDS records, or with
#: RECORDS ``-1`` in the middle of its commit (its records part put in place, the rest
#: not): an exception, or SIGKILL of its process with ``kill``. The local file FLAG,
#: created exclusively at the fault, makes it once (a retry finds it and runs through).
FAULT_ENV = "REDECODE_TEST_FAULT"


class InjectedFault(RuntimeError):
    """The failure :data:`FAULT_ENV` asked for."""


def _fault_at(task: Task) -> tuple[int, str, bool] | None:
    spec = os.environ.get(FAULT_ENV)
    if not spec:
        return None
    run_id, rank, records, flag, *how = spec.split(":", 4)
    if run_id != task.run_id or int(rank) != task.rank:
        return None
    return int(records), flag, how == ["kill"]


def _inject(fault: tuple[int, str, bool]) -> None:
    try:
        os.close(os.open(fault[1], os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return  # it happened already: this attempt runs through
    if fault[2]:
        os.kill(os.getpid(), signal.SIGKILL)
    raise InjectedFault(f"injected by {FAULT_ENV}")


def run_task(task: Task, progress: Callable[[int, int], None] | None = None) -> TaskStats:
    """Process one input file end to end and write its parts under the temporary names of a
    new attempt (:func:`commit_task` puts them in place); returns its counters, which name
    the attempt.

    ``progress(records, bytes)`` is called with increments as the task goes.
    """
    started = time.monotonic()
    cpu_started = time.process_time()
    attempt = new_attempt()
    counts = _Counts()
    writer = _Writer(task, counts, attempt)
    seen = bytes_read = 0
    skipped: Counter[str] = Counter()
    first_error: RecordError | None = None
    read_any = False
    pending_records = pending_bytes = 0
    columns = dict(task.columns) or None
    fault = _fault_at(task)
    try:
        for item in _records(task, columns):
            seen += 1
            if fault is not None and 0 <= fault[0] < seen:
                _inject(fault)
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
    except BaseException as exc:
        writer.abort(exc)
        raise
    if progress is not None and (pending_records or pending_bytes):
        progress(pending_records, pending_bytes)
    unreadable = None
    if not read_any:
        unreadable = (f"{first_error.error_type}: {_scrubbed(first_error, task).message}"
                      if first_error else "no records")
    return TaskStats(
        rank=task.rank,
        path=task.name,
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
        attempt=attempt,
    )


def _records(task: Task, columns: dict[str, str] | None) -> Iterator[RawRecord | RecordError]:
    """The input's records, read from a file the storage layer opens (streamed from a
    remote store); an input that cannot be opened is one file-level ``errors`` row, and so
    is a reader bug (the rest of the file is lost, the records read so far stay)."""
    try:
        fh = task.storage.open_read(task.path)
    except StorageError as exc:
        yield RecordError("source", "source-unreadable-file", str(exc), task.name)
        return
    try:
        yield from iter_records(task.name, columns=columns, fileobj=fh)
    except Exception as exc:
        yield RecordError("source", "source-reader-failed",
                          f"reading stopped: {type(exc).__name__}: {exc}"[:2000], task.name)
    finally:
        with contextlib.suppress(Exception):
            fh.close()


def commit_task(task: Task, stats: TaskStats) -> None:
    """Commit attempt ``stats.attempt`` of the task: its three parts under their final
    names (a rename, or a copy on an object store), then its stats, then the completion
    marker. A crash in between leaves no marker: the rank is not committed, and the next
    commit of it (``--resume``) replaces whatever was put in place."""
    rundir = task.rundir
    fault = _fault_at(task)
    for table in TASK_TABLES:
        task.storage.promote(rundir.temp_part(table, task.rank, stats.attempt),
                             rundir.part(table, task.rank))
        if fault is not None and fault[0] < 0:
            _inject(fault)
    # Only the marker (what --resume trusts) is flushed to a local disk, with its folder,
    # which makes the renames before it durable too on journalling file systems.
    rundir.write_json(rundir.stats(task.rank), asdict(stats), durable=False)
    rundir.write_json(rundir.marker(task.rank), {"path": stats.path, "attempt": stats.attempt})


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
        where = error.warc_filename + (f"@{error.offset}" if error.offset is not None else "")
        raise StrictModeError(f"{where}: {error.stage}/{error.error_type}: {error.message}")


def read_committed(rundir: RunDir, ranks: list[int]) -> dict[int, TaskStats]:
    """The stats of every rank in ``ranks`` that has committed (one listing of the markers,
    then the stats files read concurrently from a remote store); :class:`MetadataError`
    names a corrupt stats file."""
    committed = sorted(rundir.committed() & set(ranks))
    paths = [rundir.stats(rank) for rank in committed]
    names = {f.name for f in fields(TaskStats)}
    found: dict[int, TaskStats] = {}
    for rank, path, raw in zip(committed, paths, rundir.storage.read_many(paths), strict=True):
        if raw is None:
            raise MetadataError(f"{path}: missing, but rank {rank} has a completion marker; "
                                "remove the run with --overwrite")
        data: Any = parse_json(raw, path)
        if not isinstance(data, dict) or not {"rank", "path", "seen", "written"} <= data.keys() <= names:
            raise MetadataError(f"{path}: not the stats of a task; remove the run with --overwrite")
        found[rank] = TaskStats(**data)
    return found
