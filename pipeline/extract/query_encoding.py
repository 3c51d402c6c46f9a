"""The URL Standard's *percent-encode after encoding* for a URL's query, in the
document's encoding (what browsers do with the query of a link on a legacy page).

https://url.spec.whatwg.org/#string-percent-encode-after-encoding
https://encoding.spec.whatwg.org/#encoders-and-decoders

Encoders are Python codecs under a documented mapping from WHATWG names, each with the
fix-ups that make it byte-exact with the Encoding Standard's encoder (checked against the
WHATWG indexes in ``tests/conformance/test_urls.py``):

Differences from Python's codecs, fixed here:
  * windows-874/125x: bytes 0x80-0x9F that Python leaves undefined are, in the WHATWG
    index, the C1 control of the same value (U+0081 encodes to 0x81 in windows-1252).
  * windows-1255: U+05BA is 0xCA (Python lacks it).
  * KOI8-U is KOI8-RU in WHATWG: U+045E is 0xAE and U+040E is 0xBE (Python has box
    drawing there).
  * gb18030 / GBK: "If code point is U+E5E5, return error"; GBK encodes U+20AC as 0x80
    and never emits four-byte sequences; the 19 code points GB18030-2022 moved to
    two-byte codes (U+FE10-U+FE19, U+1E3F, U+9FB4-U+9FBB) swap with the private-use
    code points Python's 2005 table has there.
  * Shift_JIS is Python's cp932 plus U+00A5 → 0x5C, U+203E → 0x7E, U+2212 → U+FF0D, and
    never the NEC-selected IBM rows 0xED/0xEE ("index Shift_JIS pointer" excludes
    pointers 8272-8835; cp932 picks them for e.g. U+2170): the IBM rows 0xFA-0xFC instead.
  * EUC-JP and ISO-2022-JP take the *index pointer* in jis0208 (the first one), so the
    NEC-selected IBM extensions (rows 89-92) win over cp932's IBM rows; both are written
    here from the jis0208 pointer that cp932 gives, per the standard's encoder steps.
  * Big5 excludes the HKSCS pointers (< 5024) and takes the last pointer for U+2550,
    U+255E, U+2561, U+256A, U+5341, U+5345; control pictures U+2400-U+2421 are added.
    DEVIATION: 15 of its 14,653 code points still differ (cjk_encoders.big5_encode).
  * x-user-defined encodes U+F780-U+F7FF to 0x80-0xFF, nothing else non-ASCII.
  * UTF-8, UTF-16BE/LE and replacement documents encode URLs as UTF-8 (the URL parser's
    "If encoding is UTF-16BE/LE or replacement, set it to UTF-8" is in the HTML Standard's
    "encoding-parse a URL": "the document's character encoding", with the Encoding
    Standard's *get an output encoding*).
"""

from __future__ import annotations

from pipeline.extract.cjk_encoders import (
    CharEncoder,
    big5_encode,
    euc_jp_encode,
    euc_kr_encode,
    gb18030_encoder,
    iso_2022_jp_encode,
    shift_jis_encode,
)

#: WHATWG encoding name → Python codec for the single-byte encodings.
SINGLE_BYTE_CODECS: dict[str, str] = {
    "IBM866": "cp866",
    "ISO-8859-2": "iso8859_2",
    "ISO-8859-3": "iso8859_3",
    "ISO-8859-4": "iso8859_4",
    "ISO-8859-5": "iso8859_5",
    "ISO-8859-6": "iso8859_6",
    "ISO-8859-7": "iso8859_7",
    "ISO-8859-8": "iso8859_8",
    "ISO-8859-8-I": "iso8859_8",
    "ISO-8859-10": "iso8859_10",
    "ISO-8859-13": "iso8859_13",
    "ISO-8859-14": "iso8859_14",
    "ISO-8859-15": "iso8859_15",
    "ISO-8859-16": "iso8859_16",
    "KOI8-R": "koi8_r",
    "KOI8-U": "koi8_u",
    "macintosh": "mac_roman",
    "windows-874": "cp874",
    "windows-1250": "cp1250",
    "windows-1251": "cp1251",
    "windows-1252": "cp1252",
    "windows-1253": "cp1253",
    "windows-1254": "cp1254",
    "windows-1255": "cp1255",
    "windows-1256": "cp1256",
    "windows-1257": "cp1257",
    "windows-1258": "cp1258",
    "x-mac-cyrillic": "mac_cyrillic",
}

#: Code point → byte corrections to Python's single-byte tables (None removes a mapping).
_SINGLE_BYTE_FIXUPS: dict[str, dict[int, int | None]] = {
    "windows-1255": {0x05BA: 0xCA},
    "KOI8-U": {0x045E: 0xAE, 0x040E: 0xBE, 0x255D: None, 0x256C: None},
}

