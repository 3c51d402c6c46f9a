"""The Encoding Standard's encoders (pipeline.encoding.encoders) against the WHATWG index
files of the shared corpus, read here independently of the bundled tables.

For each encoding: every code point of the index encodes to the bytes the standard's encoder
steps give for its pointer, and no other code point encodes (but those the steps name), over
the whole Basic Multilingual Plane and every plane's first code points."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.encoding.decoders import decode
from pipeline.encoding.decoders.single_byte import SINGLE_BYTE_INDEX
from pipeline.encoding.encoders import char_encoder, encode_or_fail
from tests.conformance.whatwg_index import index_file

#: Code points outside the BMP to try beside it (the start of every plane, and the last one).
ASTRAL = [plane * 0x10000 + i for plane in range(1, 17) for i in range(0, 0x300, 7)] + [0x10FFFF]
SCALARS = [cp for cp in range(0x10000) if not 0xD800 <= cp <= 0xDFFF] + ASTRAL


def _expected(corpus: Path, index: str, rule: Callable[[int], bytes | None],
              last: frozenset[int] = frozenset()) -> dict[int, bytes]:
    """Code point → rule(index pointer for code point): the first pointer, or the last one
    for the code points in ``last``; pointers for which ``rule`` gives None are excluded."""
    expected: dict[int, bytes] = {}
    for pointer, code_point in sorted(index_file(corpus, index).items()):
        out = rule(pointer)
        if out is not None and (code_point in last or code_point not in expected):
            expected[code_point] = out
    return expected


def _check(name: str, expected: dict[int, bytes], extra: dict[int, bytes]) -> None:
    """The encoder gives ``expected`` for index code points, ``extra`` for the code points its
    steps special-case, ASCII for ASCII, and error for every other scalar value tried."""
    encode = char_encoder(name)
    assert encode is not None
    want = {cp: bytes((cp,)) for cp in range(0x80)} | expected | extra
    wrong = {hex(cp): (want.get(cp), encode(cp)) for cp in SCALARS if encode(cp) != want.get(cp)}
    assert wrong == {}


@pytest.mark.parametrize("name", sorted(SINGLE_BYTE_INDEX))
def test_single_byte_encoder(corpus: Path, name: str) -> None:
    # "Let pointer be the index pointer for code point in index single-byte. ... Return a
    # byte whose value is pointer + 0x80."
    _check(name, _expected(corpus, SINGLE_BYTE_INDEX[name], lambda p: bytes((p + 0x80,))), {})


def _gb_pair(pointer: int) -> bytes:
    lead, trail = divmod(pointer, 190)
    return bytes((lead + 0x81, trail + (0x40 if trail < 0x3F else 0x41)))


#: gb18030 encoder step 5's table (GB18030-2022): old private-use code points keep the
#: two-byte codes whose index entries moved to standard code points.
GB18030_PUA = {
    0xE78D: "A6D9", 0xE78E: "A6DA", 0xE78F: "A6DB", 0xE790: "A6DC", 0xE791: "A6DD",
    0xE792: "A6DE", 0xE793: "A6DF", 0xE794: "A6EC", 0xE795: "A6ED", 0xE796: "A6F3",
    0xE81E: "FE59", 0xE826: "FE61", 0xE82B: "FE66", 0xE82C: "FE67", 0xE832: "FE6D",
    0xE843: "FE7E", 0xE854: "FE90", 0xE864: "FEA0",
}


def test_gbk_encoder(corpus: Path) -> None:
    expected = _expected(corpus, "gb18030", _gb_pair)
    # "3. If code point is U+E5E5, return error with code point." (GB18030-2022's index no
    # longer holds it; the step stays.)
    expected.pop(0xE5E5, None)
    # "4. If is GBK is true and code point is U+20AC, return byte 0x80."; no four-byte codes.
    extra = {0x20AC: b"\x80"} | {cp: bytes.fromhex(h) for cp, h in GB18030_PUA.items()}
    _check("GBK", expected, extra)


def test_gb18030_encoder(corpus: Path) -> None:
    expected = _expected(corpus, "gb18030", _gb_pair)
    expected.pop(0xE5E5, None)
    extra = {cp: bytes.fromhex(h) for cp, h in GB18030_PUA.items()}
    # Every other scalar value has a four-byte code (index gb18030 ranges): it decodes back.
    encode = char_encoder("gb18030")
    assert encode is not None
    four = {}
    for cp in SCALARS:
        if cp >= 0x80 and cp not in expected and cp not in extra and cp != 0xE5E5:
            data = encode(cp)
            assert data is not None and len(data) == 4, hex(cp)
            assert decode(data, "gb18030").text == chr(cp), hex(cp)
            four[cp] = data
    _check("gb18030", expected, extra | four)
    # "index gb18030 ranges pointer" step 1: U+E7C7 is pointer 7457, 0x81 0x35 0xF4 0x37.
    assert encode(0xE7C7) == b"\x81\x35\xf4\x37"


def test_gb18030_pua_rows_decode_to_the_2022_code_points() -> None:
    for cp, code in GB18030_PUA.items():
        text = decode(bytes.fromhex(code), "gb18030").text
        assert len(text) == 1 and text != chr(cp) and not 0xE000 <= ord(text) <= 0xF8FF


def test_big5_encoder(corpus: Path) -> None:
    def rule(pointer: int) -> bytes | None:
        # "index Big5 pointer": entries below (0xA1 - 0x81) x 157 are excluded.
        if pointer < (0xA1 - 0x81) * 157:
            return None
        lead, trail = divmod(pointer, 157)
        return bytes((lead + 0x81, trail + (0x40 if trail < 0x3F else 0x62)))

    last = frozenset({0x2550, 0x255E, 0x2561, 0x256A, 0x5341, 0x5345})
    _check("Big5", _expected(corpus, "big5", rule, last), {})


#: The steps Shift_JIS and EUC-JP share before the index: U+00A5, U+203E, U+2212.
def _jis_extras(name: str, expected: dict[int, bytes]) -> dict[int, bytes]:
    extra = {0xA5: b"\x5c", 0x203E: b"\x7e", 0x2212: expected[0xFF0D]}
    for cp in range(0xFF61, 0xFFA0):
        single = bytes((cp - 0xFF61 + 0xA1,))
        extra[cp] = single if name == "Shift_JIS" else b"\x8e" + single
    return extra


def test_shift_jis_encoder(corpus: Path) -> None:
    def rule(pointer: int) -> bytes | None:
        # "index Shift_JIS pointer": pointers 8272 to 8835 are excluded.
        if 8272 <= pointer <= 8835:
            return None
        lead, trail = divmod(pointer, 188)
        return bytes((lead + (0x81 if lead < 0x1F else 0xC1), trail + (0x40 if trail < 0x3F else 0x41)))

    expected = _expected(corpus, "jis0208", rule)
    # "2. If code point is an ASCII code point or U+0080, return a byte whose value is code point."
    _check("Shift_JIS", expected, _jis_extras("Shift_JIS", expected) | {0x80: b"\x80"})


def test_euc_jp_encoder(corpus: Path) -> None:
    # "If pointer is non-null, it is less than 8836 due to the nature of index jis0208 and
    # the index pointer operation": the IBM rows above repeat code points found earlier.
    expected = _expected(corpus, "jis0208",
                         lambda p: bytes((p // 94 + 0xA1, p % 94 + 0xA1)) if p < 8836 else None)
    _check("EUC-JP", expected, _jis_extras("EUC-JP", expected))


def test_euc_kr_encoder(corpus: Path) -> None:
    expected = _expected(corpus, "euc-kr", lambda p: bytes((p // 190 + 0x81, p % 190 + 0x41)))
    _check("EUC-KR", expected, {})


def test_x_user_defined_encoder() -> None:
    _check("x-user-defined", {}, {cp: bytes((cp - 0xF780 + 0x80,)) for cp in range(0xF780, 0xF800)})


def test_iso_2022_jp_encoder_switches_states_as_the_standard_says(corpus: Path) -> None:
    jis = _expected(corpus, "jis0208",
                    lambda p: bytes((p // 94 + 0x21, p % 94 + 0x21)) if p < 8836 else None)
    a = "\u3042"
    assert list(encode_or_fail("x" + a + "y", "ISO-2022-JP")) == [
        b"x", b"\x1b$B", jis[0x3042], b"\x1b(B", b"y"]
    # Roman for U+00A5 / U+203E; ASCII again for a backslash; ESC ( B at the end.
    assert list(encode_or_fail("\u00a5a\\", "ISO-2022-JP")) == [
        b"\x1b(J", b"\x5c", b"a", b"\x1b(B", b"\\"]
    # U+000E, U+000F, U+001B are errors with U+FFFD (never passed through).
    assert list(encode_or_fail("\x1b", "ISO-2022-JP")) == [0xFFFD]
    # An unencodable code point after jis0208 text: back to ASCII first, then the error.
    assert list(encode_or_fail(a + "\u00e9", "ISO-2022-JP")) == [
        b"\x1b$B", jis[0x3042], b"\x1b(B", 0xE9]
    # Every jis0208 code point round-trips through the ISO-2022-JP decoder.
    for cp in jis:
        data = b"".join(x for x in encode_or_fail(chr(cp), "ISO-2022-JP") if isinstance(x, bytes))
        assert decode(data, "ISO-2022-JP").text == chr(cp)
