"""Run a planned run's tasks on Apache Spark: one Spark task per input file by default (the
shape of Common Crawl's cc-pyspark), the same task function as the local pool.

The driver (the ``redecode`` process) plans the run, holds its lock, commits, checks the
accounting and writes ``runs``, exactly as the local runner does
(:func:`pipeline.runners.local.execute` with :func:`spark_executor`).

Commits happen on the driver, never on an executor. An attempt at a task writes its three
parts under temporary names unique to the attempt and reports its stats through an
accumulator updated by a Spark *action* (``foreachPartition``), for which Spark applies
the updates of exactly one successful attempt per partition: a failed attempt, a retry's
predecessor and the loser of a speculative pair report nothing. The driver reads the
accumulator while the job runs and commits each reported attempt (its parts under the
final names, then stats, then the completion marker), one commit per rank. Two attempts of
one rank may write at once: their temporary names differ, only the reported one is put in
place, and the driver removes the others' temporary files when the job ends.
"""

from __future__ import annotations

import os
import pickle
import sys
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from pipeline.runners.progress import ProgressFn
from pipeline.runners.startup import start_worker
from pipeline.runners.taskinfo import StrictModeError, Task, TaskStats, commit_task

#: Commits run this many at a time on the driver (each is a few requests on a store).
COMMIT_THREADS = 8
#: How often the driver looks for finished attempts while the job runs.
POLL_SECONDS = 0.2


class SparkUnavailable(Exception):
    """PySpark (or a JVM) is missing, or the session cannot start (exit code 2)."""


class SparkJobFailed(Exception):
    """The Spark job failed (a task failed more often than ``spark.task.maxFailures``)."""


def spark_session(master: str | None = None) -> Any:
    """The active SparkSession, else a new one: on ``master``, or the master ``spark-submit``
    gave, else ``local[*]``. In local mode executors run this interpreter (unless
    ``PYSPARK_PYTHON`` says otherwise), so they import this installation of the project.
    """
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise SparkUnavailable("--engine spark needs PySpark: pip install 'redecode[spark]'"
                               ) from None
    active = SparkSession.getActiveSession()
    if active is not None and master is None:
        return active
    builder = SparkSession.builder.appName("redecode")
    if master is None and "PYSPARK_GATEWAY_PORT" not in os.environ:
        master = "local[*]"  # not under spark-submit, which names the master itself
    if master is not None:
        builder = builder.master(master)
        if master.startswith("local"):
            # PySpark starts its workers with the PYSPARK_PYTHON the driver sees.
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    try:
        spark = builder.getOrCreate()
    except Exception as exc:  # noqa: BLE001 - a JVM that cannot start, a bad master URL
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SparkUnavailable(f"cannot start Spark (master {master or 'from spark-submit'}): "
                               f"{first}") from None
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _stats_param() -> Any:
    from pyspark.accumulators import AccumulatorParam

    class StatsParam(AccumulatorParam):
        """Finished attempts' stats, appended."""

        def zero(self, value: list[TaskStats]) -> list[TaskStats]:
            return []

        def addInPlace(self, value1: list[TaskStats], value2: list[TaskStats]
                       ) -> list[TaskStats]:
            value1.extend(value2)
            return value1

    return StatsParam()


def spark_executor(spark: Any, partitions: int | None = None) -> Any:
    """An executor for :func:`pipeline.runners.local.execute` that runs the tasks on
    ``spark`` in ``partitions`` Spark tasks (default: one per input file) and commits them
    on the driver as they finish."""

    def execute(tasks: list[Task], workers: int, progress: ProgressFn | None) -> Iterator[TaskStats]:
        if not tasks:
            return
        yield from _run_job(spark, tasks, partitions or len(tasks), progress)

    return execute


