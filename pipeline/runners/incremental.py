"""Incremental re-decode (``redecode run CRAWL --rules NEW --base-run R``): a complete new run
whose rows equal, in every column but ``run_id``, those a full run with NEW would write, made
by reading and decoding again only the records the change from R's rules to NEW can alter,
and copying every other row of ``records``, ``links`` and ``errors`` from R's parts.

Which changes are local (:func:`pipeline.runners.baseplan.classify`):

- **local**: only the ``[[encoding.override]]`` list differs (an override added, removed,
  changed or moved). A record can change only if the override its URL matches first is not
  the same under R's list and NEW's (:func:`affected_by`): the records of the hosts and
  prefixes a changed override matches, in R or in NEW, and no other. Those records are read
  again by their locators (:func:`pipeline.sources.ranges.read_located`) and decoded; so are
  the records R lost in a stage that the rules reach (the encoding decision, extraction, the
  row), whose outcome may differ. Every other row is copied, with this run's ``run_id`` and
  ``rules_version``; skipped records are counted as R counted them (whether a record is
  decoded at all does not depend on the rules).
- **global**: anything else differs: the policy, another encoding, HTTP or extraction
  option, or the code (the pipeline, a parser or detector, a library whose answers reach a
  row: :func:`pipeline.provenance.code_identity`). The run says so and decodes everything.

An input of the new run that R did not read (by its name) is decoded whole.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipeline.encoding.options import Override
from pipeline.encoding.sniff.evidence import override_index
from pipeline.errors import RecordError
from pipeline.runners.parts import Counts, PartsWriter, RecordLoop, members, task_stats
from pipeline.runners.rundir import MetadataError, RunDir, new_attempt
from pipeline.runners.startup import settle_heap
from pipeline.runners.taskinfo import Task, TaskStats, read_committed
from pipeline.schema import ERRORS
from pipeline.sources.ranges import Locator, read_located
from pipeline.storage import StorageError, join

#: The stages whose failure may depend on the rules: a record R lost in one of them is
#: read and decoded again (the reader's and the HTTP layer's never do).
RULED_STAGES = frozenset({"encoding", "extract", "sink"})


def affected_by(before: tuple[Override, ...], after: tuple[Override, ...]
                ) -> Callable[[str | None], bool]:
    """Whether a record at a URL can decode otherwise under ``after`` than under ``before``:
    the first override it matches differs (the decision reads nothing else of them).

    Overrides before the first difference of the two lists match a URL first under both or
    under neither, so only the rest is looked at, and a URL that holds none of their hosts
    and starts with none of their prefixes is not parsed at all.
    """
    common = 0
    while common < min(len(before), len(after)) and before[common] == after[common]:
        common += 1
    could_match = _could_match(before[common:] + after[common:])

    def affected(url: str | None) -> bool:
        if not url or not could_match(url):
            return False
        first_before, first_after = override_index(before, url), override_index(after, url)
        return (None if first_before is None else before[first_before]) != (
            None if first_after is None else after[first_after])

    return affected


def first_override(overrides: tuple[Override, ...]) -> Callable[[str | None], int | None]:
    """:func:`~pipeline.encoding.sniff.evidence.override_index` over ``overrides``, which
    parses only the URLs that hold one of their hosts or start with one of their prefixes."""
    could_match = _could_match(overrides)
    return lambda url: override_index(overrides, url) if url and could_match(url) else None


def _could_match(overrides: tuple[Override, ...]) -> Callable[[str], bool]:
    """A test a URL passes when one of ``overrides`` may match it (its host is in the URL's
    text, or the URL starts with its prefix): one search, however many overrides."""
    if not overrides:
        return lambda url: False
    hosts = sorted({o.host for o in overrides if o.host is not None}, key=len, reverse=True)
    prefixes = tuple({o.url_prefix for o in overrides if o.url_prefix is not None})
    search = re.compile("|".join(map(re.escape, hosts))).search if hosts else None
    return lambda url: url.startswith(prefixes) or (search is not None and search(url) is not None)


def _restamped(table: pa.Table, run_id: str, rules_version: str | None = None) -> pa.Table:
    """``table`` with this run's id (and rules version) in every row."""
    n = table.num_rows
    table = table.set_column(table.schema.get_field_index("run_id"), "run_id",
                             pa.array([run_id] * n, pa.string()))
    if rules_version is not None:
        table = table.set_column(table.schema.get_field_index("rules_version"), "rules_version",
                                 pa.array([rules_version] * n, pa.string()))
    return table


