"""html5lib-tests encoding cases (``../shared/corpus/html5lib-encoding``), run unmodified.

tests1.dat, tests2.dat and test-yahoo-jp.dat: 82 tests whose ``#encoding`` is the final
encoding after a full parse with no transport charset and a windows-1252 default. Under
``standard`` all 82 must pass (75 by BOM + prescan, 7 by the in-``<head>`` late ``<meta>``);
under ``browser`` all but the 3 where Chromium 156 measurably differs: a ``<meta>`` inside
``<script>``/``<style>`` text, which Chromium's tokenizer does not see.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.encoding.api import decode_html
from pipeline.encoding.lookup import get_an_encoding
from tests.conftest import CORPUS

FILES = ("tests1.dat", "tests2.dat", "test-yahoo-jp.dat")

# (file, index) of the tests where Chromium 156 differs, and what it shows instead.
CHROMIUM_DIFFERS = {
    ("tests1.dat", 54): "windows-1252",  # <script>document.write('<meta charset=...>')</script>
    ("tests1.dat", 55): "windows-1252",  # <script type="text/plain"><meta charset=...></script>
    ("tests1.dat", 56): "windows-1252",  # <style type="text/plain"><meta charset=...></style>
}


def load_dat(path: Path) -> list[tuple[bytes, str]]:
    """Parse an html5lib encoding ``.dat`` file: (input bytes, expected label) per test.

    The input is everything between ``#data\\n`` and ``\\n#encoding\\n``; the label is the
    next line.
    """
    raw = path.read_bytes()
    tests = []
    for chunk in raw.split(b"#data\n")[1:]:
        data, separator, rest = chunk.partition(b"\n#encoding\n")
        assert separator, f"malformed test in {path.name}"
        tests.append((data, rest.split(b"\n", 1)[0].decode("ascii").strip()))
    return tests


def _cases() -> list[tuple[str, int, bytes, str]]:
    root = CORPUS / "html5lib-encoding"
    if not root.is_dir():  # collected before the fixture runs: make the failure visible
        return [("missing-corpus", 0, b"", "")]
    return [
        (name, index, data, label)
        for name in FILES
        for index, (data, label) in enumerate(load_dat(root / name))
    ]


CASES = _cases()
IDS = [f"{name}#{index}-{label}" for name, index, _, label in CASES]


def test_corpus_has_82_final_encoding_tests(corpus: Path) -> None:
    assert len(CASES) == 82
    late = [c for c in CASES if c[0] == "tests1.dat" and 47 <= c[1] <= 53]
    assert all(len(c[2]) > 1024 for c in late)


@pytest.mark.parametrize(("name", "index", "data", "label"), CASES, ids=IDS)
def test_standard(corpus: Path, name: str, index: int, data: bytes, label: str) -> None:
    expected = get_an_encoding(label)
    assert expected is not None
    decoded = decode_html(data, policy="standard")
    assert decoded.encoding == expected, decoded.decision.signals


@pytest.mark.parametrize(("name", "index", "data", "label"), CASES, ids=IDS)
def test_browser(corpus: Path, name: str, index: int, data: bytes, label: str) -> None:
    expected = CHROMIUM_DIFFERS.get((name, index), get_an_encoding(label))
    decoded = decode_html(data, policy="browser")
    assert decoded.encoding == expected == decoded.encoding_browser, decoded.decision.signals


def test_late_meta_tests_are_decided_by_late_meta(corpus: Path) -> None:
    sources = {
        decode_html(data).encoding_source
        for name, index, data, _ in CASES
        if name == "tests1.dat" and 47 <= index <= 53
    }
    assert sources == {"late-meta"}


def test_chromium_differences_are_real(corpus: Path) -> None:
    # the three differing inputs really put the <meta> inside script/style text
    by_key = {(name, index): data for name, index, data, _ in CASES}
    for key in CHROMIUM_DIFFERS:
        assert b"<meta" in by_key[key] and (b"<script" in by_key[key] or b"<style" in by_key[key])
