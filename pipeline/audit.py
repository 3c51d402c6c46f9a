"""DuckDB over an output folder: register the four tables as views, run the SQL files.

The SQL never names a path. :func:`find_parts` is the one place where an output folder
(a local path or a URL, read through :mod:`pipeline.storage`) becomes the part files DuckDB
reads: it lists ``<out>/<table>/run_id=<RUN>/*.parquet`` itself (never a glob built from
user text), keeps only the committed parts of a run that has bookkeeping (a completion
marker per part; an unfinished run is named in ``unfinished``), sets aside every partition
folder or part it cannot read (with the reason), and :func:`connect` hands DuckDB the rest
as an explicit, glob-escaped list, reading a remote store through the fsspec filesystem
registered with the connection (no DuckDB extension is downloaded). :func:`connect` reads
the parts once, into the ``stg_`` tables, within a memory limit (docs/audit.md). Every SQL
file of the ``pipeline.sql`` package (the repository's ``sql/`` folder) becomes a view of its
own name, so audits build on each other (``audit_gates`` reads
``audit_fffd_spikes``). Run choices are DuckDB variables, bound with ``set variable name = ?``
(never interpolated); tunable numbers are macros of the same name that take the session's
variable when it is set, else the default (:data:`SETTINGS`).

``sql/views.sql`` is generated from this module, ``pipeline/schema.py`` and the SQL files
(``python -m pipeline.audit`` rewrites it; a test fails when it is stale), so that
``duckdb -c ".read sql/views.sql" -c "select * from audit_fffd_spikes"`` works on ``out/``,
in memory or in a database file that later sessions open again.
"""

from __future__ import annotations

import functools
import glob as _glob
import importlib.resources
import json
import math
import operator
import os
import re
import secrets
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline import suggest
from pipeline.encoding.mojibake import MOJIBAKE_THRESHOLD
from pipeline.runners.rundir import MARKER_NAME, PART_NAME
from pipeline.schema import FORMER_NAMES, TABLES, is_valid_run_id
from pipeline.storage import Storage, StorageError, is_remote, join

#: Part footers read at once (a remote store answers each after a round trip; a local disk
#: gains little past a few).
READ_THREADS = 16
#: Footers handed to the threads at a time.
READ_BATCH = 1024
#: Part files one query reads into the ``stg_`` tables (:func:`_fill_stage_tables`).
FILL_BATCH = 2000
#: What DuckDB may hold in memory by default (``--memory-limit``); past it, it spills to disk.
MEMORY_LIMIT = "1GB"
#: DuckDB threads at most: reading many small parts gains little past a few, and each
#: thread holds buffers of its own.
MAX_THREADS = 4
#: The tables whose parts a run commits one by one (rank by rank, with a marker each).
COMMITTED_TABLES = ("records", "links", "errors")

#: The SQL files ship inside the package as ``pipeline.sql`` (mapped to ``sql/``).
SQL_DIR = importlib.resources.files("pipeline.sql")
VIEWS_SQL = SQL_DIR / "views.sql"

#: Spike rule defaults for audit_fffd_spikes (a host-day needs this many pages, this share
#: of pages with U+FFFD, and this multiple of its baseline share).
SPIKE_MIN_RECORDS = 5
SPIKE_MIN_RATE = 0.2
SPIKE_RATIO = 3.0

#: Settings and their defaults. Each is a macro ``name()`` in the views: the session's
#: variable ``name`` when set, else this default. Macros, not ``set variable`` defaults,
#: because variables live for one session and a database file keeps the views for the next.
SETTINGS: dict[str, str | float | int] = {
    "redecode_out": "out",
    "redecode_mojibake_threshold": MOJIBAKE_THRESHOLD,
    "redecode_spike_min_records": SPIKE_MIN_RECORDS,
    "redecode_spike_min_rate": SPIKE_MIN_RATE,
    "redecode_spike_ratio": SPIKE_RATIO,
}
#: Variables that have no default (NULL means "the newest run" / "the two newest runs").
RUN_VARIABLES = ("redecode_run", "redecode_run_a", "redecode_run_b")

