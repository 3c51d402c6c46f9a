"""The Common Crawl metadata payload's JSON read by the decoder's scanner: the same value as
``json.loads``, or the same kind of failure, whatever the bytes; and the join's window when
the reader under it fails."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.sources.ccmeta import CcMetadataError, _json, join_metadata, parse_cc_metadata
from pipeline.sources.record import RawRecord

_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10)


def _outcome(fn: object, raw: bytes) -> tuple[str, object]:
    try:
        return "value", fn(raw)  # type: ignore[operator]
    except (ValueError, RecursionError) as exc:
        return "error", type(exc)


@given(st.dictionaries(st.text(max_size=8), _VALUES, max_size=4),
       st.sampled_from(["", " ", "\r\n", "x", "{", "}", "\x00"]), st.booleans())
@settings(max_examples=400, deadline=None)
def test_objects_read_as_json_loads_reads_them(obj: dict, tail: str, compact: bool) -> None:
    text = json.dumps(obj, separators=(",", ":") if compact else None, ensure_ascii=False)
    raw = (text + tail).encode()
    assert _outcome(_json, raw) == _outcome(json.loads, raw)


@given(st.binary(max_size=40).map(lambda b: b"{" + b))
@settings(max_examples=400, deadline=None)
def test_any_bytes_after_a_brace_fail_or_pass_as_json_loads(raw: bytes) -> None:
    ours, theirs = _outcome(_json, raw), _outcome(json.loads, raw)
    if ours[0] == "value" and isinstance(ours[1], float) and math.isnan(ours[1]):
        return  # (NaN is unequal to itself)
    assert ours == theirs


def test_the_languages_of_a_real_payload_and_an_unreadable_one() -> None:
    block = (b"fetchTimeMs: 258\r\ncharset-detected: windows-1252\r\nlanguages-cld2: "
             b'{"reliable":true,"text-bytes":6513,"languages":[{"code":"an","code-iso-639-3":"arg",'
             b'"text-covered":0.97},{"code":"es","code-iso-639-3":"spa","text-covered":0.02}]}\r\n')
    assert parse_cc_metadata(block) == ("windows-1252", "arg,spa")
    with pytest.raises(CcMetadataError, match="not JSON"):
        parse_cc_metadata(b'languages-cld2: {"languages": [}\r\n')
    with pytest.raises(CcMetadataError, match="not JSON"):
        parse_cc_metadata(b'languages-cld2: {"languages": []} trailing\r\n')


def test_records_read_before_a_reader_failure_are_passed_on_before_it() -> None:
    """A reader that raises (a bug) loses the rest of its file, not the records the join's
    window was holding: they come out, in order, and then the failure."""
    records = [RawRecord("f.warc", i, 10, f"<urn:{i}>", rtype, "http://a.test/", None, b"x")
               for i, rtype in enumerate(["request", "response", "request", "response"])]

    def failing_reader():  # type: ignore[no-untyped-def]
        yield from records
        raise RuntimeError("the reader's bug")

    out: list[object] = []
    with pytest.raises(RuntimeError, match="the reader's bug"):
        for item in join_metadata(failing_reader()):
            out.append(item)
    assert out == records
