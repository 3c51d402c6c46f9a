"""Main-text accuracy and speed of the extraction step on the article-extraction corpus.

Usage: .venv/bin/python bench/extract_bench.py [--peers] [--repeat N] [--readers]
From ``python -m bench``: :func:`run` appends a Markdown section to the report.
``--readers``: the compiled CSS and script readers alone on the pages' style texts and scripts.

Prints F1 / P / R (the Scrapinghub benchmark's metric, re-implemented from
../shared/corpus/article-extraction/README.md) and pages/s on one core for the whole
extraction step (parse + metadata + links + main text), optionally next to trafilatura
and resiliparse when they are installed (bench-only dependencies), the extractors taking
turns page by page so that all of them meet the same machine.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "article-extraction"
SHINGLE = 4
_WORD = re.compile(r"\w+")


def is_cjk(text: str) -> bool:
    """Whether a text is mostly unspaced CJK (the README: score those with char 4-grams)."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return False
    cjk = sum(1 for c in letters if unicodedata.name(c, "").startswith(("CJK", "HIRAGANA", "KATAKANA")))
    return cjk / len(letters) > 0.3


def tokens(text: str, cjk: bool) -> list[str]:
    """``\\w+`` tokens; for a CJK page every word character is a token."""
    words = _WORD.findall(text)
    if cjk:
        return [c for w in words for c in w]
    return words


def shingles(toks: list[str]) -> Counter[tuple[str, ...]]:
    """4-gram shingles as a multiset (a shorter text is one shingle)."""
    if len(toks) < SHINGLE:
        return Counter([tuple(toks)]) if toks else Counter()
    return Counter(tuple(toks[i : i + SHINGLE]) for i in range(len(toks) - SHINGLE + 1))


def page_counts(truth: str, predicted: str) -> tuple[float, float, float]:
    """One page's tp, fp, fn, divided by their sum (every page weighs the same)."""
    cjk = is_cjk(truth)
    t = shingles(tokens(truth, cjk))
    p = shingles(tokens(predicted, cjk))
    tp = sum((t & p).values())
    fp = sum((p - t).values())
    fn = sum((t - p).values())
    total = tp + fp + fn
    if total == 0:
        return 1.0, 0.0, 0.0  # both empty: P = R = 1
    return tp / total, fp / total, fn / total


def score(pairs: Iterable[tuple[str, str]]) -> dict[str, float]:
    """P = mean over pages with tp+fp > 0, R = mean over pages with tp+fn > 0, F1 of means."""
    precisions, recalls = [], []
    for truth, predicted in pairs:
        tp, fp, fn = page_counts(truth, predicted)
        if tp + fp > 0:
            precisions.append(tp / (tp + fp))
        if tp + fn > 0:
            recalls.append(tp / (tp + fn))
    p = sum(precisions) / len(precisions) if precisions else 0.0
    r = sum(recalls) / len(recalls) if recalls else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"f1": f1, "precision": p, "recall": r}


def load_corpus(corpus: Path = CORPUS) -> list[tuple[str, str, str, str]]:
    """(id, url, html, articleBody) for every page, in id order."""
    truth = json.loads((corpus / "ground-truth.json").read_text("utf-8"))
    out = []
    for page_id in sorted(truth):
        html = gzip.decompress((corpus / "html" / f"{page_id}.html.gz").read_bytes()).decode("utf-8")
        out.append((page_id, truth[page_id]["url"], html, truth[page_id]["articleBody"]))
    return out


def measure(
    fns: dict[str, Callable[[str, str], str]], pages: list[tuple[str, str, str, str]], rounds: int
) -> dict[str, tuple[dict[str, float], float]]:
    """Per extractor: (F1/P/R, pages per CPU-second) of ``fn(html, url) -> main text``.

    The extractors take turns page by page (the shared machine's speed drifts by 1.5x within
    minutes, so running one extractor after the other compares different machines), each
    call on a page it has not seen (:func:`fresh_copy`); the rate is the best of ``rounds``
    rounds, in CPU time of this process. The order rotates by one each page, so that each
    extractor runs after each other one on as many pages: what runs just before an
    extractor sets the caches it meets, and in a fixed order each would always follow the
    same one.
    """
    clock = time.process_time
    best = dict.fromkeys(fns, float("inf"))
    texts: dict[str, list[str]] = {name: [] for name in fns}
    names = list(fns)
    for _ in range(rounds):
        spent = dict.fromkeys(fns, 0.0)
        texts = {name: [] for name in fns}
        for i, (_, url, html, _) in enumerate(pages):
            for name in names[i % len(names):] + names[:i % len(names)]:
                fn = fns[name]
                page = fresh_copy(html)
                start = clock()
                texts[name].append(fn(page, url))
                spent[name] += clock() - start
        best = {name: min(best[name], spent[name]) for name in fns}
    return {
        name: (score((truth, text) for (_, _, _, truth), text in zip(pages, texts[name], strict=True)),
               len(pages) / best[name])
        for name in fns
    }


