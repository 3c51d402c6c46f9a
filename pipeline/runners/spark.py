"""Run the same tasks on Apache Spark: one Spark task per input file, the same worker code.

Executors call :func:`pipeline.runners.task.run_task` exactly as the local pool does, so the
tables are the same rows; ``--out`` must be a path every executor can write (a shared file
system; in local mode, the local disk). The driver does the accounting and writes ``runs``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pipeline.rules import Rules
from pipeline.runners.local import ProgressFn, RunSummary
from pipeline.runners.local import run as run_tasks
from pipeline.runners.task import Task, TaskStats, run_task


def spark_executor(spark: Any) -> Any:
    """An executor for :func:`pipeline.runners.local.run` that fans tasks out over ``spark``."""

    def execute(tasks: list[Task], workers: int, progress: ProgressFn | None) -> Iterator[TaskStats]:
        if not tasks:
            return
        rdd = spark.sparkContext.parallelize(tasks, numSlices=len(tasks))
        for stats in rdd.map(run_task).collect():
            if progress:
                progress("records", stats.seen, stats.bytes_read)
                progress("file", 0, 0)
            yield stats

    return execute


def run_spark(
    spark: Any,
    inputs: list[str],
    out: str | Path,
    rules: Rules,
    *,
    run_id: str | None = None,
    resume: bool = False,
) -> RunSummary:
    """Decode ``inputs`` into ``out`` with a SparkSession (pyspark is an optional extra)."""
    return run_tasks(
        inputs, Path(out).resolve(), rules, run_id=run_id, resume=resume,
        executor=spark_executor(spark),
    )
