"""A real Spark standalone cluster on loopback for the tests: a master and one worker, each its
own JVM started with pyspark's ``spark-class``. The worker starts executors as separate JVMs
(with their own Python workers) in the environment the test gives it, which is not the
driver's: what reaches an executor is what Spark sends, as on a real cluster."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.s3server import free_port

SPARK_CLASS = Path(sys.executable).with_name("spark-class")


def _spark_home() -> str:
    """The Spark that pyspark ships (its jars and scripts)."""
    import pyspark

    return str(Path(pyspark.__file__).parent)

#: What the driver's and the daemons' environments lose: nothing of the driver's store,
#: Python or faults reaches the cluster but through Spark itself.
_NOT_INHERITED = ("AWS_", "PYSPARK_", "SPARK_", "REDECODE_", "PYTHONPATH")


def clean_environment(**extra: str) -> dict[str, str]:
    """This process's environment without AWS settings, PySpark's or Spark's (but where the
    Spark of pyspark is, and loopback as its address), plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_NOT_INHERITED)}
    return env | {"SPARK_LOCAL_IP": "127.0.0.1", "SPARK_HOME": _spark_home()} | extra


@dataclass
class Cluster:
    """A running master and worker."""

    master: str  # spark://127.0.0.1:PORT
    processes: list[subprocess.Popen[bytes]]
    logs: Path

    def stop(self) -> None:
        """Stop the worker (and its executors), then the master."""
        for process in reversed(self.processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in reversed(self.processes):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def _daemon(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as fh:
        return subprocess.Popen([str(SPARK_CLASS), *args], env=env, stdout=fh,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                cwd=log.parent)


def start_cluster(folder: Path, worker_env: dict[str, str], *, cores: int = 2,
                  memory: str = "1g") -> Cluster:
    """Start a master and one worker (``cores`` cores, ``memory`` for executors) on
    loopback, logging into ``folder``; the worker and its executors get ``worker_env``
    (on top of :func:`clean_environment`). Returns once the worker has registered."""
    folder.mkdir(parents=True, exist_ok=True)
    port, ui = free_port(), free_port()
    master = f"spark://127.0.0.1:{port}"
    processes = [_daemon(["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                          "--port", str(port), "--webui-port", str(ui)],
                         clean_environment(), folder / "master.log")]
    cluster = Cluster(master, processes, folder)
    try:
        _wait(lambda: _workers(ui) is not None, processes, 120, folder / "master.log")
        processes.append(_daemon(
            ["org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
             "--webui-port", str(free_port()), "--cores", str(cores), "--memory", memory,
             "--work-dir", str(folder / "work"), master],
            clean_environment(**worker_env), folder / "worker.log"))
        _wait(lambda: bool(_workers(ui)), processes, 120, folder / "worker.log")
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _workers(ui: int) -> list[str] | None:
    """The master's alive workers (from its status page), or None while it does not answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ui}/json/", timeout=5) as reply:
            state = json.load(reply)
    except OSError:
        return None
    return [w["id"] for w in state.get("workers", []) if w.get("state") == "ALIVE"]


def _wait(ready: Callable[[], bool], processes: list[subprocess.Popen[bytes]], seconds: float,
          log: Path) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        if any(p.poll() is not None for p in processes) or time.monotonic() > deadline:
            raise RuntimeError(f"the Spark cluster did not start: {log.read_text()[-2000:]}")
        time.sleep(0.5)
