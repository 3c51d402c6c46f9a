"""The Encoding Standard's Shift_JIS and EUC-JP decoders (ISO-2022-JP is in :mod:`.iso_2022_jp`).

https://encoding.spec.whatwg.org/#shift_jis-decoder and #euc-jp-decoder. Each ``*_step``
decodes one character or one error at a character boundary (see :mod:`.multibyte`).

Named fix-ups over Python's codecs (proven by tests/conformance/test_decoders.py):

* ``cp932-single-byte-pua``: Python's cp932 decodes the single bytes A0, FD, FE, FF to
  U+F8F0..U+F8F3; the spec's Shift_JIS decoder returns error for each (step 7), one byte long,
  and never produces U+F8F0..U+F8F3 otherwise, so they are rewritten to U+FFFD and counted.
* cp932's malformed-sequence handling (a trail byte read again, two U+FFFD where the spec has
  one) is replaced by the spec's step in the error handler.
* ``euc-jp-jis0208-variants``: Python's euc_jp maps A1C1, A1C2, A1DD, A1F1, A1F2, A2CC to
  U+301C, U+2016, U+2212, U+00A2, U+00A3, U+00AC where index jis0208 has U+FF5E, U+2225,
  U+FF0D, U+FFE0, U+FFE1, U+FFE2. The codec produces each from that one sequence only and the
  spec never produces them, so :data:`EUC_JP_FIXES` rewrites them.
* ``euc-jp-jis0212-tilde``: Python's euc_jp decodes 8F A2 B7 to "~" (index jis0212: U+FF5E);
  inputs holding those bytes go to the spec loop.
* Python's euc_jp rejects 457 pairs that index jis0208 maps (NEC/IBM rows): the error handler
  decodes them with the spec's step.
"""

from __future__ import annotations

import functools
import re

from pipeline.encoding.decoders.multibyte import MultiByteDecoder
from pipeline.encoding.decoders.tables import index_table

_jis0208 = functools.cache(lambda: index_table("jis0208"))
_jis0212 = functools.cache(lambda: index_table("jis0212"))


def _lookup(table: str, pointer: int) -> str:
    return table[pointer] if pointer < len(table) else "\0"


def shift_jis_step(data: bytes, pos: int) -> tuple[str, int, int]:
    """One step of the Shift_JIS decoder at ``pos``: (text, next position, errors)."""
    byte = data[pos]
    # 4. "If byte is an ASCII byte or 0x80, return a code point whose value is byte."
    if byte <= 0x80:
        return chr(byte), pos + 1, 0
    # 5. "If byte is in the range 0xA1 to 0xDF, inclusive, return a code point whose value is
    #    0xFF61 − 0xA1 + byte."
    if 0xA1 <= byte <= 0xDF:
        return chr(0xFF61 - 0xA1 + byte), pos + 1, 0
    # 6. "If byte is in the range 0x81 to 0x9F, inclusive, or 0xE0 to 0xFC, inclusive, set
    #    Shift_JIS lead to byte and return continue." 7. "Return error."
    if not (0x81 <= byte <= 0x9F or 0xE0 <= byte <= 0xFC):
        return "\ufffd", pos + 1, 1
    lead = byte
    if pos + 1 >= len(data):
        # 1. "If byte is end-of-queue and Shift_JIS lead is not 0x00, set Shift_JIS lead to
        #    0x00 and return error."
        return "\ufffd", pos + 1, 1
    byte = data[pos + 1]
    # 3.4. "If byte is in the range 0x40 to 0x7E, inclusive, or 0x80 to 0xFC, inclusive, set
    #      pointer to (lead − lead offset) × 188 + byte − offset."
    if 0x40 <= byte <= 0x7E or 0x80 <= byte <= 0xFC:
        pointer = ((lead - (0x81 if lead < 0xA0 else 0xC1)) * 188
                   + byte - (0x40 if byte < 0x7F else 0x41))
        # 3.5. "If pointer is in the range 8836 to 10715, inclusive, return a code point whose
        #      value is 0xE000 − 8836 + pointer."
        if 8836 <= pointer <= 10715:
            return chr(0xE000 - 8836 + pointer), pos + 2, 0
        char = _lookup(_jis0208(), pointer)
        if char != "\0":
            return char, pos + 2, 0
    # 3.8. "If byte is an ASCII byte, restore byte to ioQueue." 3.9. "Return error."
    return "\ufffd", pos + 1 if byte < 0x80 else pos + 2, 1


