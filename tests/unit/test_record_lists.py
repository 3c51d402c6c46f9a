"""Record lists (pipeline/sources/record_lists.py): which inputs are lists, how their rows are
read, checked, resolved and grouped into one task per file."""

from __future__ import annotations

import gzip
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.sources.ranges import Locator
from pipeline.sources.record_lists import (
    RecordListError,
    is_record_list,
    read_record_lists,
)
from pipeline.storage import Storage

#: Common Crawl's columnar index: int32 offsets and lengths, and many more columns.
CC_SCHEMA = pa.schema([("url", pa.string()), ("fetch_status", pa.int16()),
                       ("warc_filename", pa.string()), ("warc_record_offset", pa.int32()),
                       ("warc_record_length", pa.int32()), ("content_mime_type", pa.string())])


def cc_list(path: Path, rows: list[tuple[str | None, int | None, int | None]]) -> Path:
    pq.write_table(pa.table({
        "url": [f"https://example.com/{i}" for i in range(len(rows))],
        "fetch_status": [200] * len(rows),
        "warc_filename": [r[0] for r in rows],
        "warc_record_offset": [r[1] for r in rows],
        "warc_record_length": [r[2] for r in rows],
        "content_mime_type": ["text/html"] * len(rows),
    }, schema=CC_SCHEMA), path)
    return path


def test_the_index_columns_are_grouped_by_file_in_file_order_relative_to_the_base(
        tmp_path: Path) -> None:
    a, b = "crawl-data/CC-MAIN-2024-10/a.warc.gz", "crawl-data/CC-MAIN-2024-10/b.warc.gz"
    path = cc_list(tmp_path / "index.parquet", [(b, 900, 10), (a, 500, 20), (a, 100, 30),
                                                (a, 500, 20), (b, 0, 40)])
    listed = read_record_lists([str(path)], Storage(), "s3://commoncrawl/")
    assert list(listed.tasks) == [f"s3://commoncrawl/{a}", f"s3://commoncrawl/{b}"]
    assert listed.tasks[f"s3://commoncrawl/{a}"].locators() == [Locator(100, 30),
                                                                 Locator(500, 20)]
    assert listed.tasks[f"s3://commoncrawl/{b}"].locators() == [Locator(0, 40),
                                                                 Locator(900, 10)]
    assert listed.tasks[f"s3://commoncrawl/{b}"].size == 50
    assert listed.identity[0]["rows"] == 5
    assert any("1 rows repeat a record listed before" in note for note in listed.notes)
    # without --input-base, relative names are beside the list, with a hint for a miss
    local = read_record_lists([str(path)], Storage(), None)
    where = str(tmp_path / a)
    assert where in local.tasks and "--input-base" in local.tasks[where].hint


def test_the_digest_names_the_records_not_the_order_or_the_other_columns(tmp_path: Path) -> None:
    rows = [("x.warc.gz", 10, 5), ("y.warc.gz", 0, 7), ("x.warc.gz", 0, 9)]
    first = cc_list(tmp_path / "1.parquet", rows)
    pq.write_table(pa.table({"warc_record_length": [9, 5, 7],
                             "warc_filename": ["x.warc.gz", "x.warc.gz", "y.warc.gz"],
                             "warc_record_offset": pa.array([0, 10, 0], pa.int64())}),
                   tmp_path / "2.parquet")
    other = cc_list(tmp_path / "3.parquet", [*rows[:2], ("x.warc.gz", 0, 8)])
    digests = [read_record_lists([str(p)], Storage(), "/base").identity[0]["sha256"]
               for p in (first, tmp_path / "2.parquet", other)]
    assert digests[0] == digests[1] != digests[2]


