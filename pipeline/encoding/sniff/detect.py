"""Statistical detection of legacy encodings for pages that declare nothing.

The detector is chardetng (Firefox's detector, PyPI ``chardetng-py``): it only ever answers
encodings a browser can produce, it takes the URL's top-level domain as a hint for ambiguous
bytes, and its ``guess_assess`` flag says when the guess is weak. charset-normalizer (the
client's named package) is available as a second opinion, recorded as a signal only.
Measured on ``../shared/corpus/chardet`` (see ``docs/sniffing.md``).

Detection costs 20-100x a decode: callers run it only when nothing is declared, on at most
``max_bytes`` bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from pipeline.encoding.lookup import get_an_encoding

# chardetng-py reports some encodings by Python codec names instead of WHATWG names.
_CHARDETNG_NAMES = {"gb18030": "GBK", "cp874": "windows-874"}


@dataclass(frozen=True, slots=True)
class Guess:
    """A detector's answer: WHATWG encoding name, and whether the detector trusts it."""

    encoding: str
    confident: bool


def clean_tld(tld: str | None) -> bytes | None:
    """The TLD as chardetng wants it (lowercase ASCII, no dot), or None (= "com").

    >>> clean_tld("JP"), clean_tld("xn--p1ai"), clean_tld("рф"), clean_tld(None)
    (b'jp', b'xn--p1ai', None, None)
    """
    if not tld:
        return None
    tld = tld.lower()
    if not tld.isascii() or "." in tld or not tld.replace("-", "").isalnum():
        return None
    return tld.encode("ascii")


def chardetng_guess(body: bytes, tld: str | None, *, allow_utf8: bool, last: bool = True) -> Guess | None:
    """chardetng's guess for ``body`` with ``tld`` as a hint; None if the detector fails.

    ``last=False`` when ``body`` is a prefix cut from a longer document: a multi-byte
    character cut in two at the end must not count as an error (chardetng drops every
    encoding that meets one).

    >>> chardetng_guess("日本語のテキストです。これはテストです".encode("euc_jp") * 3, "jp", allow_utf8=False)
    Guess(encoding='EUC-JP', confident=True)
    """
    return chardetng_guesses(body, (tld,), allow_utf8=allow_utf8, last=last)[0]


def chardetng_guesses(
    body: bytes, tlds: tuple[str | None, ...], *, allow_utf8: bool, last: bool = True,
) -> tuple[Guess | None, ...]:
    """chardetng's guess for ``body`` under each TLD hint of ``tlds`` (None: no hint), from
    one pass over the bytes (feeding costs; guessing again is cheap).

    >>> body = "Příliš žluťoučký kůň úpěl ďábelské ódy".encode("iso8859_2")
    >>> [g.encoding for g in chardetng_guesses(body, ("cz", None), allow_utf8=False)]
    ['ISO-8859-2', 'ISO-8859-2']
    """
    try:
        from chardetng_py.detector import EncodingDetector

        detector = EncodingDetector()
        detector.feed(body, last=last)
        answers = [detector.guess_assess(tld=clean_tld(tld), allow_utf8=allow_utf8) for tld in tlds]
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # pyo3 panics derive from BaseException
        return tuple(None for _ in tlds)
    guesses = []
    for name, confident in answers:
        encoding = _CHARDETNG_NAMES.get(name) or get_an_encoding(name)
        guesses.append(None if encoding is None else Guess(encoding, bool(confident)))
    return tuple(guesses)


def charset_normalizer_guess(body: bytes) -> str | None:
    """charset-normalizer's best guess as a WHATWG encoding name (None: no guess / no label).

    >>> charset_normalizer_guess("Привет, как дела? Это тест кодировки.".encode("cp1251") * 3)
    'windows-1251'
    """
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(body).best()
    except Exception:
        return None
    if best is None:
        return None
    return _PYTHON_CODEC_NAMES.get(best.encoding) or get_an_encoding(best.encoding.replace("_", "-"))


