"""The byte pairs Chromium's detector looks at: Compact Encoding Detection's scan, restated.

CED (google/compact_enc_det, ``compact_enc_det.cc``, Apache-2.0) does not score a whole page.
It walks the bytes looking for "interesting" ones and scores the aligned pair that starts at
each, until it has 48 non-ASCII pairs (``kMaxPairs``), then decides:

- interesting bytes are those of ``kTestPrintableAscii``: bytes 0x80-0xFF and the C0 controls
  other than TAB, LF, FF and CR (and DEL); a pair is that byte and the next one (a space when
  the byte is the last), and the scan resumes after the pair (``src += 2``);
- in the first 16 KB (the "slow" scan), a pair inside a tag, in ``<title>`` text, just after
  ``<script ...>`` or after ``/*`` (``TextInsideTag``: the nearest ``<`` or ``>`` within 192
  bytes before it decides) counts 1/16 (``kWeightshiftForTagTitleText = 4``), and after 12
  such pairs (``kMaxBigramsTagTitleText``) the rest of each such tag is skipped;
- after 48 non-ASCII pairs the scan stops (``IncrementAndBoostPrune``: "force done").

The pairs are what :mod:`.ced_model` scores. Only the scan is restated here; CED's
probability tables are not public, so the scoring is fitted (see :mod:`.ced_model`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: ``kMaxPairs``: non-ASCII pairs CED scores before it decides.
MAX_PAIRS = 48
#: ``FLAGS_enc_detect_slow_max_kb``: the first 16 KB are scanned with the tag rules.
SLOW_SCAN_BYTES = 16 * 1024
#: ``kMaxBigramsTagTitleText``: pairs in tag/title text scored (at 1/16) before skipping.
MAX_TAG_PAIRS = 12
#: ``kWeightshiftForTagTitleText``: tag/title pairs weigh 2**-4.
TAG_WEIGHT = 1 / 16
#: ``kMaxScanBack``: how far back ``TextInsideTag`` looks for ``<`` or ``>``.
_SCAN_BACK = 192

# kTestPrintableAscii: exit codes != 0, minus '+' and '~' (the 7-bit mail encodings' pairs,
# which never become a WHATWG answer here).
_INTERESTING = re.compile(rb"[\x00-\x08\x0b\x0e-\x1f\x7f-\xff]")


@dataclass(frozen=True, slots=True)
class PairWindow:
    """The pairs CED scores: the byte before each, first and second bytes, the weight of each,
    where the scan ended."""

    before: bytes
    first: bytes
    second: bytes
    weights: tuple[float, ...]
    end: int

    @property
    def count(self) -> int:
        """Non-ASCII pairs seen (``next_interesting_pair[OtherPair]``), whatever their weight."""
        return len(self.first)


def _inside_tag(body: bytes, at: int) -> bool:
    # TextInsideTag: scan back to the nearest '<' or '>' (at most 192 bytes); a '<' means
    # inside a tag, a '>' closing "<title" or "...script" means title or script text.
    start = max(0, at - _SCAN_BACK)
    lt = body.rfind(b"<", start, at)
    gt = body.rfind(b">", start, at)
    comment = body.rfind(b"/*", start, at)
    nearest = max(lt, gt)
    if comment > nearest:
        return True
    if nearest < 0:
        return False
    if nearest == lt:
        return True
    before = body[max(0, gt - 6) : gt].lower()
    return before == b"<title" or before == b"script"


def _tag_end(body: bytes, at: int) -> int:
    # SkipToTagEnd: just past the next '<' or '>' after ``at``.
    ends = [found for found in (body.find(b"<", at + 1), body.find(b">", at + 1)) if found >= 0]
    return min(ends) + 1 if ends else at + 2


def ced_window(body: bytes) -> PairWindow:
    """The non-ASCII (and control) byte pairs CED scores in ``body``, with their weights.

    >>> window = ced_window("<title>Čeština</title><p>Žluťoučký kůň".encode("cp1250"))
    >>> window.count, window.weights[:3], window.first.hex(), window.second[-1:].hex()
    (7, (0.0625, 0.0625, 1.0), 'c89a8e9de8fdf9', 'f2')
    """
    before = bytearray()
    first = bytearray()
    second = bytearray()
    weights: list[float] = []
    tag_pairs = 0
    position = 0
    length = len(body)
    while len(first) < MAX_PAIRS:
        found = _INTERESTING.search(body, position)
        if found is None:
            break
        at = found.start()
        weight = 1.0
        if at < SLOW_SCAN_BYTES and _inside_tag(body, at):
            if tag_pairs >= MAX_TAG_PAIRS:
                position = _tag_end(body, at)
                continue
            weight = TAG_WEIGHT
            tag_pairs += 1
        before.append(body[at - 1] if at else 0x20)
        first.append(body[at])
        second.append(body[at + 1] if at + 1 < length else 0x20)
        weights.append(weight)
        position = at + 2
    return PairWindow(bytes(before), bytes(first), bytes(second), tuple(weights), min(position, length))
