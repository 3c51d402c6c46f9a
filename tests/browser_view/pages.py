"""Deterministic undeclared pages for the browser-view expectations (``cases.jsonl``).

A case is a recipe, not bytes: language, encoding, layout, target length and seed. The text
comes from ``../shared/corpus/chardet`` (each file decoded with its true encoding, tags
stripped, split into sentences) or from :mod:`.texts`; the ASCII around it is generated from
a word list and the seed. ``page_body(case)`` rebuilds the exact bytes Chromium was shown
(``cases.jsonl`` keeps their sha256 to prove it); ``scripts/browser_view.py`` wrote the
expectations from the oracle's answers.
"""

from __future__ import annotations

import hashlib
import html
import random
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from pipeline.encoding.sniff.tld_defaults import TLD_ENCODINGS
from tests.browser_view.texts import TEXTS

CHARDET = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "chardet"
#: The expectations: case id, sha256 prefix of the body, Chromium's verdict.
CASES = Path(__file__).with_name("cases.tsv")

#: language -> (chardet corpus folders, own text key or None, native TLD, legacy encodings)
LANGUAGES: dict[str, tuple[tuple[str, ...], str | None, str, tuple[str, ...]]] = {
    "ru": (("windows-1251-russian",), None, "ru",
           ("windows-1251", "KOI8-R", "IBM866", "ISO-8859-5", "x-mac-cyrillic", "KOI8-U")),
    "uk": ((), "uk", "ua", ("windows-1251", "KOI8-U", "x-mac-cyrillic")),
    "bg": (("windows-1251-bulgarian",), None, "bg", ("windows-1251", "ISO-8859-5")),
    "cs": (("windows-1250-czech", "iso-8859-2-czech"), None, "cz", ("windows-1250", "ISO-8859-2")),
    "sk": (("windows-1250-slovak", "iso-8859-2-slovak"), None, "sk", ("windows-1250", "ISO-8859-2")),
    "hu": (("iso-8859-2-hungarian", "windows-1250-hungarian"), None, "hu", ("windows-1250", "ISO-8859-2")),
    "pl": (("iso-8859-2-polish", "windows-1250-polish"), None, "pl", ("windows-1250", "ISO-8859-2")),
    "sl": (("iso-8859-2-slovene", "windows-1250-slovene"), None, "si", ("windows-1250", "ISO-8859-2")),
    "hr": (("iso-8859-2-croatian", "windows-1250-croatian"), None, "hr", ("windows-1250", "ISO-8859-2")),
    "ro": (("windows-1250-romanian",), "ro", "ro", ("windows-1250", "ISO-8859-2", "ISO-8859-16")),
    "de": (("windows-1252",), "de", "de", ("windows-1252", "ISO-8859-15", "macintosh")),
    "fr": ((), "fr", "fr", ("windows-1252", "ISO-8859-15", "macintosh")),
    "pt": (("iso-8859-1",), None, "pt", ("windows-1252", "ISO-8859-15")),
    "es": ((), "es", "es", ("windows-1252",)),
    "it": ((), "it", "it", ("windows-1252",)),
    "nl": ((), "nl", "nl", ("windows-1252",)),
    "sv": ((), "sv", "se", ("windows-1252",)),
    "da": ((), "da", "dk", ("windows-1252",)),
    "nb": ((), "nb", "no", ("windows-1252",)),
    "fi": ((), "fi", "fi", ("windows-1252", "ISO-8859-15")),
    "is": ((), "is", "is", ("windows-1252", "ISO-8859-10")),
    "lt": ((), "lt", "lt", ("windows-1257", "ISO-8859-13", "ISO-8859-4")),
    "lv": ((), "lv", "lv", ("windows-1257", "ISO-8859-13", "ISO-8859-4")),
    "et": ((), "et", "ee", ("windows-1257", "ISO-8859-13", "ISO-8859-15")),
    "el": (("iso-8859-7-greek",), None, "gr", ("windows-1253", "ISO-8859-7")),
    "tr": (("iso-8859-9-turkish", "windows-1254-turkish"), None, "tr", ("windows-1254", "ISO-8859-3")),
    "mt": ((), "mt", "mt", ("ISO-8859-3",)),
    "eo": ((), "eo", "org", ("ISO-8859-3",)),
    "cy": ((), "cy", "uk", ("ISO-8859-14",)),
    "he": (("windows-1255-hebrew",), None, "il", ("windows-1255", "ISO-8859-8")),
    "ar": (("iso-8859-6-arabic", "windows-1256-arabic"), "ar", "eg", ("windows-1256", "ISO-8859-6")),
    "fa": ((), "fa", "ir", ("windows-1256",)),
    "th": (("TIS-620",), None, "th", ("windows-874",)),
    "vi": ((), "vi", "vn", ("windows-1258",)),
    "ja": (("SHIFT_JIS", "EUC-JP"), None, "jp", ("Shift_JIS", "EUC-JP", "ISO-2022-JP")),
    "zh-Hans": (("GB2312",), None, "cn", ("GBK", "gb18030")),
    "zh-Hant": (("Big5",), None, "tw", ("Big5",)),
    "ko": (("EUC-KR",), None, "kr", ("EUC-KR",)),
}

