"""The parsed HTTP response: the boundary between ``http`` and ``encoding``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from pipeline.frozen import builder

#: What parsing noticed about a stored response's framing (``records.http_notes``;
#: docs/sources.md, "Notes"): its head (lines ended by LF alone, no empty line ending it,
#: lines past the caps dropped, a line without a colon dropped), its transfer coding (a
#: body stored de-chunked under a chunked header, chunked framing that breaks), its
#: content codings (a body stored decoded under a coding header, an empty coded body) and,
#: for a body of a declared non-text type whose codings cannot be removed (such records
#: are skipped as ``non-text-mime``), why.
HttpNote = Literal[
    "lf-only-header-lines", "no-header-end", "header-section-over-cap",
    "header-line-without-colon", "chunked-not-framed", "chunked-bad-framing",
    "content-encoding-not-applied", "content-encoding-empty-body",
    "content-encoding-failed", "content-encoding-unsupported", "decompressed-too-large",
]
#: :data:`HttpNote` as a set, for checks at run time.
HTTP_NOTES: frozenset[str] = frozenset(get_args(HttpNote))


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
    # Anomalies met while parsing (:data:`HttpNote`), each once, in the order met.
    http_notes: tuple[HttpNote, ...] = ()


#: ``new_response(*values)``: every field of an HttpResponse, in order, passed positionally,
#: built without the frozen ``__init__`` (1.8 µs a response: :mod:`pipeline.frozen`).
new_response = builder(HttpResponse)
