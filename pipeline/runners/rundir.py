"""A run's folder under ``--out`` (a local path or a URL): its id, the names of its files,
how they are read, written and cleaned up.

Layout (one run id ``R``)::

    OUT/<table>/run_id=R/part-<rank>-<seq>.parquet records, links, errors: a task's parts
    OUT/runs/run_id=R/part-00000.parquet           the run's ``runs`` row
    OUT/_runs/R/_run.json                          resolved config (what --resume compares)
    OUT/_runs/R/_stats/<rank>.json                 a committed task's counters and parts
    OUT/_runs/R/_completions/<rank>                a rank's commit: written last
    OUT/_runs/R/_finished                          written after the runs row
    OUT/_runs/R/_lock                              held while a process writes the run

``<rank>`` is the task's rank in at least five digits (:func:`rank_name`: ``00042``,
``123456``): no limit on the number of tasks, one name per rank.

A task (one input file, or a group of small ones) writes each table's rows into parts of
about ``--part-size`` bytes, ``<seq>`` counting them from ``0000``; a table the task has no
row of gets no part. It writes them under hidden temporary names unique to the attempt
(``.part-<rank>-<seq>.parquet.<attempt>.tmp``, beside the final name); committing a rank
puts the parts its stats list under their final names
(:meth:`pipeline.storage.Storage.promote`), then writes the stats, then the completion
marker. Only a rank with a marker counts: ``--resume`` reruns every other rank (removing
what it had put in place first), and the audits read only committed parts (see
``docs/run.md``).
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pipeline.storage import Storage, StorageError, join, temp_path

#: The tables whose parts a run's tasks write.
TASK_TABLES = ("records", "links", "errors")
TABLES = (*TASK_TABLES, "runs")
#: A rank as file names write it (:func:`rank_name`): five digits, or more without a leading
#: zero, so that no two names stand for one rank (``000042`` is none).
RANK = r"(\d{5}|[1-9]\d{5,})"
#: A part's number within its rank and table (:func:`part_name`): four digits, or more
#: without a leading zero.
SEQ = r"(\d{4}|[1-9]\d{4,})"
#: The one home of the part names every reader takes (``--resume``, the accounting, the
#: audits' :func:`pipeline.audit.find_parts`, ``--base-run``): ``part-<rank>-<seq>.parquet``
#: (a task's parts), or ``part-<rank>.parquet`` (the ``runs`` row's part, and every part
#: of runs written before parts were sized by bytes). Group 1 is the rank, group 2 the seq.
PART_NAME = re.compile(rf"part-{RANK}(?:-{SEQ})?\.parquet")
#: The parts a task of this version writes (records, links, errors).
TASK_PART_NAME = re.compile(rf"part-{RANK}-{SEQ}\.parquet")
#: A temporary part name (``.part-N-S.parquet.tmp`` or with an attempt id; group 1: rank).
TEMP_PART_NAME = re.compile(rf"\.part-{RANK}(?:-{SEQ})?\.parquet(?:\.([0-9a-f]{{1,32}}))?\.tmp")
#: The names of a rank's stats and completion marker, and of their temporary files.
STATS_NAME = re.compile(rf"{RANK}\.json")
MARKER_NAME = re.compile(RANK)
#: The run's own metadata files written whole (beside the lock), each under ``.NAME.tmp``
#: first on a local path.
_META_FILES = ("_run.json", "_finished", "_lost.json")
_META_TEMPS = {"_stats": re.compile(rf"\.{RANK}\.json\.tmp"),
               "_completions": re.compile(rf"\.{RANK}\.tmp")}


def part_name(rank: int, seq: int) -> str:
    """The file name of part ``seq`` of rank ``rank`` (in any task table).

    >>> part_name(42, 0), part_name(100_000, 12_345)
    ('part-00042-0000.parquet', 'part-100000-12345.parquet')
    """
    return f"part-{rank_name(rank)}-{seq:04d}.parquet"


def rank_name(rank: int) -> str:
    """How file names write ``rank``: at least five digits, without a limit.

    >>> rank_name(42), rank_name(99_999), rank_name(100_000)
    ('00042', '99999', '100000')
    """
    return f"{rank:05d}"


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


def new_attempt() -> str:
    """An id unique to one attempt at a task (a retry or a speculative copy gets another)."""
    return secrets.token_hex(6)


@dataclass(frozen=True)
class RunDir:
    """The files of run ``run_id`` in ``out``, on ``storage``."""

    storage: Storage
    out: str
    run_id: str

    @property
    def meta(self) -> str:
        """The run's bookkeeping folder (config, stats, completion markers, lock)."""
        return join(self.out, "_runs", self.run_id)

    def partition(self, table: str) -> str:
        """The folder holding ``table``'s parts (hive partition ``run_id=R``)."""
        return join(self.out, table, f"run_id={self.run_id}")

    def part(self, table: str, rank: int) -> str:
        """The one part of the ``runs`` table (rank 0)."""
        return join(self.partition(table), f"part-{rank_name(rank)}.parquet")

    def task_part(self, table: str, rank: int, seq: int) -> str:
        """Where rank ``rank`` puts its part ``seq`` of ``table`` when it commits."""
        return join(self.partition(table), part_name(rank, seq))

    def temp_part(self, table: str, rank: int, seq: int, attempt: str) -> str:
        """Where attempt ``attempt`` at rank ``rank`` writes part ``seq`` of ``table``
        before the commit."""
        return temp_path(self.task_part(table, rank, seq), attempt)

    def stats(self, rank: int) -> str:
        """A committed task's counters."""
        return join(self.meta, "_stats", f"{rank_name(rank)}.json")

    def marker(self, rank: int) -> str:
        """Rank ``rank``'s completion marker: written after its parts and stats."""
        return join(self.meta, "_completions", rank_name(rank))

    @property
    def config(self) -> str:
        """The run's resolved configuration."""
        return join(self.meta, "_run.json")

    @property
    def finished(self) -> str:
        """Written after the run's ``runs`` row: the run is complete."""
        return join(self.meta, "_finished")

    @property
    def lock(self) -> str:
        """The run's lock file (or object)."""
        return join(self.meta, "_lock")

    @property
    def lost(self) -> str:
        """The attempts and executors the run lost (:mod:`pipeline.runners.retries`)."""
        return join(self.meta, "_lost.json")

    def write_json(self, path: str, data: Any, *, durable: bool = True) -> None:
        """Write ``data`` as JSON atomically (ASCII: a file name that is not UTF-8 survives
        as ``\\udcNN`` escapes and reads back the same)."""
        self.storage.write_bytes(path, json.dumps(data, sort_keys=True, indent=1).encode(),
                                 durable=durable)

    def read_json(self, path: str) -> Any:
        """A metadata file's JSON; :class:`MetadataError` naming the file when it is
        unreadable or corrupt."""
        try:
            raw = self.storage.read_bytes(path)
        except StorageError as exc:
            raise MetadataError(f"cannot read run metadata: {exc}") from None
        return parse_json(raw, path)

    def committed(self) -> set[int]:
        """The ranks with a completion marker (one listing)."""
        names = self.storage.list_dir(join(self.meta, "_completions"))
        return {int(name) for name, is_dir in names if not is_dir and MARKER_NAME.fullmatch(name)}

    def is_finished(self) -> bool:
        """True once the run wrote its ``runs`` row and ``_finished``."""
        return self.storage.exists(self.finished)

    def temporary_files(self) -> dict[int | None, list[str]]:
        """Every temporary file the run's tasks left (killed or retried attempts), by rank
        (None: metadata temporaries), found with one listing per folder."""
        found: dict[int | None, list[str]] = {}
        for table in TABLES:
            folder = self.partition(table)
            for name, is_dir in self.storage.list_dir(folder):
                match = TEMP_PART_NAME.fullmatch(name)
                if match and not is_dir:
                    found.setdefault(int(match.group(1)), []).append(join(folder, name))
        for sub, pattern in _META_TEMPS.items():
            folder = join(self.meta, sub)
            for name, is_dir in self.storage.list_dir(folder):
                match = pattern.fullmatch(name)
                if match and not is_dir:
                    found.setdefault(int(match.group(1)), []).append(join(folder, name))
        for name in _META_FILES:
            tmp = temp_path(join(self.meta, name))
            if self.storage.is_file(tmp):
                found.setdefault(None, []).append(tmp)
        return found

    def final_parts(self, ranks: set[int]) -> list[str]:
        """The final parts of ``ranks`` in the task tables (one listing per folder): what
        an attempt killed in the middle of its commit put in place. A rank run again has
        them removed first, so that no part of the earlier attempt is left beside the
        new one's (which may be fewer)."""
        found: list[str] = []
        for table in TASK_TABLES:
            folder = self.partition(table)
            for name, is_dir in self.storage.list_dir(folder):
                match = PART_NAME.fullmatch(name)
                if match and not is_dir and int(match.group(1)) in ranks:
                    found.append(join(folder, name))
        return found

    def abort_uploads(self) -> list[str]:
        """Abort the unfinished uploads of the run's temporary parts (what a writer killed
        in the middle of a part over the multipart threshold leaves on S3, where no listing
        shows it; one request per table folder); returns their URLs."""
        return [url for table in TASK_TABLES
                for url in self.storage.abort_uploads(self.partition(table), TEMP_PART_NAME)]

    def existing_files(self) -> list[str]:
        """Every file this run has left in ``out`` (parts, metadata, temporary files), by
        the exact names a run writes: what ``--overwrite`` removes."""
        found: list[str] = []
        for table in TABLES:
            folder = self.partition(table)
            for name, is_dir in self.storage.list_dir(folder):
                if not is_dir and (PART_NAME.fullmatch(name) or TEMP_PART_NAME.fullmatch(name)):
                    found.append(join(folder, name))
        for name, is_dir in self.storage.list_dir(self.meta):
            if not is_dir and (name in (*_META_FILES, "_lock")
                               or name in {f".{meta}.tmp" for meta in _META_FILES}):
                found.append(join(self.meta, name))
        for sub, final in (("_stats", STATS_NAME), ("_completions", MARKER_NAME)):
            folder = join(self.meta, sub)
            found.extend(join(folder, name) for name, is_dir in self.storage.list_dir(folder)
                         if not is_dir and (final.fullmatch(name)
                                            or _META_TEMPS[sub].fullmatch(name)))
        return sorted(found)

    def links(self) -> list[tuple[str, str]]:
        """``(path, target)`` of every symbolic link among the run's folders in a local
        ``out`` (a table folder, ``run_id=R``, ``_runs``, ``_runs/R``, its ``_stats`` and
        ``_completions``) and its lock file: through one, removing or writing the run
        would touch files outside ``out``. None on a remote store."""
        import os

        from pipeline.storage import is_remote

        if is_remote(self.out):
            return []
        candidates = [join(self.out, table) for table in TABLES]
        candidates += [self.partition(table) for table in TABLES]
        candidates += [join(self.out, "_runs"), self.meta, join(self.meta, "_stats"),
                       join(self.meta, "_completions"), self.lock]
        return [(path, os.readlink(path)) for path in candidates if os.path.islink(path)]

    def exists(self) -> bool:
        """True when a run with this id left anything in ``out``."""
        return bool(self.existing_files())

    def remove(self, *, keep: tuple[str, ...] = ()) -> int:
        """Remove every file :meth:`existing_files` lists (but ``keep``), then the folders
        left empty; returns how many files went. Anything else in those folders stays (and
        the invariant check will count a stray part)."""
        files = [path for path in self.existing_files() if path not in keep]
        self.storage.remove_all(files)
        for folder in (*(self.partition(t) for t in TABLES), join(self.meta, "_stats"),
                       join(self.meta, "_completions"), self.meta):
            self.storage.remove_empty_dir(folder)
        return len(files)


def parse_json(raw: bytes, path: str) -> Any:
    """``raw`` (the content of the metadata file ``path``) as JSON; :class:`MetadataError`."""
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise MetadataError(
            f"{path}: corrupt run metadata ({exc}); remove the run with --overwrite"
        ) from None
