"""The compressed containers an archive comes in, recognised by their first bytes.

Each codec reads a file as a series of independently compressed members (a gzip member, a
zstd or LZ4 frame, a bzip2 stream), one record per member in the normal case, so that every
record keeps a compressed offset and length. Every decompressor here is driven through the
one contract zlib defines (``decompress(data, max_length)``, ``unconsumed_tail``,
``unused_data``, ``eof``): output is always bounded by ``max_length``, whatever the input.

=========  ==============================  ==============================================
codec      magic                           member
=========  ==============================  ==============================================
``gzip``   ``1f 8b 08``                    RFC 1952 member (WARC 1.1 Annex D)
``zstd``   ``28 b5 2f fd``                 RFC 8878 frame; IIPC *Zstandard Compression for
           (or ``5d 2a 4d 18``: a          WARC Files 1.0*: an optional dictionary in a
           dictionary frame first)         skippable frame (magic 0x184D2A5D) at the start
                                           of the file, other skippable frames skipped
``lz4``    ``04 22 4d 18``                 LZ4 frame (FastWARC writes one per record)
``bzip2``  ``42 5a 68`` ("BZh")            bzip2 stream
=========  ==============================  ==============================================
"""

from __future__ import annotations

import bz2
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import lz4.frame
import zstandard

from pipeline.inflate import GZIP_WBITS, INFLATE_ERRORS, decompressobj

GZIP_MAGIC = b"\x1f\x8b\x08"  # ID1 ID2 CM=deflate (RFC 1952 §2.3.1)
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"  # RFC 8878 §3.1.1 Magic_Number 0xFD2FB528, little-endian
LZ4_MAGIC = b"\x04\x22\x4d\x18"  # LZ4 frame format: Magic Number 0x184D2204, little-endian
BZIP2_MAGIC = b"BZh"
# RFC 8878 §3.1.2: skippable frames have magics 0x184D2A50-0x184D2A5F; the WARC-zstd
# proposal's dictionary frame is 0x184D2A5D.
ZSTD_DICT_MAGIC = b"\x5d\x2a\x4d\x18"
_SKIPPABLE_LOW = 0x184D2A50
MAX_ZSTD_DICTIONARY = 16 << 20  # a dictionary frame larger than this is not a dictionary
# zstd's decompressobj has no output bound: feed it this much input per call, so that one
# call's output stays below ~32 MiB even for the format's best ratio (RLE blocks).
_ZSTD_PIECE = 1024


class DictionaryError(ValueError):
    """A WARC-zstd dictionary frame that cannot be used."""


@dataclass(frozen=True, slots=True)
class Codec:
    """How one kind of member is recognised and decompressed."""

    name: str
    magic: bytes
    new: Callable[[], Any]  # a zlib-like decompressor for one member
    errors: tuple[type[BaseException], ...]  # what it raises on corrupt data

    def starts_member(self, head: bytes) -> bool:
        """True when ``head`` (the next bytes of the file) begins a member."""
        return head.startswith(self.magic)

    def padding(self, head: bytes) -> int | None:
        """The size of a frame to skip that ``head`` starts with (zstd's skippable frames:
        the WARC-zstd dictionary and extension frames), else None."""
        return skippable_frame_size(head) if self.name == "zstd" else None


class _NeedsInput:
    """zlib's contract over a decompressor that keeps its own input (bz2, LZ4)."""

    __slots__ = ("_d", "unconsumed_tail")

    def __init__(self, d: Any) -> None:
        self._d = d
        self.unconsumed_tail = b""

    @property
    def eof(self) -> bool:
        return bool(self._d.eof)

    @property
    def unused_data(self) -> bytes:
        return bytes(self._d.unused_data or b"") + self.unconsumed_tail

    def decompress(self, data: bytes, max_length: int = -1) -> bytes:
        if self._d.eof:
            self.unconsumed_tail = data
            return b""
        if not self._d.needs_input:
            # It still holds input from the last call: hand the new bytes back untouched.
            self.unconsumed_tail = data
            data = b""
        else:
            self.unconsumed_tail = b""
        return bytes(self._d.decompress(data, max_length))


