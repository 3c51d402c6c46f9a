"""The links table's URL-valued attributes against Chromium's own resolution.

Expectations rebuilt by ``scripts/oracle_links.py`` (a headless Chromium through
``../shared/oracle``): every URL-valued attribute of the 181 article pages and of the
hand-made cases (``<base>``, legacy encodings, odd white space), in tree order, as the
page's IDL attributes (``a.href``, ``img.src``, ``form.action``, ...) resolve them; and the
WPT ``srcset`` cases answered by ``img.currentSrc``. Each page is extracted under the URL
Chromium's document ended up with (``document_url``: Chromium may upgrade ``http:`` to
``https:``).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from pipeline.encoding.api import decode_html
from pipeline.extract import extract
from pipeline.extract.url_attributes import KINDS
from pipeline.extract.url_resolution import resolve_url
from pipeline.native import document

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "links"
#: The kinds that come from URL-valued attributes (css, script strings and the refresh
#: target are parsed from text: compared with their own references elsewhere).
ATTRIBUTE_KINDS = frozenset(KINDS) - {"css", "script-string", "refresh"}


#: Special schemes (URL Standard §4.1).
_SPECIAL = ("http:", "https:", "ws:", "wss:", "ftp:", "file:")


def chromium_form(url: str) -> str:
    """``url`` (URL Standard) as Chromium 156 serializes the same href: it percent-encodes
    "'" in the query of a non-special URL (``javascript:f('x?a')``, ``mailto:?subject='s'``),
    where the URL Standard's query percent-encode set leaves it (only the special-query set
    holds "'"). The one departure of Chromium from the standard on these pages.

    >>> chromium_form("mailto:?subject='a'"), chromium_form("https://e.example/?q='a'")
    ('mailto:?subject=%27a%27', "https://e.example/?q='a'")
    """
    if url.startswith(_SPECIAL):
        return url
    query_at = url.find("?")
    if query_at < 0:
        return url
    hash_at = url.find("#", query_at)
    end = len(url) if hash_at < 0 else hash_at
    return url[:query_at] + url[query_at:end].replace("'", "%27") + url[end:]


def _expected() -> dict:
    return json.loads((FIXTURES / "chromium-attributes.json").read_text("utf-8"))


#: Rows of the hand-made cases where Chromium 156 departs from the URL Standard on purpose
#: of the case: our URL -> Chromium's. A ws:/wss: URL's query is UTF-8 ("If encoding is not
#: UTF-8 and ... url's scheme is "ws" or "wss", set encoding to UTF-8", URL Standard §4.4
#: query state); Chromium encodes it in the document's encoding.
KNOWN_DIFFERENCES = {"legacy-windows-1252.html": {"ws://h.example/?%C3%A9": "ws://h.example/?%E9"}}


def _rows(html: str, url: str, encoding: str) -> tuple[list[list[str | None]], int]:
    e = extract(html, url, encoding)
    rows = [[link.tag, link.attr, link.url] for link in e.links if link.kind in ATTRIBUTE_KINDS]
    return rows, e.bad_urls


def _digest(rows: list[list[str | None]]) -> str:
    import hashlib

    return hashlib.sha256(json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode()).hexdigest()


def test_every_attribute_url_of_the_181_pages_equals_chromiums(corpus: Path) -> None:
    expected = _expected()["pages"]
    truth = json.loads((corpus / "article-extraction" / "ground-truth.json").read_text("utf-8"))
    assert sorted(expected) == sorted(truth)
    differing, total, exact = [], 0, 0
    for page_id, page in sorted(expected.items()):
        html = gzip.decompress((corpus / "article-extraction" / "html" / f"{page_id}.html.gz").read_bytes())
        assert page["encoding"] == "UTF-8"
        rows, bad = _rows(html.decode("utf-8"), page["document_url"], "UTF-8")
        total += len(rows)
        shown = [[tag, attr, chromium_form(url)] for tag, attr, url in rows]
        exact += sum(1 for row, seen in zip(rows, shown, strict=True) if row == seen)
        # Chromium's rows hold null where a URL does not parse; ours leave it out and count it.
        if len(rows) + bad != page["rows"] or bad != page["failed"] or _digest(shown) != page["sha256"]:
            differing.append(page_id)
    assert differing == []
    assert total > 30_000  # the pages do exercise every common attribute
    # the known departure concerns a handful of share links (mailto:, whatsapp:, javascript:)
    assert total - exact < 20, total - exact


@pytest.mark.parametrize("name", sorted(_expected()["cases"]))
def test_hand_made_cases_equal_chromium_row_by_row(name: str) -> None:
    case = _expected()["cases"][name]
    # decoded as the pipeline decodes it, under the browser policy: Chromium's encoding
    decoded = decode_html((FIXTURES / "cases" / name).read_bytes(), case["content_type"], case["url"],
                          policy="browser")
    assert decoded.decision.encoding == case["encoding"]
    rows, bad = _rows(decoded.text, case["document_url"], case["encoding"])
    chromium = [row for row in case["rows"] if row[2] is not None]
    known = KNOWN_DIFFERENCES.get(name, {})
    assert [[tag, attr, known.get(url, chromium_form(url))] for tag, attr, url in rows] == chromium
    assert bad == len(case["rows"]) - len(chromium)


def test_srcset_candidates_equal_chromiums_choice_on_the_wpt_cases() -> None:
    # Each WPT srcset is answered by Chromium's img.currentSrc in a 1x environment: the
    # first candidate the parse accepts (resolved), or "" when it accepts none.
    fixture = json.loads((FIXTURES / "srcset-chromium.json").read_text("utf-8"))
    assert len(fixture["cases"]) > 100
    for value, current in fixture["cases"]:
        urls = document.srcset_urls(value)
        assert (resolve_url(urls[0], fixture["page_url"]) if urls else "") == current, value
