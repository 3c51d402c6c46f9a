"""The parsed HTTP response: the boundary between ``http`` and ``encoding``."""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.frozen import builder


@dataclass(frozen=True, slots=True)
class HttpResponse:
    """An HTTP response with transfer and content codings removed.

    Header names and values are bytes, isomorphic-decoded only where a string is needed
    (Fetch Standard: header values are byte sequences).
    """

    status: int | None
    headers: tuple[tuple[bytes, bytes], ...]
    content_type: str | None  # the raw Content-Type header value (isomorphic decode), if any
    mime_type: str | None  # essence "type/subtype" from the header, else sniffed, lowercase
    mime_sniffed: bool  # True when mime_type came from MIME sniffing, not the header
    body: bytes  # payload after de-chunking and content decoding
    content_length: int  # len(body)
    content_truncated: str | None  # None, or why: "length", "gzip", "warc-truncated:<reason>", ...
    # The status line as stored (None for resource records and Parquet rows without one).
    status_line: bytes | None = None
    # Content-Encoding / Transfer-Encoding as stored (isomorphic decode), None when absent.
    content_encoding: str | None = None
    transfer_encoding: str | None = None
    # Codings actually removed from the body, in removal order (e.g. ("chunked", "gzip")).
    codings_removed: tuple[str, ...] = ()
    # Anomalies met while parsing, kebab-case (e.g. "lf-only-header-lines",
    # "chunked-not-framed", "content-encoding-not-applied"); see docs/sources.md.
    http_notes: tuple[str, ...] = ()


#: ``new_response(*values)``: every field of an HttpResponse, in order, passed positionally,
#: built without the frozen ``__init__`` (1.8 µs a response: :mod:`pipeline.frozen`).
new_response = builder(HttpResponse)
