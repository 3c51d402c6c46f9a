"""The oracle of ``pipeline/encoding/_mojibake.c`` and the definitions of the character
classes it counts.

Each class is a regular expression here; ``scripts/gen_mojibake_flags.py`` runs them over every
BMP code point into the flag tables the scanner reads (``pipeline/encoding/mojibake_flags.npz``),
and :func:`shares` computes the ``(latin, soup, cjk)`` shares of
:func:`pipeline.encoding.mojibake.mojibake_score` from the tables with numpy and from ftfy's
badness regex over windows around its trigger characters, the way the scanner does in one pass.
"""

from __future__ import annotations

import functools
import re

import numpy as np
from ftfy.badness import BADNESS_RE, MOJIBAKE_CATEGORIES

from pipeline.encoding.mojibake import (
    BADNESS_CONTEXT,
    HAN_SPACE_MIN_SHARE,
    MIN_CJK_CHARS,
    _cjk_share_of,
)

#: Written Cantonese particles: outside the frequent sets but common in Hong Kong pages.
CANTONESE_CHARS = "冇咁嗰佢睇嘅咗喺啲乜嘢啱噉哋嚟俾攞揾搵諗冧"


# Runs of 3+ Latin-1 Supplement letters (U+00C0-U+00FF without × and ÷).
_SOUP_RE = re.compile("[\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff]{3,}")
_SOUP_RE_CHARS = re.compile("[\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff]+")

# Han ideographs (Ext A, URO, compatibility), Hangul syllables, kana, half-width katakana,
# private use (where wrong decoders put unmapped pairs).
_CJK_CLASS = (
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\ue000-\uf8ff\uf900-\ufaff\uff61-\uff9f"
)
# Counting patterns match RUNS ("+"): _count() then costs one match per run, not per char.
_CJK_RE = re.compile(f"[{_CJK_CLASS}]+")
_JAMO_RE = re.compile("[\u3131-\u318e]+")
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN_SPACE_HAN_RE = re.compile(f"[{_HAN}] (?=[{_HAN}])")
_HANGUL_SYLLABLE_RE = re.compile("[\uac00-\ud7a3]")
_KANA_RE = re.compile("[\u3041-\u30ff]+")


def _trigger_class() -> str:
    """A char class that every ``BADNESS_RE`` match contains at least one member of.

    One required class per alternative of ftfy 6.x's pattern (checked against whole-text
    ``findall`` in tests/unit/test_mojibake.py): the categories c1, bad, upper_accented, box,
    start/end punctuation, currency, numeric, law, and the literal chars that start or anchor
    the other alternatives. Lower-case accented Latin and the Cyrillic "common" letters are
    left out on purpose: every alternative that has them also needs one of these, and leaving
    them out is what makes French or Russian text cheap.
    """
    categories = ("c1", "bad", "upper_accented", "box", "start_punctuation",
                  "end_punctuation", "currency", "numeric", "law")
    literals = "ŒœÂÃÎÐ×ØÙ²µ¹¼½¾√≈‚Ђ°€"
    return "".join(MOJIBAKE_CATEGORIES[name] for name in categories) + literals


_TRIGGER = _trigger_class()
# A cluster: triggers no more than 10 chars apart (their +-5 windows touch or overlap).
_TRIGGER_CLUSTER_RE = re.compile(f"[{_TRIGGER}](?:[^{_TRIGGER}]{{0,10}}[{_TRIGGER}])*")


def badness_count(text: str) -> int:
    """``len(ftfy.badness.BADNESS_RE.findall(text))``, scanning only windows around triggers.

    ftfy's whole-text scan costs ~230 ns a char; texts rarely hold triggers outside Latin
    scripts, so this is the same count for a fraction of the time.

    >>> badness_count("cafÃ© crÃ¨me") == len(BADNESS_RE.findall("cafÃ© crÃ¨me"))
    True
    """
    count = 0
    for cluster in _TRIGGER_CLUSTER_RE.finditer(text):
        start = max(0, cluster.start() - BADNESS_CONTEXT)
        count += len(BADNESS_RE.findall(text, start, cluster.end() + BADNESS_CONTEXT))
    return count


