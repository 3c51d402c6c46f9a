"""The oracles of ``pipeline/encoding/_utf8.c``: the UTF-8 check's counts from the project's
own WHATWG UTF-8 decoder (proven against the spec in ``tests/conformance/test_decoders.py``),
the check itself decided from ``str.decode``, and the parser's input as Python encodes it.
"""

from __future__ import annotations

from pipeline.encoding.decoders import decode
from pipeline.encoding.sniff.utf8 import MIN_GOOD_PER_BAD, Utf8Check

_ASCII_BYTES = bytes(range(0x80))


def utf8_counts(body: bytes) -> tuple[int, int]:
    """``counts(body)``: (valid non-ASCII code points, errors) of the WHATWG UTF-8 decoder.

    >>> utf8_counts("é".encode() + b"\\xff\\xe2\\x82")
    (1, 2)
    """
    result = decode(body, "UTF-8")
    ascii_count = len(body) - len(body.translate(None, _ASCII_BYTES))
    return max(len(result.text) - ascii_count - result.decode_errors, 0), result.decode_errors


def check_utf8(body: bytes) -> Utf8Check:
    """:func:`pipeline.encoding.sniff.utf8.check_utf8` from ``str.decode`` and
    :func:`utf8_counts`."""
    if body.isascii():
        return Utf8Check(False, False, 0, 0, False)
    ascii_count = len(body) - len(body.translate(None, _ASCII_BYTES))
    try:
        text = body.decode("utf-8")
        return Utf8Check(True, True, len(text) - ascii_count, 0, False)
    except UnicodeDecodeError as error:
        if (
            error.reason == "unexpected end of data"
            and error.start >= len(body) - 3
            and not body[: error.start].isascii()
        ):
            head = body[: error.start].decode("utf-8")
            return Utf8Check(True, True, len(head) - ascii_count, 1, True)
    multibyte, errors = utf8_counts(body)
    return Utf8Check(errors * MIN_GOOD_PER_BAD <= multibyte, True, multibyte, errors, False)


def utf8_of(text: str) -> bytes:
    """:func:`pipeline.extract.document.utf8_of`: ``text`` as UTF-8, lone surrogates dropped
    (as selectolax encodes a ``str``)."""
    return text.encode("utf-8", "ignore")
