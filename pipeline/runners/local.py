"""The local runner: execute a planned run (:mod:`pipeline.runners.plan`) in a process pool
with progress, resume, a lock and the run's accounting.

Accounting invariant (DESIGN.md), checked per task and for the run, against the counters
AND the rows in every part of the run's partitions: records seen = written + skipped +
errors, where ``errors`` counts records lost; the errors rows of records still written
(``is_partial``) are counted apart in ``partial_errors``.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from pipeline import __version__
from pipeline.rules import Rules
from pipeline.runners.plan import RunPlan
from pipeline.runners.plan import plan as plan_run
from pipeline.runners.pool import Pool
from pipeline.runners.progress import ProgressFn
from pipeline.runners.rundir import (
    TASK_TABLES,
    RunLock,
    RunRefused,
    config_path,
    finished_marker,
    part_path,
    partition,
    remove_run,
    remove_task_tmp,
    run_dir,
    write_json,
)
from pipeline.runners.startup import start_worker
from pipeline.runners.task import Task, TaskStats, read_stats, run_task
from pipeline.schema import RUNS
from pipeline.sinks.files import commit, tmp_path, write_atomic
from pipeline.sources.inputs import writable_name

#: Runs tasks somewhere and yields their stats as they finish (local pool, Spark, ...).
Executor = Callable[[list[Task], int, "ProgressFn | None"], Iterator[TaskStats]]


class RunInterrupted(BaseException):
    """The run was stopped by a signal; its parts so far stay and ``--resume`` continues."""

    def __init__(self, run_id: str, signum: int) -> None:
        super().__init__(run_id, signum)
        self.run_id = run_id
        self.signum = signum


class OutputError(Exception):
    """The run's output could not be written (a full disk, a permission); resumable."""

    def __init__(self, run_id: str, message: str) -> None:
        super().__init__(message)
        self.run_id = run_id


class Interrupt(BaseException):
    """Raised by a signal handler in the main process (see the CLI) to stop a run."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@dataclass(frozen=True, slots=True)
class RuleUse:
    """How often one ``[[encoding.override]]`` matched a record's URL, and decided it."""

    index: int
    rule: str  # e.g. "host = legacy.example.jp, encoding = EUC-JP, mode = fallback"
    matched: int
    decided: int


@dataclass(frozen=True, slots=True)
class RunSummary:
    """What a run did (also the ``runs`` row)."""

    run_id: str
    inputs: tuple[str, ...]
    files: int
    seen: int
    written: int
    skipped: dict[str, int]
    errors: int
    links: int
    bytes_read: int
    seconds: float
    invariant_ok: bool
    problems: tuple[str, ...] = ()
    resumed_files: int = 0
    cpu_seconds: float = 0.0  # summed over tasks (worker CPU time)
    peak_rss_mb: float = 0.0  # the largest worker peak RSS
    sources: dict[str, int] = field(default_factory=dict)
    partial_errors: int = 0
    #: (file, reason) for every input nothing at all could be read from (exit code 3)
    unreadable: tuple[tuple[str, str], ...] = ()
    #: (path, reason) for every file a folder scan passed over
    skipped_inputs: tuple[tuple[str, str], ...] = ()
    #: (input, reason) for every input that named nothing (only with allow_missing)
    missing_inputs: tuple[tuple[str, str], ...] = ()
    rules: tuple[RuleUse, ...] = ()
    #: the holder of a stale lock this run took over ("pid 12 on host h since ..."), if any
    took_over_lock: str | None = None

    @property
    def skipped_total(self) -> int:
        return sum(self.skipped.values())


def execute(
    plan: RunPlan, *, progress: ProgressFn | None = None, executor: Executor | None = None
) -> RunSummary:
    """Run a :class:`RunPlan`: lock the run, write its config, run the tasks, check the
    accounting, write the ``runs`` row. Raises :class:`RunRefused` when another process
    holds the run, :class:`RunInterrupted` on :class:`Interrupt` or KeyboardInterrupt, and
    :class:`OutputError` when the output cannot be written."""
    out, run_id = plan.out, plan.run_id
    if not plan.resume and not plan.overwrite:
        try:  # a new run's folder is created by exactly one process
            run_dir(out, run_id).mkdir(parents=True)
        except FileExistsError:
            raise RunRefused(f"run {run_id} already exists in {out}") from None
        except OSError as exc:
            raise RunRefused(f"--out {out}: {exc.strerror}") from None
    try:
        with RunLock(out, run_id) as lock:
            return _execute_locked(plan, lock, progress, executor)
    except (Interrupt, KeyboardInterrupt) as exc:
        signum = exc.signum if isinstance(exc, Interrupt) else 2
        raise RunInterrupted(run_id, signum) from None
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        raise OutputError(run_id, f"{where}{exc.strerror or exc}") from None