def _double_byte_rows(codec: str, leads: range, trails: range) -> set[str]:
    """Every char a double-byte codec maps from lead x trail bytes (invalid pairs skipped)."""
    chars: set[str] = set()
    for lead in leads:
        for trail in trails:
            try:
                chars.add(bytes((lead, trail)).decode(codec))
            except UnicodeDecodeError:
                continue
    return chars


def _char_class(chars: set[str]) -> str:
    """A regex character class body covering ``chars`` as ranges."""
    codes = sorted(ord(char) for char in chars)
    parts: list[str] = []
    start = prev = codes[0]
    for code in codes[1:] + [-1]:
        if code == prev + 1:
            prev = code
            continue
        parts.append(f"\\U{start:08x}" if start == prev else f"\\U{start:08x}-\\U{prev:08x}")
        start = prev = code
    return "".join(parts)


@functools.cache
def _rare_cjk_re() -> re.Pattern[str]:
    """Chars in the CJK class that none of the four national frequent sets contains.

    Built from the codecs themselves (no data file): GB2312 rows 16-55 (level 1, 3755 Hanzi),
    Big5 0xA440-0xC67E (5401 frequent Hanzi), EUC-JP rows 16-47 (JIS X 0208 level 1),
    EUC-KR rows 16-40 (KS X 1001's 2350 Hangul), plus all kana. Compiled on first use (~0.3 s
    once per process, and only for processes that meet CJK text).
    """
    frequent = _double_byte_rows("gb2312", range(0xB0, 0xD8), range(0xA1, 0xFF))
    frequent |= _double_byte_rows("big5", range(0xA4, 0xC7), range(0x40, 0x7F))
    frequent |= _double_byte_rows("big5", range(0xA4, 0xC6), range(0xA1, 0xFF))
    frequent |= _double_byte_rows("euc_jp", range(0xB0, 0xD0), range(0xA1, 0xFF))
    frequent |= _double_byte_rows("euc_kr", range(0xB0, 0xC9), range(0xA1, 0xFF))
    frequent |= {chr(code) for code in range(0x3040, 0x3100)}
    frequent |= set(CANTONESE_CHARS)
    cjk = set()
    for start, end in re.findall("(.)-(.)", _CJK_CLASS):
        cjk |= {chr(code) for code in range(ord(start), ord(end) + 1)}
    return re.compile(f"[{_char_class(cjk - frequent)}]+")


@functools.cache
def _simplified_only_re() -> re.Pattern[str]:
    """GB2312 Hanzi that neither JIS X 0208 nor Big5 has: simplified forms no Japanese text
    uses, so beside kana they mean EUC-JP read as GBK (kana rows coincide in both)."""
    gb2312 = _double_byte_rows("gb2312", range(0xB0, 0xF8), range(0xA1, 0xFF))
    jis = _double_byte_rows("euc_jp", range(0xB0, 0xF5), range(0xA1, 0xFF))
    big5 = _double_byte_rows("big5", range(0xA4, 0xFA), range(0x40, 0x7F))
    big5 |= _double_byte_rows("big5", range(0xA4, 0xFA), range(0xA1, 0xFF))
    return re.compile(f"[{_char_class(gb2312 - jis - big5)}]+")


def _count(runs: re.Pattern[str], text: str) -> int:
    """How many chars of ``text`` the run pattern ``runs`` covers."""
    return len(text) - len(runs.sub("", text))


# --- Per-char class flags: one table lookup per char instead of one regex pass per class -----
#
# Each bit of a flag table says whether a code point is in one of the character classes above.
# The tables are built by running those very patterns over every BMP code point (every class
# here is BMP-only), so a bit is set exactly when the pattern matches that char; counting the
# bits over a text gives what ``_count`` (and ``search``/``findall``) give. The bits are the
# scanner's (``_mojibake.c``).
F_CJK, F_JAMO, F_HAN, F_KANA, F_HANGUL, F_TRIGGER, F_SOUP = 1, 2, 4, 8, 16, 32, 64
F_RARE, F_SIMPLIFIED = 1, 2  # in the second table
_BMP = 0x10000
_SPACE = 0x20


def _flag_table(patterns: tuple[tuple[re.Pattern[str], int], ...]) -> np.ndarray:
    """A uint8 table over the BMP: the bits of the patterns matching each char."""
    table = np.zeros(_BMP, np.uint8)
    every_bmp_char = "".join(map(chr, range(_BMP)))
    for pattern, bit in patterns:
        for run in pattern.finditer(every_bmp_char):
            table[run.start() : run.end()] |= bit
    return table


