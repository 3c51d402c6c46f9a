"""The Encoding Standard's EUC-KR decoder (https://encoding.spec.whatwg.org/#euc-kr-decoder).

Python's cp949 maps every pointer of index EUC-KR exactly as the spec does and accepts nothing
else (tests/conformance/test_decoders.py); its malformed-sequence handling differs (two U+FFFD
where the spec has one, a trail byte read again), so the error handler applies the spec's step.
"""

from __future__ import annotations

import functools

from pipeline.encoding.decoders.multibyte import MultiByteDecoder
from pipeline.encoding.decoders.tables import index_table

_euc_kr = functools.cache(lambda: index_table("euc-kr"))


def euc_kr_step(data: bytes, pos: int) -> tuple[str, int, int]:
    """One step of the EUC-KR decoder at ``pos``: (text, next position, errors)."""
    lead = data[pos]
    if lead < 0x80:
        return chr(lead), pos + 1, 0
    # 5. "If byte is in the range 0x81 to 0xFE, inclusive, set EUC-KR lead to byte and return
    #    continue." 6. "Return error."
    if not 0x81 <= lead <= 0xFE:
        return "\ufffd", pos + 1, 1
    if pos + 1 >= len(data):
        return "\ufffd", pos + 1, 1  # 1. end-of-queue with a lead: error.
    byte = data[pos + 1]
    # 3.2. "If byte is in the range 0x41 to 0xFE, inclusive, set pointer to (lead − 0x81) ×
    #      190 + (byte − 0x41)."
    if 0x41 <= byte <= 0xFE:
        pointer = (lead - 0x81) * 190 + byte - 0x41
        table = _euc_kr()
        if pointer < len(table) and table[pointer] != "\0":
            return table[pointer], pos + 2, 0
    # 3.5. "If byte is an ASCII byte, restore byte to ioQueue." 3.6. "Return error."
    return "\ufffd", pos + 1 if byte < 0x80 else pos + 2, 1


EUC_KR = MultiByteDecoder("euc-kr", euc_kr_step, "cp949")
