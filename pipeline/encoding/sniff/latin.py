"""The rarer single-byte Latin sets, which chardetng does not answer: ISO-8859-3 (Maltese,
Esperanto, Turkish), -4 and -10 (Baltic, Nordic), -13 (Baltic, Polish), -15 (Western with the
euro, š/ž, œ), -16 (Romanian, South-East European).

chardetng reads such bytes as the closest set it knows (windows-1252, windows-1250,
windows-1257, ISO-8859-2, windows-1254). :func:`refine_latin` reads the sample in every Latin
set and scores each reading's non-ASCII characters with letter-pair models of 25 languages
(``latin_models.json``, built by ``scripts/gen_latin_models.py`` from Debian's Hunspell
dictionaries and, for Maltese, iso-codes' translations): a letter in a word is scored by the
pairs it makes with its neighbours, a symbol inside a word (``¨akki`` for ``šakki``) by a
fixed penalty. The best reading replaces chardetng's only when it reads the bytes as other
text and scores better by ``MARGIN`` per scored character: where the bytes read the same in
both (Romanian's ş in ISO-8859-2 and ș in ISO-8859-16 share a byte), chardetng's answer
stands.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache

#: The Latin sets compared, in the order that names a reading several of them give alike
#: (the widespread before the rare).
LATIN_SETS = ("windows-1252", "windows-1250", "windows-1257", "windows-1254", "ISO-8859-2",
              "ISO-8859-15", "ISO-8859-13", "ISO-8859-4", "ISO-8859-16", "ISO-8859-10",
              "ISO-8859-3")
#: chardetng answers whose bytes may be one of the rarer sets.
REFINED = frozenset({"windows-1252", "windows-1250", "windows-1257", "windows-1254", "ISO-8859-2",
                     "ISO-8859-13"})
#: Letter pairs are smoothed with this count over an alphabet of ``ALPHABET`` letters.
SMOOTHING = 0.5
ALPHABET = 64
#: Log-probability of a non-ASCII non-letter (``©``, ``°``, ``¤``), less ``SYMBOL_BY_LETTER``
#: for each letter beside it: real text puts such signs between spaces and digits, a wrong
#: reading inside words (``T¨ekki`` for ``Tšekki``). A letter scores about -8 to -12 (two
#: pairs), so a sign inside a word costs about two letters. U+FFFD (a byte the set leaves
#: undefined) and the C1 controls (where an ISO set reads windows-125x's quotes and dashes)
#: cost ``UNDEFINED``.
SYMBOL = -4.0
SYMBOL_BY_LETTER = -9.0
UNDEFINED = -30.0
#: The best reading must beat chardetng's by this much (log-probability) per character where
#: the two readings differ.
MARGIN = 3.0
#: Non-ASCII characters scored at most (the refinement's cost; the statistics settle long before).
MAX_SCORED = 600


@lru_cache(maxsize=1)
def _models() -> dict[str, tuple[dict[str, float], dict[str, float]]]:
    """Per language: (log of the smoothing denominator per first letter, log count per pair)."""
    from importlib import resources  # (loaded with the models: most runs need neither)

    raw = json.loads(resources.files("pipeline.encoding.sniff").joinpath("latin_models.json")
                     .read_text("utf-8"))
    out = {}
    for lang, model in raw["models"].items():
        firsts = {a: math.log(n + SMOOTHING * ALPHABET) for a, n in model["firsts"].items()}
        pairs = {p: math.log(n + SMOOTHING) for p, n in model["pairs"].items()}
        out[lang] = (firsts, pairs)
    return out


_UNSEEN_FIRST = math.log(SMOOTHING * ALPHABET)
_UNSEEN_PAIR = math.log(SMOOTHING)


#: s and t with a cedilla are one letter with s and t with a comma below: Romanian is written
#: with either, and ISO-8859-2 (cedilla) and ISO-8859-16 (comma) give them the same byte, so
#: the bytes cannot tell the two readings apart (chardetng's answer stands).
FOLD = str.maketrans({"ş": "ș", "ţ": "ț"})


def _letter(c: str) -> str:
    return c.lower().translate(FOLD) if c.isalpha() else " "


def _contexts(text: str) -> list[tuple[str, str, str]]:
    """(previous, character, next) around each non-ASCII character, letters lowercased and
    every non-letter a space, at most ``MAX_SCORED`` of them."""
    out = []
    for i, c in enumerate(text):
        if c < "\x80":
            continue
        before = _letter(text[i - 1]) if i > 0 else " "
        after = _letter(text[i + 1]) if i + 1 < len(text) else " "
        out.append((before, c, after))
        if len(out) == MAX_SCORED:
            break
    return out


def score(text: str) -> tuple[float, str, int]:
    """(the best language's log-probability of ``text``'s non-ASCII characters, that
    language, how many were scored)."""
    contexts = _contexts(text)
    best, best_lang = -math.inf, ""
    for lang, (firsts, pairs) in _models().items():
        total = 0.0
        for before, c, after in contexts:
            if c.isalpha():
                low = c.lower().translate(FOLD)
                total += (pairs.get(before + low, _UNSEEN_PAIR) - firsts.get(before, _UNSEEN_FIRST)
                          + pairs.get(low + after, _UNSEEN_PAIR) - firsts.get(low, _UNSEEN_FIRST))
            elif c == "\ufffd" or c <= "\x9f":  # (a C1 control: no text holds one)
                total += UNDEFINED
            else:
                total += SYMBOL + SYMBOL_BY_LETTER * ((before != " ") + (after != " "))
        if total > best:
            best, best_lang = total, lang
    return best, best_lang, len(contexts)


def refine_latin(sample: bytes, guess: str) -> tuple[str, str] | None:
    """(encoding, language) when a rarer Latin set reads ``sample`` as other text than
    chardetng's ``guess`` and clearly better; None to keep the guess.

    >>> refine_latin("Tšekki ja Šveitsi, šokolaad ja žürii".encode("iso8859_15") * 3, "windows-1252")[0]
    'ISO-8859-15'
    >>> refine_latin("Il-Ħadd filgħodu, Ġużeppi u Ċikku żaru l-belt".encode("iso8859_3"), "windows-1252")
    ('ISO-8859-3', 'mt')
    >>> refine_latin("Le café est très bon".encode("cp1252"), "windows-1252") is None
    True
    """
    if guess not in REFINED or sample.isascii():
        return None
    from pipeline.encoding.decoders import decode

    readings: dict[str, str] = {}  # text -> the first set that reads it so
    for encoding in (guess, *LATIN_SETS):
        text = decode(sample, encoding).text
        readings.setdefault(text, encoding)
    if len(readings) == 1:
        return None
    scored = {text: score(text) for text in readings}
    guessed_text = next(iter(readings))
    base = scored[guessed_text][0]
    text, (best, lang, _) = max(scored.items(), key=lambda item: item[1][0])
    # (single-byte sets: one character a byte, so the readings align)
    differing = sum(a != b for a, b in zip(text, guessed_text, strict=True))
    if text == guessed_text or best - base <= MARGIN * differing:
        return None
    return readings[text], lang