# charset-normalizer answers Python codec names; the ones that are not WHATWG labels as written.
_PYTHON_CODEC_NAMES = {
    "cp1250": "windows-1250", "cp1251": "windows-1251", "cp1252": "windows-1252",
    "cp1253": "windows-1253", "cp1254": "windows-1254", "cp1255": "windows-1255",
    "cp1256": "windows-1256", "cp1257": "windows-1257", "cp1258": "windows-1258",
    "cp874": "windows-874", "cp866": "IBM866", "cp932": "Shift_JIS", "cp949": "EUC-KR",
    "shift_jis": "Shift_JIS", "euc_jp": "EUC-JP", "euc_kr": "EUC-KR", "big5": "Big5",
    "big5hkscs": "Big5", "gb2312": "GBK", "gbk": "GBK", "gb18030": "GBK",
    "iso2022_jp": "ISO-2022-JP", "koi8_r": "KOI8-R", "koi8_u": "KOI8-U", "mac_roman": "macintosh",
    "mac_cyrillic": "x-mac-cyrillic", "latin_1": "windows-1252", "ascii": "windows-1252",
    "utf_8": "UTF-8", "utf_16": "UTF-16LE", "utf_16_le": "UTF-16LE", "utf_16_be": "UTF-16BE",
    "tis_620": "windows-874", "euc_jis_2004": "EUC-JP", "euc_jisx0213": "EUC-JP",
    "shift_jis_2004": "Shift_JIS", "shift_jisx0213": "Shift_JIS", "cp950": "Big5",
    "cp1125": "IBM866",  # Ukrainian DOS: IBM866 but for a few letters
    **{f"iso8859_{i}": f"ISO-8859-{i}" for i in (2, 3, 4, 5, 6, 7, 8, 10, 13, 14, 15, 16)},
    "iso8859_9": "windows-1254", "iso8859_11": "windows-874",
}


# --- Beyond chardetng: what it cannot answer by design -------------------------------------

#: A BOM-less UTF-16 body: at least this share of the bytes at one parity are NUL...
UTF16_NUL_SHARE = 0.3
#: ...and at most this share at the other parity (runs of NULs are binary junk, not UTF-16).
UTF16_OTHER_PARITY_MAX = 0.05
_UTF16_SAMPLE = 4096

# ESC sequences that designate JIS X 0208 / JIS X 0201 in ISO-2022-JP.
_ISO_2022_JP_ESCAPES = (b"\x1b$B", b"\x1b$@", b"\x1b(J", b"\x1b(I")


