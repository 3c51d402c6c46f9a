"""Mojibake signals per record: does decoded text look like it was decoded with the wrong
encoding, and would a naive ``requests``-style decode have garbled it?

``mojibake_score(text)`` is the largest of five shares, each in [0, 1]:

- ``latin``: ftfy's badness heuristic (``ftfy.badness``: sequences that occur in UTF-8
  read as a single-byte encoding, "Ã©", "â€™", C1 controls) — matches per non-ASCII char;
- ``soup``: non-ASCII chars in runs of 3+ Latin-1 letters of 2+ distinct letters ("Ïðèâåò"):
  Cyrillic, Greek, Hebrew, Arabic, Thai, ... read as windows-1252 / ISO-8859-1 (no Latin
  language writes 3 accented letters in a row; "óóóó" is emphasis, so it needs 2 distinct);
- ``nul``: NUL share (UTF-16 read as an 8-bit encoding puts a NUL beside every ASCII char);
- ``iso2022``: undecoded ISO-2022 escape sequences (ESC $ B, ESC ( B, ...) left in the text;
- ``cjk``: CJK read as the wrong CJK encoding — share of Han/Hangul/kana chars that are rare
  (outside the frequent sets GB2312 level 1, Big5 frequent, JIS X 0208 level 1, KS X 1001
  Hangul; half-width katakana; private use), plus Hangul compatibility jamo beside syllables
  (EUC-JP kana read as EUC-KR), Han chars split by single spaces (Korean, which spaces
  words, read as a Chinese/Japanese encoding) and simplified-only Hanzi beside kana (EUC-JP
  read as GBK).

A record is *flagged* when ``mojibake_score(text) > MOJIBAKE_THRESHOLD`` (``is_mojibake``);
that constant is the one place the threshold lives (``sql/views.sql`` is generated from it).

``naive_decode_garbled(body, content_type, correct_text)`` mimics ``requests``:
``get_encoding_from_headers`` (header charset, else ISO-8859-1 for any content type containing
"text", UTF-8 for application/json, else charset detection) then ``str(body, enc, "replace")``
with a UTF-8 fallback on unknown codecs — and says whether that text differs from the correct
decode. Deviations from requests (each marked ``DEVIATION:`` and tested):

- detection (no usable header) is always charset_normalizer's, never chardet's;
- where requests raises instead of returning text, the answer is True;
- a leading U+FEFF kept by Python's "utf-8" codec is not a difference.

Measured on ``../shared/corpus/chardet`` (tests/conformance/test_mojibake_validation.py):
wrong decodes flagged 580 of 580, right decodes 1 of 387 (a CP932 character-table dump);
CJK read as another CJK encoding 94.5%. docs/audit.md has the numbers and the commands.
"""

from __future__ import annotations

import codecs
import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ftfy.badness import BADNESS_RE, MOJIBAKE_CATEGORIES

try:
    from pipeline.encoding import _mojibake as _compiled  # type: ignore[attr-defined]
except ImportError:  # built without a compiler: numpy and the regexes
    _compiled = None

if TYPE_CHECKING:
    import numpy as np

#: A record is flagged as mojibake when its score is above this. On the chardet corpus the
#: right decodes of non-ASCII pages score at most 0.016 (but for one CP932 character-table
#: dump, 1.0) and the lowest wrong decode scores 0.092 (Shift_JIS read as windows-1252), so
#: 0.06 sits between them.
MOJIBAKE_THRESHOLD = 0.06

#: Korean spaces its words, Chinese and Japanese do not: Han-space-Han pairs per CJK char are
#: 0.22-0.26 in EUC-KR pages read as GBK/Big5/EUC-JP, at most 0.063 in right Chinese decodes.
HAN_SPACE_MIN_SHARE = 0.12

#: Written Cantonese particles: outside the frequent sets but common in Hong Kong pages.
CANTONESE_CHARS = "冇咁嗰佢睇嘅咗喺啲乜嘢啱噉哋嚟俾攞揾搵諗冧"

#: The badness, letter-soup and CJK shares are ratios, estimated on at most this many chars
#: taken as SAMPLE_SLICES evenly spaced slices: a page read with the wrong encoding is wrong
#: all over, and each regex pass costs 4-15 ns a char. (NUL and ISO-2022 look at all of it.)
SAMPLE_CHARS = 16_384
SAMPLE_SLICES = 4

