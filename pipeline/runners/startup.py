"""What a process does once before it decodes records (pool workers, the single-process
run, Spark executors). Importing the package changes nothing in the process; a worker
configures itself here, and only what it owns.
"""

from __future__ import annotations

import gc
import logging
import os

_started = False
_settled = False
#: Allocations between collections of the youngest generation (Python's default: 700; few
#: of a record's objects form cycles), the older two at Python's default ratios.
GC_THRESHOLDS = (20_000, 10, 10)
#: Blocks from this size up get their own mapping (real pages stay under it; see _malloc.c).
MMAP_THRESHOLD = 4 * 2**20
#: The free top of the heap kept for the next page's blocks (see _malloc.c): a page's
#: transient blocks (its body, decoded text, tree, rows) rarely reach it together.
TRIM_THRESHOLD = 4 * MMAP_THRESHOLD


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
    - The C library maps blocks of ``MMAP_THRESHOLD`` bytes and more on their own and hands
      them back when freed (``_malloc.c`` says why: 64 Parquet rows of 24 MiB took a worker
      to 302 MB with glibc's moving threshold, 265 MB with this one), and keeps up to
      ``TRIM_THRESHOLD`` bytes free at the top of its heap: handed back after each page and
      faulted in again, zeroed, for the next, that memory cost a one-worker run on the bench
      crawl 2-3% of its CPU (system time 0.16-0.25 s against 0.11-0.17, peak RSS +4 MB).
    - The cyclic garbage collector runs less often (``GC_THRESHOLDS``), and once the first
      task starts, what the process holds by then is frozen out of its collections
      (:func:`settle_heap`): a record's rows, links and candidates are freed by reference
      counting, while each collection walked them and, when full, every module's objects
      (5.3% of a one-worker run's CPU under perf; 1.5% with both).
    """
    global _started
    if _started:
        return
    _started = True
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    gc.set_threshold(*GC_THRESHOLDS)
    logging.getLogger("warcio.recordloader").setLevel(logging.ERROR)
    from pipeline.sinks.parquet import use_reusing_memory_pool

    use_reusing_memory_pool()
    from pipeline.native import malloc

    malloc.set_thresholds(MMAP_THRESHOLD, TRIM_THRESHOLD)


def settle_heap() -> None:
    """Once per worker process, when its first task starts (the pipeline's modules, tables
    and caches are loaded by then): freeze what it holds (``gc.freeze``), so that no later
    collection walks it. A process that did not start as a worker (:func:`start_worker`)
    is left alone.

    Frozen without a collection first: in a one-page run the young generations held ~50,000
    objects by then (what was imported after :func:`start_worker` raised the threshold), of
    which 159 were unreachable (52 KB, mostly the classes ``dataclass(slots=True)``
    replaces); collecting the young generations cost 7-14 ms of CPU (a full collection ~20
    ms, finding no more), keeping those objects costs their 52 KB."""
    global _settled
    if _started and not _settled:
        _settled = True
        gc.freeze()
