"""Read records back by their locator: the ``(warc_record_offset, warc_record_length,
warc_record_offset_in_member)`` every ``records`` row carries, or Common Crawl's
``(warc_record_offset, warc_record_length)`` from its columnar index.

:func:`read_located` gives, for each locator, exactly the :class:`RawRecord` that reading
the whole file (:func:`pipeline.sources.iter_records`) gives for that record: the same
field values, record id and Common Crawl metadata join. It reads:

- a record that is whole compressed members (gzip, zstd, LZ4, bzip2: one member per record,
  Common Crawl's layout): the locator's byte range only. Where the record's block is
  shorter than its Content-Length, the reader reads on into the next member's first bytes
  (up to :data:`MEMBER_LOOKAHEAD`) to tell, as the whole-file reader does, whether another
  record starts there (``next-record``) or the block was cut (``length``, ``cap``);
- a record of a plain file: its range and at most :data:`PLAIN_LOOKAHEAD` bytes after it
  (the record separator, and the start of the next record where a Content-Length lies),
  which decide ``framing`` and ``next-record`` as in the whole-file read;
- records that share a member (a whole-file gzip: ``offset_in_member`` set): the member
  from its start, decompressed up to the last record wanted in it (and the record after
  it, which ends it). Decompressing from the member's start is unavoidable (a deflate
  stream cannot be entered in the middle); the locators of one member are read in one
  pass, so the cost is one decompression of the member up to its last wanted record, not
  one per record;
- the Common Crawl metadata join (:mod:`pipeline.sources.ccmeta`): a response's
  ``content_charset`` and ``content_languages`` come from a ``metadata`` record after it.
  The locator names the response only, so the reader reads the records that follow it as
  the join would (:func:`~pipeline.sources.ccmeta.join_forward`), stopping as soon as the
  join can change nothing more: in Common Crawl's files that is the next record (the
  metadata record, which names both fields), read in 64 KiB pieces. ``join=False`` reads
  the ranges alone (the crawler fields are then the response's own headers').

With ``coalesce`` (a record list's tasks, ``--base-run``'s), the ranges of records near
each other are fetched in one read each (:data:`COALESCE_GAP`, :data:`COALESCE_MAX`) and
the records read from memory: on an object store a read is a request. Where a range of
whole members ends, the next 8 bytes must start a member, or the range ended inside the
record's last member (a length a few bytes short of it) and names no record.

Parquet inputs (the locator's offset is the row number) are read whole and the rows asked
for picked out. A locator that names no record gives a ``source-bad-locator`` error (with
what was found there); a record that cannot be read gives the error the whole-file read
gives.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from pipeline.errors import RecordError
from pipeline.sources.archive import file_codec
from pipeline.sources.ccmeta import join_forward
from pipeline.sources.containers import Codec
from pipeline.sources.record import RawRecord
from pipeline.sources.warc import MAX_BLOCK, MAX_HEADER, read_careful

#: Bytes read after a plain file's record: the separator line after the block (a line
#: other than blank lines or a record start is ``framing``) and the start of a record that
#: a lying Content-Length ran into (``WARC/1.x`` and a field name).
PLAIN_LOOKAHEAD = 4096
#: Compressed bytes read after a record whose block came out short, to see whether the
#: next member starts a record (its first 256 decompressed bytes, as the whole-file read
#: tests them).
MEMBER_LOOKAHEAD = 1 << 16
#: The records after a response are read for its metadata in pieces this big (the readers'
#: own 64 KiB would read far past a Common Crawl metadata record of ~1 KB).
JOIN_PIECE = 4096
#: With ``coalesce``: records whose ranges are at most this far apart are fetched in one
#: read. On an object store each read is a request, and a request's round trip (tens of
#: milliseconds) costs as much as transferring a few hundred KB.
COALESCE_GAP = 256 << 10
#: ... and one such read is at most this long (it is held in memory while its records are
#: read); a record longer than this is read through the file alone.
COALESCE_MAX = 8 << 20


@dataclass(frozen=True, slots=True)
class Locator:
    """Where a record is in its file (the ``records`` columns of the same names).

    ``offset_in_member`` None: the record is ``[offset, offset + length)`` of the file,
    whole compressed members (or a plain file's bytes, from its ``WARC/`` line to the end
    of its block). Else the record starts ``offset_in_member`` bytes into the decompressed
    member at ``offset`` and is ``length`` decompressed bytes long (with the separator after
    it).
    """

    offset: int
    length: int
    offset_in_member: int | None = None

    @classmethod
    def of(cls, record: RawRecord) -> Locator:
        """The locator of a record read from a file."""
        return cls(record.warc_record_offset, record.warc_record_length, record.offset_in_member)

    def sort_key(self) -> tuple[int, int]:
        """File order: by offset, then by the offset inside the member."""
        return self.offset, -1 if self.offset_in_member is None else self.offset_in_member


def read_located(fh: BinaryIO, name: str, locators: Iterable[Locator], *,
                 max_block: int = MAX_BLOCK, max_header: int = MAX_HEADER, join: bool = True,
                 coalesce: bool = False) -> Iterator[RawRecord | RecordError]:
    """For each locator, in file order (:meth:`Locator.sort_key`), the record
    :func:`pipeline.sources.iter_records` gives at that locator, or a ``RecordError``.

    ``fh`` is the input opened by the caller (binary, seekable), ``name`` what records and
    errors call it (the whole-file read's ``path``: ARC record ids are made from it).
    ``max_block`` and ``max_header`` as for :func:`~pipeline.sources.iter_records` (the
    run's values, or blocks are cut elsewhere); ``join``: read on after a response for its
    Common Crawl metadata (module docstring); ``coalesce``: fetch the ranges of records
    near each other (:data:`COALESCE_GAP`) in one read each (:class:`_Coalesced`), with the
    bytes after each record that the reader looks at. Never raises for bad data.
    """
    wanted = sorted(locators, key=Locator.sort_key)
    if not wanted:
        return
    try:
        fh.seek(0)
        if fh.read(4) == b"PAR1":
            yield from _parquet_rows(fh, name, wanted, max_block)
            return
        codec = file_codec(fh, name)
        size = fh.seek(0, 2)
    except OSError as exc:
        codec = RecordError("source", "source-unreadable-file", f"{type(exc).__name__}: {exc}", name)
    if isinstance(codec, RecordError):
        for loc in wanted:  # one error per record asked for: each is counted
            yield RecordError(codec.stage, codec.error_type, codec.message, name, loc.offset,
                              offset_in_member=loc.offset_in_member, length=loc.length)
        return
    if coalesce:
        fh = _Coalesced(fh, _spans(wanted, size))  # type: ignore[assignment]
    reader = _Reader(fh, name, codec, size, max_block, max_header, join)
    i = 0
    while i < len(wanted):
        loc = wanted[i]
        if codec is not None and loc.offset_in_member is not None:
            j = i
            while (j < len(wanted) and wanted[j].offset == loc.offset
                   and wanted[j].offset_in_member is not None):
                j += 1
            yield from reader.in_member(wanted[i:j])
            i = j
        else:
            yield reader.whole(loc)
            i += 1


def _spans(wanted: list[Locator], size: int) -> list[tuple[int, int]]:
    """The byte spans to fetch whole for ``wanted`` (in file order): each record's range
    with what the reader reads after it (the separator, the next record's start, the first
    piece of its metadata record), merged where they are at most :data:`COALESCE_GAP`
    apart and the merged span stays within :data:`COALESCE_MAX`. Records inside a shared
    member (read from the member's start) and records longer than the limit are left out."""
    spans: list[tuple[int, int]] = []
    for loc in wanted:
        if loc.offset_in_member is not None or loc.length > COALESCE_MAX:
            continue
        start, end = loc.offset, min(size, loc.offset + loc.length + PLAIN_LOOKAHEAD)
        if start >= end:
            continue
        if spans and start - spans[-1][1] <= COALESCE_GAP and end - spans[-1][0] <= COALESCE_MAX:
            spans[-1] = (spans[-1][0], max(spans[-1][1], end))
        elif spans and start < spans[-1][1]:  # overlaps a span that cannot grow: its rest
            if end > spans[-1][1]:
                spans.append((spans[-1][1], end))
        else:
            spans.append((start, end))
    return spans


class _Coalesced:
    """The file ``fh`` with the byte ``spans`` (sorted, disjoint) fetched in one read each,
    when a read first reaches into one, and held until a read reaches another; reads
    outside every span go to ``fh``. Positions are the file's."""

    __slots__ = ("_fh", "_spans", "_starts", "_pos", "_held_at", "_held")

    def __init__(self, fh: BinaryIO, spans: list[tuple[int, int]]) -> None:
        self._fh = fh
        self._spans = spans
        self._starts = [start for start, _ in spans]
        self._pos = 0
        self._held_at = 0
        self._held = b""

    def seek(self, pos: int, whence: int = 0) -> int:
        if whence == 2:
            self._pos = self._fh.seek(pos, 2)
        else:
            self._pos = pos if whence == 0 else self._pos + pos
        return self._pos

    def tell(self) -> int:
        return self._pos

    def read(self, n: int = -1) -> bytes:
        out: list[bytes] = []
        while n != 0:
            chunk = self._from_span(n)
            if chunk is None:  # outside every span: the file itself
                self._fh.seek(self._pos)
                chunk = self._fh.read(n)
                self._pos += len(chunk)
                out.append(chunk)
                break
            out.append(chunk)
            self._pos += len(chunk)
            if n > 0:
                n -= len(chunk)
        return b"".join(out)

    def _from_span(self, n: int) -> bytes | None:
        """Bytes from the current position inside a span (fetching it), or None."""
        pos = self._pos
        if not self._held_at <= pos < self._held_at + len(self._held):
            i = bisect_right(self._starts, pos) - 1
            if i < 0 or pos >= self._spans[i][1]:
                return None
            start, end = self._spans[i]
            self._fh.seek(start)
            self._held_at, self._held = start, self._fh.read(end - start)
            if not self._held_at <= pos < self._held_at + len(self._held):
                return None  # the file ended early
        at = pos - self._held_at
        return self._held[at:] if n < 0 else self._held[at:at + n]


class _Range:
    """The file ``fh`` as if it ended at ``end`` (positions are the file's)."""

    __slots__ = ("_fh", "_end")

    def __init__(self, fh: BinaryIO, end: int) -> None:
        self._fh = fh
        self._end = end

    def seek(self, pos: int, whence: int = 0) -> int:
        target = self._end + pos if whence == 2 else pos if whence == 0 else self._fh.tell() + pos
        return self._fh.seek(min(target, self._end))

    def tell(self) -> int:
        return self._fh.tell()

    def read(self, n: int = -1) -> bytes:
        left = self._end - self._fh.tell()
        if left <= 0:
            return b""
        return self._fh.read(left if n is None or n < 0 else min(n, left))


class _Pieces:
    """The file ``fh``, read at most ``piece`` bytes at a time."""

    __slots__ = ("_fh", "_piece")

    def __init__(self, fh: BinaryIO, piece: int) -> None:
        self._fh = fh
        self._piece = piece

    def seek(self, pos: int, whence: int = 0) -> int:
        return self._fh.seek(pos, whence)

    def tell(self) -> int:
        return self._fh.tell()

    def read(self, n: int = -1) -> bytes:
        return self._fh.read(self._piece if n is None or n < 0 else min(n, self._piece))


class _Ahead:
    """An iterator of items that can also be looked ahead into (:meth:`following`)."""

    def __init__(self, items: Iterator[RawRecord | RecordError]) -> None:
        self._items = items
        self._held: deque[RawRecord | RecordError] = deque()

    def next(self) -> RawRecord | RecordError | None:
        return self._held.popleft() if self._held else next(self._items, None)

    def following(self) -> Iterator[RawRecord | RecordError]:
        """The items after the last one :meth:`next` gave, without taking them."""
        i = 0
        while True:
            if i == len(self._held):
                item = next(self._items, None)
                if item is None:
                    return
                self._held.append(item)
            yield self._held[i]
            i += 1


@dataclass(slots=True)
class _Reader:
    fh: BinaryIO
    name: str
    codec: Codec | None
    size: int
    max_block: int
    max_header: int
    join: bool

    def _careful(self, fh: BinaryIO | _Range | _Pieces, start: int, in_member: int = 0
                 ) -> Iterator[RawRecord | RecordError]:
        return read_careful(fh, self.name, self.codec, start=start,  # type: ignore[arg-type]
                            max_block=self.max_block,
                            max_header=self.max_header, in_member=in_member)

    def whole(self, loc: Locator) -> RawRecord | RecordError:
        """The record that is the byte range of ``loc``."""
        end = loc.offset + loc.length
        lookahead = PLAIN_LOOKAHEAD if self.codec is None else 0
        item = next(self._careful(_Range(self.fh, min(self.size, end + lookahead)), loc.offset),
                    None)
        cut = item is None or isinstance(item, RecordError) or item.block_truncated
        if self.codec is not None and not cut and end < self.size and not self._member_at(end):
            # The range may end inside the record's last member (a length a few bytes short
            # leaves out part of its trailer, which the block does not need): read on.
            cut = True
        if self.codec is not None and cut and end < self.size:
            # The block ended with the range: the next member's first bytes tell why.
            item = next(self._careful(_Range(self.fh, min(self.size, end + MEMBER_LOOKAHEAD)),
                                      loc.offset), None)
        found = self._check(item, loc)
        if isinstance(found, RawRecord) and self.join and found.record_type in ("response", "resource"):
            return join_forward(found, self._careful(_Pieces(self.fh, JOIN_PIECE), end))
        return found

    def _member_at(self, pos: int) -> bool:
        """Whether a member (or a frame to skip) starts at ``pos`` of the compressed file."""
        assert self.codec is not None
        self.fh.seek(pos)
        head = self.fh.read(8)
        return self.codec.starts_member(head) or self.codec.padding(head) is not None

    def in_member(self, locs: list[Locator]) -> Iterator[RawRecord | RecordError]:
        """The records of ``locs``, all inside the member at ``locs[0].offset``, read in one
        pass from that member's start."""
        first = locs[0]
        assert first.offset_in_member is not None
        items = _Ahead(self._careful(self.fh, first.offset, first.offset_in_member))
        pending = deque(locs)
        while pending:
            item = items.next()
            if item is None:
                break
            if isinstance(item, RecordError):
                key = Locator(item.offset or 0, 0, item.offset_in_member).sort_key()
            else:
                key = Locator.of(item).sort_key()
            while pending and key > pending[0].sort_key():
                yield self._check(None, pending.popleft())  # passed over: no record there
            if not pending or key != pending[0].sort_key():
                continue
            found = self._check(item, pending.popleft())
            if isinstance(found, RawRecord) and self.join and found.record_type in ("response", "resource"):
                found = join_forward(found, items.following())
            yield found
        for loc in pending:
            yield self._check(None, loc)

    def _check(self, item: RawRecord | RecordError | None, loc: Locator) -> RawRecord | RecordError:
        """``item`` if it is the record (or the error) at ``loc``, else a bad-locator error."""
        if isinstance(item, RawRecord):
            if Locator.of(item) == loc:
                return item
            found = (f"a record at offset {item.warc_record_offset}, length "
                     f"{item.warc_record_length}, offset in member {item.offset_in_member}")
        elif isinstance(item, RecordError):
            if item.offset == loc.offset and item.offset_in_member == loc.offset_in_member:
                return item
            found = f"{item.error_type} at offset {item.offset}: {item.message}"
        else:
            found = "nothing"
        return RecordError("source", "source-bad-locator",
                           f"no record at offset {loc.offset}, length {loc.length}, offset in "
                           f"member {loc.offset_in_member}; found {found}"[:2000],
                           self.name, loc.offset, offset_in_member=loc.offset_in_member,
                           length=loc.length)


def _parquet_rows(fh: BinaryIO, name: str, wanted: list[Locator], max_block: int
                  ) -> Iterator[RawRecord | RecordError]:
    """The rows of a Parquet input whose numbers the locators give (the file is read whole)."""
    from pipeline.sources.parquet import iter_parquet

    rows = {loc.offset: loc for loc in wanted}
    fh.seek(0)
    for item in iter_parquet(name, fileobj=fh, max_body=max_block):
        if isinstance(item, RecordError) and item.offset is None:  # the whole file failed
            for loc in rows.values():
                yield RecordError(item.stage, item.error_type, item.message, name, loc.offset)
            return
        offset = item.warc_record_offset if isinstance(item, RawRecord) else item.offset
        if rows.pop(offset or 0, None) is not None:
            yield item
        if not rows:
            return
    for loc in rows.values():
        yield RecordError("source", "source-bad-locator",
                          f"no row {loc.offset} in this Parquet file", name, loc.offset)