def run_pickled_tasks(blobs: Iterable[bytes], reported: Any) -> None:
    """What a Spark task runs: configure this process (:func:`start_worker`), then run each
    pickled :class:`~pipeline.runners.taskinfo.Task` and add its stats to the accumulator
    ``reported`` (the driver commits them). Unpickling comes after the setup, so the
    pipeline's imports (numpy) come after it too; this module itself imports none of them."""
    start_worker()
    from pipeline.runners.task import run_task

    finished = [run_task(pickle.loads(blob)) for blob in blobs]
    reported.add(finished)


def _run_job(spark: Any, tasks: list[Task], partitions: int,
             progress: ProgressFn | None) -> Iterator[TaskStats]:
    sc = spark.sparkContext
    reported = sc.accumulator([], _stats_param())
    # Tasks travel pickled, as bytes: an executor then imports nothing of the pipeline
    # before run_pickled_tasks has configured the process (start_worker).
    blobs = [pickle.dumps(task) for task in tasks]
    rdd = sc.parallelize(blobs, numSlices=min(partitions, len(blobs)))
    group = f"redecode-{tasks[0].run_id}"
    failure: list[BaseException] = []

    def job() -> None:
        sc.setJobGroup(group, f"redecode run {tasks[0].run_id}", interruptOnCancel=True)
        try:
            rdd.foreachPartition(lambda part: run_pickled_tasks(part, reported))
        except BaseException as exc:  # noqa: BLE001 - handed to the driver's thread
            failure.append(exc)

    by_rank = {task.rank: task for task in tasks}
    committing: dict[Future[None], TaskStats] = {}
    claimed: set[int] = set()
    seen = 0
    thread = threading.Thread(target=job, name="redecode-spark-job", daemon=True)
    thread.start()
    with ThreadPoolExecutor(COMMIT_THREADS) as pool:
        try:
            while True:
                running = thread.is_alive()
                # One copy, then slice and count it: the accumulator's list grows while the
                # job runs (an entry appended between a slice and a len() would be lost).
                values: list[TaskStats] = list(reported.value)
                for stats in values[seen:]:
                    if stats.rank not in claimed:  # one commit per rank, whatever is reported
                        claimed.add(stats.rank)
                        committing[pool.submit(commit_task, by_rank[stats.rank], stats)] = stats
                seen = len(values)
                if committing:
                    finished, _ = wait(list(committing), timeout=POLL_SECONDS,
                                       return_when=FIRST_COMPLETED)
                    for future in finished:
                        stats = committing.pop(future)
                        future.result()
                        if progress:
                            progress("records", stats.seen, stats.bytes_read)
                            progress("file", 0, 0)
                        yield stats
                elif not running:
                    break
                else:
                    thread.join(POLL_SECONDS)
        except BaseException:
            sc.cancelJobGroup(group)
            thread.join()
            raise
    thread.join()
    if failure:
        raise _job_error(failure[0])
    unreported = sorted(set(by_rank) - claimed)
    if unreported:
        raise SparkJobFailed(f"the Spark job ended without reporting {len(unreported)} input "
                             f"file(s), ranks {unreported[:10]}")


def _job_error(exc: BaseException) -> BaseException:
    """A failed job as the local runner reports it: ``--strict``'s stop, or the first line
    of the task's own error."""
    text = str(exc)
    if "StrictModeError" in text:
        line = next((ln for ln in text.splitlines() if "StrictModeError:" in ln), text)
        return StrictModeError(line.split("StrictModeError:", 1)[1].strip())
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    cause = next((ln for ln in reversed(lines) if "Error" in ln or "Exception" in ln),
                 lines[0] if lines else type(exc).__name__)
    return SparkJobFailed(f"the Spark job failed: {cause[:500]}")


def run_spark(spark: Any, inputs: list[str], out: str, rules: Any, *,
              partitions: int | None = None, **options: Any) -> Any:
    """Decode ``inputs`` into ``out`` on ``spark`` (from Python; the command line is
    ``redecode run --engine spark``). ``options`` are :func:`pipeline.runners.local.run`'s."""
    from pipeline.runners.local import run

    return run(inputs, out, rules, executor=spark_executor(spark, partitions), **options)
