"""Byte streams under the archive reader: a line reader with absolute positions, the
compressed file read as a sequence of gzip members, and the resync scanners used after a
broken record.

Nothing here parses WARC/ARC headers (warcio's loader does that, in ``warc.py``); these
classes only make sure we always know *where* in the file we are, so that every record and
every failure gets a real offset.
"""

from __future__ import annotations

import re
import zlib
from typing import BinaryIO, Protocol

CHUNK = 1 << 16  # read size for files and gzip members; large enough to amortize calls
GZIP_MAGIC = b"\x1f\x8b\x08"  # ID1 ID2 CM=deflate (RFC 1952 §2.3.1)
SCAN_WINDOW = 1 << 20  # resync scans the file in windows of this size
# A WARC record starts with a version line; an ARC v1 record with a URL line of five
# space-separated fields ending in a length (the "URL-record-v1" of the ARC spec).
_WARC_LINE = re.compile(rb"(?:^|\n)(WARC/[0-9]\.[0-9]+\r?\n)")
_ARC_LINE = re.compile(rb"(?:^|\n)([a-z][a-z0-9+.-]*:\S* \S+ [0-9]{12,18} \S+ -?[0-9]+\r?\n)")


class RawRead(Protocol):
    """Anything with ``read(n) -> bytes``: a file, or a :class:`GzipMember`."""

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

    def _fill(self) -> bool:
        data = self._raw.read(CHUNK)
        if not data:
            return False
        self._base += self._pos
        self._buf = self._buf[self._pos :] + data
        self._pos = 0
        return True

    def readline(self, limit: int | None = None) -> bytes:
        """One line including its LF (or up to ``limit`` bytes, or to the end)."""
        while True:
            i = self._buf.find(b"\n", self._pos)
            if i >= 0 and (limit is None or i - self._pos < limit):
                end = i + 1
                break
            if limit is not None and len(self._buf) - self._pos >= limit:
                end = self._pos + limit
                break
            if not self._fill():
                end = len(self._buf) if limit is None else min(len(self._buf), self._pos + limit)
                break
        out = self._buf[self._pos : end]
        self._pos = end
        return out

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

    def seek(self, pos: int) -> None:
        """Continue reading at file offset ``pos``."""
        self._fh.seek(pos)
        self._pending = b""
        self.pos = pos


class GzipMember:
    """The decompressed bytes of the one gzip member starting at ``offset`` (RFC 1952).

    ``read`` raises ``zlib.error`` on corrupt data (including a bad CRC-32 or ISIZE at the
    member's end). When the file ends before the member does, ``truncated`` becomes True and
    ``read`` returns what could be decompressed. ``end`` is the member's end offset in the
    compressed file once the member has been read completely.
    """

    __slots__ = ("_src", "_d", "_tail", "offset", "end", "truncated")

    def __init__(self, src: CompressedSource) -> None:
        self._src = src
        self._d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._tail = b""
        self.offset = src.pos
        self.end: int | None = None
        self.truncated = False

    @property
    def done(self) -> bool:
        """True when the member has ended (completely or cut off)."""
        return self.end is not None or self.truncated

    def read(self, n: int = -1, /) -> bytes:
        """Up to ``n`` decompressed bytes (``n`` < 0: a chunk's worth); b"" at the end."""
        want = CHUNK if n < 0 else n
        out: list[bytes] = []
        got = 0
        while got < want and not self.done:
            data = self._tail or self._src.chunk()
            if not data:
                self.truncated = True
                break
            piece = self._d.decompress(data, want - got)
            self._tail = self._d.unconsumed_tail
            if piece:
                out.append(piece)
                got += len(piece)
            if self._d.eof:
                self._src.push_back(self._d.unused_data)
                self.end = self._src.pos
        return b"".join(out)

    def drain(self) -> None:
        """Read (and discard) the rest of the member, so that ``end`` is known."""
        while not self.done:
            self.read(CHUNK)


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


def _member_head(fh: BinaryIO, pos: int) -> bytes:
    fh.seek(pos)
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        return d.decompress(fh.read(4096), 256)
    except zlib.error:
        return b""


def find_next_member(fh: BinaryIO, after: int) -> int | None:
    """The offset of the next gzip member at or after ``after`` whose content starts like a
    WARC/ARC record (a bare magic number inside compressed data is not enough)."""
    pos = after
    while True:
        fh.seek(pos)
        window = fh.read(SCAN_WINDOW + 2)
        if len(window) < 3:
            return None
        i = window.find(GZIP_MAGIC)
        while i >= 0:
            if looks_like_record_start(_member_head(fh, pos + i)):
                return pos + i
            i = window.find(GZIP_MAGIC, i + 1)
        pos += SCAN_WINDOW


def find_next_record(fh: BinaryIO, after: int) -> int | None:
    """The offset of the next line at or after ``after`` that looks like the start of a WARC
    or ARC record (the caller's parse confirms it; a false hit only costs one more error)."""
    pos = after
    while True:
        fh.seek(pos)
        window = fh.read(SCAN_WINDOW + 512)
        if not window:
            return None
        hits = [m.start(1) for rx in (_WARC_LINE, _ARC_LINE) if (m := rx.search(window))]
        if hits:
            return pos + min(hits)
        if len(window) <= SCAN_WINDOW:
            return None
        pos += SCAN_WINDOW
