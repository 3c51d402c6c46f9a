"""The local runner: execute a planned run (:mod:`pipeline.runners.plan`) in a process pool
with progress, resume, a lock and the run's accounting.

Accounting invariant (DESIGN.md), checked per task and for the run, against the counters,
the parts each task reported (rows and bytes) and one listing of each table's folder: records seen = written + skipped +
errors, where ``errors`` counts records lost; the errors rows of records still written
(``is_partial``) are counted apart in ``partial_errors``.
"""

from __future__ import annotations

import json
import os
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
from pipeline.provenance import code_identity
from pipeline.rules import Rules
from pipeline.runners.lock import RunLock
from pipeline.runners.plan import TASK_SIZE, RunPlan
from pipeline.runners.plan import plan as plan_run
from pipeline.runners.progress import ProgressFn
from pipeline.runners.retries import Lost, count, read_lost, write_lost
from pipeline.runners.rundir import TASK_TABLES, RunDir, RunRefused
from pipeline.runners.startup import start_worker
from pipeline.runners.taskinfo import (
    COMMIT_WIDTH,
    PART_SIZE,
    BaseInput,
    Task,
    TaskStats,
    read_committed,
)
from pipeline.schema import RUNS
from pipeline.sources.inputs import writable_name
from pipeline.sources.roots import stable_name
from pipeline.storage import Storage, StorageError, is_remote, join, redact_url

#: Runs tasks somewhere and yields their stats as they finish (local pool, Spark, ...), and
#: each attempt or executor it lost on the way.
Executor = Callable[[list[Task], int, "ProgressFn | None"], Iterator["TaskStats | Lost"]]


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
    #: (file, where) for every input that ends inside a record (a cut download)
    truncated: tuple[tuple[str, str], ...] = ()
    #: (file, skipped by reason) for every input read whole that held nothing to decode
    #: (no response or resource record: a WAT or WET file, a WARC of requests only)
    nothing_to_decode: tuple[tuple[str, dict[str, int]], ...] = ()
    #: (path, reason) for every file a folder scan passed over
    skipped_inputs: tuple[tuple[str, str], ...] = ()
    #: (input, reason) for every input that named nothing (only with allow_missing)
    missing_inputs: tuple[tuple[str, str], ...] = ()
    rules: tuple[RuleUse, ...] = ()
    #: the holder of a stale lock this run took over ("pid 12 on host h since ..."), if any
    took_over_lock: str | None = None
    #: an incremental run (``--base-run``): the base run, whether the change was local,
    #: records whose rows were copied and records decoded again
    base_run: str | None = None
    base_change: str | None = None
    copied: int = 0
    redecoded: int = 0
    #: every attempt and executor the run lost (all its invocations; ``_runs/R/_lost.json``)
    lost: tuple[Lost, ...] = ()
    #: what the run could not clean up, and why (the run's output is whole either way)
    uncleaned: tuple[str, ...] = ()

    @property
    def attempts_lost(self) -> int:
        """Attempts at tasks whose work was thrown away (each was tried again)."""
        return count(self.lost, "attempt")

    @property
    def executors_lost(self) -> int:
        """Pool workers or Spark executors that died or were lost while the run ran."""
        return count(self.lost, "executor")

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
    rundir = RunDir(plan.storage, plan.out, plan.run_id)
    fresh = not plan.resume and not plan.overwrite
    if fresh and not is_remote(plan.out):
        try:  # a new run's folder is created by exactly one process
            os.makedirs(rundir.meta)
        except FileExistsError:
            raise RunRefused(f"run {plan.run_id} already exists in {plan.out}") from None
        except OSError as exc:
            raise RunRefused(f"--out {plan.out}: {exc.strerror}") from None
    try:
        with RunLock(rundir) as lock:
            if fresh and is_remote(plan.out) and plan.storage.exists(rundir.config):
                raise RunRefused(f"run {plan.run_id} already exists in {plan.out}")
            return _execute_locked(plan, rundir, lock, progress, executor)
    except (Interrupt, KeyboardInterrupt) as exc:
        signum = exc.signum if isinstance(exc, Interrupt) else 2
        raise RunInterrupted(plan.run_id, signum) from None
    except StorageError as exc:
        raise OutputError(plan.run_id, str(exc)) from None
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        raise OutputError(plan.run_id, f"{where}{exc.strerror or exc}") from None


