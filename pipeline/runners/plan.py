"""Plan a run: check everything that can be checked before anything is written (run id,
``--out``, inputs, a run id already used, what ``--resume`` continues), and resolve what
the run will do. Refusals are :class:`~pipeline.runners.rundir.RunRefused` (exit code 2).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pipeline import __version__
from pipeline.rules import Rules
from pipeline.runners.rundir import (
    MetadataError,
    RunRefused,
    config_path,
    existing_files,
    finished_marker,
    new_run_id,
    read_json,
    validate_run_id,
)
from pipeline.sources.inputs import expand_inputs


class NothingToResume(Exception):
    """``--resume`` found no unfinished run to continue; nothing was written (exit code 0)."""


@dataclass(frozen=True, slots=True)
class RunPlan:
    """A run that passed every check: what :func:`pipeline.runners.local.execute` will do."""

    out: Path
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
) -> RunPlan:
    """Check a run before anything is written; :class:`RunRefused` (exit code 2) names what
    is wrong: a bad run id or ``--out``, a missing input, a run id already used (without
    ``--resume``/``--overwrite``), a run to resume that was started differently.
    :class:`NothingToResume` when ``resume`` finds the run already finished."""
    out = Path(out)
    if workers is not None and workers < 1:
        raise RunRefused(f"--workers {workers}: at least 1")
    if run_id is not None:
        validate_run_id(run_id)
    if resume and overwrite:
        raise RunRefused("--resume and --overwrite contradict each other: choose one")
    if overwrite and run_id is None:
        raise RunRefused("--overwrite needs --run-id (the run to replace)")
    _check_out(out)
    try:
        expanded = expand_inputs(inputs, exclude=str(out))
    except (ValueError, OSError) as exc:
        raise RunRefused(str(exc)) from None
    remote = [m for m in expanded.missing if m.reason.startswith("remote inputs")]
    if remote or (expanded.missing and not allow_missing):
        shown = "; ".join(f"{m.input}: {m.reason}" for m in (remote or expanded.missing))
        hint = "" if remote else " (--allow-missing runs the rest)"
        raise RunRefused(f"inputs not found: {shown}{hint}")
    files = expanded.files
    if not files:
        raise RunRefused("no input files" + (f" in {', '.join(inputs)}" if inputs else ""))
    if resume:
        run_id = _find_run_to_resume(out, files, rules, run_id)
    elif run_id is not None and not overwrite and (
        existing_files(out, run_id) or config_path(out, run_id).exists()
    ):
        raise RunRefused(
            f"run {run_id} already exists in {out}: add --resume to continue it, or "
            "--overwrite to replace it"
        )
    if run_id is None:
        digest = hashlib.sha256(json.dumps([files, rules.version]).encode()).hexdigest()
        run_id = new_run_id(digest)
    skipped = tuple((s.path, s.reason) for s in expanded.skipped)
    missing = tuple((m.input, m.reason) for m in expanded.missing)
    config = {
        "run_id": run_id,
        "started_at": datetime.now(UTC).isoformat(),
        "inputs": files,
        "pipeline_version": __version__,
        "rules_version": rules.version,
        "rules": rules.to_json(),
        "rules_sha256": rules.source_sha256,
        "workers": workers,
        "columns": columns,
        "sources": config_sources or {},
        "skipped_inputs": [{"path": p, "reason": r} for p, r in skipped],
        "missing_inputs": [{"input": i, "reason": r} for i, r in missing],
    }
    return RunPlan(
        out=out, run_id=run_id, files=tuple(files), rules=rules, config=config,
        workers=workers or os.cpu_count() or 1, columns=tuple(sorted((columns or {}).items())),
        strict=strict, resume=resume, overwrite=overwrite, skipped_inputs=skipped,
        missing_inputs=missing,
    )


def _check_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise RunRefused(f"--out {out}: not a folder")
    ancestor = out
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise RunRefused(f"--out {out}: {ancestor} is not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise RunRefused(f"--out {out}: {ancestor} is not writable")


def _runs_in(out: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every run in ``out`` with its config, newest first; :class:`MetadataError` for a
    corrupt one."""
    base = out / "_runs"
    if not base.is_dir():
        return []
    runs = []
    for folder in base.iterdir():
        path = folder / "_run.json"
        if folder.is_dir() and path.exists():
            data = read_json(path)
            if not isinstance(data, dict):
                raise MetadataError(f"{path}: not a run's config; remove the run with --overwrite")
            runs.append((folder.name, data))
    runs.sort(key=lambda run: (str(run[1].get("started_at", "")), run[0]), reverse=True)
    return runs


def _find_run_to_resume(
    out: Path, files: list[str], rules: Rules, run_id: str | None
) -> str:
    """The run ``--resume`` continues; :class:`NothingToResume` or :class:`RunRefused` why
    there is none."""
    if run_id is not None:
        path = config_path(out, run_id)
        if not path.exists():
            return run_id  # not started yet: --resume --run-id X runs X to the end, once
        data = read_json(path)
        if not isinstance(data, dict):
            raise MetadataError(f"{path}: not a run's config; remove the run with --overwrite")
        if data.get("inputs") != files or data.get("rules_version") != rules.version:
            raise RunRefused(
                f"run {run_id} in {out} was started with other inputs or rules: resume it "
                "with the same ones, or --overwrite it"
            )
        if finished_marker(out, run_id).exists():
            raise NothingToResume(f"run {run_id} in {out} has finished; nothing to resume")
        return run_id
    same = [(rid, data) for rid, data in _runs_in(out)
            if data.get("inputs") == files and data.get("rules_version") == rules.version]
    if not same:
        raise RunRefused(
            f"nothing to resume: {out} holds no run of these inputs and rules "
            "(drop --resume to start one)"
        )
    newest, _ = same[0]
    if finished_marker(out, newest).exists():
        raise NothingToResume(
            f"the newest run of these inputs and rules in {out}, {newest}, has finished; "
            "nothing to resume (drop --resume to start a new run)"
        )
    return newest