_SQL_TYPES = {
    pa.string(): "varchar",
    pa.int64(): "bigint",
    pa.int32(): "integer",
    pa.float64(): "double",
    pa.bool_(): "boolean",
    pa.timestamp("us", tz="UTC"): "timestamptz",
    pa.list_(pa.string()): "varchar[]",
}
#: Characters DuckDB's file globbing interprets; each is escaped as a one-character class.
_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True)
class QueryResult:
    """One query's columns and rows."""

    name: str
    columns: list[str]
    rows: list[tuple[Any, ...]]

    def as_dicts(self) -> list[dict[str, Any]]:
        """Rows as dicts keyed by column name."""
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


@dataclass(frozen=True)
class Unreadable:
    """A partition folder or part file the audits leave out, and why.

    ``run_id`` is the run its folder names, when the folder is a valid partition.
    """

    path: str
    run_id: str | None
    reason: str


@dataclass(frozen=True)
class Unfinished:
    """A run whose bookkeeping says it has not finished: only its committed parts count."""

    run_id: str
    committed: int  # input files committed (completion markers)
    inputs: int | None  # input files of the run (from its config), when readable
    uncommitted_parts: int  # part files without a marker, left out


@dataclass(frozen=True)
class Parts:
    """The part files of an output folder that DuckDB can read, per table, and the rest."""

    out: str
    files: dict[str, tuple[str, ...]] = field(default_factory=dict)
    unreadable: tuple[Unreadable, ...] = ()
    unfinished: tuple[Unfinished, ...] = ()
    storage: Storage = field(default_factory=Storage)
    #: each table's files in groups of one column layout (names and types in order), which
    #: DuckDB reads group by group without opening every footer to bind a query; a table
    #: missing here (a ``Parts`` made by hand) is read as one group of mixed layouts
    layouts: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)

    def unreadable_of(self, run_ids: set[str] | frozenset[str]) -> list[Unreadable]:
        """The unreadable parts that belong to one of ``run_ids``."""
        return [item for item in self.unreadable if item.run_id in run_ids]


