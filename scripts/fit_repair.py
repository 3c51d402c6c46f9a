"""Fit ``REPAIR_MIN_NON_ASCII`` (``--policy repair`` overriding a legacy declaration the
bytes contradict): the fewest non-ASCII bytes on which the override changes no truthfully
declared page and leaves no lying page further from its true text than the lie did (a
repair to a near relative of the true encoding, windows-1253 for ISO-8859-7, is closer).

Pages are built from real text (``tests/host_crawl.py``'s sentence pools: the chardet corpus,
the project's own prose, CPython's CJK texts) in every language and encoding of
``tests.host_crawl.ENCODINGS`` and those of ``tests.browser_view.pages.LANGUAGES``, from one
sentence up to a paragraph, each declared once truthfully and once as windows-1252 (the
common lie). The threshold is chosen on the pages of the ``fit`` half of the sentences and
reported on the ``report`` half:

    python scripts/fit_repair.py
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline.encoding.api import decode_html  # noqa: E402
from pipeline.encoding.sniff import algorithm  # noqa: E402
from tests.browser_view.pages import LANGUAGES, encode  # noqa: E402
from tests.host_crawl import decoded_right, pool  # noqa: E402

THRESHOLDS = (0, 4, 8, 16, 24, 32, 48, 64)
LIE = "text/html; charset=windows-1252"


def pages(half: str, rng: random.Random) -> list[tuple[bytes, str]]:
    """(body, true encoding) for every legacy encoding of every language with text."""
    found = []
    for lang, (_, _, _, encodings) in LANGUAGES.items():
        try:
            sentences = pool(lang, half)  # type: ignore[arg-type]
        except (ValueError, AssertionError, FileNotFoundError):
            continue  # too little text in this half
        for encoding in encodings:
            for count in (1, 1, 1, 1, 2, 2, 2, 3, 3, 5, 8):
                text = " ".join(rng.choice(sentences) for _ in range(count))
                title = text.split(" ")[0][:30]
                html = f"<html><head><title>{title}</title></head><body><p>{text}</p></body></html>"
                found.append((encode(html, encoding), encoding))
    return found


def score(cases: list[tuple[bytes, str]], threshold: int) -> Counter[str]:
    """What the repair policy does to ``cases`` with ``threshold``."""
    algorithm.REPAIR_MIN_NON_ASCII = threshold
    counts: Counter[str] = Counter()
    for body, truth in cases:
        if body.isascii():
            continue
        honest = decode_html(body, f"text/html; charset={truth}", policy="repair")
        if honest.encoding_source != "header":
            counts["honest changed"] += 1
            if not decoded_right(body, honest.encoding, truth):
                counts["honest made wrong"] += 1
        if decoded_right(body, "windows-1252", truth):
            continue  # the lie is the truth for these bytes
        counts["lies"] += 1
        lied = decode_html(body, LIE, policy="repair")
        if lied.encoding_source == "repair-detected":
            if decoded_right(body, lied.encoding, truth):
                counts["lies repaired right"] += 1
            elif _wrong_chars(body, lied.encoding, truth) < _wrong_chars(body, "windows-1252", truth):
                counts["lies repaired closer"] += 1
            else:
                counts["lies repaired wrong"] += 1
    return counts


def _wrong_chars(body: bytes, encoding: str, truth: str) -> int:
    from pipeline.encoding.decoders import decode

    text, true = decode(body, encoding).text, decode(body, truth).text
    return sum(a != b for a, b in zip(text, true, strict=False)) + abs(len(text) - len(true))


def main() -> None:
    rng = random.Random(7)
    fit, report = pages("fit", rng), pages("report", rng)
    chosen = None
    print("threshold | fit: honest changed, lies repaired right / closer / worse / of | "
          "report: same")
    for threshold in THRESHOLDS:
        f, r = score(fit, threshold), score(report, threshold)
        print(f"{threshold:>9} | {f['honest changed']}, {f['lies repaired right']} / "
              f"{f['lies repaired closer']} / {f['lies repaired wrong']} / {f['lies']} | "
              f"{r['honest changed']}, {r['lies repaired right']} / "
              f"{r['lies repaired closer']} / {r['lies repaired wrong']} / {r['lies']}")
        if chosen is None and not f["honest changed"] and not f["lies repaired wrong"]:
            chosen = threshold
    print(f"chosen on the fit half: REPAIR_MIN_NON_ASCII = {chosen}")


if __name__ == "__main__":
    main()
