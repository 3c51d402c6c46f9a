"""Typed interface of ``pipeline/http/_head.c`` (imported through :mod:`pipeline.native`
only)."""

#: Bytes of header section read: the field lines past them are dropped.
MAX_HEAD: int
#: Bytes of one field line: a longer line is dropped (Chromium's limit for a whole section).
MAX_FIELD_LINE: int

def parse_head(
    block: bytes, /
) -> tuple[int, bytes, tuple[tuple[bytes, bytes], ...], int, tuple[str, ...]] | None:
    """(status, status line, header fields, body start, notes), or None when ``block`` does
    not start with an HTTP status line."""