def find_parts(out: Path | str, storage: Storage | None = None) -> Parts:
    """List the part files under ``out``: the one place an output folder becomes files.

    Only ``<table>/run_id=<RUN>/<name>.parquet`` with a valid run id (``schema.RUN_ID_PATTERN``)
    is read; hidden entries (a writer's temporary files) are passed over. A run with
    bookkeeping (``_runs/<RUN>/_run.json``) counts only the parts it writes
    (``part-<rank>.parquet``; any other ``.parquet`` file in its folders is listed in
    ``unreadable``), a records, links or errors part only when its rank has a completion
    marker: a killed run's half-committed parts are never read, and a run without
    ``_finished`` is listed in ``unfinished``. Anything else in a table
    folder, and every part whose Parquet footer cannot be read, is returned in
    ``unreadable`` with its reason instead of failing every query. Each footer is read once
    and dropped, its columns kept only to group the files by layout (``Parts.layouts``).
    :class:`StorageError` when ``out`` cannot be listed at all.
    """
    storage = (storage or Storage()).snapshot()
    base = str(out) if is_remote(str(out)) else os.path.abspath(out)
    files: dict[str, tuple[str, ...]] = {}
    unreadable: list[Unreadable] = []
    candidates: list[tuple[str, str, str]] = []  # (table, run_id, path)
    for table in TABLES:
        folder = join(base, table)
        for name, is_dir in _entries(storage, folder):
            path = join(folder, name)
            key, sep, run_id = name.partition("=")
            if not is_dir:
                unreadable.append(Unreadable(path, None, "not inside a run_id=<RUN> folder"))
            elif key != "run_id" or not sep:
                unreadable.append(Unreadable(path, None, "not a run_id=<RUN> folder"))
            elif not is_valid_run_id(run_id):
                unreadable.append(Unreadable(
                    path, None, f"run id {run_id!r} is not letters, digits, '-', '_', '.'"
                ))
            else:
                candidates.extend((table, run_id, join(path, part))
                                  for part, part_dir in _entries(storage, path)
                                  if part.endswith(".parquet") and not part_dir)
    commits = _commits(storage, base)
    kept: list[tuple[str, str, str]] = []
    uncommitted: dict[str, int] = {}
    for table, run_id, path in candidates:
        committed = commits.get(run_id)
        match = PART_NAME.fullmatch(path.rpartition("/")[2].rpartition(os.sep)[2])
        if committed is not None and (match is None or (table == "runs"
                                                         and match.group(1) != "00000")):
            # a run with bookkeeping wrote part-<rank>.parquet only: a copy beside one
            # ("part-00000 (copy).parquet") or any other file is not its output, and
            # leaving it out leaves nothing of the run out (run_id None)
            unreadable.append(Unreadable(path, None, f"not a part run {run_id} wrote (a run "
                                         "with bookkeeping writes part-<rank>.parquet only)"))
            continue
        if (committed is not None and table in COMMITTED_TABLES and match is not None
                and int(match.group(1)) not in committed[0]):
            uncommitted[run_id] = uncommitted.get(run_id, 0) + 1
            continue
        kept.append((table, run_id, path))
    # one footer at a time per thread, each schema kept only as the key of its layout
    found: dict[str, dict[pa.Schema, list[str]]] = {table: {} for table in TABLES}
    with ThreadPoolExecutor(READ_THREADS) as pool:
        for start in range(0, len(kept), READ_BATCH):  # a bounded number of futures
            batch = kept[start:start + READ_BATCH]
            read = pool.map(lambda item: _part_schema(storage, item[2]), batch)
            for (table, run_id, path), schema in zip(batch, read, strict=True):
                if isinstance(schema, str):
                    unreadable.append(Unreadable(path, run_id, schema))
                else:
                    found[table].setdefault(schema, []).append(path)
    layouts: dict[str, tuple[tuple[str, ...], ...]] = {}
    for table in TABLES:
        layouts[table] = tuple(tuple(paths) for paths in found[table].values())
        files[table] = tuple(path for paths in layouts[table] for path in paths)
    unfinished = tuple(
        Unfinished(run_id, len(committed), inputs, uncommitted.get(run_id, 0))
        for run_id, (committed, finished, inputs) in sorted(commits.items()) if not finished
    )
    return Parts(out=str(out), files=files, unreadable=tuple(unreadable),
                 unfinished=unfinished, storage=storage, layouts=layouts)


def _commits(storage: Storage, base: str) -> dict[str, tuple[set[int], bool, int | None]]:
    """For each run with bookkeeping (``_runs/<RUN>/_run.json``): its committed ranks,
    whether it finished, and how many inputs its config names. (Tables without bookkeeping,
    copied elsewhere, are read whole.)"""
    found: dict[str, tuple[set[int], bool, int | None]] = {}
    for run_id, is_dir in _entries(storage, join(base, "_runs")):
        if not is_dir or not is_valid_run_id(run_id):
            continue
        meta = join(base, "_runs", run_id)
        names = {name for name, is_dir in _entries(storage, meta) if not is_dir}
        if "_run.json" not in names:
            continue
        ranks = {int(name) for name, is_dir in _entries(storage, join(meta, "_completions"))
                 if not is_dir and MARKER_NAME.fullmatch(name)}
        inputs = None
        if "_finished" not in names:
            try:
                config = json.loads(storage.read_bytes(join(meta, "_run.json")))
                inputs = len(config["inputs"]) if isinstance(config, dict) else None
            except (StorageError, ValueError, KeyError, TypeError):
                inputs = None
        found[run_id] = (ranks, "_finished" in names, inputs)
    return found


