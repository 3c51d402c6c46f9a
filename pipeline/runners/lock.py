"""The run lock: one process writes a run at a time.

- Local (and mounted) paths: ``flock`` on ``_runs/R/_lock``, which records the holder's
  pid, host and start time. The kernel releases it when the holder dies, so a lock file
  whose ``flock`` can be taken is stale and is taken over.
- Object stores (S3) have no ``flock``: the lock is an object created with a conditional
  write (``If-None-Match: *``: exactly one creator wins), renewed by the holder every
  :data:`HEARTBEAT_SECONDS` with ``If-Match`` on its own version (a renewal that fails
  means another process took the lock over: the holder stops before writing ``runs``).
  A lock not renewed for :data:`LEASE_SECONDS` (by the store's clock), or one whose holder
  is a dead process on this host, is stale: it is taken over with ``If-Match`` on the
  stale version, so of two processes taking it over at once exactly one wins.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import threading
from datetime import UTC, datetime
from typing import Any

from pipeline.runners.rundir import RunDir, RunRefused
from pipeline.storage import Conflict, StorageError, is_remote

#: A held object-store lock is renewed this often.
HEARTBEAT_SECONDS = 30.0
#: A lock object not renewed for this long is stale (its holder is gone or cut off).
LEASE_SECONDS = 180.0


def _holder() -> dict[str, Any]:
    return {"pid": os.getpid(), "host": socket.gethostname(),
            "since": datetime.now(UTC).isoformat(timespec="seconds")}


def _describe(holder: dict[str, Any]) -> str:
    return (f"pid {holder.get('pid')} on host {holder.get('host')} since {holder.get('since')}"
            if holder else "another process")


def _pid_alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return True  # unknown: assume alive
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class RunLock:
    """An exclusive lock on a run, held while one process writes it (a context manager).

    ``stale_holder`` is the dead holder this lock took over, if any; ``lost`` becomes True
    when another process took an object-store lock over (the run must stop).
    """

    def __init__(self, rundir: RunDir) -> None:
        self.rundir = rundir
        self.path = rundir.lock
        self.stale_holder: dict[str, Any] | None = None
        self.lost = False
        self._fd: int | None = None
        self._etag: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def acquire(self) -> RunLock:
        """Take the lock or raise :class:`RunRefused` naming the holder."""
        if is_remote(self.path):
            self._acquire_object()
        else:
            self._acquire_flock()
        return self

    def release(self) -> None:
        """Give the lock up (the lock file or object is removed)."""
        if self._fd is not None:
            # Removed first: a waiting process that opened the old file then sees it is gone.
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass
            os.close(self._fd)
            self._fd = None
        if self._etag is not None:
            self._stop.set()
            if self._thread is not None:
                self._thread.join()
            if not self.lost:
                try:
                    self.rundir.storage.remove_if(self.path, self._etag)
                except StorageError:
                    pass  # it goes stale and is taken over
            self._etag = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    # -- local: flock -------------------------------------------------------------------

    def _acquire_flock(self) -> None:
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        while True:
            # O_NOFOLLOW: a lock file that is a link is refused, never written through.
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
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
        previous = _parse(os.pread(fd, 4096, 0))
        if previous and previous.get("host") != socket.gethostname():
            # flock is per host on most network file systems: a holder elsewhere may live.
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
            raise RunRefused(
                f"{self.path}: the run is locked by {_describe(previous)}; if that run is "
                "gone, remove the lock file"
            )
        self.stale_holder = previous or None
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(_holder()).encode(), 0)
        self._fd = fd

    def _held_message(self) -> str:
        try:
            with open(self.path, "rb") as fh:
                holder = _parse(fh.read())
        except OSError:
            holder = {}
        return f"{self.path}: the run is being written by {_describe(holder)}; refusing a second writer"

    # -- object stores: conditional writes and a lease --------------------------------------

    def _acquire_object(self) -> None:
        storage = self.rundir.storage
        mine = json.dumps(_holder()).encode()
        try:
            try:
                self._etag = storage.create(self.path, mine)
            except Conflict:
                current = storage.read_versioned(self.path)
                if current is None:  # released in between: one more try
                    self._etag = storage.create(self.path, mine)
                else:
                    holder = _parse(current.data)
                    if not self._is_stale(holder, current.age):
                        raise RunRefused(
                            f"{self.path}: the run is being written by {_describe(holder)} "
                            f"(lock renewed {current.age:.0f} s ago); refusing a second "
                            f"writer. A lock not renewed for {LEASE_SECONDS:.0f} s is taken "
                            "over") from None
                    self._etag = storage.replace(self.path, mine, current.etag)
                    self.stale_holder = holder or None
        except Conflict:
            raise RunRefused(f"{self.path}: another process took the run's lock at the same "
                             "time; refusing a second writer") from None
        except StorageError as exc:
            raise RunRefused(f"cannot lock the run: {exc}") from None
        self._thread = threading.Thread(target=self._heartbeat, args=(mine,), daemon=True,
                                        name="redecode-lock-heartbeat")
        self._thread.start()

    @staticmethod
    def _is_stale(holder: dict[str, Any], age: float) -> bool:
        if age > LEASE_SECONDS:
            return True
        return holder.get("host") == socket.gethostname() and not _pid_alive(holder.get("pid"))

    def _heartbeat(self, mine: bytes) -> None:
        storage = self.rundir.storage
        while not self._stop.wait(HEARTBEAT_SECONDS):
            try:
                assert self._etag is not None
                self._etag = storage.replace(self.path, mine, self._etag)
            except Conflict:
                self.lost = True
                return
            except StorageError:
                continue  # a failed renewal is retried; the lease allows for several


def _parse(data: bytes) -> dict[str, Any]:
    try:
        holder = json.loads(data) if data else {}
    except ValueError:
        return {}
    return holder if isinstance(holder, dict) else {}
