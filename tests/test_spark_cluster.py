"""redecode on a real Spark standalone cluster (a master and a worker on loopback, started by
the test; executors are JVMs of their own with their own Python workers, in the worker's
environment) against the loopback S3 server, with the server's endpoint set for the driver
only, as a user's shell has it: the run gives the rows of a local-disk run, or is refused
before anything is written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipeline.storage import Storage
from tests.cli_helpers import REDECODE
from tests.run_tables import differences, table_rows
from tests.sparkcluster import clean_environment, start_cluster

pytestmark = [pytest.mark.spark, pytest.mark.slow]  # three JVMs and a cluster's start-up
RULES = str(Path(__file__).resolve().parent.parent / "data" / "sample" / "rules.toml")
#: Two executors of one core each (two JVMs), small enough for a shared machine.
SUBMIT = ("--conf spark.executor.cores=1 --conf spark.executor.memory=512m "
          "--conf spark.cores.max=2 --conf spark.task.maxFailures=2 pyspark-shell")


def redecode_with(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``redecode ARGS`` with exactly the environment ``env`` (nothing of this process's)."""
    return subprocess.run([REDECODE, *args], env=env, capture_output=True, text=True,
                          timeout=900)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    """The cluster: its worker's environment holds no AWS setting (no endpoint, region or
    credentials), no PYSPARK_PYTHON and no fault."""
    running = start_cluster(tmp_path_factory.mktemp("cluster"), {})
    try:
        yield running
    finally:
        running.stop()


