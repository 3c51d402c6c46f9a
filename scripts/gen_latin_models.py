"""Build ``pipeline/encoding/sniff/latin_models.json``: letter-pair counts per language, the
language models the rare-Latin refinement scores readings with (:mod:`pipeline.encoding.sniff.latin`).

    .venv/bin/python scripts/gen_latin_models.py   # needs the Debian packages below installed

Sources (real words, each language's own spelling): the Hunspell dictionaries Debian ships
(``/usr/share/hunspell/<lang>.dic``, stems, each word counted once), and for Maltese, which
has none, the Maltese translations of iso-codes (``/usr/share/locale/mt/LC_MESSAGES/iso_*.mo``:
names of countries and languages). Packages and licences in ``docs/sniffing.md``. Only counts
are kept: pairs of lowercase letters (a word's edge is a space; ş ţ folded into ș ț as the
refinement folds them), pairs seen fewer than
``MIN_PAIR`` times dropped, and only pairs with a non-ASCII letter (the refinement scores the
characters around non-ASCII bytes; pairs of ASCII letters never tell two readings apart).
"""

from __future__ import annotations

import gettext
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from pipeline.encoding.sniff.latin import FOLD  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "pipeline" / "encoding" / "sniff" / "latin_models.json"
HUNSPELL = Path("/usr/share/hunspell")
#: language -> (Debian package, dictionary)
DICTIONARIES = {
    "lt": ("hunspell-lt", "lt_LT"), "lv": ("hunspell-lv", "lv_LV"), "et": ("myspell-et", "et_EE"),
    "is": ("hunspell-is", "is_IS"), "da": ("hunspell-da", "da_DK"), "nb": ("hunspell-no", "nb_NO"),
    "sv": ("hunspell-sv", "sv_SE"), "ro": ("hunspell-ro", "ro_RO"), "eo": ("myspell-eo", "eo"),
    "hr": ("hunspell-hr", "hr_HR"), "sl": ("hunspell-sl", "sl_SI"), "hu": ("hunspell-hu", "hu_HU"),
    "pl": ("hunspell-pl", "pl_PL"), "cs": ("hunspell-cs", "cs_CZ"), "sk": ("hunspell-sk", "sk_SK"),
    "de": ("hunspell-de-de", "de_DE"), "fr": ("hunspell-fr-classical", "fr_FR"),
    "es": ("hunspell-es", "es_ES"), "it": ("hunspell-it", "it_IT"), "pt": ("hunspell-pt-pt", "pt_PT"),
    "nl": ("hunspell-nl", "nl_NL"), "en": ("hunspell-en-us", "en_US"), "tr": ("hunspell-tr", "tr_TR"),
    "ca": ("hunspell-ca", "ca_ES"),
}
MALTESE = Path("/usr/share/locale/mt/LC_MESSAGES")
#: Pairs seen fewer times are dropped (typos and one-off loans; smoothing covers them).
MIN_PAIR = 3


def _encoding(aff: Path) -> str:
    for line in aff.read_bytes().split(b"\n"):
        if line.startswith(b"SET "):
            label = line[4:].strip().decode("ascii").lower()
            return {"iso8859-13": "iso8859_13", "iso8859-15": "iso8859_15", "iso8859-1": "latin_1",
                    "iso8859-2": "iso8859_2", "iso8859-3": "iso8859_3"}.get(label, label)
    return "utf-8"


def hunspell_words(name: str) -> list[str]:
    """The stems of a Hunspell dictionary (affix flags and morphology dropped)."""
    encoding = _encoding(HUNSPELL / f"{name}.aff")
    lines = (HUNSPELL / f"{name}.dic").read_bytes().decode(encoding, "replace").split("\n")[1:]
    return [line.split("/", 1)[0].split("\t", 1)[0].strip() for line in lines]


def maltese_words() -> list[str]:
    """Every word of the Maltese iso-codes translations."""
    words = []
    for mo in sorted(MALTESE.glob("iso_*.mo")):
        with mo.open("rb") as fh:
            catalog = gettext.GNUTranslations(fh)._catalog  # type: ignore[attr-defined]
        for value in catalog.values():
            words += str(value).split()
    return words


def pair_counts(words: list[str]) -> tuple[Counter[str], Counter[str]]:
    """(letter counts as the first of a pair, pair counts), each word between spaces."""
    firsts: Counter[str] = Counter()
    pairs: Counter[str] = Counter()
    for word in words:
        for part in "".join(c if c.isalpha() else " " for c in word.lower().translate(FOLD)).split():
            padded = f" {part} "
            for a, b in zip(padded, padded[1:], strict=False):
                firsts[a] += 1
                pairs[a + b] += 1
    return firsts, pairs


def main() -> int:
    models = {}
    for lang, (_, name) in sorted(DICTIONARIES.items()):
        firsts, pairs = pair_counts(hunspell_words(name))
        models[lang] = _kept(firsts, pairs)
    firsts, pairs = pair_counts(maltese_words())
    models["mt"] = _kept(firsts, pairs)
    OUT.write_text(json.dumps({"min_pair": MIN_PAIR, "models": models}, ensure_ascii=False,
                              sort_keys=True, separators=(",", ":")) + "\n", "utf-8")
    print(f"{OUT.relative_to(ROOT)}: {len(models)} languages, {OUT.stat().st_size:,} bytes", file=sys.stderr)
    return 0


def _kept(firsts: Counter[str], pairs: Counter[str]) -> dict[str, dict[str, int]]:
    return {"firsts": dict(firsts),
            "pairs": {p: n for p, n in pairs.items() if n >= MIN_PAIR and not p.isascii()}}


if __name__ == "__main__":
    sys.exit(main())
