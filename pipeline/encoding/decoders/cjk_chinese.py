"""The Encoding Standard's gb18030 (also GBK's) and Big5 decoders.

https://encoding.spec.whatwg.org/#gb18030-decoder ("GBK's decoder is gb18030's decoder") and
#big5-decoder. Each ``*_step`` decodes one character or one error at a character boundary
(see :mod:`.multibyte`).

Named fix-ups over Python's codecs (proven by tests/conformance/test_decoders.py):

* ``gb18030-2022-mappings``: Python's gb18030 is GB18030-2005; the index is GB18030-2022 (whatwg
  commit 2c3853e). 20 two-byte pointers (A3A0, A6D9..A6DF, A6EC, A6ED, A6F3, A8BC, FE59, FE61,
  FE66, FE67, FE6D, FE7E, FE90, FEA0) and the four-byte pointer 7457 (81 35 F4 37, the spec's
  U+E7C7 special case) decode differently. The codec produces each of its wrong characters
  from that one sequence only, and the spec never produces them elsewhere, so
  :data:`GB18030_2022_FIXES` rewrites them.
* ``gb18030-euro``: Python rejects byte 0x80, which the spec decodes to U+20AC (step 7); the
  error handler decodes it with the spec's step. (The codec accepts every other sequence the
  index maps.)
* gb18030's malformed four-byte sequences: Python swallows the ASCII digits the spec restores
  to the queue; the error handler applies the spec's step.
* ``big5-hkscs-variants``: Python's big5hkscs maps 11 pointers to other characters than index
  Big5. Nine of its wrong characters come from that one sequence only and are rewritten
  (:data:`BIG5_FIXES`); for A241 and A242 (``big5-hkscs-solidus``) the stretch of input
  around those bytes takes the spec loop. The 192 pointers it rejects are decoded by the error handler.
"""

from __future__ import annotations

import functools
import re

from pipeline.encoding.decoders.multibyte import MultiByteDecoder
from pipeline.encoding.decoders.tables import gb18030_ranges_code_point, index_table

_gb18030 = functools.cache(lambda: index_table("gb18030"))
_big5 = functools.cache(lambda: index_table("big5"))


def gb18030_step(data: bytes, pos: int) -> tuple[str, int, int]:
    """One step of the gb18030 decoder at ``pos``: (text, next position, errors)."""
    first = data[pos]
    n = len(data)
    if first < 0x80:
        return chr(first), pos + 1, 0
    # 7. "If byte is 0x80, return code point U+20AC."
    if first == 0x80:
        return "\u20ac", pos + 1, 0
    # 8. "If byte is in the range 0x81 to 0xFE, inclusive, set gb18030 first to byte and
    #    return continue." 9. "Return error."
    if first == 0xFF:
        return "\ufffd", pos + 1, 1
    if pos + 1 >= n:
        return "\ufffd", n, 1  # 2. end-of-queue with gb18030 first set: error.
    byte = data[pos + 1]
    # 5.1. "If byte is in the range 0x30 to 0x39, inclusive, set gb18030 second to byte."
    if 0x30 <= byte <= 0x39:
        if pos + 2 >= n:
            return "\ufffd", n, 1
        third = data[pos + 2]
        # 4.1-4.2. "If byte is in the range 0x81 to 0xFE, inclusive, set gb18030 third to
        #          byte"; otherwise "restore « gb18030 second, byte » to ioQueue" and error.
        if not 0x81 <= third <= 0xFE:
            return "\ufffd", pos + 1, 1
        if pos + 3 >= n:
            return "\ufffd", n, 1
        fourth = data[pos + 3]
        # 3.1. "If byte is not in the range 0x30 to 0x39, inclusive, then: restore « gb18030
        #      second, gb18030 third, byte » to ioQueue", and error.
        if not 0x30 <= fourth <= 0x39:
            return "\ufffd", pos + 1, 1
        # 3.2. "Let code point be the index gb18030 ranges code point for ((gb18030 first −
        #      0x81) × (10 × 126 × 10)) + ((gb18030 second − 0x30) × (10 × 126)) + ((gb18030
        #      third − 0x81) × 10) + byte − 0x30."
        cp = gb18030_ranges_code_point(
            (first - 0x81) * 12600 + (byte - 0x30) * 1260 + (third - 0x81) * 10 + fourth - 0x30
        )
        if cp is None:
            return "\ufffd", pos + 4, 1
        return chr(cp), pos + 4, 0
    # 5.4. "If byte is in the range 0x40 to 0x7E, inclusive, or 0x80 to 0xFE, inclusive, set
    #      pointer to (lead − 0x81) × 190 + (byte − offset)."
    if 0x40 <= byte <= 0x7E or 0x80 <= byte <= 0xFE:
        pointer = (first - 0x81) * 190 + byte - (0x40 if byte < 0x7F else 0x41)
        table = _gb18030()
        if pointer < len(table) and table[pointer] != "\0":
            return table[pointer], pos + 2, 0
    # 5.7. "If byte is an ASCII byte, restore byte to ioQueue." 5.8. "Return error."
    return "\ufffd", pos + 1 if byte < 0x80 else pos + 2, 1


