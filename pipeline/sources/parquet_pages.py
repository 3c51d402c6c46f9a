"""Parquet page headers, read from the file without decoding a page: how big each page of a
column chunk is once decompressed, which Arrow allocates whole to read any value in it; and
the start of the footer (:func:`footer_facts`), read without Arrow's parse of all of it.

A page is its header, a Thrift compact-protocol ``PageHeader`` struct (parquet-format's
``parquet.thrift``: field 1 ``type``, 2 ``uncompressed_page_size``, 3
``compressed_page_size``, all i32; then an optional crc and a nested header per page kind),
followed by ``compressed_page_size`` bytes. Only fields 1-3 are kept; every other field is
skipped by its wire type, so headers from any writer and any format version are read.

The input is hostile: nesting is bounded (``MAX_DEPTH``), so is a header's size
(``MAX_HEADER``, Arrow's default), and every length or element count is checked against
the bytes left before anything is read or looped over, so a corrupt header ends in
:class:`PageHeaderError` in time linear in its bytes, never in an endless loop or a large
allocation.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

#: Structs and containers nested deeper than this in a header are corrupt (parquet.thrift
#: nests 3 deep: PageHeader > DataPageHeader > Statistics).
MAX_DEPTH = 32
#: A page header over this is corrupt (Arrow's default max_page_header_size).
MAX_HEADER = 16 * 2**20
#: The first read for a header; grown 4x at a time while the header is longer.
FIRST_READ = 16 * 2**10

# Compact-protocol wire types (the low nibble of a field header or a container header).
_TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY = 1, 2, 3, 4, 5, 6, 7, 8
_LIST, _SET, _MAP, _STRUCT, _UUID = 9, 10, 11, 12, 13
_FIXED = {_BYTE: 1, _DOUBLE: 8, _UUID: 16}  # wire types of a fixed size (bytes)
_INT32 = 2**31


class PageHeaderError(ValueError):
    """A page header that cannot be read: corrupt, cut short, or past a bound."""


class _Short(PageHeaderError):
    """The header runs past the bytes given: a longer read may hold it."""


@dataclass(frozen=True, slots=True)
class PageHeader:
    """The fields of a ``PageHeader`` that size a page, and the header's own length."""

    type: int
    uncompressed_page_size: int
    compressed_page_size: int
    header_length: int


class _Cursor:
    """Reads compact-protocol values from ``data``, never past its end."""

    __slots__ = ("data", "pos")

    def __init__(self, data: bytes | memoryview) -> None:
        self.data = data
        self.pos = 0

    def left(self) -> int:
        return len(self.data) - self.pos

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise _Short("page header cut short")
        value = self.data[self.pos]
        self.pos += 1
        return value

    def skip(self, n: int) -> None:
        if n > self.left():
            raise _Short("page header cut short")
        self.pos += n

    def varint(self, max_bytes: int = 10) -> int:
        result = shift = 0
        for _ in range(max_bytes):
            byte = self.byte()
            result |= (byte & 0x7F) << shift
            if byte < 0x80:
                return result
            shift += 7
        raise PageHeaderError(f"varint over {max_bytes} bytes")

    def i32(self) -> int:
        raw = self.varint(5)
        value = (raw >> 1) ^ -(raw & 1)  # zigzag
        if not -_INT32 <= value < _INT32:
            raise PageHeaderError(f"i32 out of range: {value}")
        return value

    def i16(self) -> int:
        raw = self.varint(3)
        return (raw >> 1) ^ -(raw & 1)

    def count(self, n: int, least: int) -> int:
        """A container's element count, each element at least ``least`` bytes on the wire:
        checked against the bytes left before any loop (a lie cannot spin or allocate)."""
        if n * least > self.left():
            raise _Short(f"{n} elements in {self.left()} bytes")
        return n

    def value(self, wire: int, depth: int) -> None:
        """Skip one value of wire type ``wire`` (a field's value or a container element)."""
        if wire in (_TRUE, _FALSE):
            self.skip(1)  # a bool element in a container is one byte
        elif wire in _FIXED:
            self.skip(_FIXED[wire])
        elif wire in (_I16, _I32, _I64):
            self.varint()
        elif wire == _BINARY:
            self.skip(self.varint())
        elif wire in (_LIST, _SET, _MAP, _STRUCT):
            if depth >= MAX_DEPTH:
                raise PageHeaderError(f"nested over {MAX_DEPTH} deep")
            self.nested(wire, depth + 1)
        else:
            raise PageHeaderError(f"unknown wire type {wire}")

    def nested(self, wire: int, depth: int) -> None:
        if wire == _STRUCT:
            self.fields(depth)
        elif wire == _MAP:
            size = self.varint()
            if size:
                types = self.byte()
                for _ in range(self.count(size, 2)):
                    self.value(types >> 4, depth)
                    self.value(types & 0x0F, depth)
        else:  # list, set: size in the high nibble, 15 = a varint follows
            head = self.byte()
            size = head >> 4 if head >> 4 != 15 else self.varint()
            elem = head & 0x0F
            width = _FIXED.get(elem, 1 if elem in (_TRUE, _FALSE) else 0)
            if width:  # elements of one size: skipped at once, not one by one
                self.skip(self.count(size, width) * width)
                return
            for _ in range(self.count(size, 1)):
                self.value(elem, depth)

    def fields(self, depth: int) -> dict[int, int]:
        """Read a struct to its stop byte; the i32 fields 1-3 (the top level's only)."""
        kept: dict[int, int] = {}
        field = 0
        while (head := self.byte()) != 0:
            wire, delta = head & 0x0F, head >> 4
            field = field + delta if delta else self.i16()
            if depth == 0 and field in (1, 2, 3):
                if wire != _I32:
                    raise PageHeaderError(f"field {field} has wire type {wire}, not i32")
                kept[field] = self.i32()
            elif wire in (_TRUE, _FALSE):
                pass  # a bool field's value is its wire type
            else:
                self.value(wire, depth)
        return kept


