"""Chromium's content sniffing for undeclared pages, emulated.

Blink (``text_encoding_detector.cc``) asks Compact Encoding Detection (CED) with the page URL
as a hint; a UTF-8 answer is thrown away on non-``file:`` URLs, and so is no answer, leaving
the TLD default (:mod:`.tld_defaults`). A pure-ASCII answer becomes windows-1252. CED itself
is not available to Python, so chardetng (Firefox's detector, also TLD-hinted) stands in, with
two adjustments where the two detectors name the same bytes differently:

- chardetng reports the KOI8 family as KOI8-U (its superset); CED reports KOI8-R;
- chardetng has no Mac Cyrillic; when the Mac Cyrillic reading is clearly the right one
  (:func:`.detect.refine_cyrillic`), Chromium shows windows-1251 (all 17 such pages of the
  corpus);
- between ISO-8859-2 and windows-1250, CED answers windows-1250 unless that reading is
  visibly worse (C1 controls, or symbols such as ``±``/``¶`` inside words, at least
  :data:`LATIN2_MIN_EXTRA_ODDITIES` more than the ISO-8859-2 reading), where chardetng prefers
  ISO-8859-2 whenever it fits. Measured on the oracle: Czech, Slovak, Slovene and Croatian
  ISO-8859-2 pages show as windows-1250, Polish ones (``ą``/``ś`` are ``±``/``¶`` in
  windows-1250) as ISO-8859-2. The rule was derived from those measurements.

Agreement with Chromium on the corpus is measured in ``docs/sniffing.md``; where the two
detectors' statistics differ otherwise (windows-1257 for some Western pages, short pages where
CED follows its TLD prior) this emulation is not exact.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pipeline.encoding.decision import EncodingSource
from pipeline.encoding.sniff.detect import Guess, chardetng_guess, refine_cyrillic
from pipeline.encoding.sniff.utf8 import check_utf8

_CED_NAMES = {"KOI8-U": "KOI8-R"}
#: How many more oddities the windows-1250 reading needs before ISO-8859-2 is shown.
LATIN2_MIN_EXTRA_ODDITIES = 3


# In a text where letters are "a", C1 controls "c" and other chars from U+00A0 on "o": an
# "o" wedged between two letters (lookarounds: adjacent ones all count).
_WEDGED = re.compile("(?<=a)o(?=a)")


def _char_kind(char: str) -> str:
    if char.isalpha():
        return "a"
    if char >= "\xa0":
        return "o"
    return "c" if "\x80" <= char <= "\x9f" else "x"


def _latin_oddities(text: str) -> int:
    """C1 controls, plus non-letter symbols (U+00A0 and up) wedged between two letters.

    Counted on ``text`` translated to one kind letter per char (:func:`_char_kind`).

    >>> _latin_oddities("a±b \x85 ±± x±")
    2
    """
    kinds = text.translate({ord(char): _char_kind(char) for char in set(text)})
    return kinds.count("c") + len(_WEDGED.findall(kinds))


def _same_text(sample: bytes, first: str, second: str) -> bool:
    from pipeline.encoding.decoders import decode

    return decode(sample, first).text == decode(sample, second).text


def ced_latin2_choice(sample: bytes) -> str:
    """windows-1250 or ISO-8859-2, as Chromium's CED tends to answer for Central European bytes.

    >>> ced_latin2_choice("Příliš žluťoučký kůň".encode("iso8859_2"))
    'windows-1250'
    >>> ced_latin2_choice(("Zażółć gęślą jaźń; " * 3).encode("iso8859_2"))
    'ISO-8859-2'
    """
    from pipeline.encoding.decoders import decode

    cp1250 = _latin_oddities(decode(sample, "windows-1250").text)
    latin2 = _latin_oddities(decode(sample, "ISO-8859-2").text)
    return "ISO-8859-2" if cp1250 >= latin2 + LATIN2_MIN_EXTRA_ODDITIES else "windows-1250"


def emulate_chromium_detection(
    sample: bytes,
    tld: str | None,
    default: str,
    *,
    allow_utf8: bool = False,
    is_utf8: bool | None = None,
    guess: Callable[[], Guess | None] | None = None,
) -> tuple[str, EncodingSource, str]:
    """(encoding, source, note) Chromium would end up with for an undeclared ``sample``.

    ``is_utf8`` and ``guess`` let the caller share a UTF-8 check and a chardetng run it
    already has (on the same sample, with the same TLD).

    >>> emulate_chromium_detection(b"plain", "jp", "Shift_JIS")[:2]
    ('windows-1252', 'default')
    >>> emulate_chromium_detection("日本語".encode(), "jp", "Shift_JIS")[:2]
    ('Shift_JIS', 'default')
    """
    if sample.isascii():
        return "windows-1252", "default", "pure ASCII: CED answers ASCII, read as windows-1252"
    if is_utf8 is None:
        is_utf8 = check_utf8(sample).is_utf8
    if is_utf8:
        if allow_utf8:
            return "UTF-8", "detected", "UTF-8 detected (file: URL)"
        return default, "default", f"UTF-8 bytes: Chromium discards a UTF-8 verdict; TLD/locale default {default}"
    found = guess() if guess is not None else chardetng_guess(sample, tld, allow_utf8=False)
    if found is None:
        return default, "default", f"no detector answer: TLD/locale default {default}"
    encoding = _CED_NAMES.get(found.encoding, found.encoding)
    if refine_cyrillic(sample, found.encoding) == "x-mac-cyrillic":
        encoding = "windows-1251"
    elif encoding in ("ISO-8859-2", "windows-1250"):
        encoding = ced_latin2_choice(sample)
    elif encoding == "windows-1253" and _same_text(sample, "windows-1253", "ISO-8859-7"):
        encoding = "ISO-8859-7"
    return encoding, "detected", f"CED stand-in: chardetng (TLD hint {tld!r}) answered {found.encoding}"
