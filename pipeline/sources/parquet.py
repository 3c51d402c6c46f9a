"""Read Parquet tables of raw HTTP responses into :class:`RawRecord` values, streaming.

The documented schema (one row per response; names can be remapped with ``columns``, e.g.
``{"url": "target_uri", "body": "payload"}``):

==============  =======================================  =====================================
column          type                                     meaning
==============  =======================================  =====================================
``url``         string (required)                        the target URI
``body``        binary (required)                        the payload as received (content
                                                         codings, if any, still applied)
``fetch_time``  string (ISO 8601) or timestamp           when it was fetched
``status``      integer                                  the HTTP status code
``headers``     binary or string: the raw header block   the HTTP response header fields
                (with or without the status line); or
                map<string, string|binary>; or
                list<struct<name, value>>
``record_id``   string                                   a stable id (default: derived from
                                                         the file name and row number)
==============  =======================================  =====================================

Memory: rows are read one at a time (``BATCH_ROWS``): the row group's metadata cannot bound
a batch's bytes (a dictionary-encoded body column of 64 equal 24 MiB cells is 98 KB on
disk and in the metadata, 1.5 GiB decoded), so memory holds one row's cells, not 64; the
cost is ~10 µs per row, small beside decoding a page. A row group whose byte-valued
columns are dictionary-encoded and whose wanted chunks decode to at most ``max_body`` is
read whole instead, those columns kept as dictionaries: a value is decoded once and a
row's cell made only when its row is (read a row at a time, Arrow expands the dictionary
into every batch; the 64 rows above took a worker to 358 MB that way, 265 MB so). But Arrow decompresses a whole data
page to read any value in it, and one page can hold many rows: plain-encoded, the same 64
cells are one 51 KB zstd page of 1.5 GiB. So before a row group is read, each wanted column
chunk whose ``total_uncompressed_size`` (footer) is over ``max_page`` has its page headers
read (:mod:`pipeline.sources.parquet_pages`; small reads through the same file), and a row
group with a page whose ``uncompressed_page_size`` is over ``max_page`` (default
``4 * max_body``) is not read: each of its rows is a ``RecordError``
(``source-page-too-large``; at most ``MAX_ROW_ERRORS`` per row group, then one for the
rest) and reading goes on with the next row group. Arrow allocates a page by that header
field and fails a page that decodes to another size, so the header bounds what a page
costs. Legitimate pages can be big (pyarrow's writer checks a page's size every 1,024
values: 1,500 bodies of 100 KB make ~100 MB pages), hence a limit well over ``max_body``;
a row group's uncompressed size (GBs in a legitimate table) is no criterion. The footer
itself is trusted: a chunk whose ``total_uncompressed_size`` understates its pages is not
scanned. A page header that cannot be read ends the file like a row group Arrow cannot read
(``source-read-failed``; the rows before it are kept).

A body cell over ``max_body`` (the rules' ``max_decompressed``) is cut there and flagged
like an archive block over the cap (``block_truncation="cap"``). The locator of a row is
``warc_filename`` = the Parquet file, ``warc_record_offset`` = the row number and
``warc_record_length`` = the body's stored length. A file that cannot be opened, or lacks
a required column, gives one ``RecordError`` (offset None).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack
from datetime import datetime
from pathlib import PurePath
from typing import Any, BinaryIO, NamedTuple

from pipeline.errors import RecordError
from pipeline.sources.parquet_pages import (
    FooterFacts,
    PageHeaderError,
    PageScanner,
    read_footer_facts,
)
from pipeline.sources.record import RawRecord

BATCH_ROWS = 1  # rows per batch: see the module docstring
MAX_BODY = 64 * 2**20  # the default cap on a body cell (the rules' max_decompressed)
#: The default limit on a page's decoded size is this many times ``max_body``: a page holds
#: many cells, and pyarrow's writer lets a page run past its target (module docstring).
PAGE_PER_BODY = 4
MAX_PAGE = PAGE_PER_BODY * MAX_BODY
#: A skipped row group's rows are one error each up to this many (pyarrow's default
#: row group length), then one error for the rest: the count is the footer's word, and
#: a 50 KB file must not become billions of errors rows.
MAX_ROW_ERRORS = 2**20
REQUIRED = ("url", "body")
OPTIONAL = ("fetch_time", "status", "headers", "record_id")
#: Arrow parses the whole footer before a row is read, holding ~1.4 KB per column chunk
#: (200,000 one-row row groups, a 44 MB footer: 860 MB): a file whose footer is longer than
#: this, or that has more column chunks (row groups x leaf columns) or schema elements than
#: these, is not read; each of its rows is a ``source-metadata-too-large`` error (at most
#: ``MAX_ROW_ERRORS``, then one for the rest). A raw-response table of 1,000 row groups and
#: 20 columns has 20,000 chunks and a footer of a few MB.
MAX_FOOTER = 16 * 2**20
MAX_COLUMN_CHUNKS = 50_000
#: A header map or list is cut as the http stage cuts a header section
#: (:mod:`pipeline.http.message` ``MAX_HEAD``, ``MAX_FIELD_LINE``; a test keeps them equal):
#: a field whose line ("name: value") is over ``MAX_HEADER_LINE`` bytes is dropped, and so
#: are the fields past ``MAX_HEADER_SECTION`` bytes of lines (CRLF included); the record is
#: flagged ``block_truncation="http-headers"``. Only the fields kept become Python objects
#: (a map of 1,000,000 fields took a worker to 457 MB). A raw header block is cut to
#: ``MAX_RAW_HEAD`` bytes before it is made a Python value: the http stage reads no field
#: past its first 1 MiB, and flags a longer head itself.
MAX_HEADER_SECTION = 1 << 20
MAX_HEADER_LINE = 256 << 10
MAX_RAW_HEAD = 2 * MAX_HEADER_SECTION + MAX_HEADER_LINE


def _to_bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    text = str(value)
    try:
        return text.encode("latin-1")  # isomorphic encode when it fits
    except UnicodeEncodeError:
        return text.encode("utf-8")


def _header_fields(value: Any) -> tuple[tuple[bytes, bytes], ...]:
    """Header fields stored as a map or a list of (name, value) pairs."""
    items: list[tuple[bytes, bytes]] = []
    for entry in value:
        if isinstance(entry, dict):
            name, val = entry.get("name", entry.get("key")), entry.get("value")
        else:
            name, val = entry
        if name is not None and val is not None:
            items.append((_to_bytes(name), _to_bytes(val)))
    return tuple(items)


class _Fields(NamedTuple):
    """A header map's or list's fields as kept, as bytes, and whether any were dropped."""

    fields: tuple[tuple[bytes, bytes], ...]
    cut: bool


def _header_cells(column: Any) -> list[Any]:
    """The ``headers`` cells of an Arrow array or chunked array, one per row, cut as the http
    stage cuts a header section before they become Python values: a raw block (bytes or
    str) to ``MAX_RAW_HEAD``, a map or a list of structs to the :class:`_Fields` kept."""
    cells: list[Any] = []
    for chunk in getattr(column, "chunks", [column]):
        cells += _header_chunk(chunk)
    return cells


def _header_chunk(array: Any) -> list[Any]:
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = array.type
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
        return list(pc.binary_slice(array, 0, MAX_RAW_HEAD).to_pylist())
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return list(pc.utf8_slice_codeunits(array, 0, MAX_RAW_HEAD).to_pylist())
    names = values = None
    if pa.types.is_map(kind):
        names, values = array.keys, array.items
    elif (pa.types.is_list(kind) or pa.types.is_large_list(kind)) and pa.types.is_struct(kind.value_type):
        fields = {kind.value_type.field(j).name for j in range(kind.value_type.num_fields)}
        name = "name" if "name" in fields else "key" if "key" in fields else None
        if name is not None and "value" in fields:
            names, values = array.values.field(name), array.values.field("value")
    if names is None or values is None:
        return list(array.to_pylist())  # (another layout: _header_fields reads it)
    offsets = array.offsets.to_numpy(zero_copy_only=False)
    null = array.is_null().to_numpy(zero_copy_only=False)
    cells: list[Any] = []
    for i in range(len(array)):
        if null[i]:
            cells.append(None)
            continue
        a, b = int(offsets[i]), int(offsets[i + 1])
        # a line is 4 bytes at least ("name: value" CRLF): fields past this many are dropped
        # unread, so the work and memory here stay bounded whatever the map's length
        end = min(b, a + MAX_HEADER_SECTION // 4)
        some, more = names.slice(a, end - a), values.slice(a, end - a)
        present = pc.and_(some.is_valid(), more.is_valid()).to_numpy(zero_copy_only=False)
        line = (pc.fill_null(pc.binary_length(some), 0).to_numpy(zero_copy_only=False).astype(np.int64)
                + pc.fill_null(pc.binary_length(more), 0).to_numpy(zero_copy_only=False) + 2) * present
        keep = present & (np.cumsum(line + 2 * present) <= MAX_HEADER_SECTION) & (line <= MAX_HEADER_LINE)
        at = pa.array(np.flatnonzero(keep), type=pa.int64())
        pairs = zip(some.take(at).to_pylist(), more.take(at).to_pylist(), strict=True)
        dropped = bool(keep.sum() < present.sum()) or (end < b and pc.any(pc.and_(
            names.slice(end, b - end).is_valid(), values.slice(end, b - end).is_valid())).as_py())
        cells.append(_Fields(tuple((_to_bytes(n), _to_bytes(v)) for n, v in pairs), dropped))
    return cells


def _http_message(head: Any, status: Any, body: bytes) -> bytes:
    """A raw header block (status line optional) and the body as one stored HTTP response,
    for the http stage to parse like a WARC response block (sources never parse HTTP).
    Without a stored status line the ``status`` column's code is used, else ``000``, which
    the http stage reads as unknown."""
    raw = _to_bytes(head).rstrip(b"\r\n")
    if not raw.startswith(b"HTTP/"):
        code = int(status) if status is not None else 0
        raw = b"HTTP/1.1 %03d \r\n" % code + raw
    return raw + b"\r\n\r\n" + body


def _time(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    return str(value)


def iter_parquet(path: str, *, columns: dict[str, str] | None = None,
                 fileobj: BinaryIO | None = None, max_body: int = MAX_BODY,
                 max_page: int | None = None) -> Iterator[RawRecord | RecordError]:
    """Every row of a raw-response Parquet table as a ``response`` :class:`RawRecord`;
    ``fileobj`` is the open file (else ``path`` is opened), ``max_body`` the body cap,
    ``max_page`` the limit on a page's decoded size (default ``4 * max_body``): a row group
    with a bigger page in a wanted column is not read, each of its rows an error."""
    import pyarrow.parquet as pq

    limit = max_page if max_page is not None else PAGE_PER_BODY * max_body
    names = {key: (columns or {}).get(key, key) for key in (*REQUIRED, *OPTIONAL)}
    try:
        if fileobj is not None:
            facts = read_footer_facts(fileobj)
        else:
            with open(path, "rb") as fh:
                facts = read_footer_facts(fh)
        too_large = _metadata_over(facts)
        if too_large is None:
            pf = pq.ParquetFile(fileobj if fileobj is not None else path,
                                thrift_container_size_limit=MAX_COLUMN_CHUNKS)
            present = set(pf.schema_arrow.names)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds on bad files
        yield RecordError("source", "source-unreadable-file", f"{type(exc).__name__}: {exc}", path)
        return
    if too_large is not None:
        yield from _metadata_too_large(path, facts, too_large)
        return
    missing = [names[k] for k in REQUIRED if names[k] not in present]
    if missing:
        yield RecordError("source", "source-missing-column",
                          f"required column(s) {missing} not in {sorted(present)}", path)
        return
    wanted = {k: n for k, n in names.items() if n in present}
    base = PurePath(path).name
    row = 0
    wanted_columns = list(dict.fromkeys(wanted.values()))
    # the leaf columns (chunks) the wanted top-level columns read, as pyarrow selects them
    leaves = [j for j, parts in enumerate(pf.reader.column_paths) if parts[0] in wanted_columns]
    # the byte-valued columns a dictionary-encoded row group keeps as dictionaries
    dictionary_columns = [n for n in wanted_columns if _byte_valued(pf.schema_arrow.field(n).type)]
    dictionary_leaves = [j for j in leaves
                         if pf.reader.column_paths[j][0] in dictionary_columns]
    whole: Any = None  # the file read with dictionaries kept: opened when first needed
    with ExitStack() as stack:
        scanner: PageScanner | None = None

        def scan() -> PageScanner:
            nonlocal scanner
            if scanner is None:  # only now: most files never need it
                fh = fileobj if fileobj is not None else stack.enter_context(open(path, "rb"))
                scanner = PageScanner(fh)
            return scanner

        try:
            for group in range(pf.metadata.num_row_groups):
                meta = pf.metadata.row_group(group)
                over = _page_over(meta, leaves, limit, scan)
                if over is not None:
                    yield from _page_too_large(path, row, group, meta.num_rows, *over, limit)
                    row += meta.num_rows
                    continue
                if _dictionary_group(meta, leaves, dictionary_leaves, max_body):
                    if whole is None:  # (the footer parsed once: its metadata shared)
                        whole = pq.ParquetFile(fileobj if fileobj is not None else path,
                                               metadata=pf.metadata, read_dictionary=dictionary_columns)
                    parts = _whole_group(whole, group, wanted, wanted_columns, dictionary_columns)
                else:
                    parts = _row_batches(pf, group, wanted, wanted_columns)
                for cols in parts:
                    for i in range(len(cols["url"])):
                        yield _row(cols, i, row, path, base, max_body)
                        row += 1
        except Exception as exc:  # noqa: BLE001 - a corrupt row group ends the file, rows kept
            yield RecordError("source", "source-read-failed", f"{type(exc).__name__}: {exc}",
                              path, row)


def _metadata_over(facts: FooterFacts | None) -> str | None:
    """Why a file's footer is too large for Arrow to parse, else None (None facts: the file
    does not end like a Parquet file, which Arrow then reports)."""
    if facts is None:
        return None
    if facts.length > MAX_FOOTER:
        return f"a footer of {facts.length} bytes (the limit is {MAX_FOOTER})"
    if facts.schema_elements is not None and facts.leaves is None:
        return f"a schema of {facts.schema_elements} elements"
    if facts.leaves is not None and facts.row_groups is not None:
        chunks = facts.leaves * facts.row_groups
        if chunks > MAX_COLUMN_CHUNKS:
            return (f"{facts.row_groups} row groups of {facts.leaves} columns: {chunks} column "
                    f"chunks (the limit is {MAX_COLUMN_CHUNKS})")
    return None


def _metadata_too_large(path: str, facts: FooterFacts | None, why: str) -> Iterator[RecordError]:
    """The errors of a file whose footer is not parsed: one per row it says it holds (see
    ``MAX_ROW_ERRORS``), or one for the file when the row count could not be read."""
    message = f"{why}; the file is not read"
    rows = facts.num_rows if facts is not None else None
    if rows is None:
        yield RecordError("source", "source-metadata-too-large", f"{message} (its rows unknown)", path)
        return
    for i in range(min(rows, MAX_ROW_ERRORS)):
        yield RecordError("source", "source-metadata-too-large", message, path, i)
    if rows > MAX_ROW_ERRORS:
        yield RecordError("source", "source-metadata-too-large",
                          f"{message} (its last {rows - MAX_ROW_ERRORS} rows, from this one, are "
                          "this one error)", path, MAX_ROW_ERRORS)


def _page_over(meta: Any, leaves: list[int], limit: int,
               scan: Callable[[], PageScanner]) -> tuple[str, int] | None:
    """(column, decoded size) of the first page over ``limit`` in a row group's wanted
    chunks, else None; only a chunk whose footer size is over the limit is scanned."""
    for j in leaves:
        chunk = meta.column(j)
        if chunk.total_uncompressed_size <= limit:
            continue  # no page of the chunk can be over the limit
        largest = _largest_page(scan(), chunk)
        if largest > limit:
            return chunk.path_in_schema, largest
    return None


def _row_batches(pf: Any, group: int, wanted: dict[str, str],
                 columns: list[str]) -> Iterator[dict[str, Column]]:
    """A row group a row at a time (``BATCH_ROWS``), each batch's cells as lists."""
    for batch in pf.iter_batches(batch_size=BATCH_ROWS, row_groups=[group], columns=columns):
        cols: dict[str, Column] = {k: _header_cells(batch.column(n)) if k == "headers"
                                   else batch.column(n).to_pylist() for k, n in wanted.items()}
        del batch  # (not held while the rows are made)
        yield cols


