"""The base run of an incremental re-decode (``--base-run R``), as the run's plan sees it:
whether the change from R's rules to this run's is local or global (:func:`classify`), and
where each of R's inputs is. The light half of :mod:`pipeline.runners.incremental` (the main
process plans and commits; only the tasks read records).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pipeline.encoding.options import Override
from pipeline.rules import Rules, RulesError, rules_from_json
from pipeline.runners.rundir import MetadataError, RunDir, RunRefused
from pipeline.runners.taskinfo import read_committed
from pipeline.storage import StorageError

ChangeKind = Literal["local", "global"]
@dataclass(frozen=True, slots=True)
class BasePlan:
    """What the new run takes from its base run: the change and, for a local one, the rank
    each of R's inputs had (by name) and R's overrides."""

    run_id: str
    change: ChangeKind
    reasons: tuple[str, ...]  # what changed, one line each
    overrides: tuple[Override, ...] = ()
    ranks: dict[str, int] | None = None

    def to_json(self) -> dict[str, Any]:
        """What the run's config records of it."""
        return {"run_id": self.run_id, "change": self.change, "reasons": list(self.reasons)}


def _describe(override: Override) -> str:
    where = f"host = {override.host}" if override.host else f"url_prefix = {override.url_prefix}"
    return f"{where}, encoding = {override.encoding}, mode = {override.mode}"


def classify(base_config: dict[str, Any], rules: Rules, code: dict[str, str],
             input_root: str | None = None) -> tuple[ChangeKind, list[str], tuple[Override, ...]]:
    """Whether going from the base run (its config) to ``rules``, ``code`` and
    ``input_root`` is a local change, what changed (one line each) and the base run's
    overrides. (Another input root gives every row another ``warc_filename``.)"""
    from pipeline.provenance import code_changes

    reasons = code_changes(base_config.get("code"), code)
    if base_config.get("record_lists"):  # its rows of a file may be a few of the file's
        reasons.append("the base run read record lists (only the records they name)")
    if base_config.get("input_root") != input_root:
        reasons.append(f"input root {base_config.get('input_root')!r} -> {input_root!r}")
    try:
        base = rules_from_json(base_config.get("rules", {}))
    except RulesError as exc:
        return "global", [*reasons, f"the base run's rules do not load here ({exc})"], ()
    before, after = base.to_json(), rules.to_json()
    for section in sorted(set(before) | set(after)):
        old, new = before.get(section, {}), after.get(section, {})
        for key in sorted(set(old) | set(new)):
            if (section, key) != ("encoding", "overrides") and old.get(key) != new.get(key):
                reasons.append(f"{section}.{key}: {old.get(key)!r} -> {new.get(key)!r}")
    if reasons:
        return "global", reasons, base.encoding.overrides
    old_list, new_list = base.encoding.overrides, rules.encoding.overrides
    local = [f"override removed: {_describe(o)}" for o in old_list if o not in new_list]
    local += [f"override added: {_describe(o)}" for o in new_list if o not in old_list]
    if not local and old_list != new_list:
        local.append("overrides reordered")
    return "local", local, old_list


def load_base(rundir: RunDir, rules: Rules, code: dict[str, str],
              input_root: str | None = None) -> BasePlan:
    """The base run ``rundir`` as a :class:`BasePlan` for ``rules`` (and this run's
    ``input_root``); :class:`RunRefused` when it cannot be one (missing, unfinished, its
    metadata unreadable)."""
    storage, run_id = rundir.storage, rundir.run_id
    try:
        if not storage.exists(rundir.config):
            raise RunRefused(f"--base-run {run_id}: no such run in {rundir.out}")
        if not rundir.is_finished():
            raise RunRefused(f"--base-run {run_id}: the run has not finished (finish it with "
                             "--resume first)")
        config = rundir.read_json(rundir.config)
    except StorageError as exc:
        raise RunRefused(f"--base-run {run_id}: {exc}") from None
    if not isinstance(config, dict) or not isinstance(config.get("inputs"), list):
        raise MetadataError(f"{rundir.config}: not a run's config")
    change, reasons, overrides = classify(config, rules, code, input_root)
    if change == "global":
        return BasePlan(run_id, change, tuple(reasons))
    inputs = config["inputs"]
    stats = read_committed(rundir, list(range(len(inputs))))
    ranks = {s.path: rank for rank, s in stats.items()}
    return BasePlan(run_id, change, tuple(reasons), overrides, ranks)
