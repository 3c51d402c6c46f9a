"""URLs in inline scripts: redecode's script strings against gospider's expression and a
URL-only baseline, on a labelled set of real inline scripts.

Usage: .venv/bin/python bench/script_strings.py [--candidates FILE]
From ``python -m bench``: :func:`run` appends a Markdown section to the report.

The labelled set (``tests/fixtures/links/script-labels.json``, rebuilt by hand: see
``--candidates``) is a seeded sample of the inline scripts (JavaScript and JSON types, at
most 20 KB, holding a "/") of the 181 article pages and of the WARC samples' HTML records.
For each script it lists every string-literal value that denotes a URL a crawler would
take (an absolute ``http``/``https``/``ftp``/``ws`` URL, a scheme-relative one, a path or
a relative reference the script would resolve against the page) and the candidates judged
not to be URLs (MIME types, date formats, selectors, markup, prefixes and placeholders such
as ``/user/{id}``, file names used as keys). Every tool's output is resolved against the
page URL with the WHATWG URL parser and compared, per script, as a set of URLs:
precision = found and labelled / found, recall = found and labelled / labelled.

The three extractors:

- **redecode**: the links step's script strings (the compiled core's ``script_urls``:
  ECMAScript/JSON string literals, escapes decoded, kept when URL-like).
- **gospider**: the expression of gospider's ``core/linkfinder.go`` (jaeles-project/gospider,
  ``LinkFinder``): ``DecodeChars`` (Go's ``url.QueryUnescape`` of the whole text when it
  succeeds, then ``\\u002f`` and ``\\u0026`` replaced), the regular expression's first group
  over every match, white space runs collapsed, duplicates dropped. Its matches are resolved
  like ours (gospider's own ``FixUrl`` would only add its bugs).
- **url-only**: absolute ``http(s)://`` URLs found by a regular expression in the raw text,
  the way simple link extractors do.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import unquote_to_bytes

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
LABELS = ROOT / "tests" / "fixtures" / "links" / "script-labels.json"
#: How many scripts of each source the labelled set holds, the sample's seed, and how many
#: scripts one host may give (the WARC samples hold dozens of near-copies of one shop's pages).
SAMPLE = {"article": 60, "warc": 40}
SEED = 18
PER_HOST = 2
MAX_SCRIPT_BYTES = 20_000

#: gospider core/linkfinder.go, linkFinderRegex, as written there (RE2 and Python's re read
#: it alike: no construct of it differs between the two).
GOSPIDER = re.compile(
    r"""(?:"|')(((?:[a-zA-Z]{1,10}://|//)[^"'/]{1,}\.[a-zA-Z]{2,}[^"']{0,})|((?:/|\.\./|\./)"""
    r"""[^"'><,;| *()(%%$^/\\\[\]][^"'><,;|()]{1,})|([a-zA-Z0-9_\-/]{1,}/[a-zA-Z0-9_\-/]{1,}\."""
    r"""(?:[a-zA-Z]{1,4}|action)(?:[\?|#][^"|']{0,}|))|([a-zA-Z0-9_\-/]{1,}/[a-zA-Z0-9_\-/]{3,}"""
    r"""(?:[\?|#][^"|']{0,}|))|([a-zA-Z0-9_\-]{1,}\.(?:php|asp|aspx|jsp|json|action|html|js|txt|xml)"""
    r"""(?:[\?|#][^"|']{0,}|)))(?:"|')""")
_NEWLINES = re.compile(r"[\t\r\n]+")
_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
#: The URL-only baseline: absolute http(s) URLs up to white space, a quote, "<", ">" or "\".
URL_ONLY = re.compile(r"""https?://[^\s"'<>\\]+""", re.IGNORECASE)


def gospider(text: str) -> list[str]:
    """gospider's ``LinkFinder`` over ``text``: its links, in order, without duplicates."""
    if len(text) > 1_000_000:
        text = text.replace(";", ";\r\n").replace(",", ",\r\n")
    # DecodeChars: url.QueryUnescape (fails on a "%" not followed by two hex digits, then
    # the text stays as it is; "+" becomes a space), then the JSON escapes of "/" and "&".
    if _BAD_PERCENT.search(text) is None:
        text = unquote_to_bytes(text.replace("+", " ")).decode("utf-8", "replace")
    for escaped, plain in (("\\u002f", "/"), ("\\U002F", "/"), ("\\u0026", "&"), ("\\U0026", "&")):
        text = text.replace(escaped, plain)
    links = []
    for match in GOSPIDER.finditer(text):
        link = _NEWLINES.sub(" ", match.group(1).strip())
        if link:
            links.append(link)
    return list(dict.fromkeys(links))


def url_only(text: str) -> list[str]:
    """The URL-only baseline's matches, in order, without duplicates."""
    return list(dict.fromkeys(URL_ONLY.findall(text)))


def redecode(text: str) -> list[str]:
    """The links step's script strings of ``text`` (before resolution)."""
    from pipeline.native import document

    return list(dict.fromkeys(document.script_urls(text)))


EXTRACTORS: dict[str, Callable[[str], list[str]]] = {
    "redecode": redecode, "gospider": gospider, "url-only": url_only}


def _read_scripts(html: str) -> list[str]:
    from tests.oracles.tree import parse_document
    from tests.oracles.walks import script_is_read

    tree = parse_document(html)
    return [node.text(deep=False) for node in tree.css("script")
            if "src" not in node.attributes
            and script_is_read(node.attributes.get("type"), node.attributes.get("language"))]


def all_scripts() -> Iterator[tuple[str, str, str]]:
    """(source id, page URL, script text) of every read inline script of the 181 article
    pages and of the WARC samples' HTML records, in a stable order."""
    sys.path.insert(0, str(ROOT))
    from warcio.archiveiterator import ArchiveIterator

    from bench.extract_bench import load_corpus
    from pipeline.encoding.api import decode_html

    for page_id, url, html, _ in load_corpus(SHARED / "corpus" / "article-extraction"):
        for n, text in enumerate(_read_scripts(html)):
            yield f"article:{page_id}:{n}", url, text
    for path in sorted((SHARED / "corpus" / "warc-samples").rglob("*.warc.gz")):
        relative = path.relative_to(SHARED / "corpus" / "warc-samples")
        with path.open("rb") as fh:
            records = ArchiveIterator(fh)
            try:
                for record in records:
                    if record.rec_type != "response" or record.http_headers is None:
                        continue
                    body = record.content_stream().read()
                    if b"<script" not in body.lower():
                        continue
                    url = record.rec_headers.get_header("WARC-Target-URI") or ""
                    decoded = decode_html(body, record.http_headers.get_header("Content-Type"), url)
                    offset = records.get_record_offset()
                    for n, text in enumerate(_read_scripts(decoded.text)):
                        yield f"warc:{relative}:{offset}:{n}", url, text
            except Exception:  # noqa: BLE001 - a broken sample file: its records so far count
                continue


def sample() -> list[tuple[str, str, str]]:
    """The labelled set's scripts: a seeded sample of each source."""
    from pipeline.urlhost import url_host

    pools: dict[str, list[tuple[str, str, str]]] = {"article": [], "warc": []}
    for source, url, text in all_scripts():
        if "/" in text and len(text.encode()) <= MAX_SCRIPT_BYTES:
            pools[source.split(":", 1)[0]].append((source, url, text))
    rng = random.Random(SEED)
    chosen = []
    for kind, count in SAMPLE.items():
        pool = pools[kind][:]
        rng.shuffle(pool)
        per_host: dict[str | None, int] = {}
        taken = 0
        for item in pool:
            host = url_host(item[1])
            if per_host.get(host, 0) < PER_HOST and taken < count:
                per_host[host] = per_host.get(host, 0) + 1
                chosen.append(item)
                taken += 1
    return chosen


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def score(labels: dict | None = None) -> dict[str, dict[str, float]]:
    """Precision and recall of each extractor on the labelled set (URLs compared after
    resolution against the page URL, per script, as sets)."""
    from pipeline.extract.url_resolution import resolve_url

    labels = labels or json.loads(LABELS.read_text("utf-8"))
    by_source = {entry["source"]: entry for entry in labels["scripts"]}
    counts = {name: [0, 0, 0] for name in EXTRACTORS}  # found & true, found, true
    seen = 0
    for source, url, text in sample():
        entry = by_source.get(source)
        if entry is None:
            continue
        assert entry["sha256"] == digest(text), f"{source}: the script changed"
        seen += 1
        truth = {resolve_url(value, url, "UTF-8") for value in entry["urls"]} - {None}
        for name, extract in EXTRACTORS.items():
            found = {resolve_url(value, url, "UTF-8") for value in extract(text)} - {None}
            counts[name][0] += len(found & truth)
            counts[name][1] += len(found)
            counts[name][2] += len(truth)
    assert seen == len(labels["scripts"]), "a labelled script is no longer in the sample"
    return {name: {"precision": hit / found if found else 0.0, "recall": hit / true if true else 0.0,
                   "found": found, "true": true, "scripts": seen}
            for name, (hit, found, true) in counts.items()}


def candidates() -> list[dict]:
    """What a labeller looks at: per sampled script, every distinct value any extractor
    takes, and every string literal holding "/" or ending in a file extension."""
    from tests.oracles.script_strings import string_literals

    out = []
    for source, url, text in sample():
        values: dict[str, None] = {}
        for value in string_literals(text):
            if "/" in value or re.search(r"\.[a-z]{2,4}$", value):
                values[value] = None
        for extract in EXTRACTORS.values():
            values.update(dict.fromkeys(extract(text)))
        out.append({"source": source, "page_url": url, "sha256": digest(text), "values": list(values)})
    return out


def run(lines: list[str]) -> None:
    """Append the script-string section to ``lines``."""
    results = score()
    scripts = next(iter(results.values()))["scripts"]
    true = next(iter(results.values()))["true"]
    lines += ["## URLs in inline scripts (labelled set)", "",
              f"{scripts} real inline scripts (article pages and WARC samples), {true} labelled URLs; "
              "URLs compared after resolution against the page URL.", "",
              "| extractor | precision | recall | URLs found |", "|---|---|---|---|"]
    for name, result in results.items():
        lines.append(f"| {name} | {result['precision']:.3f} | {result['recall']:.3f} | {result['found']} |")
    lines.append("")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", type=Path, help="write the values to label to this JSON file")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.candidates:
        args.candidates.write_text(json.dumps(candidates(), ensure_ascii=False, indent=1), "utf-8")
        return
    lines: list[str] = []
    run(lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
