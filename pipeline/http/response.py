"""The parsed HTTP response: the boundary between ``http`` and ``encoding``."""

from __future__ import annotations

from dataclasses import dataclass


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
