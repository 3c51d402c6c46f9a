"""Run the installed ``redecode`` console script as a user does, and read what a run wrote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb

REDECODE = str(Path(sys.executable).parent / "redecode")


def redecode(*args: str, cwd: Path | None = None, timeout: float = 180,
             env: dict[str, str] | None = None, **popen: Any) -> subprocess.CompletedProcess[str]:
    """``redecode ARGS...`` in a subprocess; stdout and stderr captured as text."""
    return subprocess.run([REDECODE, *args], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd, env={**os.environ, **(env or {})}, **popen)


def start(*args: str, **popen: Any) -> subprocess.Popen[str]:
    """``redecode ARGS...`` started in the background (its own session, output captured)."""
    return subprocess.Popen([REDECODE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, **popen)


def no_traceback(result: subprocess.CompletedProcess[str]) -> bool:
    return "Traceback" not in result.stderr and "Traceback" not in result.stdout


def count(out: Path, table: str, run_id: str, where: str = "true") -> int:
    """Rows of one run's table matching ``where``."""
    files = sorted((out / table / f"run_id={run_id}").glob("*.parquet"))
    if not files:
        return 0
    ((n,),) = duckdb.execute(
        f"select count(*) from read_parquet(?) where {where}", [[str(f) for f in files]]
    ).fetchall()
    return int(n)


def runs_row(out: Path, run_id: str) -> dict[str, Any]:
    """The ``runs`` row of ``run_id``, its ``config`` JSON decoded."""
    cursor = duckdb.execute("select * from read_parquet(?)",
                            [str(out / "runs" / f"run_id={run_id}" / "part-00000.parquet")])
    (values,) = cursor.fetchall()
    row = dict(zip([d[0] for d in cursor.description], values, strict=True))
    row["config"] = json.loads(row["config"])
    return row


def run_ids(out: Path) -> list[str]:
    """The run folders under ``out/_runs``."""
    base = out / "_runs"
    return sorted(p.name for p in base.iterdir()) if base.is_dir() else []


def readers_of(path: Path, within: int | None = None) -> list[int]:
    """Pids of the processes that hold ``path`` open (Linux ``/proc``); with ``within``,
    only that process and those it started (their descendants). Looking at a run's own
    processes only keeps each look short on a busy machine, where listing the descriptors
    of every process (a JVM holds thousands) is slow."""
    target = str(path.resolve())
    candidates = [p for p in Path("/proc").iterdir() if p.name.isdigit()]
    if within is not None:
        parents: dict[int, int] = {}
        for proc in candidates:
            try:  # /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces
                parents[int(proc.name)] = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
        family = {within}
        grew = True
        while grew:
            grew = False
            for pid, parent in parents.items():
                if parent in family and pid not in family:
                    family.add(pid)
                    grew = True
        candidates = [Path(f"/proc/{pid}") for pid in sorted(family)]
    pids = []
    for proc in candidates:
        try:
            for fd in (proc / "fd").iterdir():
                if os.readlink(fd) == target:
                    pids.append(int(proc.name))
                    break
        except OSError:  # gone, or not ours to read
            continue
    return pids
