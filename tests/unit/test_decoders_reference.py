"""A straightforward reference of the Encoding Standard's decoders, and its validation.

Each decoder below transcribes the spec's handler step by step (https://encoding.spec.whatwg.org/,
the "decoder" subsection of each encoding), reading the index files from the corpus directly
(not the package's bundled tables), and runs on the spec's I/O queue model: ``_run`` feeds one
byte at a time, bytes a handler "prepends"/"restores" go back to the front of the queue, and
end-of-queue is ``None``. Error mode is "replacement": every error emits one U+FFFD.

The production decoders in ``pipeline.encoding.decoders`` are checked against this module in
``tests/conformance/test_decoders.py``; the tests at the end of this file check the reference
itself against every entry of the index files.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable
from pathlib import Path

import pytest

CORPUS_INDEXES = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "whatwg-encoding"

CONTINUE = "continue"
FINISHED = "finished"
ERROR = "error"
#: A handler result: CONTINUE, FINISHED, ERROR, or a tuple of code points to emit.
Result = str | tuple[int, ...]


@functools.cache
def index(name: str) -> dict[int, int]:
    """pointer -> code point for ``index-NAME.txt`` (lines split on LF only)."""
    out: dict[int, int] = {}
    for line in (CORPUS_INDEXES / f"index-{name}.txt").read_text(encoding="utf-8").split("\n"):
        if line.strip() and not line.startswith("#"):
            fields = line.split("\t")
            out[int(fields[0])] = int(fields[1], 16)
    return out


@functools.cache
def _ranges() -> list[tuple[int, int]]:
    return sorted(index("gb18030-ranges").items())


def gb18030_ranges_code_point(pointer: int) -> int | None:
    """Spec: "index gb18030 ranges code point"."""
    # 1. If pointer is greater than 39419 and less than 189000, or pointer is greater than
    #    1237575, return null.
    if (39419 < pointer < 189000) or pointer > 1237575:
        return None
    # 2. If pointer is 7457, return code point U+E7C7.
    if pointer == 7457:
        return 0xE7C7
    # 3. Let offset be the last pointer in index gb18030 ranges that is less than or equal to
    #    pointer and let code point offset be its corresponding code point.
    ranges = _ranges()
    i = bisect.bisect_right([p for p, _ in ranges], pointer) - 1
    offset, code_point_offset = ranges[i]
    # 4. Return a code point whose value is code point offset + pointer - offset.
    return code_point_offset + pointer - offset


def _ascii(byte: int) -> bool:
    return byte <= 0x7F


class Decoder:
    """A spec decoder: ``handler(queue, byte)`` where ``queue.restore`` prepends bytes."""

    def handler(self, queue: _Queue, byte: int | None) -> Result:
        raise NotImplementedError


class _Queue:
    def __init__(self, data: bytes) -> None:
        self.stack = list(reversed(data))

    def read(self) -> int | None:
        return self.stack.pop() if self.stack else None

    def restore(self, items: list[int]) -> None:
        """Prepend ``items`` (in order) to the queue."""
        self.stack.extend(reversed(items))


def run(decoder: Decoder, data: bytes) -> tuple[str, int]:
    """Spec "run" with error mode replacement: (output, number of errors)."""
    queue = _Queue(data)
    out: list[str] = []
    errors = 0
    while True:
        result = decoder.handler(queue, queue.read())
        if result == FINISHED:
            return "".join(out), errors
        if result == ERROR:
            errors += 1
            out.append("\ufffd")
        elif isinstance(result, tuple):
            out.extend(map(chr, result))


class Utf8(Decoder):
    def __init__(self) -> None:
        self.cp, self.seen, self.needed, self.lower, self.upper = 0, 0, 0, 0x80, 0xBF

    def handler(self, queue: _Queue, byte: int | None) -> Result:
        # 1. If byte is end-of-queue and UTF-8 bytes needed is not 0, set UTF-8 bytes needed
        #    to 0 and return error.
        if byte is None and self.needed != 0:
            self.needed = 0
            return ERROR
        # 2. If byte is end-of-queue, return finished.
        if byte is None:
            return FINISHED
        # 3. If UTF-8 bytes needed is 0, based on byte: ...
        if self.needed == 0:
            if byte <= 0x7F:
                return (byte,)
            if 0xC2 <= byte <= 0xDF:
                self.needed, self.cp = 1, byte & 0x1F
            elif 0xE0 <= byte <= 0xEF:
                if byte == 0xE0:
                    self.lower = 0xA0
                if byte == 0xED:
                    self.upper = 0x9F
                self.needed, self.cp = 2, byte & 0xF
            elif 0xF0 <= byte <= 0xF4:
                if byte == 0xF0:
                    self.lower = 0x90
                if byte == 0xF4:
                    self.upper = 0x8F
                self.needed, self.cp = 3, byte & 0x7
            else:
                return ERROR
            return CONTINUE
        # 4. If byte is not in the range UTF-8 lower boundary to UTF-8 upper boundary,
        #    inclusive, then: reset, restore byte to ioQueue, return error.
        if not self.lower <= byte <= self.upper:
            self.cp, self.needed, self.seen, self.lower, self.upper = 0, 0, 0, 0x80, 0xBF
            queue.restore([byte])
            return ERROR
        # 5. Set UTF-8 lower boundary to 0x80 and UTF-8 upper boundary to 0xBF.
        self.lower, self.upper = 0x80, 0xBF
        # 6.-7. code point = (code point << 6) | (byte & 0x3F); bytes seen += 1.
        self.cp = (self.cp << 6) | (byte & 0x3F)
        self.seen += 1
        # 8. If UTF-8 bytes seen is not equal to UTF-8 bytes needed, return continue.
        if self.seen != self.needed:
            return CONTINUE
        # 9.-11. Let code point be UTF-8 code point; reset; return a code point.
        cp = self.cp
        self.cp, self.needed, self.seen = 0, 0, 0
        return (cp,)


class Utf16(Decoder):
    def __init__(self, big_endian: bool) -> None:
        self.lead_byte: int | None = None
        self.lead_surrogate: int | None = None
        self.be = big_endian

    def handler(self, queue: _Queue, byte: int | None) -> Result:
        # 1. If byte is end-of-queue and either leading byte or leading surrogate is non-null,
        #    set both to null and return error.
        if byte is None and (self.lead_byte is not None or self.lead_surrogate is not None):
            self.lead_byte = self.lead_surrogate = None
            return ERROR
        # 2. If byte is end-of-queue, return finished.
        if byte is None:
            return FINISHED
        # 3. If UTF-16 leading byte is null, set it to byte and return continue.
        if self.lead_byte is None:
            self.lead_byte = byte
            return CONTINUE
        # 4. Let code unit be the result of: BE: (leading byte << 8) + byte; else
        #    (byte << 8) + leading byte. Then set UTF-16 leading byte to null.
        if self.be:
            unit = (self.lead_byte << 8) + byte
        else:
            unit = (byte << 8) + self.lead_byte
        self.lead_byte = None
        # 5. If UTF-16 leading surrogate is non-null: ...
        if self.lead_surrogate is not None:
            lead = self.lead_surrogate
            self.lead_surrogate = None
            if 0xDC00 <= unit <= 0xDFFF:
                return (0x10000 + ((lead - 0xD800) << 10) + (unit - 0xDC00),)
            byte1, byte2 = unit >> 8, unit & 0xFF
            queue.restore([byte1, byte2] if self.be else [byte2, byte1])
            return ERROR
        # 6. If code unit is a leading surrogate, set leading surrogate and return continue.
        if 0xD800 <= unit <= 0xDBFF:
            self.lead_surrogate = unit
            return CONTINUE
        # 7. If code unit is a trailing surrogate, return error.
        if 0xDC00 <= unit <= 0xDFFF:
            return ERROR
        # 8. Return code point code unit.
        return (unit,)


class SingleByte(Decoder):
    def __init__(self, index_name: str) -> None:
        self.index = index(index_name)

    def handler(self, queue: _Queue, byte: int | None) -> Result:
        # 1. If byte is end-of-queue, return finished.
        if byte is None:
            return FINISHED
        # 2. If byte is an ASCII byte, return a code point whose value is byte.
        if _ascii(byte):
            return (byte,)
        # 3.-5. code point = index single-byte code point for byte - 0x80; null -> error.
        cp = self.index.get(byte - 0x80)
        return ERROR if cp is None else (cp,)


class XUserDefined(Decoder):
    def handler(self, queue: _Queue, byte: int | None) -> Result:
        if byte is None:
            return FINISHED
        if _ascii(byte):
            return (byte,)
        # 3. Return a code point whose value is 0xF780 + byte - 0x80.
        return (0xF780 + byte - 0x80,)


class Replacement(Decoder):
    def __init__(self) -> None:
        self.returned = False

    def handler(self, queue: _Queue, byte: int | None) -> Result:
        # 1. If byte is end-of-queue, return finished.
        if byte is None:
            return FINISHED
        # 2. If replacement error returned is false, set it to true and return error.
        if not self.returned:
            self.returned = True
            return ERROR
        # 3. Return finished.
        return FINISHED


class Gb18030(Decoder):
    def __init__(self) -> None:
        self.first = self.second = self.third = 0

    def handler(self, queue: _Queue, byte: int | None) -> Result:
        # 1. EOQ and first, second and third are 0x00: return finished.
        if byte is None and self.first == self.second == self.third == 0:
            return FINISHED
        # 2. EOQ and any of them is not 0x00: set all to 0x00 and return error.
        if byte is None:
            self.first = self.second = self.third = 0
            return ERROR
        # 3. If gb18030 third is not 0x00: ...
        if self.third != 0:
            if not 0x30 <= byte <= 0x39:
                queue.restore([self.second, self.third, byte])
                self.first = self.second = self.third = 0
                return ERROR
            cp = gb18030_ranges_code_point(
                (self.first - 0x81) * (10 * 126 * 10)
                + (self.second - 0x30) * (10 * 126)
                + (self.third - 0x81) * 10
                + byte - 0x30
            )
            self.first = self.second = self.third = 0
            return ERROR if cp is None else (cp,)
        # 4. If gb18030 second is not 0x00: ...
        if self.second != 0:
            if 0x81 <= byte <= 0xFE:
                self.third = byte
                return CONTINUE
            queue.restore([self.second, byte])
            self.first = self.second = 0
            return ERROR
        # 5. If gb18030 first is not 0x00: ...
        if self.first != 0:
            if 0x30 <= byte <= 0x39:
                self.second = byte
                return CONTINUE
            lead, self.first = self.first, 0
            pointer = None
            offset = 0x40 if byte < 0x7F else 0x41
            if 0x40 <= byte <= 0x7E or 0x80 <= byte <= 0xFE:
                pointer = (lead - 0x81) * 190 + (byte - offset)
            cp = None if pointer is None else index("gb18030").get(pointer)
            if cp is not None:
                return (cp,)
            if _ascii(byte):
                queue.restore([byte])
            return ERROR
        # 6. If byte is an ASCII byte, return a code point whose value is byte.
        if _ascii(byte):
            return (byte,)
        # 7. If byte is 0x80, return code point U+20AC.
        if byte == 0x80:
            return (0x20AC,)
        # 8. If byte is in the range 0x81 to 0xFE, inclusive, set gb18030 first to byte.
        if 0x81 <= byte <= 0xFE:
            self.first = byte
            return CONTINUE
        # 9. Return error.
        return ERROR


class Big5(Decoder):
    def __init__(self) -> None:
        self.lead = 0

    def handler(self, queue: _Queue, byte: int | None) -> Result:
        if byte is None and self.lead != 0:
            self.lead = 0
            return ERROR
        if byte is None:
            return FINISHED
        # 3. If Big5 lead is not 0x00: ...
        if self.lead != 0:
            lead, self.lead = self.lead, 0
            pointer = None
            offset = 0x40 if byte < 0x7F else 0x62
            if 0x40 <= byte <= 0x7E or 0xA1 <= byte <= 0xFE:
                pointer = (lead - 0x81) * 157 + (byte - offset)
            # 4. "If there is a row in the table below whose first column is pointer, return
            #    the two code points listed in its second column".
            pairs = {1133: (0xCA, 0x304), 1135: (0xCA, 0x30C), 1164: (0xEA, 0x304),
                     1166: (0xEA, 0x30C)}
            if pointer in pairs:
                return pairs[pointer]
            cp = None if pointer is None else index("big5").get(pointer)
            if cp is not None:
                return (cp,)
            if _ascii(byte):
                queue.restore([byte])
            return ERROR
        if _ascii(byte):
            return (byte,)
        if 0x81 <= byte <= 0xFE:
            self.lead = byte
            return CONTINUE
        return ERROR


class EucJp(Decoder):
    def __init__(self) -> None:
        self.lead = 0
        self.jis0212 = False

    def handler(self, queue: _Queue, byte: int | None) -> Result:
        if byte is None and self.lead != 0:
            self.lead = 0
            return ERROR
        if byte is None:
            return FINISHED
        # 3. If lead is 0x8E and byte is in 0xA1..0xDF: set lead to 0x00 and return
        #    code point 0xFF61 - 0xA1 + byte.
        if self.lead == 0x8E and 0xA1 <= byte <= 0xDF:
            self.lead = 0
            return (0xFF61 - 0xA1 + byte,)
        # 4. If lead is 0x8F and byte is in 0xA1..0xFE: set jis0212 flag, lead to byte.
        if self.lead == 0x8F and 0xA1 <= byte <= 0xFE:
            self.jis0212 = True
            self.lead = byte
            return CONTINUE
        # 5. If EUC-JP lead is not 0x00: ...
        if self.lead != 0:
            lead, self.lead = self.lead, 0
            cp = None
            if 0xA1 <= lead <= 0xFE and 0xA1 <= byte <= 0xFE:
                pointer = (lead - 0xA1) * 94 + byte - 0xA1
                cp = index("jis0212" if self.jis0212 else "jis0208").get(pointer)
            self.jis0212 = False
            if cp is not None:
                return (cp,)
            if _ascii(byte):
                queue.restore([byte])
            return ERROR
        if _ascii(byte):
            return (byte,)
        # 7. If byte is 0x8E, 0x8F, or in the range 0xA1 to 0xFE, set lead to byte.
        if byte in (0x8E, 0x8F) or 0xA1 <= byte <= 0xFE:
            self.lead = byte
            return CONTINUE
        return ERROR


class Iso2022Jp(Decoder):
    def __init__(self) -> None:
        self.state = self.output_state = "ascii"
        self.lead = 0
        self.output_flag = False

    def handler(self, queue: _Queue, byte: int | None) -> Result:  # noqa: C901
        state = self.state
        if state in ("ascii", "roman", "katakana", "lead"):
            if byte == 0x1B:
                self.state = "escape-start"
                return CONTINUE
            if byte is None:
                return FINISHED
            self.output_flag = False
            if state == "ascii" and byte <= 0x7F and byte not in (0x0E, 0x0F):
                return (byte,)
            if state == "roman":
                if byte == 0x5C:
                    return (0xA5,)
                if byte == 0x7E:
                    return (0x203E,)
                if byte <= 0x7F and byte not in (0x0E, 0x0F):
                    return (byte,)
            if state == "katakana" and 0x21 <= byte <= 0x5F:
                return (0xFF61 - 0x21 + byte,)
            if state == "lead" and 0x21 <= byte <= 0x7E:
                self.lead = byte
                self.state = "trail"
                return CONTINUE
            return ERROR
        if state == "trail":
            if byte == 0x1B:
                self.state = "escape-start"
                return ERROR
            self.state = "lead"
            if byte is not None and 0x21 <= byte <= 0x7E:
                pointer = (self.lead - 0x21) * 94 + byte - 0x21
                cp = index("jis0208").get(pointer)
                return ERROR if cp is None else (cp,)
            return ERROR
        if state == "escape-start":
            # 1. If byte is either 0x24 or 0x28, set lead to byte, state to escape.
            if byte in (0x24, 0x28):
                self.lead = byte
                self.state = "escape"
                return CONTINUE
            # 2. If byte is not end-of-queue, then restore byte to ioQueue.
            if byte is not None:
                queue.restore([byte])
            # 3. Unset output flag, set state to output state, and return error.
            self.output_flag = False
            self.state = self.output_state
            return ERROR
        # state == "escape"
        lead, self.lead = self.lead, 0
        new_state = None
        if lead == 0x28 and byte == 0x42:
            new_state = "ascii"
        elif lead == 0x28 and byte == 0x4A:
            new_state = "roman"
        elif lead == 0x28 and byte == 0x49:
            new_state = "katakana"
        elif lead == 0x24 and byte in (0x40, 0x42):
            new_state = "lead"
        if new_state is not None:
            self.state = self.output_state = new_state
            output = self.output_flag
            self.output_flag = True
            return ERROR if output else CONTINUE
        queue.restore([lead] if byte is None else [lead, byte])
        self.output_flag = False
        self.state = self.output_state
        return ERROR


class ShiftJis(Decoder):
    def __init__(self) -> None:
        self.lead = 0

    def handler(self, queue: _Queue, byte: int | None) -> Result:
        if byte is None and self.lead != 0:
            self.lead = 0
            return ERROR
        if byte is None:
            return FINISHED
        if self.lead != 0:
            lead, self.lead = self.lead, 0
            pointer = None
            offset = 0x40 if byte < 0x7F else 0x41
            lead_offset = 0x81 if lead < 0xA0 else 0xC1
            if 0x40 <= byte <= 0x7E or 0x80 <= byte <= 0xFC:
                pointer = (lead - lead_offset) * 188 + byte - offset
            # 5. If pointer is in the range 8836 to 10715, inclusive, return a code point
            #    whose value is 0xE000 - 8836 + pointer.
            if pointer is not None and 8836 <= pointer <= 10715:
                return (0xE000 - 8836 + pointer,)
            cp = None if pointer is None else index("jis0208").get(pointer)
            if cp is not None:
                return (cp,)
            if _ascii(byte):
                queue.restore([byte])
            return ERROR
        # 4. If byte is an ASCII byte or 0x80, return a code point whose value is byte.
        if byte <= 0x80:
            return (byte,)
        # 5. If byte is in the range 0xA1 to 0xDF, return code point 0xFF61 - 0xA1 + byte.
        if 0xA1 <= byte <= 0xDF:
            return (0xFF61 - 0xA1 + byte,)
        # 6. If byte is in the range 0x81 to 0x9F, inclusive, or 0xE0 to 0xFC, set lead.
        if 0x81 <= byte <= 0x9F or 0xE0 <= byte <= 0xFC:
            self.lead = byte
            return CONTINUE
        return ERROR


class EucKr(Decoder):
    def __init__(self) -> None:
        self.lead = 0

    def handler(self, queue: _Queue, byte: int | None) -> Result:
        if byte is None and self.lead != 0:
            self.lead = 0
            return ERROR
        if byte is None:
            return FINISHED
        if self.lead != 0:
            lead, self.lead = self.lead, 0
            pointer = None
            if 0x41 <= byte <= 0xFE:
                pointer = (lead - 0x81) * 190 + (byte - 0x41)
            cp = None if pointer is None else index("euc-kr").get(pointer)
            if cp is not None:
                return (cp,)
            if _ascii(byte):
                queue.restore([byte])
            return ERROR
        if _ascii(byte):
            return (byte,)
        if 0x81 <= byte <= 0xFE:
            self.lead = byte
            return CONTINUE
        return ERROR


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

DECODERS: dict[str, Callable[[], Decoder]] = {
    "UTF-8": Utf8,
    "UTF-16LE": lambda: Utf16(big_endian=False),
    "UTF-16BE": lambda: Utf16(big_endian=True),
    "gb18030": Gb18030,
    "GBK": Gb18030,  # "GBK's decoder is gb18030's decoder."
    "Big5": Big5,
    "EUC-JP": EucJp,
    "ISO-2022-JP": Iso2022Jp,
    "Shift_JIS": ShiftJis,
    "EUC-KR": EucKr,
    "replacement": Replacement,
    "x-user-defined": XUserDefined,
    **{name: functools.partial(SingleByte, idx) for name, idx in SINGLE_BYTE_INDEX.items()},
}


def reference_decode(body: bytes, encoding: str) -> tuple[str, int]:
    """Decode ``body`` with the reference decoder of ``encoding``: (text, errors)."""
    return run(DECODERS[encoding](), body)


# --- Validation of the reference against the index files -----------------------------------


@pytest.mark.parametrize("encoding", sorted(SINGLE_BYTE_INDEX))
def test_reference_single_byte_matches_index(encoding: str) -> None:
    table = index(SINGLE_BYTE_INDEX[encoding])
    for byte in range(256):
        expected = chr(byte) if byte < 0x80 else chr(table[byte - 0x80]) if byte - 0x80 in table else "\ufffd"
        assert reference_decode(bytes([byte]), encoding)[0] == expected


def _check_two_byte(encoding: str, table: dict[int, int], to_bytes: Callable[[int], bytes]) -> None:
    for pointer, cp in table.items():
        data = to_bytes(pointer)
        assert reference_decode(data, encoding) == (chr(cp), 0), (encoding, pointer, data)


def test_reference_shift_jis_matches_index() -> None:
    def to_bytes(pointer: int) -> bytes:
        lead, trail = divmod(pointer, 188)
        lead += 0x81 if lead < 0x1F else 0xC1
        trail += 0x40 if trail < 0x3F else 0x41
        return bytes([lead, trail])

    # Pointers 8836..10715 are the EUDC range (mapped to the PUA by the decoder, not the index).
    table = {p: c for p, c in index("jis0208").items() if not 8836 <= p <= 10715}
    _check_two_byte("Shift_JIS", table, to_bytes)


def test_reference_euc_jp_matches_jis0208_and_jis0212() -> None:
    def to_bytes(pointer: int) -> bytes:
        lead, trail = divmod(pointer, 94)
        return bytes([lead + 0xA1, trail + 0xA1])

    # Two bytes in 0xA1..0xFE reach pointers below 94 * 94 only (the rest of index jis0208
    # is for Shift_JIS).
    _check_two_byte("EUC-JP", {p: c for p, c in index("jis0208").items() if p < 94 * 94}, to_bytes)
    _check_two_byte("EUC-JP", index("jis0212"), lambda p: b"\x8f" + to_bytes(p))


def test_reference_iso_2022_jp_matches_jis0208() -> None:
    def to_bytes(pointer: int) -> bytes:
        lead, trail = divmod(pointer, 94)
        return b"\x1b$B" + bytes([lead + 0x21, trail + 0x21])

    # Two bytes in 0x21..0x7E reach pointers below 94 * 94 only.
    _check_two_byte("ISO-2022-JP", {p: c for p, c in index("jis0208").items() if p < 94 * 94}, to_bytes)


def test_reference_big5_matches_index() -> None:
    def to_bytes(pointer: int) -> bytes:
        lead, trail = divmod(pointer, 157)
        return bytes([lead + 0x81, trail + (0x40 if trail < 0x3F else 0x62)])

    # The four pointers that decode to two code points are special-cased before the index.
    pairs = {1133, 1135, 1164, 1166}
    _check_two_byte("Big5", {p: c for p, c in index("big5").items() if p not in pairs}, to_bytes)
    assert reference_decode(to_bytes(1133), "Big5")[0] == "\u00ca\u0304"


def test_reference_euc_kr_matches_index() -> None:
    def to_bytes(pointer: int) -> bytes:
        lead, trail = divmod(pointer, 190)
        return bytes([lead + 0x81, trail + 0x41])

    _check_two_byte("EUC-KR", index("euc-kr"), to_bytes)


def test_reference_gb18030_matches_two_byte_index_and_ranges() -> None:
    def to_bytes(pointer: int) -> bytes:
        lead, trail = divmod(pointer, 190)
        return bytes([lead + 0x81, trail + (0x40 if trail < 0x3F else 0x41)])

    _check_two_byte("gb18030", index("gb18030"), to_bytes)
    # Each range start of index gb18030 ranges decodes to its code point (pointer 7457 is
    # special-cased to U+E7C7 by the spec).
    for pointer, cp in index("gb18030-ranges").items():
        b1, rest = divmod(pointer, 12600)
        b2, rest = divmod(rest, 1260)
        b3, b4 = divmod(rest, 10)
        data = bytes([b1 + 0x81, b2 + 0x30, b3 + 0x81, b4 + 0x30])
        assert reference_decode(data, "gb18030") == (chr(cp), 0), pointer


def test_reference_error_handling_examples() -> None:
    # An ASCII byte after a bad lead is "restored" and emitted again.
    assert reference_decode(b"\x85\x40A", "Shift_JIS") == ("\ufffd@A", 1)
    # UTF-8: maximal subparts, each a single error.
    assert reference_decode(b"\xf0\x9f\x98", "UTF-8") == ("\ufffd", 1)
    assert reference_decode(b"\xe0\x80", "UTF-8") == ("\ufffd\ufffd", 2)
    # gb18030: a bad fourth byte restores the second, third and fourth bytes.
    assert reference_decode(b"\x81\x30\x81\x7f", "gb18030") == ("\ufffd0\ufffd\x7f", 2)
    # UTF-16LE: lone lead surrogate, then 'A'; odd final byte.
    assert reference_decode(b"\x00\xd8A\x00\x00", "UTF-16LE") == ("\ufffdA\ufffd", 2)
    assert reference_decode(b"abc", "replacement") == ("\ufffd", 1)
    assert reference_decode(b"", "replacement") == ("", 0)
    # ISO-2022-JP: two escape sequences in a row produce an error.
    assert reference_decode(b"\x1b(B\x1b(Ba", "ISO-2022-JP") == ("\ufffda", 1)