#: The CJK share is computed only with at least this many CJK chars: a ratio over a handful of
#: names or a single quoted word says nothing.
MIN_CJK_CHARS = 20

# Runs of 3+ Latin-1 Supplement letters (U+00C0-U+00FF without × and ÷).
_SOUP_RE = re.compile("[\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff]{3,}")
_SOUP_RE_CHARS = re.compile("[\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff]+")
# ISO-2022-JP/KR/CN designations: what an ISO-2022 page shows when read as ASCII.
_ISO2022_RE = re.compile("\x1b(?:\\$[@AB]|\\$\\)[ACG]|\\([BJ]|\\$\\([CD])")
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
#: Context kept on each side of a trigger cluster: ftfy's longest pattern is 6 chars.
BADNESS_CONTEXT = 5


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
# bits over a text gives what ``_count`` (and ``search``/``findall``) give, at ~1-2 ns a char
# where each regex pass costs 10-20 ns (numpy: a dependency of py3langid).
_F_CJK, _F_JAMO, _F_HAN, _F_KANA, _F_HANGUL, _F_TRIGGER, _F_SOUP = 1, 2, 4, 8, 16, 32, 64
_F_RARE, _F_SIMPLIFIED = 1, 2  # in the second, lazily built table
_BMP = 0x10000
_SPACE = 0x20


def _flag_table(patterns: tuple[tuple[re.Pattern[str], int], ...]) -> np.ndarray:
    """A uint8 table over all code points: the bits of the patterns matching each char."""
    import numpy as np  # imported on first use: a py3langid dependency, slow to import

    table = np.zeros(0x110000, np.uint8)
    every_bmp_char = "".join(map(chr, range(_BMP)))
    for pattern, bit in patterns:
        for run in pattern.finditer(every_bmp_char):
            table[run.start() : run.end()] |= bit
    return table


#: The flag tables as built by ``scripts/gen_mojibake_flags.py`` (BMP entries; the classes
#: are BMP-only): building them costs ~0.5 s per process, loading 2 ms.
#: ``tests/unit/test_mojibake.py`` rebuilds them and checks the file is current.
FLAGS_FILE = Path(__file__).with_name("mojibake_flags.npz")


def _stored_flags(name: str) -> np.ndarray | None:
    import numpy as np

    try:
        with np.load(FLAGS_FILE) as stored:
            bmp = stored[name]
    except (OSError, KeyError, ValueError):
        return None  # built below instead
    table = np.zeros(0x110000, np.uint8)
    table[: len(bmp)] = bmp
    return table


@functools.cache
def _base_flags() -> np.ndarray:
    """Flags of the cheap classes (stored; ~30 ms to build)."""
    stored = _stored_flags("base")
    return stored if stored is not None else build_base_flags()


def build_base_flags() -> np.ndarray:
    """:func:`_base_flags` built from the patterns."""
    return _flag_table((
        (_CJK_RE, _F_CJK),
        (_JAMO_RE, _F_JAMO),
        (re.compile(f"[{_HAN}]+"), _F_HAN),
        (_KANA_RE, _F_KANA),
        (re.compile("[\uac00-\ud7a3]+"), _F_HANGUL),  # _HANGUL_SYLLABLE_RE's class
        (re.compile(f"[{_TRIGGER}]+"), _F_TRIGGER),  # _TRIGGER_CLUSTER_RE's class
        (_SOUP_RE_CHARS, _F_SOUP),
    ))


@functools.cache
def _rare_flags() -> np.ndarray:
    """Flags of the rare-CJK and simplified-only classes (stored; ~0.4 s to build)."""
    stored = _stored_flags("rare")
    return stored if stored is not None else build_rare_flags()


def build_rare_flags() -> np.ndarray:
    """:func:`_rare_flags` built from the patterns (the codecs' tables)."""
    return _flag_table(((_rare_cjk_re(), _F_RARE), (_simplified_only_re(), _F_SIMPLIFIED)))


def _code_points(text: str) -> np.ndarray:
    """The code points of ``text`` (lone surrogates included) as a uint32 array."""
    import numpy as np  # imported on first use: a py3langid dependency, slow to import

    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)


