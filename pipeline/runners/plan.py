"""Plan a run: check everything that can be checked before anything is written (run id,
``--out``, inputs, a run id already used, what ``--resume`` continues), and resolve what
the run will do. Refusals are :class:`~pipeline.runners.rundir.RunRefused` (exit code 2).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pipeline import __version__
from pipeline.provenance import code_identity
from pipeline.rules import Rules
from pipeline.runners.baseplan import BasePlan, load_base
from pipeline.runners.rundir import (
    MetadataError,
    RunDir,
    RunRefused,
    new_run_id,
    validate_run_id,
)
from pipeline.runners.taskinfo import COMMIT_WIDTH, PART_SIZE
from pipeline.sources.inputs import Page, expand_inputs
from pipeline.sources.pages import page_url
from pipeline.sources.record_lists import (
    RecordListError,
    RecordLists,
    RecordRanges,
    is_record_list,
    read_record_lists,
)
from pipeline.sources.roots import input_root, stable_name
from pipeline.storage import (
    Storage,
    StorageError,
    is_remote,
    is_url,
    join,
    normalize,
    redact,
    redact_url,
    scheme_of,
)

#: Saved pages read by one task: a folder of 100,000 pages is 200 tasks (parts, stats and
#: markers), not 100,000, and still spreads over every worker.
PAGES_PER_TASK = 500
#: Local input files are grouped into one task, in order, up to this many bytes of input
#: (``--task-size``; 0: a task per file): 100,000 files of a few KB are a few tasks, each
#: with its parts, stats and marker, not 100,000 of each; a file this large or larger, or
#: one whose size is not known without a request (a remote one), is a task of its own.
TASK_SIZE = 64 * 2**20
#: A group holds at most the inputs / (this many x the workers): however small the files,
#: there are enough tasks to keep every worker busy until the end.
TASKS_PER_WORKER = 4


class NothingToResume(Exception):
    """``--resume`` found no unfinished run to continue; nothing was written (exit code 0)."""


@dataclass(frozen=True, slots=True)
class RunPlan:
    """A run that passed every check: what :func:`pipeline.runners.local.execute` will do."""

    out: str  # a local path or a URL
    run_id: str
    #: what each rank reads: an input file, or the name of a batch of saved pages
    files: tuple[str, ...]
    rules: Rules
    config: dict[str, Any]
    workers: int
    columns: tuple[tuple[str, str], ...]
    strict: bool
    resume: bool  # continue the existing run (its completed tasks are kept)
    overwrite: bool  # remove the existing run with this id first
    skipped_inputs: tuple[tuple[str, str], ...]
    missing_inputs: tuple[tuple[str, str], ...]
    storage: Storage = field(default_factory=Storage)
    #: what planning passed over and the user should hear of (a run whose config is corrupt)
    notes: tuple[str, ...] = ()
    #: a batch's name (in ``files``) -> its saved pages: (path, relative name, URL)
    pages: dict[str, tuple[tuple[str, str, str], ...]] = field(default_factory=dict)
    #: what ``warc_filename`` is relative to (:mod:`pipeline.sources.roots`); None: full paths
    input_root: str | None = None
    #: the base run of an incremental re-decode (None: decode everything)
    base: BasePlan | None = None
    #: a task's name (in ``files``) -> the records a record list names in it (a file read
    #: by ranges), or the list's rows that name no record (:mod:`pipeline.sources.record_lists`)
    ranges: dict[str, RecordRanges] = field(default_factory=dict)
    #: a group's name (in ``files``) -> its input files, in order
    groups: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: the bytes at which a task's part is closed and the next one started
    part_size: int = PART_SIZE
    #: how many parts (Spark: tasks) are committed at once
    commit_width: int = COMMIT_WIDTH


def plan(
    inputs: list[str],
    out: str | Path,
    rules: Rules,
    *,
    workers: int | None = None,
    run_id: str | None = None,
    resume: bool = False,
    overwrite: bool = False,
    allow_missing: bool = False,
    columns: dict[str, str] | None = None,
    config_sources: dict[str, str] | None = None,
    strict: bool = False,
    storage: Storage | None = None,
    input_base: str | None = None,
    engine: dict[str, Any] | None = None,
    url_base: str | None = None,
    base_run: str | None = None,
    records_from: list[str] | None = None,
    part_size: int = PART_SIZE,
    commit_width: int = COMMIT_WIDTH,
    task_size: int = TASK_SIZE,
) -> RunPlan:
    """Check a run before anything is written; :class:`RunRefused` (exit code 2) names what
    is wrong: a bad run id or ``--out`` (a missing bucket, bad credentials, an unreachable
    endpoint), a missing input (local or remote), a run id already used (without
    ``--resume``/``--overwrite``), a run to resume that was started differently.
    :class:`NothingToResume` when ``resume`` finds the run already finished.

    ``input_base`` is the folder or URL relative entries of path lists are taken from
    (Common Crawl's ``warc.paths.gz`` with ``https://data.commoncrawl.org/``); ``engine``
    (where the tasks run: ``{"engine": "spark", "master": ...}``) is kept in the config.
    Saved pages (``.html``, ``.htm``) are read :data:`PAGES_PER_TASK` to a task, each as
    the URL ``url_base`` extended by its name relative to the folder it was found in
    (else its ``file://`` URL).
    ``base_run`` names a finished run in ``out`` to copy what the rules change cannot alter
    from (:mod:`pipeline.runners.incremental`). ``records_from`` names record lists; a CSV
    or a Parquet file of locators among ``inputs`` is one too (:func:`_record_lists`).
    Local input files are grouped into tasks of
    up to ``task_size`` bytes (:func:`group_inputs`; a resumed run keeps its groups, and a
    run with a base run takes the base run's where it reads the same files); each task
    writes parts of about ``part_size`` bytes, and ``commit_width`` of them are put in
    place at once."""
    storage = storage or Storage()
    out = normalize(str(out))
    if workers is not None and workers < 1:
        raise RunRefused(f"--workers {workers}: at least 1")
    if part_size < 1 or commit_width < 1 or task_size < 0:
        raise RunRefused(f"--part-size {part_size}, --commit-width {commit_width}, "
                         f"--task-size {task_size}: the first two at least 1, the last at "
                         "least 0")
    if run_id is not None:
        validate_run_id(run_id)
    if resume and overwrite:
        raise RunRefused("--resume and --overwrite contradict each other: choose one")
    if overwrite and run_id is None:
        raise RunRefused("--overwrite needs --run-id (the run to replace)")
    _check_out(storage, out)
    listed, inputs = _record_lists(inputs, records_from or [], storage, input_base, columns)
    try:
        expanded = expand_inputs(inputs, exclude=out, storage=storage, input_base=input_base)
    except (ValueError, OSError) as exc:
        raise RunRefused(storage.scrub(str(exc))) from None
    whole = {_where(path) for path in expanded.files}
    both = sorted(path for path in listed.tasks if _where(path) in whole)
    if both:
        raise RunRefused(f"{redact_url(both[0])}: both an input and named by a record list "
                         "(it would be read twice): name it once")
    if expanded.missing and not allow_missing:
        shown = "; ".join(f"{storage.scrub(m.input)}: {storage.scrub(m.reason)}"
                          for m in expanded.missing)
        raise RunRefused(f"inputs not found: {shown} (--allow-missing runs the rest)")
    if url_base is not None:
        url_base = _check_url_base(url_base, bool(expanded.pages))
    batches = _page_batches(expanded.pages, url_base)
    if not (expanded.files or batches or listed.tasks) and listed.identity:
        raise RunRefused("no input files: the record lists hold no rows ("
                         + ", ".join(entry["path"] for entry in listed.identity) + ")")
    if not (expanded.files or batches or listed.tasks):
        raise RunRefused("no input files" + (f" in {', '.join(map(redact_url, inputs))}"
                                             if inputs else ""))
    shown_files = sorted([*(redact_url(path) for path in expanded.files),
                          *(redact_url(page.path) for page in expanded.pages),
                          *(redact_url(path) for path, r in listed.tasks.items() if not r.bad)])
    lists = listed.identity or None
    notes: list[str] = []
    try:
        if resume:
            run_id = _find_run_to_resume(storage, out, shown_files, rules, run_id, notes,
                                         url_base, lists)
        elif run_id is not None and not overwrite and RunDir(storage, out, run_id).exists():
            raise RunRefused(
                f"run {run_id} already exists in {out}: add --resume to continue it, or "
                "--overwrite to replace it"
            )
    except StorageError as exc:
        raise RunRefused(f"--out {out}: {exc}") from None
    if run_id is not None and (resume or overwrite):
        _refuse_links(RunDir(storage, out, run_id), "--resume" if resume else "--overwrite")
    if run_id is None:
        digest = hashlib.sha256(json.dumps([shown_files, rules.version, *([lists] if lists
                                                                          else [])]).encode()
                                ).hexdigest()
        run_id = new_run_id(digest)
    root = input_root([redact_url(item) for item in inputs], shown_files,
                      redact_url(input_base) if input_base else None)
    code = code_identity()
    base = None
    if base_run is not None:
        validate_run_id(base_run)
        if base_run == run_id:
            raise RunRefused(f"--base-run {base_run}: a run cannot be its own base")
        base = load_base(RunDir(storage, out, base_run), rules, code, root)
    earlier = _earlier_groups(storage, out, run_id, resume, base)
    sizes = earlier if earlier is not None and sum(earlier) == len(expanded.files) else None
    groups = (split_groups(expanded.files, sizes) if sizes is not None else
              group_inputs(expanded.files, task_size, workers or os.cpu_count() or 1))
    named = {_group_name(group): tuple(group) for group in groups if len(group) > 1}
    files = [group[0] if len(group) == 1 else _group_name(group) for group in groups]
    files += [*batches, *listed.tasks]
    skipped = tuple((redact_url(s.path), s.reason) for s in expanded.skipped)
    missing = tuple((storage.scrub(m.input), storage.scrub(m.reason)) for m in expanded.missing)
    config = {
        "run_id": run_id,
        "started_at": datetime.now(UTC).isoformat(),
        "inputs": shown_files,
        "input_base": redact_url(input_base) if input_base else None,
        "url_base": url_base,
        "input_root": root,
        "pipeline_version": __version__,
        "rules_version": rules.version,
        "rules": rules.to_json(),
        "rules_sha256": rules.source_sha256,
        "storage_options": redact(storage.options),
        "workers": workers,
        "engine": engine or {"engine": "local"},
        "columns": columns or None,
        "sources": config_sources or {},
        "skipped_inputs": [{"path": p, "reason": r} for p, r in skipped],
        "missing_inputs": [{"input": i, "reason": r} for i, r in missing],
        "code": code,
        "base_run": base.to_json() if base is not None else None,
        "record_lists": lists,
        # the inputs of each task, in order, as [count, tasks] runs: what --resume and a
        # later --base-run group them by
        "task_inputs": _runs_of([len(group) for group in groups]),
        "part_size": part_size,
        "task_size": task_size,
        "commit_width": commit_width,
    }
    notes.extend(listed.notes)
    return RunPlan(
        out=out, run_id=run_id, files=tuple(files), rules=rules, config=config,
        workers=workers or os.cpu_count() or 1, columns=tuple(sorted((columns or {}).items())),
        strict=strict, resume=resume, overwrite=overwrite, skipped_inputs=skipped,
        missing_inputs=missing, storage=storage, notes=tuple(notes), pages=batches,
        input_root=root, base=base, ranges=_named_by_root(listed, root), groups=named,
        part_size=part_size, commit_width=commit_width,
    )


def _record_lists(inputs: list[str], records_from: list[str], storage: Storage,
                  input_base: str | None, columns: dict[str, str] | None
                  ) -> tuple[RecordLists, list[str]]:
    """The record lists of the run (``--records-from``, and the inputs that are lists:
    :func:`~pipeline.sources.record_lists.is_record_list`) read and grouped into tasks,
    and the other inputs; :class:`RunRefused` for a list that cannot be one."""
    named = [item for item in inputs if is_record_list(item, storage, columns)]
    given = [path for item in records_from for path in _lists_in(item, storage)]
    lists = [*given, *(item for item in named if item not in given)]
    try:
        listed = read_record_lists(lists, storage, input_base,
                                   {path: redact_url(path) for path in lists}, columns)
    except RecordListError as exc:
        raise RunRefused(storage.scrub(str(exc))) from None
    return listed, [item for item in inputs if item not in named]


def _lists_in(item: str, storage: Storage) -> list[str]:
    """The record lists ``--records-from ITEM`` names: a file, or the files of a folder or
    prefix (a query's output: its part files, whatever their names; names starting with
    ``_`` or ``.``, such as Spark's ``_SUCCESS``, passed over) or of a glob."""
    try:
        if any(char in item.split("?", 1)[0] for char in "*?["):
            found = [path for path, is_dir in storage.glob_entries(item) if not is_dir]
        elif storage.is_dir(item):
            found = storage.list_files(item)
        else:
            return [item]
    except StorageError as exc:
        raise RunRefused(f"--records-from {redact_url(item)}: {storage.scrub(str(exc))}"
                         ) from None
    found = [path for path in found
             if not path.rstrip("/").rpartition("/")[2].startswith(("_", "."))]
    if not found:
        raise RunRefused(f"--records-from {redact_url(item)}: no file in it")
    return found


def _where(path: str) -> str:
    """A file as a path that names it alone (a local path made absolute)."""
    return path if is_url(path) else os.path.abspath(path)


def _named_by_root(listed: RecordLists, root: str | None) -> dict[str, RecordRanges]:
    """The lists' tasks, their rows that name no record named as rows name files (relative
    to the input root)."""
    return {name: RecordRanges(r.lists, bad=tuple(dataclasses.replace(
        err, warc_filename=stable_name(redact_url(err.warc_filename), root)) for err in r.bad))
        if r.bad else r for name, r in listed.tasks.items()}


def group_inputs(files: list[str], task_size: int, workers: int) -> list[list[str]]:
    """``files`` in tasks, in order: local files together up to ``task_size`` bytes (and at
    most ``len(files) / (TASKS_PER_WORKER * workers)`` files, so that every worker has
    work); a remote file, one whose size cannot be read, and every file when
    ``task_size`` is 0, alone."""
    cap = max(1, -(-len(files) // (TASKS_PER_WORKER * workers)))
    groups: list[list[str]] = []
    current: list[str] = []
    total = 0
    for path in files:
        size = _local_size(path) if task_size > 0 else None
        if size is None or size >= task_size:
            if current:
                groups.append(current)
            groups.append([path])
            current, total = [], 0
            continue
        if current and (total + size > task_size or len(current) >= cap):
            groups.append(current)
            current, total = [], 0
        current.append(path)
        total += size
    if current:
        groups.append(current)
    return groups


def split_groups(files: list[str], counts: list[int]) -> list[list[str]]:
    """``files`` in consecutive tasks of ``counts`` files each."""
    groups, start = [], 0
    for count in counts:
        groups.append(files[start:start + count])
        start += count
    return groups


def _local_size(path: str) -> int | None:
    if is_url(path):
        return None
    try:
        return os.path.getsize(path)
    except OSError:
        return None


def _group_name(group: list[str]) -> str:
    """A group's name: its first and last file and how many (they are consecutive in the
    sorted inputs, so this names one group of them)."""
    return f"{redact_url(group[0])} ... {redact_url(group[-1])} ({len(group)} input files)"


def _runs_of(counts: list[int]) -> list[list[int]]:
    """``counts`` as ``[value, repeats]`` runs.

    >>> _runs_of([3, 3, 1, 3])
    [[3, 2], [1, 1], [3, 1]]
    """
    runs: list[list[int]] = []
    for count in counts:
        if runs and runs[-1][0] == count:
            runs[-1][1] += 1
        else:
            runs.append([count, 1])
    return runs


def _earlier_groups(storage: Storage, out: str, run_id: str, resume: bool,
                    base: BasePlan | None) -> list[int] | None:
    """The inputs of each task of the run resumed, or of the base run when it read the same
    files (``task_inputs`` in its config), else None (group afresh)."""
    if resume:
        source = RunDir(storage, out, run_id)
    elif base is not None and base.change == "local":
        source = RunDir(storage, out, base.run_id)
    else:
        return None
    try:
        data = source.read_json(source.config) if storage.exists(source.config) else None
    except (MetadataError, StorageError):
        return None
    runs = data.get("task_inputs") if isinstance(data, dict) else None
    if not isinstance(runs, list):
        return None
    try:
        counts = [int(count) for count, repeats in runs for _ in range(int(repeats))]
    except (TypeError, ValueError):
        return None
    return counts if all(count > 0 for count in counts) else None


def _check_url_base(url_base: str, has_pages: bool) -> str:
    """``--url-base`` as page names extend it (ending in ``/``), or :class:`RunRefused`."""
    if not has_pages:
        raise RunRefused(f"--url-base {url_base}: the inputs hold no saved page (.html, .htm) "
                         "for it to name")
    if not is_url(url_base):
        raise RunRefused(f"--url-base {url_base}: not a URL (e.g. https://example.com/, or "
                         "https:// for a wget mirror whose folders are host names)")
    return url_base if url_base.endswith("/") else url_base + "/"


def _page_batches(pages: list[Page], url_base: str | None
                  ) -> dict[str, tuple[tuple[str, str, str], ...]]:
    """Saved pages in tasks of :data:`PAGES_PER_TASK`, in order, each named by its first
    and last page (a lone page by its path)."""
    batches: dict[str, tuple[tuple[str, str, str], ...]] = {}
    for start in range(0, len(pages), PAGES_PER_TASK):
        chunk = pages[start:start + PAGES_PER_TASK]
        name = (chunk[0].path if len(chunk) == 1 else
                f"{chunk[0].path} ... {chunk[-1].path} ({len(chunk)} saved pages)")
        batches[name] = tuple((page.path, page.name, page_url(page.path, page.name, url_base))
                              for page in chunk)
    return batches


def _check_out(storage: Storage, out: str) -> None:
    if is_url(out):
        if not is_remote(out):
            raise RunRefused(f"--out {redact_url(out)}: not a supported storage URL")
        if scheme_of(out) in ("http", "https"):
            raise RunRefused(f"--out {redact_url(out)}: http(s) is read-only; write to a "
                             "local path or an object store")
        odd = _odd_output_url(out)
        if odd:
            raise RunRefused(f"--out {redact_url(out)}: {odd}; name the output folder as "
                             "s3://bucket/prefix")
        try:
            storage.check_bucket(out)
            if storage.is_file(out):
                raise RunRefused(f"--out {redact_url(out)}: an object, not a folder")
        except StorageError as exc:
            raise RunRefused(f"--out {exc}") from None
        return
    if os.path.exists(out) and not os.path.isdir(out):
        raise RunRefused(f"--out {out}: not a folder")
    ancestor = Path(out)
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise RunRefused(f"--out {out}: {ancestor} is not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise RunRefused(f"--out {out}: {ancestor} is not writable")


def _refuse_links(rundir: RunDir, option: str) -> None:
    """:class:`RunRefused` when a folder of the run (or its lock) is a symbolic link:
    ``--overwrite`` and ``--resume`` remove and write files in those folders, and nothing
    outside ``--out`` is ever touched."""
    links = rundir.links()
    if links:
        shown = "; ".join(f"{path} -> {target}" for path, target in links)
        raise RunRefused(f"--out {rundir.out}: run {rundir.run_id}'s folders hold symbolic "
                         f"links ({shown}); {option} touches nothing outside --out: remove "
                         "the links (rm, not rm -r) or move the run's folders back")


def _odd_output_url(out: str) -> str | None:
    """Why the output URL ``out`` names no plain folder, or None. A store's key may hold
    any character, but an output folder whose name has an empty segment (``s3://b//x``:
    readers listing ``s3://b/x`` never see it), a ``.``/``..`` segment, or a ``?`` or
    ``#`` (read as a version or a fragment by other tools: ``s3://b/q?versionId=1``) is
    almost always a typing mistake, and the run could not read its own output back.

    >>> _odd_output_url("s3://b/out"), _odd_output_url("s3://b")
    (None, None)
    >>> _odd_output_url("s3://b//x")
    "an empty folder name ('//')"
    >>> _odd_output_url("s3://b/q?versionId=1")
    "'?' in the folder name"
    """
    scheme = scheme_of(out) or ""
    bucket, _, key = out[len(scheme) + 3:].partition("/")
    if not bucket:
        return "no bucket"
    for char in "?#":
        if char in out:
            return f"'{char}' in the folder name"
    segments = key.split("/") if key else []
    if any(segment == "" for segment in segments):
        return "an empty folder name ('//')"
    if any(segment in (".", "..") for segment in segments):
        return "a '.' or '..' folder name"
    return None


def _runs_in(storage: Storage, out: str, notes: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """Every run in ``out`` with its config, newest first. A run whose config cannot be
    read or is not a run's config is passed over, with a note in ``notes`` naming it (one
    damaged run must not keep every other run of the folder from being resumed)."""
    runs = []
    for name, is_dir in storage.list_dir(join(out, "_runs")):
        rundir = RunDir(storage, out, name)
        if is_dir and storage.is_file(rundir.config):
            try:
                data = rundir.read_json(rundir.config)
            except MetadataError as exc:
                notes.append(f"passed over run {name} while looking for the run to resume: "
                             f"{exc}")
                continue
            if not isinstance(data, dict):
                notes.append(f"passed over run {name} while looking for the run to resume: "
                             f"{rundir.config}: not a run's config; remove the run with "
                             "--overwrite")
                continue
            runs.append((name, data))
    runs.sort(key=lambda run: (str(run[1].get("started_at", "")), run[0]), reverse=True)
    return runs


def _find_run_to_resume(
    storage: Storage, out: str, files: list[str], rules: Rules, run_id: str | None,
    notes: list[str], url_base: str | None = None,
    lists: list[dict[str, Any]] | None = None,
) -> str:
    """The run ``--resume`` continues; :class:`NothingToResume` or :class:`RunRefused` why
    there is none. Runs passed over on the way (a corrupt config) are named in ``notes``."""
    if run_id is not None:
        rundir = RunDir(storage, out, run_id)
        if not storage.exists(rundir.config):
            return run_id  # not started yet: --resume --run-id X runs X to the end, once
        data = rundir.read_json(rundir.config)
        if not isinstance(data, dict):
            raise MetadataError(f"{rundir.config}: not a run's config; remove the run with "
                                "--overwrite")
        if (data.get("inputs") != files or data.get("rules_version") != rules.version
                or data.get("url_base") != url_base or data.get("record_lists") != lists):
            raise RunRefused(
                f"run {run_id} in {out} was started with other inputs, rules or code (its "
                "rules_version), another --url-base or other record lists: resume it with "
                "the same ones, or --overwrite it"
            )
        if rundir.is_finished():
            raise NothingToResume(f"run {run_id} in {out} has finished; nothing to resume")
        return run_id
    same = [(rid, data) for rid, data in _runs_in(storage, out, notes)
            if data.get("inputs") == files and data.get("rules_version") == rules.version
            and data.get("url_base") == url_base and data.get("record_lists") == lists]
    passed = (f" (passed over {len(notes)} run(s) whose config is corrupt: "
              f"{'; '.join(notes)})" if notes else "")
    if not same:
        raise RunRefused(
            f"nothing to resume: {out} holds no run of these inputs and rules "
            f"(drop --resume to start one){passed}"
        )
    newest, _ = same[0]
    if RunDir(storage, out, newest).is_finished():
        raise NothingToResume(
            f"the newest run of these inputs and rules in {out}, {newest}, has finished; "
            f"nothing to resume (drop --resume to start a new run){passed}"
        )
    return newest
