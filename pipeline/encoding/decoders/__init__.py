"""WHATWG Encoding Standard decoders (approximate bootstrap version, backed by Python codecs).

The exact implementation replaces this module's internals; the public API stays:
:func:`decode`, :func:`decode_bytes`, :func:`python_codec`, :class:`DecodeResult`.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.encoding.lookup import get_an_encoding

_CODECS: dict[str, str] = {
    "UTF-8": "utf-8", "IBM866": "cp866", "ISO-8859-2": "iso8859-2", "ISO-8859-3": "iso8859-3",
    "ISO-8859-4": "iso8859-4", "ISO-8859-5": "iso8859-5", "ISO-8859-6": "iso8859-6",
    "ISO-8859-7": "iso8859-7", "ISO-8859-8": "iso8859-8", "ISO-8859-8-I": "iso8859-8",
    "ISO-8859-10": "iso8859-10", "ISO-8859-13": "iso8859-13", "ISO-8859-14": "iso8859-14",
    "ISO-8859-15": "iso8859-15", "ISO-8859-16": "iso8859-16", "KOI8-R": "koi8-r",
    "KOI8-U": "koi8-u", "macintosh": "mac-roman", "windows-874": "cp874",
    "windows-1250": "cp1250", "windows-1251": "cp1251", "windows-1252": "cp1252",
    "windows-1253": "cp1253", "windows-1254": "cp1254", "windows-1255": "cp1255",
    "windows-1256": "cp1256", "windows-1257": "cp1257", "windows-1258": "cp1258",
    "x-mac-cyrillic": "mac-cyrillic", "GBK": "gb18030", "gb18030": "gb18030",
    "Big5": "big5hkscs", "EUC-JP": "euc_jp", "ISO-2022-JP": "iso2022_jp",
    "Shift_JIS": "cp932", "EUC-KR": "cp949", "UTF-16BE": "utf-16-be", "UTF-16LE": "utf-16-le",
    "x-user-defined": "latin-1",
}


@dataclass(frozen=True, slots=True)
class DecodeResult:
    """Decoded text and the number of malformed sequences replaced with U+FFFD."""

    text: str
    decode_errors: int


def python_codec(encoding: str) -> str | None:
    """The Python codec name used as the fast path for a WHATWG encoding name, if any."""
    return _CODECS.get(encoding)


def decode(body: bytes, encoding: str) -> DecodeResult:
    """Decode ``body`` with the WHATWG encoding ``encoding`` (no BOM handling)."""
    if encoding == "replacement":
        return DecodeResult("\ufffd", 1) if body else DecodeResult("", 0)
    codec = _CODECS.get(encoding)
    if codec is None:
        raise LookupError(encoding)
    text = body.decode(codec, "replace")
    return DecodeResult(text, text.count("\ufffd"))


def decode_bytes(body: bytes, label: str) -> str:
    """What ``new TextDecoder(label).decode(body)`` returns in a browser."""
    encoding = get_an_encoding(label)
    if encoding is None or encoding == "replacement":
        raise LookupError(label)
    boms = {"UTF-8": b"\xef\xbb\xbf", "UTF-16LE": b"\xff\xfe", "UTF-16BE": b"\xfe\xff"}
    bom = boms.get(encoding)
    if bom is not None and body.startswith(bom):
        body = body[len(bom):]
    return decode(body, encoding).text