def _keep(table: pa.Table, drop: list[bool]) -> pa.Table:
    return table.filter(pa.array([not d for d in drop], pa.bool_())) if any(drop) else table


def run_incremental(task: Task, progress: Callable[[int, int], None] | None = None) -> TaskStats:
    """:func:`~pipeline.runners.task.run_task` for a task with a base run: copy the base
    run's rows of this input that the rules change cannot alter, read and decode the others
    again (module docstring); the parts are written as a full task writes them."""
    assert task.base is not None
    settle_heap()
    started, cpu_started = time.monotonic(), time.process_time()
    base = task.base
    base_dir = RunDir(task.storage, task.out, base.run_id)
    committed = read_committed(base_dir, [base.rank])
    if base.rank not in committed:
        raise MetadataError(f"--base-run {base.run_id}: rank {base.rank} is not committed")
    base_stats = committed[base.rank]
    new_overrides = task.rules.encoding.overrides
    changed = affected_by(base.overrides, new_overrides)
    first_rule = first_override(new_overrides)
    version = task.rules.version
    attempt = new_attempt()
    counts = Counts()
    writer = PartsWriter(task, counts, attempt)
    reading = RecordLoop(task, writer, progress)
    position = _Position()
    copied = 0
    # the task's input files by the warc_filename their rows carry (a group's, or its own)
    inputs = {member.warc_filename: member for member in members(task)}
    with contextlib.ExitStack() as stack:
        opened: dict[str, Any] = {}

        def reread(rows: pa.Table) -> None:
            """Read again and decode the records of ``rows`` (base run rows: their locators)."""
            if not rows.num_rows:
                return
            by_file: dict[str, list[Locator]] = {}
            for name, loc in zip(rows.column("warc_filename").to_pylist(), _locators(rows),
                                 strict=True):
                by_file.setdefault(name, []).append(loc)
            for name, locators in by_file.items():
                member = inputs.get(name, task)
                if member.path not in opened:
                    try:
                        opened[member.path] = stack.enter_context(
                            task.storage.open_read(member.path, random_access=True))
                    except StorageError as exc:
                        for loc in locators:  # each record asked for is counted once
                            reading.take(RecordError(
                                "source", "source-unreadable-file", str(exc),
                                member.warc_filename, loc.offset,
                                offset_in_member=loc.offset_in_member))
                        continue
                writer.task = member  # (its errors rows name it)
                for item in read_located(opened[member.path], member.warc_filename, locators,
                                         max_block=task.rules.max_decompressed,
                                         coalesce=True):
                    reading.take(item)
                writer.task = task

        try:
            reread_at: set[tuple[str, int, int | None]] = set()
            changed_urls: set[str] = set()  # the links of a record carry its URL
            for table in _row_groups(base_dir, "records", base_stats):
                urls = table.column("url").to_pylist()
                drop = [changed(url) for url in urls]
                kept = _keep(table, drop)
                if kept.num_rows:
                    kept_urls = [url for url, d in zip(urls, drop, strict=True) if not d]
                    writer.copy_records(_restamped(kept, task.run_id, version),
                                        [first_rule(url) for url in kept_urls])
                    copied += kept.num_rows
                if any(drop):
                    changed_urls.update(url for url, d in zip(urls, drop, strict=True) if d)
                    again = table.filter(pa.array(drop, pa.bool_()))
                    reread_at.update(zip(again.column("warc_filename").to_pylist(),
                                         again.column("warc_record_offset").to_pylist(),
                                         again.column("warc_record_offset_in_member").to_pylist(),
                                         strict=True))
                    reread(again)
                reading.report(records=kept.num_rows, rest=position.past(table))
            found = list(_row_groups(base_dir, "errors", base_stats))
            errors = pa.concat_tables(found) if found else ERRORS.empty_table()
            lost_again = pc.and_(pc.invert(errors.column("is_partial")), pc.and_(
                pc.is_in(errors.column("stage"), pa.array(sorted(RULED_STAGES))),
                pc.is_valid(errors.column("warc_record_length")))).to_pylist()
            # a record written with a part failed: its partial rows come again when it is
            # read again, and stay when its row is copied
            drop = [bool(lost) or (partial and (name, offset, inner) in reread_at)
                    for lost, partial, name, offset, inner in zip(
                        lost_again, errors.column("is_partial").to_pylist(),
                        errors.column("warc_filename").to_pylist(),
                        errors.column("warc_record_offset").to_pylist(),
                        errors.column("warc_record_offset_in_member").to_pylist(), strict=True)]
            kept = _keep(errors, drop)
            if kept.num_rows:
                writer.copy_errors(_restamped(kept, task.run_id))
            reread(errors.filter(pa.array(lost_again, pa.bool_())))
            copied += kept.num_rows - sum(kept.column("is_partial").to_pylist())
            changed_set = pa.array(sorted(changed_urls), pa.string())
            for table in _row_groups(base_dir, "links", base_stats):
                kept = (table.filter(pc.invert(pc.is_in(table.column("url"), changed_set)))
                        if changed_urls else table)
                if kept.num_rows:
                    writer.copy_links(_restamped(kept, task.run_id))
            writer.close()
        except BaseException as exc:
            writer.abort(exc)
            raise
        if progress is not None:  # the whole file counts as read by the end
            reading.report(rest=position.rest(opened, task))
    skipped = dict(base_stats.skipped)
    for reason, n in reading.skipped.items():
        skipped[reason] = skipped.get(reason, 0) + n
    return task_stats(task, reading, counts, attempt, started, cpu_started,
                      seen=base_stats.seen, skipped=dict(sorted(skipped.items())),
                      unreadable=base_stats.unreadable, copied=copied, redecoded=reading.seen,
                      notes=base_stats.notes)


