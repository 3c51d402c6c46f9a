"""The local runner: a process pool over input files, progress, resume and the run's accounting.

Accounting invariant (DESIGN.md), checked per task and for the run, against the counters AND
the row counts actually in the written parts: records seen = written + skipped + errors.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
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
from pipeline.rules import Rules
from pipeline.runners.task import Task, TaskStats, read_stats, run_dir, run_task
from pipeline.schema import RUNS
from pipeline.sinks.parquet import part_path
from pipeline.sources.inputs import expand_inputs

ProgressFn = Callable[[str, int, int], None]  # (event, records, bytes); event: "records"|"file"
#: Runs tasks somewhere and yields their stats as they finish (local pool, Spark, ...).
Executor = Callable[[list[Task], int, "ProgressFn | None"], Iterator[TaskStats]]


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

    @property
    def skipped_total(self) -> int:
        return sum(self.skipped.values())


def new_run_id(inputs: list[str], rules: Rules) -> str:
    """A sortable, readable run id: UTC time plus a hash of the inputs and rules."""
    digest = hashlib.sha256(json.dumps([inputs, rules.version]).encode()).hexdigest()[:8]
    return f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{digest}"


def find_resumable(out: Path, inputs: list[str], rules: Rules) -> str | None:
    """The newest unfinished run in ``out`` with the same inputs and rules, if any."""
    base = out / "_runs"
    if not base.is_dir():
        return None
    for run in sorted(base.iterdir(), reverse=True):
        meta = run / "_run.json"
        if not meta.exists() or (run / "_finished").exists():
            continue
        data = json.loads(meta.read_text())
        if data.get("inputs") == inputs and data.get("rules_version") == rules.version:
            return run.name
    return None


def _remove_stale_tmp(out: Path, run_id: str) -> None:
    for table in ("records", "links", "errors"):
        folder = out / table / f"run_id={run_id}"
        if folder.is_dir():
            for tmp in folder.glob(".*.tmp"):
                tmp.unlink()


_QUEUE: Any = None


def _init_worker(queue: Any) -> None:
    global _QUEUE
    _QUEUE = queue


def _pool_task(task: Task) -> TaskStats:
    queue = _QUEUE
    stats = run_task(task, lambda n, b: queue.put(("records", n, b)))
    queue.put(("file", 0, 0))
    return stats


def _execute(tasks: list[Task], workers: int, progress: ProgressFn | None) -> Iterator[TaskStats]:
    if workers <= 1 or len(tasks) <= 1:
        for task in tasks:
            yield run_task(task, (lambda n, b: progress("records", n, b)) if progress else None)
            if progress:
                progress("file", 0, 0)
        return
    ctx = mp.get_context("forkserver")
    queue = ctx.Queue()
    with ctx.Pool(min(workers, len(tasks)), initializer=_init_worker, initargs=(queue,)) as pool:
        pending = pool.imap_unordered(_pool_task, tasks)
        done = 0
        while done < len(tasks):
            while not queue.empty():
                event, n, b = queue.get()
                if progress:
                    progress(event, n, b)
            try:
                stats = pending.next(timeout=0.2)
            except mp.TimeoutError:
                continue
            done += 1
            yield stats
        while not queue.empty():
            event, n, b = queue.get()
            if progress:
                progress(event, n, b)


def _check_task(out: Path, run_id: str, stats: TaskStats) -> list[str]:
    problems = []
    total = stats.written + sum(stats.skipped.values()) + stats.errors
    if stats.seen != total:
        problems.append(f"{stats.path}: seen {stats.seen} != written+skipped+errors {total}")
    for table, expected in (("records", stats.written), ("links", stats.links), ("errors", stats.errors)):
        path = part_path(out, table, run_id, stats.rank)
        actual = pq.read_metadata(path).num_rows if path.exists() else -1
        if actual != expected:
            problems.append(f"{path}: {actual} rows, counters say {expected}")
    return problems


def run(
    inputs: list[str],
    out: str | Path,
    rules: Rules,
    *,
    workers: int | None = None,
    run_id: str | None = None,
    resume: bool = False,
    columns: dict[str, str] | None = None,
    progress: ProgressFn | None = None,
    config_sources: dict[str, str] | None = None,
    executor: Executor | None = None,
    strict: bool = False,
) -> RunSummary:
    """Decode every input into ``out``; returns the summary (also written to ``runs``)."""
    out = Path(out)
    files = expand_inputs(inputs)
    if run_id is None and resume:
        run_id = find_resumable(out, files, rules)
    if run_id is None:
        run_id = new_run_id(files, rules)
    meta_dir = run_dir(out, run_id)
    meta_dir.mkdir(parents=True, exist_ok=True)
    (meta_dir / "_finished").unlink(missing_ok=True)
    config = {
        "run_id": run_id,
        "inputs": files,
        "pipeline_version": __version__,
        "rules_version": rules.version,
        "rules": rules.to_json(),
        "rules_sha256": rules.source_sha256,
        "workers": workers,
        "columns": columns,
        "sources": config_sources or {},
    }
    (meta_dir / "_run.json").write_text(json.dumps(config, indent=2, ensure_ascii=False))
    _remove_stale_tmp(out, run_id)
    started_at = datetime.now(UTC)
    started = time.monotonic()
    done: list[TaskStats] = []
    tasks: list[Task] = []
    cols = tuple(sorted((columns or {}).items()))
    for rank, path in enumerate(files):
        previous = read_stats(out, run_id, rank) if resume else None
        if previous is not None and previous.path == path:
            done.append(previous)
        else:
            tasks.append(Task(rank, path, run_id, str(out), rules, cols, strict))
    resumed = len(done)
    if progress:
        for _ in range(resumed):
            progress("file", 0, 0)
    execute = executor or _execute
    done.extend(execute(tasks, workers or os.cpu_count() or 1, progress))
    done.sort(key=lambda s: s.rank)
    problems: list[str] = []
    for stats in done:
        problems.extend(_check_task(out, run_id, stats))
    skipped: Counter[str] = Counter()
    sources: Counter[str] = Counter()
    for stats in done:
        skipped.update(stats.skipped)
        sources.update(stats.sources)
    summary = RunSummary(
        run_id=run_id,
        inputs=tuple(files),
        files=len(files),
        seen=sum(s.seen for s in done),
        written=sum(s.written for s in done),
        skipped=dict(sorted(skipped.items())),
        errors=sum(s.errors for s in done),
        links=sum(s.links for s in done),
        bytes_read=sum(s.bytes_read for s in done),
        seconds=round(time.monotonic() - started, 3),
        invariant_ok=not problems,
        problems=tuple(problems),
        resumed_files=resumed,
        cpu_seconds=round(sum(s.cpu_seconds for s in done), 3),
        peak_rss_mb=max((s.peak_rss_mb for s in done), default=0.0),
        sources=dict(sorted(sources.items())),
    )
    _write_runs_row(out, summary, rules, started_at, config)
    (meta_dir / "_finished").write_text(datetime.now(UTC).isoformat())
    return summary


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
        "inputs": list(summary.inputs),
        "files": summary.files,
        "records_seen": summary.seen,
        "records_written": summary.written,
        "records_skipped": summary.skipped_total,
        "skipped_by_reason": json.dumps(summary.skipped, sort_keys=True),
        "errors": summary.errors,
        "links_written": summary.links,
        "bytes_read": summary.bytes_read,
        "seconds": summary.seconds,
        "invariant_ok": summary.invariant_ok,
        "config": json.dumps(config, sort_keys=True, ensure_ascii=False),
    }
    path = part_path(out, "runs", summary.run_id, 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    pq.write_table(pa.Table.from_pylist([row], schema=RUNS), tmp, compression="zstd")
    os.replace(tmp, path)
