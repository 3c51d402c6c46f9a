"""Byte streams under the archive reader: a line reader with absolute positions, the
compressed file read as a chain of members (gzip members, zstd/LZ4 frames, bzip2 streams:
see :mod:`pipeline.sources.containers`), and the scan for the next good member used after
a corrupt one.

Nothing here parses WARC/ARC headers (warcio's loader does that, in ``warc.py``); these
classes only make sure we always know *where* in the file we are, so that every record and
every failure gets a real offset. The file is read forward; only the recovery paths seek.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from typing import Any, BinaryIO, Protocol

from pipeline.sources.containers import GZIP, Codec

CHUNK = 1 << 16  # read size for files and members; large enough to amortize calls
SCAN_WINDOW = 1 << 20  # resync scans the file in windows of this size
STOP_TEST_BYTES = 256  # a member's first bytes given to MemberChain.stop_before
# A WARC record starts with a version line (WARC 1.1 §4: "WARC/1.1" CRLF); an ARC v1
# record with a URL line of five space-separated fields ending in a length.
WARC_LINE = re.compile(rb"WARC/[0-9]\.[0-9]+\r?\n\Z")
_ARC_LINE = re.compile(rb"(?:^|\n)([a-z][a-z0-9+.-]*:\S* \S+ [0-9]{12,18} \S+ -?[0-9]+\r?\n)")


class RawRead(Protocol):
    """Anything with ``read(n) -> bytes``: a file, or a :class:`MemberChain`."""

    def read(self, n: int = -1, /) -> bytes: ...


class LineSource:
    """``read``/``readline``/``tell`` over a raw byte stream, counting absolute positions.

    ``start`` is the position of the stream's first byte in the coordinate space the caller
    reports (the file offset for plain files, 0 for a decompressed gzip member).

    >>> import io
    >>> src = LineSource(io.BytesIO(b"ab\\ncd"), start=10)
    >>> src.readline(), src.tell(), src.read(5), src.tell()
    (b'ab\\n', 13, b'cd', 15)
    """

    __slots__ = ("_raw", "_buf", "_pos", "_base")

    def __init__(self, raw: RawRead, start: int = 0) -> None:
        self._raw = raw
        self._buf = b""
        self._pos = 0
        self._base = start

    def tell(self) -> int:
        """The absolute position of the next byte to be read."""
        return self._base + self._pos

    @property
    def raw(self) -> RawRead:
        """The stream read from."""
        return self._raw

    def _line_end(self, limit: int | None) -> int:
        i = self._buf.find(b"\n", self._pos)
        if i >= 0 and (limit is None or i - self._pos < limit):
            return i + 1
        avail = len(self._buf) - self._pos
        if limit is not None and avail >= limit:
            return self._pos + limit
        # Gather chunks until one holds a newline (or the limit is reached), joining once,
        # so a long line costs linear time.
        parts = [self._buf[self._pos :]]
        size = avail
        while True:
            data = self._raw.read(CHUNK)
            if not data:
                break
            parts.append(data)
            size += len(data)
            if b"\n" in data or (limit is not None and size >= limit):
                break
        self._base += self._pos
        self._buf = b"".join(parts)
        self._pos = 0
        i = self._buf.find(b"\n")
        if i >= 0 and (limit is None or i < limit):
            return i + 1
        return len(self._buf) if limit is None else min(len(self._buf), limit)

    def readline(self, limit: int | None = None) -> bytes:
        """One line including its LF (or up to ``limit`` bytes, or to the end)."""
        end = self._line_end(limit)
        out = self._buf[self._pos : end]
        self._pos = end
        return out

    def peekline(self, limit: int = 4096) -> bytes:
        """The next line (at most ``limit`` bytes) without consuming it."""
        end = self._line_end(limit)
        return self._buf[self._pos : end]

    def read(self, n: int | None = -1) -> bytes:
        """Up to ``n`` bytes (all that is left when ``n`` is None or negative)."""
        avail = len(self._buf) - self._pos
        if n is not None and 0 <= n <= avail:
            out = self._buf[self._pos : self._pos + n]
            self._pos += n
            return out
        parts = [self._buf[self._pos :]]
        self._base += len(self._buf)
        self._buf = b""
        self._pos = 0
        need = -1 if n is None or n < 0 else n - avail
        while need != 0:
            data = self._raw.read(CHUNK if need < 0 else max(min(need, 1 << 24), 1))
            if not data:
                break
            parts.append(data)
            self._base += len(data)
            if need > 0:
                need -= len(data)
        return b"".join(parts)

    def skip(self, n: int) -> int:
        """Discard up to ``n`` bytes without keeping them; returns how many were skipped."""
        done = 0
        while done < n:
            piece = self.read(min(CHUNK, n - done))
            if not piece:
                break
            done += len(piece)
        return done

    def push_back(self, data: bytes) -> None:
        """Make the last ``len(data)`` bytes read (``data`` itself) the next ones again."""
        self._buf = data + self._buf[self._pos :]
        self._base += self._pos - len(data)
        self._pos = 0


class CompressedSource:
    """The compressed file, read forward, with a push-back for bytes past a member's end."""

    __slots__ = ("_fh", "pos", "_pending")

    def __init__(self, fh: BinaryIO, pos: int = 0) -> None:
        self._fh = fh
        self.pos = pos  # file offset of the next byte ``chunk`` returns
        self._pending = b""
        fh.seek(pos)

    def chunk(self) -> bytes:
        """The next run of compressed bytes (b"" at end of file)."""
        if self._pending:
            data, self._pending = self._pending, b""
        else:
            data = self._fh.read(CHUNK)
        self.pos += len(data)
        return data

    def push_back(self, data: bytes) -> None:
        """Return bytes read past a member's end, to be read again by the next member."""
        if data:
            self._pending = data + self._pending
            self.pos -= len(data)

    def peek(self, n: int) -> bytes:
        """The next ``n`` bytes without consuming them."""
        while len(self._pending) < n:
            data = self._fh.read(CHUNK)
            if not data:
                break
            self._pending += data
        return self._pending[:n]

    def skip(self, n: int) -> None:
        """Drop the next ``n`` bytes."""
        while n > 0:
            data = self.chunk()
            if not data:
                return
            if len(data) > n:
                self.push_back(data[n:])
            n -= len(data)

    def seek(self, pos: int) -> None:
        """Continue reading at file offset ``pos``."""
        self._fh.seek(pos)
        self._pending = b""
        self.pos = pos


