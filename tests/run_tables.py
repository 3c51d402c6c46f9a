"""Read back what a run wrote, on a local disk or in a store, to compare two runs row by row."""

from __future__ import annotations

import json
from typing import Any

import pyarrow.parquet as pq

from pipeline.runners.rundir import TABLES, RunDir
from pipeline.storage import Storage, join

#: runs columns that differ between two runs of the same inputs whatever they did.
RUN_MOMENTS = ("run_id", "started_at", "finished_at", "seconds", "config")
#: config keys that describe what was decoded (the rest: where, when and how it ran).
CONFIG_DECODING = ("inputs", "rules", "rules_version", "rules_sha256", "skipped_inputs",
                   "missing_inputs", "columns", "pipeline_version")


def _relocated(value: Any, roots: tuple[str, ...]) -> Any:
    """``value`` with each input root replaced by ``<root>`` (a local run and an S3 run read
    the same files from different places)."""
    if isinstance(value, str):
        for root in roots:
            value = value.replace(root.rstrip("/") + "/", "<root>/")
        return value
    if isinstance(value, list):
        return [_relocated(v, roots) for v in value]
    if isinstance(value, dict):
        return {k: _relocated(v, roots) for k, v in value.items()}
    return value


def committed_parts(storage: Storage, out: str, table: str, run_id: str) -> list[str]:
    """Every part file of ``table`` for ``run_id`` (names as a reader lists them)."""
    folder = RunDir(storage, out, run_id).partition(table)
    return [join(folder, name) for name, is_dir in storage.list_dir(folder)
            if not is_dir and name.endswith(".parquet") and not name.startswith(".")]


def table_rows(storage: Storage, out: str, run_id: str, *roots: str) -> dict[str, list[str]]:
    """Every table's rows of one run, sorted, as JSON text: run ids and timestamps left out,
    input roots replaced by ``<root>``; the ``runs`` row keeps the config keys that describe
    what was decoded."""
    found: dict[str, list[str]] = {}
    for table in TABLES:
        rows = []
        for path in committed_parts(storage, out, table, run_id):
            with storage.open_read(path, random_access=True) as fh:
                rows.extend(pq.read_table(fh).to_pylist())
        shown = []
        for row in rows:
            if table == "runs":
                config = json.loads(row["config"])
                row = {k: v for k, v in row.items() if k not in RUN_MOMENTS}
                row["config"] = {k: config.get(k) for k in CONFIG_DECODING}
            else:
                row = {k: v for k, v in row.items() if k != "run_id"}
            shown.append(json.dumps(_relocated(row, roots), sort_keys=True, default=str))
        found[table] = sorted(shown)
    return found


def differences(got: dict[str, list[str]], want: dict[str, list[str]], shown: int = 2) -> str:
    """What differs between two :func:`table_rows` results, for an assertion message: per
    table, the row counts and the first rows only one side has ("" when they are equal)."""
    lines = []
    for table in sorted(set(got) | set(want)):
        mine, theirs = got.get(table, []), want.get(table, [])
        if mine == theirs:
            continue
        lines.append(f"{table}: {len(mine)} rows, expected {len(theirs)}")
        extra = sorted(set(mine) - set(theirs))
        lacking = sorted(set(theirs) - set(mine))
        lines += [f"  only here: {row[:1500]}" for row in extra[:shown]]
        lines += [f"  only expected: {row[:1500]}" for row in lacking[:shown]]
        if not extra and not lacking:
            lines.append("  the same rows, some of them more often on one side")
    return "\n".join(lines)