class _Position:
    """How far into the input the records copied or read again reach, for progress: the
    end of the furthest record's byte range."""

    def __init__(self) -> None:
        self.reported = 0

    def past(self, table: pa.Table) -> int:
        """Bytes from what was reported to the end of the last record of ``table``."""
        if not table.num_rows:
            return 0
        ends = pc.add(table.column("warc_record_offset"), table.column("warc_record_length"))
        furthest = pc.max(ends).as_py() or 0
        step = max(furthest - self.reported, 0)
        self.reported += step
        return step

    def rest(self, opened: dict[str, Any], task: Task) -> int:
        """Bytes from what was reported to the end of the input files (their sizes: from
        the files read again, else opened for it)."""
        size = 0
        try:
            for member in members(task):
                fh = opened.get(member.path)
                if fh is None:
                    with task.storage.open_read(member.path, random_access=True) as own:
                        size += own.seek(0, 2)
                else:
                    size += fh.seek(0, 2)
        except (OSError, ValueError, StorageError):
            return 0
        step = max(size - self.reported, 0)
        self.reported += step
        return step


def _row_groups(rundir: RunDir, table: str, stats: TaskStats) -> Any:
    """The row groups of the base run's parts of ``table`` that the task of ``stats``
    wrote (its stats list them), one table each, in order."""
    for name, _, _ in stats.parts.get(table, []):
        with rundir.storage.open_read(join(rundir.partition(table), name),
                                      random_access=True) as fh:
            parts = pq.ParquetFile(fh)
            for index in range(parts.metadata.num_row_groups):
                yield parts.read_row_group(index)


def _locators(table: pa.Table) -> list[Locator]:
    return [Locator(offset, length, inner) for offset, length, inner in zip(
        table.column("warc_record_offset").to_pylist(),
        table.column("warc_record_length").to_pylist(),
        table.column("warc_record_offset_in_member").to_pylist(), strict=True)]
