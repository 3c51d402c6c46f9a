"""The rarer Latin sets on files made like uchardet's test files (a few hundred words of one
language in one legacy set, no markup, nothing declared): how many decode to their text.

    .venv/bin/python scripts/rare_latin_eval.py [--misses]

The text: the gettext translations (``/usr/share/locale/<lang>/LC_MESSAGES/*.mo``) of the
Debian packages installed on the machine, a source apart from the dictionaries the models were
built from. Per language, its messages in file order are cut into files of about
``FILE_CHARS`` characters; a file goes to every set on the language's list (uchardet's pairs)
that can encode it. Half the files (by a hash of language, set and number) are the fit half,
the rest held out; the models' constants were chosen on the fit half.
"""

from __future__ import annotations

import gettext
import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.encoding.api import decode_html  # noqa: E402
from pipeline.encoding.decoders import decode  # noqa: E402

LOCALE = Path("/usr/share/locale")
FILE_CHARS = 1500
FILES_PER_PAIR = 6
#: language -> the legacy sets its text is found in (uchardet's test layout, plus Western sets)
PAIRS = {
    "lt": ("ISO-8859-4", "ISO-8859-10", "ISO-8859-13", "windows-1257"),
    "lv": ("ISO-8859-4", "ISO-8859-10", "ISO-8859-13", "windows-1257"),
    "et": ("ISO-8859-4", "ISO-8859-13", "ISO-8859-15", "windows-1257", "windows-1252"),
    "da": ("ISO-8859-15", "windows-1252"), "nb": ("ISO-8859-15", "windows-1252"),
    "sv": ("ISO-8859-15", "windows-1252"), "fi": ("ISO-8859-15", "windows-1252"),
    "is": ("ISO-8859-10", "windows-1252"),
    "fr": ("ISO-8859-15", "windows-1252"), "de": ("ISO-8859-15", "windows-1252"),
    "ro": ("ISO-8859-16", "ISO-8859-2", "windows-1250"),
    "hu": ("ISO-8859-16", "ISO-8859-2", "windows-1250"),
    "pl": ("ISO-8859-13", "ISO-8859-16", "ISO-8859-2", "windows-1250"),
    "hr": ("ISO-8859-13", "ISO-8859-16", "ISO-8859-2", "windows-1250"),
    "sl": ("ISO-8859-16", "ISO-8859-2", "windows-1250"),
    "eo": ("ISO-8859-3",), "mt": ("ISO-8859-3",), "tr": ("ISO-8859-3", "windows-1254"),
}
_CODECS = {"windows-1252": "cp1252", "windows-1250": "cp1250", "windows-1257": "cp1257",
           "windows-1254": "cp1254", **{f"ISO-8859-{n}": f"iso8859_{n}" for n in (2, 3, 4, 10, 13, 15, 16)}}


def messages(lang: str) -> list[str]:
    """The language's translated messages (the packages' .mo files in name order)."""
    out = []
    for mo in sorted((LOCALE / lang / "LC_MESSAGES").glob("*.mo")):
        try:
            with mo.open("rb") as fh:
                catalog = gettext.GNUTranslations(fh)._catalog  # type: ignore[attr-defined]
        except Exception:
            continue
        for key, value in catalog.items():
            if key and isinstance(value, str) and not value.isascii() and "%" not in value:
                out.append(" ".join(value.split()))
    return out


def files(lang: str, encoding: str) -> list[tuple[str, bytes]]:
    """Up to FILES_PER_PAIR (text, bytes) files of the language that the set encodes."""
    out, text = [], ""
    for message in messages(lang):
        try:
            message.encode(_CODECS[encoding])
        except UnicodeEncodeError:
            continue
        text += message + "\n"
        if len(text) >= FILE_CHARS:
            out.append((text, text.encode(_CODECS[encoding])))
            text = ""
            if len(out) == FILES_PER_PAIR:
                break
    return out


def split_of(lang: str, encoding: str, number: int) -> str:
    digest = hashlib.sha256(f"{lang}/{encoding}/{number}".encode()).digest()
    return "held-out" if digest[0] & 1 else "fit"


def main(argv: list[str]) -> int:
    totals: dict[str, list[int]] = {}
    for lang, encodings in PAIRS.items():
        for encoding in encodings:
            for number, (text, body) in enumerate(files(lang, encoding)):
                got = decode_html(body, None, None)
                right = decode(body, encoding).text == got.text == text
                for key in (split_of(lang, encoding, number), f"{encoding} ({split_of(lang, encoding, number)})"):
                    totals.setdefault(key, [0, 0])
                    totals[key][0] += right
                    totals[key][1] += 1
                if not right and "--misses" in argv:
                    print(f"miss: {lang} {encoding} #{number}: {got.encoding}")
    print("| files | right | share |\n|---|---:|---:|")
    for key, (ok, n) in sorted(totals.items()):
        print(f"| {key} | {ok}/{n} | {ok / n:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
