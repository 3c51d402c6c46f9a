"""Sources: archived crawls (WARC, ARC, Parquet raw tables) in, :class:`RawRecord` values out.

:func:`iter_records` is the one entry point the runner calls per input file; it never raises
for bad data (an unreadable file or record is yielded as a ``RecordError``).
"""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.errors import RecordError
from pipeline.sources.ccmeta import join_metadata
from pipeline.sources.record import RawRecord
from pipeline.sources.warc import iter_archive

__all__ = ["RawRecord", "iter_records"]


def iter_records(
    path: str, *, columns: dict[str, str] | None = None
) -> Iterator[RawRecord | RecordError]:
    """Every record of one input file, in file order, each yielded exactly once as a
    :class:`RawRecord` or a ``RecordError(stage="source")``.

    Dispatch: ``.parquet`` files (or any file starting with Parquet's ``PAR1`` magic) are
    read as raw-response tables
    (``columns`` maps the documented column names to the table's own, see
    :mod:`pipeline.sources.parquet`); everything else as WARC/ARC, plain or gzipped (the
    container is recognised from the file's first bytes). Common Crawl metadata records are
    joined to their responses (:func:`pipeline.sources.ccmeta.join_metadata`).
    """
    if path.lower().endswith(".parquet") or _starts_with(path, b"PAR1"):
        from pipeline.sources.parquet import iter_parquet

        yield from iter_parquet(path, columns=columns)
        return
    yield from join_metadata(iter_archive(path))


def _starts_with(path: str, magic: bytes) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(len(magic)) == magic
    except OSError:
        return False  # the archive reader reports the unreadable file