def _execute_locked(
    plan: RunPlan, rundir: RunDir, lock: RunLock, progress: ProgressFn | None,
    executor: Executor | None,
) -> RunSummary:
    storage = plan.storage
    done: list[TaskStats] = []
    tasks: list[Task] = []
    # (read first: a corrupt stats file refuses the resume before anything is written)
    previous = read_committed(rundir, list(range(len(plan.files)))) if plan.resume else {}
    lost = read_lost(rundir) if plan.resume else []
    for rank, path in enumerate(plan.files):
        stats = previous.get(rank)
        if stats is not None and stats.path == redact_url(path):
            done.append(stats)
        else:
            group = tuple((member, stable_name(redact_url(member), plan.input_root))
                          for member in plan.groups.get(path, ()))
            tasks.append(Task(rank, path, plan.run_id, plan.out, plan.rules, plan.columns,
                              plan.strict, storage, pages=plan.pages.get(path, ()),
                              key=stable_name(redact_url(path), plan.input_root),
                              # (a file read by ranges is decoded, never copied from a base)
                              base=None if path in plan.ranges else _base_input(plan, path),
                              ranges=plan.ranges.get(path), group=group,
                              part_size=plan.part_size, commit_width=plan.commit_width))
    if plan.overwrite:
        rundir.remove(keep=(rundir.lock,))
    storage.remove(rundir.finished)
    rundir.write_json(rundir.config, plan.config)
    leftovers = rundir.temporary_files()  # what a killed run left, by name
    storage.remove_all([path for task in tasks for path in leftovers.get(task.rank, [])]
                       + leftovers.get(None, []))
    if plan.resume:  # parts an attempt killed in its commit put in place (no marker)
        storage.remove_all(rundir.final_parts({task.rank for task in tasks}))
    uncleaned = _abort_uploads(rundir)  # and what it was uploading when killed (S3)
    started_at = datetime.now(UTC)
    started = time.monotonic()
    resumed = sum(len(plan.pages.get(plan.files[stats.rank], ()))
                  or len(plan.groups.get(plan.files[stats.rank], ())) or 1 for stats in done)
    if progress:
        for stats in done:
            progress("resumed", stats.rank, 0)
    execute_tasks = executor or _execute
    for item in execute_tasks(tasks, plan.workers, progress):
        if isinstance(item, Lost):
            lost.append(item)
            write_lost(rundir, lost)  # at once: kept if this process is killed later
        else:
            done.append(item)
    done.sort(key=lambda s: s.rank)
    # attempts that lost (a retried or speculative copy on Spark) may have left theirs
    storage.remove_all([path for paths in rundir.temporary_files().values() for path in paths])
    uncleaned += [note for note in _abort_uploads(rundir) if note not in uncleaned]
    problems = check_accounting(rundir, done, len(plan.files))
    if lock.lost:
        raise OutputError(plan.run_id, f"{rundir.lock}: another process took the run's lock "
                          "over (this one stopped renewing it in time); the runs row was not "
                          "written")
    summary = _summarize(plan, done, problems, resumed, time.monotonic() - started, lock, lost,
                         uncleaned)
    _write_runs_row(rundir, summary, plan.rules, started_at, plan.config)
    storage.write_bytes(rundir.finished, datetime.now(UTC).isoformat().encode())
    return summary


def _base_input(plan: RunPlan, path: str) -> BaseInput | None:
    """Where the task of ``path`` copies from: its rank in the base run of a local change,
    None when it is decoded whole (no base run, a global change, an input the base run did
    not read)."""
    base = plan.base
    if base is None or base.change != "local" or base.ranks is None:
        return None
    rank = base.ranks.get(redact_url(path))
    return None if rank is None else BaseInput(base.run_id, rank, base.overrides)


def _abort_uploads(rundir: RunDir) -> list[str]:
    """Abort the unfinished uploads of the run's temporary parts; when the store refuses
    (a policy without ``s3:ListBucketMultipartUploads``), why, for the summary: a cleanup
    never stops the run."""
    try:
        rundir.abort_uploads()
    except StorageError as exc:
        return [f"cannot abort the unfinished uploads a killed writer may have left ({exc}); "
                "a lifecycle rule with AbortIncompleteMultipartUpload on the bucket removes "
                "them"]
    return []


def _execute(tasks: list[Task], workers: int, progress: ProgressFn | None
             ) -> Iterator[TaskStats | Lost]:
    """The default executor: in this process for one worker or one task, else a pool."""
    if workers <= 1 or len(tasks) <= 1:
        start_worker()
        # (here, not at the top: with a pool this process never runs a task itself)
        from pipeline.runners.task import run_and_commit

        for task in tasks:
            yield run_and_commit(task, (lambda n, b: progress("records", n, b))
                                 if progress else None)
            if progress:
                progress("file", 0, 0)
        return
    from pipeline.runners.pool import Pool  # (multiprocessing: only a run of workers needs it)

    with Pool(workers) as pool:
        yield from pool.run(tasks, progress)


