"""``encoding_browser`` on undeclared pages against Chromium 156's verdicts (``cases.tsv``).

The pages are rebuilt from their recipes (``pages.py``, text from ``../shared/corpus``); the
verdicts came from the oracle (``scripts/browser_view.py``). The answers are CED's as Chromium
calls it (nothing fitted), measured on the two halves of the cases (``fit``, ``held-out``). The
floors are the measured counts: a change that loses a page fails here (re-measure with
``scripts/browser_view.py report`` when a change is meant).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from pipeline.encoding.api import decode_html
from pipeline.encoding.lookup import get_an_encoding
from pipeline.encoding.sniff.ced import FIRST_CHUNK_BYTES, chromium_sniff, detect_encoding
from tests.browser_view.pages import load_cases, page_body, recipe_from_id

#: Every SUBSET-th case is measured in the default run (all of them with SLOW=1).
SUBSET = 10
#: Measured (scripts/browser_view.py report), per split: (pages, equal to Chromium).
MEASURED_SUBSET = {"fit": (1023, 1022), "held-out": (1008, 1008)}
MEASURED_ALL = {"fit": (10227, 10223), "held-out": (10075, 10073)}


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


def test_iso_2022_jp_keeps_the_tld_default() -> None:
    # Chromium 156 never shows ISO-2022-JP from detection in HTML (tests/browser_view: 9 TLDs)
    body = "<p>日本語のテキスト</p>".encode("iso2022_jp")
    for url, default in (("http://x.jp/", "Shift_JIS"), ("http://x.com/", "windows-1252"),
                         ("http://x.ru/", "windows-1251")):
        assert chromium_sniff(body, url, default)[:2] == (default, "default")


def test_iso_2022_jp_is_detected_in_plain_text() -> None:
    # the same bytes as text/plain show ISO-2022-JP (oracle); only HTML leaves it out
    body = "<p>日本語のテキスト</p>".encode("iso2022_jp")
    assert chromium_sniff(body, "http://x.com/", "windows-1252", "plain")[:2] == ("ISO-2022-JP", "detected")
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


@pytest.mark.parametrize(("parts", "url", "chromium"), LONG_PAGES, ids=["fine409", "fine1731"])
def test_ced_is_given_the_first_mebibyte(corpus: Path, parts: tuple[str, ...], url: str, chromium: str) -> None:
    body = b"".join(page_body(recipe_from_id(f"{part}@com")) for part in parts)[:1_300_000]
    assert chromium_sniff(body, url, "windows-1252")[0] == chromium
    assert chromium_sniff(body[:FIRST_CHUNK_BYTES], url, "windows-1252")[0] == chromium
    # CED reads the whole body otherwise: what Chromium gives it matters
    assert get_an_encoding(detect_encoding(body, url, limit=len(body)).mime_name) != chromium


def test_utf8_is_kept_only_for_local_files() -> None:
    body = "<p>Привет, мир! Съешь же ещё этих мягких французских булок.</p>".encode()
    assert chromium_sniff(body, "http://x.ru/", "windows-1251")[:2] == ("windows-1251", "default")
    assert chromium_sniff(body, "file:///tmp/page.html", "windows-1252")[:2] == ("UTF-8", "detected")


@pytest.mark.parametrize("body", [
    "<p>中文</p>".encode("hz"), "<p>한국어</p>".encode("iso2022_kr"), "<p>Привет</p>".encode("utf-7"),
    b"<p>\x1b[1mbold\x1b[0m</p>",
], ids=["hz", "iso-2022-kr", "utf-7", "ansi"])
def test_other_7bit_bodies_are_windows_1252(body: bytes) -> None:
    assert body.isascii()
    for tld, default in (("cn", "GBK"), ("kr", "EUC-KR"), ("ru", "windows-1251"), ("com", "windows-1252")):
        assert chromium_sniff(body, f"http://x.{tld}/", default)[0] == "windows-1252"
