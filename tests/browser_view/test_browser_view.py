"""``encoding_browser`` on undeclared pages against Chromium 156's verdicts (``cases.tsv``).

The pages are rebuilt from their recipes (``pages.py``, text from ``../shared/corpus``); the
verdicts came from the oracle (``scripts/browser_view.py``). The CED emulation's tables were
fitted on the "fit" half; the "held-out" half measures them. The floors are the measured
counts of the current tables: a change that loses a page fails here (refit and re-measure
with ``scripts/browser_view.py fit`` / ``report`` when a change is meant).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from pipeline.encoding.api import decode_html
from pipeline.encoding.sniff.browser_detect import emulate_chromium_detection
from pipeline.encoding.sniff.ced_model import load_weights
from pipeline.encoding.sniff.ced_window import MAX_PAIRS, ced_window
from tests.browser_view.pages import load_cases, page_body

#: Every SUBSET-th case is measured in the default run (all of them with SLOW=1).
SUBSET = 10
#: Measured (scripts/browser_view.py report), per split: (pages, equal to Chromium).
MEASURED_SUBSET = {"fit": (1023, 947), "held-out": (1008, 899)}
MEASURED_ALL = {"fit": (10227, 9507), "held-out": (10075, 9030)}


@pytest.fixture(scope="module")
def cases(corpus: Path) -> list[dict]:
    return load_cases()


def _agreement(cases: list[dict], split: str, step: int) -> tuple[int, int, list[str]]:
    chosen = [case for case in cases if case["split"] == split][::step]
    misses = []
    for case in chosen:
        found = decode_html(page_body(case["recipe"]), "text/html", case["url"], policy="browser").encoding_browser
        if found != case["chromium"]:
            misses.append(f"{case['id']}: {found} != {case['chromium']}")
    return len(chosen), len(chosen) - len(misses), misses


def test_bodies_are_the_bytes_chromium_saw(cases: list[dict]) -> None:
    seen: dict[str, str] = {}
    for case in cases:
        body_id = case["recipe"].body_id
        if body_id not in seen:
            seen[body_id] = hashlib.sha256(page_body(case["recipe"])).hexdigest()[:12]
        assert seen[body_id] == case["sha256"], case["id"]


@pytest.mark.parametrize("split", ["fit", "held-out"])
def test_browser_view_subset(cases: list[dict], split: str) -> None:
    pages, agree, misses = _agreement(cases, split, SUBSET)
    assert (pages, agree) >= MEASURED_SUBSET[split] and pages == MEASURED_SUBSET[split][0], misses[:20]


@pytest.mark.slow
@pytest.mark.parametrize("split", ["fit", "held-out"])
def test_browser_view_all(cases: list[dict], split: str) -> None:
    pages, agree, misses = _agreement(cases, split, 1)
    assert pages == MEASURED_ALL[split][0] and agree >= MEASURED_ALL[split][1], misses[:20]


def test_window_weighs_title_text_one_sixteenth() -> None:
    body = "<title>Čeština</title><p>Žluťoučký kůň".encode("cp1250")
    window = ced_window(body)
    # Č and š in the title, then Ž ť č ý ů (ů and ň make one pair)
    assert window.weights == (1 / 16,) * 2 + (1.0,) * 5
    assert window.first == bytes([0xC8, 0x9A, 0x8E, 0x9D, 0xE8, 0xFD, 0xF9])


def test_window_stops_at_48_pairs() -> None:
    window = ced_window(b"<p>" + "é".encode("cp1252") * 500)
    assert window.count == MAX_PAIRS
    assert window.end == 3 + 2 * MAX_PAIRS


def test_window_skips_tag_text_after_twelve_pairs() -> None:
    attribute = "ü" * 40
    body = f'<img alt="{attribute}"><p>ü</p>'.encode("cp1252")
    window = ced_window(body)
    # 12 pairs inside the tag at 1/16, then the rest of the tag skipped, then the text pair
    assert window.weights == (1 / 16,) * 12 + (1.0,)


def test_control_bytes_are_pairs_too() -> None:
    assert ced_window(b"a\x01b\x1bc").count == 2
    assert ced_window(b"tab\there\r\nform\x0cfeed").count == 0


def test_iso_2022_jp_keeps_the_tld_default() -> None:
    # Chromium 156 never shows ISO-2022-JP from detection (tests/browser_view: 9 TLDs)
    body = "<p>日本語のテキスト</p>".encode("iso2022_jp")
    assert emulate_chromium_detection(body, "jp", "Shift_JIS")[0] == "Shift_JIS"
    assert emulate_chromium_detection(body, "com", "windows-1252")[0] == "windows-1252"
    assert emulate_chromium_detection(body, "ru", "windows-1251")[0] == "windows-1251"


@pytest.mark.parametrize("body", [
    "<p>中文</p>".encode("hz"), "<p>한국어</p>".encode("iso2022_kr"), "<p>Привет</p>".encode("utf-7"),
    b"<p>\x1b[1mbold\x1b[0m</p>",
], ids=["hz", "iso-2022-kr", "utf-7", "ansi"])
def test_other_7bit_bodies_are_windows_1252(body: bytes) -> None:
    assert body.isascii()
    for tld, default in (("cn", "GBK"), ("kr", "EUC-KR"), ("ru", "windows-1251"), ("com", "windows-1252")):
        assert emulate_chromium_detection(body, tld, default)[0] == "windows-1252"


def test_weights_cover_the_encodings_chromium_reports() -> None:
    weights = load_weights()
    assert {"windows-1252", "windows-1250", "ISO-8859-2", "KOI8-R", "Shift_JIS", "GBK"} <= set(weights.candidates)
    # never reported by Chromium's detector on the pages measured
    assert not {"windows-1258", "ISO-8859-14", "ISO-8859-16", "x-mac-cyrillic", "UTF-8"} & set(weights.candidates)
