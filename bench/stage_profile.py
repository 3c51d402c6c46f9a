"""Where a page's CPU goes, stage by stage, in one warm process.

    python -m bench.stage_profile [--repeats 2] [--rounds 2]

Builds the end-to-end benchmark's crawl (:func:`bench.crawl.write_real_crawl`) and runs the
task's loop by hand, the stages of :func:`pipeline.runners.worker.process_record` and the
task's row groups timed apart (``time.process_time``), after a warm-up file: reading
(FastWARC + checks + the Common Crawl join), record selection and ``parse_response``,
``decode_html`` (sniffing + decoding), the mojibake score, the naive decode's verdict,
``extract``, building the row, converting a row group to Arrow, writing it to Parquet. The
totals are summed over ``--rounds`` passes (each stage's share is what matters; the machine's
speed drifts).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path


def profile(paths: list[Path], rounds: int, out: Path) -> tuple[int, dict[str, float]]:
    """(pages, seconds per stage) over ``rounds`` passes of ``paths``, the tables written
    under ``out``."""
    from pipeline.runners.startup import start_worker

    start_worker()
    from pipeline import http
    from pipeline.encoding.api import decode_html
    from pipeline.encoding.mojibake import mojibake_score, naive_decode_garbled
    from pipeline.errors import RecordError
    from pipeline.extract import extract
    from pipeline.rules import load_rules
    from pipeline.runners.parts import MAX_STAGED_LINKS
    from pipeline.runners.parts import tables as _tables
    from pipeline.runners.worker import _matched_rule, _rows, partial_errors
    from pipeline.schema import FREE_TEXT, LINKS, RECORDS, UNIQUE_VALUED
    from pipeline.sinks.parquet import ROW_GROUP_BYTES, ROW_GROUP_ROWS, ParquetSink
    from pipeline.sources import iter_records

    rules = load_rules(None)
    clock = time.process_time
    spent = dict.fromkeys(["reading", "select + parse_response", "decode_html", "mojibake_score",
                           "naive_decode_garbled", "extract", "row", "Arrow conversion",
                           "Parquet writing"], 0.0)
    pages = 0
    out.mkdir(parents=True, exist_ok=True)

    def write(staged: list, text: int, sinks: tuple) -> None:
        start = clock()
        records, links = _tables(staged)
        converted = clock()
        sinks[0].write_table(records, text)
        sinks[1].write_table(links)
        spent["Arrow conversion"] += converted - start
        spent["Parquet writing"] += clock() - converted

    for round_ in range(rounds + 1):  # the first pass warms up and is not counted
        totals = dict(spent)
        counted = pages
        for k, path in enumerate(paths):
            # (the sink writes to a file object its caller opens and closes, as a task's do)
            files = (open(out / f"r{round_}-{k}.parquet", "wb"),
                     open(out / f"l{round_}-{k}.parquet", "wb"))
            sinks = (ParquetSink(files[0], RECORDS, UNIQUE_VALUED["records"], FREE_TEXT["records"]),
                     ParquetSink(files[1], LINKS, UNIQUE_VALUED["links"], FREE_TEXT["links"]))
            staged: list = []
            text = links = 0
            items = iter_records(str(path))
            while True:
                t0 = clock()
                raw = next(items, None)
                t1 = clock()
                spent["reading"] += t1 - t0
                if raw is None:
                    break
                if isinstance(raw, RecordError) or http.select(raw) is not None:
                    spent["select + parse_response"] += clock() - t1
                    continue
                resp = http.parse_response(raw, max_decompressed=rules.max_decompressed)
                if isinstance(resp, RecordError) or http.select_response(resp) is not None:
                    spent["select + parse_response"] += clock() - t1
                    continue
                t2 = clock()
                decoded = decode_html(resp.body, resp.content_type, raw.url, rules=rules,
                                      crawler_charset=raw.crawler_charset)
                t3 = clock()
                score = mojibake_score(decoded.text, decoded.encoding, utf8=decoded.utf8)
                t4 = clock()
                garbled = naive_decode_garbled(resp.body, resp.content_type, decoded.text, utf8=decoded.utf8)
                t5 = clock()
                fields = extract(decoded.text, raw.url, decoded.encoding, rules.extract,
                                 utf8=decoded.utf8)
                t6 = clock()
                rows = _rows(raw, resp, decoded, fields, score, garbled, rules, "stages")
                partial_errors(raw, decoded, fields)
                _matched_rule(raw, decoded, rules)
                t7 = clock()
                for name, a, b in (("select + parse_response", t1, t2), ("decode_html", t2, t3),
                                   ("mojibake_score", t3, t4), ("naive_decode_garbled", t4, t5),
                                   ("extract", t5, t6), ("row", t6, t7)):
                    spent[name] += b - a
                staged.append(rows)
                text += sinks[0].text_size(rows.record)
                links += len(rows.links)
                pages += 1
                if (len(staged) >= ROW_GROUP_ROWS or text >= ROW_GROUP_BYTES
                        or links >= MAX_STAGED_LINKS):  # as a task does
                    write(staged, text, sinks)
                    staged, text, links = [], 0, 0
            if staged:
                write(staged, text, sinks)
            closing = clock()
            for sink in sinks:  # (the row groups still gathered, and the footers)
                sink.close()
            spent["Parquet writing"] += clock() - closing
            for fh in files:
                fh.close()
        if round_ == 0:
            spent, pages = totals, counted
    return pages, spent


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.stage_profile")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    from bench.crawl import write_real_crawl

    with tempfile.TemporaryDirectory(prefix="redecode-stages-") as tmp:
        crawl = write_real_crawl(Path(tmp) / "crawl", repeats=args.repeats)
        pages, spent = profile(list(crawl.paths), args.rounds, Path(tmp) / "out")
    total = sum(spent.values())
    print(f"{pages:,} pages, {total / pages * 1e6:.0f} µs of CPU a page "
          f"({pages / total:.0f} pages per CPU-second, after start-up)\n")
    print("| stage | µs a page | share |\n|---|---|---|")
    for name, seconds in spent.items():
        print(f"| {name} | {seconds / pages * 1e6:.0f} | {seconds / total:.1%} |")


if __name__ == "__main__":
    sys.exit(main())
