"""Measure a command as a whole process tree: wall time, CPU time and peak RSS of every process
it started, pool workers and fork servers included.

The measuring process makes itself a *child subreaper* (Linux ``PR_SET_CHILD_SUBREAPER``):
a process orphaned below it (multiprocessing's fork server outlives the run's main process
for a moment) is re-parented to it instead of to init, so every process of the tree is
reaped here with ``wait4`` and its resource usage (user + system CPU, ``ru_maxrss``) is
counted. Without that, a pool's workers' CPU would be lost with the fork server.

Peak RSS has a floor: a forked child's memory starts as a copy of its parent's, and Linux
keeps that copy's high-water mark in ``ru_maxrss`` across ``exec``. So a command measured
from a process holding 277 MB reports at least 277 MB. Measure from a small process
(``python -m bench`` runs the measuring sections as processes of their own, which build
their inputs in yet other processes); :func:`own_rss_mb` says what the floor is.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

_PR_SET_CHILD_SUBREAPER = 36
_subreaper = False


def _become_subreaper() -> None:
    global _subreaper
    if not _subreaper:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
        _subreaper = True


def compile_project() -> None:
    """Write the bytecode caches of the project's modules (``compileall``), as an installed
    package has them: under ``PYTHONDONTWRITEBYTECODE`` an editable install compiles every
    module of the pipeline at every start (0.08 s of a run's start-up here), which the peers,
    installed with their caches, do not pay."""
    root = Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(root / "pipeline"),
                    str(root / "bench")], check=True)


def own_rss_mb() -> float:
    """This process's resident memory now, MB: the floor of the peak RSS of what it measures."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@dataclass(frozen=True, slots=True)
class Measured:
    """One command's run."""

    wall: float  # seconds from start to the last process of the tree reaped
    cpu: float  # user + system seconds of every process of the tree
    system: float  # of which system (kernel) seconds
    peak_rss_mb: float  # the largest peak RSS of any one process of the tree
    main_rss_mb: float  # the command's own process
    processes: int  # processes reaped
    returncode: int
    stdout: str
    stderr: str


def measure(cmd: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None,
            timeout: float | None = None) -> Measured:
    """Run ``cmd`` and wait for every process it started (see the module docstring).

    Only one measured command runs at a time in this process: every child is reaped here.
    ``timeout`` kills the command's process group after that many seconds."""
    _become_subreaper()
    import tempfile

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=err,
                                start_new_session=True)
        cpu = system = 0.0
        peak = main = 0.0
        count = 0
        returncode: int | None = None
        deadline = None if timeout is None else start + timeout
        while True:
            try:
                flags = 0 if deadline is None else os.WNOHANG
                pid, status, usage = os.wait4(-1, flags)
            except ChildProcessError:
                break
            if pid == 0:  # WNOHANG, nothing yet
                if deadline is not None and time.perf_counter() > deadline:
                    try:
                        os.killpg(proc.pid, 9)
                    except ProcessLookupError:
                        pass
                    deadline = None
                time.sleep(0.01)
                continue
            count += 1
            cpu += usage.ru_utime + usage.ru_stime
            system += usage.ru_stime
            rss = usage.ru_maxrss / 1024
            peak = max(peak, rss)
            if pid == proc.pid:
                main = rss
                returncode = os.waitstatus_to_exitcode(status)
                proc.returncode = returncode  # reaped here, not by Popen
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    return Measured(wall, cpu, system, peak, main, count, -999 if returncode is None else returncode,
                    stdout, stderr)
