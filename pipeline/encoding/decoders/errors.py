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


def register_step_handler(name: str, step: Step) -> str:
    """Register a codec error handler ``name`` that resumes decoding with ``step``.

    Returns ``name`` (for ``bytes.decode(codec, name)``).
    """

    def handler(exc: UnicodeError) -> tuple[str, int]:
        if not isinstance(exc, UnicodeDecodeError):
            raise exc
        text, end, errors = step(exc.object, exc.start)
        _local.errors = getattr(_local, "errors", 0) + errors
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
