"""The WHATWG label table: every label of encodings.json resolves to its encoding's name."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pipeline.encoding import labels
from pipeline.encoding.lookup import get_an_encoding

ROOT = Path(__file__).resolve().parents[2]


def _groups(corpus: Path) -> list[dict]:
    return json.loads((corpus / "whatwg-encoding" / "encodings.json").read_bytes())


def _pairs(corpus: Path) -> list[tuple[str, str]]:
    return [(label, enc["name"]) for group in _groups(corpus) for enc in group["encodings"]
            for label in enc["labels"]]


def test_all_228_labels_resolve_to_their_encoding(corpus: Path) -> None:
    pairs = _pairs(corpus)
    assert len(pairs) == 228
    wrong = [(label, name, get_an_encoding(label)) for label, name in pairs
             if get_an_encoding(label) != name]
    assert wrong == []


def test_40_encoding_names_in_the_standards_order(corpus: Path) -> None:
    names = [enc["name"] for group in _groups(corpus) for enc in group["encodings"]]
    assert len(names) == 40
    assert list(labels.ENCODINGS) == names


def test_labels_are_ascii_case_insensitive_and_trimmed(corpus: Path) -> None:
    # get an encoding step 1: "Remove any leading and trailing ASCII whitespace from label";
    # step 2: "ASCII case-insensitive match".
    for label, name in _pairs(corpus):
        assert get_an_encoding(f"\t\n\x0c\r {label.upper()} \r\n") == name
        assert get_an_encoding(label.encode("ascii")) == name


@pytest.mark.parametrize(
    "label",
    ["utf-32", "utf8 x", "", "iso-8859-1\x0b", "\u212aoi8-r", "mac-roman", "cp932", "latin-1"],
)
def test_non_labels_fail(label: str) -> None:
    # U+212A KELVIN SIGN is not ASCII "k"; U+000B is not ASCII whitespace; the rest are
    # Python codec names, not WHATWG labels.
    assert get_an_encoding(label) is None


def test_regenerated_labels_module_is_identical(corpus: Path) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import gen_labels
    finally:
        sys.path.pop(0)
    committed = (ROOT / "pipeline" / "encoding" / "labels.py").read_text(encoding="utf-8")
    assert gen_labels.render(corpus / "whatwg-encoding") == committed