def _cjk_share(text: str, codes: np.ndarray | None = None, flags: np.ndarray | None = None) -> float:
    """Share of CJK chars that look like a wrong CJK decode (0.0 below MIN_CJK_CHARS).

    ``codes``/``flags`` are ``text``'s code points and base flags when the caller has them.
    Each count equals its regex's: ``_count(_CJK_RE, text)`` etc., ``_HANGUL_SYLLABLE_RE.search``,
    and ``len(_HAN_SPACE_HAN_RE.findall(text))`` (a match is a Han char, a space, a Han char
    after it; two matches can never overlap, since the char after a match's Han is a space).
    """
    import numpy as np

    if codes is None:
        codes = _code_points(text)
    if flags is None:
        flags = _base_flags()[codes]
    cjk = int(np.count_nonzero(flags & _F_CJK))
    if cjk < MIN_CJK_CHARS:
        return 0.0
    rare = _rare_flags()[codes]
    # Han-space-Han triples: at most one per space, so count them only when they could matter.
    spaces = codes[1:-1] == _SPACE
    han_space = 0
    if int(np.count_nonzero(spaces)) >= HAN_SPACE_MIN_SHARE * cjk:
        han = (flags & _F_HAN) != 0
        han_space = int(np.count_nonzero(han[:-2] & spaces & han[2:]))
    return _cjk_share_of(
        cjk=cjk,
        rare=int(np.count_nonzero(rare & _F_RARE)),
        jamo=int(np.count_nonzero(flags & _F_JAMO)),
        hangul=int(np.count_nonzero(flags & _F_HANGUL)),
        han_space=han_space,
        simplified=int(np.count_nonzero(rare & _F_SIMPLIFIED)),
        kana=int(np.count_nonzero(flags & _F_KANA)),
    )


def _cjk_share_of(*, cjk: int, rare: int, jamo: int, hangul: int, han_space: int,
                  simplified: int, kana: int) -> float:
    """The CJK share from its counts (see :func:`_cjk_share`)."""
    if cjk < MIN_CJK_CHARS:
        return 0.0
    suspicious = rare
    if jamo and hangul:  # Hangul compatibility jamo beside syllables: EUC-JP kana read as EUC-KR
        suspicious += jamo
    if han_space >= HAN_SPACE_MIN_SHARE * cjk:  # a spaced language read as Chinese/Japanese
        suspicious += han_space
    if simplified and kana >= 0.05 * cjk:  # simplified-only Hanzi beside kana: EUC-JP read as GBK
        suspicious += simplified
    return min(1.0, suspicious / cjk)


def _sample(text: str) -> str:
    """``text`` itself, or SAMPLE_SLICES evenly spaced slices of it joined by newlines."""
    if len(text) <= SAMPLE_CHARS:
        return text
    size = SAMPLE_CHARS // SAMPLE_SLICES
    step = (len(text) - size) // (SAMPLE_SLICES - 1)
    return "\n".join(text[index * step : index * step + size] for index in range(SAMPLE_SLICES))


#: Encodings whose decoders can turn another CJK encoding's bytes into plausible CJK text.
CJK_DECODERS = frozenset(
    {"Shift_JIS", "EUC-JP", "ISO-2022-JP", "GBK", "gb18030", "Big5", "EUC-KR"}
)


def mojibake_score(text: str, encoding: str | None = None, *, utf8: bytes | None = None) -> float:
    """How much ``text`` looks like bytes decoded with the wrong encoding, in [0, 1].

    ``encoding`` (the WHATWG name ``text`` was decoded with) is a hint: the "CJK read as
    another CJK encoding" check, the costliest, only runs for CJK decoders (or when unknown);
    a UTF-8 or single-byte decoder cannot produce that kind of mojibake. ``utf8`` is
    ``text`` encoded as UTF-8 when the caller has it (``Decoded.utf8``): the NUL check reads
    it instead, with the C library's ``memchr`` (in a text of 2- or 4-byte characters,
    CPython looks for U+0000 one character at a time: ~20 µs in 70,000 characters).

    Flag with ``is_mojibake`` (score > ``MOJIBAKE_THRESHOLD``). Pure ASCII text can only
    carry the NUL and ISO-2022 signals, so it costs two substring searches.

    >>> mojibake_score("plain ASCII")
    0.0
    >>> mojibake_score("café crème brûlée")
    0.0
    >>> mojibake_score("cafÃ© crÃ¨me brÃ»lÃ©e") > MOJIBAKE_THRESHOLD
    True
    >>> mojibake_score("Ïðèâåò, ìèð") > MOJIBAKE_THRESHOLD
    True
    """
    length = len(text)
    if not length:
        return 0.0
    score = 0.0
    if utf8 is not None:  # (a 0x00 byte in UTF-8 is U+0000 and nothing else)
        if b"\x00" in utf8:
            score = utf8.count(b"\x00") / length
    elif "\x00" in text:
        score = text.count("\x00") / length
    if "\x1b" in text and len(_ISO2022_RE.findall(text)) >= 2:
        return 1.0
    if text.isascii():
        return score
    sample = _sample(text)
    check_cjk = encoding is None or encoding in CJK_DECODERS
    shares = _shares_compiled(sample, check_cjk) if _compiled is not None else _shares(sample, check_cjk)
    return min(1.0, max(score, *shares))


