"""Plan a run: check everything that can be checked before anything is written (run id,
``--out``, inputs, a run id already used, what ``--resume`` continues), and resolve what
the run will do. Refusals are :class:`~pipeline.runners.rundir.RunRefused` (exit code 2).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pipeline import __version__
from pipeline.rules import Rules
from pipeline.runners.rundir import (
    MetadataError,
    RunDir,
    RunRefused,
    new_run_id,
    validate_run_id,
)
from pipeline.sources.inputs import expand_inputs
from pipeline.sources.roots import input_root
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


class NothingToResume(Exception):
    """``--resume`` found no unfinished run to continue; nothing was written (exit code 0)."""


@dataclass(frozen=True, slots=True)
class RunPlan:
    """A run that passed every check: what :func:`pipeline.runners.local.execute` will do."""

    out: str  # a local path or a URL
    run_id: str
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
    #: what ``warc_filename`` is relative to (:mod:`pipeline.sources.roots`); None: full paths
    input_root: str | None = None


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
) -> RunPlan:
    """Check a run before anything is written; :class:`RunRefused` (exit code 2) names what
    is wrong: a bad run id or ``--out`` (a missing bucket, bad credentials, an unreachable
    endpoint), a missing input (local or remote), a run id already used (without
    ``--resume``/``--overwrite``), a run to resume that was started differently.
    :class:`NothingToResume` when ``resume`` finds the run already finished.

    ``input_base`` is the folder or URL relative entries of path lists are taken from
    (Common Crawl's ``warc.paths.gz`` with ``https://data.commoncrawl.org/``); ``engine``
    (where the tasks run: ``{"engine": "spark", "master": ...}``) is kept in the config."""
    storage = storage or Storage()
    out = normalize(str(out))
    if workers is not None and workers < 1:
        raise RunRefused(f"--workers {workers}: at least 1")
    if run_id is not None:
        validate_run_id(run_id)
    if resume and overwrite:
        raise RunRefused("--resume and --overwrite contradict each other: choose one")
    if overwrite and run_id is None:
        raise RunRefused("--overwrite needs --run-id (the run to replace)")
    _check_out(storage, out)
    try:
        expanded = expand_inputs(inputs, exclude=out, storage=storage, input_base=input_base)
    except (ValueError, OSError) as exc:
        raise RunRefused(storage.scrub(str(exc))) from None
    if expanded.missing and not allow_missing:
        shown = "; ".join(f"{storage.scrub(m.input)}: {storage.scrub(m.reason)}"
                          for m in expanded.missing)
        raise RunRefused(f"inputs not found: {shown} (--allow-missing runs the rest)")
    files = expanded.files
    if not files:
        raise RunRefused("no input files" + (f" in {', '.join(map(redact_url, inputs))}"
                                             if inputs else ""))
    shown_files = [redact_url(path) for path in files]
    try:
        if resume:
            run_id = _find_run_to_resume(storage, out, shown_files, rules, run_id)
        elif run_id is not None and not overwrite and RunDir(storage, out, run_id).exists():
            raise RunRefused(
                f"run {run_id} already exists in {out}: add --resume to continue it, or "
                "--overwrite to replace it"
            )
    except StorageError as exc:
        raise RunRefused(f"--out {out}: {exc}") from None
    if run_id is None:
        digest = hashlib.sha256(json.dumps([shown_files, rules.version]).encode()).hexdigest()
        run_id = new_run_id(digest)
    root = input_root([redact_url(item) for item in inputs], shown_files,
                      redact_url(input_base) if input_base else None)
    skipped = tuple((redact_url(s.path), s.reason) for s in expanded.skipped)
    missing = tuple((storage.scrub(m.input), storage.scrub(m.reason)) for m in expanded.missing)
    config = {
        "run_id": run_id,
        "started_at": datetime.now(UTC).isoformat(),
        "inputs": shown_files,
        "input_base": redact_url(input_base) if input_base else None,
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
    }
    return RunPlan(
        out=out, run_id=run_id, files=tuple(files), rules=rules, config=config,
        workers=workers or os.cpu_count() or 1, columns=tuple(sorted((columns or {}).items())),
        strict=strict, resume=resume, overwrite=overwrite, skipped_inputs=skipped,
        missing_inputs=missing, storage=storage, input_root=root,
    )


def _check_out(storage: Storage, out: str) -> None:
    if is_url(out):
        if not is_remote(out):
            raise RunRefused(f"--out {redact_url(out)}: not a supported storage URL")
        if scheme_of(out) in ("http", "https"):
            raise RunRefused(f"--out {redact_url(out)}: http(s) is read-only; write to a "
                             "local path or an object store")
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


def _runs_in(storage: Storage, out: str) -> list[tuple[str, dict[str, Any]]]:
    """Every run in ``out`` with its config, newest first; :class:`MetadataError` for a
    corrupt one."""
    runs = []
    for name, is_dir in storage.list_dir(join(out, "_runs")):
        rundir = RunDir(storage, out, name)
        if is_dir and storage.is_file(rundir.config):
            data = rundir.read_json(rundir.config)
            if not isinstance(data, dict):
                raise MetadataError(f"{rundir.config}: not a run's config; remove the run "
                                    "with --overwrite")
            runs.append((name, data))
    runs.sort(key=lambda run: (str(run[1].get("started_at", "")), run[0]), reverse=True)
    return runs


def _find_run_to_resume(
    storage: Storage, out: str, files: list[str], rules: Rules, run_id: str | None
) -> str:
    """The run ``--resume`` continues; :class:`NothingToResume` or :class:`RunRefused` why
    there is none."""
    if run_id is not None:
        rundir = RunDir(storage, out, run_id)
        if not storage.exists(rundir.config):
            return run_id  # not started yet: --resume --run-id X runs X to the end, once
        data = rundir.read_json(rundir.config)
        if not isinstance(data, dict):
            raise MetadataError(f"{rundir.config}: not a run's config; remove the run with "
                                "--overwrite")
        if data.get("inputs") != files or data.get("rules_version") != rules.version:
            raise RunRefused(
                f"run {run_id} in {out} was started with other inputs or rules: resume it "
                "with the same ones, or --overwrite it"
            )
        if rundir.is_finished():
            raise NothingToResume(f"run {run_id} in {out} has finished; nothing to resume")
        return run_id
    same = [(rid, data) for rid, data in _runs_in(storage, out)
            if data.get("inputs") == files and data.get("rules_version") == rules.version]
    if not same:
        raise RunRefused(
            f"nothing to resume: {out} holds no run of these inputs and rules "
            "(drop --resume to start one)"
        )
    newest, _ = same[0]
    if RunDir(storage, out, newest).is_finished():
        raise NothingToResume(
            f"the newest run of these inputs and rules in {out}, {newest}, has finished; "
            "nothing to resume (drop --resume to start a new run)"
        )
    return newest