class _ZstdBounded:
    """zlib's contract (bounded output) over zstandard's unbounded decompressobj.

    One piece of input can give ~32 MiB of output (RLE blocks); what is over the caller's
    ``max_length`` is kept whole and handed out ``max_length`` bytes at a time from an
    offset, so each output byte is copied once (slicing the rest off at every call copied
    the leftover again each time: 256 MiB of zeros took ~45 s where gzip takes ~0.7)."""

    __slots__ = ("_d", "_extra", "_at", "_rest", "unconsumed_tail")

    def __init__(self, d: Any) -> None:
        self._d = d
        self._extra = b""  # output made beyond an earlier call's max_length ...
        self._at = 0  # ... of which the bytes before this offset were handed out
        self._rest = b""  # input after the frame's end, never fed
        self.unconsumed_tail = b""

    @property
    def eof(self) -> bool:
        return bool(self._d.eof) and self._at >= len(self._extra)

    @property
    def unused_data(self) -> bytes:
        return bytes(self._d.unused_data) + self._rest

    def decompress(self, data: bytes, max_length: int = -1) -> bytes:
        want = max_length if max_length > 0 else 1 << 62
        out: list[bytes] = []
        got = 0
        if self._at < len(self._extra):
            piece = self._extra[self._at : self._at + want]
            self._at += len(piece)
            out.append(piece)
            got = len(piece)
            if self._at >= len(self._extra):
                self._extra, self._at = b"", 0  # (not held once handed out)
        pos = 0
        while got < want and pos < len(data) and not self._d.eof:
            piece = self._d.decompress(data[pos : pos + _ZSTD_PIECE])
            pos += _ZSTD_PIECE
            if got + len(piece) > want:
                self._extra, self._at = piece, want - got  # the rest, for the next calls
                piece = piece[: want - got]
            out.append(piece)
            got += len(piece)
        if self._d.eof:
            self._rest += data[pos:]
            self.unconsumed_tail = b""
        else:
            self.unconsumed_tail = data[pos:]
        return out[0] if len(out) == 1 else b"".join(out)


def zstd_codec(dictionary: bytes | None = None) -> Codec:
    """The zstd codec, with the file's dictionary when it has one."""
    dctx = (zstandard.ZstdDecompressor(dict_data=zstandard.ZstdCompressionDict(dictionary))
            if dictionary else zstandard.ZstdDecompressor())
    return Codec("zstd", ZSTD_MAGIC, lambda: _ZstdBounded(dctx.decompressobj()),
                 (zstandard.ZstdError,))


GZIP = Codec("gzip", GZIP_MAGIC, lambda: decompressobj(GZIP_WBITS), INFLATE_ERRORS)
LZ4 = Codec("lz4", LZ4_MAGIC, lambda: _NeedsInput(lz4.frame.LZ4FrameDecompressor()), (RuntimeError,))
BZIP2 = Codec("bzip2", BZIP2_MAGIC, lambda: _NeedsInput(bz2.BZ2Decompressor()), (OSError, ValueError))
ZSTD = zstd_codec()


def sniff_codec(head: bytes) -> Codec | None:
    """The codec a file starting with ``head`` is compressed with; None for plain files.

    >>> sniff_codec(b"\\x1f\\x8b\\x08\\x00").name, sniff_codec(b"BZh91AY").name
    ('gzip', 'bzip2')
    >>> sniff_codec(b"WARC/1.1") is None
    True
    """
    if head.startswith(GZIP_MAGIC):
        return GZIP
    if head.startswith((ZSTD_MAGIC, ZSTD_DICT_MAGIC)):
        return ZSTD
    if head.startswith(LZ4_MAGIC):
        return LZ4
    if head.startswith(BZIP2_MAGIC) and head[3:4] in b"123456789" and len(head) >= 4:
        return BZIP2
    return None


#: The bytes :func:`stored_size` needs from a member's start (a zstd frame header at most).
MEMBER_HEAD = 18


def stored_size(codec: Codec, head: bytes, tail: bytes) -> int | None:
    """The uncompressed size a member records about itself: gzip's ISIZE (RFC 1952 §2.3.1,
    its last 4 bytes, ``tail``: the size modulo 2^32), a zstd frame's Frame_Content_Size
    (RFC 8878 §3.1.1.1.4) or an LZ4 frame's Content Size (LZ4 Frame Format §Frame
    Descriptor: FLG bit 3, then 8 bytes after FLG and BD), both in the frame header:
    ``head`` holds the member's first :data:`MEMBER_HEAD` bytes. None when it records none
    (zstd and LZ4 frames may leave it out; bzip2 is not asked).

    >>> import gzip
    >>> member = gzip.compress(b"x" * 70_000)
    >>> stored_size(GZIP, member[:MEMBER_HEAD], member[-4:])
    70000
    >>> stored_size(ZSTD, zstandard.ZstdCompressor().compress(b"abc"), b"")
    3
    >>> stored_size(LZ4, lz4.frame.compress(b"abcd")[:MEMBER_HEAD], b"")
    4
    """
    if codec.name == "gzip":
        return int.from_bytes(tail[-4:], "little") if len(tail) >= 4 else None
    if codec.name == "zstd":
        try:
            stored = zstandard.get_frame_parameters(head).content_size
        except zstandard.ZstdError:
            return None
        return None if stored == zstandard.CONTENTSIZE_UNKNOWN else stored
    if codec.name == "lz4" and len(head) >= 14 and head[4] & 0x08:
        return int.from_bytes(head[6:14], "little")
    return None


def _lz4_blocks_at(head: bytes) -> tuple[int, int] | None:
    """(FLG, offset of the first block's size) of the LZ4 frame ``head`` starts with, or
    None (LZ4 Frame Format §Frame Descriptor: version 01, reserved bit 1 clear; Content
    Size (8 bytes) if FLG bit 3, Dictionary ID (4 bytes) if FLG bit 0, then HC)."""
    if len(head) < 7 or not head.startswith(LZ4_MAGIC):
        return None
    flg = head[4]
    if flg >> 6 != 1 or flg & 0x02:
        return None
    return flg, 7 + (8 if flg & 0x08 else 0) + (4 if flg & 0x01 else 0)


