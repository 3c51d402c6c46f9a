"""The WARC header fields the fast path reads (pipeline/sources/_fields.c) against the
pure-Python reference, ``fast.first_values_python``: the same values for any header list,
repeated names, any case, non-ASCII keys (one of which lowers into ASCII), and loud
failures for arguments outside the contract."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.sources import fast

#: tests of a compiled extension against its reference (deselected without a compiler)
pytestmark = pytest.mark.native

_fields = pytest.importorskip("pipeline.sources._fields")
first_values = _fields.first_values
reference = fast.first_values_python

# Names with a "k" and an "i": U+212A KELVIN SIGN lowers to "k", U+0130 to "i" + U+0307.
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


_ITEMS = st.lists(st.tuples(_key(), st.text(max_size=6) | st.none() | st.integers()), max_size=14)


def test_the_compiled_lookup_is_in_use() -> None:
    assert fast.first_values is first_values


@settings(max_examples=600, deadline=None)
@given(_ITEMS, st.lists(st.sampled_from(_NAMES), unique=True, max_size=12).map(tuple))
def test_same_values_as_the_reference(items: list, names: tuple[str, ...]) -> None:
    expected = reference(items, names)
    assert first_values(items, names) == expected
    assert first_values(tuple(items), names) == expected


def test_first_occurrence_any_case_and_a_non_ascii_key() -> None:
    items = [("content-TYPE", "a"), ("Content-Type", "b"), ("\u212aind", "k"), ("kind", "no")]
    assert first_values(items, ("content-type", "kind", "warc-type")) == ("a", "k", None)
    assert reference(items, ("content-type", "kind", "warc-type")) == ("a", "k", None)


def test_the_headers_fastwarc_reads() -> None:
    import io

    from fastwarc.warc import ArchiveIterator

    data = (b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: http://a.test/\r\n"
            b"warc-target-uri: http://b.test/\r\nWARC-Record-ID: <urn:x>\r\n"
            b"X-Bytes: \xff\xc3\r\nContent-Length: 2\r\n\r\nab\r\n\r\n")
    [items] = [rec.headers.items() for rec in ArchiveIterator(io.BytesIO(data), parse_http=False)]
    assert first_values(items, (*fast.FIELDS, "x-bytes")) == reference(items, (*fast.FIELDS, "x-bytes"))
    assert first_values(items, ("warc-target-uri", "content-length")) == ("http://a.test/", "2")


@pytest.mark.parametrize(("items", "names", "error"), [
    ([("a", 1)], ("A",), ValueError),  # a name must be lowercase: "A" is never a lowered key
    ([("a", 1)], ("\u00e9",), ValueError),  # and ASCII
    ([("a", 1)], tuple(f"n{i}" for i in range(33)), ValueError),
    ([("a", 1, 2)], ("a",), TypeError),
    ([["a", 1]], ("a",), TypeError),
    ([(b"a", 1)], ("a",), TypeError),
    (5, ("a",), TypeError),
    ([("a", 1)], ["a"], TypeError),
])
def test_arguments_outside_the_contract_fail_loudly(items: object, names: object,
                                                     error: type[Exception]) -> None:
    with pytest.raises(error):
        first_values(items, names)


def test_a_str_subclass_key_is_refused() -> None:
    class Lowers(str):
        def lower(self) -> str:
            return "a"

    with pytest.raises(TypeError):
        first_values([(Lowers("B"), 1)], ("a",))
