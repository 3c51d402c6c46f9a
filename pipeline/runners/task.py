"""One task = one input file of a run: read it, process every record, write its parts.

The same function serves the local pool; Spark runs ``process_record`` per record instead
(see ``pipeline.runners.spark``). A task's outputs land atomically, then its completion
marker, so ``--resume`` can trust a marker.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pipeline.errors import RecordError, Skip
from pipeline.rules import Rules
from pipeline.runners.worker import Rows, error_row, process_record
from pipeline.schema import ERRORS, LINKS, RECORDS, UNIQUE_VALUED
from pipeline.sinks.parquet import ParquetSink, part_path, use_reusing_memory_pool
from pipeline.sources import iter_records

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
    errors: int = 0
    links: int = 0
    bytes_read: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # CPU time of this task in its worker process
    peak_rss_mb: float = 0.0  # the worker process's peak RSS when the task ended
    sources: dict[str, int] = field(default_factory=dict)  # encoding_source → records


def run_dir(out: Path, run_id: str) -> Path:
    """The run's bookkeeping folder (stats, completion markers, resolved config)."""
    return out / "_runs" / run_id


def completion_marker(out: Path, run_id: str, rank: int) -> Path:
    """The marker written after a task's parts are all in place."""
    return run_dir(out, run_id) / "_completions" / f"{rank:05d}"


def run_task(task: Task, progress: Callable[[int, int], None] | None = None) -> TaskStats:
    """Process one input file end to end; returns its counters.

    ``progress(records, bytes)`` is called with increments as the task goes.
    """
    out = Path(task.out)
    use_reusing_memory_pool()
    started = time.monotonic()
    cpu_started = time.process_time()
    sinks = {
        name: ParquetSink(part_path(out, name, task.run_id, task.rank), schema,
                          UNIQUE_VALUED.get(name, frozenset()))
        for name, schema in (("records", RECORDS), ("links", LINKS), ("errors", ERRORS))
    }
    seen = written = errors = links = bytes_read = 0
    skipped: Counter[str] = Counter()
    sources: Counter[str] = Counter()
    pending_records = pending_bytes = 0
    columns = dict(task.columns) or None
    try:
        for item in iter_records(task.path, columns=columns):
            seen += 1
            if isinstance(item, RecordError):
                _raise_if_strict(task, item)
                errors += 1
                sinks["errors"].write(error_row(item, task.run_id))
                continue
            size = item.warc_record_length
            bytes_read += size
            pending_bytes += size
            outcome = process_record(item, task.rules, task.run_id)
            if isinstance(outcome, Rows):
                written += 1
                sources[outcome.record["encoding_source"]] += 1
                sinks["records"].write(outcome.record)
                sinks["links"].write_many(outcome.links)
                links += len(outcome.links)
            elif isinstance(outcome, Skip):
                skipped[outcome.reason] += 1
            else:
                _raise_if_strict(task, outcome)
                errors += 1
                sinks["errors"].write(error_row(outcome, task.run_id))
            pending_records += 1
            if progress is not None and pending_records >= PROGRESS_EVERY:
                progress(pending_records, pending_bytes)
                pending_records = pending_bytes = 0
        for sink in sinks.values():
            sink.close()
    except BaseException:
        for sink in sinks.values():
            sink.abort()
        raise
    if progress is not None and (pending_records or pending_bytes):
        progress(pending_records, pending_bytes)
    stats = TaskStats(
        rank=task.rank,
        path=task.path,
        seen=seen,
        written=written,
        skipped=dict(sorted(skipped.items())),
        errors=errors,
        links=links,
        bytes_read=bytes_read,
        seconds=round(time.monotonic() - started, 3),
        cpu_seconds=round(time.process_time() - cpu_started, 3),
        peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        sources=dict(sorted(sources.items())),
    )
    _write_json_atomic(run_dir(out, task.run_id) / "_stats" / f"{task.rank:05d}.json", asdict(stats))
    _write_json_atomic(completion_marker(out, task.run_id, task.rank), {"path": task.path})
    return stats


def _raise_if_strict(task: Task, error: RecordError) -> None:
    if task.strict:
        raise StrictModeError(
            f"{error.warc_filename}@{error.offset}: {error.stage}/{error.error_type}: {error.message}"
        )


def _write_json_atomic(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, sort_keys=True))
    os.replace(tmp, path)


def read_stats(out: Path, run_id: str, rank: int) -> TaskStats | None:
    """The stats of a completed task, or None when the task has not completed."""
    if not completion_marker(out, run_id, rank).exists():
        return None
    path = run_dir(out, run_id) / "_stats" / f"{rank:05d}.json"
    return TaskStats(**json.loads(path.read_text()))
