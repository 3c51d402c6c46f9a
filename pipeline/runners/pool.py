"""The local process pool: one worker process per core, one task (input file) at a time each.

Unlike ``multiprocessing.Pool``, the pool knows which task each worker holds and watches
the worker processes themselves, so a worker killed from outside (SIGKILL: what the kernel's
out-of-memory killer sends) never hangs the run: its task's temporary files are removed, the
worker is replaced, the task is tried once more (a new attempt), and a second death makes
the file one file-level ``errors`` row (stage ``runner``), its parts written by the parent.
A worker commits its own task (:func:`~pipeline.runners.task.run_and_commit`).
"""

from __future__ import annotations

import multiprocessing as mp
import signal
from collections import deque
from collections.abc import Iterator
from multiprocessing.connection import Connection, wait
from typing import TYPE_CHECKING, Any

from pipeline.errors import RecordError
from pipeline.runners.progress import ProgressFn
from pipeline.runners.retries import Lost
from pipeline.runners.startup import start_worker

if TYPE_CHECKING:  # imported in the worker after start_worker(): they load numpy
    from pipeline.runners.taskinfo import Task, TaskStats
#: A task is tried this many times in all when its worker dies under it.
ATTEMPTS = 2


def _worker_main(conn: Connection) -> None:
    """A worker process: take tasks from ``conn`` until told to stop, report back on it."""
    start_worker()
    from pipeline.runners.task import run_and_commit

    # Ctrl-C reaches the whole process group: the parent decides, the workers carry on
    # until it stops them.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        task = conn.recv()
        if task is None:
            return
        try:
            stats = run_and_commit(task, lambda n, b: conn.send(("records", n, b)))
        except BaseException as exc:  # handed to the parent, which stops the run
            try:
                conn.send(("raised", exc))
            except Exception:  # an exception that does not pickle
                conn.send(("raised", RuntimeError(f"{type(exc).__name__}: {exc}")))
            return
        conn.send(("done", stats))


class _Worker:
    def __init__(self, ctx: Any) -> None:
        self.conn, child = ctx.Pipe(duplex=True)
        self.process = ctx.Process(target=_worker_main, args=(child,), daemon=True)
        self.process.start()
        child.close()
        self.task: Task | None = None
        self.dead = False  # its end of the pipe closed: the process has exited

    def give(self, task: Task) -> None:
        self.task = task
        self.conn.send(task)


class Pool:
    """Run tasks in ``workers`` processes; use as a context manager, iterate :meth:`run`."""

    def __init__(self, workers: int) -> None:
        self._ctx = mp.get_context("forkserver")
        # The fork server loads the pipeline once; workers fork from it (preload.py says why).
        # (Ignored when this process's fork server is already running: it has loaded it.)
        self._ctx.set_forkserver_preload(["pipeline.runners.preload"])
        self._size = workers
        self._workers: list[_Worker] = []

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(self, tasks: list[Task], progress: ProgressFn | None = None
            ) -> Iterator[TaskStats | Lost]:
        """Yield each task's stats as it finishes (in any order), and each worker that died
        with the attempt it held."""
        queue = deque(tasks)
        attempts = dict.fromkeys((t.rank for t in tasks), 0)
        remaining = len(tasks)
        self._workers = [_Worker(self._ctx) for _ in range(min(self._size, len(tasks)))]
        while remaining:
            for worker in self._workers:
                if worker.task is None and queue:
                    task = queue.popleft()
                    attempts[task.rank] += 1
                    worker.give(task)
            wait([w.conn for w in self._workers] + [w.process.sentinel for w in self._workers])
            for worker in list(self._workers):
                finished = self._drain(worker, progress)
                if finished is not None:
                    remaining -= 1
                    yield finished
                elif worker.dead or not worker.process.is_alive() and not worker.conn.poll():
                    died = self._replace(worker)
                    where, how = f"worker process {worker.process.pid}", _how(worker.process.exitcode)
                    yield Lost("executor", where, f"the worker process {how}", at=Lost.now())
                    if died is None:
                        continue
                    yield Lost("attempt", where, f"the worker process reading it {how}",
                               (died.rank,), (died.name,), at=Lost.now())
                    if attempts[died.rank] < ATTEMPTS:
                        queue.appendleft(died)
                    else:
                        from pipeline.runners.task import record_task_failure

                        remaining -= 1
                        yield record_task_failure(died, _death(died, worker.process.exitcode))
                        if progress:
                            progress("file", 0, 0)

    def _drain(self, worker: _Worker, progress: ProgressFn | None) -> TaskStats | None:
        """Handle what ``worker`` has sent; its task's stats when the task finished."""
        while not worker.dead and worker.conn.poll():
            try:
                kind, *payload = worker.conn.recv()
            except (EOFError, OSError):  # the worker is gone (its end of the pipe closed)
                worker.dead = True
                return None
            if kind == "records":
                if progress:
                    progress("records", payload[0], payload[1])
            elif kind == "done":
                worker.task = None
                if progress:
                    progress("file", 0, 0)
                stats: TaskStats = payload[0]
                return stats
            elif kind == "raised":
                raise payload[0]
        return None

    def _replace(self, worker: _Worker) -> Task | None:
        """A worker died: clean its task's temporary files, start another worker in its
        place, and return the task it held."""
        worker.process.join()
        worker.conn.close()
        task = worker.task
        if task is not None:
            remove_temporaries(task, retried=True)
        self._workers[self._workers.index(worker)] = _Worker(self._ctx)
        return task

    def close(self) -> None:
        """Stop every worker (kill the busy ones) and remove their tasks' temporary files."""
        for worker in self._workers:
            if worker.task is None and not worker.dead and worker.process.is_alive():
                try:
                    worker.conn.send(None)
                except OSError:
                    pass
            else:
                worker.process.kill()
        for worker in self._workers:
            worker.process.join(timeout=10)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()
            if worker.task is not None:
                remove_temporaries(worker.task)
        self._workers = []


def remove_temporaries(task: Task, *, retried: bool = False) -> None:
    """Remove what attempts at ``task`` left under temporary names (a killed worker); when
    the task is ``retried``, also what one killed in its commit put in place (its marker
    first, then its parts: the next attempt commits its own, which may be fewer)."""
    storage = task.storage
    rundir = task.rundir
    storage.remove_all(rundir.temporary_files().get(task.rank, []))
    if retried:
        storage.remove(rundir.marker(task.rank))
        storage.remove_all(rundir.final_parts({task.rank}))


def _how(exitcode: int | None) -> str:
    """How a worker process ended, in words."""
    if exitcode is not None and exitcode < 0:
        name = signal.Signals(-exitcode).name
        how = f"was killed by signal {-exitcode} ({name}"
        return how + (", which the kernel's out-of-memory killer sends)"
                      if name == "SIGKILL" else ")")
    return f"exited with code {exitcode}"


def _death(task: Task, exitcode: int | None) -> RecordError:
    return RecordError(
        stage="runner",
        error_type="runner-worker-died",
        message=f"the worker process reading this file {_how(exitcode)}, {ATTEMPTS} times; "
                "the file was not decoded",
        warc_filename=task.warc_filename,
    )