def _shares(sample: str, check_cjk: bool) -> tuple[float, float, float]:
    """``(latin, soup, cjk)`` shares of a non-ASCII sample: the reference (numpy, regexes)."""
    non_ascii = len(sample) - len(sample.encode("ascii", "ignore"))
    if not non_ascii:
        return 0.0, 0.0, 0.0
    import numpy as np

    codes = _code_points(sample)
    flags = _base_flags()[codes]
    # Every badness match holds a trigger char, and a soup run 3 letters: without them, 0.
    latin = badness_count(sample) / non_ascii if np.any(flags & _F_TRIGGER) else 0.0
    soup = 0.0
    if np.count_nonzero(flags & _F_SOUP) >= 3:
        soup = sum(len(run) for run in _SOUP_RE.findall(sample) if len(set(run)) > 1) / non_ascii
    cjk = _cjk_share(sample, codes, flags) if check_cjk else 0.0
    return latin, soup, cjk


def _shares_compiled(sample: str, check_cjk: bool) -> tuple[float, float, float]:
    """:func:`_shares` with the character-class counts from one pass in C (``_mojibake.c``);
    ftfy's badness regex still runs, on the trigger clusters the pass found."""
    (non_ascii, cjk, jamo, hangul, kana, soup_len, han_space, rare, simplified,
     clusters) = _compiled.scan(sample, *_bmp_tables())
    if not non_ascii:
        return 0.0, 0.0, 0.0
    findall = BADNESS_RE.findall
    latin = sum(len(findall(sample, max(0, start - BADNESS_CONTEXT), end + BADNESS_CONTEXT))
                for start, end in clusters) / non_ascii
    share = 0.0
    if check_cjk:
        share = _cjk_share_of(cjk=cjk, rare=rare, jamo=jamo, hangul=hangul, han_space=han_space,
                              simplified=simplified, kana=kana)
    return latin, soup_len / non_ascii, share


@functools.cache
def _bmp_tables() -> tuple[bytes, bytes]:
    """The base and rare flag tables' BMP entries, as the C scanner takes them."""
    return _base_flags()[:_BMP].tobytes(), _rare_flags()[:_BMP].tobytes()


def is_mojibake(score: float | None) -> bool:
    """Whether a ``mojibake_score`` counts as flagged (the one threshold, in one place).

    >>> is_mojibake(0.5), is_mojibake(0.0), is_mojibake(None)
    (True, False, False)
    """
    return score is not None and score > MOJIBAKE_THRESHOLD


# --- what requests' Response.text would have shown -------------------------------------------

_QUOTES_AND_SPACE = "\"' "
_RequestsFailed = object()


def requests_encoding_from_content_type(content_type: str | None) -> str | None | object:
    """Mimic ``requests.utils.get_encoding_from_headers`` on one Content-Type value.

    Returns the codec label requests would use, ``None`` when requests falls back to
    charset detection (``apparent_encoding``), or ``_RequestsFailed`` where requests itself
    raises (a bare ``charset`` parameter without "=" makes it call ``True.strip``).

    >>> requests_encoding_from_content_type("text/html")
    'ISO-8859-1'
    >>> requests_encoding_from_content_type('text/html; Charset="utf-8"')
    'utf-8'
    >>> requests_encoding_from_content_type("application/json")
    'utf-8'
    >>> requests_encoding_from_content_type("TEXT/HTML") is None  # "text" test is case-sensitive
    True
    """
    if not content_type:
        return None
    # _parse_content_type_header: split on ";", strip, keys lowercased, values stripped of "' .
    tokens = content_type.split(";")
    media_type = tokens[0].strip()
    params: dict[str, str | bool] = {}
    for raw in tokens[1:]:
        param = raw.strip()
        if not param:
            continue
        key: str = param
        value: str | bool = True
        equals = param.find("=")
        if equals != -1:
            key = param[:equals].strip(_QUOTES_AND_SPACE)
            value = param[equals + 1 :].strip(_QUOTES_AND_SPACE)
        params[key.lower()] = value
    if "charset" in params:
        charset = params["charset"]
        if not isinstance(charset, str):
            return _RequestsFailed
        return charset.strip("'\"")
    if "text" in media_type:
        return "ISO-8859-1"
    if "application/json" in media_type:
        return "utf-8"
    return None