@functools.cache
def base_flags() -> np.ndarray:
    """The base table (CJK, jamo, Han, kana, Hangul, trigger, soup letters) from the patterns."""
    return _flag_table((
        (_CJK_RE, F_CJK),
        (_JAMO_RE, F_JAMO),
        (re.compile(f"[{_HAN}]+"), F_HAN),
        (_KANA_RE, F_KANA),
        (re.compile("[\uac00-\ud7a3]+"), F_HANGUL),  # _HANGUL_SYLLABLE_RE's class
        (re.compile(f"[{_TRIGGER}]+"), F_TRIGGER),  # _TRIGGER_CLUSTER_RE's class
        (_SOUP_RE_CHARS, F_SOUP),
    ))


@functools.cache
def rare_flags() -> np.ndarray:
    """The rare table (rare CJK, simplified-only Hanzi) from the patterns (the codecs' tables)."""
    return _flag_table(((_rare_cjk_re(), F_RARE), (_simplified_only_re(), F_SIMPLIFIED)))


def code_points(text: str) -> np.ndarray:
    """The code points of ``text`` (lone surrogates included) as a uint32 array."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)


def _flags(table: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``table``'s flags of ``codes`` (0 outside the BMP: every class is BMP-only)."""
    inside = codes < _BMP
    return np.where(inside, table[np.where(inside, codes, 0)], 0).astype(np.uint8)


def cjk_share(text: str) -> float:
    """Share of CJK chars that look like a wrong CJK decode (0.0 below MIN_CJK_CHARS), from
    the tables. Each count equals its regex's: ``_count(_CJK_RE, text)`` etc.,
    ``_HANGUL_SYLLABLE_RE.search``, and ``len(_HAN_SPACE_HAN_RE.findall(text))`` (a match is a
    Han char, a space, a Han char after it; two matches can never overlap, since the char after
    a match's Han is a space)."""
    codes = code_points(text)
    flags = _flags(base_flags(), codes)
    cjk = int(np.count_nonzero(flags & F_CJK))
    if cjk < MIN_CJK_CHARS:
        return 0.0
    rare = _flags(rare_flags(), codes)
    spaces = codes[1:-1] == _SPACE
    han = (flags & F_HAN) != 0
    return _cjk_share_of(
        cjk=cjk,
        rare=int(np.count_nonzero(rare & F_RARE)),
        jamo=int(np.count_nonzero(flags & F_JAMO)),
        hangul=int(np.count_nonzero(flags & F_HANGUL)),
        han_space=int(np.count_nonzero(han[:-2] & spaces & han[2:])),
        simplified=int(np.count_nonzero(rare & F_SIMPLIFIED)),
        kana=int(np.count_nonzero(flags & F_KANA)),
    )


def cjk_share_by_regex(text: str) -> float:
    """The CJK share written with one regex pass per class (the definition)."""
    cjk = _count(_CJK_RE, text)
    if cjk < MIN_CJK_CHARS:
        return 0.0
    suspicious = _count(_rare_cjk_re(), text)
    jamo = _count(_JAMO_RE, text)
    if jamo and _HANGUL_SYLLABLE_RE.search(text):
        suspicious += jamo
    han_space = len(_HAN_SPACE_HAN_RE.findall(text))
    if han_space >= HAN_SPACE_MIN_SHARE * cjk:
        suspicious += han_space
    simplified_only = _count(_simplified_only_re(), text)
    if simplified_only and _count(_KANA_RE, text) >= 0.05 * cjk:
        suspicious += simplified_only
    return min(1.0, suspicious / cjk)


def shares(sample: str, check_cjk: bool) -> tuple[float, float, float]:
    """``(latin, soup, cjk)`` shares of a sample, as ``pipeline.encoding.mojibake._shares``
    gives them from the scanner: ftfy's badness over trigger windows, soup runs of 2+
    distinct letters, the CJK share."""
    non_ascii = len(sample) - len(sample.encode("ascii", "ignore"))
    if not non_ascii:
        return 0.0, 0.0, 0.0
    latin = badness_count(sample) / non_ascii
    soup = sum(len(run) for run in _SOUP_RE.findall(sample) if len(set(run)) > 1) / non_ascii
    cjk = cjk_share(sample) if check_cjk else 0.0
    return latin, soup, cjk
