"""Golden tests: each named fix-up over Python's codecs, and the public API's contracts.

Each test shows what the plain Python codec returns (so the fix-up is still needed) and what
the spec's decoder returns (https://encoding.spec.whatwg.org/).
"""

from __future__ import annotations

import pytest

from pipeline.encoding.decoders import DecodeResult, decode, decode_bytes, python_codec


def _plain(body: bytes, codec: str) -> str:
    return body.decode(codec, "replace")


# --- Shift_JIS (cp932) ----------------------------------------------------------------------


def test_cp932_single_byte_pua() -> None:
    # Shift_JIS decoder step 7: A0, FD, FE, FF are errors; cp932 maps them to U+F8F0..U+F8F3.
    assert _plain(b"\xa0\xfd\xfe\xff", "cp932") == "\uf8f0\uf8f1\uf8f2\uf8f3"
    assert decode(b"\xa0\xfd\xfe\xff", "Shift_JIS") == DecodeResult("\ufffd" * 4, 4)


def test_cp932_bad_trail_is_one_error() -> None:
    # Step 3: lead 81 with byte FD (no pointer, not ASCII): one error, both bytes consumed.
    assert _plain(b"\x81\xfd", "cp932") == "\ufffd\uf8f1"
    assert decode(b"\x81\xfd", "Shift_JIS") == DecodeResult("\ufffd", 1)


def test_shift_jis_ascii_after_unmapped_pointer_is_emitted() -> None:
    # Step 3.8: "If byte is an ASCII byte, restore byte to ioQueue."
    assert decode(b"\x85\x40A", "Shift_JIS") == DecodeResult("\ufffd@A", 1)


def test_shift_jis_eudc_and_0x80() -> None:
    # Step 3.5: pointers 8836..10715 are the PUA; step 4: byte 0x80 is U+0080.
    assert decode(b"\xf0\x40\x80", "Shift_JIS") == DecodeResult("\ue000\x80", 0)


# --- EUC-KR (cp949) -------------------------------------------------------------------------


def test_cp949_trail_byte_is_not_read_again() -> None:
    # EUC-KR decoder: lead C9 with A1 has no index entry; A1 is not ASCII, so it is consumed
    # (cp949 reads A1 again as a lead and swallows the "a").
    assert _plain(b"\xc9\xa1a", "cp949") == "\ufffd\uc8c2"
    assert decode(b"\xc9\xa1a", "EUC-KR") == DecodeResult("\ufffda", 1)


def test_cp949_bad_pair_is_one_error() -> None:
    assert _plain(b"\xfe\xff", "cp949") == "\ufffd\ufffd"
    assert decode(b"\xfe\xff", "EUC-KR") == DecodeResult("\ufffd", 1)


# --- gb18030 / GBK --------------------------------------------------------------------------


def test_gb18030_euro() -> None:
    # gb18030 decoder step 7: "If byte is 0x80, return code point U+20AC."
    assert _plain(b"\x80", "gb18030") == "\ufffd"
    assert decode(b"\x80", "GBK") == DecodeResult("\u20ac", 0)
    assert decode(b"\x80", "gb18030") == DecodeResult("\u20ac", 0)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"\xa6\xd9", "\ufe10"),
        (b"\xa3\xa0", "\u3000"),
        (b"\xfe\x59", "\u9fb4"),
        (b"\xa8\xbc", "\u1e3f"),
        # Index gb18030 ranges code point step 2: "If pointer is 7457, return U+E7C7."
        (b"\x81\x35\xf4\x37", "\ue7c7"),
    ],
)
def test_gb18030_2022_mappings(body: bytes, expected: str) -> None:
    assert _plain(body, "gb18030") != expected
    assert decode(body, "gb18030") == DecodeResult(expected, 0)
    # Mixed with text the codec decodes right, in one input.
    assert decode(b"a\x80" + body + b"\xa6\xd9", "gb18030").text == "a\u20ac" + expected + "\ufe10"


def test_gb18030_bad_four_byte_sequence_keeps_following_ascii() -> None:
    # Pointer 39420 has no code point: one error for the four bytes, then "x".
    assert _plain(b"\x84\x31\xa5\x30x", "gb18030") == "\ufffd1\ufffd"
    assert decode(b"\x84\x31\xa5\x30x", "gb18030") == DecodeResult("\ufffdx", 1)


def test_gb18030_broken_four_byte_restores_the_digit() -> None:
    # Step 4.2: "restore « gb18030 second, byte » to ioQueue", so "0" is emitted.
    assert decode(b"\x81\x30abc", "gb18030") == DecodeResult("\ufffd0abc", 1)
    assert decode(b"\x81\x30\x81\x7f", "gb18030") == DecodeResult("\ufffd0\ufffd\x7f", 2)


def test_gb18030_u_fffd_itself_is_not_an_error() -> None:
    assert decode(b"\x84\x31\xa4\x37", "gb18030") == DecodeResult("\ufffd", 0)


# --- Big5 -----------------------------------------------------------------------------------


def test_big5_hkscs_variants() -> None:
    assert _plain(b"\xa1\x45", "big5hkscs") == "\u2022"
    assert decode(b"\xa1\x45\xa2\x46", "Big5") == DecodeResult("\u2027\uffe0", 0)


def test_big5_hkscs_solidus_takes_the_spec_loop() -> None:
    # A241 is U+2215 in index Big5; A1FE is U+FF0F, which the codec gives A241 too.
    assert _plain(b"\xa2\x41", "big5hkscs") == "\uff0f"
    assert decode(b"\xa1\xfe\xa2\x41\xa2\x42", "Big5") == DecodeResult("\uff0f\u2215\ufe68", 0)


