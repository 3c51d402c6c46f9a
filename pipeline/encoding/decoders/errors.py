"""Codec error handlers that apply the Encoding Standard's error handling inside Python codecs.

A Python multi-byte codec raises at the first byte it cannot decode. Where that codec is proven
to agree with the spec on every sequence it accepts (tests/conformance/test_decoders.py), the
spec's decoder can take over at exactly that position for one step — decode one character or
one error the way the spec does, restoring bytes to the queue as the spec says — and hand
control back to the codec. That is what :func:`register_step_handler` registers.

Errors are counted per thread, between :func:`reset_count` and :func:`take_count`.
"""

from __future__ import annotations

import codecs
import threading
from collections.abc import Callable

#: A spec step: ``step(data, pos) -> (text, new_pos, errors)`` decodes the one character (or
#: the one malformed sequence) that starts at the character boundary ``pos``.
Step = Callable[[bytes, int], tuple[str, int, int]]

_local = threading.local()


def reset_count() -> None:
    """Start counting errors on this thread."""
    _local.errors = 0


def take_count() -> int:
    """Errors counted on this thread since :func:`reset_count`."""
    return int(getattr(_local, "errors", 0))


class ErrorDense(Exception):
    """Raised by a step handler when the input is mostly errors (see :data:`DENSE_ERRORS`)."""


#: (minimum errors, bytes per error): past that many errors, with fewer bytes than this per
#: error so far, a step handler gives up: each call into it from the codec costs ~2 µs, while
#: the pure spec loop spends ~0.5-1 µs per non-ASCII character, so the loop wins when about
#: every other character is an error (measured, see docs/decoders.md).
DENSE_ERRORS = (64, 4)


def register_step_handler(name: str, step: Step) -> str:
    """Register a codec error handler ``name`` that resumes decoding with ``step``.

    Returns ``name`` (for ``bytes.decode(codec, name)``). The handler raises
    :class:`ErrorDense` when errors come thicker than :data:`DENSE_ERRORS`.
    """
    least, per_error = DENSE_ERRORS

    def handler(exc: UnicodeError) -> tuple[str, int]:
        if not isinstance(exc, UnicodeDecodeError):
            raise exc
        text, end, errors = step(exc.object, exc.start)
        count = getattr(_local, "errors", 0) + errors
        _local.errors = count
        if count > least and count * per_error > end:
            raise ErrorDense
        return text, end

    codecs.register_error(name, handler)
    return name


def _count_replace(exc: UnicodeError) -> tuple[str, int]:
    # Like "replace", one U+FFFD per reported malformed sequence, and counted.
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    _local.errors = getattr(_local, "errors", 0) + 1
    return "\ufffd", exc.end


#: ``errors=`` value for codecs whose own malformed-sequence segmentation is the spec's
#: (UTF-16, the single-byte charmaps): replace each with U+FFFD and count it.
COUNT_REPLACE = "redecode-count-replace"
codecs.register_error(COUNT_REPLACE, _count_replace)
