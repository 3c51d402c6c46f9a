"""The run lock on an object store: a conditional create (one creator wins), renewal on the
holder's own version, takeover of a stale lock by exactly one process (S3 on loopback)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import pytest

from pipeline.runners import lock as lock_module
from pipeline.runners.lock import RunLock
from pipeline.runners.rundir import RunDir, RunRefused
from pipeline.storage import Storage


def test_a_held_lock_object_refuses_a_second_writer_and_is_removed_on_release(s3_env) -> None:
    server, bucket = s3_env
    rundir = RunDir(Storage(), f"{bucket}/out", "r")
    with RunLock(rundir):
        holder = json.loads(server.read(rundir.lock))
        assert holder["pid"] == os.getpid() and holder["host"] == socket.gethostname()
        with pytest.raises(RunRefused, match=f"being written by pid {os.getpid()}"):
            RunLock(rundir).acquire()
    assert server.keys(rundir.lock) == []


def test_a_dead_holders_lock_object_is_taken_over(s3_env) -> None:
    server, bucket = s3_env
    rundir = RunDir(Storage(), f"{bucket}/out", "r")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    stale = {"pid": int(dead), "host": socket.gethostname(), "since": "then"}
    rundir.storage.write_bytes(rundir.lock, json.dumps(stale).encode())
    lock = RunLock(rundir).acquire()
    try:
        assert lock.stale_holder == stale
        assert json.loads(server.read(rundir.lock))["pid"] == os.getpid()
    finally:
        lock.release()


def test_a_lock_from_another_host_waits_for_its_lease(s3_env, monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    _, bucket = s3_env
    rundir = RunDir(Storage(), f"{bucket}/out", "r")
    other = {"pid": 1, "host": "other-host.example", "since": "then"}
    rundir.storage.write_bytes(rundir.lock, json.dumps(other).encode())
    with pytest.raises(RunRefused, match="pid 1 on host other-host.example"):
        RunLock(rundir).acquire()
    monkeypatch.setattr(lock_module, "LEASE_SECONDS", 1.0)
    time.sleep(2.1)  # not renewed for longer than the lease (by the store's clock)
    lock = RunLock(rundir).acquire()
    assert lock.stale_holder == other
    lock.release()


def test_a_holder_whose_lock_was_taken_over_knows(s3_env, monkeypatch: pytest.MonkeyPatch
                                                  ) -> None:
    _, bucket = s3_env
    monkeypatch.setattr(lock_module, "HEARTBEAT_SECONDS", 0.2)
    rundir = RunDir(Storage(), f"{bucket}/out", "r")
    lock = RunLock(rundir).acquire()
    try:
        # another process replaced the lock object (it judged this holder stale)
        rundir.storage.write_bytes(rundir.lock, b'{"pid": 2, "host": "elsewhere"}')
        deadline = time.monotonic() + 10
        while not lock.lost and time.monotonic() < deadline:
            time.sleep(0.05)
        assert lock.lost
    finally:
        lock.release()
    assert json.loads(rundir.storage.read_bytes(rundir.lock))["host"] == "elsewhere"
