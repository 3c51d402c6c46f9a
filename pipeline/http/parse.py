"""``parse_response``: a :class:`RawRecord` → an :class:`HttpResponse` (or a ``RecordError``).

Order of work, as a browser's network stack does it (Fetch, *HTTP-network fetch*): parse
the status line and header fields; remove the transfer coding (chunked); check the body
against the HTTP ``Content-Length``; remove content codings with a size cap; compute the
MIME type (header essence, else sniffed).

``content_truncated`` says why a body is incomplete, first reason wins:

==============================  ======================================================
``warc-truncated:<reason>``     the crawler wrote ``WARC-Truncated`` (length, time, ...)
``length`` / ``gzip``           the stored block is shorter than its WARC Content-Length
                                (``gzip``: because its gzip member is cut off)
``next-record``                 the block holds the start of another record (a lying
                                Content-Length): cut there, reading goes on from it
``framing`` / ``cap``           the block's framing is off / it was over the reader's cap
``chunked``                     the chunked body ends before its last chunk
``chunked-framing``             the body starts chunked but its framing is invalid: it is
                                kept as stored from the first bad chunk on, so it may
                                hold chunk-size lines
``http-headers``                the HTTP header section is over 1 MiB: the fields past
                                that point are dropped (the body is complete and decoded)
``http-content-length``         the body is shorter than the HTTP ``Content-Length``
``content-encoding``            the compressed stream ends early
==============================  ======================================================
"""

from __future__ import annotations

from pipeline.errors import ErrorType, RecordError
from pipeline.http.chunked import dechunk
from pipeline.http.coding import CodingFailure, Decoded, decode_content, split_codings
from pipeline.http.message import parse_head
from pipeline.http.mime_sniff import computed_mime_type
from pipeline.http.response import HttpNote, HttpResponse, new_response
from pipeline.http.select import is_text_mime
from pipeline.sources.record import RawRecord

DEFAULT_MAX_DECOMPRESSED = 64 * 2**20


def _latin1(value: bytes | None) -> str | None:
    # Isomorphic decode (Infra): each byte becomes the code point of the same value.
    return None if value is None else value.decode("latin-1")


def _error(raw: RawRecord, error_type: ErrorType, message: str) -> RecordError:
    return RecordError(stage="http", error_type=error_type, message=message,
                       warc_filename=raw.warc_filename, offset=raw.warc_record_offset,
                       record_id=raw.record_id, offset_in_member=raw.offset_in_member)


def parse_response(raw: RawRecord, *, max_decompressed: int = DEFAULT_MAX_DECOMPRESSED,
                   ) -> HttpResponse | RecordError:
    """Parse one stored response into an :class:`HttpResponse`; never raises on bad bytes.

    ``resource`` records (and WARC responses that are not ``application/http``) have no HTTP
    head: their MIME type comes from the WARC Content-Type. Parquet rows bring status and
    headers separately (``raw.http_headers``). Errors (stage ``http``):
    ``http-malformed-status-line``, ``http-content-encoding-failed``,
    ``http-content-encoding-unsupported``, ``http-decompressed-too-large`` — unless the
    header declares a non-text MIME type: then the body is kept undecoded with a note
    (``content-encoding-failed``, ...) and :func:`select_response` skips it as
    ``non-text-mime``, so images and archives never make error rows.
    """
    try:
        return _parse(raw, max_decompressed)
    except Exception as exc:  # noqa: BLE001 - last line of defence: bad bytes never raise
        return _error(raw, "http-parse-failed", f"{type(exc).__name__}: {exc}")


# The header fields parse_response reads, looked up in one pass over the head.
_CONTENT_TYPE = b"content-type"
_TRANSFER_ENCODING = b"transfer-encoding"
_CONTENT_LENGTH = b"content-length"
_CONTENT_ENCODING = b"content-encoding"
_NOSNIFF = b"x-content-type-options"
_READ_FIELDS = frozenset({_CONTENT_TYPE, _TRANSFER_ENCODING, _CONTENT_LENGTH, _CONTENT_ENCODING,
                          _NOSNIFF})


def _read_fields(headers: tuple[tuple[bytes, bytes], ...]) -> dict[bytes, bytes]:
    """Fetch's *get* (every value of the name, joined with ", ") for each field in
    ``_READ_FIELDS``, keyed by lowercase name; one pass instead of one per name."""
    found: dict[bytes, bytes] = {}
    for name, value in headers:
        key = name.lower()
        if key in _READ_FIELDS:
            earlier = found.get(key)
            found[key] = value if earlier is None else earlier + b", " + value
    return found