def _execute_locked(
    plan: RunPlan, lock: RunLock, progress: ProgressFn | None, executor: Executor | None
) -> RunSummary:
    out, run_id = plan.out, plan.run_id
    done: list[TaskStats] = []
    tasks: list[Task] = []
    for rank, path in enumerate(plan.files):
        # (read first: a corrupt stats file refuses the resume before anything is written)
        previous = read_stats(out, run_id, rank) if plan.resume else None
        if previous is not None and previous.path == path:
            done.append(previous)
        else:
            tasks.append(Task(rank, path, run_id, str(out), plan.rules, plan.columns, plan.strict))
    if plan.overwrite:
        remove_run(out, run_id)
    finished_marker(out, run_id).unlink(missing_ok=True)
    write_json(config_path(out, run_id), plan.config)
    for task in tasks:
        remove_task_tmp(out, run_id, task.rank)  # what a killed run left, by name
    started_at = datetime.now(UTC)
    started = time.monotonic()
    resumed = len(done)
    if progress:
        for _ in range(resumed):
            progress("file", 0, 0)
    execute_tasks = executor or _execute
    done.extend(execute_tasks(tasks, plan.workers, progress))
    done.sort(key=lambda s: s.rank)
    problems = _check(out, run_id, done)
    summary = _summarize(plan, done, problems, resumed, time.monotonic() - started, lock)
    _write_runs_row(out, summary, plan.rules, started_at, plan.config)
    write_atomic(finished_marker(out, run_id), datetime.now(UTC).isoformat().encode())
    return summary


def _execute(tasks: list[Task], workers: int, progress: ProgressFn | None) -> Iterator[TaskStats]:
    """The default executor: in this process for one worker or one task, else a pool."""
    if workers <= 1 or len(tasks) <= 1:
        start_worker()
        for task in tasks:
            yield run_task(task, (lambda n, b: progress("records", n, b)) if progress else None)
            if progress:
                progress("file", 0, 0)
        return
    with Pool(workers) as pool:
        yield from pool.run(tasks, progress)


_PART = re.compile(r"part-(\d{5})\.parquet")


def _check(out: Path, run_id: str, done: list[TaskStats]) -> list[str]:
    """Every way the accounting fails, against the counters and every part on disk."""
    problems = []
    for stats in done:
        total = stats.written + sum(stats.skipped.values()) + stats.errors
        if stats.seen != total:
            problems.append(f"{stats.path}: seen {stats.seen} != written+skipped+errors {total}")
    expected = {
        "records": {s.rank: s.written for s in done},
        "links": {s.rank: s.links for s in done},
        "errors": {s.rank: s.errors + s.partial_errors for s in done},
    }
    for table in TASK_TABLES:
        folder = partition(out, table, run_id)
        found: dict[int, int] = {}
        entries = sorted(folder.iterdir()) if folder.is_dir() else []
        for entry in entries:
            if entry.name.startswith(".") or not entry.name.endswith(".parquet"):
                continue  # what readers of the tables skip (they read */*.parquet)
            match = _PART.fullmatch(entry.name)
            if match is None or int(match.group(1)) not in expected[table]:
                problems.append(f"{entry}: a file no task of this run wrote")
                continue
            try:
                found[int(match.group(1))] = pq.read_metadata(entry).num_rows
            except (OSError, pa.ArrowException) as exc:
                problems.append(f"{entry}: unreadable part ({exc})")
        for rank, rows in expected[table].items():
            if found.get(rank) != rows:
                path = part_path(out, table, run_id, rank)
                have = "missing" if rank not in found else f"{found[rank]} rows"
                problems.append(f"{path}: {have}, counters say {rows}")
    return problems


