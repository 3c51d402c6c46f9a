"""The fast path: FastWARC reads well-formed WARC files; the careful reader
(:mod:`pipeline.sources.warc`) takes over wherever FastWARC cannot read a file exactly.

FastWARC (resiliparse's Rust WARC reader) frames and decompresses records 4-6x faster than
the careful reader, and reads gzip, zstd (with the WARC-zstd dictionary frame) and LZ4.
But it stops at the first bad record, silently drops a member cut inside its header,
cannot read ARC, and reports a record inside a member that holds several at the position
of the member after it (taken as the record's start, that would lose the records between,
in ``cat a.warc.gz b.warc.gz`` of two whole-file gzip WARCs say). So every record it yields is checked before it is passed on, and is
held back until the records after it confirm where it ends:

- the first record must start where reading started; each record's start must be a member
  start (the compressed bytes there carry the codec's magic; a plain file shows ``WARC/``
  there), later than the one before;
- in a compressed file its member must hold it alone: the size the member records (gzip's
  ISIZE, a zstd or LZ4 frame's content size) must be the record's, its header counted as
  "key: value" CRLF lines, plus at most the CRLF CRLF after the block; and the next
  record's member must hold that one alone before the record is passed on (a member cut
  a few bytes into the next record is thus found out by the next member);
- its header must be one the careful reader reads alike (no line break inside a field,
  no bytes that are not UTF-8 in a field the record takes: FastWARC ends lines at CRLF
  and replaces such bytes, warcio ends lines at LF and reads them as ISO-8859-1);
- its Content-Length must be ASCII digits and its whole block must have been read;
- in a plain file, only whitespace may separate its block from the next record;
- after the last record, the rest of the file must be exactly its member (or separator).

When a check fails, or FastWARC raises, or a check itself raises, the careful reader reads
from the start of the oldest record not yet passed on (a seek back: recovery only), yields
what it finds (errors with offsets, truncation flags, ...), and hands the file back to
FastWARC at the first clean record after the damage. The bytes FastWARC reads pass through
a window kept here (:class:`_Window`), so the checks cost no extra reads. Both paths give
the same ``RawRecord`` values on the 42 real samples and the fixtures
(tests/conformance/test_warc_samples.py, tests/unit/test_sources_warc.py); on damaged
files the careful reader is the reference the tests hold the fast path to.
"""

from __future__ import annotations

import io
import uuid
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import BinaryIO

from fastwarc.warc import ArchiveIterator

from pipeline.errors import RecordError
from pipeline.sources.containers import (
    MEMBER_HEAD,
    ZSTD_DICT_MAGIC,
    Codec,
    lz4_content_starts_with,
    lz4_frame_end,
    stored_size,
)
from pipeline.sources.record import RawRecord
from pipeline.sources.record import new_record as _new_record
from pipeline.sources.warc import KEEP_BLOCK, MAX_METADATA_BLOCK, read_careful, valid_content_length

try:
    from pipeline.sources._fields import warc_fields  # type: ignore[import-not-found]
except ImportError:  # built without a compiler: the reference below
    warc_fields = None

#: Bytes of the file kept behind FastWARC's reads for the checks (it reads 64 KiB at a time).
WINDOW = 1 << 20
#: After this many hand-overs in one file the careful reader keeps the rest of it.
MAX_HANDOVERS = 64
#: ... and after this many records whose Content-Length ran past the record after them:
#: FastWARC reads such a block to the end of the file (up to the cap) before it fails.
MAX_LYING_HANDOVERS = 4
#: FastWARC's own read size.
_FASTWARC_BUFFER = 1 << 16


