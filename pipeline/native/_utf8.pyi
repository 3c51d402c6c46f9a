"""Typed interface of ``pipeline/encoding/_utf8.c`` (imported through :mod:`pipeline.native`
only)."""

from _typeshed import ReadableBuffer

def encode(text: str, /) -> bytes | None:
    """``text.encode("utf-8")``; None when it holds a lone surrogate."""

def counts(data: ReadableBuffer, /) -> tuple[int, int]:
    """(non-ASCII code points, errors) of the WHATWG UTF-8 decoder over ``data``."""