def executor_keys(s3_server) -> str:
    """The executors' own credentials, as a cluster without instance roles is given them
    (``spark.executorEnv.*``)."""
    return " ".join(f"--conf spark.executorEnv.{key}={s3_server.env[key]}"
                    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"))


def test_executors_without_the_drivers_endpoint_write_the_local_rows(
    cluster, s3_server, crawl_bucket: str, local_reference, monkeypatch: pytest.MonkeyPatch,
) -> None:
    expected, unreadable = local_reference
    out = s3_server.make_bucket("cluster-out") + "/out"
    driver = clean_environment(**s3_server.env, PYSPARK_PYTHON=sys.executable,
                               PYSPARK_SUBMIT_ARGS=f"{executor_keys(s3_server)} {SUBMIT}")
    result = redecode_with(driver, "run", f"{crawl_bucket}/corpus/warc-samples/",
                           f"{crawl_bucket}/data/sample/", "--out", out, "--run-id", "sa",
                           "--rules", RULES, "--engine", "spark", "--master", cluster.master,
                           "-q")
    assert result.returncode == (3 if unreadable else 0), result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    for key, value in s3_server.env.items():  # (to read the output back here)
        monkeypatch.setenv(key, value)
    got = table_rows(Storage(), out, "sa", f"{crawl_bucket}/corpus/warc-samples",
                     f"{crawl_bucket}/data/sample")
    assert got == expected, differences(got, expected)
    assert not [k for k in s3_server.keys(out) if k.endswith(".tmp")]
    # the tasks ran in executors the worker started (their own JVMs and logs)
    assert list((cluster.logs / "work").glob("app-*/*/stderr"))


def test_executors_without_the_package_refuse_the_run_before_it_writes(
    cluster, s3_server, crawl_bucket: str,
) -> None:
    out = s3_server.make_bucket("cluster-refused") + "/out"
    driver = clean_environment(**s3_server.env,  # no PYSPARK_PYTHON
                               PYSPARK_SUBMIT_ARGS=f"{executor_keys(s3_server)} {SUBMIT}")
    started = time.monotonic()
    result = redecode_with(driver, "run", f"{crawl_bucket}/data/sample/", "--out", out,
                           "--run-id", "nopy", "--rules", RULES, "--engine", "spark",
                           "--master", cluster.master, "-q")
    took = time.monotonic() - started
    assert result.returncode == 2, result.stderr[-3000:]
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "PYSPARK_PYTHON" in errors[0], result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert s3_server.keys(out) == []  # refused before anything was written
    print(f"refused in {took:.1f} s: {errors[0]}")


def test_executors_without_credentials_refuse_the_run_before_it_writes(
    cluster, s3_server, crawl_bucket: str,
) -> None:
    # the driver's keys never travel: executors with none of their own cannot run the tasks
    out = s3_server.make_bucket("cluster-nokeys") + "/out"
    driver = clean_environment(**s3_server.env, PYSPARK_PYTHON=sys.executable,
                               PYSPARK_SUBMIT_ARGS=SUBMIT)
    result = redecode_with(driver, "run", f"{crawl_bucket}/data/sample/", "--out", out,
                           "--run-id", "nokeys", "--rules", RULES, "--engine", "spark",
                           "--master", cluster.master, "-q")
    assert result.returncode == 2, result.stderr[-3000:]
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr[-3000:]
    assert "cannot use the store the run needs: s3://cluster-nokeys/out: no credentials " \
           "found" in errors[0]
    assert "Traceback" not in result.stderr
    assert s3_server.keys(out) == []


def executor_processes(work: Path) -> list[int]:
    """Pids of the executor JVMs the cluster's worker started (their working folder is
    below its ``work`` folder)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            command = (proc / "cmdline").read_bytes()
            where = Path(os.readlink(proc / "cwd"))
        except OSError:
            continue
        if b"CoarseGrainedExecutorBackend" in command and work in where.parents:
            found.append(int(proc.name))
    return sorted(found)


def test_an_executor_killed_mid_run_is_counted_and_the_rows_are_whole(
    cluster, s3_server, crawl_bucket: str, local_reference, monkeypatch: pytest.MonkeyPatch,
) -> None:
    expected, unreadable = local_reference
    out = s3_server.make_bucket("cluster-kill") + "/out"
    driver = clean_environment(**s3_server.env, PYSPARK_PYTHON=sys.executable,
                               PYSPARK_SUBMIT_ARGS=f"{executor_keys(s3_server)} {SUBMIT}")
    process = subprocess.Popen(
        [REDECODE, "run", f"{crawl_bucket}/corpus/warc-samples/", f"{crawl_bucket}/data/sample/",
         "--out", out, "--run-id", "kill", "--rules", RULES, "--engine", "spark", "--master",
         cluster.master, "-q"],
        env=driver, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # once the job has committed a few files, kill one of its two executor JVMs
        deadline = time.monotonic() + 600
        while len(s3_server.keys(f"{out}/_runs/kill/_completions/")) < 3:
            assert process.poll() is None and time.monotonic() < deadline, process.stderr
            time.sleep(0.2)
        executors = executor_processes(cluster.logs / "work")
        assert len(executors) == 2, executors
        os.kill(executors[0], signal.SIGKILL)
        _, stderr = process.communicate(timeout=900)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == (3 if unreadable else 0), stderr[-3000:]
    for key, value in s3_server.env.items():
        monkeypatch.setenv(key, value)
    got = table_rows(Storage(), out, "kill", f"{crawl_bucket}/corpus/warc-samples",
                     f"{crawl_bucket}/data/sample")
    assert got == expected, differences(got, expected)
    lost = json.loads(s3_server.read(f"{out}/_runs/kill/_lost.json"))
    gone = [item for item in lost if item["kind"] == "executor"]
    failed = [item for item in lost if item["kind"] == "attempt"]
    assert len(gone) == 1 and gone[0]["where"].startswith("executor "), lost
    assert failed and all(item["where"] == gone[0]["where"] for item in failed), lost
    with Storage().open_read(f"{out}/runs/run_id=kill/part-00000.parquet",
                             random_access=True) as fh:
        row = pq.read_table(fh).to_pylist()[0]
    assert (row["attempts_lost"], row["executors_lost"]) == (len(failed), 1)
    assert f"lost executor: {gone[0]['where']}" in " ".join(stderr.split())
