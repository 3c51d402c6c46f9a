"""Typed interface of ``pipeline/http/_head.c`` (imported through :mod:`pipeline.native`
only)."""

def parse_head(
    block: bytes, /
) -> tuple[int, bytes, tuple[tuple[bytes, bytes], ...], int, tuple[str, ...]] | None:
    """(status, status line, header fields, body start, notes), or None when ``block`` does
    not start with an HTTP status line."""
