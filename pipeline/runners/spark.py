"""Run the same tasks on Apache Spark: one Spark task per input file, the same worker code.

Executors call :func:`pipeline.runners.task.run_task` exactly as the local pool does, so the
tables are the same rows; ``--out`` must be a path every executor can write (a shared file
system; in local mode, the local disk). The driver plans, locks and checks the run and
writes ``runs``, as the local runner does.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pipeline.rules import Rules
from pipeline.runners.local import RunSummary
from pipeline.runners.local import run as run_tasks
from pipeline.runners.progress import ProgressFn
from pipeline.runners.startup import run_pickled_task
from pipeline.runners.task import Task, TaskStats


def spark_executor(spark: Any) -> Any:
    """An executor for :func:`pipeline.runners.local.run` that fans tasks out over ``spark``."""

    def execute(tasks: list[Task], workers: int, progress: ProgressFn | None) -> Iterator[TaskStats]:
        if not tasks:
            return
        # Tasks travel pickled, as bytes: an executor then imports nothing of the pipeline
        # before run_pickled_task has configured the process (start_worker).
        blobs = [pickle.dumps(task) for task in tasks]
        rdd = spark.sparkContext.parallelize(blobs, numSlices=len(blobs))
        for stats in rdd.map(run_pickled_task).collect():
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
