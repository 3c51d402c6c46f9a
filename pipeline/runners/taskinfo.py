"""What a task is and what it reports: the light half of :mod:`pipeline.runners.task`.

The run's main process plans tasks, reads the stats of finished ones and checks the
accounting; it imports this module, not the task's record loop (which loads the whole
pipeline: with a pool, only the workers need that; see ``preload.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from pipeline.rules import Rules
from pipeline.runners.rundir import MetadataError, completion_marker, read_json, stats_path


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
