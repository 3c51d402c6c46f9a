"""Typed interface of ``pipeline/runners/_malloc.c`` (imported through :mod:`pipeline.native`
only)."""

def set_thresholds(mmap: int, trim: int, /) -> bool:
    """Whether the C library took both as its mmap and trim thresholds (glibc's
    ``M_MMAP_THRESHOLD``, ``M_TRIM_THRESHOLD``; bytes, 0 to ``INT_MAX``)."""
