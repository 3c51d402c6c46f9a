"""Typed interface of ``pipeline/_slots.c`` (imported through :mod:`pipeline.native` only)."""

from typing import Any, TypeVar

_T = TypeVar("_T")

def build(cls: type[_T], setters: tuple[Any, ...], /, *values: Any) -> _T:
    """An instance of ``cls`` with ``setters[i]`` (the class's slot descriptors, in field
    order) set to ``values[i]``."""
