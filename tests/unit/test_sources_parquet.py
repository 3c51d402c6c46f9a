"""Parquet raw-response tables: the documented schema, --columns mapping, header forms."""

from __future__ import annotations

import functools
import gzip
import io
import random
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.errors import RecordError
from pipeline.http import parse_response
from pipeline.sources import iter_records
from pipeline.sources import parquet as parquet_source
from pipeline.sources.parquet import MAX_PAGE
from pipeline.sources.parquet_pages import (
    PageHeader,
    PageHeaderError,
    PageScanner,
    parse_page_header,
)
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


def test_a_dictionary_encoded_row_group_is_read_whole_with_the_same_records(tmp_path: Path) -> None:
    # group 0: few distinct values, dictionary-encoded, nulls among them: read whole, kept as
    # dictionaries; group 1: 30 distinct 50 KB bodies (over the 1 MiB limit given below, and
    # past pyarrow's dictionary page size, so plain pages follow the dictionary): a row at a
    # time. Both give the values pyarrow holds.
    bodies = [b"<p>same</p>", None, b"<p>other</p>"] * 10 + [bytes([65 + i % 26]) * 50_000 + b"%d" % i
                                                             for i in range(30)]
    heads = [b"Content-Type: text/html", None] * 15 + [b"Content-Type: text/html"] * 30
    table = pa.table({"url": [f"http://a.test/{i % 3}" for i in range(60)], "status": [200] * 60,
                      "headers": heads, "body": bodies})
    path = tmp_path / "groups.parquet"
    pq.write_table(table, path, row_group_size=30)
    pf = pq.ParquetFile(path)
    leaves = list(range(pf.metadata.num_columns))
    byte_leaves = [j for j in leaves if pf.schema_arrow.field(pf.reader.column_paths[j][0]).type
                   in (pa.binary(), pa.string())]
    assert [parquet_source._dictionary_group(pf.metadata.row_group(g), leaves, byte_leaves, 2**20)
            for g in (0, 1)] == [True, False]
    recs = list(iter_records(str(path), max_block=2**20))
    assert all(isinstance(r, RawRecord) for r in recs) and len(recs) == 60
    assert [r.url for r in recs] == table["url"].to_pylist()  # type: ignore[union-attr]
    for rec, body, head in zip(recs, bodies, heads, strict=True):
        stored = body or b""
        expected = stored if head is None else b"HTTP/1.1 200 \r\n" + head + b"\r\n\r\n" + stored
        assert rec.http_block == expected  # type: ignore[union-attr]


def test_a_body_cell_over_the_cap_is_cut_and_flagged(tmp_path: Path) -> None:
    path = write(tmp_path, pa.table({"url": ["http://a.test/"], "body": [b"<p>" + b"y" * 5000],
                                     "headers": [b"Content-Type: text/html"]}))
    # its page (5 KB) is over the default page limit of 4 x 1000 bytes: raised here
    (rec,) = list(iter_records(path, max_block=1000, max_page=10_000))
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


# --- pages over the limit (pipeline.sources.parquet_pages) ---------------------------------

# The hostile file of the bench at 1/1024 scale, limits scaled alike: 64 plain cells of
# 24 KiB in one zstd page of 1.5 MiB, max_block 64 KiB, so the default page limit is 256 KiB.
SCALE_BODY, SCALE_MAX_BLOCK = 24 << 10, 64 << 10


def hostile_table(n: int = 64, body: int = SCALE_BODY, first: int = 0) -> pa.Table:
    return pa.table({"url": [f"http://a.test/{first + i}" for i in range(n)],
                     "body": [b"<p>" + bytes([97 + i % 26]) * body for i in range(n)]})


def write_groups(path: Path, tables: list[pa.Table], **options: object) -> str:
    """One row group per table, all in one page per column (plain, zstd unless told)."""
    options = {"compression": "zstd", "use_dictionary": False, **options}
    with pq.ParquetWriter(path, tables[0].schema, **options) as writer:  # type: ignore[arg-type]
        for table in tables:
            writer.write_table(table)
    return str(path)


def pages_of(path: str, group: int, column: int) -> list[PageHeader]:
    chunk = pq.ParquetFile(path).metadata.row_group(group).column(column)
    start = chunk.data_page_offset
    if chunk.has_dictionary_page and chunk.dictionary_page_offset:
        start = min(start, chunk.dictionary_page_offset)
    with open(path, "rb") as fh:
        return list(PageScanner(fh).pages(start, chunk.total_compressed_size))


