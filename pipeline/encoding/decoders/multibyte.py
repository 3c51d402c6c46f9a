"""Drive a stateless multi-byte decoder: Python's codec as the fast path, the spec elsewhere.

Every legacy multi-byte decoder of the Encoding Standard except ISO-2022-JP is stateless
between characters, so it can be described by a *step* (see :mod:`.errors`) that decodes one
character or one error starting at a character boundary. Two ways to decode:

1. the Python codec, with an error handler that runs the spec's step at each position where
   the codec fails (so the U+FFFD count and the restored bytes are the spec's). Where the codec
   decodes, it agrees with the spec on every sequence it accepts, except the sequences listed
   as the encoding's named fix-ups, whose output is rewritten character by character where
   that is exact (``fixes``);
2. the pure-Python loop of steps, which is the spec's decoder: on the stretch around a byte
   sequence the codec decodes wrongly in a way no rewrite can undo (``suspect_bytes``, rare in
   real text), and on input that turns out to be mostly errors (faster there than one
   handler call per error).

tests/conformance/test_decoders.py proves the combination against a step-by-step reference of
the spec on every byte pair, each lead followed by every trail byte in context, and every index
entry.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from pipeline.encoding.decoders.errors import (
    ErrorDense,
    Step,
    register_step_handler,
    reset_count,
    take_count,
)

_ASCII_RUN = re.compile(rb"[\x00-\x7f]+")


def decode_with_steps(body: bytes, step: Step) -> tuple[str, int]:
    """The spec decoder as a loop of steps (ASCII runs are copied): (text, errors)."""
    out: list[str] = []
    append = out.append
    errors = 0
    pos = 0
    n = len(body)
    match_ascii = _ASCII_RUN.match
    while pos < n:
        if body[pos] < 0x80:
            m = match_ascii(body, pos)
            assert m is not None
            append(m.group().decode("ascii"))
            pos = m.end()
            continue
        text, pos, err = step(body, pos)
        append(text)
        errors += err
    return "".join(out), errors


@dataclass(frozen=True)
class MultiByteDecoder:
    """One encoding's decoder: its spec step, its Python codec and the codec's known faults.

    ``fixes`` maps characters that the codec produces for exactly one byte sequence, where the
    spec decodes that sequence to another character that the codec never produces, to the
    spec's character: a plain substitution is then exact (checked by the conformance tests,
    listed as named fix-ups in each encoding's module). ``suspect_bytes`` are byte sequences
    the codec decodes wrongly to a character it also produces legitimately (EUC-JP's 8F A2 B7
    -> "~"): an input containing one takes the spec loop. When ``suspect_hint`` is set, the
    bytes are searched only if the codec's output holds one of its characters (the wrong
    characters those sequences decode to). ``boundary`` matches bytes after which the decoder
    is always back in its initial state (a lead followed by one is an error and the byte is
    restored and returned as itself): with it, only the stretch between the boundaries around
    each suspect sequence takes the spec loop. ``post`` rewrites the codec's output
    where a fix-up turns characters into counted errors (Shift_JIS's single bytes A0, FD-FF).
    """

    name: str
    step: Step
    codec: str | None
    fixes: Mapping[str, str] = field(default_factory=dict)
    suspect_bytes: tuple[bytes, ...] = ()
    suspect_hint: str = ""
    boundary: re.Pattern[bytes] | None = None
    post: Callable[[str], tuple[str, int]] | None = None
    handler: str = field(init=False)
    _fix_table: dict[int, str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "handler", register_step_handler(f"redecode-whatwg-{self.name}", self.step)
        )
        object.__setattr__(self, "_fix_table", {ord(k): v for k, v in self.fixes.items()})

    def decode(self, body: bytes) -> tuple[str, int]:
        """Decode ``body`` exactly as the spec's decoder does: (text, errors)."""
        if body.isascii():
            # All these decoders return an ASCII byte as its code point when no lead is set.
            return body.decode("ascii"), 0
        result = self.decode_codec(body)
        if result is not None:
            return result
        if self.boundary is None or self.codec is None:
            return decode_with_steps(body, self.step)
        return self._decode_around_suspects(body)

    def _decode_around_suspects(self, body: bytes) -> tuple[str, int]:
        """The spec loop on the stretches around suspect sequences, the codec elsewhere."""
        assert self.boundary is not None
        starts = sorted(
            m.start() for seq in self.suspect_bytes for m in re.finditer(re.escape(seq), body)
        )
        out: list[str] = []
        errors = 0
        done = 0  # everything before this position is decoded
        for start in starts:
            if start < done:
                continue
            # Back to just after the last boundary byte before the sequence (or to ``done``).
            begin = start
            while begin > done and not self.boundary.match(body, begin - 1):
                begin -= 1
            # Forward to just after the first boundary byte after it (or to the end).
            m = self.boundary.search(body, start + 1)
            end = m.end() if m is not None else len(body)
            for piece, slow in ((body[done:begin], False), (body[begin:end], True)):
                if piece:
                    result = decode_with_steps(piece, self.step) if slow else self._codec(piece)
                    assert result is not None  # no hint check: the piece holds no suspect
                    out.append(result[0])
                    errors += result[1]
            done = end
        if done < len(body):
            result = self._codec(body[done:])
            assert result is not None
            out.append(result[0])
            errors += result[1]
        return "".join(out), errors

    def decode_codec(self, body: bytes) -> tuple[str, int] | None:
        """Ways 1 and 2 (the codec, with the spec's step on errors); None for suspect input.

        Input that turns out to be mostly errors is finished by the spec loop (way 3), which
        is faster there.
        """
        if self.codec is None:
            return None
        if self.suspect_bytes and not self.suspect_hint and self._has_suspect_bytes(body):
            return None
        return self._codec(body, check_hint=True)

    def _codec(self, body: bytes, check_hint: bool = False) -> tuple[str, int] | None:
        # One pass: the handler is only called at malformed (to the codec) sequences.
        reset_count()
        try:
            text = body.decode(self.codec or "", self.handler)
        except ErrorDense:
            return decode_with_steps(body, self.step)
        errors = take_count()
        if (
            check_hint
            and self.suspect_hint
            and any(c in text for c in self.suspect_hint)
            and self._has_suspect_bytes(body)
        ):
            return None
        return self._fix(text, errors)

    def _fix(self, text: str, errors: int) -> tuple[str, int]:
        if self.fixes:
            # One ``in`` per character (a memchr-like scan) beats a regex character class.
            present = [k for k in self.fixes if k in text]
            if present:
                text = self._apply_fixes(text, present)
        if self.post is not None:
            text, more = self.post(text)
            errors += more
        return text, errors

    def _has_suspect_bytes(self, body: bytes) -> bool:
        # A one-byte search (memchr) first: these sequences start with rare bytes.
        return any(seq[:1] in body and seq in body for seq in self.suspect_bytes)

    def _apply_fixes(self, text: str, present: list[str]) -> str:
        if any(self.fixes[k] in self.fixes for k in present):
            # A swap (gb18030's U+E7C7 <-> U+1E3F): one pass, slow but rare.
            return text.translate(self._fix_table)
        for k in present:
            text = text.replace(k, self.fixes[k])
        return text
