"""Read back what a run wrote, on a local disk or in a store, to compare two runs row by row."""

from __future__ import annotations

import json
from typing import Any

import pyarrow.parquet as pq

from pipeline.runners.rundir import TABLES, RunDir
from pipeline.sources.roots import located_path
from pipeline.storage import Storage, join

#: runs columns that differ between two runs of the same inputs whatever they did (how long,
#: what was lost and tried again on the way; the input root says where the files were read
#: from).
RUN_MOMENTS = ("run_id", "started_at", "finished_at", "seconds", "config", "attempts_lost",
               "executors_lost", "input_root")
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


def _as_set(value: Any) -> Any:
    """A list in a canonical order; anything else as it is."""
    return sorted(value, key=json.dumps) if isinstance(value, list) else value


def committed_parts(storage: Storage, out: str, table: str, run_id: str) -> list[str]:
    """Every part file of ``table`` for ``run_id`` (names as a reader lists them)."""
    folder = RunDir(storage, out, run_id).partition(table)
    return [join(folder, name) for name, is_dir in storage.list_dir(folder)
            if not is_dir and name.endswith(".parquet") and not name.startswith(".")]


def table_rows(storage: Storage, out: str, run_id: str, *roots: str) -> dict[str, list[str]]:
    """Every table's rows of one run, sorted, as JSON text: run ids and timestamps left out,
    input roots replaced by ``<root>``; the ``runs`` row keeps the config keys that describe
    what was decoded. A ``warc_filename`` is compared as the file it names (the run's input
    root joined with it), so runs that read the same files from two places compare equal."""
    found: dict[str, list[str]] = {}
    tables = {}
    for table in TABLES:
        rows = []
        for path in committed_parts(storage, out, table, run_id):
            with storage.open_read(path, random_access=True) as fh:
                rows.extend(pq.read_table(fh).to_pylist())
        tables[table] = rows
    input_root = next((row.get("input_root") for row in tables["runs"]), None)
    for table, rows in tables.items():
        shown = []
        for row in rows:
            if "warc_filename" in row and row["warc_filename"] is not None:
                row = {**row, "warc_filename": located_path(input_root, row["warc_filename"])}
            if table == "runs":
                config = json.loads(row["config"])
                row = {k: v for k, v in row.items() if k not in RUN_MOMENTS}
                row["config"] = {k: config.get(k) for k in CONFIG_DECODING}
            else:
                row = {k: v for k, v in row.items() if k != "run_id"}
            row = _relocated(row, roots)
            if table == "runs":
                # Inputs are sorted by their full names, so two roots can sort either way
                # round (a checkout beside the corpus, a bucket's two prefixes): compare
                # the relocated lists as sets.
                row = {k: _as_set(v) for k, v in row.items()}
                row["config"] = {k: _as_set(v) for k, v in row["config"].items()}
            shown.append(json.dumps(row, sort_keys=True, default=str))
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
        if len(extra) == len(lacking) == 1:  # one row differs: name what differs in it
            lines += [f"  {key}: {mine_value[:300]} != {their_value[:300]}"
                      for key, mine_value, their_value in _fields_apart(extra[0], lacking[0])]
            continue
        lines += [f"  only here: {row[:1500]}" for row in extra[:shown]]
        lines += [f"  only expected: {row[:1500]}" for row in lacking[:shown]]
        if not extra and not lacking:
            lines.append("  the same rows, some of them more often on one side")
    return "\n".join(lines)


def _fields_apart(mine: str, theirs: str, prefix: str = "") -> list[tuple[str, str, str]]:
    """The (dotted key, value here, value expected) of two JSON rows that differ."""
    a, b = json.loads(mine), json.loads(theirs)
    apart = []
    for key in sorted(set(a) | set(b)):
        x, y = a.get(key), b.get(key)
        if x == y:
            continue
        if isinstance(x, dict) and isinstance(y, dict):
            apart += _fields_apart(json.dumps(x), json.dumps(y), f"{prefix}{key}.")
        else:
            apart.append((f"{prefix}{key}", json.dumps(x), json.dumps(y)))
    return apart
