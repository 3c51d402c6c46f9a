"""The decoders against the WHATWG index files and a step-by-step reference of the spec.

The reference (tests/unit/test_decoders_reference.py) reads the corpus index files itself and is
validated against them there. Here every byte / pointer of every index is decoded, and every lead
byte is followed by every trail byte (at the end of input, and before more input), through each
way the package can decode: ``decode``, the codec + spec-error-handler path and the pure spec
loop of each multi-byte decoder.
"""

from __future__ import annotations

import codecs
import random
import sys
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.encoding.decoders import DecodeResult, decode, python_codec, single_byte
from pipeline.encoding.decoders.cjk_chinese import BIG5, GB18030
from pipeline.encoding.decoders.cjk_japanese import EUC_JP, SHIFT_JIS
from pipeline.encoding.decoders.cjk_korean import EUC_KR
from pipeline.encoding.decoders.multibyte import MultiByteDecoder, decode_with_steps
from pipeline.encoding.decoders.tables import DATA_FILE
from pipeline.encoding.labels import ENCODINGS
from tests.unit.test_decoders_reference import (
    SINGLE_BYTE_INDEX,
    gb18030_ranges_code_point,
    index,
    reference_decode,
)

ROOT = Path(__file__).resolve().parents[2]
MULTI_BYTE: dict[str, MultiByteDecoder] = {
    "Shift_JIS": SHIFT_JIS, "EUC-KR": EUC_KR, "Big5": BIG5, "gb18030": GB18030,
    "GBK": GB18030, "EUC-JP": EUC_JP,
}


def _all_ways(body: bytes, encoding: str) -> dict[str, tuple[str, int]]:
    """Every way the package decodes ``body`` (the codec path only where it answers)."""
    result = decode(body, encoding)
    ways = {"decode": (result.text, result.decode_errors)}
    decoder = MULTI_BYTE.get(encoding)
    if decoder is not None:
        ways["steps"] = decode_with_steps(body, decoder.step)
        codec_result = decoder.decode_codec(body)
        if codec_result is not None:
            ways["codec"] = codec_result
    return ways


def _assert_matches_reference(inputs: list[bytes], encoding: str) -> None:
    mismatches = []
    for body in inputs:
        expected = reference_decode(body, encoding)
        for way, got in _all_ways(body, encoding).items():
            if got != expected:
                mismatches.append((way, body.hex(), got, expected))
    assert not mismatches, f"{len(mismatches)} mismatches, e.g. {mismatches[:5]}"


def test_bundled_tables_regenerate_identically(corpus: Path) -> None:
    # scripts/gen_decoder_tables.py run on the corpus gives the committed data file's content.
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import gen_decoder_tables
    finally:
        sys.path.pop(0)
    fresh = gen_decoder_tables.render(corpus / "whatwg-encoding")
    assert zlib.decompress(DATA_FILE.read_bytes()) == fresh


def test_bundled_tables_stay_small() -> None:
    assert DATA_FILE.stat().st_size < 1_000_000


def test_every_encoding_name_has_a_decoder() -> None:
    for name in ENCODINGS:
        assert isinstance(decode(b"a\x80\xff", name).text, str)
    with pytest.raises(LookupError):
        decode(b"", "latin1")  # a label, not a name


# --- single-byte encodings and x-user-defined ----------------------------------------------


@pytest.mark.parametrize("encoding", sorted(SINGLE_BYTE_INDEX))
def test_single_byte_every_byte_matches_index(encoding: str) -> None:
    table = index(SINGLE_BYTE_INDEX[encoding])
    for byte in range(256):
        body = bytes([byte])
        if byte < 0x80:
            expected = (chr(byte), 0)
        elif byte - 0x80 in table:
            expected = (chr(table[byte - 0x80]), 0)
        else:
            expected = ("\ufffd", 1)
        assert (decode(body, encoding).text, decode(body, encoding).decode_errors) == expected
        # The registered codec raises exactly where the spec returns error.
        codec = python_codec(encoding)
        assert codec is not None
        if expected[1]:
            with pytest.raises(UnicodeDecodeError):
                body.decode(codec)
        else:
            assert body.decode(codec) == expected[0]
    every = bytes(range(256)) * 2
    _assert_matches_reference([every], encoding)


def test_x_user_defined_every_byte() -> None:
    body = bytes(range(256))
    expected = "".join(chr(b) if b < 0x80 else chr(0xF780 + b - 0x80) for b in range(256))
    assert decode(body, "x-user-defined").text == expected
    _assert_matches_reference([body], "x-user-defined")