#: The note for a coding that cannot be removed from a body of a declared non-text type.
_UNREMOVED: dict[ErrorType, HttpNote] = {
    "http-content-encoding-failed": "content-encoding-failed",
    "http-content-encoding-unsupported": "content-encoding-unsupported",
    "http-decompressed-too-large": "decompressed-too-large",
}


def _parse(raw: RawRecord, cap: int) -> HttpResponse | RecordError:
    notes: list[HttpNote] = []
    status_line: bytes | None = None
    if raw.http_headers is not None:
        status, headers, body = raw.http_status, raw.http_headers, raw.http_block
        fields = _read_fields(headers)
        content_type = _latin1(fields.get(_CONTENT_TYPE))
    elif raw.record_type == "response" and _is_http_block(raw):
        head = parse_head(raw.http_block)
        if head is None:
            return _error(raw, "http-malformed-status-line",
                          f"block does not start with an HTTP status line: {raw.http_block[:60]!r}")
        # RFC 9110 §15: codes are 100-599; a stored "000" means the status is unknown.
        status, headers, status_line = head.status or None, head.headers, head.status_line
        body = raw.http_block[head.body_start :]
        notes.extend(head.notes)
        fields = _read_fields(headers)
        content_type = _latin1(fields.get(_CONTENT_TYPE))
    else:
        status, headers, body = None, (), raw.http_block
        fields = {}
        content_type = raw.warc_content_type

    truncated: list[str] = []
    if raw.warc_truncated:
        truncated.append(f"warc-truncated:{raw.warc_truncated.strip().lower()}")
    if raw.block_truncated:
        truncated.append(raw.block_truncation or "length")
    if "header-section-over-cap" in notes:
        truncated.append("http-headers")

    removed: list[str] = []
    te = _latin1(fields.get(_TRANSFER_ENCODING))
    # RFC 9112 §6.1: chunked, when present, is the final transfer coding.
    chunked = te is not None and split_codings(te)[-1:] == ["chunked"]
    if chunked:
        body, state = dechunk(body)
        if state == "not-chunked":
            notes.append("chunked-not-framed")  # stored de-chunked under a chunked header
        else:
            removed.append("chunked")
            if state == "truncated":
                truncated.append("chunked")
            elif state == "bad-framing":
                notes.append("chunked-bad-framing")
                truncated.append("chunked-framing")
    else:
        declared = fields.get(_CONTENT_LENGTH)
        if declared is not None:
            first = declared.split(b",")[0].strip()
            if first.isdigit() and len(body) < int(first):
                truncated.append("http-content-length")

    ce = _latin1(fields.get(_CONTENT_ENCODING))
    if ce is not None and split_codings(ce):
        decoded = decode_content(body, ce, cap=cap)
        if isinstance(decoded, CodingFailure):
            supplied, _ = computed_mime_type(content_type, b"")
            if content_type is None or is_text_mime(supplied):
                return _error(raw, decoded.error_type, decoded.message)
            # A declared non-text type (an image, a zip, ...) is skipped as non-text-mime
            # later whatever its coding: an error row for it would be noise.
            decoded = Decoded(body, (), False, (_UNREMOVED[decoded.error_type],))
        body = decoded.body
        removed.extend(decoded.applied)
        notes.extend(decoded.notes)
        if decoded.truncated:
            truncated.append("content-encoding")
    elif len(body) > cap:
        return _error(raw, "http-decompressed-too-large", f"body over {cap} bytes")

    nosniff = fields.get(_NOSNIFF)
    no_sniff = nosniff is not None and nosniff.split(b",")[0].strip().lower() == b"nosniff"
    mime_type, sniffed = computed_mime_type(content_type, body, no_sniff=no_sniff)
    # (positionally, in HttpResponse's field order)
    return new_response(status, headers, content_type, mime_type, sniffed, body, len(body),
                        truncated[0] if truncated else None, status_line, ce, te, tuple(removed),
                        tuple(dict.fromkeys(notes)) if notes else ())


def _is_http_block(raw: RawRecord) -> bool:
    # A WARC response's block is an HTTP message when its Content-Type says
    # application/http (WARC 1.1 §6.3.2); ARC records carry the payload's type instead, and
    # some writers omit the header: an http(s) capture is then an HTTP message too.
    ctype = (raw.warc_content_type or "").lower()
    if ctype.startswith("application/http"):
        return True
    return (raw.url or "").lower().startswith(("http:", "https:")) or raw.http_block.startswith(b"HTTP/")
