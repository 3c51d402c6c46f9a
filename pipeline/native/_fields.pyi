"""Typed interface of ``pipeline/sources/_fields.c`` (imported through :mod:`pipeline.native`
only)."""

from collections.abc import Iterable
from typing import Any

def warc_fields(
    items: Iterable[tuple[str, str]], names: tuple[str, ...], /
) -> tuple[Any, ...] | None:
    """For each lowercase name the value of its first item, then the bytes the header lines
    take; None when the careful reader could read the header otherwise."""