def test_replacement() -> None:
    _assert_matches_reference([b"", b"a", b"\xff\xfe", b"abc" * 100], "replacement")


# --- multi-byte: every index entry ---------------------------------------------------------


def _pointer_bytes(encoding: str) -> dict[bytes, str]:
    """Byte sequence -> expected text for every entry the encoding's decoder can reach."""
    out: dict[bytes, str] = {}
    if encoding == "Shift_JIS":
        for pointer, cp in index("jis0208").items():
            lead, trail = divmod(pointer, 188)
            seq = bytes([lead + (0x81 if lead < 0x1F else 0xC1), trail + (0x40 if trail < 0x3F else 0x41)])
            out[seq] = chr(cp) if not 8836 <= pointer <= 10715 else chr(0xE000 - 8836 + pointer)
    elif encoding == "EUC-JP":
        for pointer, cp in index("jis0208").items():
            if pointer < 94 * 94:
                out[bytes([pointer // 94 + 0xA1, pointer % 94 + 0xA1])] = chr(cp)
        for pointer, cp in index("jis0212").items():
            out[bytes([0x8F, pointer // 94 + 0xA1, pointer % 94 + 0xA1])] = chr(cp)
        for byte in range(0xA1, 0xE0):
            out[bytes([0x8E, byte])] = chr(0xFF61 - 0xA1 + byte)
    elif encoding == "Big5":
        pairs = {1133: "\u00ca\u0304", 1135: "\u00ca\u030c", 1164: "\u00ea\u0304", 1166: "\u00ea\u030c"}
        for pointer, cp in index("big5").items():
            lead, trail = divmod(pointer, 157)
            out[bytes([lead + 0x81, trail + (0x40 if trail < 0x3F else 0x62)])] = pairs.get(pointer, chr(cp))
    elif encoding == "EUC-KR":
        for pointer, cp in index("euc-kr").items():
            out[bytes([pointer // 190 + 0x81, pointer % 190 + 0x41])] = chr(cp)
    elif encoding in ("gb18030", "GBK"):
        for pointer, cp in index("gb18030").items():
            lead, trail = divmod(pointer, 190)
            out[bytes([lead + 0x81, trail + (0x40 if trail < 0x3F else 0x41)])] = chr(cp)
        out[b"\x80"] = "\u20ac"
    return out


@pytest.mark.parametrize("encoding", sorted(MULTI_BYTE))
def test_multi_byte_every_pointer_matches_index(encoding: str) -> None:
    entries = _pointer_bytes(encoding)
    mismatches = []
    for seq, expected in entries.items():
        for body, want in ((seq, expected), (b"a" + seq + b"b", f"a{expected}b")):
            for way, got in _all_ways(body, encoding).items():
                if got != (want, 0):
                    mismatches.append((way, body.hex(), got, want))
    assert not mismatches, f"{len(mismatches)} mismatches, e.g. {mismatches[:5]}"
    # All entries in one text, through the fast path as a whole.
    body = b"".join(entries)
    assert decode(body, encoding).text == "".join(entries.values())


def test_iso_2022_jp_every_pointer_matches_index() -> None:
    for pointer, cp in index("jis0208").items():
        if pointer < 94 * 94:
            body = b"\x1b$B" + bytes([pointer // 94 + 0x21, pointer % 94 + 0x21]) + b"\x1b(Ba"
            assert decode(body, "ISO-2022-JP").text == chr(cp) + "a", pointer
    # Katakana state: "0x21 to 0x5F: ... return a code point whose value is 0xFF61 − 0x21 +
    # byte." (index ISO-2022-JP katakana is used by the encoder only.)
    for byte in range(0x21, 0x60):
        assert decode(b"\x1b(I" + bytes([byte]), "ISO-2022-JP").text == chr(0xFF61 - 0x21 + byte)


# --- multi-byte: error handling, every lead byte followed by every trail byte ---------------


@pytest.mark.parametrize("encoding", sorted(MULTI_BYTE))
def test_every_lead_then_every_trail_matches_reference(encoding: str) -> None:
    inputs = []
    for lead in range(0x80, 0x100):
        inputs.append(bytes([lead]))
        for trail in range(0x100):
            inputs.append(bytes([lead, trail]))  # ends after the trail
            inputs.append(bytes([lead, trail]) + b"b")  # more input follows
    _assert_matches_reference(inputs, encoding)


@pytest.mark.parametrize("encoding", sorted(MULTI_BYTE))
def test_every_pair_in_one_stream_matches_reference(encoding: str) -> None:
    # One long stream per lead: pairs back to back, so a trail byte that is itself a lead, a
    # restored ASCII byte, or a started four-byte sequence meets the next pair.
    inputs = [b"".join(bytes([lead, trail]) for trail in range(0x100)) for lead in range(0x80, 0x100)]
    _assert_matches_reference(inputs, encoding)


def test_euc_jp_every_jis0212_sequence_matches_reference() -> None:
    inputs = []
    for second in range(0x100):
        inputs.append(bytes([0x8F, second]))
        for third in range(0x100):
            inputs.append(bytes([0x8F, second, third]) + b"b")
    _assert_matches_reference(inputs, "EUC-JP")


_DIGITS = range(0x30, 0x3A)
_GB_SAMPLE_LEADS = (0x81, 0x82, 0x84, 0x85, 0x8F, 0x90, 0x95, 0xE3, 0xE4, 0xFD, 0xFE)


def _four_byte(pointer_leads: range | tuple[int, ...]) -> tuple[list[bytes], list[str | None]]:
    """Every four-byte sequence with these first bytes, and its code point (None: error)."""
    bodies: list[bytes] = []
    expected: list[str | None] = []
    for b1 in pointer_leads:
        for b2 in _DIGITS:
            for b3 in range(0x81, 0xFF):
                for b4 in _DIGITS:
                    pointer = (b1 - 0x81) * 12600 + (b2 - 0x30) * 1260 + (b3 - 0x81) * 10 + b4 - 0x30
                    cp = gb18030_ranges_code_point(pointer)
                    bodies.append(bytes([b1, b2, b3, b4]))
                    expected.append(None if cp is None else chr(cp))
    return bodies, expected


def _check_four_byte(leads: range | tuple[int, ...]) -> None:
    bodies, expected = _four_byte(leads)
    mismatches = []
    for body, want in zip(bodies, expected, strict=True):
        for encoding in ("gb18030", "GBK"):
            got = decode(body, encoding)
            # 84 31 A4 37 is U+FFFD itself: valid, not an error.
            if (got.text, got.decode_errors) != (("\ufffd", 1) if want is None else (want, 0)):
                mismatches.append((body.hex(), got, want))
    assert not mismatches, f"{len(mismatches)} mismatches, e.g. {mismatches[:5]}"
    # Concatenated (valid ones only, so the stream stays aligned): the codec fast path.
    valid = [(b, w) for b, w in zip(bodies, expected, strict=True) if w is not None]
    assert decode(b"".join(b for b, _ in valid), "gb18030") == DecodeResult(
        "".join(w for _, w in valid), 0
    )


def test_gb18030_four_byte_sampled() -> None:
    # A fast sample of the four-byte space (leads spread over valid and invalid ranges);
    # test_gb18030_every_four_byte_sequence covers all 1,587,600.
    _check_four_byte(_GB_SAMPLE_LEADS)


@pytest.mark.slow
def test_gb18030_every_four_byte_sequence() -> None:
    _check_four_byte(range(0x81, 0xFF))


def test_gb18030_broken_four_byte_sequences_match_reference() -> None:
    # Lead, digit, then every third byte, then a selection of fourth bytes (restored bytes).
    inputs = []
    for lead in (0x81, 0x84, 0x90, 0xE3, 0xFE):
        for third in range(0x100):
            inputs.append(bytes([lead, 0x35, third]))
            for fourth in (0x00, 0x2F, 0x30, 0x39, 0x3A, 0x41, 0x80, 0x81, 0xFE, 0xFF):
                inputs.append(bytes([lead, 0x35, third, fourth, 0x31]))
    _assert_matches_reference(inputs, "gb18030")


# --- ISO-2022-JP state machine ------------------------------------------------------------

_ESCAPES = (b"", b"\x1b(B", b"\x1b(J", b"\x1b(I", b"\x1b$@", b"\x1b$B")


@pytest.mark.parametrize("prefix", _ESCAPES)
def test_iso_2022_jp_every_byte_pair_in_every_state(prefix: bytes) -> None:
    inputs = []
    for first in range(0x100):
        inputs.append(prefix + bytes([first]))
        for second in range(0x100):
            inputs.append(prefix + bytes([first, second]) + b"\x1b(Bb")
    _assert_matches_reference(inputs, "ISO-2022-JP")


def test_iso_2022_jp_escape_sequences_match_reference() -> None:
    pieces = [b"\x1b", b"(", b"$", b"B", b"J", b"I", b"@", b"A", b"\x0e", b"\x80", b"!"]
    inputs = [a + b + c + d for a in pieces for b in pieces for c in pieces for d in pieces]
    _assert_matches_reference(inputs, "ISO-2022-JP")


# --- UTF-8 and UTF-16 ---------------------------------------------------------------------


def test_utf8_every_one_and_two_byte_input_matches_reference() -> None:
    inputs = [bytes([a]) for a in range(256)]
    inputs += [bytes([a, b]) for a in range(0x80, 0x100) for b in range(0x100)]
    _assert_matches_reference(inputs, "UTF-8")


def test_utf8_three_and_four_byte_sequences_match_reference() -> None:
    edges = (0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xFF)
    inputs = []
    for lead in range(0xE0, 0xF8):
        for second in range(0x100):
            for third in edges:
                inputs.append(bytes([lead, second, third]))
                inputs.append(bytes([lead, second, third, 0x80, 0x41]))
    inputs.append("a\ufffd\U0001f600é".encode() + b"\xef\xbf\xbd")
    _assert_matches_reference(inputs, "UTF-8")


@pytest.mark.parametrize("encoding", ["UTF-16LE", "UTF-16BE"])
def test_utf16_units_and_surrogates_match_reference(encoding: str) -> None:
    units = (0x0041, 0x00E9, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xFFFD, 0xFEFF)
    order = "big" if encoding == "UTF-16BE" else "little"
    inputs = []
    for a in units:
        for b in units:
            for c in units:
                body = b"".join(u.to_bytes(2, order) for u in (a, b, c))
                inputs += [body, body + b"\x41", body[:3], body[:1]]
    _assert_matches_reference(inputs, encoding)


# --- python_codec's promise, and random input ----------------------------------------------


def test_python_codec_strict_success_is_exact() -> None:
    samples = [bytes([a, b]) for a in range(0x80, 0x100) for b in range(0x100)]
    samples += [bytes(range(256))]
    for encoding in ENCODINGS:
        codec = python_codec(encoding)
        if codec is None:
            continue
        codecs.lookup(codec)
        for body in samples:
            try:
                text = body.decode(codec)
            except UnicodeDecodeError:
                continue
            assert text == decode(body, encoding).text, (encoding, body.hex())


@settings(max_examples=300, deadline=None)
@given(body=st.binary(max_size=40), encoding=st.sampled_from(sorted(set(ENCODINGS))))
def test_random_bytes_match_reference(body: bytes, encoding: str) -> None:
    _assert_matches_reference([body, body + body], encoding)


def test_single_byte_module_covers_the_28_encodings() -> None:
    assert len(single_byte.SINGLE_BYTE_INDEX) == 28
    assert set(single_byte.SINGLE_BYTE_INDEX.items()) == set(SINGLE_BYTE_INDEX.items())


_CHUNKS = {
    "Big5": [b"\xa2A", b"\xa2B", b"\xa1\xfe", b"\xa2@", b"\xa4@", b"\x88b", b" ", b"A", b"?",
             b"\xa2", b"\x81", b"\xff", b"\xa1E", b"\xa2F"],
    "EUC-JP": [b"\x8f\xa2\xb7", b"~", b"\x8f", b"\xa2", b"\xb7", b"\xa4\xa2", b"\xa1\xc1", b" ",
               b"\x8e", b"\xa1", b"\xff", b"\xad\xa1", b"a"],
}


@settings(max_examples=400, deadline=None)
@given(data=st.data(), encoding=st.sampled_from(sorted(_CHUNKS)))
def test_suspect_sequences_among_other_text_match_reference(data: st.DataObject, encoding: str) -> None:
    # Inputs holding the byte sequences Python's codec gets wrong, among clean text, broken
    # sequences and boundaries: the spec loop runs on the stretch around each one only.
    chunks = data.draw(st.lists(st.sampled_from(_CHUNKS[encoding]), max_size=30))
    _assert_matches_reference([b"".join(chunks)], encoding)


@pytest.mark.parametrize("encoding", sorted(MULTI_BYTE))
def test_error_dense_input_matches_reference(encoding: str) -> None:
    # Mostly errors: the codec's error handler hands over to the spec loop part way.
    rng = random.Random(encoding)
    noise = bytes(rng.getrandbits(8) for _ in range(20_000))
    page = "日本語のテキスト、中文文本，한국어 텍스트 ".encode() * 200
    _assert_matches_reference([noise, page, b"clean ascii " * 50 + noise], encoding)