#: Encodings whose URL query is UTF-8 (Encoding Standard *get an output encoding*).
UTF8_OUTPUT = frozenset({"UTF-8", "UTF-16BE", "UTF-16LE", "replacement"})



def _single_byte_table(name: str) -> dict[int, int]:
    codec = SINGLE_BYTE_CODECS[name]
    table: dict[int, int] = {}
    for byte in range(0x80, 0x100):
        try:
            char = bytes([byte]).decode(codec)
        except UnicodeDecodeError:
            if byte <= 0x9F and name.startswith("windows-"):
                # The WHATWG index maps these to the C1 control of the same value.
                table.setdefault(byte, byte)
            continue
        table.setdefault(ord(char), byte)
    for code_point, fixed in _SINGLE_BYTE_FIXUPS.get(name, {}).items():
        if fixed is None:
            table.pop(code_point, None)
        else:
            table[code_point] = fixed
    return table


def _single_byte_encoder(name: str) -> CharEncoder:
    table = _single_byte_table(name)

    def encode(cp: int) -> bytes | None:
        # "If code point is an ASCII code point, return a byte whose value is code point."
        if cp < 0x80:
            return bytes([cp])
        byte = table.get(cp)
        return None if byte is None else bytes([byte])

    return encode


def _x_user_defined_encode(cp: int) -> bytes | None:
    if cp < 0x80:
        return bytes([cp])
    # "If code point is in the range U+F780 to U+F7FF, return a byte whose value is
    # code point − 0xF780 + 0x80."
    if 0xF780 <= cp <= 0xF7FF:
        return bytes([cp - 0xF780 + 0x80])
    return None


def _build_encoders() -> dict[str, CharEncoder]:
    encoders: dict[str, CharEncoder] = {name: _single_byte_encoder(name) for name in SINGLE_BYTE_CODECS}
    encoders["GBK"] = gb18030_encoder(is_gbk=True)
    encoders["gb18030"] = gb18030_encoder(is_gbk=False)
    encoders["Shift_JIS"] = shift_jis_encode
    encoders["EUC-JP"] = euc_jp_encode
    encoders["EUC-KR"] = euc_kr_encode
    encoders["Big5"] = big5_encode
    encoders["x-user-defined"] = _x_user_defined_encode
    return encoders


ENCODERS: dict[str, CharEncoder] = _build_encoders()

_HEX = "0123456789ABCDEF"


def _in_set(byte: int, special: bool) -> bool:
    # The query percent-encode set: C0 controls, space, ", #, <, >, and > U+007E; the
    # special-query percent-encode set adds '.
    return (
        byte < 0x21 or byte > 0x7E or byte in (0x22, 0x23, 0x3C, 0x3E)
        or (special and byte == 0x27)
    )


def _percent_encode_bytes(data: bytes, special: bool, out: list[str]) -> None:
    for byte in data:
        if _in_set(byte, special):
            out.append("%" + _HEX[byte >> 4] + _HEX[byte & 15])
        else:
            out.append(chr(byte))


def percent_encode_query(query: str, encoding: str, special: bool) -> str:
    """URL Standard query state: *percent-encode after encoding* ``query`` with ``encoding``.

    ``encoding`` is a WHATWG encoding name (unknown names act as UTF-8). Unencodable code
    points become ``%26%23NNN%3B`` (the encoder's "html" error mode, percent-encoded).

    >>> percent_encode_query("a=\\u2020", "windows-1252", True)
    'a=%86'
    >>> percent_encode_query("\\u2020", "EUC-KR", True)
    '%A2%D3'
    >>> percent_encode_query("\\u00a2'", "ISO-8859-2", False)
    "%26%23162%3B'"
    """
    if not _is_scalar(query):
        # The URL parser takes scalar values: a lone surrogate is U+FFFD by then.
        query = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in query)
    if encoding == "ISO-2022-JP":
        out_iso: list[str] = []
        for item in iso_2022_jp_encode(query):
            if isinstance(item, int):
                out_iso.append(f"%26%23{item}%3B")
            else:
                _percent_encode_bytes(item, special, out_iso)
        return "".join(out_iso)
    encoder = ENCODERS.get(encoding)
    out: list[str] = []
    if encoder is None:
        _percent_encode_bytes(query.encode("utf-8"), special, out)
        return "".join(out)
    for char in query:
        cp = ord(char)
        data = encoder(cp)
        if data is None:
            out.append(f"%26%23{cp}%3B")
        else:
            _percent_encode_bytes(data, special, out)
    return "".join(out)


def _is_scalar(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
