"""The links table built by compiled code (``_urls.links_batch``: a batch of records' links
appended into Arrow arrays, imported by pyarrow through the C Data Interface) equals the
table the Python row building made (``tests/oracles/links_table.py``) and Arrow's own
conversion of the link rows, over synthetic and real pages."""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import pyarrow as pa
import pytest

from pipeline.errors import RecordError
from pipeline.extract import extract
from pipeline.extract.fields import Link
from pipeline.extract.links import NO_LINKS, PageLinks, extract_links
from pipeline.native import urls
from pipeline.rules import load_rules
from pipeline.runners.parts import _refusal
from pipeline.runners.worker import Rows, link_rows, links_table, process_record
from pipeline.schema import LINKS
from pipeline.sources import iter_records
from tests.oracles.links_table import links_table as oracle_links_table

PAGE = """<html><head><base href="https://example.com/dir/"><link rel=canonical href=/c></head>
<body><a href="a">one</a> <a href="https://other.example.org/x" rel="nofollow ugc">two</a>
<area href="/map"><a href="http://[bad">bad</a><a href="b?q=é">three</a>
<a href="mailto:x@example.com">mail</a><p style="background:url(i.png)">x</p><img src="i.png">
<form action=""><script>fetch("/api/x")</script></form></body></html>"""


def _rows(record_id: str, url: str | None, text: str, encoding: str = "UTF-8") -> Rows:
    fields = extract(text, url, encoding)
    return Rows(record={"run_id": "r1", "record_id": record_id, "url": url}, links=fields.links)


def _oracle(staged: list[Rows]) -> pa.Table:
    return oracle_links_table([(rows.record, tuple(rows.links)) for rows in staged])


def test_links_table_equals_the_oracle_and_the_rows_converted_by_arrow() -> None:
    staged = [_rows("<urn:1>", "https://example.com/p", PAGE),
              _rows("<urn:2>", None, PAGE),  # a record without a URL: internal is unknown
              _rows("<urn:3>", "https://example.com/q", "<p>no links at all</p>"),
              _rows("<urn:4>", "http://xn--caf-dma.example/", PAGE),
              _rows("<urn:5>", "http://a.example/ü", PAGE, "windows-1252")]
    assert sum(len(rows.links) for rows in staged) > 20
    kinds = {link.kind for rows in staged for link in rows.links}
    assert {"navigation", "resource", "form", "css", "script-string"} <= kinds
    assert {link.internal for rows in staged for link in rows.links} == {True, False, None}
    expected = pa.Table.from_pylist([row for rows in staged for row in link_rows(rows)], schema=LINKS)
    table = links_table(staged)
    assert table.schema == LINKS
    assert table.equals(expected)
    assert table.equals(_oracle(staged))


def _real_pages() -> list[tuple[str, str, str]]:
    """(URL, text, encoding) of the article-extraction pages and the chardet corpus's
    WHATWG-scope pages (decoded with their true encoding)."""
    corpus = Path(__file__).resolve().parents[3] / "shared" / "corpus"
    truth = json.loads((corpus / "article-extraction" / "ground-truth.json").read_text("utf-8"))
    pages = [(entry["url"], gzip.decompress((corpus / "article-extraction" / "html" / f"{key}.html.gz")
                                            .read_bytes()).decode("utf-8", "replace"), "UTF-8")
             for key, entry in sorted(truth.items())]
    with open(corpus / "chardet" / "MANIFEST.tsv", encoding="utf-8") as fh:
        for k, row in enumerate(csv.DictReader(fh, delimiter="\t")):
            if row["scope"] == "whatwg":
                encoding = row["true_encoding"]
                try:
                    text = (corpus / "chardet" / row["path"]).read_bytes().decode(encoding, "replace")
                except LookupError:
                    continue
                pages.append((f"http://www{k}.example.com/{k}.html", text, encoding))
    return pages