@pytest.mark.parametrize("through", ["path", "fileobj"])
def test_a_page_over_the_limit_makes_each_row_of_its_group_an_error(tmp_path: Path, through: str) -> None:
    path = write_groups(tmp_path / "p64.parquet", [hostile_table()])
    assert Path(path).stat().st_size < 10_000  # tiny on disk, one page of 1.5 MiB decoded
    (page,) = pages_of(path, 0, 1)
    assert page.uncompressed_page_size > 4 * SCALE_MAX_BLOCK
    if through == "path":
        out = list(iter_records(path, max_block=SCALE_MAX_BLOCK))
    else:
        with open(path, "rb") as fh:
            out = list(iter_records(path, fileobj=fh, max_block=SCALE_MAX_BLOCK))
    assert len(out) == 64 and all(isinstance(e, RecordError) for e in out)
    assert {(e.stage, e.error_type) for e in out} == {("source", "source-page-too-large")}
    assert [e.offset for e in out] == list(range(64))
    assert out[0].message == (f"row group 0, column 'body': a page of {page.uncompressed_page_size} "
                              f"bytes decoded, over the limit of {4 * SCALE_MAX_BLOCK}; the row group "
                              "is not read")


@pytest.mark.slow  # pyarrow's writer holds the 1.5 GiB page (~6 GB, ~15 s) to write the file
def test_the_full_size_hostile_file_is_errors_under_the_default_limits(tmp_path: Path) -> None:
    path = write_groups(tmp_path / "p64.parquet", [hostile_table(body=24 << 20)])
    assert Path(path).stat().st_size < 100_000
    out = list(iter_records(path))
    assert [(e.error_type, e.offset) for e in out] == [("source-page-too-large", i) for i in range(64)]  # type: ignore[union-attr]


def test_a_hostile_row_group_is_skipped_and_the_others_read(tmp_path: Path) -> None:
    good = pa.table({"url": [f"http://a.test/{i}" for i in range(10)],
                     "body": [b"<p>fine %d" % i for i in range(10)]})
    after = pa.table({"url": ["http://a.test/after"], "body": [b"<p>after"]})
    path = write_groups(tmp_path / "mixed.parquet", [good, hostile_table(first=10), after])
    out = list(iter_records(path, max_block=SCALE_MAX_BLOCK))
    assert len(out) == 10 + 64 + 1
    kept, errors, last = out[:10], out[10:74], out[74]
    assert all(isinstance(r, RawRecord) for r in kept)
    assert [(r.url, r.http_block) for r in kept] == [  # type: ignore[union-attr]
        (f"http://a.test/{i}", b"<p>fine %d" % i) for i in range(10)]
    assert all(isinstance(e, RecordError) and e.error_type == "source-page-too-large"
               and e.message.startswith("row group 1, column 'body'") for e in errors)
    assert [e.offset for e in errors] == list(range(10, 74))
    # reading goes on with the next row group, its row numbers counted past the skipped rows
    assert isinstance(last, RawRecord) and last.url == "http://a.test/after"
    assert last.warc_record_offset == 74


def test_a_big_page_in_a_column_not_read_does_not_stop_the_row_group(tmp_path: Path) -> None:
    table = hostile_table().rename_columns(["url", "payload"]).append_column(
        "body", pa.array([b"<p>small"] * 64))
    path = write_groups(tmp_path / "other.parquet", [table])
    out = list(iter_records(path, max_block=SCALE_MAX_BLOCK))
    assert all(isinstance(r, RawRecord) for r in out) and len(out) == 64
    # the same file with the big column as the body: its page is over the limit
    named = list(iter_records(path, max_block=SCALE_MAX_BLOCK, columns={"body": "payload"}))
    assert {e.error_type for e in named} == {"source-page-too-large"}  # type: ignore[union-attr]


