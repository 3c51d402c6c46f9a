"""Split a stored HTTP response into status line, header fields and body, as raw bytes.

Implements the response side of RFC 9112 §2.1 (*message format*: start-line, field lines,
an empty line, the body) with the leniencies archived responses need:

- DEVIATION: a bare LF ends a line, not only CRLF — ClueWeb09 (Nutch) stores headers with
  LF only, and RFC 9112 §2.2 itself allows a recipient to accept a bare LF. Extra CRs
  before the LF are dropped too (pywb's missing-status-text.warc ends lines with CR CR LF).
- Obsolete line folding (a field line starting with SP/HTAB) is joined to the previous
  value with one SP, as RFC 9112 §5.2 asks of a recipient that accepts it.
- DEVIATION: a field line without a colon is dropped and noted ("header-line-without-colon")
  rather than failing the message — a server bug must not lose the page.
- A status line with no reason phrase ("HTTP/1.1 200") is fine (RFC 9112 §4: the reason
  phrase may be empty).
- DEVIATION: an oversized header section is not an error (Chromium fails a response whose
  headers pass 256 KiB): a field line over 256 KiB is dropped, and so are the lines past
  1 MiB in all (note ``header-section-over-cap``; the compiled module's ``MAX_FIELD_LINE``
  and ``MAX_HEAD``); the body starts after the empty line wherever it is, so the page is
  still decoded.

Names and values stay bytes (Fetch: header values are byte sequences); callers decode them
isomorphically (one byte = one code point, ``latin-1``) only where a string is needed.

:func:`parse_head` runs these steps in C (``_head.c``, one pass); ``tests/oracles/http_head.py``
restates them in Python, and the tests compare the two on the WARC samples and on generated
heads.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.frozen import builder
from pipeline.http.response import HttpNote
from pipeline.native import head


@dataclass(frozen=True, slots=True)
class ResponseHead:
    """The parsed head of a stored response; ``body_start`` indexes the block."""

    status: int | None
    status_line: bytes | None
    headers: tuple[tuple[bytes, bytes], ...]
    body_start: int
    notes: tuple[HttpNote, ...]


_new_head = builder(ResponseHead)


def parse_head(block: bytes) -> ResponseHead | None:
    """The status line and header fields at the start of ``block``; None when the block does
    not start with an HTTP status line.

    >>> h = parse_head(b"HTTP/1.1 404\\r\\nServer: x\\r\\n\\r\\nbody")
    >>> h.status, h.status_line, h.headers, h.body_start
    (404, b'HTTP/1.1 404', ((b'Server', b'x'),), 27)
    >>> parse_head(b"HTTP/1.1 404\\nContent-Type: text/html\\n folded\\n\\nbody").headers
    ((b'Content-Type', b'text/html folded'),)
    >>> parse_head(b"<html>") is None
    True
    """
    parsed = head.parse_head(block)
    return None if parsed is None else _new_head(*parsed)


def get_all(headers: tuple[tuple[bytes, bytes], ...], name: bytes) -> list[bytes]:
    """Every value of the header ``name`` (ASCII case-insensitive), in order.

    >>> get_all(((b"Vary", b"a"), (b"vary", b"b")), b"VARY")
    [b'a', b'b']
    """
    lname = name.lower()
    return [v for n, v in headers if n.lower() == lname]


def get_combined(headers: tuple[tuple[bytes, bytes], ...], name: bytes) -> bytes | None:
    """Fetch's *get* a header: all values joined with ``", "``; None when absent.

    >>> get_combined(((b"Content-Type", b"text/html"), (b"content-type", b"text/plain")), b"content-type")
    b'text/html, text/plain'
    """
    values = get_all(headers, name)
    return b", ".join(values) if values else None
