"""DuckDB over an output folder: register the four tables as views, run the SQL files.

The SQL never names a path. :func:`find_parts` is the one place where an output folder
becomes the part files DuckDB reads: it lists ``<out>/<table>/run_id=<RUN>/*.parquet``
itself (never a glob built from user text), sets aside every partition folder or part it
cannot read (with the reason), and :func:`connect` hands DuckDB the rest as an explicit,
glob-escaped list. Every SQL file of the ``pipeline.sql`` package (the repository's ``sql/``
folder) becomes a view of its own name, so audits build on each other (``audit_gates`` reads
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
import importlib.resources
import math
import operator
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.encoding.mojibake import MOJIBAKE_THRESHOLD
from pipeline.schema import FORMER_NAMES, TABLES, is_valid_run_id

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
class Parts:
    """The part files of an output folder that DuckDB can read, per table, and the rest."""

    out: str
    files: dict[str, tuple[str, ...]] = field(default_factory=dict)
    unreadable: tuple[Unreadable, ...] = ()

    def unreadable_of(self, run_ids: set[str] | frozenset[str]) -> list[Unreadable]:
        """The unreadable parts that belong to one of ``run_ids``."""
        return [item for item in self.unreadable if item.run_id in run_ids]


def find_parts(out: Path | str) -> Parts:
    """List the part files under ``out``: the one place an output folder becomes files.

    Only ``<table>/run_id=<RUN>/<name>.parquet`` with a valid run id (``schema.RUN_ID_PATTERN``)
    is read; hidden entries (a writer's temporary files) are passed over; anything else in a
    table folder, and every part whose Parquet footer cannot be read, is returned in
    ``unreadable`` with its reason instead of failing every query.
    """
    base = os.path.abspath(out)
    files: dict[str, tuple[str, ...]] = {}
    unreadable: list[Unreadable] = []
    for table in TABLES:
        found: list[str] = []
        folder = os.path.join(base, table)
        for entry in _entries(folder):
            key, sep, run_id = entry.name.partition("=")
            if not entry.is_dir():
                unreadable.append(Unreadable(entry.path, None, "not inside a run_id=<RUN> folder"))
            elif key != "run_id" or not sep:
                unreadable.append(Unreadable(entry.path, None, "not a run_id=<RUN> folder"))
            elif not is_valid_run_id(run_id):
                unreadable.append(Unreadable(
                    entry.path, None, f"run id {run_id!r} is not letters, digits, '-', '_', '.'"
                ))
            else:
                for part in _entries(entry.path):
                    if not part.name.endswith(".parquet"):
                        continue
                    problem = _part_problem(part.path)
                    if problem:
                        unreadable.append(Unreadable(part.path, run_id, problem))
                    else:
                        found.append(part.path)
        files[table] = tuple(found)
    return Parts(out=str(out), files=files, unreadable=tuple(unreadable))


def _entries(folder: str) -> list[os.DirEntry[str]]:
    """Non-hidden entries of ``folder`` by name; none when it is missing."""
    try:
        with os.scandir(folder) as entries:
            return sorted((e for e in entries if not e.name.startswith(".")),
                          key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []


def _part_problem(path: str) -> str | None:
    """Why DuckDB could not read the part at ``path`` (its footer), or None."""
    if any(char in _GLOB_CHARS for char in path) and "\\" in path:
        return "DuckDB cannot read a path holding both '\\' and glob characters"
    try:
        pq.read_schema(path)
    except (OSError, pa.ArrowException) as exc:
        return f"not a readable Parquet file ({exc})"
    return None


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


def _base_view(table: str, schema: pa.Schema, source: str | None) -> str:
    """A typed view over one table's parts; ``source`` is ``read_parquet``'s first argument
    (a glob expression or a list of files), None when there is no file to read.

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
    if source is None:
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
    select *
    from read_parquet(
        {source},
        hive_partitioning = false,
        union_by_name = true
    )
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


def render_views_sql(parts: Parts | None = None) -> str:
    """The views over an output folder: setting macros, table views, one view per SQL file.

    ``parts=None`` gives the text of ``sql/views.sql`` (tables read from the folder the
    ``redecode_out`` setting names); with ``parts``, the tables read exactly those files.
    """
    queries = sql_files()
    parts_text = [
        "-- Generated by `python -m pipeline.audit` from pipeline/audit.py,",
        "-- pipeline/schema.py and sql/*.sql: do not edit. The output folder",
        "-- defaults to out; to read another, first",
        "--   set variable redecode_out = 'path/to/out';",
        "-- then `.read sql/views.sql`. redecode_run (default: the newest run) and",
        "-- redecode_run_a / redecode_run_b (default: the two newest) pick runs.",
        "-- Variables last one session: in a database file that keeps these views,",
        "-- set them again in each session that should not use the defaults.",
        "",
        *(_setting_macro(name, value) for name, value in SETTINGS.items()),
        "",
    ]
    for table, schema in TABLES.items():
        if parts is None:
            source: str | None = f"redecode_out() || '/{table}/*/*.parquet'"
        elif parts.files.get(table):
            source = "[\n            " + ",\n            ".join(
                _sql_string(duckdb_path(path)) for path in parts.files[table]
            ) + "\n        ]"
        else:
            source = None  # read_parquet fails on an empty list
        parts_text.append(_base_view(table, schema, source))
    for name in _dependency_order(queries):
        parts_text.append(f"create or replace view {name} as\n{queries[name]};\n")
    return "\n".join(parts_text)


def connect(
    out: Parts | Path | str,
    *,
    run: str | None = None,
    run_a: str | None = None,
    run_b: str | None = None,
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with every view registered over an output folder
    (or over the :class:`Parts` :func:`find_parts` listed).

    ``run`` picks the run the audits look at (default: the newest); ``run_a``/``run_b`` the
    pair a diff compares (default: the two newest).
    """
    parts = out if isinstance(out, Parts) else find_parts(out)
    con = duckdb.connect()
    bound = {"redecode_run": run, "redecode_run_a": run_a, "redecode_run_b": run_b}
    for name, value in bound.items():
        if value is not None:
            con.execute(f"set variable {name} = ?", [value])  # name: from the fixed dict
    con.execute(render_views_sql(parts))
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


@functools.cache
def gate_names() -> tuple[str, ...]:
    """Every gate ``--fail-on`` accepts: the columns of ``sql/audit_gates.sql`` but run_id."""
    con = connect(Parts(out=""))
    columns = [column[0] for column in con.execute("select * from audit_gates").description]
    return tuple(column for column in columns if column != "run_id")


def gate_values(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """The selected run's gate values (``audit_gates``' one row; ``run_id`` included)."""
    return query(con, "audit_gates").as_dicts()[0]


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


def evaluate(
    con: duckdb.DuckDBPyConnection, gates: list[Gate] | tuple[Gate, ...] = (),
    checks: list[str] | tuple[str, ...] = (),
) -> Verdict:
    """The selected run's gate values, with ``gates`` and ``checks`` (names) evaluated."""
    return Verdict(values=gate_values(con), gates=tuple(gates),
                   checks={name: query(con, name) for name in checks})


def write_views_sql(path: Path | None = None) -> None:
    """Regenerate ``sql/views.sql`` (in a source checkout)."""
    target = path or Path(str(VIEWS_SQL))
    target.write_text(render_views_sql(), encoding="utf-8")


if __name__ == "__main__":
    write_views_sql()