def parse_page_header(data: bytes | memoryview) -> PageHeader:
    """The ``PageHeader`` at the start of ``data`` (the bytes after it are ignored).

    Raises :class:`PageHeaderError` if the header is corrupt or longer than ``data``.
    """
    cur = _Cursor(data)
    kept = cur.fields(0)
    missing = [f for f in (1, 2, 3) if f not in kept]
    if missing:
        raise PageHeaderError(f"required field(s) {missing} missing")
    if kept[2] < 0 or kept[3] < 0:
        raise PageHeaderError(f"negative page size ({kept[2]}, {kept[3]})")
    return PageHeader(kept[1], kept[2], kept[3], cur.pos)


class PageScanner:
    """Reads page headers through a seekable binary file (seek and small reads only, so an
    fsspec file on a remote store serves it as well as a local one). Bytes read for one
    header are kept for the next, so a chunk of small pages costs one read per
    ``FIRST_READ`` bytes, and a chunk of big pages one small read per page."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.buf = b""
        self.at = 0

    def _bytes(self, pos: int, size: int) -> memoryview:
        """``size`` bytes from ``pos`` (fewer only at the end of the file)."""
        if self.at <= pos and pos + size <= self.at + len(self.buf):
            return memoryview(self.buf)[pos - self.at:pos - self.at + size]
        self.fh.seek(pos)
        parts: list[bytes] = []
        got = 0
        while got < size:  # a raw or remote file may return less than asked
            part = self.fh.read(size - got)
            if not part:
                break
            parts.append(part)
            got += len(part)
        self.buf, self.at = b"".join(parts), pos
        return memoryview(self.buf)

    def header(self, pos: int, end: int) -> PageHeader:
        """The page header at ``pos``, which must end before ``end`` (the chunk's end)."""
        size = FIRST_READ
        while True:
            want = min(size, end - pos)
            window = self._bytes(pos, want)
            try:
                return parse_page_header(window)
            except _Short as exc:
                if len(window) < want or want == end - pos or want >= MAX_HEADER:
                    where = "the file" if len(window) < want else (
                        "the column chunk" if want == end - pos else f"{MAX_HEADER} bytes")
                    raise PageHeaderError(f"page header at {pos} runs past {where}: {exc}") from None
                size = min(size * 4, MAX_HEADER)

    def pages(self, start: int, length: int) -> Iterator[PageHeader]:
        """The header of each page in ``length`` bytes from ``start`` (a column chunk)."""
        if start < 0 or length < 0:
            raise PageHeaderError(f"column chunk at {start}, {length} bytes")
        pos, end = start, start + length
        while pos < end:
            head = self.header(pos, end)
            yield head
            pos += head.header_length + head.compressed_page_size  # >= 1: the loop ends

    def largest_page(self, start: int, length: int) -> int:
        """The largest ``uncompressed_page_size`` of the pages of a column chunk."""
        return max((head.uncompressed_page_size for head in self.pages(start, length)), default=0)


# ---- the footer ----------------------------------------------------------------------

#: A file ends with its footer (a Thrift compact ``FileMetaData``), the footer's length
#: (4 bytes, little-endian) and the magic ``PAR1`` (parquet-format, *File format*).
MAGIC = b"PAR1"
#: The footer bytes :func:`footer_facts` reads at most: FileMetaData's fields 1-3 (version,
#: schema, num_rows) come first, then the row groups' list header.
FOOTER_HEAD = 4 * 2**20
#: Schema elements read at most (a raw-response table has a handful of columns).
MAX_SCHEMA_ELEMENTS = 10_000


@dataclass(frozen=True, slots=True)
class FooterFacts:
    """What a footer says of its size before it is parsed: its length in bytes, and (None
    when they could not be read from its first :data:`FOOTER_HEAD` bytes) the schema's
    elements, the leaf columns among them (a column chunk per row group each; None when the
    schema has more than :data:`MAX_SCHEMA_ELEMENTS`), the rows and the row groups."""

    length: int
    schema_elements: int | None
    leaves: int | None
    num_rows: int | None
    row_groups: int | None


def read_footer_facts(fh: BinaryIO) -> FooterFacts | None:
    """The :class:`FooterFacts` of the Parquet file ``fh`` (seekable), or None when it does
    not end like one (Arrow then says what is wrong with it)."""
    size = fh.seek(0, 2)
    if size < 12:
        return None
    fh.seek(size - 8)
    tail = fh.read(8)
    if len(tail) < 8 or tail[4:] != MAGIC:
        return None
    length = int.from_bytes(tail[:4], "little")
    if length > size - 12:
        return None
    fh.seek(size - 8 - length)
    return footer_facts(fh.read(min(length, FOOTER_HEAD)), length)


def footer_facts(head: bytes, length: int) -> FooterFacts:
    """The facts of a footer of ``length`` bytes from its first bytes ``head``: FileMetaData
    field 2 ``schema`` (list<SchemaElement>; a leaf is an element without field 5
    ``num_children``), field 3 ``num_rows`` (i64) and the list header of field 4
    ``row_groups``, read with the page headers' bounded reader; what it cannot reach (past
    ``head`` or a schema over :data:`MAX_SCHEMA_ELEMENTS`, a corrupt head) is None.

    >>> import io, pyarrow as pa, pyarrow.parquet as pq
    >>> buf = io.BytesIO()
    >>> pq.write_table(pa.table({"url": ["a", "b", "c"], "body": [b"x"] * 3}), buf, row_group_size=2)
    >>> read_footer_facts(buf)
    FooterFacts(length=..., schema_elements=3, leaves=2, num_rows=3, row_groups=2)
    """
    cur = _Cursor(head)
    elements = leaves = num_rows = row_groups = None
    field = 0
    try:
        while (byte := cur.byte()) != 0:
            wire, delta = byte & 0x0F, byte >> 4
            field = field + delta if delta else cur.i16()
            if field == 2 and wire == _LIST:
                list_head = cur.byte()
                elements = list_head >> 4 if list_head >> 4 != 15 else cur.varint()
                if list_head & 0x0F != _STRUCT or elements > MAX_SCHEMA_ELEMENTS:
                    break
                leaves = _schema_leaves(cur, elements)
            elif field == 3 and wire == _I64:
                raw = cur.varint()
                num_rows = (raw >> 1) ^ -(raw & 1)
            elif field == 4 and wire == _LIST:
                list_head = cur.byte()
                row_groups = list_head >> 4 if list_head >> 4 != 15 else cur.varint()
                break  # (the row groups themselves are what Arrow's parse costs)
            elif wire not in (_TRUE, _FALSE):
                cur.value(wire, 0)
    except PageHeaderError:
        pass  # what was read stands; the rest is unknown
    if num_rows is not None and num_rows < 0:
        num_rows = None
    return FooterFacts(length, elements, leaves, num_rows, row_groups)


def _schema_leaves(cur: _Cursor, size: int) -> int:
    """The leaf elements among the ``size`` SchemaElements at ``cur``."""
    leaves = 0
    for _ in range(cur.count(size, 1)):
        field, group = 0, False
        while (byte := cur.byte()) != 0:
            wire, delta = byte & 0x0F, byte >> 4
            field = field + delta if delta else cur.i16()
            if field == 5 and wire == _I32:
                group = cur.i32() > 0
            elif wire not in (_TRUE, _FALSE):
                cur.value(wire, 1)
        leaves += not group
    return leaves
