"""The record a source yields: raw bytes plus the archive's locator and crawler metadata."""

from __future__ import annotations

import dataclasses
import operator
from dataclasses import dataclass

from pipeline.frozen import builder


@dataclass(frozen=True, slots=True)
class RawRecord:
    """One archived capture, as stored; the boundary between ``sources`` and ``http``.

    ``http_block`` holds the stored HTTP status line + headers + payload exactly as
    archived (for WARC ``response`` records), or just the payload for ``resource`` records
    and Parquet rows whose headers come separately (``http_headers``).
    """

    warc_filename: str
    warc_record_offset: int
    warc_record_length: int
    record_id: str
    record_type: str  # "response", "resource", "request", "revisit", "metadata", ...
    url: str | None
    fetch_time: str | None  # ISO 8601 as stored (WARC-Date), not re-parsed
    http_block: bytes
    # Headers given separately (Parquet sources, ARC); None when inside http_block.
    http_status: int | None = None
    http_headers: tuple[tuple[bytes, bytes], ...] | None = None
    # What the crawler recorded about the payload (kept for audits, never trusted blindly).
    content_mime_detected: str | None = None  # WARC-Identified-Payload-Type
    crawler_charset: str | None = None  # WARC-Identified-Content-Charset / charset-detected
    content_languages: str | None = None  # languages-cld2 from CC metadata records
    warc_truncated: str | None = None  # WARC-Truncated reason, if any
    block_truncated: bool = False  # fewer bytes stored than the record header declared
    # Why the block is short when block_truncated: "length" (the file ends before the
    # record's Content-Length), "gzip" (its gzip member is cut off), "cap" (over the
    # reader's size cap; the rest was skipped), "http-headers" (a Parquet row's header
    # fields past the http stage's header-section caps were dropped). None when not truncated.
    block_truncation: str | None = None
    # The WARC record's own Content-Type (e.g. "application/http;msgtype=response"); for
    # resource records this is the payload's MIME type.
    warc_content_type: str | None = None
    # Only for several records inside ONE gzip member (a whole-file gzip, not per-record
    # gzip): warc_record_offset is the member's offset in the compressed file and this is
    # the record's offset inside the decompressed member; warc_record_length is then the
    # record's uncompressed length. None in the normal case.
    offset_in_member: int | None = None
    # WARC-Concurrent-To (metadata and request records point at their response with it).
    concurrent_to: str | None = None
    # WARC-Payload-Digest as written ("sha1:CH7IV3XAD3M7A42JARKRLJ3T5PGGCGXD").
    payload_digest: str | None = None


#: ``new_record(*values)``: every field of a RawRecord, in order, passed positionally, built
#: without the frozen ``__init__`` (3.3 µs a record: :mod:`pipeline.frozen`).
new_record = builder(RawRecord)

_FIELD_NAMES = tuple(f.name for f in dataclasses.fields(RawRecord))
_all_values = operator.attrgetter(*_FIELD_NAMES)
_CHARSET = _FIELD_NAMES.index("crawler_charset")
_LANGUAGES = _FIELD_NAMES.index("content_languages")


def with_crawler_metadata(record: RawRecord, charset: str | None,
                          languages: str | None) -> RawRecord:
    """``dataclasses.replace(record, crawler_charset=charset, content_languages=languages)``,
    through :data:`new_record` (replace() re-runs the frozen ``__init__``: 6-7 µs, this ~1)."""
    values = list(_all_values(record))
    values[_CHARSET] = charset
    values[_LANGUAGES] = languages
    return new_record(*values)