def _whole_group(whole: Any, group: int, wanted: dict[str, str], columns: list[str],
                 dictionary_columns: list[str]) -> Iterator[dict[str, Column]]:
    """A row group read at once from ``whole`` (the file opened with ``read_dictionary``):
    the dictionary columns' cells made a row at a time, the others as lists."""
    table = whole.read_row_group(group, columns=columns, use_threads=False)
    cells: dict[str, Column] = {
        k: _Cells(table.column(n)) if n in dictionary_columns
        else _header_cells(table.column(n)) if k == "headers" else table.column(n).to_pylist()
        for k, n in wanted.items()}
    del table
    _release_arrow_memory()
    yield cells


def _byte_valued(kind: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_binary(kind) or pa.types.is_large_binary(kind)
                or pa.types.is_string(kind) or pa.types.is_large_string(kind))


def _dictionary_group(meta: Any, leaves: list[int], dictionary_leaves: list[int],
                      max_body: int) -> bool:
    """Whether a row group is read whole with its byte-valued columns kept as dictionaries:
    when one of them is dictionary-encoded and the wanted chunks decode to at most
    ``max_body`` bytes. Read a row at a time, a dictionary-encoded column is expanded into
    each batch (64 cells that share one 24 MiB value: the dictionary, its page and each
    row's copy); kept as a dictionary, the value is decoded once and a row's cell is made
    only when the row is."""
    if not any(meta.column(j).has_dictionary_page for j in dictionary_leaves):
        return False
    return sum(meta.column(j).total_uncompressed_size for j in leaves) <= max_body