def test_big5_pointers_with_two_code_points() -> None:
    # Big5 decoder step 3.4: pointers 1133, 1135, 1164, 1166.
    assert decode(b"\x88\x62\x88\x64\x88\xa3\x88\xa5", "Big5").text == (
        "\u00ca\u0304\u00ca\u030c\u00ea\u0304\u00ea\u030c"
    )


# --- EUC-JP ---------------------------------------------------------------------------------


def test_euc_jp_jis0208_variants() -> None:
    assert _plain(b"\xa1\xc1", "euc_jp") == "\u301c"
    assert decode(b"\xa1\xc1\xa1\xdd", "EUC-JP") == DecodeResult("\uff5e\uff0d", 0)


def test_euc_jp_jis0212_tilde() -> None:
    # 8F A2 B7 is U+FF5E in index jis0212; the codec gives "~", like byte 7E.
    assert _plain(b"\x8f\xa2\xb7~", "euc_jp") == "~~"
    assert decode(b"\x8f\xa2\xb7~", "EUC-JP") == DecodeResult("\uff5e~", 0)


def test_euc_jp_nec_rows_the_codec_rejects() -> None:
    assert _plain(b"\xad\xa1", "euc_jp") == "\ufffd\ufffd"
    assert decode(b"\xad\xa1", "EUC-JP") == DecodeResult("\u2460", 0)


# --- single-byte, UTF-8, replacement, x-user-defined -----------------------------------------


def test_windows_1252_undefined_bytes_are_c1_controls() -> None:
    # index windows-1252 maps 0x81, 0x8D, 0x8F, 0x90, 0x9D to U+0081.. (cp1252 rejects them).
    body = b"\x81\x8d\x8f\x90\x9d"
    assert _plain(body, "cp1252") == "\ufffd" * 5
    assert decode(body, "windows-1252") == DecodeResult("\x81\x8d\x8f\x90\x9d", 0)


def test_iso_8859_1_label_is_windows_1252() -> None:
    assert decode_bytes(b"\x80", "iso-8859-1") == "\u20ac"


def test_single_byte_unmapped_is_one_error_per_byte() -> None:
    assert decode(b"\xa1a\xff", "ISO-8859-8") == DecodeResult("\ufffda\ufffd", 2)


def test_utf8_literal_u_fffd_is_not_an_error() -> None:
    assert decode("\ufffd".encode() + b"\xff", "UTF-8") == DecodeResult("\ufffd\ufffd", 1)


def test_replacement_and_x_user_defined() -> None:
    assert decode(b"anything", "replacement") == DecodeResult("\ufffd", 1)
    assert decode(b"", "replacement") == DecodeResult("", 0)
    assert decode(b"a\x80\xff", "x-user-defined") == DecodeResult("a\uf780\uf7ff", 0)


# --- decode_bytes (TextDecoder) and python_codec ---------------------------------------------


def test_decode_bytes_strips_only_a_matching_bom() -> None:
    assert decode_bytes(b"\xef\xbb\xbf\xef\xbb\xbfa", "utf-8") == "\ufeffa"  # only one
    assert decode_bytes(b"\xff\xfea\x00", "utf-16") == "a"  # "utf-16" is UTF-16LE
    assert decode_bytes(b"\xfe\xff\x00a", "utf-16be") == "a"
    assert decode_bytes(b"\xfe\xffa\x00", "utf-16le") == "\ufffea"  # not its BOM
    assert decode_bytes(b"\xef\xbb\xbfa", "windows-1252") == "\u00ef\u00bb\u00bfa"


@pytest.mark.parametrize("label", ["iso-2022-kr", "csiso2022kr", "hz-gb-2312", "replacement", "utf-32", "nope"])
def test_decode_bytes_rejects_replacement_and_unknown_labels(label: str) -> None:
    with pytest.raises(LookupError):
        decode_bytes(b"a", label)


def test_decode_never_raises_on_unknown_name_only() -> None:
    with pytest.raises(LookupError):
        decode(b"a", "utf8")  # a label, not an encoding name


def test_python_codec_names() -> None:
    assert python_codec("UTF-8") == "utf-8"
    assert python_codec("EUC-KR") == "cp949"
    assert b"\x81".decode(python_codec("windows-1252") or "") == "\x81"
    assert python_codec("gb18030") is None
    assert python_codec("replacement") is None


# --- where Chromium 156 differs from the spec (checked with ../shared/oracle; we follow the spec)


def test_euc_jp_jis0212_flag_is_unset_after_an_error() -> None:
    # EUC-JP decoder step 5.3: "Unset the EUC-JP jis0212 flag" also when the pair is an error,
    # so A2 B7 after the broken 8F FE FF is looked up in jis0208 (no entry: error).
    # Chromium keeps the flag and returns U+FF5E (jis0212's A2 B7).
    assert decode(b"\x8f\xfe\xff\xa2\xb7", "EUC-JP") == DecodeResult("\ufffd\ufffd", 2)
    assert decode(b"\x8f\xad\x41\xad\xa1", "EUC-JP") == DecodeResult("\ufffdA\u2460", 1)


def test_iso_2022_jp_broken_escape_in_lead_byte_state() -> None:
    # ESC $ ESC in the lead byte state: escape step 5 restores « lead, byte » (0x24, 0x1B) and
    # returns error; 0x24 becomes a lead, then the 0x1B in the trail byte state is a second
    # error ("0x1B: Set ISO-2022-JP decoder state to escape start and return error").
    # Chromium returns one U+FFFD here.
    assert decode(b"\x1b$@\x1b$\x1b(Bz", "ISO-2022-JP") == DecodeResult("\ufffd\ufffdz", 2)