def _entries(storage: Storage, folder: str) -> list[tuple[str, bool]]:
    """Non-hidden entries of ``folder`` as ``(name, is_folder)``, by name; none when it is
    missing."""
    return [(name, is_dir) for name, is_dir in storage.list_dir(folder)
            if not name.startswith(".")]


def _part_schema(storage: Storage, path: str) -> pa.Schema | str:
    """The columns of the part at ``path`` (its footer's schema, without metadata), or why
    DuckDB could not read it."""
    if any(char in _GLOB_CHARS for char in path) and "\\" in path:
        return "DuckDB cannot read a path holding both '\\' and glob characters"
    try:
        if is_remote(path):
            with storage.open_read(path, random_access=True) as fh:
                schema = pq.read_schema(fh)
        else:  # a third faster than through a Python file object
            schema = pq.read_schema(path)
    except (OSError, pa.ArrowException) as exc:
        return f"not a readable Parquet file ({exc})"
    return schema.remove_metadata()


def duckdb_path(path: str) -> str:
    """``path`` with DuckDB's glob characters escaped, so it names that one file.

    >>> duckdb_path("/data/g[1]/records/part-00000.parquet")
    '/data/g[[]1]/records/part-00000.parquet'
    >>> duckdb_path("/a*b?/c.parquet")
    '/a[*]b[?]/c.parquet'
    """
    return "".join(f"[{char}]" if char in _GLOB_CHARS else char for char in path)


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def sql_files() -> dict[str, str]:
    """Every SQL file but ``views.sql``, name -> query text (no trailing ``;``)."""
    return {
        entry.name.removesuffix(".sql"): entry.read_text(encoding="utf-8").strip().rstrip(";")
        for entry in sorted(SQL_DIR.iterdir(), key=lambda entry: entry.name)
        if entry.name.endswith(".sql") and entry.name != VIEWS_SQL.name
    }


def check_names() -> list[str]:
    """Every ``check_`` query (each returns offending rows and must return none)."""
    return [name for name in sql_files() if name.startswith("check_")]


def _dependency_order(queries: dict[str, str]) -> list[str]:
    """Names ordered so that each view comes after the views it reads; among ready views,
    by layer (stg, int, audit, check) then name, so the generated file is stable."""
    layers = {"stg": 0, "int": 1, "audit": 2, "check": 3}
    reads = {
        name: {other for other in queries if other != name and re.search(rf"\b{other}\b", text)}
        for name, text in queries.items()
    }
    ordered: list[str] = []
    while len(ordered) < len(queries):
        ready = sorted(
            (name for name in queries if name not in ordered and reads[name] <= set(ordered)),
            key=lambda name: (layers.get(name.split("_", 1)[0], 9), name),
        )
        if not ready:
            raise ValueError(f"sql/ views read each other in a cycle: {sorted(reads)}")
        ordered.append(ready[0])
    return ordered


def _base_view(table: str, schema: pa.Schema, sources: list[tuple[str, bool]]) -> str:
    """A typed view over one table's parts; each of ``sources`` is ``read_parquet``'s first
    argument (a glob expression, a list of files, a variable holding one) and whether its
    files differ in columns (``union_by_name``, which opens every footer each time a query
    is bound); no source when there is no file to read.

    The typed empty relation fixes every column's type and keeps the view valid when some
    column is missing from every file. Columns renamed since (``schema.FORMER_NAMES``) are
    read under their former name from older parts.
    """
    former = FORMER_NAMES.get(table, {})
    typed = [(field.name, _SQL_TYPES[field.type]) for field in schema]
    typed += [(old, _SQL_TYPES[schema.field(new).type]) for new, old in former.items()]
    typed_sql = ",\n".join(f"        cast(null as {kind}) as {name}" for name, kind in typed)
    columns = ",\n".join(
        f"        coalesce({field.name}, {former[field.name]}) as {field.name}"
        if field.name in former else f"        {field.name}"
        for field in schema
    )
    reads = "\n    union all by name\n".join(
        f"""    select *
    from read_parquet(
        {source},
        hive_partitioning = false,
        union_by_name = {str(mixed).lower()}
    )""" for source, mixed in sources)
    if not sources:
        return f"""create or replace view {table} as
with

typed as (
    select
{typed_sql},
    where false
),

final as (
    select
{columns},
    from typed
)

select * from final;
"""
    return f"""create or replace view {table} as
with

typed as (
    select
{typed_sql},
    where false
),

files as (
{reads}
),

unioned as (
    select * from typed
    union all by name
    select * from files
),

final as (
    select
{columns},
    from unioned
)

select * from final;
"""