def test_a_skipped_row_group_lists_at_most_max_row_errors_rows(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parquet_source, "MAX_ROW_ERRORS", 10)
    after = pa.table({"url": ["http://a.test/after"], "body": [b"<p>after"]})
    path = write_groups(tmp_path / "p64.parquet", [hostile_table(), after])
    out = list(iter_records(path, max_block=SCALE_MAX_BLOCK))
    assert [e.offset for e in out[:11]] == list(range(11))  # type: ignore[union-attr]
    assert "its last 54 rows, from this one, are this one error" in out[10].message  # type: ignore[union-attr]
    assert isinstance(out[11], RawRecord) and out[11].warc_record_offset == 64
    assert len(out) == 12


# Legitimate tables with many pages: dictionary and plain, data page v1 and v2, three codecs,
# page checksums, a map column; pages of ~16 bodies (pyarrow checks a page's size every
# write_batch_size values, so its pages run past data_page_size as big tables' do).
LEGIT_WRITES = [
    {"compression": codec, "use_dictionary": dictionary, "data_page_version": version}
    for codec in ("zstd", "snappy", "none") for dictionary in (True, False) for version in ("1.0", "2.0")
]


@functools.cache
def legit_table(n: int = 240) -> pa.Table:
    rnd = random.Random(7)
    letters = bytes(b"abcdefgh <>"[i % 11] for i in range(256))  # bytes to letters: compressible
    bodies = [b"<p>" + rnd.randbytes(rnd.randrange(2000, 20000)).translate(letters)
              for _ in range(n)]
    return pa.table({
        "url": [f"http://a.test/{i}" for i in range(n)],
        "status": pa.array([200 + i % 3 for i in range(n)], pa.int32()),
        "headers": pa.array([[("Content-Type", "text/html"), ("X-N", str(i))] for i in range(n)],
                            pa.map_(pa.string(), pa.string())),
        "body": bodies,
    })


def write_legit(tmp_path: Path, **options: object) -> str:
    path = tmp_path / "legit.parquet"
    # the dictionary is full after ~64 KB of bodies: later pages fall back to plain
    pq.write_table(legit_table(), path, data_page_size=32 << 10, write_batch_size=16,
                   row_group_size=120, write_page_checksum=True,
                   dictionary_pagesize_limit=64 << 10, **options)  # type: ignore[arg-type]
    return str(path)


@pytest.mark.parametrize("options", LEGIT_WRITES, ids=lambda o: "-".join(map(str, o.values())))
def test_page_headers_add_up_to_the_footers_chunk_sizes(tmp_path: Path, options: dict) -> None:
    # An independent check of the header reader: in every column chunk, each page's header
    # and stored bytes add up to the footer's total_compressed_size, and its header and
    # decoded size to total_uncompressed_size.
    path = write_legit(tmp_path, **options)
    meta = pq.ParquetFile(path).metadata
    kinds = set()
    for group in range(meta.num_row_groups):
        for column in range(meta.num_columns):
            chunk = meta.row_group(group).column(column)
            pages = pages_of(path, group, column)
            kinds |= {p.type for p in pages}
            assert sum(p.header_length + p.compressed_page_size for p in pages) == chunk.total_compressed_size
            assert sum(p.header_length + p.uncompressed_page_size for p in pages) == chunk.total_uncompressed_size
    assert len(pages_of(path, 0, meta.num_columns - 1)) > 3  # the body chunk has several pages
    data_page = 0 if options["data_page_version"] == "1.0" else 3  # DATA_PAGE, DATA_PAGE_V2
    assert kinds == ({2, data_page} if options["use_dictionary"] else {data_page})  # 2 = dictionary


@pytest.mark.parametrize("options", LEGIT_WRITES, ids=lambda o: "-".join(map(str, o.values())))
def test_big_pages_under_the_limit_are_read_as_before(tmp_path: Path, options: dict) -> None:
    path = write_legit(tmp_path, **options)
    meta = pq.ParquetFile(path).metadata
    body = meta.num_columns - 1
    largest_by_group = [max(p.uncompressed_page_size for p in pages_of(path, g, body))
                        for g in range(meta.num_row_groups)]
    largest = max(largest_by_group)
    assert largest_by_group.count(largest) == 1  # so the cut below takes one group of two
    assert all(meta.row_group(g).column(body).total_uncompressed_size > largest
               for g in range(meta.num_row_groups))  # so every body chunk's headers are read
    expected = list(iter_records(path))  # default limit: no chunk is near it, none is scanned
    assert len(expected) == 240 and all(isinstance(r, RawRecord) for r in expected)
    assert [r.http_block for r in expected] == legit_table()["body"].to_pylist()  # type: ignore[union-attr]
    assert list(iter_records(path, max_page=largest)) == expected
    # one byte less, and the row group holding the largest page is errors, the other read
    cut = list(iter_records(path, max_page=largest - 1))
    over = largest_by_group.index(largest)
    assert [isinstance(r, RecordError) for r in cut] == [g == over for g in (0, 1) for _ in range(120)]
    assert all(r.error_type == "source-page-too-large" for r in cut if isinstance(r, RecordError))
    assert [r for r in cut if isinstance(r, RawRecord)] == expected[120 * (1 - over):][:120]


