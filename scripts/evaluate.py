"""Accuracy of the encoding decision on ``../shared/corpus/chardet`` (real pages by true encoding).

Run: ``.venv/bin/python scripts/evaluate.py [CORPUS_DIR] [--misses]``

Three measurements over the 395 files whose true encoding is a WHATWG encoding:

- **standard, as is**: ``decode_html(body, "text/html", url)`` under ``standard`` gives the same
  text as decoding with the true encoding (BOM stripped when it matches the truth);
- **standard, stripped**: the same after :func:`strip_declarations` removed every in-document
  declaration (BOMs stay: they are part of the UTF-16 files' encoding, not a label);
- **browser**: ``encoding_browser`` equals what Chromium 156 showed (``chromium.jsonl``), for
  files with a BOM or a declaration a browser honours, and for the rest.

The URL for ``standard`` carries the TLD of the site the file came from (``site_tld`` of
``MANIFEST.tsv``: ``http://site.<tld>/``, none when unknown); for ``browser`` it is the URL
Chromium loaded the file under (``http://<file-stem>/``), so both get the hint each was meant
to have.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.encoding.api import decode_html  # noqa: E402
from pipeline.encoding.decoders import decode  # noqa: E402
from pipeline.encoding.sniff.bom import bom_sniff  # noqa: E402

DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "chardet"

# An XML declaration's encoding pseudo-attribute (the declaration itself stays).
_XML_ENCODING = re.compile(rb"(<\?xml\b[^>]*?)\s+encoding\s*=\s*([\"'])[^\"'>]*\2", re.IGNORECASE)
# A whole <meta> tag that mentions a charset (meta charset and http-equiv content-type).
_META_CHARSET = re.compile(rb"<meta\b[^>]*charset[^>]*>", re.IGNORECASE)


def strip_declarations(body: bytes) -> bytes:
    """Remove every in-document encoding declaration: the ``encoding="..."`` of XML declarations
    and every ``<meta>`` tag that mentions ``charset``. Everything else is kept byte for byte.

    >>> strip_declarations(b'<?xml version="1.0" encoding="koi8-r"?><r/>')
    b'<?xml version="1.0"?><r/>'
    >>> strip_declarations(b'<head><META http-equiv=Content-Type content="text/html; charset=gbk"></head>')
    b'<head></head>'
    """
    return _META_CHARSET.sub(b"", _XML_ENCODING.sub(rb"\1", body))


@dataclass(frozen=True, slots=True)
class FileResult:
    """One file's outcome in the three measurements."""

    path: str
    true_encoding: str
    declared: bool  # BOM or a declaration a browser honours
    standard: str  # encoding chosen as is
    standard_ok: bool
    stripped: str  # encoding chosen with declarations stripped
    stripped_ok: bool
    browser: str
    chromium: str
    browser_ok: bool


def _truth_text(body: bytes, encoding: str) -> str:
    bom, length = bom_sniff(body)
    if bom == encoding:
        body = body[length:]
    return decode(body, encoding).text


def evaluate(root: Path = DEFAULT_CORPUS) -> list[FileResult]:
    """Run the three measurements on every WHATWG-scope file of the corpus at ``root``."""
    with (root / "MANIFEST.tsv").open(encoding="utf-8", newline="") as handle:
        manifest = list(csv.DictReader(handle, delimiter="\t"))
    chromium = {}
    with (root / "chromium.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            chromium[record["path"]] = record
    results = []
    for row in manifest:
        if row["scope"] != "whatwg":
            continue
        body = (root / row["path"]).read_bytes()
        truth = row["true_encoding"]
        url = f"http://site.{row['site_tld']}/" if row["site_tld"] not in ("", "-") else None
        as_is = decode_html(body, "text/html", url)
        stripped_body = strip_declarations(body)
        stripped = decode_html(stripped_body, "text/html", url)
        seen = chromium[row["path"]]
        browser = decode_html(body, "text/html", seen["url"], policy="browser")
        results.append(FileResult(
            path=row["path"],
            true_encoding=truth,
            declared=row["has_bom"] == "yes" or row["browser_prescan"] != "-",
            standard=as_is.encoding,
            standard_ok=as_is.text == _truth_text(body, truth),
            stripped=stripped.encoding,
            stripped_ok=stripped.text == _truth_text(stripped_body, truth),
            browser=browser.encoding_browser,
            chromium=seen["characterSet"],
            browser_ok=browser.encoding_browser == seen["characterSet"],
        ))
    return results


def _pct(ok: int, total: int) -> str:
    return f"{ok}/{total} ({100 * ok / total:.1f}%)" if total else "-"


def summary(results: list[FileResult]) -> dict[str, tuple[int, int]]:
    """(ok, total) of each measurement."""
    declared = [r for r in results if r.declared]
    rest = [r for r in results if not r.declared]
    return {
        "standard_as_is": (sum(r.standard_ok for r in results), len(results)),
        "standard_stripped": (sum(r.stripped_ok for r in results), len(results)),
        "browser_declared": (sum(r.browser_ok for r in declared), len(declared)),
        "browser_undeclared": (sum(r.browser_ok for r in rest), len(rest)),
    }


def table(results: list[FileResult]) -> str:
    """The per-encoding results as a Markdown table, with the totals."""
    groups: dict[str, list[FileResult]] = defaultdict(list)
    for result in results:
        groups[result.true_encoding].append(result)
    lines = [
        "| true encoding | files | standard, as is | standard, stripped | browser = Chromium (declared) | browser = Chromium (undeclared) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for encoding in sorted(groups, key=str.lower):
        group = groups[encoding]
        declared = [r for r in group if r.declared]
        rest = [r for r in group if not r.declared]
        lines.append(
            f"| {encoding} | {len(group)} | {_pct(sum(r.standard_ok for r in group), len(group))} "
            f"| {_pct(sum(r.stripped_ok for r in group), len(group))} "
            f"| {_pct(sum(r.browser_ok for r in declared), len(declared))} "
            f"| {_pct(sum(r.browser_ok for r in rest), len(rest))} |"
        )
    totals = summary(results)
    lines.append(
        f"| **all** | {len(results)} | {_pct(*totals['standard_as_is'])} | {_pct(*totals['standard_stripped'])} "
        f"| {_pct(*totals['browser_declared'])} | {_pct(*totals['browser_undeclared'])} |"
    )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Print the table (and, with ``--misses``, every file that misses)."""
    paths = [a for a in argv if not a.startswith("--")]
    root = Path(paths[0]) if paths else DEFAULT_CORPUS
    results = evaluate(root)
    print(table(results))
    if "--misses" in argv:
        for r in results:
            if not (r.standard_ok and r.stripped_ok and r.browser_ok):
                print(
                    f"{r.path}\ttruth={r.true_encoding}\tstandard={r.standard}{'' if r.standard_ok else '!'}"
                    f"\tstripped={r.stripped}{'' if r.stripped_ok else '!'}"
                    f"\tbrowser={r.browser}\tchromium={r.chromium}{'' if r.browser_ok else '!'}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