def _requests_text(body: bytes, encoding: str | None | object) -> str | None:
    """``requests.Response.text`` for ``body`` whose headers give ``encoding``
    (:func:`requests_encoding_from_content_type`); None where requests raises instead."""
    if not body:
        return ""
    if encoding is _RequestsFailed:
        return None
    if encoding is None:
        # apparent_encoding: charset detection. Pure ASCII is detected as "ascii" by every
        # detector, so it needs none.
        # DEVIATION: always charset_normalizer — requests prefers chardet when installed;
        # charset_normalizer is its declared dependency, so what a fresh install does.
        if body.isascii():
            encoding = "ascii"
        else:
            import charset_normalizer

            encoding = charset_normalizer.detect(body)["encoding"]
    try:
        return str(body, str(encoding), errors="replace")
    except (LookupError, TypeError):
        # requests: "So we try blindly encoding." — str(content, errors="replace") is UTF-8.
        return str(body, errors="replace")
    except Exception:  # e.g. ValueError for a label with NUL: requests raises too
        return None


def naive_decode_garbled(body: bytes, content_type: str | None, correct_text: str, *,
                         utf8: bytes | None = None) -> bool:
    """Would ``requests``' ``.text`` have given different text from ``correct_text``?

    ``content_type`` is the HTTP Content-Type header value as received (None when absent).
    A leading U+FEFF that requests keeps (Python's "utf-8" codec does not strip the BOM)
    is not counted as a difference. Where requests raises instead of returning text, the
    answer is True: the naive pipeline did not get the text. Never raises.

    ``utf8`` is ``correct_text`` as UTF-8 when the caller has it (``Decoded.utf8``): when it
    is the whole body and requests would decode with Python's UTF-8 codec, requests' text is
    ``correct_text`` and the body is not decoded again.

    >>> naive_decode_garbled("café".encode(), "text/html", "café")
    True
    >>> naive_decode_garbled("café".encode(), "text/html; charset=utf-8", "café")
    False
    >>> naive_decode_garbled(b"plain", "text/html", "plain")
    False
    """
    try:
        label = requests_encoding_from_content_type(content_type)
        if isinstance(label, str):
            if body.isascii() and correct_text.isascii() and _ascii_compatible(label):
                # Any ASCII-compatible codec gives the bytes back; UTF-16/32 labels would not.
                return not _ascii_equal(body, correct_text)
            if utf8 is not None and len(utf8) == len(body) and _python_codec(label) == "utf-8":
                return False  # str(body, "utf-8", "replace") is the valid UTF-8 utf8 decoded
        naive = _requests_text(body, label)
        if naive is None:
            # DEVIATION: requests raises here (no text at all); counted as garbled, since
            # the naive pipeline did not get the page's text.
            return True
        if naive.startswith("\ufeff") and not correct_text.startswith("\ufeff"):
            # DEVIATION: a leading U+FEFF that Python's "utf-8" keeps is not counted as a
            # difference — invisible, and not what "garbled" means in the survey.
            naive = naive[1:]
        return naive != correct_text
    except Exception:  # never raise on bytes from the wild
        return True


def _ascii_equal(body: bytes, text: str, step: int = 2**20) -> bool:
    """``body.decode("ascii") == text`` for an ASCII ``body`` and ``text``, a slice at a time:
    a page of tens of MB is not copied whole."""
    return len(body) == len(text) and all(
        body[i:i + step].decode("ascii") == text[i:i + step] for i in range(0, len(body), step))


@functools.lru_cache(maxsize=256)
def _python_codec(label: str) -> str | None:
    """The name of Python's codec for ``label`` (None when it has none)."""
    try:
        return codecs.lookup(label).name
    except (LookupError, TypeError, ValueError):
        return None


@functools.lru_cache(maxsize=256)
def _ascii_compatible(label: str) -> bool:
    """Whether Python's codec for ``label`` decodes every ASCII byte to itself."""
    try:
        return str(bytes(range(128)), label) == "".join(map(chr, range(128)))
    except Exception:
        return False
