"""DuckDB over an output directory: register the four tables as views, run the ``sql/`` files.

The SQL never names a path: ``records``, ``links``, ``errors`` and ``runs`` are views over
``getvariable('redecode_out')`` (the one place the output folder is given), and every
``sql/*.sql`` file becomes a view of its own name, so audits can build on each other
(``audit_gates`` reads ``audit_fffd_spikes``). Parameters are DuckDB variables, bound with
``set variable name = ?`` here — never interpolated — and ``set variable`` in the CLI.

``sql/views.sql`` is generated from this module, ``pipeline/schema.py`` and the ``sql/``
files (``python -m pipeline.audit`` rewrites it; a test fails when it is stale), so that
``duckdb -c ".read sql/views.sql" -c "select * from audit_fffd_spikes"`` works on ``out/``.
"""

from __future__ import annotations

import functools
import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from pipeline.encoding.mojibake import MOJIBAKE_THRESHOLD
from pipeline.schema import TABLES

SQL_DIR = Path(__file__).resolve().parent.parent / "sql"
VIEWS_SQL = SQL_DIR / "views.sql"

#: Spike rule defaults for audit_fffd_spikes (a host-day needs this many pages, this share
#: of pages with U+FFFD, and this multiple of its baseline share).
SPIKE_MIN_RECORDS = 5
SPIKE_MIN_RATE = 0.2
SPIKE_RATIO = 3.0

#: Variables and their defaults; ``views.sql`` sets each only when it is not set already.
DEFAULTS: dict[str, str | float | int] = {
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


@dataclass(frozen=True)
class QueryResult:
    """One query's columns and rows."""

    name: str
    columns: list[str]
    rows: list[tuple[Any, ...]]

    def as_dicts(self) -> list[dict[str, Any]]:
        """Rows as dicts keyed by column name."""
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


def sql_files() -> dict[str, str]:
    """Every ``sql/*.sql`` file but ``views.sql``, name -> query text (no trailing ``;``)."""
    return {
        path.stem: path.read_text(encoding="utf-8").strip().rstrip(";")
        for path in sorted(SQL_DIR.glob("*.sql"))
        if path.name != VIEWS_SQL.name
    }


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


def _base_view(table: str, schema: pa.Schema, has_files: bool = True) -> str:
    """A typed view over ``<out>/<table>/run_id=*/part-*.parquet``.

    The runner writes a part for every table, even an empty one; ``has_files=False`` (used by
    ``connect`` when a folder has none) makes the view the typed empty relation alone, since
    ``read_parquet`` fails on a glob without files (``allow_empty`` is DuckDB 2 only).
    """
    typed = ",\n".join(
        f"        cast(null as {_SQL_TYPES[field.type]}) as {field.name}" for field in schema
    )
    columns = ",\n".join(f"        {field.name}" for field in schema)
    if not has_files:
        return f"""create or replace view {table} as
with

typed as (
    select
{typed},
    where false
)

select * from typed;
"""
    return f"""create or replace view {table} as
with

typed as (
    select
{typed},
    where false
),

files as (
    select *
    from read_parquet(
        getvariable('redecode_out') || '/{table}/*/*.parquet',
        hive_partitioning = true,
        hive_types = {{'run_id': 'varchar'}},
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


def _set_default(name: str, value: str | float | int) -> str:
    if isinstance(value, str):
        literal = f"'{value}'"
    elif isinstance(value, float):
        literal = f"cast({value!r} as double)"
    else:
        literal = repr(value)
    return f"set variable {name} = coalesce(\n    getvariable('{name}'),\n    {literal}\n);"


def render_views_sql(tables_without_files: frozenset[str] = frozenset()) -> str:
    """The text of ``sql/views.sql``: variable defaults, table views, one view per file.

    ``tables_without_files`` get an empty typed view instead of a ``read_parquet`` one.
    """
    queries = sql_files()
    parts = [
        "-- Generated by `python -m pipeline.audit` from pipeline/audit.py,",
        "-- pipeline/schema.py and sql/*.sql: do not edit. The output folder",
        "-- defaults to out; to override it, first",
        "--   set variable redecode_out = 'path/to/out';",
        "-- then `.read sql/views.sql`. redecode_run (default: the newest run) and",
        "-- redecode_run_a / redecode_run_b (default: the two newest) pick runs.",
        "",
        *(_set_default(name, value) for name, value in DEFAULTS.items()),
        "",
    ]
    parts += [
        _base_view(table, schema, has_files=table not in tables_without_files)
        for table, schema in TABLES.items()
    ]
    for name in _dependency_order(queries):
        parts.append(f"create or replace view {name} as\n{queries[name]};\n")
    return "\n".join(parts)


def connect(
    out: Path | str,
    *,
    run: str | None = None,
    run_a: str | None = None,
    run_b: str | None = None,
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with every view registered over ``out``.

    ``run`` picks the run the audits look at (default: the newest); ``run_a``/``run_b`` the
    pair a diff compares (default: the two newest).
    """
    con = duckdb.connect()
    bound: dict[str, Any] = {"redecode_out": str(out)}
    bound |= {"redecode_run": run, "redecode_run_a": run_a, "redecode_run_b": run_b}
    for name, value in bound.items():
        if value is not None:
            con.execute(f"set variable {name} = ?", [value])  # name: from the fixed dict
    missing = frozenset(
        table for table in TABLES if not any(Path(out, table).glob("*/*.parquet"))
    )
    con.execute(render_views_sql(missing))
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


def parse_gate(expr: str, known: set[str] | frozenset[str]) -> Gate:
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
    con = duckdb.connect()
    con.execute(render_views_sql(frozenset(TABLES)))
    columns = [column[0] for column in con.execute("select * from audit_gates").description]
    return tuple(column for column in columns if column != "run_id")


def gate_values(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """The selected run's gate values (``audit_gates``' one row; ``run_id`` included)."""
    return query(con, "audit_gates").as_dicts()[0]


def write_views_sql(path: Path = VIEWS_SQL) -> None:
    """Regenerate ``sql/views.sql``."""
    path.write_text(render_views_sql(), encoding="utf-8")


if __name__ == "__main__":
    write_views_sql()
