"""The links table built column by column equals Arrow's conversion of the link rows."""

from __future__ import annotations

import pyarrow as pa

from pipeline.extract import extract
from pipeline.runners.worker import Rows, link_rows, links_table
from pipeline.schema import LINKS

PAGE = """<html><head><base href="https://example.com/dir/"><link rel=canonical href=/c></head>
<body><a href="a">one</a> <a href="https://other.example.org/x" rel="nofollow ugc">two</a>
<area href="/map"><a href="http://[bad">bad</a><a href="b?q=é">three</a>
<a href="mailto:x@example.com">mail</a></body></html>"""


def _rows(record_id: str, url: str | None, text: str) -> Rows:
    fields = extract(text, url, "UTF-8")
    return Rows(record={"run_id": "r1", "record_id": record_id, "url": url}, links=fields.links)


def test_links_table_equals_the_rows_converted_by_arrow() -> None:
    staged = [_rows("<urn:1>", "https://example.com/p", PAGE),
              _rows("<urn:2>", None, PAGE),  # a record without a URL: internal is unknown
              _rows("<urn:3>", "https://example.com/q", "<p>no links at all</p>"),
              _rows("<urn:4>", "http://xn--caf-dma.example/", PAGE)]
    assert sum(len(rows.links) for rows in staged) > 10
    expected = pa.Table.from_pylist([row for rows in staged for row in link_rows(rows)],
                                    schema=LINKS)
    table = links_table(staged)
    assert table.schema == LINKS
    assert table.equals(expected)


def test_links_table_of_pages_without_links_is_empty() -> None:
    table = links_table([_rows("<urn:5>", "https://example.com/", "<p>none</p>")])
    assert table.num_rows == 0 and table.schema == LINKS