def utf16_without_bom(body: bytes) -> str | None:
    """"UTF-16LE"/"UTF-16BE" when ``body`` looks like BOM-less UTF-16 (NUL at one parity).

    chardetng never answers UTF-16 (browsers only honour a BOM); the ``standard`` policy wants
    what the author meant.

    >>> utf16_without_bom("<html>hello</html>".encode("utf-16-le"))
    'UTF-16LE'
    >>> utf16_without_bom(b"\\x00" * 100 + b"a" + b"\\x00" * 100) is None
    True
    """
    sample = body[:_UTF16_SAMPLE]
    if len(sample) < 8:
        return None
    sample = sample[: len(sample) // 2 * 2]
    even, odd = sample[0::2], sample[1::2]
    even_nul, odd_nul = even.count(0) / len(even), odd.count(0) / len(odd)
    if odd_nul >= UTF16_NUL_SHARE and even_nul <= UTF16_OTHER_PARITY_MAX:
        candidate = "UTF-16LE"
    elif even_nul >= UTF16_NUL_SHARE and odd_nul <= UTF16_OTHER_PARITY_MAX:
        candidate = "UTF-16BE"
    else:
        return None
    try:
        sample.decode("utf-16-le" if candidate == "UTF-16LE" else "utf-16-be")
    except UnicodeDecodeError:
        return None
    return candidate


def has_iso_2022_jp_escapes(body: bytes) -> bool:
    """True when 7-bit ``body`` switches to JIS X 0208/0201 the ISO-2022-JP way.

    >>> has_iso_2022_jp_escapes("日本".encode("iso2022_jp"))
    True
    """
    return b"\x1b" in body and any(escape in body for escape in _ISO_2022_JP_ESCAPES)


_CYRILLIC = {"windows-1251", "KOI8-U", "KOI8-R", "IBM866", "ISO-8859-5"}
_USUAL = "".join(map(chr, range(0x410, 0x450))) + "ЁёІіЇїЄєҐґЎў«»“”„‘’–—…№\u00a0©®°±·•"
_UNUSUAL_RE = re.compile("[^\x00-\x7f" + re.escape(_USUAL) + "]")
_CASE_BREAK_RE = re.compile("[а-яё][А-ЯЁ]|[a-zA-Z][а-яА-ЯёЁ]|[а-яА-ЯёЁ][a-zA-Z]")
_CYRILLIC_LETTER_RE = re.compile("[а-яА-ЯёЁ]")
#: Switching a windows-1252 guess needs this many Cyrillic letters per oddity, at least.
MAC_CYRILLIC_LETTERS_PER_ODDITY = 50
MAC_CYRILLIC_MIN_LETTERS = 20


def _oddities(text: str) -> int:
    # Characters Russian/Ukrainian/Bulgarian text rarely has, plus a lowercase→uppercase
    # Cyrillic break inside a word, plus Latin glued to Cyrillic: the marks a wrong Cyrillic
    # code page leaves.
    return len(_UNUSUAL_RE.findall(text)) + len(_CASE_BREAK_RE.findall(text))


@lru_cache(maxsize=8)  # the standard and browser steps ask about the same sample
def refine_cyrillic(sample: bytes, guess: str) -> str:
    """x-mac-cyrillic instead of chardetng's guess when the Mac reading is clearly cleaner.

    chardetng has no x-mac-cyrillic (it shares most lowercase letters with windows-1251, so
    chardetng answers windows-1251, KOI8 or even windows-1252 for it). Compared: the oddities
    (:func:`_oddities`) of the two readings; a windows-1252 guess switches only when the Mac
    reading is nearly flawless Cyrillic, since Latin text read as Mac Cyrillic is also
    lowercase Cyrillic, but glued to Latin letters.

    >>> refine_cyrillic("Привет, Москва! Это Россия.".encode("mac_cyrillic") * 5, "windows-1251")
    'x-mac-cyrillic'
    >>> refine_cyrillic("Привет, Москва! Это Россия.".encode("cp1251") * 5, "windows-1251")
    'windows-1251'
    """
    if guess not in _CYRILLIC and guess != "windows-1252":
        return guess
    from pipeline.encoding.decoders import decode

    mac = decode(sample, "x-mac-cyrillic").text
    mac_odd = _oddities(mac)
    if guess == "windows-1252":
        letters = len(_CYRILLIC_LETTER_RE.findall(mac))
        if letters >= MAC_CYRILLIC_MIN_LETTERS and mac_odd * MAC_CYRILLIC_LETTERS_PER_ODDITY <= letters:
            return "x-mac-cyrillic"
        return guess
    return "x-mac-cyrillic" if mac_odd * 2 < _oddities(decode(sample, guess).text) else guess


#: Non-ASCII bytes fed to the detectors at most: the statistics settle long before, and
#: chardetng runs at ~4 MB/s on dense non-ASCII text (under 2 MB/s on GBK; over 100 MB/s
#: on ASCII). On the chardet corpus with declarations stripped (190 of its 428 files hold
#: more than 2,048 non-ASCII bytes), 8,192, 4,096 and 2,048 give the same decision and
#: browser emulation on every file. 2,048 non-ASCII bytes are ~1,000 CJK characters.
DETECTOR_MAX_NON_ASCII = 2048
#: The sample is cut at a multiple of this once it holds enough (4,096, 1,024, 512 and 256
#: give the same decisions on the chardet corpus; smaller feeds chardetng less on dense CJK).
_BLOCK = 512


def detector_sample(body: bytes, max_bytes: int, max_non_ascii: int = DETECTOR_MAX_NON_ASCII) -> bytes:
    """The prefix handed to the detectors: at most ``max_bytes`` bytes, cut once it holds
    ``max_non_ascii`` non-ASCII bytes (at a block boundary).

    >>> len(detector_sample(b"a" * 100_000, 65536))
    65536
    >>> len(detector_sample(b"\\xe9" * 100_000, 65536, 8192))
    8192
    """
    limit = min(len(body), max_bytes)
    seen = 0
    position = 0
    while position < limit:
        block = body[position : min(position + _BLOCK, limit)]
        seen += len(block.translate(None, _ASCII))
        position += len(block)
        if seen >= max_non_ascii:
            break
    return body[:position]


_ASCII = bytes(range(0x80))


def high_bytes(body: bytes) -> int:
    """The bytes 0x80-0xFF that occur in ``body``, as a mask (bit ``i``: byte ``0x80 + i``).

    >>> bin(high_bytes(b"a\\x80b\\x82\\x80"))
    '0b101'
    """
    import numpy as np

    present = np.bincount(np.frombuffer(body, dtype=np.uint8), minlength=256)[0x80:] > 0
    return int.from_bytes(np.packbits(present, bitorder="little").tobytes(), "little")