class _Window:
    """The file as FastWARC reads it, keeping the last :data:`WINDOW` bytes for the checks."""

    __slots__ = ("_fh", "_chunks", "_starts", "_end", "eof")

    def __init__(self, fh: BinaryIO, start: int) -> None:
        self._fh = fh
        self._chunks: list[bytes] = []
        self._starts: list[int] = []  # file offset of each kept chunk
        self._end = start  # file offset after the last byte read
        self.eof = False

    def tell(self) -> int:
        return self._end

    def seek(self, offset: int, whence: int = 0) -> int:
        """Refused: FastWARC reads the window forward only, and the checks rely on it."""
        raise io.UnsupportedOperation("the window is read forward only")

    def close(self) -> None:
        """Nothing to do: the file belongs to the caller."""

    def read(self, n: int = -1) -> bytes:
        data = self._fh.read(n)
        if not data:
            self.eof = True
            return data
        self._chunks.append(data)
        self._starts.append(self._end)
        self._end += len(data)
        while self._end - self._starts[0] - len(self._chunks[0]) >= WINDOW:
            del self._chunks[0], self._starts[0]
        return data

    def span(self, pos: int, end: int) -> bytes | None:
        """The file's bytes ``[pos, end)`` if they are still kept, else None."""
        end = min(end, self._end)
        starts = self._starts
        if not starts or pos < starts[0] or pos > end:
            return None
        i = len(starts) - 1
        while starts[i] > pos:
            i -= 1
        first = self._chunks[i]
        if end <= starts[i] + len(first):
            return first[pos - starts[i] : end - starts[i]]
        j = i
        while starts[j] + len(self._chunks[j]) < end:
            j += 1
        # (only the bytes wanted: a few bytes across two chunks must not copy both)
        return b"".join([first[pos - starts[i] :], *self._chunks[i + 1 : j],
                         self._chunks[j][: end - starts[j]]])

    def has_at(self, pos: int, prefix: bytes) -> bool:
        """True when the file's bytes at ``pos`` start with ``prefix`` (and are still kept)."""
        if self._chunks:
            last, at = self._chunks[-1], self._starts[-1]
            if at <= pos and pos + len(prefix) <= at + len(last):
                return last.startswith(prefix, pos - at)  # the common case: no slice
        data = self.span(pos, pos + len(prefix))
        return data is not None and data.startswith(prefix)

    def reader(self, fh: BinaryIO) -> Callable[[int, int], bytes]:
        """``read_at(pos, n)``: the file's ``n`` bytes at ``pos`` (fewer at its end), from the
        window where it still holds them, else from ``fh``, whose position it restores
        (FastWARC reads on from there)."""

        def read_at(pos: int, n: int) -> bytes:
            data = self.span(pos, pos + n)
            if data is not None and (len(data) == n or self.eof):
                return data
            here = fh.tell()
            try:
                fh.seek(pos)
                return fh.read(n)
            finally:
                fh.seek(here)

        return read_at

    def find(self, needle: bytes, pos: int, limit: int) -> int | None:
        """The file offset of ``needle`` at or after ``pos`` within ``limit`` bytes."""
        data = self.span(pos, pos + limit)
        if data is None:
            return None
        i = data.find(needle)
        return pos + i if i >= 0 else None


#: The WARC header fields a record is built from (lowercase), in the order the fast path
#: unpacks them.
FIELDS = ("content-length", "warc-type", "warc-record-id", "warc-target-uri", "warc-date",
          "warc-identified-payload-type", "warc-identified-content-charset", "warc-truncated",
          "content-type", "warc-concurrent-to", "warc-payload-digest")


def warc_fields_python(items: Iterable[tuple[str, str]], names: tuple[str, ...]) -> tuple | None:
    """What the fast path reads of a record's header (FastWARC's ``headers.items()``): for
    each of ``names`` (lowercase) the value of the first item whose key lowered equals it,
    else None (the careful reader's rule for a repeated name), then the bytes the lines take
    written "key: value" CRLF in UTF-8. None instead when the careful reader could read the
    header otherwise: a key or value holds CR or LF (FastWARC ends lines at CRLF only,
    warcio at LF), or a value found holds U+FFFD (FastWARC's stand-in for bytes that are not
    UTF-8; warcio decodes such a line as ISO-8859-1). ``_fields.warc_fields`` (C, one pass)
    is tested against this.

    >>> warc_fields_python([("WARC-Type", "response"), ("warc-type", "x")], ("warc-type", "a"))
    ('response', None, 35)
    >>> warc_fields_python([("WARC-Target-URI", "http://\ufffd/")], ("warc-target-uri",)) is None
    True
    """
    fields: dict[str, str] = {}
    size = 0
    for key, value in items:
        if "\r" in key or "\n" in key or "\r" in value or "\n" in value:
            return None
        size += len(key.encode()) + len(value.encode()) + 4
        fields.setdefault(key.lower(), value)
    values = tuple(fields.get(name) for name in names)
    if any(value is not None and "\ufffd" in value for value in values):
        return None
    return (*values, size)


if warc_fields is None:
    warc_fields = warc_fields_python


