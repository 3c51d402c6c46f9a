"""The Encoding Standard's single-byte decoders (28 encodings) and x-user-defined.

https://encoding.spec.whatwg.org/#single-byte-decoder — "1. If byte is end-of-queue, return
finished. 2. If byte is an ASCII byte, return a code point whose value is byte. 3. Let code point
be the index single-byte code point for byte − 0x80 in index single-byte. 4. If code point is
null, return error. 5. Return a code point whose value is code point."

That is a 256-entry charmap, so each encoding is decoded by :func:`codecs.charmap_decode` with a
table built from the bundled index (U+FFFE marks a null entry: the codec reports it as an error,
one byte long, which is exactly the spec's error). No index maps a byte to U+FFFD, so the number
of U+FFFD in the output is the number of errors. Each table is also registered as a Python codec
named ``whatwg_<name>`` (e.g. ``whatwg_windows_1252``), exact in every error mode.
"""

from __future__ import annotations

import codecs
import functools
from typing import TYPE_CHECKING

from pipeline.encoding.decoders.tables import index_table

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

#: WHATWG encoding name -> index file name. "ISO-8859-8-I" shares ISO-8859-8's index.
SINGLE_BYTE_INDEX: dict[str, str] = {
    "IBM866": "ibm866", "ISO-8859-2": "iso-8859-2", "ISO-8859-3": "iso-8859-3",
    "ISO-8859-4": "iso-8859-4", "ISO-8859-5": "iso-8859-5", "ISO-8859-6": "iso-8859-6",
    "ISO-8859-7": "iso-8859-7", "ISO-8859-8": "iso-8859-8", "ISO-8859-8-I": "iso-8859-8",
    "ISO-8859-10": "iso-8859-10", "ISO-8859-13": "iso-8859-13", "ISO-8859-14": "iso-8859-14",
    "ISO-8859-15": "iso-8859-15", "ISO-8859-16": "iso-8859-16", "KOI8-R": "koi8-r",
    "KOI8-U": "koi8-u", "macintosh": "macintosh", "windows-874": "windows-874",
    "windows-1250": "windows-1250", "windows-1251": "windows-1251",
    "windows-1252": "windows-1252", "windows-1253": "windows-1253",
    "windows-1254": "windows-1254", "windows-1255": "windows-1255",
    "windows-1256": "windows-1256", "windows-1257": "windows-1257",
    "windows-1258": "windows-1258", "x-mac-cyrillic": "x-mac-cyrillic",
}

_ASCII = "".join(map(chr, range(0x80)))
_HIGH = range(0x80, 0x100)


@functools.cache
def charmap(encoding: str) -> str:
    """The 256-character decoding table of a single-byte encoding or x-user-defined.

    >>> charmap("windows-1252")[0x80], charmap("windows-1252")[0x81]
    ('€', '\\x81')
    >>> hex(ord(charmap("x-user-defined")[0xFF]))
    '0xf7ff'
    """
    if encoding == "x-user-defined":
        # x-user-defined decoder step 3: "Return a code point whose value is
        # 0xF780 + byte − 0x80."
        return _ASCII + "".join(chr(0xF780 + b - 0x80) for b in range(0x80, 0x100))
    table = index_table(SINGLE_BYTE_INDEX[encoding])
    high = "".join(table[i] if i < len(table) and table[i] != "\0" else "\ufffe"
                   for i in range(0x80))
    return _ASCII + high


def decode_single_byte(body: bytes, encoding: str) -> tuple[str, int]:
    """Decode with a single-byte encoding (or x-user-defined): (text, errors)."""
    if body.isascii():
        return body.decode("ascii"), 0
    text = codecs.charmap_decode(body, "replace", charmap(encoding))[0]
    return text, text.count("\ufffd") if "\ufffd" in text else 0


def codec_name(encoding: str) -> str:
    """The registered Python codec name for a single-byte WHATWG encoding."""
    return "whatwg_" + encoding.lower().replace("-", "_")


_BY_CODEC: dict[str, str] = {
    codec_name(name): name for name in (*SINGLE_BYTE_INDEX, "x-user-defined")
}


def _search(name: str) -> codecs.CodecInfo | None:
    encoding = _BY_CODEC.get(name.lower().replace("-", "_"))
    if encoding is None:
        return None
    table = charmap(encoding)
    encoding_table = codecs.charmap_build(table)

    def decode(data: ReadableBuffer, errors: str = "strict", /) -> tuple[str, int]:
        return codecs.charmap_decode(data, errors, table)

    def encode(text: str, errors: str = "strict", /) -> tuple[bytes, int]:
        return codecs.charmap_encode(text, errors, encoding_table)

    return codecs.CodecInfo(encode, decode, name=codec_name(encoding))


codecs.register(_search)


@functools.cache
def _agreement(one: str, other: str) -> int:
    """The bytes 0x80-0xFF that ``one`` and ``other`` decode alike, as a mask (bit ``i``:
    byte ``0x80 + i``)."""
    a, b = charmap(one), charmap(other)
    return sum(1 << (byte - 0x80) for byte in _HIGH if a[byte] == b[byte])


def read_alike(encoding: str, high: int) -> tuple[str, ...]:
    """The other single-byte encodings that decode every byte of ``high`` (a mask of the
    bytes 0x80-0xFF a body holds: bit ``i`` is byte ``0x80 + i``) as ``encoding`` does, so
    that the body's text is the same under each of them. () for a multi-byte encoding.

    >>> read_alike("windows-1250", 1 << (0xE1 - 0x80))[:3]  # only "á"
    ('ISO-8859-2', 'ISO-8859-3', 'ISO-8859-4')
    >>> "windows-1252" in read_alike("windows-1250", 1 << (0xF5 - 0x80))  # "ő" vs "õ"
    False
    """
    if encoding not in SINGLE_BYTE_INDEX:
        return ()
    return tuple(other for other in SINGLE_BYTE_INDEX
                 if other != encoding and _agreement(encoding, other) & high == high)
