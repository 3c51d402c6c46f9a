"""Encoders for the Encoding Standard's CJK encodings, on top of Python's codecs, made
byte-exact with the WHATWG indexes where Python's tables differ (see query_encoding's
module docstring for the list; tests/conformance/test_urls.py checks every index entry).

https://encoding.spec.whatwg.org/#legacy-multi-byte-chinese-(simplified)-encodings
https://encoding.spec.whatwg.org/#legacy-multi-byte-japanese-encodings
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from functools import lru_cache

#: An encoder: one code point → its bytes, or None for the encoder's "error".
CharEncoder = Callable[[int], bytes | None]


def python_char(codec: str, cp: int) -> bytes | None:
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


def gb18030_encoder(is_gbk: bool) -> CharEncoder:
    def encode(cp: int) -> bytes | None:
        if cp < 0x80:
            return bytes([cp])
        # "If code point is U+E5E5, return error with code point."
        if cp == 0xE5E5:
            return None
        # "If is GBK is true and code point is U+20AC, return byte 0x80."
        if is_gbk and cp == 0x20AC:
            return b"\x80"
        out = _GB18030_SWAPS.get(cp) or python_char("gb18030", cp)
        # "If is GBK is true, return error with code point." (no four-byte sequences)
        if out is None or (is_gbk and len(out) == 4):
            return None
        return out

    return encode


def _jis0208_pointer(cp: int) -> int | None:
    """The *index pointer* (the first one) for ``cp`` in index jis0208, via cp932."""
    out = python_char("cp932", cp)
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


def shift_jis_encode(cp: int) -> bytes | None:
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
    out = python_char("cp932", cp)
    if out is None or len(out) != 2:
        return None
    if out[0] in (0xED, 0xEE):
        # "index Shift_JIS pointer" excludes pointers 8272 to 8835 (NEC-selected IBM
        # extensions); cp932 prefers them for some characters, the standard the IBM rows.
        return _IBM_EXTENSIONS.get(cp)
    return out


def euc_jp_encode(cp: int) -> bytes | None:
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


def euc_kr_encode(cp: int) -> bytes | None:
    if cp < 0x80:
        return bytes([cp])
    out = python_char("cp949", cp)
    return out if out is not None and len(out) == 2 else None


_BIG5_LAST_POINTER = frozenset({0x2550, 0x255E, 0x2561, 0x256A, 0x5341, 0x5345})


def _big5_pair(codec: str, cp: int) -> bytes | None:
    out = python_char(codec, cp)
    # "index Big5 pointer": pointers below (0xA1 - 0x81) × 157 (HKSCS) are excluded.
    if out is None or len(out) != 2 or out[0] < 0xA1:
        return None
    return out


def big5_encode(cp: int) -> bytes | None:
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


def iso_2022_jp_encode(text: str) -> list[bytes | int]:
    """ISO-2022-JP encoder (Encoding Standard §12.2.2), stateful across the whole text:
    byte runs, and ints for the code points it returns "error" for."""
    out: list[bytes | int] = []
    state = "ascii"
    for char in text:
        cp = ord(char)
        while True:  # "prepend code point to queue" loops back here
            # "If ISO-2022-JP encoder state is ASCII or Roman, and code point is U+000E,
            # U+000F, or U+001B, return error with U+FFFD."
            if state in ("ascii", "roman") and cp in (0x0E, 0x0F, 0x1B):
                out.append(0xFFFD)
                break
            if state == "ascii" and cp < 0x80:
                out.append(bytes([cp]))
                break
            if state == "roman" and ((cp < 0x80 and cp not in (0x5C, 0x7E)) or cp in (0xA5, 0x203E)):
                byte = 0x5C if cp == 0xA5 else 0x7E if cp == 0x203E else cp
                out.append(bytes([byte]))
                break
            if cp < 0x80 and state != "ascii":
                state = "ascii"
                out.append(b"\x1b(B")
                continue
            if cp in (0xA5, 0x203E) and state != "roman":
                state = "roman"
                out.append(b"\x1b(J")
                continue
            if cp == 0x2212:
                cp = 0xFF0D
            if 0xFF61 <= cp <= 0xFF9F:
                cp = _KATAKANA[cp - 0xFF61]
            pointer = _jis0208_pointer(cp)
            if pointer is None:
                if state == "jis0208":
                    state = "ascii"
                    out.append(b"\x1b(B")
                    continue
                out.append(cp)
                break
            if state != "jis0208":
                state = "jis0208"
                out.append(b"\x1b$B")
                continue
            out.append(bytes([pointer // 94 + 0x21, pointer % 94 + 0x21]))
            break
    # End of queue: "If ISO-2022-JP encoder state is not ASCII, set it to ASCII and
    # return three bytes 0x1B 0x28 0x42."
    if state != "ascii":
        out.append(b"\x1b(B")
    return out


def _build_katakana() -> tuple[int, ...]:
    # index ISO-2022-JP katakana: the NFKC full-width form of each half-width katakana,
    # except the two sound marks, whose spacing forms the index uses.
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