def test_a_corrupt_page_header_ends_the_file_and_keeps_the_rows_before(tmp_path: Path) -> None:
    good = pa.table({"url": [f"http://a.test/{i}" for i in range(5)], "body": [b"<p>ok"] * 5})
    path = write_groups(tmp_path / "corrupt.parquet", [good, hostile_table(first=5)])
    chunk = pq.ParquetFile(path).metadata.row_group(1).column(1)
    data = bytearray(Path(path).read_bytes())
    data[chunk.data_page_offset] = 0x1F  # field 1 with wire type 15: no such type
    Path(path).write_bytes(bytes(data))
    out = list(iter_records(path, max_block=SCALE_MAX_BLOCK))
    assert [r.url for r in out[:5]] == [f"http://a.test/{i}" for i in range(5)]  # type: ignore[union-attr]
    (err,) = out[5:]
    assert isinstance(err, RecordError) and err.error_type == "source-read-failed"
    assert err.offset == 5 and err.message == (
        "PageHeaderError: column 'body': field 1 has wire type 15, not i32")


def test_a_corrupt_header_in_a_chunk_under_the_limit_is_left_to_arrow(tmp_path: Path) -> None:
    # no header is read in a chunk that cannot hold a page over the limit: Arrow finds it
    path = write_groups(tmp_path / "small.parquet", [pa.table({"url": ["http://a.test/"], "body": [b"x"]})])
    chunk = pq.ParquetFile(path).metadata.row_group(0).column(1)
    assert chunk.total_uncompressed_size < MAX_PAGE
    data = bytearray(Path(path).read_bytes())
    data[chunk.data_page_offset] = 0x1F
    Path(path).write_bytes(bytes(data))
    (err,) = list(iter_records(path))
    assert isinstance(err, RecordError) and err.error_type == "source-read-failed"
    assert err.offset == 0 and not err.message.startswith("PageHeaderError")


_HEADER_PIECES = [bytes([b]) for b in (0x00, 0x15, 0x16, 0x19, 0x1C, 0x2C, 0x3C, 0x4C, 0x5C, 0x18, 0x1A,
                                       0x1B, 0x0F, 0xF8, 0xFF, 0x80, 0x7F, 0x01, 0x02, 0x03, 0x0D)]


def real_headers() -> list[bytes]:
    """Page headers as pyarrow writes them (dictionary, v1, v2, with checksums)."""
    import tempfile

    headers = []
    with tempfile.TemporaryDirectory() as folder:
        for options in LEGIT_WRITES[:4]:
            path = write_legit(Path(folder), **options)
            data = Path(path).read_bytes()
            for column in range(4):
                chunk = pq.ParquetFile(path).metadata.row_group(0).column(column)
                start = min(chunk.data_page_offset, chunk.dictionary_page_offset or chunk.data_page_offset)
                head = pages_of(path, 0, column)[0]
                headers.append(data[start:start + head.header_length])
    return headers


REAL_HEADERS = real_headers()


@settings(max_examples=600, deadline=None)
@given(st.one_of(
    st.binary(max_size=200),
    st.lists(st.one_of(st.sampled_from(_HEADER_PIECES), st.binary(max_size=6)), max_size=60).map(b"".join),
    st.tuples(st.sampled_from(REAL_HEADERS), st.integers(0, 200), st.binary(min_size=1, max_size=4),
              st.booleans()).map(lambda t: (t[0][:t[1]] + t[2] + t[0][t[1] + (len(t[2]) if t[3] else 0):])),
))
def test_the_header_reader_on_any_bytes_ends_or_raises_its_own_error(data: bytes) -> None:
    try:
        head = parse_page_header(data)
    except PageHeaderError:
        pass
    else:
        assert 0 < head.header_length <= len(data)
        assert head.uncompressed_page_size >= 0 and head.compressed_page_size >= 0
    # and as a column chunk read through a file: every page's header, or the error
    try:
        pages = list(PageScanner(io.BytesIO(data)).pages(0, len(data)))
    except PageHeaderError:
        return
    assert len(pages) <= len(data)


