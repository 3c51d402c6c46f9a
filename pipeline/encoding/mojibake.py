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
from collections.abc import Callable
from pathlib import Path

from pipeline.native import mojibake as scanner

#: A record is flagged as mojibake when its score is above this. On the chardet corpus the
#: right decodes of non-ASCII pages score at most 0.016 (but for one CP932 character-table
#: dump, 1.0) and the lowest wrong decode scores 0.092 (Shift_JIS read as windows-1252), so
#: 0.06 sits between them.
MOJIBAKE_THRESHOLD = 0.06

#: Korean spaces its words, Chinese and Japanese do not: Han-space-Han pairs per CJK char are
#: 0.22-0.26 in EUC-KR pages read as GBK/Big5/EUC-JP, at most 0.063 in right Chinese decodes.
HAN_SPACE_MIN_SHARE = 0.12

#: The badness, letter-soup and CJK shares are ratios, estimated on at most this many chars
#: taken as SAMPLE_SLICES evenly spaced slices: a page read with the wrong encoding is wrong
#: all over, and each regex pass costs 4-15 ns a char. (NUL and ISO-2022 look at all of it.)
SAMPLE_CHARS = 16_384
SAMPLE_SLICES = 4

#: The CJK share is computed only with at least this many CJK chars: a ratio over a handful of
#: names or a single quoted word says nothing.
MIN_CJK_CHARS = 20

# ISO-2022-JP/KR/CN designations: what an ISO-2022 page shows when read as ASCII.
_ISO2022_RE = re.compile("\x1b(?:\\$[@AB]|\\$\\)[ACG]|\\([BJ]|\\$\\([CD])")
#: Context kept on each side of a trigger cluster for ftfy's badness regex: its longest
#: pattern is 6 chars.
BADNESS_CONTEXT = 5
#: Per code point of the BMP (every class is BMP-only), the bits of the character classes the
#: scanner counts (``_mojibake.c``): ``base`` for CJK, jamo, Han, kana, Hangul, ftfy's trigger
#: characters and Latin-1 letters, ``rare`` for the rare-CJK and simplified-only sets.
#: ``scripts/gen_mojibake_flags.py`` builds them from the classes' definitions
#: (``tests/oracles/mojibake.py``), and ``tests/unit/test_mojibake.py`` checks the file is
#: current.
FLAGS_FILE = Path(__file__).with_name("mojibake_flags.npz")


@functools.cache
def _badness_findall() -> Callable[[str, int, int], list[str]]:
    """``findall`` of ftfy's badness expression (ftfy is imported when a text first has
    non-ASCII characters: ~50 ms)."""
    from ftfy.badness import BADNESS_RE

    return BADNESS_RE.findall


@functools.cache
def _bmp_tables() -> tuple[bytes, bytes]:
    """The base and rare flag tables (65,536 bytes each), as the scanner takes them."""
    import numpy as np

    with np.load(FLAGS_FILE) as stored:
        return stored["base"].tobytes(), stored["rare"].tobytes()


def _cjk_share_of(*, cjk: int, rare: int, jamo: int, hangul: int, han_space: int,
                  simplified: int, kana: int) -> float:
    """The share of CJK chars that look like a wrong CJK decode, from the scanner's counts
    (0.0 below ``MIN_CJK_CHARS``): rare chars, plus jamo beside Hangul syllables,
    Han-space-Han pairs when frequent, simplified-only Hanzi beside kana."""
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
    shares = _shares(sample, check_cjk)
    return min(1.0, max(score, *shares))


def _shares(sample: str, check_cjk: bool) -> tuple[float, float, float]:
    """``(latin, soup, cjk)`` shares of a non-ASCII sample: the character-class counts from
    one pass in C (``_mojibake.c``); ftfy's badness regex runs on the trigger clusters the
    pass found (a cluster: trigger chars no more than 10 chars apart, ``BADNESS_CONTEXT``
    kept on each side)."""
    (non_ascii, cjk, jamo, hangul, kana, soup_len, han_space, rare, simplified,
     clusters) = scanner.scan(sample, *_bmp_tables())
    if not non_ascii:
        return 0.0, 0.0, 0.0
    findall = _badness_findall()
    latin = sum(len(findall(sample, max(0, start - BADNESS_CONTEXT), end + BADNESS_CONTEXT))
                for start, end in clusters) / non_ascii
    share = 0.0
    if check_cjk:
        share = _cjk_share_of(cjk=cjk, rare=rare, jamo=jamo, hangul=hangul, han_space=han_space,
                              simplified=simplified, kana=kana)
    return latin, soup_len / non_ascii, share


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
