"""The Encoding Standard's encoders, derived from the same bundled indexes as the decoders.

https://encoding.spec.whatwg.org/#encoders-and-decoders — the standard defines each legacy
encoder from its index ("index pointer for code point"), so the encoders here read the
tables of :mod:`pipeline.encoding.decoders.tables` backwards; no Python codec is involved
and no fix-up list is needed. Encoders are what the URL Standard's *percent-encode after
encoding* runs on a link's query in the document's encoding.

Public API:

* :func:`char_encoder` — the encoder of a stateless encoding, one code point at a time;
* :func:`encode_or_fail` — a whole string through any encoder (ISO-2022-JP is stateful), as
  byte runs and the code points the encoder returned *error* for;
* :data:`UTF8_OUTPUT` — the encodings whose *output encoding* is UTF-8.

>>> char_encoder("windows-1252")(0x20AC), char_encoder("windows-1252")(0x81)
(b'\\x80', b'\\x81')
>>> char_encoder("Shift_JIS")(0x2170)  # the IBM row, not the NEC-selected one
b'\\xfa@'
>>> list(encode_or_fail("a\\u00e9\\u3042", "ISO-2022-JP"))
[b'a', 233, b'\\x1b$B', b'$"', b'\\x1b(B']
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

from pipeline.encoding.decoders.single_byte import SINGLE_BYTE_INDEX
from pipeline.encoding.decoders.tables import gb18030_ranges_pointer, index_table

#: One code point → its bytes, or None for the encoder's "return error with code point".
CharEncoder = Callable[[int], bytes | None]

#: Encodings whose *get an output encoding* is UTF-8 (the replacement and UTF-16 encodings
#: map to UTF-8; UTF-8 is itself).
UTF8_OUTPUT = frozenset({"UTF-8", "UTF-16BE", "UTF-16LE", "replacement"})


@functools.cache
def _pointers(index: str, skip: range = range(0), last: frozenset[int] = frozenset()) -> dict[int, int]:
    """Code point → *index pointer for code point* (the first pointer; the last one for the
    code points in ``last``), over the entries of ``index`` whose pointer is not in ``skip``."""
    table = index_table(index)
    pointers: dict[int, int] = {}
    for pointer, char in enumerate(table):
        if char == "\0" or pointer in skip:
            continue
        code_point = ord(char)
        if code_point in last or code_point not in pointers:
            pointers[code_point] = pointer
    return pointers


def _single_byte(encoding: str) -> CharEncoder:
    pointers = _pointers(SINGLE_BYTE_INDEX[encoding])
    table = {cp: bytes([pointer + 0x80]) for cp, pointer in pointers.items()}

    def encode(cp: int) -> bytes | None:
        # §9.2 single-byte encoder: "2. If code point is an ASCII code point, return a byte
        # whose value is code point. 3. Let pointer be the index pointer for code point in
        # index single-byte. 4. If pointer is null, return error with code point. 5. Return
        # a byte whose value is pointer + 0x80."
        if cp < 0x80:
            return bytes((cp,))
        return table.get(cp)

    return encode


#: §10.1.2 gb18030 encoder step 5: the code points GB18030-2022 moved out of the private
#: use area keep their two-byte codes for the old private-use code points.
_GB18030_PUA = {
    0xE78D: b"\xa6\xd9", 0xE78E: b"\xa6\xda", 0xE78F: b"\xa6\xdb", 0xE790: b"\xa6\xdc",
    0xE791: b"\xa6\xdd", 0xE792: b"\xa6\xde", 0xE793: b"\xa6\xdf", 0xE794: b"\xa6\xec",
    0xE795: b"\xa6\xed", 0xE796: b"\xa6\xf3", 0xE81E: b"\xfe\x59", 0xE826: b"\xfe\x61",
    0xE82B: b"\xfe\x66", 0xE82C: b"\xfe\x67", 0xE832: b"\xfe\x6d", 0xE843: b"\xfe\x7e",
    0xE854: b"\xfe\x90", 0xE864: b"\xfe\xa0",
}


def _gb18030(is_gbk: bool) -> CharEncoder:
    pointers = _pointers("gb18030")

    def encode(cp: int) -> bytes | None:
        # §10.1.2 gb18030 encoder, steps 2-11.
        if cp < 0x80:
            return bytes((cp,))
        # "3. If code point is U+E5E5, return error with code point."
        if cp == 0xE5E5:
            return None
        # "4. If is GBK is true and code point is U+20AC, return byte 0x80."
        if is_gbk and cp == 0x20AC:
            return b"\x80"
        # "5. If there is a row in the table below whose first column is code point, then
        # return the two bytes on the same row listed in the second column."
        special = _GB18030_PUA.get(cp)
        if special is not None:
            return special
        # "6. Let pointer be the index pointer for code point in index gb18030. 7. If
        # pointer is non-null: lead = pointer / 190 + 0x81, trail = pointer % 190, offset =
        # 0x40 if trail < 0x3F else 0x41; return lead and trail + offset."
        pointer = pointers.get(cp)
        if pointer is not None:
            lead, trail = divmod(pointer, 190)
            return bytes((lead + 0x81, trail + (0x40 if trail < 0x3F else 0x41)))
        # "8. If is GBK is true, return error with code point."
        if is_gbk:
            return None
        # "9. Set pointer to the index gb18030 ranges pointer for code point." Steps 10-11:
        # four bytes, byte1 = pointer / 12600, byte2 = pointer % 12600 / 1260, ...
        pointer = gb18030_ranges_pointer(cp)
        byte1, pointer = divmod(pointer, 10 * 126 * 10)
        byte2, pointer = divmod(pointer, 10 * 126)
        byte3, byte4 = divmod(pointer, 10)
        return bytes((byte1 + 0x81, byte2 + 0x30, byte3 + 0x81, byte4 + 0x30))

    return encode


def _big5(cp: int) -> bytes | None:
    # §11.1.2 Big5 encoder.
    if cp < 0x80:
        return bytes((cp,))
    # "index Big5 pointer": index Big5 without the pointers below (0xA1 - 0x81) × 157 (the
    # HKSCS extensions), and the last pointer for the six code points listed there.
    pointer = _pointers(
        "big5", range((0xA1 - 0x81) * 157),
        frozenset({0x2550, 0x255E, 0x2561, 0x256A, 0x5341, 0x5345}),
    ).get(cp)
    if pointer is None:
        return None
    # "5. Let lead be pointer / 157 + 0x81. 6. Let trail be pointer % 157. 7. Let offset be
    # 0x40 if trail is less than 0x3F, otherwise 0x62."
    lead, trail = divmod(pointer, 157)
    return bytes((lead + 0x81, trail + (0x40 if trail < 0x3F else 0x62)))


def _euc_jp(cp: int) -> bytes | None:
    # §12.1.2 EUC-JP encoder.
    if cp < 0x80:
        return bytes((cp,))
    if cp == 0xA5:  # "3. If code point is U+00A5, return byte 0x5C."
        return b"\x5c"
    if cp == 0x203E:  # "4. If code point is U+203E, return byte 0x7E."
        return b"\x7e"
    if 0xFF61 <= cp <= 0xFF9F:  # "5. ... return two bytes 0x8E and code point − 0xFF61 + 0xA1."
        return bytes((0x8E, cp - 0xFF61 + 0xA1))
    if cp == 0x2212:  # "6. If code point is U+2212, set it to U+FF0D."
        cp = 0xFF0D
    pointer = _pointers("jis0208").get(cp)
    if pointer is None:
        return None
    lead, trail = divmod(pointer, 94)  # "9. lead = pointer / 94 + 0xA1. 10. trail = ... + 0xA1"
    return bytes((lead + 0xA1, trail + 0xA1))


def _shift_jis(cp: int) -> bytes | None:
    # §12.3.2 Shift_JIS encoder. "2. If code point is an ASCII code point or U+0080, return
    # a byte whose value is code point."
    if cp <= 0x80:
        return bytes((cp,))
    if cp == 0xA5:
        return b"\x5c"
    if cp == 0x203E:
        return b"\x7e"
    if 0xFF61 <= cp <= 0xFF9F:  # "5. ... return a byte whose value is code point − 0xFF61 + 0xA1."
        return bytes((cp - 0xFF61 + 0xA1,))
    if cp == 0x2212:
        cp = 0xFF0D
    # "index Shift_JIS pointer": index jis0208 without pointers 8272 to 8835 (the
    # NEC-selected IBM extensions), so the IBM rows 0xFA-0xFC are used instead.
    pointer = _pointers("jis0208", range(8272, 8836)).get(cp)
    if pointer is None:
        return None
    # "9. lead = pointer / 188. 10. lead offset = 0x81 if lead < 0x1F, else 0xC1. 11. trail =
    # pointer % 188. 12. offset = 0x40 if trail < 0x3F, else 0x41."
    lead, trail = divmod(pointer, 188)
    return bytes((lead + (0x81 if lead < 0x1F else 0xC1), trail + (0x40 if trail < 0x3F else 0x41)))


def _euc_kr(cp: int) -> bytes | None:
    # §13.1.2 EUC-KR encoder: "5. lead = pointer / 190 + 0x81. 6. trail = pointer % 190 + 0x41."
    if cp < 0x80:
        return bytes((cp,))
    pointer = _pointers("euc-kr").get(cp)
    if pointer is None:
        return None
    lead, trail = divmod(pointer, 190)
    return bytes((lead + 0x81, trail + 0x41))


def _x_user_defined(cp: int) -> bytes | None:
    # §14.5.2 x-user-defined encoder: "3. If code point is in the range U+F780 to U+F7FF,
    # inclusive, return a byte whose value is code point − 0xF780 + 0x80."
    if cp < 0x80:
        return bytes((cp,))
    return bytes((cp - 0xF780 + 0x80,)) if 0xF780 <= cp <= 0xF7FF else None


@functools.cache
def char_encoder(encoding: str) -> CharEncoder | None:
    """The encoder of a stateless legacy encoding (a WHATWG name), or None for encodings
    without one here: the UTF-8 output encodings and the stateful ISO-2022-JP (use
    :func:`encode_or_fail` for those)."""
    if encoding in SINGLE_BYTE_INDEX:
        return _single_byte(encoding)
    return {
        "gb18030": _gb18030(is_gbk=False),
        "GBK": _gb18030(is_gbk=True),
        "Big5": _big5,
        "EUC-JP": _euc_jp,
        "Shift_JIS": _shift_jis,
        "EUC-KR": _euc_kr,
        "x-user-defined": _x_user_defined,
    }.get(encoding)


def _iso_2022_jp(text: str) -> Iterator[bytes | int]:
    # §12.2.2 ISO-2022-JP encoder, with its state carried across the whole text.
    katakana = index_table("iso-2022-jp-katakana")
    jis0208 = _pointers("jis0208")
    state = "ascii"
    for char in text:
        cp = ord(char)
        while True:  # "restore code point to queue" processes it again
            # "3. If ISO-2022-JP encoder state is ASCII or Roman, and code point is U+000E,
            # U+000F, or U+001B, return error with U+FFFD."
            if state != "jis0208" and cp in (0x0E, 0x0F, 0x1B):
                yield 0xFFFD
                break
            if state == "ascii" and cp < 0x80:  # step 4
                yield bytes((cp,))
                break
            # Step 5: Roman takes ASCII but U+005C and U+007E, plus U+00A5 and U+203E.
            if state == "roman" and ((cp < 0x80 and cp not in (0x5C, 0x7E)) or cp in (0xA5, 0x203E)):
                yield bytes((0x5C if cp == 0xA5 else 0x7E if cp == 0x203E else cp,))
                break
            if cp < 0x80 and state != "ascii":  # step 6
                state = "ascii"
                yield b"\x1b(B"
                continue
            if cp in (0xA5, 0x203E) and state != "roman":  # step 7
                state = "roman"
                yield b"\x1b(J"
                continue
            if cp == 0x2212:  # step 8
                cp = 0xFF0D
            if 0xFF61 <= cp <= 0xFF9F:  # step 9: index ISO-2022-JP katakana
                cp = ord(katakana[cp - 0xFF61])
            pointer = jis0208.get(cp)
            if pointer is None:  # step 11
                if state == "jis0208":
                    state = "ascii"
                    yield b"\x1b(B"
                    continue
                yield cp
                break
            if state != "jis0208":  # step 12
                state = "jis0208"
                yield b"\x1b$B"
                continue
            lead, trail = divmod(pointer, 94)  # steps 13-14
            yield bytes((lead + 0x21, trail + 0x21))
            break
    # Step 1 at end-of-queue: "If ... ISO-2022-JP encoder state is not ASCII, ... set it to
    # ASCII, and return three bytes 0x1B 0x28 0x42."
    if state != "ascii":
        yield b"\x1b(B"


def encode_or_fail(text: str, encoding: str) -> Iterator[bytes | int]:
    """``text`` (scalar values) through ``encoding``'s encoder in the order the bytes come:
    runs of bytes, and an int for each code point the encoder returned *error* for (the
    caller's error mode decides what it becomes, e.g. ``&#NNN;`` in URLs and forms).

    Encodings without a legacy encoder (UTF-8 and those whose output encoding is UTF-8, and
    unknown names) encode as UTF-8.

    >>> list(encode_or_fail("\\u20ac\\u0100", "windows-1252"))
    [b'\\x80', 256]
    """
    if encoding == "ISO-2022-JP":
        yield from _iso_2022_jp(text)
        return
    encode = char_encoder(encoding)
    if encode is None:
        yield text.encode("utf-8")
        return
    for char in text:
        cp = ord(char)
        data = encode(cp)
        yield cp if data is None else data