def _setting_macro(name: str, value: str | float | int) -> str:
    if isinstance(value, str):
        literal = _sql_string(value)
    elif isinstance(value, float):
        literal = f"cast({value!r} as double)"
    else:
        literal = repr(value)
    return (f"create or replace macro {name}() as coalesce(\n"
            f"    getvariable('{name}'),\n    {literal}\n);")


def _groups(parts: Parts, table: str) -> list[tuple[tuple[str, ...], bool]]:
    """``table``'s files in groups, each with whether its files may differ in columns."""
    if table in parts.layouts:
        return [(group, False) for group in parts.layouts[table] if group]
    files = parts.files.get(table, ())
    return [(files, True)] if files else []


def file_variables(parts: Parts) -> dict[str, list[str]]:
    """The DuckDB variables that hold ``parts``' files for :func:`render_views_sql`: one per
    table and column layout, each a list of glob-escaped paths (a table with no part has
    none)."""
    return {f"redecode_parts_{table}_{index}": [duckdb_path(path) for path in group]
            for table in TABLES for index, (group, _) in enumerate(_groups(parts, table))}


def _table_sources(parts: Parts, table: str) -> list[tuple[str, bool]]:
    """``read_parquet``'s first argument for each group of ``table``'s files (the variables
    of :func:`file_variables`), with whether the group's files may differ in columns."""
    return [(f"getvariable('redecode_parts_{table}_{index}')", mixed)
            for index, (_, mixed) in enumerate(_groups(parts, table))]


def render_views_sql(parts: Parts | None = None, *, out: str | None = None,
                     stage_tables: bool = False) -> str:
    """The views over an output folder: setting macros, table views, one view per SQL file.

    ``parts=None`` gives the text of ``sql/views.sql`` (tables read from the folder the
    ``redecode_out`` setting names, ``out`` by default); with ``parts``, the tables read
    exactly those files, from the variables :func:`file_variables` names (set them first).
    ``out`` (what ``redecode sql --out`` prints) makes that folder the default of
    ``redecode_out``, as an absolute path for a local folder, so views kept in a database
    file read the same folder from any working directory. ``stage_tables`` makes each
    ``stg_`` query an empty table of its columns (which :func:`connect` fills) instead of a
    view read again by every query.
    """
    queries = sql_files()
    settings = dict(SETTINGS)
    if out is None:
        header = [
            "-- Generated by `python -m pipeline.audit` from pipeline/audit.py,",
            "-- pipeline/schema.py and sql/*.sql: do not edit. The output folder",
            "-- defaults to out; to read another, first",
            "--   set variable redecode_out = 'path/to/out';",
            "-- then `.read sql/views.sql`. redecode_run (default: the newest run) and",
            "-- redecode_run_a / redecode_run_b (default: the two newest) pick runs.",
            "-- Variables last one session: in a database file that keeps these views,",
            "-- set them again in each session that should not use the defaults.",
        ]
    else:
        folder = out if is_remote(out) else os.path.abspath(out)
        settings["redecode_out"] = duckdb_path(folder.rstrip("/") or "/")
        header = [
            "-- Generated by `redecode sql`: the views over the output folder",
            f"-- {folder}",
            "-- (setting redecode_out in a session reads another). redecode_run (default:",
            "-- the newest run) and redecode_run_a / redecode_run_b (default: the two",
            "-- newest) pick runs.",
        ]
    parts_text = [
        *header,
        "",
        *(_setting_macro(name, value) for name, value in settings.items()),
        "",
    ]
    for table, schema in TABLES.items():
        # read_parquet fails on an empty list or a glob that matches nothing: a table with no
        # part has no source (a run writes no part of a table it has no row of); for a local
        # folder printed by `redecode sql`, one that has no part yet reads as empty until the
        # views are printed again
        if parts is not None:
            sources = _table_sources(parts, table)
        elif out is not None and not is_remote(out) and not _glob.glob(
                os.path.join(_glob.escape(os.path.abspath(out)), table, "*", "*.parquet")):
            sources = []
            parts_text.append(f"-- {table}: no part in this folder yet (a table with no row has "
                              "none); run `redecode sql` again to read the parts written later")
        else:
            sources = [(f"redecode_out() || '/{table}/*/*.parquet'", True)]
        parts_text.append(_base_view(table, schema, sources))
    for name in _dependency_order(queries):
        if stage_tables and name.startswith("stg_"):
            parts_text.append(f"create or replace table {name} as\nselect * from (\n"
                              f"{queries[name]}\n) where false;\n")
        else:
            parts_text.append(f"create or replace view {name} as\n{queries[name]};\n")
    return "\n".join(parts_text)