class MemberChain:
    """The decompressed concatenation of consecutive members, read lazily.

    RFC 1952 §2.2: "A gzip file consists of a series of 'members'". Per-record gzip puts one
    record in each member, but writers also produce one member for the whole file, or a
    record split over two members; reading the members as one stream handles all three,
    and ``starts`` remembers where each member began so that positions in the decompressed
    stream map back to compressed offsets (:meth:`locate`).

    The same holds for the other codecs' members (zstd and LZ4 frames, bzip2 streams).
    ``read`` raises one of the codec's ``errors`` on corrupt data (for gzip including a bad
    CRC-32 or ISIZE); ``current`` is then the compressed offset of the failing member.
    Reading stops at end of file (``truncated`` is set when the last member is cut off) or
    at bytes that are not a member (``garbage_at`` is set to their offset).

    While ``stop_before`` holds a test, a member whose first decompressed bytes pass it is
    not read into: ``stopped`` is set, and ``read`` returns b"" until the caller clears it;
    the next ``read`` then starts with that member. The reader sets it while it reads a record's
    block, so that a Content-Length running past the records that follow ends at the next
    one instead of decompressing the rest of the file once per such record.
    """

    __slots__ = ("_src", "_codec", "_d", "_tail", "_fresh", "_held", "out", "starts", "current",
                 "truncated", "garbage_at", "end_comp", "stop_before", "stopped")

    def __init__(self, src: CompressedSource, codec: Codec = GZIP) -> None:
        self._src = src
        self._codec = codec
        self._d: Any = None
        self._tail = b""
        self.out = 0  # decompressed bytes produced so far
        self.starts: list[tuple[int, int]] = []  # (decompressed start, compressed offset)
        self.current = src.pos
        self.truncated = False
        self.garbage_at: int | None = None
        self.end_comp: int | None = None  # compressed offset where the chain stopped
        self._fresh = False  # the current member has given no bytes yet
        self._held = b""  # the first bytes of a member read before a stop (next out)
        self.stop_before: Callable[[bytes], object] | None = None  # (a truthy answer stops)
        self.stopped = False

    def read(self, n: int = -1, /) -> bytes:
        """Up to ``n`` decompressed bytes (``n`` < 0: a chunk's worth); b"" at the end."""
        want = CHUNK if n < 0 else n
        out: list[bytes] = []
        got = 0
        if self.stopped:
            return b""
        if self._held:
            piece, self._held = self._held[:want], self._held[want:]
            if self._held or self._d is None:
                self.out += len(piece)
                return piece  # (a member that ended in the held bytes is not read past)
            out.append(piece)
            got += len(piece)
        while got < want and self.end_comp is None and not self._held:
            if self._d is None:
                head = self._src.peek(8)
                skip = self._codec.padding(head)
                if skip is not None:
                    self._src.skip(skip)  # a zstd skippable frame between members
                    continue
                if not self._codec.starts_member(head):
                    if head:
                        self.garbage_at = self._src.pos
                    self.end_comp = self._src.pos
                    break
                self._d = self._codec.new()
                self._fresh = True
                self.current = self._src.pos
                self.starts.append((self.out + got, self._src.pos))
            data = self._tail or self._src.chunk()
            # At the end of the input, ISA-L (unlike zlib), bz2 and LZ4 can still hold output
            # of input they have consumed when max_length stopped them: drain that (an empty
            # input) before calling the member truncated.
            limit = want - got
            # (a member's first bytes are tested whole, however few the caller asked for)
            stop = self.stop_before if self._fresh else None
            piece = self._d.decompress(data, limit if stop is None else max(limit, STOP_TEST_BYTES))
            self._tail = self._d.unconsumed_tail
            if piece and self._fresh:
                self._fresh = False
                if stop is not None and stop(piece):
                    self._held, self.stopped = piece, True
                    piece = b""  # (the member's end, if the piece reached it, is kept below)
                elif len(piece) > limit:
                    piece, self._held = piece[:limit], piece[limit:]  # the next read's start
            if piece:
                out.append(piece)
                got += len(piece)
            elif not data and not self._d.eof and not self._held:
                self.truncated = True
                self.end_comp = self._src.pos
                break
            if self._d.eof:
                # At the end of a member the rest of the input is in unused_data (zlib may
                # also leave it in unconsumed_tail when max_length was given: drop that).
                self._src.push_back(self._d.unused_data)
                self._tail = b""
                self._d = None
                if got:
                    break  # never span members in one read: an error stays in its member
        self.out += got
        return b"".join(out)

    def member_at(self, pos: int) -> tuple[int, int]:
        """``(decompressed start, compressed offset)`` of the member holding position ``pos``."""
        i = bisect.bisect_right(self.starts, (pos, 1 << 62)) - 1
        return self.starts[max(i, 0)]

    def start_inside(self, lo: int, hi: int) -> int | None:
        """The decompressed position of the first member start ``lo < start < hi``, else None."""
        i = bisect.bisect_right(self.starts, (lo, 1 << 62))
        if i < len(self.starts) and self.starts[i][0] < hi:
            return self.starts[i][0]
        return None

    def boundary(self, pos: int) -> int | None:
        """The compressed offset at decompressed position ``pos`` if a member starts there
        (or the chain ended there), else None."""
        i = bisect.bisect_left(self.starts, (pos, -1))
        if i < len(self.starts) and self.starts[i][0] == pos:
            return self.starts[i][1]
        if self.end_comp is not None and pos == self.out and not self.truncated:
            return self.end_comp
        return None

    def locate(self, start: int, end: int) -> tuple[int, int, int | None]:
        """Where the decompressed span ``[start, end)`` lies in the file, as
        ``(offset, length, offset_in_member)``: a span made of whole members gives their
        compressed offset and length and None; otherwise the holding member's offset, the
        span's uncompressed length, and its offset inside that member."""
        dstart, cstart = self.member_at(start)
        if start == dstart:
            cend = self.boundary(end)
            if cend is None and self.truncated and end == self.out:
                cend = self.end_comp
            if cend is not None:
                return cstart, cend - cstart, None
        return cstart, end - start, start - dstart

    def forget_before(self, pos: int) -> None:
        """Drop member starts no longer needed (all before the member holding ``pos``)."""
        if len(self.starts) > 64:
            i = bisect.bisect_right(self.starts, (pos, 1 << 62)) - 1
            if i > 0:
                del self.starts[:i]