class _Handover(Exception):
    """Internal: FastWARC cannot go on; the careful reader starts at ``at``."""

    def __init__(self, at: int) -> None:
        super().__init__(at)
        self.at = at


def _target_uri(value: str | None) -> str | None:
    # As warcio's loader gives it (the careful reader's): "<uri>" unwrapped, spaces as %20.
    if not value or (value[0] != "<" and " " not in value):
        return value
    if value.startswith("<") and value.endswith(">"):
        value = value[1:-1]
    return value.replace(" ", "%20") if " " in value else value


def _fast_segment(fh: BinaryIO, name: str, codec: Codec | None, start: int, max_block: int,
                  max_header: int) -> Generator[RawRecord, None, int | None]:
    """FastWARC's records from ``start`` on, checked; returns where the careful reader must
    take over, or None when the file was read to its end."""
    fh.seek(start)
    window = _Window(fh, start)
    read_at = window.reader(fh)
    it = iter(ArchiveIterator(window, parse_http=False, max_header_len=max_header))
    # Records read, not yet yielded, oldest first: (offset, header length, block length, the
    # RawRecord fields after warc_record_length, the first bytes of its member). In a
    # compressed file the header length is what "key: value" CRLF lines take.
    # The oldest one's offset is where the careful reader takes over if a check fails.
    held: list[tuple[int, int, int, tuple, bytes | None]] = []
    plain = codec is None
    # FastWARC reports a record inside a member holding several at the position of the
    # member after it. So a record's member must hold its size alone, and so must the next
    # record's before the record is passed on: a member cut a few bytes into the next
    # record still looks like one record, the next member is then short of its own.
    sized = codec if codec is not None and codec.name in ("gzip", "zstd", "lz4") else None
    depth = 1 if sized is None else 2  # records held once checked
    head_wanted = codec is not None and codec.name in ("zstd", "lz4")
    # A record starts a member: the codec's magic there (Codec.starts_member), or "WARC/".
    magic = b"WARC/" if codec is None else codec.magic
    pos = start
    while True:
        try:
            rec = next(it)
        except StopIteration:
            break
        except Exception:  # noqa: BLE001 - FastWARC refuses what follows: recover carefully
            return held[0][0] if held else start
        try:
            pos = rec.stream_pos
            if not held and pos != start and not _skipped_frames(window, codec, start, pos):
                return start  # the first record is not where reading started: read carefully
            if held and pos <= held[-1][0]:
                return held[0][0]  # several records in one member: the careful reader reads it
            if not window.has_at(pos, magic):
                return held[0][0] if held else pos
            if held:
                # The record before this one ends here: check it, and pass on the oldest.
                offset, head_len, size, rest, member_head = held[-1]
                if plain:
                    # warcio's length: header + block; only whitespace may separate it from this.
                    gap = window.span(offset + head_len + size, pos)
                    if gap is None or gap.strip():
                        return held[0][0]
                elif sized is not None:
                    stored = stored_size(sized, member_head or b"", window.span(pos - 4, pos) or b"")
                    if stored is not None:
                        holds = _alone(sized, stored, head_len + size)
                    else:
                        # A zstd frame without its size: read carefully. LZ4 frames without
                        # one (FastWARC writes them so, one a record): their first bytes and
                        # blocks must show one record's start, ending at the next record's.
                        holds = sized.name == "lz4" and _lz4_frame_is_record(read_at, offset, pos)
                    if not holds:
                        return held[0][0]  # more than its record, no size, or split over frames
                if len(held) == depth:
                    yield _passed_on(name, held.pop(0), held[0][0] if held else pos, plain)
            # One call for all header fields (FastWARC's get() costs ~0.75 µs a name); the first
            # occurrence of a name wins, as in the careful reader.
            headers = rec.headers
            found = warc_fields(headers.items(), FIELDS)
            if found is None:
                return held[0][0] if held else pos  # a header the careful reader reads otherwise
            (length, rtype, record_id, uri, date, payload_type, charset, truncated, content_type,
             concurrent_to, digest, lines_size) = found
            if not valid_content_length(length):
                return held[0][0] if held else pos
            declared = int(length)
            rtype = (rtype or "unknown").strip().lower()
            reader = rec.reader
            if rtype in KEEP_BLOCK:
                keep = max_block if rtype != "metadata" else min(MAX_METADATA_BLOCK, max_block)
                wanted = min(declared, keep)
                block = reader.read(wanted)
                if len(block) < wanted:
                    block = _read_rest(reader, block, wanted)
                got = len(block) + (reader.consume() if declared > keep else 0)
            else:
                block = b""
                got = reader.consume()
            if got != declared:
                return held[0][0] if held else pos  # cut short: the careful reader flags it
            member_head = None
            if plain:
                found = window.find(b"\r\n\r\n", pos, max_header)
                if found is None:
                    return held[0][0] if held else pos
                head_len = found + 4 - pos
                head = window.span(pos, found)
                if head is None or head.count(b"\n") != head.count(b"\r\n"):
                    # a bare LF, which FastWARC may strip off a value: warcio ends a line there
                    return held[0][0] if held else pos
            else:
                # The version line, the fields, the empty line: the member's size is checked
                # against it once the member's end is known.
                head_len = len(headers.status_line or "") + 4 + lines_size
                if head_wanted:
                    member_head = window.span(pos, pos + MEMBER_HEAD)
            capped = rtype in KEEP_BLOCK and declared > len(block)
            # The RawRecord fields from record_id on, in their declared order (all of them: see
            # record.new_record).
            if uri and (uri[0] == "<" or " " in uri):
                uri = _target_uri(uri)
            held.append((pos, head_len, declared, (
                record_id or _record_id(name, pos), rtype, uri, date, block, None, None,
                payload_type, charset, None, truncated, capped, "cap" if capped else None,
                content_type, None, concurrent_to, digest), member_head))
        except Exception:  # noqa: BLE001 - a check that fails on bytes it did not expect: the
            # careful reader reads from the first record not yet passed on (a reader that
            # stops would lose the rest of the file)
            return held[0][0] if held else pos
    if not held:
        return None if window.eof and window.tell() == start else start
    offset, head_len, size, _, _ = held[-1]
    end = _tail_end(fh, window, codec, offset, head_len + size, sized is not None)
    if end is None:
        return held[0][0]
    while held:
        yield _passed_on(name, held.pop(0), held[0][0] if held else end, plain)
    return None


