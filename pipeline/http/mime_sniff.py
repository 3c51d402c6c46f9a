"""The MIME Sniffing Standard's *determining the computed MIME type of a resource* and its
*rules for identifying an unknown MIME type*, for responses in a browsing context.

https://mimesniff.spec.whatwg.org/commit-snapshots/39aa53511b13953d84fef8d4131d6f61d0ccbde6/#determining-the-computed-mime-type-of-a-resource

Differences from the standard (each marked DEVIATION in the code, each tested):

- The feed sniff for ``text/html`` (RSS/Atom → ``application/rss+xml``) is not run: a feed
  served as text/html is still text to decode.
- The MP4, WebM and MP3-without-ID3 signature algorithms are not run: they contain binary
  data bytes, so such resources still end up non-text (``application/octet-stream``).
"""

from __future__ import annotations

from pipeline.http.content_type import essence_and_charset

SNIFF_LEN = 1445  # "the resource header": at most 1445 bytes (§5.2)
_WS = b"\t\n\x0c\r "  # whitespace bytes (§3)
_TAG_END = b" >"  # tag-terminating bytes: 0x20 SP, 0x3E ">" (§3)
# §3: "A binary data byte is a byte in the range 0x00 to 0x08 (NUL to BS), the byte 0x0B
# (VT), a byte in the range 0x0E to 0x1A (SO to SUB), or a byte in the range 0x1C to 0x1F."
_BINARY = bytes([*range(0x00, 0x09), 0x0B, *range(0x0E, 0x1B), *range(0x1C, 0x20)])
_BINARY_TABLE = bytes.maketrans(b"", b"")
# §7.1 step 1, the rows with "WS" leading bytes and a tag-terminating byte, case-insensitive.
_HTML_TAGS = (b"<!DOCTYPE HTML", b"<HTML", b"<HEAD", b"<SCRIPT", b"<IFRAME", b"<H1", b"<DIV",
              b"<FONT", b"<TABLE", b"<A", b"<STYLE", b"<TITLE", b"<B", b"<BODY", b"<BR", b"<P",
              b"<!--")
# §7.1's image (§6.1), audio/video (§6.2) and archive (§6.3) tables: (prefix, offset of a
# second fixed part or -1, second part, type).
_SIGNATURES: tuple[tuple[bytes, int, bytes, str], ...] = (
    (b"\x00\x00\x01\x00", -1, b"", "image/x-icon"),
    (b"\x00\x00\x02\x00", -1, b"", "image/x-icon"),
    (b"BM", -1, b"", "image/bmp"),
    (b"GIF87a", -1, b"", "image/gif"),
    (b"GIF89a", -1, b"", "image/gif"),
    (b"RIFF", 8, b"WEBPVP", "image/webp"),
    (b"\x89PNG\r\n\x1a\n", -1, b"", "image/png"),
    (b"\xff\xd8\xff", -1, b"", "image/jpeg"),
    (b"FORM", 8, b"AIFF", "audio/aiff"),
    (b"ID3", -1, b"", "audio/mpeg"),
    (b"OggS\x00", -1, b"", "application/ogg"),
    (b"MThd\x00\x00\x00\x06", -1, b"", "audio/midi"),
    (b"RIFF", 8, b"AVI ", "video/avi"),
    (b"RIFF", 8, b"WAVE", "audio/wave"),
    (b"\x1f\x8b\x08", -1, b"", "application/x-gzip"),
    (b"PK\x03\x04", -1, b"", "application/zip"),
    (b"Rar!\x1a\x07\x00", -1, b"", "application/x-rar-compressed"),
)
# §7 step 3: the check-for-apache-bug flag is set for exactly these Content-Type values.
_APACHE_BUG = ("text/plain", "text/plain; charset=ISO-8859-1", "text/plain; charset=iso-8859-1",
               "text/plain; charset=UTF-8")
_UNKNOWN = ("unknown/unknown", "application/unknown", "*/*")


def has_binary_data_byte(data: bytes) -> bool:
    """True when ``data`` holds a binary data byte (§3).

    >>> has_binary_data_byte(b"<p>\\tok\\r\\n\\x1b"), has_binary_data_byte(b"x\\x00")
    (False, True)
    """
    return len(data.translate(_BINARY_TABLE, _BINARY)) != len(data)


