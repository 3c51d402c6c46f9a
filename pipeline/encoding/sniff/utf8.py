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

from pipeline.native import utf8

#: Valid multi-byte sequences needed per malformed one (see the module docstring).
MIN_GOOD_PER_BAD = 20


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
    multibyte, errors = utf8.counts(body)  # one pass, no str built
    if errors == 0:
        return Utf8Check(True, True, multibyte, 0, False)
    if errors == 1 and _cut_at_end(body):
        return Utf8Check(True, True, multibyte, 1, True)
    return Utf8Check(errors * MIN_GOOD_PER_BAD <= multibyte, True, multibyte, errors, False)


def _cut_at_end(body: bytes) -> bool:
    """Whether ``body`` is valid UTF-8 but for a sequence cut off at its very end, after
    non-ASCII UTF-8 of its own (a truncated download).

    >>> _cut_at_end("日本語".encode() + "語".encode()[:2]), _cut_at_end(b"ab" + "語".encode()[:2])
    (True, False)
    """
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as error:
        return (error.reason == "unexpected end of data" and error.start >= len(body) - 3
                and not body[: error.start].isascii())
    return False