#: 7-bit bodies: the escape family each variant exercises (the text language in brackets).
SEVEN_BIT = {
    "ascii": None,  # plain English
    "iso-2022-jp": "ja",  # ESC $ B ... ESC ( B
    "iso-2022-kr": "ko",  # ESC $ ) C header, SO/SI shifts
    "iso-2022-cn": "zh-Hans",  # ESC $ ) A header, SO/SI shifts
    "hz-gb-2312": "zh-Hans",  # ~{ ... ~}
    "utf-7": "ru",  # +BB4EMA-...
    "ansi-escapes": None,  # ESC [ 1 m terminal colours in English text
    "tilde-brace": None,  # "~{" in script text, not HZ
}

_CODECS = {
    "Shift_JIS": "cp932", "EUC-JP": "euc_jp", "ISO-2022-JP": "iso2022_jp", "GBK": "gbk",
    "gb18030": "gb18030", "Big5": "big5", "EUC-KR": "euc_kr", "KOI8-R": "koi8_r",
    "KOI8-U": "koi8_u", "IBM866": "cp866", "x-mac-cyrillic": "mac_cyrillic",
    "macintosh": "mac_roman", "UTF-8": "utf-8", "iso-2022-kr": "iso2022_kr",
    "hz-gb-2312": "hz", "utf-7": "utf-7", "iso-2022-jp": "iso2022_jp",
    **{f"windows-{n}": f"cp{n}" for n in (874, 1250, 1251, 1252, 1253, 1254, 1255, 1256, 1257, 1258)},
    **{f"ISO-8859-{n}": f"iso8859_{n}" for n in (2, 3, 4, 5, 6, 7, 8, 10, 13, 14, 15, 16)},
}

LAYOUTS: dict[str, tuple[int, ...]] = {
    # native text throughout
    "dense": (120, 300, 800, 2500, 10_000, 50_000, 200_000),
    # English page with a native sentence every few paragraphs
    "sparse": (600, 3000, 20_000, 120_000),
    # English page whose only native text is the title (2-30 characters; "char": 1-3)
    "title": (250, 1200, 6000),
}


@dataclass(frozen=True, slots=True)
class Recipe:
    """How to rebuild one body: text language, encoding, layout, target length, seed."""

    lang: str
    encoding: str
    layout: str
    length: int
    seed: int

    @property
    def body_id(self) -> str:
        return f"{self.lang}.{self.encoding}.{self.layout}.{self.length}.{self.seed}"


