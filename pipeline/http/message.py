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
  headers pass 256 KiB): a field line over ``MAX_FIELD_LINE`` (256 KiB) is dropped, and so
  are the lines past ``MAX_HEAD`` (1 MiB) in all (note ``header-section-over-cap``); the
  body starts after the empty line wherever it is, so the page is still decoded.

Names and values stay bytes (Fetch: header values are byte sequences); callers decode them
isomorphically (one byte = one code point, ``latin-1``) only where a string is needed.

:func:`parse_head_python` is the reference; :func:`parse_head` runs the same steps in C
(``_head.c``, one pass instead of a split, a regex and a strip per line) when the extension
is built. Tests compare the two on the WARC samples and on generated heads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.frozen import builder
from pipeline.http.response import HttpNote

try:
    from pipeline.http import _head  # type: ignore[attr-defined]
except ImportError:  # built without a compiler: the pure-Python path
    _head = None

# "HTTP/" DIGIT "." DIGIT SP 3DIGIT (RFC 9112 §4); tolerate HTTP/1, HTTP/2 and extra spaces.
_STATUS_LINE = re.compile(rb"HTTP/[0-9](?:\.[0-9])?[ \t]+([0-9]{3})(?:[ \t]|\r?$)")
_HEAD_END = re.compile(rb"\n\r*\n")  # an empty line: LF, any CRs, LF
MAX_HEAD = 1 << 20  # field lines past this many bytes of header section are dropped
MAX_FIELD_LINE = 256 << 10  # Chromium's limit for a whole header section (kMaxHeaderBufSize)


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
    not start with an HTTP status line. Same result as :func:`parse_head_python`.

    >>> h = parse_head(b"HTTP/1.1 404\\r\\nServer: x\\r\\n\\r\\nbody")
    >>> h.status, h.status_line, h.headers, h.body_start
    (404, b'HTTP/1.1 404', ((b'Server', b'x'),), 27)
    >>> parse_head(b"HTTP/1.1 404\\nContent-Type: text/html\\n folded\\n\\nbody").headers
    ((b'Content-Type', b'text/html folded'),)
    >>> parse_head(b"<html>") is None
    True
    """
    if _head is not None and type(block) is bytes:
        parsed = _head.parse_head(block)
        return None if parsed is None else _new_head(*parsed)
    return parse_head_python(block)


def parse_head_python(block: bytes) -> ResponseHead | None:
    """:func:`parse_head` in pure Python: the reference the C extension is tested against.

    >>> parse_head_python(b"HTTP/1.0 200 OK\\nA: b\\n\\nbody").headers
    ((b'A', b'b'),)
    """
    first_end = block.find(b"\n", 0, MAX_HEAD)
    first = block[: first_end if first_end >= 0 else len(block)].rstrip(b"\r")
    m = _STATUS_LINE.match(first)
    if m is None:
        return None
    status = int(m.group(1))
    notes: list[HttpNote] = []
    if first_end < 0:
        return ResponseHead(status, first, (), len(block), ("no-header-end",))
    end = _HEAD_END.search(block, first_end)
    if end is None:
        # The block ends inside the header section: keep what is there, no body.
        head, body_start = block[first_end + 1 :], len(block)
        notes.append("no-header-end")
    else:
        head, body_start = block[first_end + 1 : end.start() + 1], end.end()
    if len(head) > MAX_HEAD:
        head = head[:MAX_HEAD]  # the lines past the cap are dropped (a cut line too, below)
        head = head[: head.rfind(b"\n") + 1]
        notes.append("header-section-over-cap")
    if b"\r\n" not in block[:min(body_start, MAX_HEAD)]:
        notes.append("lf-only-header-lines")
    headers: list[list[bytes]] = []
    for line in head.split(b"\n"):
        line = line.rstrip(b"\r")
        if not line:
            continue
        if len(line) > MAX_FIELD_LINE:
            notes.append("header-section-over-cap")
            continue
        if line[:1] in (b" ", b"\t"):
            # RFC 9112 §5.2: "replace each received obs-fold with one or more SP octets".
            if headers:
                headers[-1][1] = headers[-1][1] + b" " + line.strip(b" \t")
            continue
        name, sep, value = line.partition(b":")
        if not sep:
            notes.append("header-line-without-colon")
            continue
        headers.append([name.rstrip(b" \t"), value.strip(b" \t")])
    return ResponseHead(status, first, tuple((n, v) for n, v in headers), body_start,
                        tuple(dict.fromkeys(notes)))


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