def test_links_table_of_real_pages_equals_the_oracle() -> None:
    pages = _real_pages()
    assert len(pages) > 181
    staged = [_rows(f"<urn:{i}>", url, text, encoding) for i, (url, text, encoding) in enumerate(pages)]
    assert sum(len(rows.links) for rows in staged) > 10_000
    for start in range(0, len(staged), 40):  # batches of records, as a task stages them
        batch = staged[start:start + 40]
        assert links_table(batch).equals(_oracle(batch)), start


def test_links_table_of_the_sample_run_equals_the_oracle() -> None:
    # every record of data/sample (WARC, ARC, Parquet, a cut file) through the worker, as a run
    sample = Path(__file__).resolve().parents[2] / "data" / "sample"
    rules = load_rules(sample / "rules.toml")
    staged = []
    for path in sorted(sample.glob("*.*")):
        if path.suffix in (".gz", ".warc", ".parquet"):
            for raw in iter_records(str(path)):
                outcome = raw if isinstance(raw, RecordError) else process_record(raw, rules, "sample")
                if isinstance(outcome, Rows):
                    staged.append(outcome)
    assert len(staged) > 80 and sum(len(rows.links) for rows in staged) > 700
    table = links_table(staged)
    assert table.equals(_oracle(staged))
    assert table.num_rows == sum(len(rows.links) for rows in staged)


def test_the_batch_takes_its_columns_order_from_the_schema() -> None:
    # pipeline.schema.LINKS declares the columns: the compiled builder fills them by name
    staged = [_rows("<urn:1>", "https://example.com/p", PAGE)]
    reordered = pa.schema(list(reversed(LINKS)))
    schema, array = urls.links_batch(reordered.__arrow_c_schema__(),
                                     [(staged[0].links, "r1", "<urn:1>", "https://example.com/p")])
    batch = pa.RecordBatch._import_from_c_capsule(schema, array)
    assert batch.schema == reordered
    assert pa.Table.from_batches([batch]).select(LINKS.names).equals(links_table(staged))


def test_links_table_of_pages_without_links_is_empty() -> None:
    for staged in ([_rows("<urn:5>", "https://example.com/", "<p>none</p>")], [Rows(record={})], []):
        table = links_table(staged)
        assert table.num_rows == 0 and table.schema == LINKS
        assert table.equals(_oracle(staged))


def test_a_link_arrow_refuses_is_refused_and_named_as_before() -> None:
    # a string without UTF-8 (a lone surrogate) cannot be written: the batch raises, as the
    # Python conversion did, and the record's refusal names the column
    page, _ = extract_links([("navigation", "a", "href", "/x", None, "bad \ud800 text")], "http://a.example/",
                            "http://a.example/", "UTF-8")
    staged = [Rows(record={"run_id": "r1", "record_id": "<urn:1>", "url": "http://a.example/"}, links=page)]
    with pytest.raises(ValueError):
        links_table(staged)
    with pytest.raises((ValueError, pa.ArrowException)):
        _oracle(staged)
    refusal = _refusal(staged[0])
    assert refusal is not None and refusal.startswith("links.anchor_text")


def test_page_links_read_as_links() -> None:
    page, bad = extract_links([("navigation", "a", "href", "/x", "NoFollow me", "t"),
                               ("navigation", "a", "href", "http://[", None, "u"),
                               ("resource", "img", "src", "https://b.example/i", None, "")],
                              "http://a.example/", "http://a.example/", "UTF-8")
    assert isinstance(page, PageLinks) and bad == 1 and len(page) == 2
    first = Link("http://a.example/x", "t", "NoFollow me", "a", "href", "navigation", True, True)
    second = Link("https://b.example/i", "", None, "img", "src", "resource", False, False)
    assert page[0] == first and page[-1] == second and list(page) == [first, second]
    assert page[:1] == (first,) and page[::-1] == (second, first) and page[5:] == ()
    assert page == (first, second) and page == [first, second] and page != (first,)
    assert (first, second) == page and NO_LINKS == () and len(NO_LINKS) == 0
    assert repr(page) == "<PageLinks: 2 links>" and hash(page) == hash((first, second))
