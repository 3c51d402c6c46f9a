"""Byte-exact decoders of the WHATWG Encoding Standard (https://encoding.spec.whatwg.org/).

Public API:

* :func:`decode` — the spec's decode of a whole stream with a given encoding, without BOM
  sniffing or stripping, as a :class:`DecodeResult` (text and count of errors);
* :func:`decode_bytes` — what a browser's ``new TextDecoder(label).decode(body)`` returns;
* :func:`python_codec` — a Python codec that is exact wherever its strict decode succeeds.

Python's codecs are the fast path where the conformance tests prove them identical to the spec;
a correction layer (spec error handlers and named fix-ups, see :mod:`.multibyte`) does the rest.

>>> decode(b"caf\\xe9 \\x81", "windows-1252")
DecodeResult(text='café \\x81', decode_errors=0)
>>> decode(b"\\x82\\xa0\\x82A", "Shift_JIS")  # an ASCII byte after a bad lead is kept
DecodeResult(text='あ�A', decode_errors=1)
>>> decode_bytes(b"\\xef\\xbb\\xbfhi", "unicode-1-1-utf-8")
'hi'
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass

from pipeline.encoding.decoders import single_byte
from pipeline.encoding.decoders.utf import decode_utf8, decode_utf16
from pipeline.encoding.lookup import get_an_encoding

__all__ = ["DecodeResult", "decode", "decode_bytes", "python_codec"]


@dataclass(frozen=True, slots=True)
class DecodeResult:
    """Decoded text and the number of malformed sequences replaced with U+FFFD.

    A U+FFFD that the input encodes validly (UTF-8 EF BF BD, gb18030 84 31 A4 37) is text,
    not an error.
    """

    text: str
    decode_errors: int


def _replacement(body: bytes) -> tuple[str, int]:
    # Replacement decoder: "2. If replacement error returned is false, set it to true and
    # return error. 3. Return finished." Empty input: finished at once.
    return ("\ufffd", 1) if body else ("", 0)


def _single_byte(body: bytes, encoding: str) -> tuple[str, int]:
    return single_byte.decode_single_byte(body, encoding)


def _imported(module: str, name: str) -> Callable[[bytes], tuple[str, int]]:
    """The decoder ``name`` of the module ``module`` of this package, imported on its first
    page: the CJK decoders and their correction layer cost an import most runs never need."""

    @functools.cache
    def load() -> Callable[[bytes], tuple[str, int]]:
        found: object = importlib.import_module(f"{__name__}.{module}")
        for attribute in name.split("."):
            found = getattr(found, attribute)
        assert callable(found), (module, name)
        return found

    return lambda body: load()(body)


_DECODERS: dict[str, Callable[[bytes], tuple[str, int]]] = {
    "UTF-8": decode_utf8,
    "UTF-16LE": lambda body: decode_utf16(body, big_endian=False),
    "UTF-16BE": lambda body: decode_utf16(body, big_endian=True),
    "gb18030": _imported("cjk_chinese", "GB18030.decode"),
    "GBK": _imported("cjk_chinese", "GB18030.decode"),  # "GBK's decoder is gb18030's decoder."
    "Big5": _imported("cjk_chinese", "BIG5.decode"),
    "EUC-JP": _imported("cjk_japanese", "EUC_JP.decode"),
    "ISO-2022-JP": _imported("iso_2022_jp", "decode_iso_2022_jp"),
    "Shift_JIS": _imported("cjk_japanese", "SHIFT_JIS.decode"),
    "EUC-KR": _imported("cjk_korean", "EUC_KR.decode"),
    "replacement": _replacement,
    **{
        name: functools.partial(_single_byte, encoding=name)
        for name in (*single_byte.SINGLE_BYTE_INDEX, "x-user-defined")
    },
}

#: Python codecs whose strict decode, when it succeeds, is exactly the spec's output
#: (tests/conformance/test_decoders.py proves each one).
_EXACT_CODECS: dict[str, str] = {
    "UTF-8": "utf-8",
    "UTF-16LE": "utf-16-le",
    "UTF-16BE": "utf-16-be",
    "EUC-KR": "cp949",
    **{
        name: single_byte.codec_name(name)
        for name in (*single_byte.SINGLE_BYTE_INDEX, "x-user-defined")
    },
}


def decode(body: bytes, encoding: str) -> DecodeResult:
    """Decode ``body`` with the WHATWG encoding named ``encoding``, with no BOM handling.

    ``encoding`` is an encoding *name* (a value of ``pipeline.encoding.labels.LABELS``, e.g.
    "Shift_JIS"), not a label. Malformed input never raises: each error of the spec's decoder
    becomes one U+FFFD, counted in ``decode_errors``. Raises LookupError for an unknown name.

    >>> decode(b"\\x80\\x81\\x40\\x81\\x30\\x81\\x30", "GBK")
    DecodeResult(text='€丂\\x80', decode_errors=0)
    >>> decode(b"abc", "replacement")
    DecodeResult(text='\ufffd', decode_errors=1)
    """
    if encoding == "UTF-8":
        # The hot path (most of the web): skip the dispatch.
        try:
            return DecodeResult(body.decode("utf-8"), 0)
        except UnicodeDecodeError:
            pass
    decoder = _DECODERS.get(encoding)
    if decoder is None:
        raise LookupError(f"not a WHATWG encoding name: {encoding!r}")
    text, errors = decoder(body)
    return DecodeResult(text, errors)


#: TextDecoder's BOM handling applies to these encodings only.
_BOM_ENCODINGS = frozenset({"UTF-8", "UTF-16LE", "UTF-16BE"})


def decode_bytes(body: bytes, label: str) -> str:
    """Return what a browser's ``new TextDecoder(label).decode(body)`` returns.

    Label resolution is the spec's *get an encoding*; LookupError for a string that is not a
    label, or a label of the replacement encoding (the TextDecoder constructor throws a
    RangeError for both). BOM handling is ignoreBOM=false: TextDecoder's "serialize I/O queue"
    drops a first U+FEFF for UTF-8, UTF-16LE and UTF-16BE only.

    >>> decode_bytes(b"\\xff\\xfeh\\x00", "utf-16")
    'h'
    >>> decode_bytes(b"\\xef\\xbb\\xbfx", "latin1")
    'ï»¿x'
    """
    encoding = get_an_encoding(label)
    if encoding is None or encoding == "replacement":
        raise LookupError(f"TextDecoder rejects the label {label!r}")
    text = decode(body, encoding).text
    # "If encoding is UTF-8, UTF-16BE, or UTF-16LE, and ignore BOM and BOM seen are false,
    # then: set BOM seen to true; if item is U+FEFF, then continue."
    if encoding in _BOM_ENCODINGS and text.startswith("\ufeff"):
        text = text[1:]
    return text


def python_codec(encoding: str) -> str | None:
    """A Python codec for ``encoding`` whose strict decode, when it succeeds, is exact.

    ``body.decode(python_codec(enc))`` either raises UnicodeDecodeError or returns exactly
    ``decode(body, enc).text``. None where no such codec exists (gb18030, GBK, Big5, EUC-JP,
    ISO-2022-JP, Shift_JIS, replacement): use :func:`decode`. The single-byte encodings and
    x-user-defined get codecs registered by this package (``whatwg_windows_1252``, ...),
    which are exact in every error mode.

    >>> python_codec("windows-1252"), python_codec("UTF-8"), python_codec("Shift_JIS")
    ('whatwg_windows_1252', 'utf-8', None)
    """
    return _EXACT_CODECS.get(encoding)