class _Cells:
    """A column's values by row number, made one at a time (``pyarrow.ChunkedArray``)."""

    def __init__(self, column: Any) -> None:
        self._chunks = column.chunks
        self._length = len(column)

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, i: int) -> Any:
        for chunk in self._chunks:
            if i < len(chunk):
                return chunk[i].as_py()
            i -= len(chunk)
        raise IndexError(i)


#: A column's cells by row number: a list, or made one at a time.
Column = list[Any] | _Cells


def _release_arrow_memory() -> None:
    """Hand the memory Arrow's allocator keeps for reuse back to the system: a row group's
    read leaves ~4x its dictionary in that cache, beside the records it is made into."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def _largest_page(scanner: PageScanner, chunk: Any) -> int:
    """The largest decoded page of a column chunk (``ColumnChunkMetaData``), from its page
    headers; the chunk starts at its dictionary page if it has one (0 means none: some
    writers store 0 there), and spans ``total_compressed_size`` bytes."""
    start = chunk.data_page_offset
    if chunk.has_dictionary_page and chunk.dictionary_page_offset:
        start = min(start, chunk.dictionary_page_offset)
    try:
        return scanner.largest_page(start, chunk.total_compressed_size)
    except PageHeaderError as exc:
        raise PageHeaderError(f"column {chunk.path_in_schema!r}: {exc}") from None


def _page_too_large(path: str, row: int, group: int, rows: int, column: str, size: int,
                    limit: int) -> Iterator[RecordError]:
    """One error per row of a row group that is not read (see ``MAX_ROW_ERRORS``)."""
    message = (f"row group {group}, column {column!r}: a page of {size} bytes decoded, over "
               f"the limit of {limit}; the row group is not read")
    for i in range(min(rows, MAX_ROW_ERRORS)):
        yield RecordError("source", "source-page-too-large", message, path, row + i)
    if rows > MAX_ROW_ERRORS:
        yield RecordError("source", "source-page-too-large",
                          f"{message} (its last {rows - MAX_ROW_ERRORS} rows, from this one, "
                          "are this one error)", path, row + MAX_ROW_ERRORS)


def _row(cols: Mapping[str, Column], i: int, row: int, path: str, base: str,
         max_body: int) -> RawRecord | RecordError:
    try:
        body = cols["body"][i]
        payload = _to_bytes(body) if body is not None else b""
        stored = len(payload)
        capped = stored > max_body
        if capped:
            payload = payload[:max_body]
        head = cols["headers"][i] if "headers" in cols else None
        given = cols["status"][i] if "status" in cols else None
        headers_cut = False
        if isinstance(head, bytes | str):
            block, headers, status = _http_message(head[:MAX_RAW_HEAD], given, payload), None, None
        else:
            if isinstance(head, _Fields):
                headers, headers_cut = head
            else:
                headers = _header_fields(head) if head is not None else ()
            block, status = payload, int(given) if given is not None else None
        record_id = cols["record_id"][i] if "record_id" in cols else None
        url = cols["url"][i]
        return RawRecord(
            warc_filename=path,
            warc_record_offset=row,
            warc_record_length=stored,
            record_id=str(record_id) if record_id is not None
            else f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'{base}#{row}')}>",
            record_type="response",
            url=str(url) if url is not None else None,
            fetch_time=_time(cols["fetch_time"][i] if "fetch_time" in cols else None),
            http_block=block,
            http_status=status,
            http_headers=headers,
            block_truncated=capped or headers_cut,
            block_truncation="cap" if capped else "http-headers" if headers_cut else None,
        )
    except Exception as exc:  # noqa: BLE001 - one bad row is one error, not a dead file
        return RecordError("source", "source-bad-row", f"{type(exc).__name__}: {exc}", path, row)