def _passed_on(name: str, record: tuple[int, int, int, tuple, bytes | None], end: int,
               plain: bool) -> RawRecord:
    """A checked record, its member (or its header and block, in a plain file) ending at ``end``."""
    offset, head_len, size, rest, _ = record
    return _new_record(name, offset, (head_len + size) if plain else end - offset, *rest)


def _skipped_frames(window: _Window, codec: Codec | None, start: int, pos: int) -> bool:
    """Whether the file's bytes from ``start`` to ``pos`` are frames a reader skips (zstd's
    skippable frames, the WARC-zstd dictionary's among them), and nothing else."""
    at = start
    while codec is not None and at < pos:
        size = codec.padding(window.span(at, at + 8) or b"")
        if not size:
            return False
        at += size
    return at == pos


def _alone(codec: Codec, stored: int, record: int) -> bool:
    """Whether a member that records ``stored`` bytes holds one record of ``record`` bytes
    (its header written "key: value" CRLF, then its block) and after it only the CRLF CRLF
    (or nothing, where the writer counts it in the block): :data:`_TRAILERS`. A header
    written otherwise ("key:value", extra spaces, a bare LF FastWARC strips off a value)
    fails the check: its file is read carefully, correctly and slower. A second record in
    the member adds 30 bytes at least ("WARC/1.0", "Content-Length:0", the empty line, as
    FastWARC reads only CRLF lines): it is missed only behind a header 26 bytes or more
    shorter than "key: value" lines would be (26 lines or more, all "key:value")."""
    extra = stored - record
    if codec.name == "gzip":  # ISIZE is the size modulo 2^32
        extra = (extra + (1 << 31)) % (1 << 32) - (1 << 31)
    return extra in _TRAILERS


def _lz4_frame_is_record(read_at: Callable[[int, int], bytes], start: int, end: int) -> bool:
    """Whether the LZ4 frame at ``start``, which records no size, holds the start of a
    record and ends at ``end``, where the next record's frame starts. A record that starts
    inside a frame is reported at the frame after it, which then starts inside the record;
    a record split over frames ends its first frame before the next record."""
    return (lz4_content_starts_with(read_at(start, _LZ4_HEAD), b"WARC/")
            and lz4_frame_end(read_at, start, end) == end)


