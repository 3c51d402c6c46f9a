"""The compiled UTF-8 encoder (pipeline/encoding/_utf8.c ``encode``, ``pipeline.native.utf8``) that hands the parser
its bytes: equal to ``str.encode("utf-8")``, None exactly where that raises."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.extract.document import utf8_of
from pipeline.native import utf8
from tests.oracles import utf8 as oracle

# ASCII markup, Latin-1, 2- and 3-byte BMP characters, astral ones, lone surrogates, and
# runs long enough for the 4,096-unit sample and the 8-unit blocks.
_PIECES = ["<p class='x'>", "text ", "é", "ß", "\u2014", "\u07ff", "\u0800", "日本語", "\uffff",
           "🙂", "\ud800", "\udfff", "a" * 37, "<div>" * 900, "\u2014" * 600]


def _expected(text: str) -> bytes | None:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return None


@given(st.lists(st.sampled_from(_PIECES), max_size=40))
@settings(max_examples=1500, deadline=None)
def test_encode_equals_str_encode(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert utf8.encode(text) == _expected(text)
    assert utf8_of(text) == oracle.utf8_of(text)


@given(st.text(max_size=300))
@settings(max_examples=1500, deadline=None)
def test_encode_on_any_text(text: str) -> None:
    assert utf8.encode(text) == _expected(text)