def measure_alone(fns: dict[str, Callable[[str, str], str]], pages: list[tuple[str, str, str, str]],
                  rounds: int) -> dict[str, float]:
    """Per extractor: pages per CPU-second running alone over the whole corpus, as a user of
    that one extractor would. The extractors take turns corpus by corpus (the machine's
    drift reaches both alike); best of ``rounds``. Taking turns page by page (``measure``)
    is the fairer comparison, but each extractor then runs on caches the others have just
    filled, which no one who runs a single extractor sees."""
    clock = time.process_time
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(rounds):
        for name, fn in fns.items():
            spent = 0.0
            for _, url, html, _ in pages:
                page = fresh_copy(html)
                start = clock()
                fn(page, url)
                spent += clock() - start
            best[name] = min(best[name], spent)
    return {name: len(pages) / best[name] for name in fns}


def fresh_copy(html: str) -> str:
    """A new ``str`` equal to ``html``, made outside the timing for every call. CPython keeps
    a ``str``'s UTF-8 form inside the object once a C extension has asked for it
    (``PyUnicode_AsUTF8AndSize``), and a parser that reads that form skips the encoding
    when it meets the same object again: resiliparse's ``HTMLTree.parse`` took 350-367 µs
    a page on objects it had parsed before and 539-688 on new ones (two runs on the 181
    pages). A pipeline parses each decoded page once, so every extractor gets a page it
    has never seen."""
    return (html + " ")[:-1]


def _peers() -> dict[str, Callable[[str, str], str]]:
    """The peers that are installed (bench extra), by name."""
    peers: dict[str, Callable[[str, str], str]] = {}
    try:
        import trafilatura

        peers["trafilatura"] = lambda h, u: trafilatura.extract(h, url=u) or ""
    except ImportError:
        pass
    try:
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.html import HTMLTree

        peers["resiliparse"] = lambda h, u: extract_plain_text(HTMLTree.parse(h), main_content=True)
    except ImportError:
        pass
    return peers


def run(lines: list[str], repeat: int = 3) -> None:
    """Append the extraction section (ours next to the installed peers) to ``lines``."""
    sys.path.insert(0, str(ROOT))
    pages = load_corpus()
    _ours(pages[0][2], pages[0][1])  # load the language model outside the timing
    names = {"redecode": "redecode (whole step: parse, metadata, links, main text, language)"}
    fns = {"redecode": _ours, **_peers()}
    names.update({name: f"{name} (main text only)" for name in fns if name != "redecode"})
    lines += [
        "## Extraction (article-extraction corpus, 181 pages)", "",
        "Main-text F1/P/R with the benchmark's metric; pages per CPU-second, best of "
        f"{repeat} rounds, with the extractors taking turns page by page (\"turns\": each "
        "meets the caches the others left; the order rotates by one each page, so each runs "
        "after each other one equally often) and each alone over the whole corpus, taking "
        "turns corpus by corpus (\"alone\": what a user of one extractor gets). Every call "
        "gets a new copy of its page's `str`: CPython keeps a string's UTF-8 form once an "
        "extension asks for it, and resiliparse's parse skips its encoding on a string it "
        "has parsed before (`fresh_copy`).", "",
        "| extractor | F1 | P | R | pages/s (turns) | × resiliparse | pages/s (alone) | × resiliparse |",
        "|---|---|---|---|---|---|---|---|",
    ]
    results = measure(fns, pages, repeat)
    alone = measure_alone(fns, pages, repeat)
    reference = results.get("resiliparse", (None, 0.0))[1]
    reference_alone = alone.get("resiliparse", 0.0)
    for name, (m, rate) in results.items():
        ratio = f"{rate / reference:.2f}" if reference else "-"
        ratio_alone = f"{alone[name] / reference_alone:.2f}" if reference_alone else "-"
        lines.append(f"| {names[name]} | {m['f1']:.3f} | {m['precision']:.3f} | "
                     f"{m['recall']:.3f} | {rate:.0f} | {ratio} | {alone[name]:.0f} | {ratio_alone} |")
    lines.append("")
    link_write_cost(lines, pages, repeat)
    hostile(lines)