def _fill_stage_tables(con: duckdb.DuckDBPyConnection, parts: Parts) -> None:
    """Fill each ``stg_<table>`` table (made empty by :func:`render_views_sql`) from
    ``<table>``'s parts, :data:`FILL_BATCH` files a query: DuckDB keeps some state per file a
    query reads until the query ends. A ``stg_`` query reads one table row by row (no
    aggregate, no join), so its rows over the batches are its rows over the whole table;
    the table's view reads the batch meanwhile and every file again after."""
    queries = sql_files()
    for table, schema in TABLES.items():
        stage = f"stg_{table}"
        for files, mixed in _groups(parts, table):
            for start in range(0, len(files), FILL_BATCH):
                batch = [duckdb_path(path) for path in files[start:start + FILL_BATCH]]
                con.execute("set variable redecode_batch = ?", [batch])
                con.execute(_base_view(table, schema, [("getvariable('redecode_batch')", mixed)]))
                con.execute(f"insert into {stage} select * from (\n{queries[stage]}\n)")
        con.execute(_base_view(table, schema, _table_sources(parts, table)))
    con.execute("reset variable redecode_batch")


def connect(
    out: Parts | Path | str,
    *,
    run: str | None = None,
    run_a: str | None = None,
    run_b: str | None = None,
    memory_limit: str = MEMORY_LIMIT,
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with every view registered over an output folder
    (or over the :class:`Parts` :func:`find_parts` listed).

    ``run`` picks the run the audits look at (default: the newest); ``run_a``/``run_b`` the
    pair a diff compares (default: the two newest). DuckDB holds at most ``memory_limit``
    (its size syntax: ``1GB``, ``512MB``) and spills the rest to a temporary folder of its
    own, removed when the connection closes. The ``stg_`` layer is read from the parts once,
    here, into tables every later query reads: each part file is opened once per table
    whatever the number of queries (the settings it uses, the mojibake threshold, are
    those of this moment). ValueError when DuckDB refuses ``memory_limit``.
    """
    parts = out if isinstance(out, Parts) else find_parts(out)
    con = duckdb.connect(config={
        # a temporary folder of its own: DuckDB's default is .tmp in the working directory
        "temp_directory": os.path.join(tempfile.gettempdir(),
                                       f"redecode-duckdb-{secrets.token_hex(8)}"),
        "threads": min(os.cpu_count() or 1, MAX_THREADS),
        "preserve_insertion_order": False,  # no query relies on it; it costs buffers
    })
    try:
        con.execute("set memory_limit = ?", [memory_limit])
    except duckdb.Error as exc:
        con.close()
        raise ValueError(f"memory limit {memory_limit!r} refused: {exc}") from None
    parts.storage.register_duckdb(con, parts.out)
    bound: dict[str, str | list[str] | None] = {
        "redecode_run": run, "redecode_run_a": run_a, "redecode_run_b": run_b,
        **file_variables(parts),
    }
    for name, value in bound.items():
        if value is not None:  # names: fixed, or made of a table name and a number
            con.execute(f"set variable {name} = ?", [value])
    con.execute(render_views_sql(parts, stage_tables=True))
    _fill_stage_tables(con, parts)
    return con


def query(con: duckdb.DuckDBPyConnection, name: str, limit: int | None = None) -> QueryResult:
    """Rows of the view ``name`` (one of ``sql_files()`` or a table)."""
    known = set(sql_files()) | set(TABLES)
    if name not in known:
        raise ValueError(f"unknown query {name!r}; known: {', '.join(sorted(known))}")
    sql = f"select * from {name}" + (" limit ?" if limit is not None else "")
    relation = con.execute(sql, [limit] if limit is not None else [])
    columns = [column[0] for column in relation.description]
    return QueryResult(name=name, columns=columns, rows=relation.fetchall())


def run_ids(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every run id, newest first."""
    return [row[0] for row in con.execute("select run_id from int_run_order order by run_rank")
            .fetchall()]


#: ``--fail-on`` operators; "=" is "==".
_OPERATORS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge, "<=": operator.le, "==": operator.eq, "=": operator.eq,
    "!=": operator.ne, ">": operator.gt, "<": operator.lt,
}
_GATE_RE = re.compile(
    r"\s*(?P<name>[a-z_]+)\s*(?P<op>>=|<=|==|!=|=|>|<)\s*"
    r"(?P<number>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*"
)


