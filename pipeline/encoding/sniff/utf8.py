"""The project's UTF-8 check for undeclared pages: is this body UTF-8, give or take a few bad bytes?

Not a spec algorithm (browsers never detect UTF-8 on http(s) pages); it decides the ``utf8``
step of the ``standard`` policy and the evidence of the ``repair`` policy. Rules:

- pure ASCII is *not* UTF-8 evidence (every ASCII-compatible encoding reads it the same);
- a body that decodes as UTF-8 without error and has non-ASCII is UTF-8;
- a body whose only defect is a sequence cut off at the very end (a truncated download)
  counts as valid when the bytes before it have non-ASCII UTF-8 of their own;
- otherwise it is UTF-8 when the valid multi-byte sequences outnumber the malformed ones
  at least :data:`MIN_GOOD_PER_BAD` to one: a page that is UTF-8 but for one bad byte stays
  UTF-8 (with ``decode_errors`` counted) instead of being handed to a legacy detector.
  Legacy CJK text forms some valid UTF-8 pairs by chance, but roughly one per two or three
  characters, far below that ratio.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.encoding.decoders import decode

try:
    from pipeline.encoding import _utf8  # type: ignore[attr-defined]
except ImportError:  # built without a compiler: decode and count
    _utf8 = None

#: Valid multi-byte sequences needed per malformed one (see the module docstring).
MIN_GOOD_PER_BAD = 20

_ASCII_BYTES = bytes(range(0x80))


@dataclass(frozen=True, slots=True)
class Utf8Check:
    """The verdict and its evidence."""

    is_utf8: bool
    non_ascii: bool
    multibyte: int  # valid multi-byte sequences
    errors: int  # malformed sequences (a sequence truncated at the end counts)
    truncated_at_end: bool


def check_utf8(body: bytes) -> Utf8Check:
    """Decide whether an undeclared ``body`` is UTF-8.

    >>> check_utf8("café".encode()).is_utf8
    True
    >>> check_utf8(b"plain ascii").is_utf8
    False
    >>> check_utf8("café".encode("cp1252")).is_utf8
    False
    >>> check_utf8("caf\\u00e9 ".encode() * 40 + b"\\xff").errors
    1
    """
    if body.isascii():
        return Utf8Check(False, False, 0, 0, False)
    if _utf8 is not None:
        multibyte, errors = _utf8.counts(body)  # one pass, no str built
        if errors == 0:
            return Utf8Check(True, True, multibyte, 0, False)
        if errors > 1:  # not a lone sequence cut at the end: as utf8_counts below says
            return Utf8Check(errors * MIN_GOOD_PER_BAD <= multibyte, True, multibyte, errors, False)
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


def utf8_counts(body: bytes) -> tuple[int, int]:
    """(valid non-ASCII code points, errors) of the WHATWG UTF-8 decoder on ``body``.

    >>> utf8_counts("é".encode() + b"\\xff\\xe2\\x82")
    (1, 2)
    """
    if _utf8 is not None:
        return _utf8.counts(body)
    result = decode(body, "UTF-8")  # the reference: decode and count
    ascii_count = len(body) - len(body.translate(None, _ASCII_BYTES))
    return max(len(result.text) - ascii_count - result.decode_errors, 0), result.decode_errors
