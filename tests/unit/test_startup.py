"""Importing the package changes nothing in the process; a worker configures itself when it
starts (pool workers, the single-process run, Spark executors)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def python(code: str, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**clean, **env}, check=True)
    return result.stdout.strip()


def test_importing_the_package_leaves_the_environment_alone() -> None:
    assert python("import os, pipeline, pipeline.cli; print(os.environ.get('OPENBLAS_NUM_THREADS'))") == "None"


def test_a_worker_sets_its_threads_and_quiets_warcio_when_it_starts() -> None:
    code = ("import logging, os\n"
            "from pipeline.runners.startup import start_worker\n"
            "before = logging.getLogger('warcio.recordloader').level\n"
            "start_worker()\n"
            "print(before, logging.getLogger('warcio.recordloader').level, "
            "os.environ['OPENBLAS_NUM_THREADS'])")
    assert python(code) == "0 40 1"
    assert python(code, OPENBLAS_NUM_THREADS="3").endswith(" 3")  # the user's value is kept


def test_a_pool_worker_starts_before_numpy_is_loaded() -> None:
    # OpenBLAS reads its thread count when numpy loads: the modules a worker process imports
    # before start_worker() runs (the pool's, and startup's for Spark) must not load numpy
    code = ("import sys\n"
            "import pipeline.runners.pool, pipeline.runners.startup, pipeline.runners.taskinfo\n"
            "print('numpy' in sys.modules)")
    assert python(code) == "False"


def test_the_main_process_of_a_pooled_run_never_loads_the_record_loop(tmp_path: Path) -> None:
    # With a pool only the workers (forked from the preloaded server) load the whole
    # pipeline: the command line's main process plans, commits, checks and writes the runs
    # row with the task's description (taskinfo), as the Spark driver does
    sample = Path(__file__).resolve().parents[2] / "data" / "sample"
    code = ("import atexit, sys\n"
            "loop = ('pipeline.runners.task', 'pipeline.runners.worker', 'pipeline.encoding.api')\n"
            "atexit.register(lambda: print([m for m in loop if m in sys.modules]))\n"
            "import pipeline.runners.spark\n"
            "from pipeline.cli import app\n"
            f"sys.argv = ['redecode', 'run', {str(sample)!r}, '--out', {str(tmp_path / 'out')!r},\n"
            "            '--workers', '2', '--quiet']\n"
            "app()\n")
    assert python(code).splitlines()[-1] == "[]"


def test_a_worker_fixes_the_c_librarys_mmap_and_trim_thresholds() -> None:
    import platform

    import pytest

    from pipeline.native import malloc

    # glibc's malloc takes the values; under another C library, or another allocator
    # preloaded in its place (the sanitizer build's), nothing is set
    glibc_malloc = (platform.libc_ver()[0] == "glibc"
                    and "libasan" not in os.environ.get("LD_PRELOAD", ""))
    assert malloc.set_thresholds(4 * 2**20, 16 * 2**20) is glibc_malloc
    for bad in ((-1, 0), (0, -1), (2**31, 0), (0, 2**31)):
        with pytest.raises(ValueError, match="INT_MAX"):
            malloc.set_thresholds(*bad)
    with pytest.raises(TypeError):
        malloc.set_thresholds(4 * 2**20)


def test_the_heap_keeps_its_free_top_between_pages_in_a_worker() -> None:
    # A worker's heap top is not handed back to the kernel after each page: freeing a few
    # MB of blocks and allocating them again costs no new page faults
    import platform

    import pytest

    if platform.libc_ver()[0] != "glibc" or "libasan" in os.environ.get("LD_PRELOAD", ""):
        pytest.skip("glibc's allocator only")
    code = ("import resource, sys\n"
            "from pipeline.runners.startup import start_worker\n"
            "start_worker()\n"
            "if sys.argv[1:] == ['trim-at-128-KiB']:  # glibc's default trim threshold\n"
            "    from pipeline.native import malloc\n"
            "    from pipeline.runners import startup\n"
            "    malloc.set_thresholds(startup.MMAP_THRESHOLD, 128 * 1024)\n"
            "def page():\n"
            "    blocks = [bytearray(300_000) for _ in range(10)]\n"
            "    del blocks\n"
            "page()\n"
            "before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt\n"
            "for _ in range(20):\n"
            "    page()\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)")
    def faults(*args: str) -> int:
        return int(subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                                  text=True, check=True).stdout)
    # 20 pages of 3 MB: ~15,000 faults when the top is handed back each time
    assert faults() < 500 < 5000 < faults("trim-at-128-KiB")


def test_a_worker_collects_less_often_and_freezes_its_heap_once_its_first_task_starts() -> None:
    code = ("import gc\n"
            "from pipeline.runners import startup\n"
            "startup.settle_heap()\n"
            "untouched = (gc.get_threshold(), gc.get_freeze_count())\n"
            "startup.start_worker()\n"
            "started = gc.get_threshold()\n"
            "startup.settle_heap()\n"
            "frozen = gc.get_freeze_count()\n"
            "gc.unfreeze(); startup.settle_heap()\n"
            "print(untouched, started, frozen > 0, gc.get_freeze_count())")
    # a process that is no worker is left alone; a worker settles once
    assert python(code) == "((700, 10, 10), 0) (20000, 10, 10) True 0"


def test_a_command_does_not_load_pydantic(tmp_path: Path) -> None:
    # typer 0.29 coerces every option through pydantic (+70 ms of CPU on every command,
    # README: Dependencies); pyproject.toml keeps typer below it. A run, parsed and executed:
    sample = Path(__file__).resolve().parents[2] / "data" / "sample" / "sample-transport.warc"
    code = ("import sys\n"
            "from pipeline.cli import app\n"
            f"try:\n    app(['run', {str(sample)!r}, '--out', {str(tmp_path / 'out')!r}, '-w', '1'])\n"
            "except SystemExit as exc:\n    print(exc.code, 'pydantic' in sys.modules)")
    assert python(code).splitlines()[-1] == "0 False"


#: Modules a local run of one ASCII page with a header charset, one worker, no rules file,
#: no progress bar does not need, each installed here (the test checks): what loads them.
NOT_NEEDED = (
    "pyarrow.compute", "pyarrow.dataset",  # a base run's copying, Parquet inputs
    "pipeline.runners.incremental",  # a base run
    "duckdb", "pipeline.audit", "pipeline.report", "pipeline.suggest",  # other commands
    "pyspark",  # --engine spark
    "fsspec", "s3fs", "boto3", "botocore",  # remote storage
    "multiprocessing", "pipeline.runners.pool",  # a run of workers
    "ftfy",  # the first non-ASCII text
    "pipeline.encoding.decoders.cjk_japanese", "pipeline.encoding.decoders.cjk_chinese",
    "pipeline.encoding.decoders.cjk_korean",  # a page in a CJK encoding
    "rich.progress",  # a progress bar
    "tomllib",  # a rules file, storage options
    "pydantic",  # (typer 0.29's: test_a_command_does_not_load_pydantic)
)
#: What the run does need, loaded by the end: the run did decode, extract and write.
NEEDED = ("pyarrow.parquet", "pipeline.extract.lang", "publicsuffixlist", "pipeline.urlkey")


def test_a_local_one_page_run_loads_only_what_it_needs(tmp_path: Path) -> None:
    import io

    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    crawl = tmp_path / "one.warc.gz"
    body = (b"<!doctype html><html lang=en><head><title>One</title></head><body><p>A single "
            b"page, so that what a run costs before its first page shows.</p></body></html>")
    with open(crawl, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        writer.write_record(writer.create_warc_record(
            "http://one.example/", "response", payload=io.BytesIO(body),
            http_headers=StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")],
                                          protocol="HTTP/1.1")))
    # as the redecode script runs it (from pipeline.cli import app; app()), sys.modules read
    # when the command has returned
    code = ("import importlib.util, json, sys\n"
            "from pipeline.cli import app\n"
            f"sys.argv = ['redecode', 'run', {str(crawl)!r}, '--out', {str(tmp_path / 'out')!r},\n"
            "            '--workers', '1', '--quiet']\n"
            "try:\n    app()\nexcept SystemExit as exc:\n    code = exc.code\n"
            f"names = {NOT_NEEDED + NEEDED!r}\n"
            "print(json.dumps([code, [n for n in names if n in sys.modules],\n"
            "                  [n for n in names if importlib.util.find_spec(n) is None]]))\n")
    import json

    exit_code, loaded, missing = json.loads(python(code).splitlines()[-1])
    assert exit_code == 0 and missing == []
    assert loaded == list(NEEDED)
