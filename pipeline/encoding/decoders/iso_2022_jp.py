"""The Encoding Standard's ISO-2022-JP decoder (https://encoding.spec.whatwg.org/#iso-2022-jp-decoder).

A state machine over the decoder states ASCII, Roman, katakana, lead byte, trail byte, escape
start and escape, with the output state and the output flag. Python's iso2022_jp codec is not
used: it maps 926 sequences differently from index jis0208 (no NEC/IBM rows, other variants)
and handles escapes differently, so this module is the spec's decoder in pure Python, with
ASCII-state runs copied in one slice and lead-byte-state runs of pairs handed to the EUC-JP
decoder.
"""

from __future__ import annotations

import functools
import re

from pipeline.encoding.decoders.cjk_japanese import EUC_JP
from pipeline.encoding.decoders.tables import index_table

_jis0208 = functools.cache(lambda: index_table("jis0208"))

ASCII, ROMAN, KATAKANA, LEAD, TRAIL = range(5)
#: "ISO-2022-JP decoder escape" step 3: (lead, byte) -> the new decoder state.
_ESCAPES = {(0x28, 0x42): ASCII, (0x28, 0x4A): ROMAN, (0x28, 0x49): KATAKANA,
            (0x24, 0x40): LEAD, (0x24, 0x42): LEAD}
#: In the ASCII state, bytes returned as themselves: 0x00-0x7F except 0x0E, 0x0F and 0x1B.
_ASCII_RUN = re.compile(rb"[^\x0e\x0f\x1b\x80-\xff]+")
_SPECIAL = re.compile(rb"[\x0e\x0f\x1b\x80-\xff]")
_PAIR_RUN = re.compile(rb"[\x21-\x7e]+")
_KATAKANA_RUN = re.compile(rb"[\x21-\x5f]+")
_KATAKANA = {b: 0xFF61 - 0x21 + b for b in range(0x21, 0x60)}
_PLUS_0X80 = bytes((b + 0x80) & 0xFF for b in range(256))


def decode_iso_2022_jp(body: bytes) -> tuple[str, int]:  # noqa: C901 - one state machine
    """Decode ``body`` with the ISO-2022-JP decoder: (text, errors).

    >>> decode_iso_2022_jp(b"a\\x1b$B$\\"\\x1b(Bb")
    ('aあb', 0)
    >>> decode_iso_2022_jp(b"\\x1b(B\\x1b(Ba")  # two escapes in a row: an error
    ('�a', 1)
    """
    if _SPECIAL.search(body) is None:
        return body.decode("ascii"), 0
    jis = _jis0208()
    out: list[str] = []
    errors = 0
    state = output_state = ASCII
    output_flag = False
    lead = 0
    pos = 0
    n = len(body)
    while pos < n:
        byte = body[pos]
        if byte == 0x1B:
            if state == TRAIL:
                # Trail byte state, 0x1B: "Set ISO-2022-JP decoder state to escape start and
                # return error." (The escape sequence itself is then read as usual.)
                out.append("\ufffd")
                errors += 1
            # Escape start: "If byte is either 0x24 or 0x28, set ISO-2022-JP lead to byte,
            # ISO-2022-JP decoder state to escape, and return continue."
            if pos + 1 < n and body[pos + 1] in (0x24, 0x28):
                new_state = _ESCAPES.get((body[pos + 1], body[pos + 2])) if pos + 2 < n else None
                if new_state is not None:
                    # Escape step 4: set both states; "Let output be the value of the
                    # ISO-2022-JP output flag" ... "If output is set, return error".
                    state = output_state = new_state
                    if output_flag:
                        out.append("\ufffd")
                        errors += 1
                    output_flag = True
                    pos += 3
                    continue
                # Escape step 5: "prepend lead and byte" (or lead alone at end-of-queue), so
                # decoding resumes right after the 0x1B.
            # Escape start steps 2-3 / escape steps 5-6: restore, unset the output flag, go
            # back to the output state and return error.
            output_flag = False
            state = output_state
            out.append("\ufffd")
            errors += 1
            pos += 1
            continue
        if state == ASCII or state == ROMAN:
            m = _ASCII_RUN.match(body, pos)
            if m is not None:
                output_flag = False
                text = m.group().decode("ascii")
                if state == ROMAN:
                    # Roman state: "0x5C: ... return code point U+00A5." "0x7E: ... return
                    # code point U+203E." Other bytes up to 0x7F but 0x0E, 0x0F and 0x1B are
                    # returned as themselves.
                    text = text.replace("\\", "\u00a5").replace("~", "\u203e")
                out.append(text)
                pos = m.end()
                continue
            # 0x0E, 0x0F or a non-ASCII byte: "Unset the ISO-2022-JP output flag and return
            # error."
            output_flag = False
            out.append("\ufffd")
            errors += 1
            pos += 1
            continue
        output_flag = False
        if state == KATAKANA:
            # Katakana state: "0x21 to 0x5F: ... return a code point whose value is 0xFF61 −
            # 0x21 + byte."
            m = _KATAKANA_RUN.match(body, pos)
            if m is not None:
                out.append(m.group().decode("latin-1").translate(_KATAKANA))
                pos = m.end()
                continue
            out.append("\ufffd")
            errors += 1
        elif state == LEAD:
            if 0x21 <= byte <= 0x7E:
                # A run of lead/trail pairs: pointer (lead − 0x21) × 94 + byte − 0x21 into
                # index jis0208 is EUC-JP's pointer for the same bytes + 0x80, and both
                # decoders return one error for a pair without a code point, so the run is
                # decoded by the EUC-JP decoder (Python's codec with its fix-ups).
                run = _PAIR_RUN.match(body, pos)
                assert run is not None
                end = run.end() - (run.end() - pos) % 2
                if end > pos:
                    text, err = EUC_JP.decode(body[pos:end].translate(_PLUS_0X80))
                    out.append(text)
                    errors += err
                    pos = end
                    continue
                lead = byte
                state = TRAIL
            else:
                out.append("\ufffd")
                errors += 1
        else:  # TRAIL
            # "0x21 to 0x7E: Set state to lead byte, let pointer be (ISO-2022-JP lead − 0x21)
            # × 94 + byte − 0x21 ..." "Otherwise: set state to lead byte and return error."
            state = LEAD
            char = "\0"
            if 0x21 <= byte <= 0x7E:
                pointer = (lead - 0x21) * 94 + byte - 0x21
                char = jis[pointer] if pointer < len(jis) else "\0"
            if char == "\0":
                out.append("\ufffd")
                errors += 1
            else:
                out.append(char)
        pos += 1
    if state == TRAIL:
        # Trail byte state, end-of-queue: "Set state to lead byte and return error."
        out.append("\ufffd")
        errors += 1
    return "".join(out), errors