def looks_like_record_start(head: bytes) -> bool:
    """True when decompressed bytes begin like a WARC or ARC record header line.

    >>> looks_like_record_start(b"WARC/1.0\\r\\nWARC-Type: response")
    True
    >>> looks_like_record_start(b"<html>")
    False
    """
    head = head.lstrip(b"\r\n")
    if head.startswith(b"WARC/"):
        return True
    line = head.split(b"\n", 1)[0] + b"\n"
    return _ARC_LINE.match(line) is not None


def _member_head(fh: BinaryIO, pos: int, codec: Codec) -> bytes:
    fh.seek(pos)
    d = codec.new()
    try:
        return bytes(d.decompress(fh.read(4096), 256))
    except codec.errors:
        return b""
    except Exception:  # noqa: BLE001 - any failure means "not a good member here"
        return b""


def find_next_member(fh: BinaryIO, after: int, codec: Codec = GZIP) -> int | None:
    """The offset of the next member at or after ``after`` whose content starts like a
    WARC/ARC record (a bare magic number inside compressed data is not enough)."""
    pos = after
    magic = codec.magic
    while True:
        fh.seek(pos)
        window = fh.read(SCAN_WINDOW + len(magic) - 1)
        if len(window) < len(magic):
            return None
        i = window.find(magic)
        while i >= 0:
            if looks_like_record_start(_member_head(fh, pos + i, codec)):
                return pos + i
            i = window.find(magic, i + 1)
        pos += SCAN_WINDOW
