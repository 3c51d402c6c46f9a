"""row_problem against Arrow itself: a row it accepts always converts to its table's schema,
so a row that would spoil a row group is caught before it is buffered."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.schema import TABLES
from pipeline.sinks.rowcheck import row_problem

# Values of every Python type the pipeline builds rows from, in and out of each column's range.
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**63 - 1, 2**63, -(2**63),
                     2**53, 2**53 + 1, -(2**53) - 1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(["\ud800", "ok\udfff", "caf\u00e9", "\U0001f600"]),
    st.binary(max_size=4),
    st.datetimes(timezones=st.just(UTC)),
    st.datetimes(),
    st.lists(st.text(max_size=3), max_size=2),
    st.dates(),
)


def valid_for(kind: pa.DataType) -> st.SearchStrategy[Any]:
    """Values a column of ``kind`` takes, edges included."""
    if pa.types.is_string(kind):
        return st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=8)
    if pa.types.is_integer(kind):
        bound = 2 ** (kind.bit_width - 1)
        return st.integers(min_value=-bound, max_value=bound - 1)
    if pa.types.is_floating(kind):
        return st.floats(allow_nan=True, allow_infinity=True)
    if pa.types.is_boolean(kind):
        return st.booleans()
    if pa.types.is_timestamp(kind):
        return st.datetimes(timezones=st.just(UTC))
    return st.lists(st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=3))


def arrow_accepts(row: dict[str, Any], schema: pa.Schema) -> bool:
    try:
        pa.Table.from_pylist([row], schema=schema)
    except (pa.ArrowException, OverflowError, TypeError, ValueError):  # UnicodeEncodeError too
        return False
    return True


@pytest.mark.parametrize("table", sorted(TABLES))
@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_a_valid_row_passes_and_an_accepted_row_always_converts(table: str, data: st.DataObject) -> None:
    schema = TABLES[table]
    row = {f.name: data.draw(st.none() | valid_for(f.type), label=f.name) for f in schema}
    assert row_problem(row, schema) is None
    assert arrow_accepts(row, schema), row
    # one column replaced by anything at all: accepted only when Arrow converts it too
    column = data.draw(st.sampled_from(schema.names), label="replaced")
    row[column] = data.draw(VALUES, label="value")
    if row_problem(row, schema) is None:
        assert arrow_accepts(row, schema), row


@pytest.mark.parametrize(
    ("column", "value", "problem"),
    [
        ("fetch_status", 2**31, "fetch_status: 2147483648 does not fit int32"),
        ("warc_record_offset", 2**63, "warc_record_offset: 9223372036854775808 does not fit int64"),
        ("title", "a\ud800b", "title: a lone surrogate (not encodable as UTF-8)"),
        ("declared_conflict", 1, "declared_conflict: int where a boolean belongs"),
        ("fetch_time", "2024-01-01", "fetch_time: str where a time belongs"),
        # a double holds every int up to 2**53 exactly, and Arrow takes no other
        ("mojibake_score", 2**53 + 1, "mojibake_score: 9007199254740993 is not exactly a float64"),
    ],
)
def test_each_way_a_records_row_fails_is_named(column: str, value: object, problem: str) -> None:
    schema = TABLES["records"]
    row: dict[str, Any] = dict.fromkeys(schema.names)
    assert row_problem(row, schema) is None
    assert arrow_accepts({**row, column: value}, schema) is False  # Arrow refuses it as well
    assert row_problem({**row, column: value}, schema) == problem


def test_a_missing_or_unknown_key_is_named() -> None:
    schema = TABLES["links"]
    row: dict[str, Any] = dict.fromkeys(schema.names)
    del row["nofollow"]
    assert row_problem({**row, "extra": 1}, schema) == "missing columns: nofollow; unknown columns: extra"


def test_a_valid_time_passes() -> None:
    schema = TABLES["records"]
    row: dict[str, Any] = {**dict.fromkeys(schema.names), "fetch_time": datetime(2024, 1, 1, tzinfo=UTC)}
    assert row_problem(row, schema) is None and arrow_accepts(row, schema)


def test_an_int_a_double_holds_exactly_passes() -> None:
    schema = TABLES["records"]
    row: dict[str, Any] = {**dict.fromkeys(schema.names), "mojibake_score": -(2**53)}
    assert row_problem(row, schema) is None
    assert arrow_accepts(row, schema)
