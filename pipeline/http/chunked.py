"""Remove the chunked transfer coding (RFC 9112 §7.1), falling back to the stored bytes when
the body is not actually chunked.

Archives often keep ``Transfer-Encoding: chunked`` in the header of a body they stored
already de-chunked (pywb's iana.org crawl: 134 such responses; Common Crawl renames the
header instead). A reader that trusts the header fails those records (FastWARC stops the
whole file); here the framing is checked first:

- the first chunk-size line is not a chunk-size line at all (not hex digits, optionally
  with a chunk extension) → ``"not-chunked"``: the body is returned unchanged;
- the data ends before the last-chunk → ``"truncated"``: the chunks read so far;
- the body starts with a chunk-size line but the framing breaks (a chunk not followed by
  CRLF, a later chunk-size line that is not one) → ``"bad-framing"``: the chunks read so
  far plus the rest of the bytes unchanged (nothing is dropped), so the body may hold
  framing bytes; the caller flags it. A first line made only of hex letters that is not
  followed by a chunk of that size (a de-chunked body starting "cafe\r\n" or "add\r\n") is
  taken as not chunked when the "chunk" would be far larger than the whole body.
- otherwise ``"ok"``. Chunk extensions (``;name=value``) and trailer fields are ignored.

DEVIATION: a bare LF is accepted where RFC 9112 wants CRLF, as for header lines.
"""

from __future__ import annotations

from typing import Literal

ChunkedStatus = Literal["ok", "not-chunked", "truncated", "bad-framing"]
_HEX = frozenset(b"0123456789abcdefABCDEF")
MAX_SIZE_DIGITS = 16  # a chunk size over 2**64 is not a chunk size


def _chunk_size(line: bytes) -> int | None:
    # chunk = chunk-size [ chunk-ext ] CRLF; chunk-ext = *( BWS ";" BWS ext-name ... )
    size = line.split(b";", 1)[0].strip(b" \t\r")
    if not size or len(size) > MAX_SIZE_DIGITS or not _HEX.issuperset(size):
        return None
    return int(size, 16)


def dechunk(data: bytes) -> tuple[bytes, ChunkedStatus]:
    """Implements RFC 9112 §7.1.3's *decoding chunked* over a stored body.

    >>> dechunk(b"4;ext=1\\r\\nWiki\\r\\n5\\r\\npedia\\r\\n0\\r\\nExpires: x\\r\\n\\r\\n")
    (b'Wikipedia', 'ok')
    >>> dechunk(b"<!doctype html>")
    (b'<!doctype html>', 'not-chunked')
    >>> dechunk(b"4\\r\\nWiki\\r\\n5\\r\\nped")
    (b'Wikiped', 'truncated')
    >>> dechunk(b"3\\r\\nWiki\\r\\n0\\r\\n\\r\\n")  # 3 bytes announced, 4 sent
    (b'3\\r\\nWiki\\r\\n0\\r\\n\\r\\n', 'bad-framing')
    """
    out: list[bytes] = []
    pos = 0
    n = len(data)
    while True:
        # "read chunk-size, chunk-ext (if any), and CRLF"
        eol = data.find(b"\n", pos)
        if eol < 0:
            if not out and pos == 0:
                return data, "not-chunked"
            return b"".join(out), "truncated"
        size = _chunk_size(data[pos:eol])
        if size is None:
            if not out and pos == 0:
                return data, "not-chunked"
            return b"".join(out) + data[pos:], "bad-framing"
        start = eol + 1
        if size == 0:
            # "while (chunk-size > 0)" ends; "read trailer field ... while (trailer field is
            # not empty)": the trailer section is not kept (it is not content).
            return b"".join(out), "ok"
        # "read chunk-data and CRLF; append chunk-data to content"
        chunk = data[start : start + size]
        if len(chunk) < size:
            if not out and (start + size - n) > 0 and _not_chunked_guess(data, size):
                return data, "not-chunked"
            out.append(chunk)
            return b"".join(out), "truncated"
        pos = start + size
        # Each chunk's data is followed by CRLF. Without it the framing is broken: a
        # first "size line" made of letters only may be a de-chunked body's first word.
        if data.startswith(b"\r\n", pos):
            pos += 2
        elif data.startswith(b"\n", pos):
            pos += 1
        elif pos < n:
            if not out:
                return data, "bad-framing" if _has_digit(data[:eol]) else "not-chunked"
            out.append(chunk)
            return b"".join(out) + data[pos:], "bad-framing"
        out.append(chunk)
        if pos >= n:
            return b"".join(out), "truncated"


def _has_digit(line: bytes) -> bool:
    return any(48 <= c <= 57 for c in line.split(b";", 1)[0])


def _not_chunked_guess(data: bytes, size: int) -> bool:
    """A first "chunk" larger than the whole body whose size line is short text-like: more
    likely a de-chunked body starting with a hex-looking word (e.g. "cafe\\n") than a cut."""
    first = data.split(b"\n", 1)[0].strip()
    return size > 16 * max(len(data), 1) and not first.isdigit()
