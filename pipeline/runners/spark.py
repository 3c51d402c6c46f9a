"""Run a planned run's tasks on Apache Spark: one Spark task per task of the run by default
(an input file, or a group of small ones: the shape of Common Crawl's cc-pyspark), the same
task function as the local pool.

The driver (the ``redecode`` process) plans the run, holds its lock, commits, checks the
accounting and writes ``runs``, exactly as the local runner does
(:func:`pipeline.runners.local.execute` with :func:`spark_executor`).

Commits happen on the driver, never on an executor. An attempt at a task writes its
parts under temporary names unique to the attempt and reports its stats through an
accumulator updated by a Spark *action* (``foreachPartition``), for which Spark applies
the updates of exactly one successful attempt per partition: a failed attempt, a retry's
predecessor and the loser of a speculative pair report nothing. The driver reads the
accumulator while the job runs and commits each reported attempt (its parts under the
final names, then stats, then the completion marker), one commit per rank, ``--commit-width``
of them at a time. Two attempts of
one rank may write at once: their temporary names differ, only the reported one is put in
place, and the driver removes the others' temporary files when the job ends.

What travels with each task is the driver's storage configuration as another host needs it
(:meth:`pipeline.storage.Storage.for_executors`: the options, and the S3 endpoint and region
the driver's environment and AWS config files resolve to, never a credential), since an
executor's environment is not the driver's. Before the run starts, one probe task
(:func:`check_executors`) imports the package on an executor, compares the code it runs
with the driver's, and reads the first input and lists the output's bucket there, so that
a missing ``PYSPARK_PYTHON``, an executor without the package or without access to the
store refuses the run in seconds, before anything is written. When the job ends, the task
attempts that failed and the executors lost while it ran are read from Spark's status
store and reported (:class:`~pipeline.runners.retries.Lost`).
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import sys
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING, Any

from pipeline.runners.progress import ProgressFn
from pipeline.runners.retries import DETAIL_CHARS, Lost
from pipeline.runners.startup import start_worker
from pipeline.runners.taskinfo import StrictModeError, Task, TaskStats, commit_task

if TYPE_CHECKING:
    from pipeline.runners.plan import RunPlan

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


def check_executors(spark: Any, plan: RunPlan) -> None:
    """Before ``plan`` runs on ``spark``: one probe task on an executor imports the package,
    says which code it runs, reads the first input and lists the output's bucket with the
    storage that will travel with the tasks. :class:`SparkUnavailable` (exit code 2) names
    what is wrong, before anything is written: an executor whose Python cannot import
    redecode (``PYSPARK_PYTHON`` unset, or the package not installed there), that runs
    other code than the driver, or that cannot reach the store; also a driver whose Spark
    keeps no record of task attempts (needed to count them)."""
    from pipeline.provenance import code_changes, code_identity
    from pipeline.storage import StorageError

    sc = spark.sparkContext
    try:
        _removed_executors(sc)
    except Exception as exc:  # noqa: BLE001 - a Spark whose status store is not there
        raise SparkUnavailable(f"this Spark keeps no record of task attempts that redecode "
                               f"can read ({type(exc).__name__}); use Spark 3.5 or later"
                               ) from None
    first = plan.files[0]
    first = plan.pages[first][0][0] if first in plan.pages else first
    try:
        options = dict(plan.storage.for_executors([plan.out, *plan.files]).options)
    except StorageError as exc:
        raise SparkUnavailable(str(exc)) from None
    out = plan.out

    def probe(_: Iterable[Any]) -> Iterator[dict[str, Any]]:
        # Defined here, so that Spark ships it by value: it runs on an executor that may
        # not have the package, which it then says instead of failing.
        import socket
        import sys

        answer: dict[str, Any] = {"host": socket.gethostname(), "python": sys.executable}
        try:
            from pipeline.runners.spark import probe_executor
        except Exception as exc:  # noqa: BLE001 - whatever keeps the package from loading
            answer["missing"] = f"{type(exc).__name__}: {exc}"
            yield answer
            return
        yield probe_executor(answer, options, out, first)

    sc.setJobGroup(f"redecode-probe-{plan.run_id}", "redecode: probe an executor")
    try:
        (answer,) = sc.parallelize([0], 1).mapPartitions(probe).collect()
    except Exception as exc:  # noqa: BLE001 - the Python workers could not even start
        raise SparkUnavailable(
            f"a Spark executor cannot run the probe task: {_job_error(exc)}; "
            "set PYSPARK_PYTHON to an interpreter of the driver's Python version that has "
            "redecode installed on every executor (docs/usage.md, Spark)") from None
    where = f"the Spark executor on {answer['host']} ({answer['python']})"
    if "missing" in answer:
        raise SparkUnavailable(
            f"{where} cannot import redecode ({answer['missing']}); set PYSPARK_PYTHON to an "
            "interpreter that has it installed on every executor (docs/usage.md, Spark)")
    changes = code_changes(code_identity(), answer["code"])
    if changes:
        raise SparkUnavailable(f"{where} runs other code than the driver ({'; '.join(changes)}"
                               "): install the same redecode and libraries on both")
    if answer.get("problem"):
        raise SparkUnavailable(f"{where} cannot use the store the run needs: "
                               f"{answer['problem']}")


def probe_executor(answer: dict[str, Any], options: dict[str, Any], out: str,
                   first: str) -> dict[str, Any]:
    """What the probe task of :func:`check_executors` finds on an executor: ``answer``
    with the code it runs and, under ``problem``, why it cannot read the first input or
    list the output's bucket with the storage ``options`` that travel with the tasks."""
    from pipeline.provenance import code_identity
    from pipeline.storage import Storage, StorageError, redact_url

    answer["code"] = code_identity()
    storage = Storage(options)
    try:
        storage.check_bucket(out)
        if not storage.is_file(first):
            answer["problem"] = (f"{redact_url(first)}: not found there (inputs and --out "
                                 "must be where every executor reads and writes them)")
    except StorageError as exc:
        answer["problem"] = str(exc)
    return answer


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

    def execute(tasks: list[Task], workers: int, progress: ProgressFn | None
                ) -> Iterator[TaskStats | Lost]:
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
             progress: ProgressFn | None) -> Iterator[TaskStats | Lost]:
    sc = spark.sparkContext
    reported = sc.accumulator([], _stats_param())
    # What the executors use to reach the stores: the driver's, as another host needs it
    # (the driver itself commits with its own, credentials and all).
    storage = tasks[0].storage.for_executors(_paths(tasks, tasks[0].out))
    # Tasks travel pickled, as bytes: an executor then imports nothing of the pipeline
    # before run_pickled_tasks has configured the process (start_worker). Each Spark task
    # gets one group of them (in order), so a partition's index names its ranks.
    blobs = [pickle.dumps(dataclasses.replace(task, storage=storage)) for task in tasks]
    count = min(partitions, len(blobs))
    bounds = [len(blobs) * i // count for i in range(count + 1)]
    groups = [blobs[start:end] for start, end in zip(bounds, bounds[1:], strict=False)]
    held = [tasks[start:end] for start, end in zip(bounds, bounds[1:], strict=False)]
    rdd = sc.parallelize(groups, numSlices=count)
    group = f"redecode-{tasks[0].run_id}"
    failure: list[BaseException] = []
    gone_before = _removed_executors(sc)

    def job() -> None:
        sc.setJobGroup(group, f"redecode run {tasks[0].run_id}", interruptOnCancel=True)
        try:
            rdd.foreachPartition(lambda part: run_pickled_tasks(
                (blob for chunk in part for blob in chunk), reported))
        except BaseException as exc:  # noqa: BLE001 - handed to the driver's thread
            failure.append(exc)

    by_rank = {task.rank: task for task in tasks}
    committing: dict[Future[None], TaskStats] = {}
    claimed: set[int] = set()
    seen = 0
    thread = threading.Thread(target=job, name="redecode-spark-job", daemon=True)
    thread.start()
    # commit_width tasks at a time, each task's parts one after the other
    with ThreadPoolExecutor(tasks[0].commit_width) as pool:
        try:
            while True:
                running = thread.is_alive()
                # One copy, then slice and count it: the accumulator's list grows while the
                # job runs (an entry appended between a slice and a len() would be lost).
                values: list[TaskStats] = list(reported.value)
                for stats in values[seen:]:
                    if stats.rank not in claimed:  # one commit per rank, whatever is reported
                        claimed.add(stats.rank)
                        committing[pool.submit(commit_task, by_rank[stats.rank], stats,
                                               1)] = stats
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
    yield from _losses(sc, group, held, gone_before)
    if failure:
        raise _job_error(failure[0])
    unreported = sorted(set(by_rank) - claimed)
    if unreported:
        raise SparkJobFailed(f"the Spark job ended without reporting {len(unreported)} input "
                             f"file(s), ranks {unreported[:10]}")


def _paths(tasks: list[Task], out: str) -> list[str]:
    """Every path the tasks open or write (their inputs, saved pages included, and ``out``)."""
    return [out, *(path for task in tasks
                   for path in ([page[0] for page in task.pages] or [m[0] for m in task.group]
                                or [task.path]))]


def _status_store(sc: Any) -> Any:
    """Spark's own record of the application's tasks and executors (what its UI shows)."""
    return sc._jsc.sc().statusStore()


def _removed_executors(sc: Any) -> dict[str, tuple[str, str]]:
    """Every executor of the application that is gone: id -> (host, why)."""
    executors = _status_store(sc).executorList(False)
    gone: dict[str, tuple[str, str]] = {}
    for i in range(executors.size()):
        executor = executors.apply(i)
        if executor.id() != "driver" and not executor.isActive():
            reason = executor.removeReason()
            gone[str(executor.id())] = (str(executor.hostPort()).rpartition(":")[0],
                                        str(reason.get()) if reason.isDefined() else "removed")
    return gone


#: Reasons for which Spark removes an executor that was not lost (dynamic allocation
#: releasing an idle one, a decommission).
_RELEASED = ("Executor killed by driver", "Executor decommission")


def _losses(sc: Any, group: str, held: list[list[Task]],
            gone_before: dict[str, tuple[str, str]]) -> Iterator[Lost]:
    """The attempts of the job group ``group`` that failed (Spark tried each again, or gave
    up), with the tasks of their partition (``held``), and the executors lost since
    ``gone_before``."""
    tracker = sc.statusTracker()
    store = _status_store(sc)
    for job in tracker.getJobIdsForGroup(group):
        info = tracker.getJobInfo(job)
        for stage in (info.stageIds if info is not None else []):
            stage_info = tracker.getStageInfo(stage)
            for attempt in range((stage_info.currentAttemptId if stage_info else 0) + 1):
                attempts = store.taskList(stage, attempt, 2**31 - 1)
                for i in range(attempts.size()):
                    task = attempts.apply(i)
                    if task.status() != "FAILED":
                        continue
                    message = task.errorMessage()
                    reason, detail = _reason(str(message.get()) if message.isDefined() else "")
                    tasks = held[task.index()] if task.index() < len(held) else []
                    yield Lost("attempt", f"executor {task.executorId()} on {task.host()}",
                               reason, tuple(t.rank for t in tasks),
                               tuple(t.name for t in tasks), detail, Lost.now())
    for executor, (host, why) in sorted(_removed_executors(sc).items()):
        if executor not in gone_before and not why.startswith(_RELEASED):
            yield Lost("executor", f"executor {executor} on {host}", why.splitlines()[0][:500],
                       at=Lost.now())


def _reason(message: str) -> tuple[str, str]:
    """A failed attempt's error (Spark's message: the Python traceback, then the JVM's
    stack) as one line, and its end as kept in ``_lost.json``."""
    text = message.split("\n\tat ", 1)[0].strip()
    lines = [line.strip() for line in text.splitlines()
             if line.strip() and not line.strip().startswith("SQLSTATE:")]
    # a Python traceback ends with the exception; Spark's own reasons are one line
    return (lines[-1] if lines else "failed (Spark gave no reason)")[:500], text[-DETAIL_CHARS:]


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
    from pipeline.runners.local import execute
    from pipeline.runners.plan import plan

    progress = options.pop("progress", None)
    planned = plan(inputs, out, rules, **options)
    check_executors(spark, planned)
    return execute(planned, progress=progress, executor=spark_executor(spark, partitions))
