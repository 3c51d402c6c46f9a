"""A folder of saved pages as input (`redecode run pages/ --out out/`): each .html/.htm file
is one record through the same worker and tables as a WARC record, with a stable record id,
a locator that reads it back, and the URL --url-base and its name give it."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import duckdb
from warcio.warcwriter import WARCWriter

from pipeline.rules import load_rules
from pipeline.runners.plan import PAGES_PER_TASK, plan
from tests.cli_helpers import no_traceback, redecode, runs_row

JAPANESE = ("<html><head><meta charset='Shift_JIS'><title>日本語のページ</title></head><body>"
            "<article>" + "<p>これは保存されたページの本文です。十分な長さの日本語の文章。</p>" * 8
            + "<a href='other.htm'>次へ</a><a href='/top'>top</a></article></body></html>")
RUSSIAN = ("<html><head><title>Страница</title></head><body><p>"
           + "Привет, мир! Это сохранённая страница без объявленной кодировки. " * 6
           + "</p><a href='../index.html'>назад</a></body></html>")
PAGES: dict[str, bytes] = {
    "index.html": b"\xef\xbb\xbf<!doctype html><title>Caf\xc3\xa9</title><p>Un caf\xc3\xa9.</p>",
    "jp/page.html": JAPANESE.encode("shift_jis"),
    "jp/other.htm": b"<html><title>plain</title><p>ASCII only.</p></html>",
    "ru/a page.HTML": RUSSIAN.encode("windows-1251"),
    "empty.html": b"",
}
BASE = "https://example.jp/site/"
#: Columns that name where a record was read from, which run wrote it, or when the WARC
#: was written (a saved page does not say when it was fetched: fetch_time is NULL).
#: What a row owes to where it was read from, not to the page's bytes: its locator, its id,
#: and what the archive's own headers say (the fetch time, the payload digest).
LOCATOR = ("run_id", "record_id", "warc_filename", "warc_record_offset", "warc_record_length",
           "rules_version", "fetch_time", "content_digest")


def _pages(folder: Path) -> Path:
    for name, data in PAGES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    (folder / "notes.txt").write_text("not a page")
    return folder


def _warc_of_the_same_pages(path: Path) -> None:
    """The pages as WARC resource records of the same URLs (what a crawler that stored the
    files would have written), for the comparison."""
    from urllib.parse import quote

    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for name, data in sorted(PAGES.items()):
            record = writer.create_warc_record(
                BASE + quote(name, safe="/"), "resource", payload=io.BytesIO(data),
                warc_content_type="text/html", length=len(data))
            writer.write_record(record)


def _rows(out: Path, table: str, run_id: str) -> list[dict[str, Any]]:
    cursor = duckdb.execute(f"select * from read_parquet('{out}/{table}/run_id={run_id}/*.parquet')")
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def test_saved_pages_give_the_rows_their_warc_records_give(tmp_path: Path) -> None:
    pages = _pages(tmp_path / "pages")
    warc = tmp_path / "same.warc.gz"
    _warc_of_the_same_pages(warc)
    out = tmp_path / "out"
    for args in ([str(pages), "--url-base", BASE, "--run-id", "pages"],
                 [str(warc), "--run-id", "warc"]):
        result = redecode("run", *args, "--out", str(out), "-q")
        assert result.returncode == 0 and no_traceback(result), result.stderr
    by_url = {run_id: {row["url"]: row for row in _rows(out, "records", run_id)}
              for run_id in ("pages", "warc")}
    assert sorted(by_url["pages"]) == sorted(by_url["warc"])
    assert len(by_url["pages"]) == len(PAGES) - 1  # the empty file is skipped
    for url, row in by_url["pages"].items():
        theirs = by_url["warc"][url]
        assert {k: v for k, v in row.items() if k not in LOCATOR} == \
               {k: v for k, v in theirs.items() if k not in LOCATOR}, url
    page = by_url["pages"][BASE + "jp/page.html"]
    assert (page["encoding"], page["encoding_source"], page["title"]) == (
        "Shift_JIS", "meta", "日本語のページ")
    assert by_url["pages"][BASE + "ru/a%20page.HTML"]["encoding"] == "windows-1251"
    links = {(r["url"], r["target_url"]) for r in _rows(out, "links", "pages")}
    assert links == {(r["url"], r["target_url"]) for r in _rows(out, "links", "warc")}
    assert (BASE + "jp/page.html", BASE + "jp/other.htm") in links
    # the locator reads the page back: the file, from byte 0, its whole length
    for row in by_url["pages"].values():
        assert row["warc_record_offset"] == 0 and row["fetch_time"] is None
        data = Path(row["warc_filename"]).read_bytes()
        assert len(data) == row["warc_record_length"]
        assert PAGES[str(Path(row["warc_filename"]).relative_to(pages))] == data
    runs = runs_row(out, "pages")
    assert runs["records_seen"] == len(PAGES) and runs["files"] == len(PAGES)
    assert runs["skipped_by_reason"] == '{"empty-record": 1}'
    assert runs["config"]["url_base"] == BASE
    assert sorted(runs["inputs"]) == sorted(str(pages / name) for name in PAGES)


def test_a_page_keeps_its_record_id_wherever_its_folder_is(tmp_path: Path) -> None:
    first = _pages(tmp_path / "first")
    moved = tmp_path / "elsewhere" / "copy"
    shutil.copytree(first, moved)
    out = tmp_path / "out"
    for folder, run_id in ((first, "a"), (moved, "b")):
        result = redecode("run", str(folder), "--out", str(out), "-q", "--run-id", run_id)
        assert result.returncode == 0, result.stderr
    ids = {run_id: {Path(r["warc_filename"]).name: r["record_id"]
                    for r in _rows(out, "records", run_id)} for run_id in ("a", "b")}
    assert ids["a"] == ids["b"] and len(set(ids["a"].values())) == len(PAGES) - 1
    # without --url-base a page is decoded as its own file:// URL
    urls = {r["url"] for r in _rows(out, "records", "b")}
    assert (moved / "jp" / "page.html").resolve().as_uri() in urls


def test_pages_beside_archives_are_passed_over_and_named_pages_are_taken(
    tmp_path: Path,
) -> None:
    crawl = tmp_path / "crawl"
    _pages(crawl)
    _warc_of_the_same_pages(crawl / "crawl.warc.gz")
    out = tmp_path / "out"
    result = redecode("run", str(crawl), "--out", str(out), "-q", "--run-id", "c")
    assert result.returncode == 0, result.stderr
    assert (f"passed over: {crawl / 'index.html'}: a saved page beside archives"
            in result.stderr)
    assert runs_row(out, "c")["inputs"] == [str(crawl / "crawl.warc.gz")]
    named = redecode("run", str(crawl / "jp" / "page.html"), "--out", str(out), "-q",
                     "--run-id", "n", "--url-base", "http://example.jp/x/")
    assert named.returncode == 0, named.stderr
    (row,) = _rows(out, "records", "n")
    assert row["url"] == "http://example.jp/x/page.html"  # a named file: its own name


def test_pages_are_read_in_batches_and_url_base_needs_pages(tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(PAGES_PER_TASK + 1):
        (folder / f"p{i:04d}.html").write_bytes(b"<p>x</p>")
    planned = plan([str(folder)], tmp_path / "out", load_rules(None), url_base="https://h/")
    assert len(planned.files) == 2 == len(planned.pages)
    assert [len(planned.pages[name]) for name in planned.files] == [PAGES_PER_TASK, 1]
    first = planned.pages[planned.files[0]][0]
    assert first == (str(folder / "p0000.html"), "p0000.html", "https://h/p0000.html")
    assert len(planned.config["inputs"]) == PAGES_PER_TASK + 1
    refused = redecode("run", str(tmp_path / "nothing.warc.gz"), "--out", str(tmp_path / "o"),
                       "--url-base", "https://h/")
    assert refused.returncode == 2
    warc = tmp_path / "one.warc.gz"
    _warc_of_the_same_pages(warc)
    alone = redecode("run", str(warc), "--out", str(tmp_path / "o"), "--url-base", "https://h/")
    assert alone.returncode == 2 and no_traceback(alone)
    assert alone.stderr.strip() == ("error: --url-base https://h/: the inputs hold no saved "
                                    "page (.html, .htm) for it to name")
