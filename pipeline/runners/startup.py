"""What a process does once before it decodes records (pool workers, the single-process
run, Spark executors). Importing the package changes nothing in the process; a worker
configures itself here, and only what it owns.
"""

from __future__ import annotations

import logging
import os
import pickle
from collections.abc import Iterable
from typing import Any

_started = False


def start_worker() -> None:
    """Configure this process for decoding (idempotent):

    - ``OPENBLAS_NUM_THREADS=1`` unless set: numpy's OpenBLAS would start a thread per core
      for the language scorer's small product (~140 x 142), threads that spin for CPU the
      other workers need (2.6% of the extraction step's CPU under perf). OpenBLAS reads it
      when numpy is first imported, so it takes effect only where that has not happened yet
      (pool workers and Spark executors start clean; the CLI calls this first).
    - warcio's record loader logs a warning for every WARC-Target-URI with spaces (it
      percent-encodes them, and the URL is kept either way): on a crawl that floods the
      terminal, so only its errors are shown.
    - Arrow allocates from jemalloc (:func:`pipeline.sinks.parquet.use_reusing_memory_pool`).
    """
    global _started
    if _started:
        return
    _started = True
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    logging.getLogger("warcio.recordloader").setLevel(logging.ERROR)
    from pipeline.sinks.parquet import use_reusing_memory_pool

    use_reusing_memory_pool()


def run_pickled_tasks(blobs: Iterable[bytes], reported: Any) -> None:
    """What a Spark task runs: configure this process (:func:`start_worker`), then run each
    pickled :class:`~pipeline.runners.taskinfo.Task` and add its stats to the accumulator
    ``reported`` (the driver commits them). Unpickling comes after the setup, so the
    pipeline's imports (numpy) come after it too."""
    start_worker()
    from pipeline.runners.task import run_task

    finished = [run_task(pickle.loads(blob)) for blob in blobs]
    reported.add(finished)
