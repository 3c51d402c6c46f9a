"""A run's folder under ``--out``: its id, its files, how they are written, read and locked.

Layout (one run id ``R``)::

    OUT/<table>/run_id=R/part-<rank:05d>.parquet   records, links, errors (one per input file)
    OUT/runs/run_id=R/part-00000.parquet           the run's ``runs`` row
    OUT/_runs/R/_run.json                          resolved config (what --resume compares)
    OUT/_runs/R/_stats/<rank:05d>.json             a finished task's counters
    OUT/_runs/R/_completions/<rank:05d>            written after the task's parts are in place
    OUT/_runs/R/_finished                          written after the runs row
    OUT/_runs/R/_lock                              held while a process writes the run

Every file is written to a temporary name beside it and renamed into place
(:mod:`pipeline.sinks.files`), so a reader sees the old file or the new one, never a part
of one. Output paths are named only here and written only through ``pipeline.sinks``, so a
storage layer for remote paths has few places to replace.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import secrets
import socket
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pipeline.sinks.files import tmp_path, write_atomic

#: The tables whose parts a run writes, one part per input file.
TASK_TABLES = ("records", "links", "errors")
TABLES = (*TASK_TABLES, "runs")
_PART_NAME = re.compile(r"part-(\d{5})\.parquet")


class RunRefused(Exception):
    """A usage or configuration error found before anything was written (exit code 2)."""


class MetadataError(RunRefused):
    """A run's metadata file is unreadable or corrupt (named in the message)."""


def validate_run_id(run_id: str) -> str:
    """``run_id`` if it matches ``schema.RUN_ID_PATTERN``, else :class:`RunRefused`.

    >>> validate_run_id("nightly-2026.01_a")
    'nightly-2026.01_a'
    >>> validate_run_id("../x")
    Traceback (most recent call last):
    ...
    pipeline.runners.rundir.RunRefused: --run-id '../x': use letters, digits, '-', '_' and '.' (not first), at most 128 characters
    """
    from pipeline.schema import is_valid_run_id  # (here: pipeline.schema loads pyarrow)

    # A run id becomes a folder name and a hive partition value (run_id=R): no separator,
    # no "=", no "%" (DuckDB decodes %2F), no whitespace, no leading dot, bounded length.
    if not is_valid_run_id(run_id):
        raise RunRefused(
            f"--run-id {run_id!r}: use letters, digits, '-', '_' and '.' (not first), "
            "at most 128 characters"
        )
    return run_id


def new_run_id(digest: str) -> str:
    """A fresh, sortable run id: UTC time to the second, ``digest`` (inputs and rules), and
    random bits so that two runs started in the same second never share an id."""
    return f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{digest[:8]}-{secrets.token_hex(3)}"


def run_dir(out: Path, run_id: str) -> Path:
    """The run's bookkeeping folder (config, stats, completion markers, lock)."""
    return out / "_runs" / run_id


def partition(out: Path, table: str, run_id: str) -> Path:
    """The folder holding ``table``'s parts for ``run_id`` (hive partition ``run_id=...``)."""
    return out / table / f"run_id={run_id}"


def part_path(out: Path, table: str, run_id: str, rank: int) -> Path:
    """Where rank ``rank`` of ``run_id`` writes ``table``."""
    return partition(out, table, run_id) / f"part-{rank:05d}.parquet"


def stats_path(out: Path, run_id: str, rank: int) -> Path:
    """A finished task's counters."""
    return run_dir(out, run_id) / "_stats" / f"{rank:05d}.json"


def completion_marker(out: Path, run_id: str, rank: int) -> Path:
    """Written after a task's parts are all in place: what ``--resume`` trusts."""
    return run_dir(out, run_id) / "_completions" / f"{rank:05d}"


def config_path(out: Path, run_id: str) -> Path:
    """The run's resolved configuration."""
    return run_dir(out, run_id) / "_run.json"


def finished_marker(out: Path, run_id: str) -> Path:
    """Written after the run's ``runs`` row: the run is complete."""
    return run_dir(out, run_id) / "_finished"


def write_json(path: Path, data: Any, *, durable: bool = True) -> None:
    """:func:`~pipeline.sinks.files.write_atomic` of ``data`` as JSON (ASCII: a file name
    that is not UTF-8 survives as ``\\udcNN`` escapes and reads back the same)."""
    write_atomic(path, json.dumps(data, sort_keys=True, indent=1).encode(), durable=durable)


def read_json(path: Path) -> Any:
    """A metadata file's JSON; :class:`MetadataError` naming the file when it is unreadable."""
    try:
        return json.loads(path.read_bytes())
    except OSError as exc:
        raise MetadataError(f"{path}: cannot read run metadata: {exc.strerror}") from None
    except ValueError as exc:
        raise MetadataError(
            f"{path}: corrupt run metadata ({exc}); remove the run with --overwrite"
        ) from None


