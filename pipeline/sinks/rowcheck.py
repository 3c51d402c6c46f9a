"""Say why a row cannot be written as a row of its table's schema, naming the column.

The checks are what Arrow's conversion refuses, made a little stricter (only the Python
types the pipeline produces): a missing or unknown column, a value of the wrong type, an
integer that does not fit its column, a string with a lone surrogate (not UTF-8 encodable).
``tests/unit/test_rowcheck.py`` checks against Arrow that an accepted row always converts.
The runner converts rows a row group at a time and asks here only about the rows Arrow
refused (to name the problem) and about ``errors`` rows (to make them writable).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from functools import cache
from typing import Any

import pyarrow as pa

_SURROGATE = re.compile("[\ud800-\udfff]")
Check = Callable[[Any], str | None]


def _string(value: Any) -> str | None:
    if type(value) is not str:
        return f"{type(value).__name__} where a string belongs"
    if not value.isascii() and _SURROGATE.search(value) is not None:
        return "a lone surrogate (not encodable as UTF-8)"
    return None


def _integer(bits: int) -> Check:
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1

    def check(value: Any) -> str | None:
        if type(value) is not int:
            return f"{type(value).__name__} where an integer belongs"
        if not low <= value <= high:
            return f"{value} does not fit int{bits}"
        return None

    return check


def _floating(bits: int) -> Check:
    # Arrow takes an int into a floating column only when the type holds it exactly: up to
    # 2**53 in magnitude for a double (its 53-bit significand), 2**24 for a float.
    exact = 2 ** {16: 11, 32: 24, 64: 53}[bits]

    def check(value: Any) -> str | None:
        if type(value) is float:
            return None
        if type(value) is not int:
            return f"{type(value).__name__} where a number belongs"
        if abs(value) > exact:
            return f"{value} is not exactly a float{bits}"
        return None

    return check


def _boolean(value: Any) -> str | None:
    return None if type(value) is bool else f"{type(value).__name__} where a boolean belongs"


def _timestamp(value: Any) -> str | None:
    return None if isinstance(value, datetime) else f"{type(value).__name__} where a time belongs"


def _string_list(value: Any) -> str | None:
    if not isinstance(value, list | tuple):
        return f"{type(value).__name__} where a list belongs"
    for item in value:
        if item is not None and (problem := _string(item)):
            return problem
    return None


def _check_for(field: pa.Field) -> Check:
    kind = field.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return _string
    if pa.types.is_integer(kind) and pa.types.is_signed_integer(kind):
        return _integer(kind.bit_width)
    if pa.types.is_floating(kind):
        return _floating(kind.bit_width)
    if pa.types.is_boolean(kind):
        return _boolean
    if pa.types.is_timestamp(kind):
        return _timestamp
    if pa.types.is_list(kind) and pa.types.is_string(kind.value_type):
        return _string_list
    raise TypeError(f"no row check for column {field.name} of type {kind}")


@cache
def _checks(schema: pa.Schema) -> tuple[frozenset[str], tuple[tuple[str, Check], ...]]:
    return frozenset(schema.names), tuple((f.name, _check_for(f)) for f in schema)


def row_problem(row: dict[str, Any], schema: pa.Schema) -> str | None:
    """Why ``row`` cannot be written as a row of ``schema`` ("column: reason"), or None.

    >>> schema = pa.schema([("fetch_status", pa.int32()), ("title", pa.string())])
    >>> row_problem({"fetch_status": 200, "title": None}, schema) is None
    True
    >>> row_problem({"fetch_status": 2**40, "title": "x"}, schema)
    'fetch_status: 1099511627776 does not fit int32'
    >>> row_problem({"fetch_status": 200, "title": chr(0xD800)}, schema)
    'title: a lone surrogate (not encodable as UTF-8)'
    >>> row_problem({"title": "x", "lang": "en"}, schema)
    'missing columns: fetch_status; unknown columns: lang'
    """
    names, checks = _checks(schema)
    if row.keys() != names:
        missing = sorted(names - row.keys())
        unknown = sorted(row.keys() - names)
        return "; ".join(
            part for part in (
                f"missing columns: {', '.join(missing)}" if missing else "",
                f"unknown columns: {', '.join(unknown)}" if unknown else "",
            ) if part
        )
    for name, check in checks:
        value = row[name]
        if value is not None and (problem := check(value)) is not None:
            return f"{name}: {problem}"
    return None