def test_the_header_reader_reads_real_headers_and_bounds_hostile_ones() -> None:
    for header in REAL_HEADERS:
        assert parse_page_header(header + b"\xff" * 8).header_length == len(header)
        with pytest.raises(PageHeaderError):
            parse_page_header(header[:-1])  # cut short
    deep = b"\x4c" + b"\x1c" * 40  # field 4: a struct in a struct ... 41 deep
    with pytest.raises(PageHeaderError, match="nested over 32 deep"):
        parse_page_header(deep + b"\x00" * 41)
    huge_list = b"\x49\xf5\xff\xff\xff\xff\x0f"  # field 4: a list of 2**32-1 i32 in 0 bytes
    with pytest.raises(PageHeaderError, match="4294967295 elements in 0 bytes"):
        parse_page_header(huge_list)
    with pytest.raises(PageHeaderError, match="varint over 10 bytes"):
        parse_page_header(b"\x46" + b"\xff" * 20)  # field 4, i64, an endless varint
    with pytest.raises(PageHeaderError, match="field 2 has wire type 8"):
        parse_page_header(b"\x15\x00\x18\x00")  # field 2 as binary: not a page size


# ---- metadata a worker cannot afford ----------------------------------------------------


def _one_row_groups(tmp_path: Path, rows: int) -> str:
    table = pa.table({"url": [f"http://a.test/{i}" for i in range(rows)], "body": [b"<p>x</p>"] * rows})
    path = tmp_path / "groups.parquet"
    pq.write_table(table, path, row_group_size=1)
    return str(path)


def _arrow_must_not_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("Arrow was asked to parse a footer over the limits")

    monkeypatch.setattr(pq, "ParquetFile", refuse)