def existing_files(out: Path, run_id: str) -> list[Path]:
    """Every file a run with this id has left in ``out`` (parts, metadata, temporary files),
    by the exact names a run writes: what ``--overwrite`` removes."""
    found: list[Path] = []
    for table in TABLES:
        folder = partition(out, table, run_id)
        if folder.is_dir():
            for entry in folder.iterdir():
                name = entry.name
                if _PART_NAME.fullmatch(name) or (
                    name.startswith(".") and name.endswith(".tmp") and _PART_NAME.fullmatch(name[1:-4])
                ):
                    found.append(entry)
    meta = run_dir(out, run_id)
    for name in ("_run.json", "_finished", "_lock"):
        for path in (meta / name, tmp_path(meta / name)):
            if path.is_file():
                found.append(path)
    for sub, pattern in (("_stats", re.compile(r"\d{5}\.json|\.\d{5}\.json\.tmp")),
                         ("_completions", re.compile(r"\d{5}|\.\d{5}\.tmp"))):
        folder = meta / sub
        if folder.is_dir():
            found.extend(p for p in folder.iterdir() if pattern.fullmatch(p.name))
    return sorted(found)


def remove_run(out: Path, run_id: str) -> int:
    """Remove every file :func:`existing_files` lists, then the folders left empty; returns
    how many files went. Anything else in those folders stays (and the invariant check will
    count a stray part)."""
    files = existing_files(out, run_id)
    for path in files:
        path.unlink(missing_ok=True)
    meta = run_dir(out, run_id)
    for folder in (*(partition(out, t, run_id) for t in TABLES),
                   meta / "_stats", meta / "_completions", meta):
        try:
            folder.rmdir()
        except OSError:  # not empty or absent: leave it
            pass
    return len(files)


def remove_task_tmp(out: Path, run_id: str, rank: int) -> None:
    """Remove the temporary files task ``rank`` may have left (killed mid-write), by name."""
    for table in TASK_TABLES:
        tmp_path(part_path(out, table, run_id, rank)).unlink(missing_ok=True)
    tmp_path(stats_path(out, run_id, rank)).unlink(missing_ok=True)
    tmp_path(completion_marker(out, run_id, rank)).unlink(missing_ok=True)


class RunLock:
    """An exclusive lock on a run's folder, held while one process writes the run.

    The lock file (``_runs/R/_lock``) records the holder's pid, host and start time. The lock
    itself is ``flock`` on that file: the kernel releases it when the holder dies (SIGKILL,
    OOM), so a lock file whose ``flock`` can be taken is stale and is taken over. A held lock
    refuses the second writer with :class:`RunRefused`, naming the holder.
    """

    def __init__(self, out: Path, run_id: str) -> None:
        self.path = run_dir(out, run_id) / "_lock"
        self._fd: int | None = None
        self.stale_holder: dict[str, Any] | None = None  # a dead holder this lock replaced

    def acquire(self) -> RunLock:
        """Take the lock or raise :class:`RunRefused`."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                os.close(fd)
                if exc.errno not in (errno.EWOULDBLOCK, errno.EACCES):
                    raise
                raise RunRefused(self._held_message()) from None
            # The holder may have removed the file between our open and flock: then we
            # hold a lock on a file nobody else will open; start over.
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        previous = self._read_holder(fd)
        if previous and previous.get("host") != socket.gethostname():
            # flock is per host on most network file systems: a holder elsewhere may live.
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
            raise RunRefused(
                f"{self.path}: the run is locked by pid {previous.get('pid')} on host "
                f"{previous.get('host')} since {previous.get('since')}; if that run is gone, "
                "remove the lock file"
            )
        self.stale_holder = previous or None
        holder = {"pid": os.getpid(), "host": socket.gethostname(),
                  "since": datetime.now(UTC).isoformat(timespec="seconds")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(holder).encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        """Remove the lock file and drop the lock (removing first: a waiting process that
        opened the old file then sees it is gone and starts over)."""
        if self._fd is None:
            return
        self.path.unlink(missing_ok=True)
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _held_message(self) -> str:
        try:
            holder = json.loads(self.path.read_bytes() or b"{}")
        except (OSError, ValueError):
            holder = {}
        who = (f"pid {holder.get('pid')} on host {holder.get('host')} since {holder.get('since')}"
               if holder else "another process")
        return f"{self.path}: the run is being written by {who}; refusing a second writer"

    @staticmethod
    def _read_holder(fd: int) -> dict[str, Any]:
        data = os.pread(fd, 4096, 0)
        try:
            holder = json.loads(data) if data else {}
        except ValueError:
            return {}
        return holder if isinstance(holder, dict) else {}
