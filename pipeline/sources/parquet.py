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
from typing import Any, BinaryIO

from pipeline.errors import RecordError
from pipeline.sources.parquet_pages import PageHeaderError, PageScanner
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
        pf = pq.ParquetFile(fileobj if fileobj is not None else path)
        present = set(pf.schema_arrow.names)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds on bad files
        yield RecordError("source", "source-unreadable-file", f"{type(exc).__name__}: {exc}", path)
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
                    if whole is None:
                        whole = pq.ParquetFile(fileobj if fileobj is not None else path,
                                               read_dictionary=dictionary_columns)
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
        cols: dict[str, Column] = {k: batch.column(n).to_pylist() for k, n in wanted.items()}
        del batch  # (not held while the rows are made)
        yield cols


def _whole_group(whole: Any, group: int, wanted: dict[str, str], columns: list[str],
                 dictionary_columns: list[str]) -> Iterator[dict[str, Column]]:
    """A row group read at once from ``whole`` (the file opened with ``read_dictionary``):
    the dictionary columns' cells made a row at a time, the others as lists."""
    table = whole.read_row_group(group, columns=columns, use_threads=False)
    cells: dict[str, Column] = {
        k: _Cells(table.column(n)) if n in dictionary_columns else table.column(n).to_pylist()
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
        if isinstance(head, bytes | str):
            block, headers, status = _http_message(head, given, payload), None, None
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
            block_truncated=capped,
            block_truncation="cap" if capped else None,
        )
    except Exception as exc:  # noqa: BLE001 - one bad row is one error, not a dead file
        return RecordError("source", "source-bad-row", f"{type(exc).__name__}: {exc}", path, row)