#: Blocks :func:`lz4_frame_end` walks at most: a frame's blocks may be of any size down to
#: one byte, and walking costs ~0.6 µs a block where decompressing costs ~2 ms a MB.
LZ4_MAX_BLOCKS = 4096


def lz4_frame_end(read_at: Callable[[int, int], bytes], start: int, limit: int) -> int | None:
    """Where the LZ4 frame that starts at ``start`` ends, found from its headers without
    decompressing it; None when the bytes there are not the start of a frame, when the
    frame runs past ``limit``, or when it has more than :data:`LZ4_MAX_BLOCKS` blocks.
    ``read_at(pos, n)``: the file's ``n`` bytes at ``pos`` (fewer at its end).

    LZ4 Frame Format §General Structure: Magic Number, Frame Descriptor, Data Blocks,
    EndMark (a zero block size), Content Checksum (4 bytes) if FLG bit 2. §Data Blocks: a
    block is its size (4 bytes, little-endian; the highest bit flags a block stored
    uncompressed), its data, then a Block Checksum (4 bytes) if FLG bit 4.

    >>> frame = lz4.frame.compress(b"abcd" * 50_000, store_size=False)
    >>> lz4_frame_end(lambda pos, n: frame[pos:pos + n], 0, len(frame)) == len(frame)
    True
    >>> lz4_frame_end(lambda pos, n: frame[pos:pos + n], 0, len(frame) - 1) is None
    True
    """
    found = _lz4_blocks_at(read_at(start, 15))
    if found is None:
        return None
    flg, pos = found[0], start + found[1]
    block_checksum = 4 if flg & 0x10 else 0
    for _ in range(LZ4_MAX_BLOCKS):
        if pos + 4 > limit:
            break
        field = read_at(pos, 4)
        if len(field) < 4:
            return None
        size = int.from_bytes(field, "little")
        pos += 4
        if not size:  # the EndMark
            if flg & 0x04 and len(read_at(pos, 4)) < 4:  # the Content Checksum, cut off
                return None
            end = pos + (4 if flg & 0x04 else 0)
            return end if end <= limit else None
        pos += (size & 0x7FFFFFFF) + block_checksum
    return None


def lz4_content_starts_with(head: bytes, prefix: bytes) -> bool:
    """Whether the content of the LZ4 frame at the start of ``head`` begins with ``prefix``,
    read off its first block without decompressing: the block's data if it is stored
    uncompressed, else its first sequence's literals (LZ4 Block Format §Compressed block
    format: a token whose high 4 bits are the literal length, 15 continued by bytes of 255
    until one is smaller, then the literals). False when they are too short to tell, or the
    frame names a dictionary (its first bytes may then be copied from it).

    >>> frame = lz4.frame.compress(b"WARC/1.1\\r\\nWARC-Type: response\\r\\n", store_size=False)
    >>> lz4_content_starts_with(frame, b"WARC/"), lz4_content_starts_with(frame, b"HTTP/")
    (True, False)
    """
    found = _lz4_blocks_at(head)
    if found is None or found[0] & 0x01:
        return False
    at = found[1]
    field = head[at:at + 4]
    if len(field) < 4 or field == b"\0\0\0\0":
        return False
    at += 4
    if field[3] & 0x80:  # stored uncompressed
        return head.startswith(prefix, at)
    token = head[at:at + 1]
    literals = token[0] >> 4 if token else 0
    at += 1
    if literals == 15:
        while at < len(head):
            more = head[at]
            literals += more
            at += 1
            if more != 255:
                break
    return literals >= len(prefix) and head.startswith(prefix, at)


def skippable_frame_size(head: bytes) -> int | None:
    """The total size of the zstd skippable frame ``head`` starts with, else None.

    RFC 8878 §3.1.2: Magic_Number (4 bytes, 0x184D2A5?), Frame_Size (4 bytes,
    little-endian), then Frame_Size bytes of user data.
    """
    if len(head) < 8:
        return None
    magic = int.from_bytes(head[:4], "little")
    if magic & 0xFFFFFFF0 != _SKIPPABLE_LOW:
        return None
    return 8 + int.from_bytes(head[4:8], "little")


def read_zstd_dictionary(frame: bytes) -> bytes:
    """The dictionary held in a WARC-zstd dictionary frame (the proposal's *dict-frame*):
    the frame's payload is the dictionary, itself zstd-compressed when it starts with a
    zstd frame magic. Raises :class:`DictionaryError` when it cannot be read."""
    payload = frame[8:]
    if payload.startswith(ZSTD_MAGIC):
        try:
            reader = zstandard.ZstdDecompressor().stream_reader(payload)
            payload = reader.read(MAX_ZSTD_DICTIONARY + 1)
        except zstandard.ZstdError as exc:
            raise DictionaryError(f"compressed dictionary frame: {exc}") from exc
    if not payload or len(payload) > MAX_ZSTD_DICTIONARY:
        raise DictionaryError(f"dictionary of {len(payload)} bytes")
    return payload