def link_write_cost(lines: list[str], pages: list[tuple[str, str, str, str]], repeat: int = 3) -> None:
    """Append the ``links`` table's write cost: rows per page, and CPU per page to build the
    rows, convert them to Arrow and write them as zstd Parquet the way a run's task does
    (row groups of ``MAX_STAGED_LINKS`` links, ``schema.LINKS``, the same sink), best of
    ``repeat``; beside it the extraction of the same pages."""
    import tempfile

    from pipeline.extract import extract
    from pipeline.runners.parts import MAX_STAGED_LINKS
    from pipeline.runners.worker import Rows, links_table
    from pipeline.schema import FREE_TEXT, LINKS, UNIQUE_VALUED
    from pipeline.sinks.parquet import ParquetSink

    clock = time.process_time
    start = clock()
    fields = [(url, extract(html, url, "UTF-8")) for _, url, html, _ in pages]
    extraction = clock() - start
    best, size, rows_total = float("inf"), 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(repeat):
            path = Path(tmp) / f"links-{round_}.parquet"
            start = clock()
            with path.open("wb") as fh:
                sink = ParquetSink(fh, LINKS, UNIQUE_VALUED["links"], FREE_TEXT["links"])
                staged: list[Rows] = []
                pending = 0
                for n, (url, extracted) in enumerate(fields):
                    record = {"run_id": "bench", "record_id": f"record-{n}", "url": url}
                    staged.append(Rows(record=record, links=extracted.links))
                    pending += len(extracted.links)
                    if pending >= MAX_STAGED_LINKS:
                        sink.write_table(links_table(staged))
                        rows_total, staged, pending = rows_total + pending, [], 0
                sink.write_table(links_table(staged))
                rows_total += pending
                sink.close()
            best = min(best, clock() - start)
            size = path.stat().st_size
    rows = rows_total // repeat
    lines += ["## Links table write cost (181 article pages)", "",
              "Rows of every kind, built as a run's worker builds them, converted to Arrow and written as zstd "
              f"Parquet in row groups of {MAX_STAGED_LINKS:,} links; CPU per page, best of {repeat}.", "",
              "| links per page | write CPU per page | bytes per link on disk | extraction CPU per page (same pages) |",
              "|---|---|---|---|",
              f"| {rows / len(pages):.0f} | {best / len(pages) * 1000:.3f} ms | {size / max(rows, 1):.1f} | "
              f"{extraction / len(pages) * 1000:.3f} ms |", ""]


