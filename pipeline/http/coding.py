"""Remove HTTP content codings (RFC 9110 §8.4.1): gzip / x-gzip, deflate (zlib-wrapped and
raw), br, zstd, and stacks of them, with a cap on the decompressed size.

``Content-Encoding: a, b`` means *a* was applied first, so codings are removed in reverse
order (RFC 9110 §8.4: "listed in the order in which they were applied").

Archives often store a body already decoded while the header still names a coding (ClueWeb09
says ``gzip`` over plain HTML). Common Crawl renames the header to
``X-Crawler-Content-Encoding`` when it stores the decoded payload; that header is never
applied. For a coding that is still named, the body is checked first: when it does not carry
the coding's signature (gzip ``1f 8b``, zstd ``28 b5 2f fd``) or fails to decode, and it
looks like uncompressed text (no binary bytes in its first 1445 bytes, the MIME Sniffing
Standard's "binary data byte" test), it is kept as stored and noted
(``content-encoding-not-applied``); otherwise the failure is an error.

A stream that ends early yields what could be decoded, with ``truncated`` set.
"""

from __future__ import annotations

from dataclasses import dataclass

import brotli
import zstandard

from pipeline.errors import ErrorType
from pipeline.http.mime_sniff import has_binary_data_byte
from pipeline.http.response import HttpNote
from pipeline.inflate import GZIP_WBITS, INFLATE_ERRORS, RAW_WBITS, ZLIB_WBITS, decompressobj

SNIFF_LEN = 1445  # MIME Sniffing Standard: "the resource header" is at most 1445 bytes
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
KNOWN_CODINGS = frozenset({"gzip", "x-gzip", "deflate", "br", "zstd", "identity"})


class _TooLarge(Exception):
    """Internal: the decompressed size went over the cap."""


@dataclass(frozen=True, slots=True)
class CodingFailure:
    """A content coding that cannot be removed (a value, never raised); ``error_type`` is
    ``http-content-encoding-failed``, ``http-content-encoding-unsupported`` or
    ``http-decompressed-too-large``."""

    error_type: ErrorType
    message: str


@dataclass(frozen=True, slots=True)
class Decoded:
    """The body after removing codings, with what happened on the way."""

    body: bytes
    applied: tuple[str, ...]  # codings actually removed, in removal order
    truncated: bool
    notes: tuple[HttpNote, ...]


def split_codings(value: str) -> list[str]:
    """The coding names of a ``Content-Encoding`` value, lowercased, in applied order.

    >>> split_codings(" GZIP , br,, identity")
    ['gzip', 'br', 'identity']
    """
    return [c.strip().lower() for c in value.split(",") if c.strip(" \t")]


def _looks_uncompressed(body: bytes) -> bool:
    head = body[:SNIFF_LEN]
    return not head or not has_binary_data_byte(head)


def _too_large(cap: int) -> _TooLarge:
    return _TooLarge(f"decompressed body over {cap} bytes")


def _inflate(body: bytes, wbits: int, cap: int) -> tuple[bytes, bool]:
    d = decompressobj(wbits, len(body))
    out = d.decompress(body, cap + 1)
    if len(out) > cap:
        raise _too_large(cap)
    if not d.eof:
        out += d.flush()
        if len(out) > cap:
            raise _too_large(cap)
    return out, not d.eof


def _gunzip(body: bytes, cap: int) -> tuple[bytes, bool]:
    # RFC 1952; only the first member counts, trailing bytes are ignored (as browsers do).
    return _inflate(body, GZIP_WBITS, cap)


def _deflate(body: bytes, cap: int) -> tuple[bytes, bool]:
    # RFC 9110 §8.4.1.2: "deflate" is the zlib format (RFC 1950), but many servers send raw
    # RFC 1951 data; like browsers, try zlib when the 2-byte header checks out, else raw.
    if len(body) >= 2 and body[0] & 0x0F == 8 and (body[0] << 8 | body[1]) % 31 == 0:
        try:
            return _inflate(body, ZLIB_WBITS, cap)
        except INFLATE_ERRORS:
            pass
    return _inflate(body, RAW_WBITS, cap)


def _unbrotli(body: bytes, cap: int) -> tuple[bytes, bool]:
    d = brotli.Decompressor()
    parts = [d.process(body, output_buffer_limit=cap + 1)]
    size = len(parts[0])
    while size <= cap and not d.is_finished() and not d.can_accept_more_data():
        piece = d.process(b"", output_buffer_limit=cap + 1)
        if not piece:
            break
        parts.append(piece)
        size += len(piece)
    if size > cap:
        raise _too_large(cap)
    return b"".join(parts), not d.is_finished()


def _unzstd(body: bytes, cap: int) -> tuple[bytes, bool]:
    reader = zstandard.ZstdDecompressor().stream_reader(body, read_across_frames=True)
    out = reader.read(cap + 1)
    if len(out) > cap:
        raise _too_large(cap)
    try:
        expected = zstandard.get_frame_parameters(body).content_size
    except zstandard.ZstdError:
        expected = zstandard.CONTENTSIZE_UNKNOWN
    truncated = expected not in (zstandard.CONTENTSIZE_UNKNOWN, zstandard.CONTENTSIZE_ERROR) and len(out) < expected
    return out, truncated


_DECODERS = {"gzip": _gunzip, "x-gzip": _gunzip, "deflate": _deflate, "br": _unbrotli, "zstd": _unzstd}
_SIGNATURES = {"gzip": b"\x1f\x8b", "x-gzip": b"\x1f\x8b", "zstd": _ZSTD_MAGIC}


def decode_content(body: bytes, content_encoding: str, *, cap: int) -> Decoded | CodingFailure:
    """Remove the codings named by ``content_encoding`` from ``body``; never raises.

    >>> import gzip
    >>> decode_content(gzip.compress(b"<p>hi"), "gzip", cap=100).body
    b'<p>hi'
    >>> d = decode_content(b"<p>stored decoded", "gzip", cap=100)
    >>> d.body, d.applied, d.notes
    (b'<p>stored decoded', (), ('content-encoding-not-applied',))
    >>> decode_content(gzip.compress(b"a" * 500), "gzip", cap=100).error_type
    'http-decompressed-too-large'
    """
    applied: list[str] = []
    notes: list[HttpNote] = []
    truncated = False
    for coding in reversed(split_codings(content_encoding)):
        if coding == "identity":
            continue
        decoder = _DECODERS.get(coding)
        if decoder is None:
            if _looks_uncompressed(body):
                notes.append("content-encoding-not-applied")
                break
            return CodingFailure("http-content-encoding-unsupported", f"unsupported coding {coding!r}")
        signature = _SIGNATURES.get(coding)
        if signature is not None and not body.startswith(signature) and _looks_uncompressed(body):
            notes.append("content-encoding-not-applied")
            break
        if not body:
            notes.append("content-encoding-empty-body")
            break
        try:
            body, cut = decoder(body, cap)
        except _TooLarge as exc:
            return CodingFailure("http-decompressed-too-large", str(exc))
        except Exception as exc:  # noqa: BLE001 - zlib/brotli/zstd errors on bad bytes
            if _looks_uncompressed(body):
                notes.append("content-encoding-not-applied")
                break
            return CodingFailure("http-content-encoding-failed", f"{coding}: {type(exc).__name__}: {exc}")
        applied.append(coding)
        truncated = truncated or cut
    return Decoded(body, tuple(applied), truncated, tuple(notes))
