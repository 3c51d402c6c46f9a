"""The fast path: FastWARC reads well-formed WARC files; the careful reader
(:mod:`pipeline.sources.warc`) takes over wherever FastWARC cannot read a file exactly.

FastWARC (resiliparse's Rust WARC reader) frames and decompresses records 4-6x faster than
the careful reader, and reads gzip, zstd (with the WARC-zstd dictionary frame) and LZ4.
But it stops at the first bad record, silently drops a member cut inside its header,
cannot read ARC, and reports positions that are not record offsets inside a multi-record
member. So every record it yields is checked before it is passed on, and is held back
until the next one confirms where it ends:

- the record's start must be a member start (the compressed bytes there carry the codec's
  magic; a plain file shows ``WARC/`` there), later than the one before;
- its Content-Length must be a number and its whole block must have been read;
- in a plain file, only whitespace may separate its block from the next record;
- after the last record, the rest of the file must be exactly its member (or separator).

When a check fails, or FastWARC raises, the careful reader reads from the start of the
record in doubt (a seek back: recovery only), yields what it finds (errors with offsets,
truncation flags, ...), and hands the file back to FastWARC at the first clean record after
the damage. The bytes FastWARC reads pass through a window kept here (:class:`_Window`), so
the checks cost no extra reads. Both paths give identical ``RawRecord`` values
(tests/conformance/test_warc_samples.py and tests/unit/test_sources_warc.py compare them).
"""

from __future__ import annotations

import io
import uuid
from collections.abc import Generator, Iterable, Iterator
from typing import Any, BinaryIO

from fastwarc.warc import ArchiveIterator

from pipeline.errors import RecordError
from pipeline.sources.containers import ZSTD_DICT_MAGIC, Codec
from pipeline.sources.record import RawRecord
from pipeline.sources.record import new_record as _new_record
from pipeline.sources.warc import KEEP_BLOCK, MAX_METADATA_BLOCK, read_careful, valid_content_length

try:
    from pipeline.sources._fields import first_values  # type: ignore[import-not-found]
except ImportError:  # built without a compiler: the reference below
    first_values = None

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
        return b"".join(self._chunks[i : j + 1])[pos - starts[i] : end - starts[i]]

    def has_at(self, pos: int, prefix: bytes) -> bool:
        """True when the file's bytes at ``pos`` start with ``prefix`` (and are still kept)."""
        if self._chunks:
            last, at = self._chunks[-1], self._starts[-1]
            if at <= pos and pos + len(prefix) <= at + len(last):
                return last.startswith(prefix, pos - at)  # the common case: no slice
        data = self.span(pos, pos + len(prefix))
        return data is not None and data.startswith(prefix)

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
          "content-type", "warc-concurrent-to")


def first_values_python(items: Iterable[tuple[str, Any]], names: tuple[str, ...]) -> tuple:
    """For each of ``names`` (lowercase), the value of the first ``(key, value)`` of ``items``
    whose key lowered equals it, else None: the careful reader's rule for repeated header
    names; the reference ``_fields.first_values`` (C, one pass) is tested against.

    >>> first_values_python([("WARC-Type", "response"), ("warc-type", "x")], ("warc-type", "a"))
    ('response', None)
    """
    fields: dict[str, Any] = {}
    for key, value in items:
        fields.setdefault(key.lower(), value)
    return tuple(fields.get(name) for name in names)


if first_values is None:
    first_values = first_values_python


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
    it = iter(ArchiveIterator(window, parse_http=False, max_header_len=max_header))
    # The record read last, not yet yielded: (offset, header length, block length, the
    # RawRecord fields after warc_record_length).
    held: tuple[int, int, int, tuple] | None = None
    plain = codec is None
    # A record starts a member: the codec's magic there (Codec.starts_member), or "WARC/".
    magic = b"WARC/" if codec is None else codec.magic
    pos = start
    while True:
        try:
            rec = next(it)
        except StopIteration:
            break
        except Exception:  # noqa: BLE001 - FastWARC refuses what follows: recover carefully
            return held[0] if held is not None else start
        try:
            pos = rec.stream_pos
            if held is not None and pos <= held[0]:
                return held[0]  # several records in one member: offsets need the careful reader
            if not window.has_at(pos, magic):
                return held[0] if held is not None else pos
            if held is not None:
                offset, head_len, size, rest = held
                if plain:
                    # warcio's length: header + block; only whitespace may separate it from this.
                    gap = window.span(offset + head_len + size, pos)
                    if gap is None or gap.strip():
                        return offset
                    yield _new_record(name, offset, head_len + size, *rest)
                else:
                    yield _new_record(name, offset, pos - offset, *rest)
                held = None
            # One call for all header fields (FastWARC's get() costs ~0.75 µs a name); the first
            # occurrence of a name wins, as in the careful reader.
            (length, rtype, record_id, uri, date, payload_type, charset, truncated, content_type,
             concurrent_to) = first_values(rec.headers.items(), FIELDS)
            if not valid_content_length(length):
                return pos
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
                return pos  # cut short: the careful reader flags it and looks for what follows
            head_len = 0
            if plain:
                found = window.find(b"\r\n\r\n", pos, max_header)
                if found is None:
                    return pos
                head_len = found + 4 - pos
            capped = rtype in KEEP_BLOCK and declared > len(block)
            # The RawRecord fields from record_id on, in their declared order (all of them: see
            # record.new_record).
            if uri and (uri[0] == "<" or " " in uri):
                uri = _target_uri(uri)
            held = (pos, head_len, declared, (
                record_id or _record_id(name, pos), rtype, uri, date, block, None, None,
                payload_type, charset, None, truncated, capped, "cap" if capped else None,
                content_type, None, concurrent_to))
        except Exception:  # noqa: BLE001 - a check that fails on bytes it did not expect: the
            # careful reader reads from the first record not yet passed on (a reader that
            # stops would lose the rest of the file)
            return held[0] if held is not None else pos
    if held is None:
        return None if window.eof and window.tell() == start else start
    offset, head_len, size, rest = held
    end = _tail_end(fh, window, codec, offset, head_len + size)
    if end is None:
        return offset
    yield _new_record(name, offset, (head_len + size) if plain else end - offset, *rest)
    return None


def _tail_end(fh: BinaryIO, window: _Window, codec: Codec | None, offset: int,
              plain_length: int) -> int | None:
    """The end of the last record's member (or block) when nothing but padding follows it
    in the file, else None (the careful reader then reads what FastWARC passed over)."""
    file_end = window.tell()
    data = window.span(offset, file_end)
    if data is None:
        fh.seek(offset)  # a last member larger than the window: read it again
        data = fh.read()
    if codec is None:
        return offset + plain_length if not data[plain_length:].strip() else None
    d = codec.new()
    pending = data
    try:
        while pending and not d.eof:
            d.decompress(pending, 1 << 16)  # output discarded: only the member's end counts
            pending = d.unconsumed_tail
        while not d.eof and d.decompress(b"", 1 << 16):
            pass  # ISA-L may still hold output of input it has consumed
    except Exception:  # noqa: BLE001 - a corrupt last member: the careful reader reports it
        return None
    if not d.eof:
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
    for item in read_careful(fh, name, codec, start=start, max_block=max_block,
                             max_header=max_header):
        clean = (isinstance(item, RawRecord) and item.offset_in_member is None
                 and not item.block_truncated)
        if hand_back and clean and damaged and isinstance(item, RawRecord):
            return item.warc_record_offset, lied
        damaged = damaged or not clean
        lied = lied or (isinstance(item, RawRecord) and item.block_truncation == "next-record")
        yield item
    return None, lied