def _summarize(
    plan: RunPlan, done: list[TaskStats], problems: list[str], resumed: int, seconds: float,
    lock: RunLock,
) -> RunSummary:
    skipped: Counter[str] = Counter()
    sources: Counter[str] = Counter()
    matched: Counter[str] = Counter()
    decided: Counter[str] = Counter()
    for stats in done:
        skipped.update(stats.skipped)
        sources.update(stats.sources)
        matched.update(stats.rules_matched)
        decided.update(stats.rules_decided)
    rules = tuple(
        RuleUse(i, _describe(o), matched.get(str(i), 0), decided.get(str(i), 0))
        for i, o in enumerate(plan.rules.encoding.overrides)
    )
    holder = lock.stale_holder
    return RunSummary(
        run_id=plan.run_id,
        inputs=plan.files,
        files=len(plan.files),
        seen=sum(s.seen for s in done),
        written=sum(s.written for s in done),
        skipped=dict(sorted(skipped.items())),
        errors=sum(s.errors for s in done),
        partial_errors=sum(s.partial_errors for s in done),
        links=sum(s.links for s in done),
        bytes_read=sum(s.bytes_read for s in done),
        seconds=round(seconds, 3),
        invariant_ok=not problems,
        problems=tuple(problems),
        resumed_files=resumed,
        cpu_seconds=round(sum(s.cpu_seconds for s in done), 3),
        peak_rss_mb=max((s.peak_rss_mb for s in done), default=0.0),
        sources=dict(sorted(sources.items())),
        unreadable=tuple((s.path, s.unreadable) for s in done if s.unreadable is not None),
        skipped_inputs=plan.skipped_inputs,
        missing_inputs=plan.missing_inputs,
        rules=rules,
        took_over_lock=(f"pid {holder.get('pid')} on host {holder.get('host')} since "
                        f"{holder.get('since')}" if holder else None),
    )


def _describe(override: Any) -> str:
    where = f"host = {override.host}" if override.host else f"url_prefix = {override.url_prefix}"
    return f"{where}, encoding = {override.encoding}, mode = {override.mode}"


def run(
    inputs: list[str],
    out: str | Path,
    rules: Rules,
    *,
    workers: int | None = None,
    run_id: str | None = None,
    resume: bool = False,
    overwrite: bool = False,
    allow_missing: bool = False,
    columns: dict[str, str] | None = None,
    progress: ProgressFn | None = None,
    config_sources: dict[str, str] | None = None,
    executor: Executor | None = None,
    strict: bool = False,
) -> RunSummary:
    """Decode every input into ``out`` (:func:`~pipeline.runners.plan.plan`, then
    :func:`execute`); returns the summary (also written to ``runs``). Raises ``RunRefused``
    and ``NothingToResume`` as ``plan`` does."""
    planned = plan_run(
        inputs, out, rules, workers=workers, run_id=run_id, resume=resume, overwrite=overwrite,
        allow_missing=allow_missing, columns=columns, config_sources=config_sources,
        strict=strict,
    )
    return execute(planned, progress=progress, executor=executor)


def _write_runs_row(
    out: Path, summary: RunSummary, rules: Rules, started_at: datetime, config: dict[str, Any]
) -> None:
    row = {
        "run_id": summary.run_id,
        "started_at": started_at,
        "finished_at": datetime.now(UTC),
        "pipeline_version": __version__,
        "rules_version": rules.version,
        "rules_sha256": rules.source_sha256,
        "policy": rules.encoding.policy,
        "inputs": [writable_name(path) for path in summary.inputs],
        "files": summary.files,
        "records_seen": summary.seen,
        "records_written": summary.written,
        "records_skipped": summary.skipped_total,
        "skipped_by_reason": json.dumps(summary.skipped, sort_keys=True),
        "errors": summary.errors,
        "partial_errors": summary.partial_errors,
        "links_written": summary.links,
        "bytes_read": summary.bytes_read,
        "seconds": summary.seconds,
        "invariant_ok": summary.invariant_ok,
        "config": json.dumps(config, sort_keys=True),  # ASCII: any file name survives
    }
    path = part_path(out, "runs", summary.run_id, 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = tmp_path(path)
    try:
        pq.write_table(pa.Table.from_pylist([row], schema=RUNS), tmp, compression="zstd")
        commit(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
