"""Sources: archived crawls (WARC, ARC, Parquet raw tables) in, :class:`RawRecord` values out.

:func:`iter_records` is the one entry point the runner calls per input file; it never raises
for bad data (an unreadable file or record is yielded as a ``RecordError``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from pipeline.errors import RecordError
from pipeline.sources.archive import iter_archive
from pipeline.sources.ccmeta import join_metadata
from pipeline.sources.record import RawRecord
from pipeline.sources.warc import MAX_BLOCK, MAX_HEADER

__all__ = ["MAX_BLOCK", "MAX_HEADER", "RawRecord", "iter_records"]


def iter_records(
    path: str, *, columns: dict[str, str] | None = None, fileobj: BinaryIO | None = None,
    max_block: int = MAX_BLOCK, max_header: int = MAX_HEADER, max_page: int | None = None,
) -> Iterator[RawRecord | RecordError]:
    """Every record of one input file, in file order, each yielded exactly once as a
    :class:`RawRecord` or a ``RecordError(stage="source")``.

    ``fileobj`` is the input opened by the caller (binary, seekable; read forward, seeked
    back only to recover from damage); without it ``path`` is opened here. Either way
    ``path`` names the file in every record and error. ``max_block`` caps a stored block or
    Parquet body cell (the rules' ``max_decompressed``: longer ones are cut and flagged
    ``cap``); ``max_header`` caps a WARC/ARC header block; ``max_page`` caps a Parquet page's
    decoded size (default ``4 * max_block``: a row group with a bigger page is not read).

    Dispatch: ``.parquet`` files (or any file starting with Parquet's ``PAR1`` magic) are
    read as raw-response tables (``columns`` maps the documented column names to the
    table's own, see :mod:`pipeline.sources.parquet`); everything else as WARC/ARC, plain or
    compressed (the container is recognised from the file's first bytes, see
    :mod:`pipeline.sources.containers`). Common Crawl metadata records are joined to their
    responses (:func:`pipeline.sources.ccmeta.join_metadata`).
    """
    if path.lower().endswith(".parquet") or _starts_with(path, fileobj, b"PAR1"):
        from pipeline.sources.parquet import iter_parquet

        yield from iter_parquet(path, columns=columns, fileobj=fileobj, max_body=max_block,
                                max_page=max_page)
        return
    yield from join_metadata(iter_archive(path, fileobj=fileobj, max_block=max_block,
                                          max_header=max_header))


def _starts_with(path: str, fileobj: BinaryIO | None, magic: bytes) -> bool:
    try:
        if fileobj is not None:
            head = fileobj.read(len(magic))
            fileobj.seek(0)
            return head == magic
        with open(path, "rb") as fh:
            return fh.read(len(magic)) == magic
    except OSError:
        return False  # the archive reader reports the unreadable file