@dataclass(frozen=True)
class Gate:
    """A CI gate: fails when ``<gate value> <op> <threshold>`` holds, e.g. ``errors>0``."""

    name: str
    op: str
    threshold: float

    def fails(self, value: float | None) -> bool:
        """Whether the gate value trips the gate (a missing value counts as 0)."""
        return _OPERATORS[self.op](float(value or 0), self.threshold)

    def __str__(self) -> str:
        return f"{self.name}{self.op}{self.threshold:g}"


def parse_gate(expr: str, known: set[str] | frozenset[str] | tuple[str, ...]) -> Gate:
    """Parse ``NAME OP NUMBER`` (no evaluation of anything else); ValueError when malformed or
    when NAME is not one of ``known``.

    >>> parse_gate("mojibake_rate>0.01", {"mojibake_rate"})
    Gate(name='mojibake_rate', op='>', threshold=0.01)
    >>> parse_gate("__import__('os')>0", {"errors"})
    Traceback (most recent call last):
    ...
    ValueError: gate "__import__('os')>0" is not NAME OP NUMBER (OP one of >=, <=, ==, =, !=, >, <)
    """
    match = _GATE_RE.fullmatch(expr)
    if match is None:
        ops = ", ".join(_OPERATORS)
        raise ValueError(f'gate "{expr}" is not NAME OP NUMBER (OP one of {ops})')
    name, threshold = match["name"], float(match["number"])
    if name not in known:
        raise ValueError(f"unknown gate {name!r}; known gates: {', '.join(sorted(known))}")
    if not math.isfinite(threshold):
        raise ValueError(f"gate {expr!r}: threshold must be a finite number")
    return Gate(name=name, op=match["op"], threshold=threshold)


#: Gates computed in Python beside ``sql/audit_gates.sql``'s: ``proposed_rules``, the rules
#: ``redecode suggest-rules`` would propose for the run (its own rules current).
PYTHON_GATES = ("proposed_rules",)


