"""`make bench`: decode speed, linearity on hostile input, end to end against the peer stacks,
extraction, each beside peers measured in the same run, and the storage layer and Spark
against local disk and the local runner (machines are shared and noisy: read the ratios).
The sections are listed in :data:`SECTIONS`.

Prints each section's progress on stderr and the tables on stdout, and writes them to
--results (`make bench`: out/bench/RESULTS.md; `make bench WRITE=1`: the tracked
bench/RESULTS.md, which only a complete run, no --only and no --quick, may replace).
`python -m bench --quick` uses smaller crawls and fewer rounds; `--only NAME` runs one section.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"


def best_of(fn: Callable[[], object], repeat: int = 3) -> float:
    """Best wall time of ``repeat`` calls (the least disturbed by other load)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def chardet_groups() -> dict[str, list[tuple[bytes, str]]]:
    """Real pages from the chardet corpus in three groups: declared UTF-8, declared legacy, undeclared."""
    groups: dict[str, list[tuple[bytes, str]]] = {"declared UTF-8": [], "declared legacy": [], "undeclared": []}
    with open(CORPUS / "chardet" / "MANIFEST.tsv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if row["scope"] != "whatwg":
                continue
            body = (CORPUS / "chardet" / row["path"]).read_bytes()
            url = f"http://{row['site_tld'] if row['site_tld'] != '-' else 'example.com'}.example/"
            if row["has_in_document_declaration"] != "yes" and row["has_bom"] != "yes":
                groups["undeclared"].append((body, url))
            elif row["true_encoding"] == "UTF-8":
                groups["declared UTF-8"].append((body, url))
            else:
                groups["declared legacy"].append((body, url))
    return groups


def bench_decode(lines: list[str]) -> None:
    from charset_normalizer import from_bytes

    from pipeline import decode_html

    try:
        from w3lib.encoding import html_to_unicode
    except ImportError:
        html_to_unicode = None
    lines += ["## decode_html (MB/s, one core, best of 3)", "",
              "| pages | files | MB | redecode | charset-normalizer | w3lib html_to_unicode |",
              "|---|---|---|---|---|---|"]
    for name, pages in chardet_groups().items():
        mb = sum(len(b) for b, _ in pages) / 1e6
        ours = best_of(lambda pages=pages: [decode_html(b, None, u) for b, u in pages])
        cn = best_of(lambda pages=pages: [str(from_bytes(b).best()) for b, _ in pages], repeat=1)
        w3 = best_of(lambda pages=pages: [html_to_unicode(None, b) for b, _ in pages]) if html_to_unicode else None
        lines.append(f"| {name} (chardet corpus) | {len(pages)} | {mb:.2f} | {mb / ours:.1f} | "
                     f"{mb / cn:.1f} | {f'{mb / w3:.1f}' if w3 else 'n/a'} |")
    import random

    from bench.crawl import page

    rng = random.Random(1)
    big = [(page(rng, "en", "utf-8", True, i, 200_000), "text/html; charset=utf-8") for i in range(20)]
    meta = [(page(rng, "en", "utf-8", True, i, 200_000), "text/html") for i in range(20)]
    undeclared = [(page(rng, "ru", "cp1251", False, i, 200_000), "text/html") for i in range(20)]
    legacy = [(page(rng, "ja", "shift_jis", False, i, 200_000), "text/html; charset=shift_jis") for i in range(20)]
    for name, docs in (("declared UTF-8 (header), 200 KB pages", big),
                       ("declared UTF-8 (meta only), 200 KB pages", meta),
                       ("undeclared windows-1251, 200 KB pages", undeclared),
                       ("declared Shift_JIS (header), 200 KB pages", legacy)):
        mb = sum(len(b) for b, _ in docs) / 1e6
        ours = best_of(lambda docs=docs: [decode_html(b, ct, "http://x.example/") for b, ct in docs])
        cn = best_of(lambda docs=docs: [str(from_bytes(b).best()) for b, _ in docs], repeat=1)
        w3 = best_of(lambda docs=docs: [html_to_unicode(ct, b) for b, ct in docs]) if html_to_unicode else None
        lines.append(f"| {name} | {len(docs)} | {mb:.2f} | {mb / ours:.1f} | {mb / cn:.1f} | "
                     f"{f'{mb / w3:.1f}' if w3 else 'n/a'} |")
    lines.append("")


def bench_hostile(lines: list[str]) -> None:
    from pipeline import decode_html

    size = 10 * 2**20
    cases = {
        "plain text": b"a" * size,
        "`<` repeated": b"<" * size,
        "`<meta ` repeated": (b"<meta " * (size // 6 + 1))[:size],
        "`<!--` repeated": (b"<!--" * (size // 4 + 1))[:size],
        "`<!-- >` repeated": (b"<!-- >" * (size // 6 + 1))[:size],
        "`<meta charset=` unterminated attrs": (b"<meta charset=" * (size // 14 + 1))[:size],
    }
    base = None
    lines += ["## Linearity on hostile input (10 MB, decode_html)", "",
              "| input | seconds | × plain text |", "|---|---|---|"]
    for name, body in cases.items():
        secs = best_of(lambda body=body: decode_html(body, None, "http://x.example/"), repeat=2)
        base = base or secs
        lines.append(f"| {name} | {secs:.3f} | {secs / base:.2f} |")
    lines.append("")
    bench_hostile_extract(lines)


def bench_hostile_extract(lines: list[str]) -> None:
    """Issue 4's malformed inputs: 512 KB each through the whole extraction step."""
    from pipeline.extract import extract

    size = 512 * 1024
    pieces = {
        "unclosed `<a href>`": "<a href=/x>a", "unclosed `<a>`": "<a>a",
        "unclosed `<script>`": "<script>a", "unclosed `<h2>`": "<h2>a", "raw `<` in text": "a < b ",
    }
    extract("<title>warm-up</title><p>Le chat dort.", "http://x.example/", "UTF-8")  # models
    lines += ["## Malformed HTML, 512 KB each (extract(), whole step, best of 3)", "",
              "| input | seconds |", "|---|---|"]
    for name, piece in pieces.items():
        text = "<body>" + piece * (size // len(piece))
        secs = best_of(lambda text=text: extract(text, "http://x.example/", "UTF-8"), repeat=3)
        lines.append(f"| {name} | {secs:.3f} |")
    lines.append("")


def _in_own_process(lines: list[str], module: str, *options: str) -> None:
    """Run ``python -m bench.MODULE`` and append the tables it prints: sections that measure
    peak RSS run from a small process (bench/proc.py says why); progress goes to stderr."""
    out = subprocess.run([sys.executable, "-m", f"bench.{module}", *options], cwd=ROOT,
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    lines += out.rstrip("\n").split("\n") + [""]


def section_e2e(lines: list[str], args: argparse.Namespace) -> None:
    _in_own_process(lines, "e2e_bench", *(["--repeats", "1", "--rounds", "2"] if args.quick else []))


def section_extract(lines: list[str], args: argparse.Namespace) -> None:
    from bench import extract_bench

    extract_bench.run(lines)


def section_main_text(lines: list[str], args: argparse.Namespace) -> None:
    from bench import main_text_bench

    main_text_bench.run(lines)


def section_robustness(lines: list[str], args: argparse.Namespace) -> None:
    _in_own_process(lines, "hostile_bench")


def section_decode(lines: list[str], args: argparse.Namespace) -> None:
    bench_decode(lines)


def section_hostile(lines: list[str], args: argparse.Namespace) -> None:
    bench_hostile(lines)


def section_accuracy(lines: list[str], args: argparse.Namespace) -> None:
    from bench import accuracy

    accuracy.run(lines)


def section_rules(lines: list[str], args: argparse.Namespace) -> None:
    from bench import rules_bench

    rules_bench.rules_section(lines, quick=args.quick)


def section_incremental(lines: list[str], args: argparse.Namespace) -> None:
    _in_own_process(lines, "incremental_bench",
                    *(["--repeats", "6", "--rounds", "1"] if args.quick else []))


def section_record_lists(lines: list[str], args: argparse.Namespace) -> None:
    _in_own_process(lines, "record_lists_bench",
                    *(["--rows", "100000", "--repeats", "4", "--rounds", "1"]
                      if args.quick else []))


def section_storage(lines: list[str], args: argparse.Namespace) -> None:
    from bench import storage_bench

    storage_bench.run(lines, 20 if args.quick else 40)


#: The sections, in the order they run: name -> (what the progress line says, function).
#: Each appends its tables to ``lines``; a new section is one line here.
SECTIONS: dict[str, tuple[str, Callable[[list[str], argparse.Namespace], None]]] = {
    "accuracy": ("accuracy against the standards and Chromium", section_accuracy),
    "decode": ("decode_html against the peers", section_decode),
    "hostile": ("hostile inputs", section_hostile),
    "e2e": ("end to end against the peer stacks", section_e2e),
    "extract": ("extraction against the peers", section_extract),
    "main-text": ("main text against the peers (ROUGE-LSum)", section_main_text),
    "robustness": ("hostile inputs through redecode run", section_robustness),
    "storage": ("storage: S3 against local disk, Spark against the local runner", section_storage),
    "rules": ("rules learned from a crawl (suggest-rules)", section_rules),
    "incremental": ("a rule change re-decoded incrementally (--base-run)", section_incremental),
    "record-lists": ("record lists read by byte ranges", section_record_lists),
}

_started = time.monotonic()


def _progress(message: str) -> None:
    print(f"bench: {message} ({time.monotonic() - _started:.0f} s so far)", file=sys.stderr,
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("--quick", action="store_true", help="smaller crawls, fewer rounds")
    parser.add_argument("--only", choices=list(SECTIONS), action="append")
    parser.add_argument("--results", type=Path, help="also write the tables to this file")
    args = parser.parse_args()
    tracked = ROOT / "bench" / "RESULTS.md"
    if args.results is not None and args.results.resolve() == tracked and (args.only or args.quick):
        parser.error("only a complete run (no --only, no --quick) replaces bench/RESULTS.md")
    only = args.only or list(SECTIONS)
    lines = [f"# Benchmark results ({time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, "
             f"Python {sys.version.split()[0]})", "",
             "Measured by `make bench` (`python -m bench`). Peers run in the same run.", ""]
    for name, (title, section) in SECTIONS.items():
        if name in only:
            _progress(title)
            section(lines, args)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.results is not None:
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text(text)
        _progress(f"done; written to {args.results}")


if __name__ == "__main__":
    main()