def test_redecode_s_own_locators_keep_the_offset_in_member(tmp_path: Path) -> None:
    pq.write_table(pa.table({
        "warc_filename": ["w.warc.gz"] * 3,
        "warc_record_offset": pa.array([0, 0, 700], pa.int64()),
        "warc_record_length": pa.array([300, 400, 50], pa.int64()),
        "warc_record_offset_in_member": pa.array([310, 0, None], pa.int64()),
    }), tmp_path / "records.parquet")
    listed = read_record_lists([str(tmp_path / "records.parquet")], Storage(), "/crawl")
    assert listed.tasks["/crawl/w.warc.gz"].locators() == [
        Locator(0, 400, 0), Locator(0, 300, 310), Locator(700, 50)]


def test_rows_that_name_no_record_are_errors_rows_of_the_list(tmp_path: Path) -> None:
    path = cc_list(tmp_path / "bad.parquet", [
        ("a.warc.gz", 0, 10), (None, 5, 10), ("a.warc.gz", None, 10), ("a.warc.gz", -3, 10),
        ("a.warc.gz", 20, 0), ("  ", 1, 1)])
    listed = read_record_lists([str(path)], Storage(), "/crawl")
    assert listed.tasks["/crawl/a.warc.gz"].locators() == [Locator(0, 10)]
    bad = listed.tasks[str(path)].bad
    assert [e.error_type for e in bad] == ["source-bad-list-row"] * 5
    messages = [e.message.split(": ", 1)[1] for e in bad]
    assert messages == [
        "warc_filename is null; the row names no record",
        "warc_record_offset is null; the row names no record",
        "warc_record_offset -3 is below 0; the row names no record",
        "warc_record_length 0 is below 1; the row names no record",
        "warc_filename is empty; the row names no record",
    ]
    assert [e.message.split(":")[0] for e in bad] == [f"{path} row {n}" for n in (2, 3, 4, 5, 6)]
    # each with what it has of its locator
    assert [(e.warc_filename, e.offset, e.length) for e in bad] == [
        (str(path), 5, 10), ("/crawl/a.warc.gz", None, 10), ("/crawl/a.warc.gz", None, 10),
        ("/crawl/a.warc.gz", 20, 0), (str(path), 1, 1)]
    assert listed.identity[0]["rows"] == 6


def test_a_csv_list_parses_its_integers_and_reports_the_rows_it_cannot(tmp_path: Path) -> None:
    text = ("url,warc_filename,warc_record_offset,warc_record_length\n"
            "https://a/,a.warc.gz,100,20\n"
            "\n"
            "https://b/,a.warc.gz,12x,20\n"
            "https://c/,a.warc.gz,40\n"
            '"https://d/,x",a.warc.gz,0,5\n')
    (tmp_path / "q.csv.gz").write_bytes(gzip.compress(text.encode()))
    listed = read_record_lists([str(tmp_path / "q.csv.gz")], Storage(), str(tmp_path))
    assert listed.tasks[str(tmp_path / "a.warc.gz")].locators() == [Locator(0, 5),
                                                                     Locator(100, 20)]
    bad = listed.tasks[str(tmp_path / "q.csv.gz")].bad
    assert [e.message for e in bad] == [
        f"{tmp_path / 'q.csv.gz'} row 4: warc_record_offset '12x' is not an integer; the row "
        "names no record",
        f"{tmp_path / 'q.csv.gz'} row 5: 3 fields where the header has 4; the row names no "
        "record"]
    assert (bad[1].offset, bad[1].length) == (40, None)


@pytest.mark.parametrize(("name", "content", "reason"), [
    ("no-offset.csv", "warc_filename,warc_record_length\na,1\n",
     "a record list needs a header row with the columns warc_filename, warc_record_offset, "
     "warc_record_length; it lacks warc_record_offset"),
    ("empty.csv", "", "it lacks warc_filename, warc_record_offset, warc_record_length"),
    ("binary.csv", b"\xff\xfe\x00bad", "cannot be read as a CSV record list"),
])
def test_a_list_without_the_columns_is_refused(tmp_path: Path, name: str, content: str | bytes,
                                               reason: str) -> None:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(RecordListError, match=reason):
        read_record_lists([str(path)], Storage(), None)