#: Bytes of an LZ4 frame enough to read the start of its content: the frame's descriptor
#: (15 at most), the first block's size and token, a few bytes of literal length, "WARC/".
_LZ4_HEAD = 32


#: The bytes a member may hold past its record's block: the CRLF CRLF, or none.
_TRAILERS = (0, 4)


def _tail_end(fh: BinaryIO, window: _Window, codec: Codec | None, offset: int,
              length: int, sized: bool = False) -> int | None:
    """The end of the last record's member (or block) when nothing but padding follows it
    in the file, else None (the careful reader then reads what FastWARC passed over).
    ``length``: the record's length (in a compressed file, as :func:`_alone` counts it);
    with ``sized``, its member must hold it alone."""
    file_end = window.tell()
    data = window.span(offset, file_end)
    if data is None:
        fh.seek(offset)  # a last member larger than the window: read it again
        data = fh.read()
    if codec is None:
        return offset + length if not data[length:].strip() else None
    d = codec.new()
    pending = data
    total = 0
    try:
        while pending and not d.eof:
            total += len(d.decompress(pending, 1 << 16))  # only the member's size is kept
            pending = d.unconsumed_tail
        while not d.eof:
            piece = d.decompress(b"", 1 << 16)  # ISA-L may still hold output of input it has consumed
            if not piece:
                break
            total += len(piece)
    except Exception:  # noqa: BLE001 - a corrupt last member: the careful reader reports it
        return None
    if not d.eof or (sized and not _alone(codec, total, length)):
        return None
    rest = d.unused_data
    if rest.strip(b"\x00"):
        return None
    return offset + len(data) - len(rest)


def _read_rest(reader: object, first: bytes, n: int) -> bytes:
    """``first`` and what follows it up to ``n`` bytes in all (fewer at the end of the data)."""
    parts = [first]
    n -= len(first)
    while n > 0:
        piece = reader.read(n)  # type: ignore[attr-defined]
        if not piece:
            break
        parts.append(piece)
        n -= len(piece)
    return b"".join(parts)


def _record_id(name: str, offset: int) -> str:
    from pathlib import PurePath

    return f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'{PurePath(name).name}#{offset}')}>"


def iter_fast(fh: BinaryIO, name: str, codec: Codec | None, *, max_block: int,
              max_header: int) -> Iterator[RawRecord | RecordError]:
    """Every record of a WARC file (plain, gzip, zstd or LZ4) through FastWARC, with the
    careful reader taking over where FastWARC cannot read exactly (module docstring)."""
    fh.seek(0)
    with_dictionary = fh.read(4) == ZSTD_DICT_MAGIC
    at: int | None = 0
    handovers = lies = 0
    while at is not None:
        bad = yield from _fast_segment(fh, name, codec, at, max_block, max_header)
        if bad is None:
            return
        handovers += 1
        # FastWARC learns a zstd dictionary only at the start of the file; and a file it
        # fails on at once (ARC, say) it will fail on again.
        hand_back = (handovers < MAX_HANDOVERS and lies < MAX_LYING_HANDOVERS
                     and not with_dictionary and bad != at)
        at, lied = yield from _careful_until_clean(fh, name, codec, bad, max_block, max_header,
                                                   hand_back)
        lies += lied


def _careful_until_clean(fh: BinaryIO, name: str, codec: Codec | None, start: int,
                         max_block: int, max_header: int, hand_back: bool,
                         ) -> Generator[RawRecord | RecordError, None, tuple[int | None, bool]]:
    """The careful reader from ``start``; returns the offset of the first clean record after
    the damage (FastWARC reads on from there), or None once the file is read, and whether a
    record's Content-Length ran past the record after it."""
    damaged = lied = False
    # Past the file's start FastWARC has read a WARC record: a hand-over there is not read
    # as the first line of an ARC file.
    for item in read_careful(fh, name, codec, start=start, max_block=max_block,
                             max_header=max_header, warc=start > 0):
        clean = (isinstance(item, RawRecord) and item.offset_in_member is None
                 and not item.block_truncated)
        if hand_back and clean and damaged and isinstance(item, RawRecord):
            return item.warc_record_offset, lied
        damaged = damaged or not clean
        lied = lied or (isinstance(item, RawRecord) and item.block_truncation == "next-record")
        yield item
    return None, lied