def check_accounting(rundir: RunDir, done: list[TaskStats], tasks: int) -> list[str]:
    """Every way the accounting fails, from what the tasks reported (their stats: counters
    and the parts they wrote, with rows and bytes), the completion markers (one listing)
    and one listing of each table's folder: each task's counters add up, its parts hold
    the rows its counters say, and the folder holds exactly the parts the stats list, each
    of the size the commit wrote. No part is opened (``redecode audit --check all`` reads
    every footer)."""
    storage = rundir.storage
    problems = []
    committed = rundir.committed()
    ran = {stats.rank for stats in done}
    problems += [f"rank {rank}: never finished (no stats)" for rank in range(tasks)
                 if rank not in ran]
    expected: dict[str, dict[str, tuple[int, int]]] = {table: {} for table in TASK_TABLES}
    for stats in done:
        total = stats.written + sum(stats.skipped.values()) + stats.errors
        if stats.seen != total:
            problems.append(f"{stats.path}: seen {stats.seen} != written+skipped+errors {total}")
        if stats.rank not in committed:
            problems.append(f"{rundir.marker(stats.rank)}: missing (rank {stats.rank} is not "
                            "committed)")
        counters = {"records": stats.written, "links": stats.links,
                    "errors": stats.errors + stats.partial_errors}
        for table in TASK_TABLES:
            listed = stats.parts.get(table, [])
            rows = sum(int(part[1]) for part in listed)
            if rows != counters[table]:
                problems.append(f"{rundir.stats(stats.rank)}: its {table} parts hold {rows} "
                                f"rows, counters say {counters[table]}")
            for name, part_rows, size in listed:
                if not part_rows:
                    problems.append(f"{join(rundir.partition(table), name)}: an empty part")
                expected[table][name] = (stats.rank, int(size))
    for table in TASK_TABLES:
        folder = rundir.partition(table)
        sizes = storage.list_sizes(folder)
        for name, size in sorted(sizes.items()):
            if name.startswith(".") or not name.endswith(".parquet"):
                continue  # what readers of the tables skip (they read */*.parquet)
            if name not in expected[table]:
                problems.append(f"{join(folder, name)}: a file no task of this run wrote")
            elif size != expected[table][name][1]:
                problems.append(f"{join(folder, name)}: {size} bytes, the commit wrote "
                                f"{expected[table][name][1]}")
        for name, (rank, size) in sorted(expected[table].items()):
            if name not in sizes:
                problems.append(f"{join(folder, name)}: missing (rank {rank} wrote it, "
                                f"{size} bytes)")
    return problems


def _summarize(
    plan: RunPlan, done: list[TaskStats], problems: list[str], resumed: int, seconds: float,
    lock: RunLock, lost: list[Lost], uncleaned: list[str],
) -> RunSummary:
    skipped: Counter[str] = Counter()
    sources: Counter[str] = Counter()
    listed = {redact_url(path) for path in plan.ranges}
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
        inputs=tuple(plan.config["inputs"]),  # every input file, saved pages one by one
        files=len(plan.config["inputs"]),
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
        unreadable=tuple(item for s in done for item in s.said("unreadable")),
        truncated=tuple(item for s in done for item in s.said("truncated")),
        # (a file read whole; the records a list chose are what the user asked for)
        nothing_to_decode=tuple(item for s in done for item in s.said("nothing")
                                if item[0] not in listed),
        skipped_inputs=plan.skipped_inputs,
        missing_inputs=plan.missing_inputs,
        rules=rules,
        took_over_lock=(f"pid {holder.get('pid')} on host {holder.get('host')} since "
                        f"{holder.get('since')}" if holder else None),
        base_run=plan.base.run_id if plan.base is not None else None,
        base_change=plan.base.change if plan.base is not None else None,
        copied=sum(s.copied for s in done),
        redecoded=sum(s.redecoded for s in done),
        lost=tuple(lost),
        uncleaned=tuple(uncleaned),
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
    storage: Storage | None = None,
    input_base: str | None = None,
    base_run: str | None = None,
    records_from: list[str] | None = None,
    part_size: int = PART_SIZE,
    task_size: int = TASK_SIZE,
    commit_width: int = COMMIT_WIDTH,
) -> RunSummary:
    """Decode every input into ``out`` (:func:`~pipeline.runners.plan.plan`, then
    :func:`execute`); returns the summary (also written to ``runs``). Raises ``RunRefused``
    and ``NothingToResume`` as ``plan`` does."""
    planned = plan_run(
        inputs, out, rules, workers=workers, run_id=run_id, resume=resume, overwrite=overwrite,
        allow_missing=allow_missing, columns=columns, config_sources=config_sources,
        strict=strict, storage=storage, input_base=input_base, base_run=base_run,
        records_from=records_from,
        part_size=part_size, task_size=task_size, commit_width=commit_width,
    )
    return execute(planned, progress=progress, executor=executor)


def _write_runs_row(
    rundir: RunDir, summary: RunSummary, rules: Rules, started_at: datetime,
    config: dict[str, Any],
) -> None:
    row = {
        "run_id": summary.run_id,
        "started_at": started_at,
        "finished_at": datetime.now(UTC),
        "pipeline_version": __version__,
        "rules_version": rules.version,
        "code": json.dumps(code_identity(), sort_keys=True),
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
        "base_run": summary.base_run,
        "records_copied": summary.copied,
        "records_redecoded": summary.redecoded,
        "attempts_lost": summary.attempts_lost,
        "executors_lost": summary.executors_lost,
        "config": json.dumps(config, sort_keys=True),  # ASCII: any file name survives
        "input_root": config.get("input_root"),
    }
    table = pa.Table.from_pylist([row], schema=RUNS)
    with rundir.storage.atomic_writer(rundir.part("runs", 0)) as fh:
        pq.write_table(table, fh, compression="zstd")