#: Pages the parse limits exist for (a start tag's name in any case, any element that stays
#: open, attributes by the thousand), and the worst the limits still let through.
HOSTILE = {
    "unclosed `<Div>`": lambda size: "<Div>x" * (size // 6),
    "unclosed `<section>`": lambda size: "<section>" * (size // 9),
    "unclosed `<b>` with text": lambda size: "<b>x " * (size // 5),
    "unclosed custom elements": lambda size: "<x-widget>" * (size // 10),
    "one start tag, attributes by the thousand": lambda size: "<div " + "a=1 " * (size // 4) + ">",
    "start tags of 1,000 attributes (under the limit)":
        lambda size: ("<p " + " ".join(f"a{i}" for i in range(1_000)) + ">x</p>") * (size // 5_900),
    "1,000 open elements, then paragraphs (under the limit)":
        lambda size: "<div>" * 1_000 + "<p>x</p>" * ((size - 5_000) // 8),
    # the links' texts: a srcset of candidates by the ten thousand, one big inline script
    # of URL-like strings, a style sheet of url()s (each kind keeps max_links rows)
    "one srcset, candidates by the ten thousand":
        lambda size: "<img srcset='" + "/i.png 1x, " * (size // 11) + "'>",
    "one inline script of string literals":
        lambda size: "<script>var a = [" + "'/p/x', " * (size // 8) + "];</script>",
    "one style sheet of url()s":
        lambda size: "<style>" + "a{b:url(/i.png)}" * (size // 16) + "</style>",
}


def hostile(lines: list[str], sizes: tuple[int, ...] = (512 * 1024, 1_800_000, 5_000_000),
            only: str = "") -> None:
    """Append the hostile-page rows: the whole extraction step per page (CPU seconds, best
    of 3) on both paths, and what the limits answered. The pages are parsed whole
    (``max_parse_bytes`` off): the table measures the parse guards, not the cut."""
    from pipeline.extract import ExtractOptions, document, extract

    whole = ExtractOptions(max_parse_bytes=0)

    lines += ["## Hostile pages (extract(), whole step, the page parsed whole, CPU seconds, best of 3)", "",
              "| page | size | compiled core | MB/s | pure-Python path | result |",
              "|---|---|---|---|---|---|"]
    for name, make in HOSTILE.items():
        if only not in name:
            continue
        for size in sizes:
            text = make(size)
            native = document.NATIVE
            times = []
            for path in ((True, False) if native else (False,)):
                document.NATIVE = path
                try:
                    times.append(min(_cpu(partial(extract, text, "http://x.example/", "UTF-8", whole))
                                     for _ in range(3)))
                finally:
                    document.NATIVE = native
            extracted = extract(text, "http://x.example/", "UTF-8", whole)
            errors = extracted.errors
            result = errors[0].split(": ", 3)[2] if errors else "extracted"
            if not errors and extracted.links_truncated:
                result += f" ({len(extracted.links):,} links, {extracted.links_truncated:,} dropped)"
            fast = f"{times[0]:.3f}" if native else "-"
            rate = f"{len(text.encode()) / 1e6 / times[0]:.0f}" if native and times[0] else "-"
            lines.append(f"| {name} | {len(text.encode()) / 1e6:.1f} MB | {fast} | {rate} | "
                         f"{times[-1]:.3f} | {result} |")
    lines.append("")


def page_texts(pages: list[tuple[str, str, str, str]]) -> dict[str, list[str]]:
    """The style texts (``style`` elements and attributes) and the read inline scripts of
    ``pages``, as the links walk reads them (tests/unit/test_url_text.py reads the same)."""
    from pipeline.extract.reference_tree import parse_document
    from pipeline.extract.url_attributes import script_is_read

    texts: dict[str, list[str]] = {"css": [], "script": []}
    for _, _, html, _ in pages:
        tree = parse_document(html)
        texts["css"] += [node.text(deep=False) for node in tree.css("style")]
        texts["css"] += [node.attributes["style"] or "" for node in tree.css("[style]")]
        texts["script"] += [node.text(deep=False) for node in tree.css("script")
                            if "src" not in node.attributes
                            and script_is_read(node.attributes.get("type"), node.attributes.get("language"))]
    return texts


def reader_rates(pages: list[tuple[str, str, str, str]], repeat: int = 3) -> list[str]:
    """The compiled CSS and script readers (``_urltext.c`` through ``_document.css_urls`` and
    ``script_urls``: each URL found made a ``str``) on the pages' texts: MB of UTF-8 per
    CPU-second, best of ``repeat``."""
    from pipeline.extract import _document  # type: ignore[attr-defined]

    lines = ["| reader | texts | MB | URLs found | MB/s (CPU) |", "|---|---|---|---|---|"]
    every = page_texts(pages)
    for name, texts, read in (("CSS (`css_urls`)", every["css"], _document.css_urls),
                              ("scripts (`script_urls`)", every["script"], _document.script_urls)):
        size = sum(len(text.encode("utf-8", "surrogatepass")) for text in texts) / 1e6
        found = sum(len(read(text)) for text in texts)
        best = min(_cpu(partial(_read_all, read, texts)) for _ in range(repeat))
        lines.append(f"| {name} | {len(texts):,} | {size:.1f} | {found:,} | {size / best:.0f} |")
    return lines


def _read_all(read: Callable[[str], list[str]], texts: list[str]) -> None:
    for text in texts:
        read(text)


def _cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def _ours(html: str, url: str) -> str:
    from pipeline.extract import extract

    return extract(html, url, "UTF-8").main_text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--peers", action="store_true", help="also run trafilatura and resiliparse")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--hostile", action="store_true", help="only the hostile-page rows")
    parser.add_argument("--only", default="", help="with --hostile: the rows whose name holds this")
    parser.add_argument("--write-cost", action="store_true", help="only the links table's write cost")
    parser.add_argument("--readers", action="store_true",
                        help="only the compiled CSS and script readers on the pages' texts (MB/s)")
    args = parser.parse_args()
    if args.readers:
        sys.path.insert(0, str(ROOT))
        print("\n".join(reader_rates(load_corpus(), args.repeat)))
        return
    lines: list[str] = []
    if args.write_cost:
        sys.path.insert(0, str(ROOT))
        link_write_cost(lines, load_corpus(), args.repeat)
        print("\n".join(lines))
        return
    if args.hostile:
        hostile(lines, only=args.only)
        print("\n".join(lines))
        return
    sys.path.insert(0, str(ROOT))
    pages = load_corpus()
    _ours(pages[0][2], pages[0][1])  # load the language model outside the timing
    fns = {"redecode": _ours, **(_peers() if args.peers else {})}
    mb = sum(len(html.encode("utf-8")) for _, _, html, _ in pages) / 1e6  # (per page: mb / len(pages))
    alone = measure_alone(fns, pages, args.repeat)
    results = measure(fns, pages, args.repeat)
    reference = results["resiliparse"][1] if "resiliparse" in results else 0.0
    for name, (m, rate) in results.items():
        ratio = f"  {rate / reference:.2f}x resiliparse (turns), " \
                f"{alone[name] / alone['resiliparse']:.2f}x (alone)" if reference else ""
        print(f"{name:12s} F1 {m['f1']:.3f}  P {m['precision']:.3f}  R {m['recall']:.3f}  "
              f"{rate:7.1f} pages/s {rate * mb / len(pages):5.1f} MB/s (turns)  "
              f"{alone[name]:7.1f} pages/s (alone){ratio}")


if __name__ == "__main__":
    main()