def test_a_file_of_more_column_chunks_than_the_limit_is_an_error_row_per_row(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 30 one-row row groups of 2 columns: 60 column chunks, over a limit of 50. Arrow's parse
    # of such a footer holds ~1.4 KB a chunk (200,000 one-row groups: 860 MB), so it is not
    # asked: the footer's first bytes give the rows, each an error row.
    path = _one_row_groups(tmp_path, 30)
    monkeypatch.setattr(parquet_source, "MAX_COLUMN_CHUNKS", 50)
    _arrow_must_not_parse(monkeypatch)
    out = list(iter_records(path))
    assert [(e.stage, e.error_type, e.offset) for e in out] == [  # type: ignore[union-attr]
        ("source", "source-metadata-too-large", i) for i in range(30)]
    assert "30 row groups of 2 columns: 60 column chunks (the limit is 50)" in out[0].message  # type: ignore[union-attr]


def test_a_footer_longer_than_the_limit_is_not_parsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _one_row_groups(tmp_path, 3)
    monkeypatch.setattr(parquet_source, "MAX_FOOTER", 100)
    _arrow_must_not_parse(monkeypatch)
    out = list(iter_records(path))
    assert [(e.error_type, e.offset) for e in out] == [  # type: ignore[union-attr]
        ("source-metadata-too-large", i) for i in range(3)]
    assert "bytes (the limit is 100); the file is not read" in out[0].message  # type: ignore[union-attr]


def test_files_under_the_metadata_limits_are_read_as_before(tmp_path: Path) -> None:
    path = _one_row_groups(tmp_path, 300)  # 600 column chunks
    out = list(iter_records(path))
    assert [r.url for r in out] == [f"http://a.test/{i}" for i in range(300)]  # type: ignore[union-attr]


def test_the_footer_is_read_as_arrow_reads_it() -> None:
    from pipeline.sources.parquet_pages import footer_facts, read_footer_facts

    buf = io.BytesIO()
    headers = pa.array([[("a", "b")]] * 5, pa.map_(pa.string(), pa.string()))
    pq.write_table(pa.table({"url": ["u"] * 5, "body": [b"x"] * 5, "headers": headers}), buf, row_group_size=2)
    facts = read_footer_facts(buf)
    meta = pq.ParquetFile(buf).metadata
    assert facts is not None and facts.length == meta.serialized_size
    assert (facts.num_rows, facts.row_groups, facts.leaves) == (5, 3, meta.num_columns) == (5, 3, 4)
    # a cut or corrupt footer gives what could be read, never an error or a loop
    whole = buf.getvalue()[-8 - facts.length:-8]
    for end in range(0, len(whole), 7):
        footer_facts(whole[:end], facts.length)
    assert read_footer_facts(io.BytesIO(b"PAR1 not a parquet file")) is None


def _map_headers(fields: list[tuple[str, str]]) -> pa.Array:
    return pa.array([fields, [("Content-Type", "text/html")]], pa.map_(pa.string(), pa.string()))


def _kept_by_the_http_stage(fields: list[tuple[str, str]]) -> tuple[tuple[bytes, bytes], ...]:
    from pipeline.http.message import parse_head

    block = ("HTTP/1.1 200 OK\r\n" + "".join(f"{n}: {v}\r\n" for n, v in fields) + "\r\n<p>x").encode()
    head = parse_head(block)
    assert head is not None
    return head.headers


def test_a_header_map_is_cut_as_the_http_stage_cuts_a_header_section(tmp_path: Path) -> None:
    # 100,000 fields and a line over 256 KiB: the fields a stored header section of the same
    # lines would keep, no more (a map of 1,000,000 fields took a worker to 457 MB)
    fields = [(f"X-Field-{i}", f"value {i}") for i in range(100_000)]
    fields[3] = ("X-Long", "v" * (300 << 10))
    path = write(tmp_path, pa.table({"url": ["http://a.test/1", "http://a.test/2"], "body": [b"<p>x"] * 2,
                                     "headers": _map_headers(fields)}))
    cut, whole = list(iter_records(path))
    assert isinstance(cut, RawRecord) and isinstance(whole, RawRecord)
    assert cut.http_headers == _kept_by_the_http_stage(fields)
    assert 20_000 < len(cut.http_headers) < 30_000 and (b"X-Long", b"v" * (300 << 10)) not in cut.http_headers
    assert (cut.block_truncated, cut.block_truncation) == (True, "http-headers")
    resp = parse_response(cut)
    assert not isinstance(resp, RecordError) and resp.content_truncated == "http-headers"
    assert whole.http_headers == ((b"Content-Type", b"text/html"),) and not whole.block_truncated


def test_a_header_list_of_structs_is_cut_too(tmp_path: Path) -> None:
    fields = [{"name": f"X-{i}", "value": "v" * 1000} for i in range(2_000)]
    kind = pa.list_(pa.struct([("name", pa.string()), ("value", pa.string())]))
    path = write(tmp_path, pa.table({"url": ["http://a.test/"], "body": [b"<p>x"],
                                     "headers": pa.array([fields], kind)}))
    (rec,) = list(iter_records(path))
    assert isinstance(rec, RawRecord) and rec.block_truncation == "http-headers"
    assert rec.http_headers == _kept_by_the_http_stage([(f["name"], f["value"]) for f in fields])


def test_a_raw_header_block_is_cut_before_it_is_read_and_parses_the_same(tmp_path: Path) -> None:
    head = b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-Field-%d: %s\r\n" % (i, b"v" * 100) for i in range(60_000))
    assert len(head) > 2 * parquet_source.MAX_RAW_HEAD
    path = write(tmp_path, pa.table({"url": ["http://a.test/"], "body": [b"<p>x"], "headers": [head]}))
    (rec,) = list(iter_records(path))
    assert isinstance(rec, RawRecord)
    assert len(rec.http_block) < parquet_source.MAX_RAW_HEAD + 100
    cut, whole = parse_response(rec), parse_response(
        RawRecord(path, 0, 4, "id", "response", "http://a.test/", None, head + b"\r\n\r\n<p>x"))
    assert not isinstance(cut, RecordError) and not isinstance(whole, RecordError)
    assert cut.headers == whole.headers and cut.content_truncated == whole.content_truncated == "http-headers"


def test_the_header_caps_are_the_http_stages() -> None:
    from pipeline.http import message

    assert parquet_source.MAX_HEADER_SECTION == message.MAX_HEAD
    assert parquet_source.MAX_HEADER_LINE == message.MAX_FIELD_LINE