@functools.cache
def gate_names() -> tuple[str, ...]:
    """Every gate ``--fail-on`` accepts: the columns of ``sql/audit_gates.sql`` but run_id,
    and :data:`PYTHON_GATES`."""
    con = connect(Parts(out=""))
    columns = [column[0] for column in con.execute("select * from audit_gates").description]
    return tuple(column for column in columns if column != "run_id") + PYTHON_GATES


def gate_values(con: duckdb.DuckDBPyConnection,
                suggestion: suggest.Suggestion | None = None) -> dict[str, Any]:
    """The selected run's gate values (``audit_gates``' one row, ``run_id`` included, and
    the number of rules ``suggestion`` proposes)."""
    values = query(con, "audit_gates").as_dicts()[0]
    if suggestion is None:
        suggestion = suggest.for_selected_run(con)
    return values | {"proposed_rules": len(suggestion.proposals)}


def parse_checks(names: list[str]) -> list[str]:
    """The ``--check`` names resolved: ``all`` is every check; ValueError names an unknown one.

    >>> parse_checks(["check_runs_known", "check_runs_known"])
    ['check_runs_known']
    >>> parse_checks(["check_nope"])
    Traceback (most recent call last):
    ...
    ValueError: unknown check 'check_nope'; known checks: all, check_accounting_invariant, \
check_decision_complete, check_record_key_unique, check_runs_known
    """
    known = check_names()
    chosen: list[str] = []
    for name in names:
        if name not in known and name != "all":
            raise ValueError(f"unknown check {name!r}; known checks: "
                             f"{', '.join(['all', *known])}")
        chosen += known if name == "all" else [name]
    return sorted(set(chosen), key=chosen.index)


@dataclass(frozen=True)
class Verdict:
    """The gates and checks of one run: values, what was asked, and what failed."""

    values: dict[str, Any]
    gates: tuple[Gate, ...] = ()
    checks: dict[str, QueryResult] = field(default_factory=dict)
    #: the rules ``suggest-rules`` would propose for the run
    suggestion: suggest.Suggestion | None = None

    @property
    def run_id(self) -> str | None:
        """The run the gates were computed for."""
        return self.values.get("run_id")

    @property
    def failed_gates(self) -> list[Gate]:
        """The gates whose value trips them."""
        return [gate for gate in self.gates if gate.fails(self.values[gate.name])]

    @property
    def failed_checks(self) -> list[str]:
        """The checks that returned rows."""
        return [name for name, result in self.checks.items() if result.rows]

    @property
    def passed(self) -> bool:
        """No gate and no check failed."""
        return not (self.failed_gates or self.failed_checks)

    def gate_rows(self) -> list[tuple[str, Any, list[str], bool | None]]:
        """Each gate value of the run: (name, value, the gates asked of it as written,
        whether they passed; None when none was asked)."""
        failed = {str(gate) for gate in self.failed_gates}
        rows: list[tuple[str, Any, list[str], bool | None]] = []
        for name, value in self.values.items():
            if name == "run_id":
                continue
            asked = [str(gate) for gate in self.gates if gate.name == name]
            rows.append((name, value, asked, not failed & set(asked) if asked else None))
        return rows


def evaluate(
    con: duckdb.DuckDBPyConnection, gates: list[Gate] | tuple[Gate, ...] = (),
    checks: list[str] | tuple[str, ...] = (),
) -> Verdict:
    """The selected run's gate values, with ``gates`` and ``checks`` (names) evaluated, and
    the rules ``suggest-rules`` would propose for it."""
    suggestion = suggest.for_selected_run(con)
    return Verdict(values=gate_values(con, suggestion), gates=tuple(gates),
                   checks={name: query(con, name) for name in checks}, suggestion=suggestion)


def write_views_sql(path: Path | None = None) -> None:
    """Regenerate ``sql/views.sql`` (in a source checkout)."""
    target = path or Path(str(VIEWS_SQL))
    target.write_text(render_views_sql(), encoding="utf-8")


if __name__ == "__main__":
    write_views_sql()