def identify_unknown_mime_type(header: bytes, *, sniff_scriptable: bool = True) -> str:
    """Implements §7.1 *rules for identifying an unknown MIME type* on the resource header.

    >>> identify_unknown_mime_type(b"  \\n<!doctype html><title>x")
    'text/html'
    >>> identify_unknown_mime_type(b"<?xml version='1.0'?><rss/>")
    'text/xml'
    >>> identify_unknown_mime_type(b"GIF89a\\x01\\x00")
    'image/gif'
    >>> identify_unknown_mime_type(b"just words"), identify_unknown_mime_type(b"\\x00\\x01")
    ('text/plain', 'application/octet-stream')
    """
    header = header[:SNIFF_LEN]
    if sniff_scriptable:
        # Step 1: "If the sniff-scriptable flag is set, execute the following steps for each
        # row in the following table" — leading whitespace bytes are ignored (WS rows).
        body = header.lstrip(_WS)
        upper = body[:16].upper()
        for tag in _HTML_TAGS:
            if upper.startswith(tag) and len(body) > len(tag) and body[len(tag)] in _TAG_END:
                return "text/html"
        if body.startswith(b"<?xml"):
            return "text/xml"
        if header.startswith(b"%PDF-"):
            return "application/pdf"
    # Step 2: the table that does not depend on the flag.
    if header.startswith(b"%!PS-Adobe-"):
        return "application/postscript"
    if header.startswith((b"\xfe\xff", b"\xff\xfe", b"\xef\xbb\xbf")):
        return "text/plain"  # UTF-16BE, UTF-16LE and UTF-8 byte order marks
    # Steps 3-5: image, audio or video, and archive type pattern matching.
    # DEVIATION: the MP4, WebM and MP3-without-ID3 algorithms of §6.2 are not run — those
    # files hold binary data bytes, so step 7 still calls them application/octet-stream.
    matched = _match_signature(header)
    if matched is not None:
        return matched
    # Step 6: "If resource's resource header contains no binary data bytes, return
    # "text/plain"."
    if not has_binary_data_byte(header):
        return "text/plain"
    # Step 7: "Return "application/octet-stream"."
    return "application/octet-stream"


def _match_signature(header: bytes) -> str | None:
    for prefix, at, second, mime in _SIGNATURES:
        if header.startswith(prefix) and (at < 0 or header[at : at + len(second)] == second):
            return mime
    return None


def distinguish_text_or_binary(header: bytes) -> str:
    """Implements §7.2 *rules for distinguishing if a resource is text or binary*.

    >>> distinguish_text_or_binary(b"plain"), distinguish_text_or_binary(b"\\x89PNG\\r\\n\\x1a\\n")
    ('text/plain', 'image/png')
    """
    header = header[:SNIFF_LEN]
    if header.startswith((b"\xfe\xff", b"\xff\xfe", b"\xef\xbb\xbf")):
        return "text/plain"
    if not has_binary_data_byte(header):
        return "text/plain"
    return identify_unknown_mime_type(header, sniff_scriptable=False)


def computed_mime_type(content_type: str | None, body: bytes, *,
                       no_sniff: bool = False) -> tuple[str, bool]:
    """Implements §7 *determining the computed MIME type of a resource*; returns the
    essence and whether it was sniffed (False: it is the supplied type's essence).

    ``content_type`` is the isomorphic-decoded ``Content-Type`` value (None if absent);
    ``no_sniff`` is ``X-Content-Type-Options: nosniff``.

    >>> computed_mime_type("TEXT/HTML; charset=utf-8", b"")
    ('text/html', False)
    >>> computed_mime_type(None, b"<html><body>")
    ('text/html', True)
    >>> computed_mime_type("*/*", b"\\x00\\x01")
    ('application/octet-stream', True)
    >>> computed_mime_type("text/plain", b"\\x89PNG\\r\\n\\x1a\\n....")  # the Apache bug check
    ('image/png', True)
    """
    essence = essence_and_charset(content_type)[0]
    # Step 1: "If the supplied MIME type is undefined or if its essence is "unknown/unknown",
    # "application/unknown", or "*/*", execute the rules for identifying an unknown MIME
    # type with the sniff-scriptable flag equal to the inverse of the no-sniff flag".
    if essence is None or essence in _UNKNOWN:
        return identify_unknown_mime_type(body[:SNIFF_LEN], sniff_scriptable=not no_sniff), True
    # Step 2: "If the no-sniff flag is set, the computed MIME type is the supplied MIME type."
    if no_sniff:
        return essence, False
    # Step 3: "If the check-for-apache-bug flag is set, execute the rules for distinguishing
    # if a resource is text or binary".
    if content_type in _APACHE_BUG:
        result = distinguish_text_or_binary(body[:SNIFF_LEN])
        return result, result != essence
    # Steps 4-8: XML types, text/html (DEVIATION: no feed sniffing — a feed served as
    # text/html is still text to decode), image and audio/video types keep the supplied type
    # as far as "is it text" is concerned.
    return essence, False
