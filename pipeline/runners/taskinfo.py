"""What a task is, what it reports and how its report is committed: the light half of
:mod:`pipeline.runners.task`.

The run's main process (and the Spark driver) plans tasks, commits finished attempts, reads
the stats of committed ones and checks the accounting; it imports this module, not the
task's record loop (which loads the whole pipeline: with a pool, only the workers need
that; see ``preload.py``). Nothing here imports more than the storage layer and the run
folder's names.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any, TypeVar

from pipeline.encoding.options import Override
from pipeline.rules import Rules
from pipeline.runners.rundir import MetadataError, RunDir, parse_json
from pipeline.storage import Storage, is_remote, join, redact_url, temp_path

#: A part is closed and the next one started once it holds this many bytes (``--part-size``;
#: a part ends at a row group, so it may pass the target by one row group, ~2 MiB of text).
PART_SIZE = 256 * 2**20
#: Parts put in place at once (``--commit-width``): the Spark driver commits this many tasks
#: at a time, and a task's parts on an object store (server-side copies) are promoted this
#: many at a time.
COMMIT_WIDTH = 16

_T = TypeVar("_T")

if TYPE_CHECKING:  # the task's reading imports it; planning and committing need not
    from pipeline.sources.record_lists import RecordRanges


@dataclass(frozen=True, slots=True)
class BaseInput:
    """Where an incremental task copies from (``--base-run``): the base run, the rank its
    input had there, and the overrides that run was decoded with."""

    run_id: str
    rank: int
    overrides: tuple[Override, ...]


@dataclass(frozen=True, slots=True)
class Task:
    """A unit of work: one input file (whole, or the records a record list names in it), a
    group of small ones, or a batch of saved pages, with its rank in the run.

    ``path`` is what is opened (a URL may carry credentials in a presigned query);
    :attr:`name`, the path without them, is what every row, stats file and message shows.
    For a batch of saved pages, ``pages`` holds each page's ``(path, relative name, URL)``
    and ``path`` names the batch (nothing is opened by it).
    """

    rank: int
    path: str
    run_id: str
    out: str
    rules: Rules
    columns: tuple[tuple[str, str], ...] = ()
    strict: bool = False  # raise on the first record error instead of recording it
    storage: Storage = field(default_factory=Storage)
    pages: tuple[tuple[str, str, str], ...] = ()
    #: the file's ``warc_filename``: relative to the run's input root
    #: (:func:`pipeline.sources.roots.stable_name`); empty: :attr:`name`
    key: str = ""
    #: copy from this base run what the rules change cannot alter (None: decode everything)
    base: BaseInput | None = None
    #: read only these records of the file, by their byte ranges (a record list's task;
    #: None: the whole file)
    ranges: RecordRanges | None = None
    #: a group of small input files read by one task, each ``(path, warc_filename)``, in
    #: order (``path`` then names the group; nothing is opened by it)
    group: tuple[tuple[str, str], ...] = ()
    #: the bytes at which a part is closed and the next one started
    part_size: int = PART_SIZE
    #: how many parts are put in place at once when the task is committed
    commit_width: int = COMMIT_WIDTH

    @property
    def name(self) -> str:
        """The input as messages and stats name it (no user information, no query)."""
        return redact_url(self.path)

    @property
    def warc_filename(self) -> str:
        """The input as rows name it: relative to the run's input root."""
        return self.key or self.name

    @property
    def rundir(self) -> RunDir:
        """The run's files."""
        return RunDir(self.storage, self.out, self.run_id)


class StrictModeError(RuntimeError):
    """A record failed a stage while the run was started with ``--strict``."""


@dataclass(frozen=True, slots=True)
class TaskStats:
    """Per-task counters (also stored as ``_stats/<rank>.json``)."""

    rank: int
    path: str
    seen: int
    written: int
    skipped: dict[str, int] = field(default_factory=dict)
    errors: int = 0  # records lost (errors rows with is_partial false)
    partial_errors: int = 0  # errors rows of records still written
    links: int = 0
    bytes_read: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # CPU time of this task in its worker process
    peak_rss_mb: float = 0.0  # the worker process's peak RSS when the task ended
    sources: dict[str, int] = field(default_factory=dict)  # encoding_source → records
    #: why nothing at all could be read from the file (None: at least one record was read)
    unreadable: str | None = None
    #: where the file ends inside a record (a cut download: the records before it are
    #: read, that one is flagged ``content_truncated``); None when it ends after a record
    truncated: str | None = None
    #: override index (as a string, JSON keys) → records whose URL it matched / it decided
    rules_matched: dict[str, int] = field(default_factory=dict)
    rules_decided: dict[str, int] = field(default_factory=dict)
    #: the attempt that wrote the parts (their temporary names carry it until the commit)
    attempt: str = ""
    #: an incremental task: records whose rows were copied from the base run, and records
    #: read and decoded again (the others of ``seen`` were skipped in the base run too)
    copied: int = 0
    redecoded: int = 0
    #: the parts the attempt wrote, by table: ``[file name, rows, bytes]`` each, in order
    #: (a table the task has no row of has none); what the commit puts in place and the
    #: run's accounting checks against one listing of each table's folder
    parts: dict[str, list[list[Any]]] = field(default_factory=dict)
    #: a group of input files: what is said of each of them (the input's name ->
    #: ``{"unreadable": why}``, ``{"truncated": where}``, ``{"nothing": skipped by reason}``
    #: for one read whole that held nothing to decode); a one-file task says it in
    #: :attr:`unreadable` and :attr:`truncated`
    notes: dict[str, dict[str, Any]] = field(default_factory=dict)

    def said(self, what: str) -> list[tuple[str, Any]]:
        """``(input, value)`` for each input file of the task of which ``what``
        (``unreadable``, ``truncated``, ``nothing``) is said."""
        if not self.notes:
            if what == "nothing":
                nothing = (self.seen and not self.written and not self.errors
                           and self.unreadable is None)
                return [(self.path, self.skipped)] if nothing else []
            value = getattr(self, what)
            return [] if value is None else [(self.path, value)]
        return [(name, said[what]) for name, said in self.notes.items() if what in said]


