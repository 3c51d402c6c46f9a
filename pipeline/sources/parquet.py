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

Rows are read one at a time (``BATCH_ROWS``): the row group's metadata cannot bound a
batch's bytes (a dictionary-encoded body column of 64 equal 24 MiB cells is 98 KB on
disk and in the metadata, 1.5 GiB decoded), so memory holds one row's cells, not 64; the
cost is ~10 µs per row, small beside decoding a page. A body cell over ``max_body`` (the rules' ``max_decompressed``) is cut
there and flagged like an archive block over the cap (``block_truncation="cap"``). The
locator of a row is ``warc_filename`` = the Parquet file, ``warc_record_offset`` = the row
number and ``warc_record_length`` = the body's stored length. A file that cannot be opened,
or lacks a required column, gives one ``RecordError`` (offset None).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import PurePath
from typing import Any, BinaryIO

from pipeline.errors import RecordError
from pipeline.sources.record import RawRecord

BATCH_ROWS = 1  # rows per batch: see the module docstring
MAX_BODY = 64 * 2**20  # the default cap on a body cell (the rules' max_decompressed)
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
                 ) -> Iterator[RawRecord | RecordError]:
    """Every row of a raw-response Parquet table as a ``response`` :class:`RawRecord`;
    ``fileobj`` is the open file (else ``path`` is opened), ``max_body`` the body cap."""
    import pyarrow.parquet as pq

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
    try:
        for batch in pf.iter_batches(batch_size=BATCH_ROWS, columns=wanted_columns):
            cols = {k: batch.column(n).to_pylist() for k, n in wanted.items()}
            del batch
            for i in range(len(cols["url"])):
                yield _row(cols, i, row, path, base, max_body)
                row += 1
    except Exception as exc:  # noqa: BLE001 - a corrupt row group ends the file, rows kept
        yield RecordError("source", "source-read-failed", f"{type(exc).__name__}: {exc}", path, row)


def _row(cols: dict[str, list[Any]], i: int, row: int, path: str, base: str,
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
