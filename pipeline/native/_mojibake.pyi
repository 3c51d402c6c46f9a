"""Typed interface of ``pipeline/encoding/_mojibake.c`` (imported through
:mod:`pipeline.native` only)."""

from _typeshed import ReadableBuffer

def scan(
    sample: str, base_table: ReadableBuffer, rare_table: ReadableBuffer, /
) -> tuple[int, int, int, int, int, int, int, int, int, list[tuple[int, int]]]:
    """(non-ASCII, CJK, jamo, Hangul, kana, soup letters, Han-space-Han, rare, simplified,
    trigger clusters as (start, end)) of ``sample``; each table holds 65,536 flag bytes."""
