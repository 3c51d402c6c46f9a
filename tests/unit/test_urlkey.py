"""Common Crawl's columns: the SURT key against lines of Common Crawl's own index, the URL's
path and query, the payload digest, the redirect target; ``warc_filename`` relative to the
run's input root, and a record read back from it."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import duckdb
import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from pipeline.rules import Rules
from pipeline.runners import worker
from pipeline.runners.local import run
from pipeline.sources.ranges import Locator, read_located
from pipeline.sources.record import RawRecord
from pipeline.sources.roots import input_root, located_path, stable_name
from pipeline.urlhost import path_and_query
from pipeline.urlkey import url_surtkey

# (url, urlkey) of CDX lines of Common Crawl's index, as published:
CC_INDEX_LINES = [
    # commoncrawl/cc-index-table, src/test/java/org/commoncrawl/spark/TestCCIndex2Table.java
    ("https://commoncrawl.org/faq", "org,commoncrawl)/faq"),
    # the same repository's schema (cc-index-schema-flat.json), url_surtkey's example
    ("https://www.example.com/path/index.html", "com,example)/path/index.html"),
    # CC-MAIN-2024-30, crawldiagnostics: an IP address is reversed too
    ("http://165.22.100.0/", "0,100,22,165)/"),
    ("http://165.22.100.0/robots.txt", "0,100,22,165)/robots.txt"),
    # CC-MAIN-2023-14: "www." dropped
    ("http://www.tutorialspoint.com/accounting_basics/accounting_basics_tutorial.pdf",
     "com,tutorialspoint)/accounting_basics/accounting_basics_tutorial.pdf"),
    # CC-MAIN-2025-21: the trailing slash dropped; a query's parameters sorted
    ("https://fusionbikes.com.ar/producto/luz-knog-blinder-mini-niner/",
     "ar,com,fusionbikes)/producto/luz-knog-blinder-mini-niner"),
    ("http://futbolinterior.com.ar/component/mailto/?tmpl=component&template=shaper_helix3"
     "&link=b2449dac9dd9dbc27fe2d9f8c9dfc250a10eb664",
     "ar,com,futbolinterior)/component/mailto?link=b2449dac9dd9dbc27fe2d9f8c9dfc250a10eb664"
     "&template=shaper_helix3&tmpl=component"),
    # the index server's answers as quoted in its users' notes (CC-MAIN-2026-21, -2023-40)
    ("http://www.example.com/", "com,example)/"),
    ("https://mistral.ai/", "ai,mistral)/"),
]

# webarchive-commons' own canonicalization cases (IAURLCanonicalizerTest,
# GoogleURLCanonicalizerTest), as keys
CANONICALIZER_CASES = [
    ("http://www.archive.org:80/", "org,archive)/"),  # the default port
    ("https://www.archive.org:80/", "org,archive:80)/"),  # not https's default
    ("https://www.archive.org:443/", "org,archive)/"),
    ("http://www.archive.org/big/", "org,archive)/big"),
    ("http://archive.org/index.html?", "org,archive)/index.html"),  # an empty query
    ("http://archive.org/index.html?b=b&a=b", "org,archive)/index.html?a=b&b=b"),
    ("http://www34.archive.org/index.html?b=a&b=b&a=b", "org,archive)/index.html?a=b&b=a&b=b"),
    ("http://host/%25%32%35", "host)/%25"),  # decoded until stable, encoded once
    ("http://host.com//twoslashes?more//slashes", "com,host)/twoslashes?more//slashes"),
    ("http://www.google.com/blah/..", "com,google)/"),
    ("http://3279880203/blah", "11,0,127,195)/blah"),
    ("http://www.example.com/(S(4hqa0555fwsecu455xqckv45))/mileg.aspx", "com,example)/mileg.aspx"),
    ("http://a.example/x?jsessionid=0123456789abcdef0123456789abcdef&b=1", "example,a)/x?b=1"),
    ("http://a.example/Caf%C3%A9/?Q=%C3%A9", "example,a)/caf%c3%a9?q=%c3%a9"),
    ("http://Bücher.example:8080/", "example,xn--bcher-kva:8080)/"),
]


@pytest.mark.parametrize(("url", "key"), CC_INDEX_LINES + CANONICALIZER_CASES,
                         ids=[u for u, _ in CC_INDEX_LINES + CANONICALIZER_CASES])
def test_url_surtkey_is_common_crawls_urlkey(url: str, key: str):
    assert url_surtkey(url) == key


def test_urls_without_a_host_have_no_key():
    assert url_surtkey("mailto:a@b.example") is None
    assert url_surtkey("not a url") is None
    assert url_surtkey(None) is None


@pytest.mark.parametrize(("url", "expected"), [
    ("http://a.example/b/../c d?q=1#f", ("/c%20d", "q=1")),
    ("http://a.example/x?", ("/x", "")),  # a bare "?": an empty query, not none
    ("http://a.example", ("/", None)),
    ("http://a.example/x#?not-a-query", ("/x", None)),
])
def test_url_path_and_query(url: str, expected: tuple[str, str | None]):
    assert path_and_query(url) == expected


def _response(status: str, headers: list[tuple[str, str]], url: str, digest: str | None) -> RawRecord:
    head = f"HTTP/1.1 {status}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
    block = head.encode("latin-1") + b"<html><title>t</title></html>"
    return RawRecord("x.warc", 0, len(block), "<urn:uuid:1>", "response", url, None, block,
                     payload_digest=digest)


def test_a_row_has_common_crawls_columns():
    raw = _response("301 Moved Permanently",
                    [("Content-Type", "text/html"), ("Location", "/new/?b=1")],
                    "http://www.Example.com/old/path?z=1&a=2",
                    "sha1:CH7IV3XAD3M7A42JARKRLJ3T5PGGCGXD")
    rows = worker.process_record(raw, Rules(), "r")
    assert isinstance(rows, worker.Rows)
    record = rows.record
    assert record["url_surtkey"] == "com,example)/old/path?a=2&z=1"
    assert (record["url_path"], record["url_query"]) == ("/old/path", "z=1&a=2")
    assert record["fetch_redirect"] == "http://www.example.com/new/?b=1"
    assert record["content_digest"] == "CH7IV3XAD3M7A42JARKRLJ3T5PGGCGXD"
    ok = worker.process_record(_response("200 OK", [("Content-Type", "text/html"), ("Location", "/x")],
                                         "http://a.example/", None), Rules(), "r")
    assert isinstance(ok, worker.Rows)
    assert ok.record["fetch_redirect"] is None and ok.record["content_digest"] is None


def test_the_payload_digest_is_read_by_both_readers(tmp_path: Path):
    path = tmp_path / "d.warc.gz"
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for i in range(3):
            body = f"<p>{i}</p>".encode()
            rec = writer.create_warc_record(
                f"http://a.example/{i}", "response", payload=io.BytesIO(body),
                http_headers=StatusAndHeaders("200 OK", [("Content-Type", "text/html")],
                                              protocol="HTTP/1.1"))
            writer.write_record(rec)
    from pipeline.sources.archive import iter_archive

    fast = list(iter_archive(str(path)))
    careful = list(iter_archive(str(path), reader="careful"))
    assert fast == careful
    digests = [r.payload_digest for r in fast if isinstance(r, RawRecord)]
    assert len(digests) == 3 and all(d and d.startswith("sha1:") for d in digests)


def test_input_roots(tmp_path: Path):
    crawl = tmp_path / "crawl"
    (crawl / "2024").mkdir(parents=True)
    files = [str(crawl / "2024" / "a.warc.gz")]
    # a folder: its own path, however deep its files are
    assert input_root([str(crawl)], files) == str(crawl)
    # a file named alone: its folder
    assert input_root(files, files) == str(crawl / "2024")
    # a glob: its folder before the first wildcard
    assert input_root([str(crawl / "*" / "*.warc.gz")], files) == str(crawl)
    # --input-base, a bucket, a host
    assert input_root(["@l.txt"], files, str(tmp_path)) == str(tmp_path)
    assert input_root(["s3://b/crawl-data/"], ["s3://b/crawl-data/x.warc.gz"]) == "s3://b/"
    assert input_root(["https://h/x.warc.gz"], ["https://h/x.warc.gz"]) == "https://h/"
    # two buckets: no root
    assert input_root(["s3://a/", "s3://b/"], ["s3://a/x.warc.gz", "s3://b/x.warc.gz"]) is None
    assert stable_name(files[0], str(crawl)) == "2024/a.warc.gz"
    assert stable_name("s3://b/crawl-data/x.warc.gz", "s3://b/") == "crawl-data/x.warc.gz"
    assert located_path("s3://b/", "crawl-data/x.warc.gz") == "s3://b/crawl-data/x.warc.gz"


def test_warc_filename_is_relative_to_the_input_root_and_opens_the_record(tmp_path: Path):
    crawl = tmp_path / "crawl"
    (crawl / "seg").mkdir(parents=True)
    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "warc"
    shutil.copy(fixtures / "cc-metadata-join.warc.gz", crawl / "seg" / "cc.warc.gz")
    shutil.copy(fixtures / "concatenated-whole-file-gzip.warc.gz", crawl / "whole.warc.gz")
    run([str(crawl)], tmp_path / "out", Rules(), workers=1, run_id="names")
    con = duckdb.connect()
    out = tmp_path / "out"
    ((root, config),) = con.sql(
        f"select input_root, config from read_parquet('{out}/runs/*/*.parquet')").fetchall()
    assert root == str(crawl) == json.loads(config)["input_root"]
    rows = con.sql(
        "select warc_filename, warc_record_offset, warc_record_length, "
        "warc_record_offset_in_member, record_id, url, content_languages "
        f"from read_parquet('{out}/records/*/*.parquet') order by all").fetchall()
    assert {row[0] for row in rows} == {"seg/cc.warc.gz", "whole.warc.gz"}
    assert any(row[6] for row in rows)  # a response with its metadata joined
    for name, offset, length, in_member, record_id, url, languages in rows:
        with open(located_path(root, name), "rb") as fh:
            (record,) = read_located(fh, name, [Locator(offset, length, in_member)])
        assert isinstance(record, RawRecord)
        assert (record.warc_filename, record.record_id, record.url, record.content_languages) == (
            name, record_id, url, languages)