_WORDS = (
    "the of and to in is for on with that this from by are at news home page about contact "
    "more read latest search menu login archive share comments update story report world local "
    "sport weather market city people time year today week new best help terms privacy policy "
    "service online free video photo gallery events blog post author editor section next "
    "previous top subscribe newsletter follow social media follow copyright rights reserved"
).split()
_TAGS = re.compile(r"<(script|style)\b.*?</\1\s*>|<[^>]*>", re.S | re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")


def _clean(text: str) -> str:
    # twice: feeds carry their HTML escaped inside the XML
    text = _TAGS.sub(" ", html.unescape(_TAGS.sub(" ", text)))
    return re.sub(r"\s+", " ", text.replace("]]>", " ")).strip()


@cache
def sentences(lang: str) -> tuple[str, ...]:
    """The language's sentences that hold some non-ASCII text, in corpus order."""
    from pipeline.encoding.decoders import decode

    folders, own, _, _ = LANGUAGES[lang]
    texts = []
    manifest = _manifest()
    for folder in folders:
        for path in sorted((CHARDET / folder).iterdir()):
            truth = manifest.get(f"{folder}/{path.name}")
            if truth is None:
                continue
            texts.append(_clean(decode(path.read_bytes(), truth).text))
    # corpus text: only sentences with some non-ASCII (feeds hold URLs and markup residue);
    # the project's own prose: every sentence
    minimum = [2] * len(texts)
    if own is not None:
        texts.append(TEXTS[own])
        minimum.append(0)
    seen: set[str] = set()
    found = []
    for text, least in zip(texts, minimum, strict=True):
        for sentence in _SENTENCE_END.split(text):
            sentence = sentence.strip()
            if len(sentence) >= 8 and sum(ord(c) > 0x7F for c in sentence) >= least and sentence not in seen:
                seen.add(sentence)
                found.append(sentence[:400])
    assert found, f"no text for {lang}"
    return tuple(found)


@lru_cache(maxsize=1)
def _manifest() -> dict[str, str]:
    import csv

    with (CHARDET / "MANIFEST.tsv").open(encoding="utf-8", newline="") as handle:
        return {row["path"]: row["true_encoding"] for row in csv.DictReader(handle, delimiter="\t")
                if row["scope"] == "whatwg" and not row["true_encoding"].startswith("UTF-16")}


def encode(text: str, encoding: str) -> bytes:
    """``text`` in ``encoding``; characters it lacks become numeric character references."""
    codec = _CODECS[encoding]
    if codec == "cp1258":  # Vietnamese: precomposed letters are written base + tone mark
        out = bytearray()
        for char in text:
            try:
                out += char.encode(codec)
            except UnicodeEncodeError:
                out += unicodedata.normalize("NFD", char).encode(codec, errors="xmlcharrefreplace")
        return bytes(out)
    return text.encode(codec, errors="xmlcharrefreplace")


def _english(rng: random.Random, words: int) -> str:
    out = []
    for _ in range(words):
        out.append(rng.choice(_WORDS))
    text = " ".join(out)
    return text[:1].upper() + text[1:] + "."


def _filler(rng: random.Random) -> bytes:
    kind = rng.randrange(4)
    if kind == 0:
        items = "".join(f'<li><a href="/{rng.choice(_WORDS)}/{rng.randrange(999)}">{rng.choice(_WORDS)}</a></li>'
                        for _ in range(rng.randrange(3, 9)))
        return f"<ul class=\"nav\">{items}</ul>\n".encode("ascii")
    if kind == 1:
        return f"<script>var cfg = {{id: {rng.randrange(10**6)}, path: '/{rng.choice(_WORDS)}'}};</script>\n".encode("ascii")
    return f"<p>{_english(rng, rng.randrange(12, 60))}</p>\n".encode("ascii")


def _native(rng: random.Random, pool: tuple[str, ...], encoding: str, budget: int | None = None) -> bytes:
    sentence = pool[rng.randrange(len(pool))]
    if budget is None:
        return encode(sentence, encoding)
    out = b""
    for end in range(1, len(sentence) + 1):
        piece = encode(sentence[:end], encoding)
        if len(piece) > budget:
            break
        out = piece
    return out or encode(sentence[:1], encoding)


def page_body(recipe: Recipe) -> bytes:
    """The exact bytes of ``recipe``'s page (deterministic for a given corpus)."""
    rng = random.Random(recipe.body_id)
    lang, encoding = recipe.lang, recipe.encoding
    if lang == "7bit":
        return _seven_bit(recipe, rng)
    pool = sentences(lang)
    if recipe.layout in ("title", "char"):
        titles = [s for s in pool if not s.isascii()]
        title = titles[rng.randrange(len(titles))]
        if recipe.layout == "char":  # 1 to 3 characters, starting at a non-ASCII one
            start = next(i for i, c in enumerate(title) if ord(c) > 0x7F)
            title = title[start : start + rng.randrange(1, 4)]
        else:
            start = rng.randrange(max(1, len(title) - 2))
            title = title[start : start + rng.randrange(2, 31)]
        head = b"<!DOCTYPE html>\n<html><head><title>" + encode(title, encoding) + b"</title></head>\n<body>\n"
        parts = [head]
        while sum(map(len, parts)) < recipe.length:
            parts.append(_filler(rng))
        return b"".join(parts) + b"</body></html>\n"
    head = b"<!DOCTYPE html>\n<html><head><title>" + _native(rng, pool, encoding, 60) + b"</title></head>\n<body>\n"
    parts = [head]
    size = len(head)
    paragraph = 0
    while size < recipe.length:
        if recipe.layout == "dense" or paragraph % 4 == 1:
            budget = recipe.length - size - 8 if recipe.length - size < 400 else None
            chunk = b"<p>" + _native(rng, pool, encoding, budget) + b"</p>\n"
        else:
            chunk = _filler(rng)
        parts.append(chunk)
        size += len(chunk)
        paragraph += 1
    return b"".join(parts) + b"</body></html>\n"


def _seven_bit(recipe: Recipe, rng: random.Random) -> bytes:
    variant = recipe.encoding
    text_lang = SEVEN_BIT[variant]
    parts = [b"<!DOCTYPE html>\n<html><head><title>" + _english(rng, 4).encode("ascii") + b"</title></head>\n<body>\n"]
    size = len(parts[0])
    paragraph = 0
    while size < recipe.length:
        native = recipe.layout == "dense" or paragraph % 4 == 1
        if text_lang is not None and native:
            sentence = sentences(text_lang)[rng.randrange(len(sentences(text_lang)))]
            if recipe.length < 400:
                sentence = sentence[: max(4, (recipe.length - size) // 4)]
            chunk = b"<p>" + _seven_bit_text(sentence, variant) + b"</p>\n"
        elif variant == "ansi-escapes" and native:
            chunk = f"<p>\x1b[1m{_english(rng, 6)}\x1b[0m {_english(rng, 10)}</p>\n".encode("ascii")
        elif variant == "tilde-brace" and native:
            chunk = f"<script>var t = '~{{{rng.choice(_WORDS)}~}}'; x = a~{{b}};</script>\n".encode("ascii")
        else:
            chunk = _filler(rng)
        parts.append(chunk)
        size += len(chunk)
        paragraph += 1
    return b"".join(parts) + b"</body></html>\n"


def _seven_bit_text(text: str, variant: str) -> bytes:
    if variant == "iso-2022-cn":
        # ISO-2022-CN (RFC 1922): designate GB 2312 to G1 once per line, then SO/SI around
        # the GB 2312 bytes with their high bits cleared. Python has no encoder for it.
        out = bytearray(b"\x1b$)A")
        for char in text:
            try:
                gb = char.encode("gb2312")
            except UnicodeEncodeError:
                continue
            out += gb if len(gb) == 1 else b"\x0e" + bytes(b & 0x7F for b in gb) + b"\x0f"
        return bytes(out)
    return text.encode(_CODECS[variant], errors="ignore")


#: Bodies per legacy encoding drawn at random lengths and layouts, after the fixed grid, in
#: rounds (each round its own seeds, so that adding a round keeps the earlier cases' ids).
DRAWN_PER_ENCODING = 30
DRAWN_ROUNDS = 2


def recipes() -> Iterable[Recipe]:
    """Every body of the set: a grid of layouts and lengths per legacy encoding, undeclared
    UTF-8 and 7-bit variants, then :data:`DRAWN_PER_ENCODING` bodies per legacy encoding with
    a log-uniform length (150 B to 200 KB) and a drawn layout."""
    yield from _grid()
    seed = 90_000
    for lang, (_, _, _, encodings) in LANGUAGES.items():  # a title of 1 to 3 characters
        for encoding in encodings:
            for length in LAYOUTS["title"]:
                seed += 1
                yield Recipe(lang, encoding, "char", length, seed)
    for round_ in range(DRAWN_ROUNDS):
        seed = 100_000 * (round_ + 1)
        for lang, (_, _, _, encodings) in LANGUAGES.items():
            for encoding in encodings:
                rng = random.Random(f"drawn/{lang}/{encoding}" + (f"/{round_}" if round_ else ""))
                for _ in range(DRAWN_PER_ENCODING):
                    seed += 1
                    layout = rng.choices(("dense", "sparse", "title"), weights=(10, 7, 3))[0]
                    length = int(150 * (200_000 / 150) ** rng.random())
                    yield Recipe(lang, encoding, layout, length, seed)


def _grid() -> Iterable[Recipe]:
    seed = 0
    for lang, (_, _, _, encodings) in LANGUAGES.items():
        for encoding in encodings:
            for layout, lengths in LAYOUTS.items():
                for length in lengths:
                    seed += 1
                    yield Recipe(lang, encoding, layout, length, seed)
    for lang in LANGUAGES:
        for layout, lengths in (("dense", (300, 2500, 50_000)), ("sparse", (3000, 120_000)), ("title", (1200,))):
            for length in lengths:
                seed += 1
                yield Recipe(lang, "UTF-8", layout, length, seed)
    for variant in SEVEN_BIT:
        for layout, lengths in (("dense", (150, 800, 5000, 60_000)), ("sparse", (2000, 30_000))):
            for length in lengths:
                seed += 1
                yield Recipe("7bit", variant, layout, length, seed)


#: TLDs drawn for the third copy of each body: Chromium's table plus generic and other ones.
EXTRA_TLDS = sorted(set(TLD_ENCODINGS) | {
    "org", "net", "info", "edu", "io", "eu", "uk", "es", "at", "be", "by", "kz", "sa", "ae",
    "mx", "in", "id", "ar", "cl", "md", "ba", "me", "am", "ge",
})
SEVEN_BIT_TLDS = ("com", "jp", "kr", "cn", "tw", "ru", "de")


def split_of(body_id: str) -> str:
    """"fit" or "held-out": half the bodies each, by a hash of the recipe."""
    return "fit" if hashlib.sha256(body_id.encode()).digest()[0] % 2 == 0 else "held-out"


#: The TLD of a host without a dot (``http://s1a2b3/``: CED finds no TLD, as for the chardet
#: corpus's hosts), given to the first round of drawn bodies.
DOTLESS = "-"


def tlds_for(recipe: Recipe) -> list[str]:
    """``.com``, the language's country TLD, one more drawn by the recipe's seed (and a
    dotless host for the first drawn round)."""
    rng = random.Random(f"tld/{recipe.body_id}")
    if recipe.lang == "7bit":
        chosen = list(SEVEN_BIT_TLDS)
    else:
        chosen = ["com", LANGUAGES[recipe.lang][2]]
    extra = rng.choice(EXTRA_TLDS)
    if extra not in chosen:
        chosen.append(extra)
    if 100_000 < recipe.seed < 200_000:
        chosen.append(DOTLESS)
    return chosen


def cases() -> Iterable[tuple[Recipe, str, str]]:
    """(recipe, TLD, case id) for every case of the set."""
    for recipe in recipes():
        for tld in tlds_for(recipe):
            yield recipe, tld, f"{recipe.body_id}@{tld}"


def url_for(case_id: str, tld: str) -> str:
    """The URL the case was loaded under (``tld`` :data:`DOTLESS`: a host without a dot)."""
    slug = hashlib.sha256(case_id.encode()).hexdigest()[:10]
    if tld == DOTLESS:
        return f"http://s{slug}/index.html"
    return f"http://www.s{slug}.{tld}/index.html"


def load_cases() -> list[dict]:
    """The checked-in expectations, one dict per case (recipe fields, URL, split)."""
    rows = []
    with CASES.open() as handle:
        for line in handle:
            if line.startswith("#") or line.startswith("id\t"):
                continue
            case_id, digest, chromium = line.rstrip("\n").split("\t")
            recipe = recipe_from_id(case_id)
            tld = case_id.rpartition("@")[2]
            rows.append({
                "id": case_id, "recipe": recipe, "url": url_for(case_id, tld), "tld": tld,
                "sha256": digest, "chromium": chromium, "split": split_of(recipe.body_id),
                "lang": recipe.lang, "encoding": recipe.encoding,
            })
    return rows


def recipe_from_id(case_id: str) -> Recipe:
    """The recipe named by a case id (``lang.encoding.layout.length.seed@tld``)."""
    body_id = case_id.rpartition("@")[0]
    head, layout, length, seed = body_id.rsplit(".", 3)
    lang, _, encoding = head.partition(".")
    return Recipe(lang, encoding, layout, int(length), int(seed))


def recipe_of(row: dict) -> Recipe:
    return row["recipe"]
