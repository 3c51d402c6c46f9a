"""Parquet raw-response tables: the documented schema, --columns mapping, header forms."""

from __future__ import annotations

import gzip
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.errors import RecordError
from pipeline.http import parse_response
from pipeline.sources import iter_records
from pipeline.sources.record import RawRecord


def write(tmp_path: Path, table: pa.Table, name: str = "raw.parquet") -> str:
    path = tmp_path / name
    pq.write_table(table, path)
    return str(path)


def test_documented_schema_with_raw_header_block(tmp_path: Path) -> None:
    path = write(tmp_path, pa.table({
        "url": ["http://a.test/"],
        "fetch_time": ["2026-01-02T03:04:05Z"],
        "status": pa.array([None], pa.int32()),
        "headers": [b"HTTP/1.1 404 Not Found\r\nContent-Type: text/html; charset=utf-8\r\nContent-Encoding: gzip\r\n"],
        "body": [gzip.compress(b"<p>gone</p>")],
    }))
    (rec,) = list(iter_records(path))
    assert isinstance(rec, RawRecord)
    assert (rec.url, rec.fetch_time, rec.record_type) == ("http://a.test/", "2026-01-02T03:04:05Z", "response")
    # sources never parse HTTP: a raw header block travels as a stored HTTP message
    assert rec.http_headers is None and rec.http_block.startswith(b"HTTP/1.1 404 Not Found\r\n")
    assert rec.warc_record_offset == 0 and rec.warc_filename == path
    resp = parse_response(rec)
    assert not isinstance(resp, RecordError)
    assert resp.body == b"<p>gone</p>" and resp.mime_type == "text/html" and resp.status == 404


def test_columns_map_other_names_and_map_typed_headers(tmp_path: Path) -> None:
    headers = pa.array([[("Content-Type", "text/plain")], None], pa.map_(pa.string(), pa.string()))
    path = write(tmp_path, pa.table({
        "target_uri": ["http://a.test/1", "http://a.test/2"],
        "payload": [b"hello", b"<html><body>x"],
        "http_headers": headers,
        "code": pa.array([200, 500], pa.int16()),
    }))
    recs = list(iter_records(path, columns={"url": "target_uri", "body": "payload",
                                            "headers": "http_headers", "status": "code"}))
    assert [r.url for r in recs] == ["http://a.test/1", "http://a.test/2"]
    assert recs[0].http_headers == ((b"Content-Type", b"text/plain"),)
    assert recs[1].http_headers == () and recs[1].http_status == 500
    assert [r.warc_record_offset for r in recs] == [0, 1]
    second = parse_response(recs[1])
    assert not isinstance(second, RecordError)
    assert (second.mime_type, second.mime_sniffed) == ("text/html", True)


def test_list_of_struct_headers(tmp_path: Path) -> None:
    kind = pa.list_(pa.struct([("name", pa.string()), ("value", pa.binary())]))
    path = write(tmp_path, pa.table({
        "url": ["http://a.test/"], "body": [b"x"],
        "headers": pa.array([[{"name": "Content-Type", "value": b"text/html"}]], kind),
    }))
    (rec,) = list(iter_records(path))
    assert rec.http_headers == ((b"Content-Type", b"text/html"),)


def test_missing_required_column_is_one_file_error(tmp_path: Path) -> None:
    path = write(tmp_path, pa.table({"url": ["http://a.test/"]}))
    (err,) = list(iter_records(path))
    assert isinstance(err, RecordError) and err.error_type == "source-missing-column" and err.offset is None


def test_not_a_parquet_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.parquet"
    path.write_bytes(b"not parquet at all")
    (err,) = list(iter_records(str(path)))
    assert isinstance(err, RecordError) and err.error_type == "source-unreadable-file"


def test_rows_stream_in_batches_with_stable_ids(tmp_path: Path) -> None:
    n = 200  # more than one batch
    path = write(tmp_path, pa.table({"url": [f"http://a.test/{i}" for i in range(n)],
                                     "body": [b"x"] * n}))
    first = [r.record_id for r in iter_records(path)]
    again = [r.record_id for r in iter_records(path)]
    assert len(first) == n and len(set(first)) == n and first == again


def test_a_parquet_file_with_another_name_is_recognised_by_its_magic(tmp_path: Path) -> None:
    path = write(tmp_path, pa.table({"url": ["http://a.test/"], "body": [b"x"]}), name="raw-table.bin")
    (rec,) = list(iter_records(path))
    assert isinstance(rec, RawRecord) and rec.url == "http://a.test/"


def test_header_block_without_status_line_takes_the_status_column(tmp_path: Path) -> None:
    path = write(tmp_path, pa.table({
        "url": ["http://a.test/1", "http://a.test/2"],
        "status": pa.array([410, None], pa.int32()),
        "headers": [b"Content-Type: text/html\r\n", b"Content-Type: text/html\r\n"],
        "body": [b"<p>a</p>", b"<p>b</p>"],
    }))
    first, second = (parse_response(r) for r in iter_records(path))  # type: ignore[arg-type]
    assert not isinstance(first, RecordError) and not isinstance(second, RecordError)
    assert (first.status, first.body, first.mime_type) == (410, b"<p>a</p>", "text/html")
    assert (second.status, second.body) == (None, b"<p>b</p>")  # no status stored anywhere


def test_equal_large_cells_dictionary_encoded_are_all_read(tmp_path: Path) -> None:
    # 40 equal 2 MiB bodies: dictionary-encoded, a few KB on disk; read one row at a time
    big = b"<p>" + b"x" * (2 << 20)
    path = write(tmp_path, pa.table({"url": [f"http://a.test/{i}" for i in range(40)],
                                     "body": [big] * 40}))
    assert Path(path).stat().st_size < 100_000
    recs = list(iter_records(path))
    assert [r.warc_record_offset for r in recs] == list(range(40))
    assert all(isinstance(r, RawRecord) and r.http_block == big for r in recs)


def test_a_body_cell_over_the_cap_is_cut_and_flagged(tmp_path: Path) -> None:
    path = write(tmp_path, pa.table({"url": ["http://a.test/"], "body": [b"<p>" + b"y" * 5000],
                                     "headers": [b"Content-Type: text/html"]}))
    (rec,) = list(iter_records(path, max_block=1000))
    assert isinstance(rec, RawRecord)
    assert rec.block_truncated and rec.block_truncation == "cap"
    assert rec.warc_record_length == 5003  # the stored length
    resp = parse_response(rec)
    assert not isinstance(resp, RecordError)
    assert resp.content_truncated == "cap" and len(resp.body) == 1000


def test_reads_from_a_callers_file_object(tmp_path: Path) -> None:
    path = write(tmp_path, pa.table({"url": ["http://a.test/"], "body": [b"<p>hi"]}))
    with open(path, "rb") as fh:
        (rec,) = list(iter_records("gs://bucket/raw.parquet", fileobj=fh))
    assert isinstance(rec, RawRecord) and rec.warc_filename == "gs://bucket/raw.parquet"
