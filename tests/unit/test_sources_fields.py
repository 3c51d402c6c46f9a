"""What the fast path reads of a WARC record's header (pipeline/sources/_fields.c) against
its oracle, ``tests/oracles/warc_fields.py``: the same values and size for any
header list (repeated names, any case, non-ASCII keys, one of which lowers into ASCII), the
same refusals (line breaks, U+FFFD in a value read), and loud failures for arguments outside
the contract."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.native import fields
from pipeline.sources import fast
from tests.oracles.warc_fields import warc_fields as reference

# Names with a "k" and an "i": U+212A KELVIN SIGN lowers to "k", U+0130 to "i" + U+0307.
warc_fields = fields.warc_fields
_NAMES = (*fast.FIELDS, "kind", "link")


@st.composite
def _key(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["name", "kelvin", "text", "ascii"]))
    if kind == "name":
        name = draw(st.sampled_from(_NAMES))
        upper = draw(st.lists(st.booleans(), min_size=len(name), max_size=len(name)))
        return "".join(c.upper() if up else c for c, up in zip(name, upper, strict=True))
    if kind == "kelvin":
        return draw(st.sampled_from(["\u212aind", "lin\u212a", "L\u0130NK", "WARC-T\u0130pe"]))
    if kind == "ascii":
        return draw(st.text(st.characters(max_codepoint=127), max_size=12))
    return draw(st.text(max_size=12))


_VALUE = st.text(max_size=6) | st.sampled_from(["http://\ufffd/", "caf\u00e9", "a\nb", "\r", ""])
_ITEMS = st.lists(st.tuples(_key(), _VALUE), max_size=14)


@settings(max_examples=800, deadline=None)
@given(_ITEMS, st.lists(st.sampled_from(_NAMES), unique=True, max_size=12).map(tuple))
def test_same_answer_as_the_reference(items: list, names: tuple[str, ...]) -> None:
    expected = reference(items, names)
    assert warc_fields(items, names) == expected
    assert warc_fields(tuple(items), names) == expected


def test_first_occurrence_any_case_a_non_ascii_key_and_the_size() -> None:
    items = [("content-TYPE", "a"), ("Content-Type", "b"), ("\u212aind", "k\u00e9"), ("kind", "no")]
    size = sum(len(k.encode()) + len(v.encode()) + 4 for k, v in items)
    expected = ("a", "k\u00e9", None, size)
    assert warc_fields(items, ("content-type", "kind", "warc-type")) == expected
    assert reference(items, ("content-type", "kind", "warc-type")) == expected


@pytest.mark.parametrize("items", [
    [("WARC-Type", "response\nWARC-Target-URI: http://a/")],  # a bare LF: warcio ends the line
    [("X-Anything", "a\r")],
    [("X\nY", "a")],
    [("WARC-Target-URI", "http://a.test/\ufffd")],  # bytes that were not UTF-8
])
def test_headers_the_careful_reader_could_read_otherwise_are_refused(items: list) -> None:
    assert warc_fields(items, fast.FIELDS) is None
    assert reference(items, fast.FIELDS) is None


def test_a_replacement_character_in_a_field_not_read_is_kept() -> None:
    items = [("X-Other", "\ufffd"), ("WARC-Type", "response")]
    assert warc_fields(items, ("warc-type",)) == ("response", 7 + 3 + 4 + 9 + 8 + 4)


def test_the_headers_fastwarc_reads() -> None:
    from fastwarc.warc import ArchiveIterator

    data = (b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: http://a.test/\r\n"
            b"warc-target-uri: http://b.test/\r\nWARC-Record-ID: <urn:x>\r\n"
            b"X-Bytes: \xff\xc3\r\nContent-Length: 2\r\n\r\nab\r\n\r\n")
    [items] = [rec.headers.items() for rec in ArchiveIterator(io.BytesIO(data), parse_http=False)]
    header = data[len(b"WARC/1.1\r\n"):data.index(b"\r\n\r\n") + 2]
    assert warc_fields(items, fast.FIELDS) == reference(items, fast.FIELDS)
    # the lines' size is the header's own here, but for X-Bytes: two bytes, each now U+FFFD
    assert warc_fields(items, ("warc-target-uri",)) == ("http://a.test/", len(header) + 2 * 2)
    assert warc_fields(items, ("x-bytes",)) is None


@pytest.mark.parametrize(("items", "names", "error"), [
    ([("a", "1")], ("A",), ValueError),  # a name must be lowercase: "A" is never a lowered key
    ([("a", "1")], ("\u00e9",), ValueError),  # and ASCII
    ([("a", "1")], tuple(f"n{i}" for i in range(33)), ValueError),
    ([("a", "1", "2")], ("a",), TypeError),
    ([["a", "1"]], ("a",), TypeError),
    ([(b"a", "1")], ("a",), TypeError),
    ([("a", 1)], ("a",), TypeError),
    (5, ("a",), TypeError),
    ([("a", "1")], ["a"], TypeError),
    ([("a", "\ud800")], ("a",), UnicodeEncodeError),  # a lone surrogate has no UTF-8
])
def test_arguments_outside_the_contract_fail_loudly(items: object, names: object,
                                                     error: type[Exception]) -> None:
    with pytest.raises(error):
        warc_fields(items, names)


def test_a_str_subclass_key_is_refused() -> None:
    class Lowers(str):
        def lower(self) -> str:
            return "a"

    with pytest.raises(TypeError):
        warc_fields([(Lowers("B"), "1")], ("a",))
