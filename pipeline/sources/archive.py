"""Open one WARC/ARC file and choose its reader: FastWARC's fast path for WARC in the
containers FastWARC reads (plain, gzip, zstd, LZ4), the careful reader for the rest (ARC
files are found out by FastWARC refusing them, bzip2 is read carefully throughout).

Works from a binary file object opened by the caller (``fileobj``); the path is then only
the locator name written with each record. The file is read forward; a backward seek
happens at the start (after the magic number is read) and on recovery paths only.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO, Literal

from pipeline.errors import ErrorType, RecordError
from pipeline.sources.containers import (
    BZIP2,
    MAX_ZSTD_DICTIONARY,
    ZSTD_DICT_MAGIC,
    Codec,
    DictionaryError,
    read_zstd_dictionary,
    skippable_frame_size,
    sniff_codec,
    zstd_codec,
)
from pipeline.sources.fast import iter_fast
from pipeline.sources.record import RawRecord
from pipeline.sources.warc import MAX_BLOCK, MAX_HEADER, read_careful

Reader = Literal["auto", "careful"]


def _err(name: str, error_type: ErrorType, message: str) -> RecordError:
    return RecordError(stage="source", error_type=error_type, message=message, warc_filename=name)


def iter_archive(path: str, *, fileobj: BinaryIO | None = None, max_block: int = MAX_BLOCK,
                 max_header: int = MAX_HEADER, reader: Reader = "auto",
                 ) -> Iterator[RawRecord | RecordError]:
    """Every record of a WARC/ARC file as a :class:`RawRecord`, or a ``RecordError``.

    ``fileobj`` is the open file (binary, seekable); without it ``path`` is opened here.
    ``max_block`` caps a kept block (longer ones are cut, ``block_truncation="cap"``),
    ``max_header`` a WARC/ARC header block (``source-header-too-long``). ``reader="careful"``
    skips the FastWARC fast path (the two give the same records; tests compare them).

    Never raises for bad data: an unreadable file gives one ``RecordError`` with offset
    None, and so does a file in which not one record could be found (a PDF, random bytes:
    the errors met on the way are summed up in that one); a broken record gives a
    ``RecordError`` at its offset and reading resumes at the next record that can be found.
    Records come in file order; Common Crawl metadata is not joined here (see
    :func:`pipeline.sources.ccmeta.join_metadata`).
    """
    yield from _file_level(path, _iter_archive(path, fileobj, max_block, max_header, reader))


#: Errors held back while no record has been found yet (a file that is not an archive at
#: all produces a few); past this many the file is treated as an archive with bad records.
MAX_LEADING_ERRORS = 100


def _file_level(path: str, items: Iterator[RawRecord | RecordError]
                ) -> Iterator[RawRecord | RecordError]:
    """``items``, except that when not one record is found, the errors met are one
    file-level ``RecordError`` (offset None): the file was not an archive."""
    held: list[RecordError] | None = []
    for item in items:
        if (held is not None and isinstance(item, RecordError) and item.offset is not None
                and len(held) < MAX_LEADING_ERRORS):
            held.append(item)
            continue
        if held:
            yield from held
        held = None
        yield item
    if held:
        first = held[0]
        more = f" (and {len(held) - 1} more errors)" if len(held) > 1 else ""
        yield RecordError(first.stage, first.error_type,
                          f"no record found in the file: at byte {first.offset}: "
                          f"{first.message}{more}", path)


def file_codec(fh: BinaryIO, path: str) -> Codec | None | RecordError:
    """The container of the open file ``fh``, from its first bytes (None: plain), with the
    WARC-zstd dictionary when the file starts with one (read from the file's start); a
    ``RecordError`` (offset None) for an empty file or a dictionary that cannot be used.
    Raises ``OSError`` when the file cannot be read."""
    fh.seek(0)
    head = fh.read(8)
    if not head:
        return _err(path, "source-empty-file", "the file is empty")
    codec = sniff_codec(head)
    if head.startswith(ZSTD_DICT_MAGIC):
        size = skippable_frame_size(head) or 0
        if size > MAX_ZSTD_DICTIONARY + 8:
            return _err(path, "source-bad-zstd-dictionary", f"dictionary frame of {size} bytes")
        try:
            codec = zstd_codec(read_zstd_dictionary(head + fh.read(size - len(head))))
        except DictionaryError as exc:
            return _err(path, "source-bad-zstd-dictionary", str(exc))
    return codec


def _iter_archive(path: str, fileobj: BinaryIO | None, max_block: int, max_header: int,
                  reader: Reader) -> Iterator[RawRecord | RecordError]:
    fh = fileobj
    if fh is None:
        try:
            fh = open(path, "rb")  # noqa: SIM115 - closed in the finally below
        except OSError as exc:
            yield _err(path, "source-unreadable-file", f"{type(exc).__name__}: {exc}")
            return
    try:
        codec = file_codec(fh, path)
        if isinstance(codec, RecordError):
            yield codec
            return
        if reader == "careful" or codec is BZIP2:
            yield from read_careful(fh, path, codec, max_block=max_block, max_header=max_header)
        else:
            yield from iter_fast(fh, path, codec, max_block=max_block, max_header=max_header)
    except OSError as exc:
        yield _err(path, "source-unreadable-file", f"{type(exc).__name__}: {exc}")
    finally:
        if fileobj is None:
            fh.close()
