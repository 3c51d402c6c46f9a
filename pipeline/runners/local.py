"""The local runner: plan a run (refusing what cannot run before anything is written), then
execute it in a process pool with progress, resume and the run's accounting.

Accounting invariant (DESIGN.md), checked per task and for the run, against the counters
AND the rows in every part of the run's partitions: records seen = written + skipped +
errors, where ``errors`` counts records lost; the errors rows of records still written
(``is_partial``) are counted apart in ``partial_errors``.
"""

from __future__ import annotations

import hashlib
import json
import os
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
from pipeline.runners.pool import Pool
from pipeline.runners.progress import ProgressFn
from pipeline.runners.rundir import (
    TASK_TABLES,
    MetadataError,
    RunLock,
    RunRefused,
    config_path,
    existing_files,
    finished_marker,
    new_run_id,
    part_path,
    partition,
    read_json,
    remove_run,
    remove_task_tmp,
    run_dir,
    validate_run_id,
    write_json,
)
from pipeline.runners.startup import start_worker
from pipeline.runners.task import Task, TaskStats, read_stats, run_task
from pipeline.schema import RUNS
from pipeline.sinks.files import commit, tmp_path, write_atomic
from pipeline.sources.inputs import expand_inputs, writable_name

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


class NothingToResume(Exception):
    """``--resume`` found no unfinished run to continue; nothing was written (exit code 0)."""


@dataclass(frozen=True, slots=True)
class RunPlan:
    """A run that passed every check: what :func:`execute` will do."""

    out: Path
    run_id: str
    files: tuple[str, ...]
    rules: Rules
    config: dict[str, Any]
    workers: int
    columns: tuple[tuple[str, str], ...]
    strict: bool
    resume: bool  # continue the existing run (its completed tasks are kept)
    overwrite: bool  # remove the existing run with this id first
    skipped_inputs: tuple[tuple[str, str], ...]
    missing_inputs: tuple[tuple[str, str], ...]


def plan(
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
    config_sources: dict[str, str] | None = None,
    strict: bool = False,
) -> RunPlan:
    """Check a run before anything is written; :class:`RunRefused` (exit code 2) names what
    is wrong: a bad run id or ``--out``, a missing input, a run id already used (without
    ``--resume``/``--overwrite``), a run to resume that was started differently.
    :class:`NothingToResume` when ``resume`` finds the run already finished."""
    out = Path(out)
    if workers is not None and workers < 1:
        raise RunRefused(f"--workers {workers}: at least 1")
    if run_id is not None:
        validate_run_id(run_id)
    if resume and overwrite:
        raise RunRefused("--resume and --overwrite contradict each other: choose one")
    if overwrite and run_id is None:
        raise RunRefused("--overwrite needs --run-id (the run to replace)")
    _check_out(out)
    try:
        expanded = expand_inputs(inputs, exclude=str(out))
    except (ValueError, OSError) as exc:
        raise RunRefused(str(exc)) from None
    remote = [m for m in expanded.missing if m.reason.startswith("remote inputs")]
    if remote or (expanded.missing and not allow_missing):
        shown = "; ".join(f"{m.input}: {m.reason}" for m in (remote or expanded.missing))
        hint = "" if remote else " (--allow-missing runs the rest)"
        raise RunRefused(f"inputs not found: {shown}{hint}")
    files = expanded.files
    if not files:
        raise RunRefused("no input files" + (f" in {', '.join(inputs)}" if inputs else ""))
    if resume:
        run_id = _find_run_to_resume(out, files, rules, run_id)
    elif run_id is not None and not overwrite and (
        existing_files(out, run_id) or config_path(out, run_id).exists()
    ):
        raise RunRefused(
            f"run {run_id} already exists in {out}: add --resume to continue it, or "
            "--overwrite to replace it"
        )
    if run_id is None:
        digest = hashlib.sha256(json.dumps([files, rules.version]).encode()).hexdigest()
        run_id = new_run_id(digest)
    skipped = tuple((s.path, s.reason) for s in expanded.skipped)
    missing = tuple((m.input, m.reason) for m in expanded.missing)
    config = {
        "run_id": run_id,
        "started_at": datetime.now(UTC).isoformat(),
        "inputs": files,
        "pipeline_version": __version__,
        "rules_version": rules.version,
        "rules": rules.to_json(),
        "rules_sha256": rules.source_sha256,
        "workers": workers,
        "columns": columns,
        "sources": config_sources or {},
        "skipped_inputs": [{"path": p, "reason": r} for p, r in skipped],
        "missing_inputs": [{"input": i, "reason": r} for i, r in missing],
    }
    return RunPlan(
        out=out, run_id=run_id, files=tuple(files), rules=rules, config=config,
        workers=workers or os.cpu_count() or 1, columns=tuple(sorted((columns or {}).items())),
        strict=strict, resume=resume, overwrite=overwrite, skipped_inputs=skipped,
        missing_inputs=missing,
    )


def _check_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise RunRefused(f"--out {out}: not a folder")
    ancestor = out
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise RunRefused(f"--out {out}: {ancestor} is not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise RunRefused(f"--out {out}: {ancestor} is not writable")


def _runs_in(out: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every run in ``out`` with its config, newest first; :class:`MetadataError` for a
    corrupt one."""
    base = out / "_runs"
    if not base.is_dir():
        return []
    runs = []
    for folder in base.iterdir():
        path = folder / "_run.json"
        if folder.is_dir() and path.exists():
            data = read_json(path)
            if not isinstance(data, dict):
                raise MetadataError(f"{path}: not a run's config; remove the run with --overwrite")
            runs.append((folder.name, data))
    runs.sort(key=lambda run: (str(run[1].get("started_at", "")), run[0]), reverse=True)
    return runs


def _find_run_to_resume(
    out: Path, files: list[str], rules: Rules, run_id: str | None
) -> str:
    """The run ``--resume`` continues; :class:`NothingToResume` or :class:`RunRefused` why
    there is none."""
    if run_id is not None:
        path = config_path(out, run_id)
        if not path.exists():
            return run_id  # not started yet: --resume --run-id X runs X to the end, once
        data = read_json(path)
        if not isinstance(data, dict):
            raise MetadataError(f"{path}: not a run's config; remove the run with --overwrite")
        if data.get("inputs") != files or data.get("rules_version") != rules.version:
            raise RunRefused(
                f"run {run_id} in {out} was started with other inputs or rules: resume it "
                "with the same ones, or --overwrite it"
            )
        if finished_marker(out, run_id).exists():
            raise NothingToResume(f"run {run_id} in {out} has finished; nothing to resume")
        return run_id
    same = [(rid, data) for rid, data in _runs_in(out)
            if data.get("inputs") == files and data.get("rules_version") == rules.version]
    if not same:
        raise RunRefused(
            f"nothing to resume: {out} holds no run of these inputs and rules "
            "(drop --resume to start one)"
        )
    newest, _ = same[0]
    if finished_marker(out, newest).exists():
        raise NothingToResume(
            f"the newest run of these inputs and rules in {out}, {newest}, has finished; "
            "nothing to resume (drop --resume to start a new run)"
        )
    return newest


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
    """Decode every input into ``out`` (:func:`plan`, then :func:`execute`); returns the
    summary (also written to ``runs``). Raises :class:`RunRefused` and
    :class:`NothingToResume` as :func:`plan` does."""
    planned = plan(
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
