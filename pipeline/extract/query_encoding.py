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
    and never emits four-byte sequences.
  * Shift_JIS is Python's cp932 plus U+00A5 → 0x5C, U+203E → 0x7E, U+2212 → U+FF0D.
  * EUC-JP and ISO-2022-JP take the *index pointer* in jis0208 (the first one), so the
    NEC-selected IBM extensions (rows 89-92) win over cp932's IBM rows; both are written
    here from the jis0208 pointer that cp932 gives, per the standard's encoder steps.
  * Big5 excludes the HKSCS pointers (< 5024) and takes the last pointer for U+2550,
    U+255E, U+2561, U+256A, U+5341, U+5345.
  * UTF-8, UTF-16BE/LE and replacement documents encode URLs as UTF-8 (the URL parser's
    "If encoding is UTF-16BE/LE or replacement, set it to UTF-8" is in the HTML Standard's
    "encoding-parse a URL": "the document's character encoding", with the Encoding
    Standard's *get an output encoding*).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

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

#: An encoder: one code point → its bytes, or None for the encoder's "error".
CharEncoder = Callable[[int], bytes | None]


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


def _python_char(codec: str, cp: int) -> bytes | None:
    try:
        return chr(cp).encode(codec)
    except (UnicodeEncodeError, ValueError):
        return None


#: Code points whose mapping GB18030-2022 moved from a four-byte sequence to the two-byte
#: code Python's (2005) codec gives a private-use code point; the Encoding Standard's
#: index gb18030 follows 2022, so the two swap (U+1E3F/U+E7C7 is the spec's own
#: special case "If code point is U+E7C7, return byte sequence 0x81 0x35 0xF4 0x37").
_GB18030_2022_MOVED = (*range(0xFE10, 0xFE1A), 0x1E3F, *range(0x9FB4, 0x9FBC))


def _build_gb18030_swaps() -> dict[int, bytes]:
    swaps: dict[int, bytes] = {}
    for cp in _GB18030_2022_MOVED:
        four = chr(cp).encode("gb18030")
        two = _GB18030_2022_TWO_BYTE[cp]
        private_use = ord(two.decode("gb18030"))
        swaps[cp] = two
        swaps[private_use] = four
    return swaps


#: The two-byte codes of GB18030-2022 for the moved code points (index gb18030).
_GB18030_2022_TWO_BYTE: dict[int, bytes] = {
    0xFE10: b"\xa6\xd9", 0xFE11: b"\xa6\xdb", 0xFE12: b"\xa6\xda", 0xFE13: b"\xa6\xdc",
    0xFE14: b"\xa6\xdd", 0xFE15: b"\xa6\xde", 0xFE16: b"\xa6\xdf", 0xFE17: b"\xa6\xec",
    0xFE18: b"\xa6\xed", 0xFE19: b"\xa6\xf3", 0x1E3F: b"\xa8\xbc", 0x9FB4: b"\xfe\x59",
    0x9FB5: b"\xfe\x61", 0x9FB6: b"\xfe\x66", 0x9FB7: b"\xfe\x67", 0x9FB8: b"\xfe\x6d",
    0x9FB9: b"\xfe\x7e", 0x9FBA: b"\xfe\x90", 0x9FBB: b"\xfe\xa0",
}
_GB18030_SWAPS = _build_gb18030_swaps()


def _gb18030_encoder(is_gbk: bool) -> CharEncoder:
    def encode(cp: int) -> bytes | None:
        if cp < 0x80:
            return bytes([cp])
        # "If code point is U+E5E5, return error with code point."
        if cp == 0xE5E5:
            return None
        # "If is GBK is true and code point is U+20AC, return byte 0x80."
        if is_gbk and cp == 0x20AC:
            return b"\x80"
        out = _GB18030_SWAPS.get(cp) or _python_char("gb18030", cp)
        # "If is GBK is true, return error with code point." (no four-byte sequences)
        if out is None or (is_gbk and len(out) == 4):
            return None
        return out

    return encode


def _jis0208_pointer(cp: int) -> int | None:
    """The *index pointer* (the first one) for ``cp`` in index jis0208, via cp932."""
    out = _python_char("cp932", cp)
    pointer = None
    if out is not None and len(out) == 2:
        lead, trail = out
        lead_offset = 0x81 if lead < 0xA0 else 0xC1
        offset = 0x40 if trail < 0x7F else 0x41
        pointer = (lead - lead_offset) * 188 + trail - offset
    nec_ibm = _NEC_SELECTED_IBM.get(cp)
    if nec_ibm is not None and (pointer is None or nec_ibm < pointer):
        return nec_ibm
    return pointer


def _build_nec_selected_ibm() -> dict[int, int]:
    # Shift_JIS 0xED40-0xEEFC (jis0208 pointers 8272-8835) decoded by cp932: the first
    # pointer of these characters in index jis0208, before cp932's IBM rows 0xFA-0xFC.
    table: dict[int, int] = {}
    for lead in (0xED, 0xEE):
        for trail in [*range(0x40, 0x7F), *range(0x80, 0xFD)]:
            try:
                char = bytes([lead, trail]).decode("cp932")
            except UnicodeDecodeError:
                continue
            offset = 0x40 if trail < 0x7F else 0x41
            table.setdefault(ord(char), (lead - 0xC1) * 188 + trail - offset)
    return table


_NEC_SELECTED_IBM = _build_nec_selected_ibm()


def _build_ibm_extensions() -> dict[int, bytes]:
    # Shift_JIS 0xFA40-0xFC4B (IBM extensions) decoded by cp932: what the Shift_JIS
    # encoder emits for characters whose NEC-selected pointers (8272-8835) it excludes.
    table: dict[int, bytes] = {}
    for lead in (0xFA, 0xFB, 0xFC):
        for trail in [*range(0x40, 0x7F), *range(0x80, 0xFD)]:
            try:
                char = bytes([lead, trail]).decode("cp932")
            except UnicodeDecodeError:
                continue
            table.setdefault(ord(char), bytes([lead, trail]))
    return table


_IBM_EXTENSIONS = _build_ibm_extensions()


def _shift_jis_encode(cp: int) -> bytes | None:
    # "If code point is an ASCII code point or U+0080, return a byte whose value is code point."
    if cp <= 0x80:
        return bytes([cp])
    if cp == 0xA5:
        return b"\x5c"
    if cp == 0x203E:
        return b"\x7e"
    if 0xFF61 <= cp <= 0xFF9F:
        return bytes([cp - 0xFF61 + 0xA1])
    if cp == 0x2212:
        cp = 0xFF0D
    out = _python_char("cp932", cp)
    if out is None or len(out) != 2:
        return None
    if out[0] in (0xED, 0xEE):
        # "index Shift_JIS pointer" excludes pointers 8272 to 8835 (NEC-selected IBM
        # extensions); cp932 prefers them for some characters, the standard the IBM rows.
        return _IBM_EXTENSIONS.get(cp)
    return out


def _euc_jp_encode(cp: int) -> bytes | None:
    if cp < 0x80:
        return bytes([cp])
    if cp == 0xA5:
        return b"\x5c"
    if cp == 0x203E:
        return b"\x7e"
    if 0xFF61 <= cp <= 0xFF9F:
        return bytes([0x8E, cp - 0xFF61 + 0xA1])
    if cp == 0x2212:
        cp = 0xFF0D
    pointer = _jis0208_pointer(cp)
    if pointer is None:
        return None
    # "Let lead be pointer / 94 + 0xA1. Let trail be pointer % 94 + 0xA1."
    return bytes([pointer // 94 + 0xA1, pointer % 94 + 0xA1])


def _euc_kr_encode(cp: int) -> bytes | None:
    if cp < 0x80:
        return bytes([cp])
    out = _python_char("cp949", cp)
    return out if out is not None and len(out) == 2 else None


_BIG5_LAST_POINTER = frozenset({0x2550, 0x255E, 0x2561, 0x256A, 0x5341, 0x5345})


def _big5_pair(codec: str, cp: int) -> bytes | None:
    out = _python_char(codec, cp)
    # "index Big5 pointer": pointers below (0xA1 - 0x81) × 157 (HKSCS) are excluded.
    if out is None or len(out) != 2 or out[0] < 0xA1:
        return None
    return out


def _big5_encode(cp: int) -> bytes | None:
    if cp < 0x80:
        return bytes([cp])
    out = _BIG5_OVERRIDES.get(cp)
    if out is not None:
        return out
    if 0x2400 <= cp <= 0x2421 and cp != 0x2420:
        # Control pictures at 0xA3C0-0xA3E0 (in the WHATWG index, in neither Python codec).
        return bytes([0xA3, 0xC0 + cp - 0x2400 - (cp == 0x2421)])
    # DEVIATION: 15 of index Big5's 14,653 code points (U+FF0F, U+FF3C, U+256D-U+2570,
    # U+5EF4, U+65E0, U+7676, U+96B6, U+4EDD, U+5605, U+5ED0, U+60A4, U+732A) encode as
    # big5hkscs/cp950 do or not at all — Python ships no codec equal to index Big5, and
    # the project bundles no index (pinned in tests/conformance/test_urls.py).
    return (
        _big5_pair("big5hkscs", cp) or _big5_pair("cp950", cp) or _big5_decoded().get(cp)
    )


@lru_cache(maxsize=1)
def _big5_decoded() -> dict[int, bytes]:
    # Code points big5hkscs encodes in the HKSCS rows (excluded from "index Big5 pointer")
    # that also sit in the main rows: the first main-row pair that decodes to them.
    table: dict[int, bytes] = {}
    for lead in range(0xA1, 0xFF):
        for trail in [*range(0x40, 0x7F), *range(0xA1, 0xFF)]:
            pair = bytes([lead, trail])
            try:
                char = pair.decode("big5hkscs")
            except UnicodeDecodeError:
                continue
            if len(char) == 1:
                table.setdefault(ord(char), pair)
    return table


_BIG5_OVERRIDES: dict[int, bytes] = {
    # The last pointer for these duplicated code points (Encoding Standard "index Big5 pointer").
    0x2550: b"\xf9\xf9", 0x255E: b"\xf9\xe9", 0x2561: b"\xf9\xeb", 0x256A: b"\xf9\xea",
    0x5341: b"\xa4\x51", 0x5345: b"\xa4\xca",
}


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
    encoders["GBK"] = _gb18030_encoder(is_gbk=True)
    encoders["gb18030"] = _gb18030_encoder(is_gbk=False)
    encoders["Shift_JIS"] = _shift_jis_encode
    encoders["EUC-JP"] = _euc_jp_encode
    encoders["EUC-KR"] = _euc_kr_encode
    encoders["Big5"] = _big5_encode
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


def _iso_2022_jp_percent_encode(query: str, special: bool) -> str:
    """ISO-2022-JP encoder (Encoding Standard §12.2.2), stateful across the whole query."""
    out: list[str] = []
    state = "ascii"
    for char in query:
        cp = ord(char)
        while True:  # "prepend code point to queue" loops back here
            # "If ISO-2022-JP encoder state is ASCII or Roman, and code point is U+000E,
            # U+000F, or U+001B, return error with U+FFFD."
            if state in ("ascii", "roman") and cp in (0x0E, 0x0F, 0x1B):
                out.append("%26%2365533%3B")
                break
            if state == "ascii" and cp < 0x80:
                _percent_encode_bytes(bytes([cp]), special, out)
                break
            if state == "roman" and ((cp < 0x80 and cp not in (0x5C, 0x7E)) or cp in (0xA5, 0x203E)):
                byte = 0x5C if cp == 0xA5 else 0x7E if cp == 0x203E else cp
                _percent_encode_bytes(bytes([byte]), special, out)
                break
            if cp < 0x80 and state != "ascii":
                state = "ascii"
                _percent_encode_bytes(b"\x1b(B", special, out)
                continue
            if cp in (0xA5, 0x203E) and state != "roman":
                state = "roman"
                _percent_encode_bytes(b"\x1b(J", special, out)
                continue
            if cp == 0x2212:
                cp = 0xFF0D
            if 0xFF61 <= cp <= 0xFF9F:
                cp = _KATAKANA[cp - 0xFF61]
            pointer = _jis0208_pointer(cp)
            if pointer is None:
                if state == "jis0208":
                    state = "ascii"
                    _percent_encode_bytes(b"\x1b(B", special, out)
                    continue
                out.append(f"%26%23{cp}%3B")
                break
            if state != "jis0208":
                state = "jis0208"
                _percent_encode_bytes(b"\x1b$B", special, out)
                continue
            _percent_encode_bytes(bytes([pointer // 94 + 0x21, pointer % 94 + 0x21]), special, out)
            break
    # End of queue: "If ISO-2022-JP encoder state is not ASCII, set it to ASCII and
    # return three bytes 0x1B 0x28 0x42."
    if state != "ascii":
        _percent_encode_bytes(b"\x1b(B", special, out)
    return "".join(out)


def _build_katakana() -> tuple[int, ...]:
    # index ISO-2022-JP katakana: the NFKC full-width form of each half-width katakana,
    # except the two sound marks, whose spacing forms the index uses.
    import unicodedata

    table = []
    for cp in range(0xFF61, 0xFFA0):
        if cp == 0xFF9E:
            table.append(0x309B)
        elif cp == 0xFF9F:
            table.append(0x309C)
        else:
            table.append(ord(unicodedata.normalize("NFKC", chr(cp))))
    return tuple(table)


_KATAKANA = _build_katakana()


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
        return _iso_2022_jp_percent_encode(query, special)
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