#: Big5 decoder step 3.4: the pointers that decode to two code points.
_BIG5_PAIRS = {1133: "\u00ca\u0304", 1135: "\u00ca\u030c", 1164: "\u00ea\u0304",
               1166: "\u00ea\u030c"}


def big5_step(data: bytes, pos: int) -> tuple[str, int, int]:
    """One step of the Big5 decoder at ``pos``: (text, next position, errors)."""
    lead = data[pos]
    if lead < 0x80:
        return chr(lead), pos + 1, 0
    # 5. "If byte is in the range 0x81 to 0xFE, inclusive, set Big5 lead to byte and return
    #    continue." 6. "Return error."
    if not 0x81 <= lead <= 0xFE:
        return "\ufffd", pos + 1, 1
    if pos + 1 >= len(data):
        return "\ufffd", pos + 1, 1  # 1. end-of-queue with a lead: error.
    byte = data[pos + 1]
    # 3.3. "If byte is in the range 0x40 to 0x7E, inclusive, or 0xA1 to 0xFE, inclusive, set
    #      pointer to (lead − 0x81) × 157 + (byte − offset)."
    if 0x40 <= byte <= 0x7E or 0xA1 <= byte <= 0xFE:
        pointer = (lead - 0x81) * 157 + byte - (0x40 if byte < 0x7F else 0x62)
        pair = _BIG5_PAIRS.get(pointer)
        if pair is not None:
            return pair, pos + 2, 0
        table = _big5()
        if pointer < len(table) and table[pointer] != "\0":
            return table[pointer], pos + 2, 0
    # 3.7. "If byte is an ASCII byte, restore byte to ioQueue." 3.8. "Return error."
    return "\ufffd", pos + 1 if byte < 0x80 else pos + 2, 1


#: Fix-up ``gb18030-2022-mappings``: the codec's output for the pointers GB18030-2022 moved ->
#: index gb18030's code point (and the four-byte pointer 7457 the other way round).
GB18030_2022_FIXES: dict[str, str] = {
    "\ue5e5": "\u3000",  # A3A0
    "\ue78d": "\ufe10", "\ue78e": "\ufe12", "\ue78f": "\ufe11", "\ue790": "\ufe13",  # A6D9-A6DC
    "\ue791": "\ufe14", "\ue792": "\ufe15", "\ue793": "\ufe16",  # A6DD-A6DF
    "\ue794": "\ufe17", "\ue795": "\ufe18", "\ue796": "\ufe19",  # A6EC, A6ED, A6F3
    "\ue7c7": "\u1e3f",  # A8BC
    "\u1e3f": "\ue7c7",  # 81 35 F4 37 (pointer 7457, "return code point U+E7C7")
    "\ue81e": "\u9fb4", "\ue826": "\u9fb5", "\ue82b": "\u9fb6", "\ue82c": "\u9fb7",  # FE59-FE67
    "\ue832": "\u9fb8", "\ue843": "\u9fb9", "\ue854": "\u9fba", "\ue864": "\u9fbb",  # FE6D-FEA0
}

#: Fix-up ``big5-hkscs-variants``: the codec's output for 9 pointers -> index Big5's code point.
BIG5_FIXES: dict[str, str] = {
    "\u2022": "\u2027",  # A145
    "\uff64": "\ufe51",  # A14E
    "\u203e": "\u00af",  # A1C2
    "\u223c": "\uff5e",  # A1E3
    "\u2641": "\u2295",  # A1F2
    "\u2609": "\u2299",  # A1F3
    "\u00a5": "\uffe5",  # A244
    "\u00a2": "\uffe0",  # A246
    "\u00a3": "\uffe1",  # A247
}

GB18030 = MultiByteDecoder("gb18030", gb18030_step, "gb18030", fixes=GB18030_2022_FIXES)
BIG5 = MultiByteDecoder(
    "big5",
    big5_step,
    "big5hkscs",
    fixes=BIG5_FIXES,
    # Fix-up ``big5-hkscs-solidus``: the codec decodes A241 to U+FF0F and A242 to U+FF3C (index
    # Big5: U+2215, U+FE68), characters it also decodes from A1FE and A240 as the spec does.
    suspect_bytes=(b"\xa2A", b"\xa2B"),
    suspect_hint="\uff0f\uff3c",
    # A byte below 0x40 is never a trail byte: after it the decoder is in its initial state.
    boundary=re.compile(rb"[\x00-\x3f]"),
)
