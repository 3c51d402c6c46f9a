"""``encoding_browser`` on undeclared pages against Chromium 156's verdicts (``cases.tsv``).

The pages are rebuilt from their recipes (``pages.py``, text from ``../shared/corpus``); the
verdicts came from the oracle (``scripts/browser_view.py``). With CED compiled in, the answers
are CED's as Chromium calls it (nothing fitted); without it, the emulation's, whose tables were
fitted on the "fit" half (the "held-out" half measures them). The floors are the measured
counts of the path that serves: a change that loses a page fails here (re-measure with
``scripts/browser_view.py report``, and refit the emulation with ``fit``, when a change is meant).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from pipeline.encoding.api import decode_html
from pipeline.encoding.lookup import get_an_encoding
from pipeline.encoding.sniff.browser_detect import chromium_detection, emulate_chromium_detection
from pipeline.encoding.sniff.ced import FIRST_CHUNK_BYTES, ced_status, detect_encoding
from pipeline.encoding.sniff.ced_model import load_weights
from pipeline.encoding.sniff.ced_window import MAX_PAIRS, ced_window
from tests.browser_view.pages import load_cases, page_body, recipe_from_id

#: Every SUBSET-th case is measured in the default run (all of them with SLOW=1).
SUBSET = 10
#: Measured (scripts/browser_view.py report), per split: (pages, equal to Chromium), with CED
#: compiled in and with the emulation.
NATIVE = ced_status() is None
MEASURED_SUBSET = ({"fit": (1023, 1022), "held-out": (1008, 1008)} if NATIVE
                   else {"fit": (1023, 947), "held-out": (1008, 899)})
MEASURED_ALL = ({"fit": (10227, 10223), "held-out": (10075, 10073)} if NATIVE
                else {"fit": (10227, 9507), "held-out": (10075, 9030)})
native_only = pytest.mark.skipif(not NATIVE, reason=f"CED is not compiled in: {ced_status()}")


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


# the fit half only under SLOW=1: the default suite checks the held-out half
@pytest.mark.parametrize("split", [pytest.param("fit", marks=pytest.mark.slow), "held-out"])
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
    # Chromium 156 never shows ISO-2022-JP from detection in HTML (tests/browser_view: 9 TLDs)
    body = "<p>日本語のテキスト</p>".encode("iso2022_jp")
    assert emulate_chromium_detection(body, "jp", "Shift_JIS")[0] == "Shift_JIS"
    assert emulate_chromium_detection(body, "com", "windows-1252")[0] == "windows-1252"
    assert emulate_chromium_detection(body, "ru", "windows-1251")[0] == "windows-1251"
    for url, default in (("http://x.jp/", "Shift_JIS"), ("http://x.com/", "windows-1252"),
                         ("http://x.ru/", "windows-1251")):
        assert chromium_detection(body, url, default)[:2] == (default, "default")


@native_only
def test_iso_2022_jp_is_detected_in_plain_text() -> None:
    # the same bytes as text/plain show ISO-2022-JP (oracle); only HTML leaves it out
    body = "<p>日本語のテキスト</p>".encode("iso2022_jp")
    assert chromium_detection(body, "http://x.com/", "windows-1252", "plain")[:2] == ("ISO-2022-JP", "detected")
    found = decode_html(body, "text/plain", "http://x.com/", policy="browser")
    assert found.encoding_browser == "ISO-2022-JP"


#: Two 1.3 MB pages made of bodies of the set, whose CED answer on the whole body is not
#: Chromium's while it is on the first 1 MiB (from the 40 such pages measured, ced.py):
#: (bodies concatenated, URL, Chromium 156's document.characterSet).
LONG_PAGES = (
    (("zh-Hans.gb18030.title.125382.202134", "tr.windows-1254.title.180318.201661",
      "sv.windows-1252.dense.96043.101120", "sl.ISO-8859-2.dense.200000.287",
      "he.windows-1255.dense.43938.101804", "vi.windows-1258.sparse.120496.202003",
      "nb.windows-1252.dense.180577.101193", "mt.ISO-8859-3.sparse.54447.101725",
      "sk.ISO-8859-2.sparse.97665.200422", "tr.ISO-8859-3.sparse.60305.201682",
      "pt.ISO-8859-15.sparse.81982.101014", "da.windows-1252.dense.104699.201141"),
     "http://www.fine409.cz/index.html", "windows-1250"),
    (("de.windows-1252.dense.152017.200801", "hu.ISO-8859-2.sparse.48011.100500",
      "lt.ISO-8859-4.dense.42082.101403", "lt.windows-1257.dense.42996.101342",
      "ro.ISO-8859-2.dense.53429.200742", "ru.UTF-8.dense.50000.1039",
      "de.macintosh.sparse.75426.100853", "da.windows-1252.title.60616.101169",
      "cy.ISO-8859-14.dense.43987.101784", "fr.macintosh.dense.130150.100960",
      "tr.windows-1254.sparse.48655.201666", "zh-Hans.GBK.sparse.92370.102116",
      "tr.windows-1254.dense.75634.201674", "uk.x-mac-cyrillic.title.191156.100242",
      "hu.windows-1250.sparse.51192.200455", "et.ISO-8859-13.dense.84781.101553",
      "ja.UTF-8.sparse.120000.1245"),
     "http://www.fine1731.cz/index.html", "windows-1250"),
)


@native_only
@pytest.mark.parametrize(("parts", "url", "chromium"), LONG_PAGES, ids=["fine409", "fine1731"])
def test_ced_is_given_the_first_mebibyte(corpus: Path, parts: tuple[str, ...], url: str, chromium: str) -> None:
    body = b"".join(page_body(recipe_from_id(f"{part}@com")) for part in parts)[:1_300_000]
    assert chromium_detection(body, url, "windows-1252")[0] == chromium
    assert chromium_detection(body[:FIRST_CHUNK_BYTES], url, "windows-1252")[0] == chromium
    # CED reads the whole body otherwise: what Chromium gives it matters
    assert get_an_encoding(detect_encoding(body, url, limit=len(body)).mime_name) != chromium


@native_only
def test_utf8_is_kept_only_for_local_files() -> None:
    body = "<p>Привет, мир! Съешь же ещё этих мягких французских булок.</p>".encode()
    assert chromium_detection(body, "http://x.ru/", "windows-1251")[:2] == ("windows-1251", "default")
    assert chromium_detection(body, "file:///tmp/page.html", "windows-1252")[:2] == ("UTF-8", "detected")


@pytest.mark.parametrize("body", [
    "<p>中文</p>".encode("hz"), "<p>한국어</p>".encode("iso2022_kr"), "<p>Привет</p>".encode("utf-7"),
    b"<p>\x1b[1mbold\x1b[0m</p>",
], ids=["hz", "iso-2022-kr", "utf-7", "ansi"])
def test_other_7bit_bodies_are_windows_1252(body: bytes) -> None:
    assert body.isascii()
    for tld, default in (("cn", "GBK"), ("kr", "EUC-KR"), ("ru", "windows-1251"), ("com", "windows-1252")):
        assert emulate_chromium_detection(body, tld, default)[0] == "windows-1252"
        assert chromium_detection(body, f"http://x.{tld}/", default)[0] == "windows-1252"


def test_weights_cover_the_encodings_chromium_reports() -> None:
    weights = load_weights()
    assert {"windows-1252", "windows-1250", "ISO-8859-2", "KOI8-R", "Shift_JIS", "GBK"} <= set(weights.candidates)
    # never reported by Chromium's detector on the pages measured
    assert not {"windows-1258", "ISO-8859-14", "ISO-8859-16", "x-mac-cyrillic", "UTF-8"} & set(weights.candidates)