def in_parallel(fn: Callable[[_T], object], items: Sequence[_T], width: int) -> None:
    """``fn`` on each of ``items``, at most ``width`` at once (in this thread when one
    at a time would do); the first exception is raised once all have ended."""
    if width <= 1 or len(items) <= 1:
        for item in items:
            fn(item)
        return
    with ThreadPoolExecutor(min(width, len(items))) as pool:
        for _ in pool.map(fn, items):
            pass


def commit_task(task: Task, stats: TaskStats, width: int | None = None) -> None:
    """Commit attempt ``stats.attempt`` of the task: the parts its stats list under their
    final names (a rename, or a copy on an object store: ``width`` at a time, default the
    task's ``commit_width``; renames on a local disk one by one), then its stats, then the
    completion marker. A crash in between leaves no marker: the rank is not committed, and
    before it is run again (``--resume``, a pool worker's retry) the parts put in place so
    far are removed."""
    rundir = task.rundir
    width = (task.commit_width if width is None else width) if is_remote(task.out) else 1
    fault = fault_at(task)

    def promote(final: str) -> None:
        task.storage.promote(temp_path(final, stats.attempt), final)

    finals = [join(rundir.partition(table), part[0])
              for table in ("records", "links", "errors") for part in stats.parts.get(table, [])]
    # the first part alone: the fault (tests) comes once it is in place and the rest is not
    in_parallel(promote, finals[:1], 1)
    if fault is not None and fault[0] < 0:
        inject(fault)
    in_parallel(promote, finals[1:], width)
    # Only the marker (what --resume trusts) is flushed to a local disk, with its folder,
    # which makes the renames before it durable too on journalling file systems.
    rundir.write_json(rundir.stats(task.rank), asdict(stats), durable=False)
    rundir.write_json(rundir.marker(task.rank), {"path": stats.path, "attempt": stats.attempt})


def read_committed(rundir: RunDir, ranks: list[int]) -> dict[int, TaskStats]:
    """The stats of every rank in ``ranks`` that has committed (one listing of the markers,
    then the stats files read concurrently from a remote store); :class:`MetadataError`
    names a corrupt stats file."""
    committed = sorted(rundir.committed() & set(ranks))
    paths = [rundir.stats(rank) for rank in committed]
    names = {f.name for f in fields(TaskStats)}
    found: dict[int, TaskStats] = {}
    for rank, path, raw in zip(committed, paths, rundir.storage.read_many(paths), strict=True):
        if raw is None:
            raise MetadataError(f"{path}: missing, but rank {rank} has a completion marker; "
                                "remove the run with --overwrite")
        data: Any = parse_json(raw, path)
        if not isinstance(data, dict) or not {"rank", "path", "seen", "written"} <= data.keys() <= names:
            raise MetadataError(f"{path}: not the stats of a task; remove the run with --overwrite")
        found[rank] = TaskStats(**data)
    return found


#: Test-only fault injection (documented in docs/run.md): ``RUN_ID:RANK:RECORDS:FLAG[:kill]``
#: makes the task at rank RANK of run RUN_ID fail once after RECORDS records, or with
#: RECORDS ``-1`` in the middle of its commit (its first part put in place, the rest
#: not): an exception, or SIGKILL of its process with ``kill``. The local file FLAG,
#: created exclusively at the fault, makes it once (a retry finds it and runs through).
FAULT_ENV = "REDECODE_TEST_FAULT"


class InjectedFault(RuntimeError):
    """The failure :data:`FAULT_ENV` asked for."""


def fault_at(task: Task) -> tuple[int, str, bool] | None:
    """The fault :data:`FAULT_ENV` asks of ``task`` (records, flag file, kill), or None."""
    spec = os.environ.get(FAULT_ENV)
    if not spec:
        return None
    run_id, rank, records, flag, *how = spec.split(":", 4)
    if run_id != task.run_id or int(rank) != task.rank:
        return None
    return int(records), flag, how == ["kill"]


def inject(fault: tuple[int, str, bool]) -> None:
    """Fail as ``fault`` says, once (its flag file says it happened)."""
    try:
        os.close(os.open(fault[1], os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return  # it happened already: this attempt runs through
    if fault[2]:
        os.kill(os.getpid(), signal.SIGKILL)
    raise InjectedFault(f"injected by {FAULT_ENV}")
