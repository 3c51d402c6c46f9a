"""Frozen records built from C (pipeline/frozen.py, pipeline/_slots.c): the same record as the
dataclass constructor (equal, same hash and repr, still frozen, pickled alike) for each class
built that way, and loud failures when the values do not fit the class."""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import frozen
from pipeline.http import message, response
from pipeline.http.message import ResponseHead
from pipeline.http.response import HttpResponse
from pipeline.sources import fast
from pipeline.sources.record import RawRecord, with_crawler_metadata

#: tests of a compiled extension against its reference (deselected without a compiler)
pytestmark = pytest.mark.native

_TEXT = st.none() | st.text(max_size=20)
_VALUES = st.tuples(
    st.text(max_size=20), st.integers(0, 2**40), st.integers(0, 2**40), st.text(max_size=20),
    st.sampled_from(["response", "request", "metadata"]), _TEXT, _TEXT, st.binary(max_size=50),
    st.none() | st.integers(100, 599), st.none(), _TEXT, _TEXT, _TEXT, _TEXT, st.booleans(), _TEXT,
    _TEXT, st.none() | st.integers(0, 99), _TEXT, _TEXT)


_HEADERS = st.lists(st.tuples(st.binary(max_size=8), st.binary(max_size=8)), max_size=3).map(tuple)
_NOTES = st.lists(st.text(max_size=8), max_size=3).map(tuple)
_RESPONSES = st.tuples(
    st.none() | st.integers(100, 599), _HEADERS, _TEXT, _TEXT, st.booleans(), st.binary(max_size=50),
    st.integers(0, 50), _TEXT, st.none() | st.binary(max_size=20), _TEXT, _TEXT, _NOTES, _NOTES)
_HEADS = st.tuples(st.none() | st.integers(100, 599), st.none() | st.binary(max_size=20), _HEADERS,
                   st.integers(0, 2**20), _NOTES)


def test_the_compiled_builder_is_in_use() -> None:
    assert frozen._slots is not None, "pipeline._slots is not built"
    assert fast._new_record is not RawRecord
    assert response.new_response is not HttpResponse
    assert message._new_head is not ResponseHead


def _same_as_constructed(build: Callable[..., object], cls: type, values: tuple) -> None:
    """``build(*values)`` is ``cls(*values)``: equal, same hash and repr, the same values,
    pickled alike (records cross process pools), and still frozen."""
    built, constructed = build(*values), cls(*values)
    assert type(built) is cls
    assert built == constructed and hash(built) == hash(constructed)
    assert repr(built) == repr(constructed)
    assert dataclasses.astuple(built) == values
    assert pickle.loads(pickle.dumps(built)) == constructed
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(built, dataclasses.fields(cls)[0].name, None)


@given(_RESPONSES)
@settings(max_examples=300, deadline=None)
def test_same_response_as_the_constructor(values: tuple) -> None:
    _same_as_constructed(response.new_response, HttpResponse, values)


@given(_HEADS)
@settings(max_examples=200, deadline=None)
def test_same_head_as_the_constructor(values: tuple) -> None:
    _same_as_constructed(message._new_head, ResponseHead, values)


def test_a_class_the_c_path_cannot_build_exactly_gets_its_constructor() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        x: int

        def __post_init__(self) -> None:
            if self.x < 0:
                raise ValueError("negative")

    @dataclasses.dataclass(frozen=True)
    class Unslotted:
        x: int

    assert frozen.builder(Checked) is Checked
    assert frozen.builder(Unslotted) is Unslotted


@given(_VALUES)
@settings(max_examples=500, deadline=None)
def test_same_record_as_the_constructor(values: tuple) -> None:
    _same_as_constructed(fast._new_record, RawRecord, values)


def test_a_missing_or_extra_value_is_an_error() -> None:
    values = ("f", 0, 1, "id", "response", None, None, b"", None, None, None, None, None, None,
              False, None, None, None, None, None)
    assert fast._new_record(*values) == RawRecord(*values)
    with pytest.raises(TypeError):
        fast._new_record(*values[:-1])
    with pytest.raises(TypeError):
        fast._new_record(*values, None)


@given(_VALUES, _TEXT, _TEXT)
@settings(max_examples=200, deadline=None)
def test_with_crawler_metadata_is_replace(values: tuple, charset: str | None,
                                          languages: str | None) -> None:
    original = RawRecord(*values)
    built = with_crawler_metadata(original, charset, languages)
    assert built == dataclasses.replace(original, crawler_charset=charset,
                                        content_languages=languages)
    assert type(built) is RawRecord and original == RawRecord(*values)