def euc_jp_step(data: bytes, pos: int) -> tuple[str, int, int]:
    """One step of the EUC-JP decoder at ``pos``: (text, next position, errors)."""
    byte = data[pos]
    n = len(data)
    if byte < 0x80:
        return chr(byte), pos + 1, 0
    # 7. "If byte is 0x8E, 0x8F, or in the range 0xA1 to 0xFE, inclusive, set EUC-JP lead to
    #    byte and return continue." 8. "Return error."
    if not (byte == 0x8E or byte == 0x8F or 0xA1 <= byte <= 0xFE):
        return "\ufffd", pos + 1, 1
    lead = byte
    end = pos + 1
    if end >= n:
        return "\ufffd", end, 1  # 1. end-of-queue with a lead: error.
    byte = data[end]
    end += 1
    # 3. "If EUC-JP lead is 0x8E and byte is in the range 0xA1 to 0xDF, inclusive, set EUC-JP
    #    lead to 0x00 and return a code point whose value is 0xFF61 − 0xA1 + byte."
    if lead == 0x8E and 0xA1 <= byte <= 0xDF:
        return chr(0xFF61 - 0xA1 + byte), end, 0
    table = _jis0208()
    # 4. "If EUC-JP lead is 0x8F and byte is in the range 0xA1 to 0xFE, inclusive, set the
    #    EUC-JP jis0212 flag and set EUC-JP lead to byte."
    if lead == 0x8F and 0xA1 <= byte <= 0xFE:
        table = _jis0212()
        lead = byte
        if end >= n:
            return "\ufffd", end, 1
        byte = data[end]
        end += 1
    # 5.2. "If lead and byte are both in the range 0xA1 to 0xFE, inclusive, then set code
    #      point to the index code point for (lead − 0xA1) × 94 + byte − 0xA1 ..."
    if 0xA1 <= lead <= 0xFE and 0xA1 <= byte <= 0xFE:
        char = _lookup(table, (lead - 0xA1) * 94 + byte - 0xA1)
        if char != "\0":
            return char, end, 0
    # 5.5. "If byte is an ASCII byte, restore byte to ioQueue." 5.6. "Return error."
    return "\ufffd", end - 1 if byte < 0x80 else end, 1


def _cp932_post(text: str) -> tuple[str, int]:
    """Fix-up ``cp932-single-byte-pua``: U+F8F0..U+F8F3 from bytes A0, FD, FE, FF are errors."""
    errors = 0
    for char in _CP932_PUA:
        if char in text:
            errors += text.count(char)
            text = text.replace(char, "\ufffd")
    return text, errors


_CP932_PUA = "\uf8f0\uf8f1\uf8f2\uf8f3"

SHIFT_JIS = MultiByteDecoder("shift_jis", shift_jis_step, "cp932", post=_cp932_post)
#: Fix-up ``euc-jp-jis0208-variants``: the codec's output for six pointers -> index jis0208's.
EUC_JP_FIXES: dict[str, str] = {
    "\u301c": "\uff5e",  # A1C1 WAVE DASH -> FULLWIDTH TILDE
    "\u2016": "\u2225",  # A1C2
    "\u2212": "\uff0d",  # A1DD
    "\u00a2": "\uffe0",  # A1F1
    "\u00a3": "\uffe1",  # A1F2
    "\u00ac": "\uffe2",  # A2CC
}

EUC_JP = MultiByteDecoder(
    "euc-jp",
    euc_jp_step,
    "euc_jp",
    fixes=EUC_JP_FIXES,
    suspect_bytes=(b"\x8f\xa2\xb7",),  # fix-up ``euc-jp-jis0212-tilde``
    # An ASCII byte is never part of a multi-byte sequence: after it the decoder is in its
    # initial state.
    boundary=re.compile(rb"[\x00-\x7f]"),
)