def test_a_parquet_list_of_other_types_is_refused(tmp_path: Path) -> None:
    pq.write_table(pa.table({"warc_filename": ["a"], "warc_record_offset": ["12"],
                             "warc_record_length": [3]}), tmp_path / "s.parquet")
    with pytest.raises(RecordListError, match="column warc_record_offset is string, not an "
                                              "integer"):
        read_record_lists([str(tmp_path / "s.parquet")], Storage(), None)
    (tmp_path / "n.parquet").write_bytes(b"not parquet")
    with pytest.raises(RecordListError, match="not a Parquet file or a CSV file"):
        read_record_lists([str(tmp_path / "n.parquet")], Storage(), None)


def test_which_inputs_are_record_lists(tmp_path: Path) -> None:
    storage = Storage()
    index = cc_list(tmp_path / "index.parquet", [("a.warc.gz", 0, 1)])
    pages = tmp_path / "pages.parquet"  # a table of pages that also keeps its locators
    pq.write_table(pa.table({"url": ["u"], "body": [b"<p>"], "warc_filename": ["a"],
                             "warc_record_offset": [0], "warc_record_length": [3]}), pages)
    payload = tmp_path / "payload.parquet"
    pq.write_table(pa.table({"url": ["u"], "payload": [b"<p>"], "warc_filename": ["a"],
                             "warc_record_offset": [0], "warc_record_length": [3]}), payload)
    (tmp_path / "q.csv").write_text("warc_filename\n")
    (tmp_path / "bogus.parquet").write_bytes(b"nope")
    assert is_record_list(str(index), storage)
    assert is_record_list(str(tmp_path / "q.csv"), storage)
    assert not is_record_list(str(pages), storage)  # its bodies are decoded, as before
    assert is_record_list(str(payload), storage)
    assert not is_record_list(str(payload), storage, {"body": "payload"})  # --columns
    assert not is_record_list(str(tmp_path / "bogus.parquet"), storage)
    assert not is_record_list(str(tmp_path / "missing.csv"), storage)  # reported as missing
    assert not is_record_list(str(tmp_path / "*.parquet"), storage)
    assert not is_record_list("data/sample/sample.parquet", storage)


def test_columns_rename_a_list_s_columns(tmp_path: Path) -> None:
    """``--columns``: a CDX index's ``filename``, ``offset``, ``length``."""
    (tmp_path / "cdx.csv").write_text("urlkey,offset,length,filename\nk,10,5,a.warc.gz\n"
                                      "k,x,5,a.warc.gz\n")
    names = {"warc_filename": "filename", "warc_record_offset": "offset",
             "warc_record_length": "length"}
    listed = read_record_lists([str(tmp_path / "cdx.csv")], Storage(), "/c", columns=names)
    assert listed.tasks["/c/a.warc.gz"].locators() == [Locator(10, 5)]
    assert "offset 'x' is not an integer" in listed.tasks[str(tmp_path / "cdx.csv")].bad[0].message
    with pytest.raises(RecordListError, match=r"it lacks warc_filename, len \(warc_record_length, "
                                              r"--columns\)"):
        read_record_lists([str(tmp_path / "cdx.csv")], Storage(), "/c",
                          columns={"warc_record_offset": "offset", "warc_record_length": "len"})
    pq.write_table(pa.table({"filename": ["a.warc.gz"], "offset": pa.array([3], pa.int32()),
                             "length": [4]}), tmp_path / "cdx.parquet")
    assert is_record_list(str(tmp_path / "cdx.parquet"), Storage(), names)
    assert not is_record_list(str(tmp_path / "cdx.parquet"), Storage())
    listed = read_record_lists([str(tmp_path / "cdx.parquet")], Storage(), "/c", columns=names)
    assert listed.tasks["/c/a.warc.gz"].locators() == [Locator(3, 4)]
