"""Records read back by their locator (pipeline/sources/ranges.py) are the records the whole
file gives: on every file of the warc-samples corpus and every fixture archive, reading only
the byte ranges needed."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline import audit
from pipeline.errors import RecordError
from pipeline.rules import Rules
from pipeline.runners.local import run
from pipeline.sources import iter_records
from pipeline.sources.ccmeta import join_metadata
from pipeline.sources.ranges import (
    COALESCE_GAP,
    COALESCE_MAX,
    Locator,
    _Coalesced,
    _spans,
    read_located,
)
from pipeline.sources.record import RawRecord

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "warc"
SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "warc-samples"


def _sample_files() -> list[Path]:
    lines = (SAMPLES / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()[1:]
    return [SAMPLES / line.split("\t")[0] for line in lines]


ARCHIVES = _sample_files() + sorted(FIXTURES.iterdir())


class Counting(io.RawIOBase):
    """A file that remembers which bytes were read."""

    def __init__(self, fh: io.BufferedReader) -> None:
        self.fh = fh
        self.spans: list[tuple[int, int]] = []

    def seek(self, pos: int, whence: int = 0) -> int:
        return self.fh.seek(pos, whence)

    def tell(self) -> int:
        return self.fh.tell()

    def read(self, n: int | None = -1) -> bytes:
        at = self.fh.tell()
        data = self.fh.read(n)
        self.spans.append((at, at + len(data)))
        return data

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def bytes_outside(self, ranges: list[tuple[int, int]]) -> int:
        """Bytes read that lie outside every range of ``ranges``."""
        outside = 0
        for start, end in self.spans:
            for pos in range(start, end):
                if not any(lo <= pos < hi for lo, hi in ranges):
                    outside += 1
        return outside


def _records(path: Path) -> list[RawRecord]:
    return [item for item in iter_records(str(path)) if isinstance(item, RawRecord)]


def _located(path: Path, locators: list[Locator], **kwargs: bool) -> list[RawRecord | RecordError]:
    with open(path, "rb") as fh:
        return list(read_located(fh, str(path), locators, **kwargs))


def test_the_corpus_is_all_there():
    assert len(_sample_files()) == 42
    assert all(path.exists() for path in ARCHIVES)


@pytest.mark.parametrize("path", ARCHIVES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_record_read_by_its_locator_is_the_record_the_whole_file_gives(path: Path):
    full = _records(path)
    assert _located(path, [Locator.of(r) for r in full]) == full
    # every other record, asked for in reverse order: the same records, in file order
    some = full[::2]
    assert _located(path, [Locator.of(r) for r in reversed(some)]) == some
    # near ranges fetched together (a record list's reading): the same records
    assert _located(path, [Locator.of(r) for r in full], coalesce=True) == full
    assert _located(path, [Locator.of(r) for r in some], coalesce=True) == some


def test_records_that_share_a_member_are_told_apart_and_read_back():
    path = FIXTURES / "concatenated-whole-file-gzip.warc.gz"
    full = _records(path)
    keys = [(r.warc_record_offset, r.offset_in_member) for r in full]
    assert len(set(keys)) == len(keys) == 6
    assert {r.warc_record_offset for r in full} == {0, full[-1].warc_record_offset}
    assert _located(path, [Locator.of(full[-1]), Locator.of(full[1])]) == [full[1], full[-1]]


def test_one_record_per_member_reads_only_its_range():
    path = SAMPLES / "pywb" / "iana.warc.gz"
    full = _records(path)
    wanted = [r for r in full if r.record_type == "response"][::3]
    with open(path, "rb") as raw:
        counting = Counting(raw)  # type: ignore[arg-type]
        got = list(read_located(counting, str(path), [Locator.of(r) for r in wanted],  # type: ignore[arg-type]
                                join=False))
    assert got == wanted
    ranges = [(r.warc_record_offset, r.warc_record_offset + r.warc_record_length) for r in wanted]
    # only the ranges, the file's first 8 bytes (which container it is) and the 8 bytes after
    # each range (a member starts there: the range did not end inside the record's trailer)
    after = [(end, end + 8) for _, end in ranges]
    assert counting.bytes_outside([*ranges, (0, 8), *after]) == 0
    assert sum(end - start for start, end in counting.spans) <= sum(
        e - s for s, e in ranges) + 12 + 8 * len(ranges)


def test_near_ranges_are_fetched_in_one_read_each_span():
    path = SAMPLES / "pywb" / "iana.warc.gz"
    full = _records(path)
    wanted = [r for r in full if r.record_type == "response"][::3]
    locators = [Locator.of(r) for r in wanted]
    reads = {}
    for coalesce in (False, True):
        with open(path, "rb") as raw:
            counting = Counting(raw)  # type: ignore[arg-type]
            got = list(read_located(counting, str(path), locators,  # type: ignore[arg-type]
                                    join=False, coalesce=coalesce))
        assert got == wanted
        reads[coalesce] = counting.spans
    # the file's first bytes (Parquet or not, which container), then one read: every range
    # lies within COALESCE_GAP of the next
    assert len(reads[False]) > len(wanted) and len(reads[True]) == 3, reads[True]
    first, last = wanted[0], wanted[-1]
    assert reads[True][:2] == [(0, 4), (0, 8)] and reads[True][2] == (first.warc_record_offset, min(
        path.stat().st_size, last.warc_record_offset + last.warc_record_length + 4096))


def test_a_coalesced_read_that_runs_past_its_span_goes_on_in_the_file():
    data = bytes(range(256)) * 64
    coalesced = _Coalesced(io.BytesIO(data), [(100, 200), (200, 300), (5000, 5100)])  # type: ignore[arg-type]
    coalesced.seek(150)
    assert coalesced.read(400) == data[150:550]  # two spans, then the file
    coalesced.seek(5050)
    assert coalesced.read(100) == data[5050:5150]
    coalesced.seek(-10, 2)
    assert coalesced.read() == data[-10:] and coalesced.tell() == len(data)
    coalesced.seek(0)
    assert coalesced.read() == data


def test_spans_merge_near_ranges_up_to_the_limit():
    gap, limit = COALESCE_GAP, COALESCE_MAX
    near = [Locator(0, 100), Locator(100 + gap - 4096, 100)]
    assert _spans(near, 10**9) == [(0, 100 + gap - 4096 + 100 + 4096)]
    far = [Locator(0, 100), Locator(100 + 4096 + gap + 1, 100)]
    assert len(_spans(far, 10**9)) == 2
    # a record over the limit is read through the file; one inside a member too
    assert _spans([Locator(0, limit + 1), Locator(10, 5, 3)], 10**12) == []
    # a span never grows past the limit, and never past the file's end
    big = [Locator(i * (limit // 4), limit // 4) for i in range(8)]
    assert all(end - start <= limit for start, end in _spans(big, 10**12))
    assert _spans([Locator(0, 100)], 50) == [(0, 50)]


def test_a_plain_file_reads_its_ranges_and_the_separator_after_each():
    path = SAMPLES / "pywb" / "example-extra.warc"
    full = _records(path)
    with open(path, "rb") as raw:
        counting = Counting(raw)  # type: ignore[arg-type]
        got = list(read_located(counting, str(path), [Locator.of(full[2])], join=False))  # type: ignore[arg-type]
    assert got == [full[2]]
    end = full[2].warc_record_offset + full[2].warc_record_length
    assert counting.bytes_outside([(0, 8), (full[2].warc_record_offset, end + 4096)]) == 0


def test_the_metadata_join_reads_the_next_record_and_stops():
    path = FIXTURES / "cc-metadata-join.warc.gz"
    full = _records(path)
    joined = [r for r in full if r.content_languages]
    assert joined  # the fixture exercises the join
    with open(path, "rb") as raw:
        counting = Counting(raw)  # type: ignore[arg-type]
        got = list(read_located(counting, str(path), [Locator.of(r) for r in joined]))  # type: ignore[arg-type]
    assert got == joined
    # without the join, the crawler's fields stay as the response's own headers give them
    alone = _located(path, [Locator.of(r) for r in joined], join=False)
    assert [r.content_languages for r in alone if isinstance(r, RawRecord)] == [None] * len(joined)


def test_a_locator_that_names_no_record_is_an_error_row():
    path = FIXTURES / "whole-file-gzip.warc.gz"
    full = _records(path)
    wrong = [Locator(full[0].warc_record_offset, 10, 5), Locator(999, 10)]
    got = _located(path, wrong)
    assert [type(g) for g in got] == [RecordError, RecordError]
    # inside a record: what the reader meets there, at that locator
    assert isinstance(got[0], RecordError) and (got[0].offset, got[0].offset_in_member) == (0, 5)
    assert got[0].error_type == "source-invalid-record-header"
    # past the end of the file: nothing there
    assert isinstance(got[1], RecordError) and got[1].error_type == "source-bad-locator"
    assert got[1].offset == 999


def test_a_range_that_ends_inside_its_last_member_names_no_record():
    path = SAMPLES / "pywb" / "iana.warc.gz"
    full = _records(path)
    record = next(r for r in full if r.record_type == "response")
    for short in (1, 4, 8):  # the gzip trailer's last bytes: the block is whole without them
        loc = Locator(record.warc_record_offset, record.warc_record_length - short)
        for coalesce in (False, True):
            (got,) = _located(path, [loc], coalesce=coalesce)
            assert isinstance(got, RecordError) and got.error_type == "source-bad-locator", got
            assert f"length {record.warc_record_length}" in got.message
            assert (got.offset, got.length) == (loc.offset, loc.length)


def test_parquet_rows_are_read_back_by_their_row_number(tmp_path: Path):
    path = tmp_path / "pages.parquet"
    pq.write_table(pa.table({"url": [f"http://x.example/{i}" for i in range(5)],
                             "body": [f"<p>{i}</p>".encode() for i in range(5)]}), path)
    full = _records(path)
    assert _located(path, [Locator.of(full[3]), Locator.of(full[1])]) == [full[1], full[3]]


def test_a_response_keeps_its_metadata_when_an_earlier_record_shares_its_id():
    # Record ids repeat in real crawls. An earlier record leaving the join's window used to
    # forget the later response with the same id, so its metadata record was not joined.
    def rec(i: int, rtype: str, rid: str, block: bytes = b"", to: str | None = None) -> RawRecord:
        return RawRecord("f", i, 1, rid, rtype, "http://a/", None, block, concurrent_to=to)

    items = [rec(0, "response", "<x>"), rec(1, "request", "<a>"), rec(2, "request", "<b>"),
             rec(3, "response", "<x>")]
    items += [rec(4 + i, "request", f"<r{i}>") for i in range(5)]
    items.append(rec(9, "metadata", "<m>", b"languages-cld2: {\"languages\":[{\"code-iso-639-3\":\"fra\"}]}\r\n", "<x>"))
    out = list(join_metadata(items))
    assert [r.content_languages for r in out if isinstance(r, RawRecord) and r.warc_record_offset in (0, 3)] == [None, "fra"]


def test_a_run_of_whole_file_gzip_archives_has_a_unique_record_key(tmp_path: Path):
    # Every record of a whole-file gzip had warc_record_offset 0: the key check failed.
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    for name in ("concatenated-whole-file-gzip.warc.gz", "whole-file-gzip.warc.gz"):
        (crawl / name).write_bytes((FIXTURES / name).read_bytes())
    run([str(crawl)], tmp_path / "out", Rules(), workers=1, run_id="key")
    con = audit.connect(tmp_path / "out")
    assert audit.query(con, "check_record_key_unique").rows == []
    rows = con.sql("select warc_record_offset, warc_record_offset_in_member from records "
                   "where warc_filename like '%concatenated%'").fetchall()
    assert len(rows) == 4 and len(set(rows)) == 4


def test_gzip_members_of_a_file_written_here_read_back(tmp_path: Path):
    # A member holding two records, then one member per record.
    one = b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:%d>\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n"
    path = tmp_path / "mixed.warc.gz"
    path.write_bytes(gzip.compress((one % 1) + (one % 2)) + gzip.compress(one % 3))
    full = _records(path)
    assert [r.offset_in_member for r in full] == [0, len(one % 1), None]
    assert _located(path, [Locator.of(r) for r in full]) == full


@pytest.mark.parametrize("container", ["zstd-dictionary", "zstd", "lz4", "bzip2"])
def test_the_other_containers_read_back(tmp_path: Path, container: str):
    # A Common Crawl shaped crawl (request, response, metadata) one member per record, in
    # each container FastWARC writes (zstd with the WARC-zstd dictionary frame first), and bz2.
    import bz2

    import zstandard
    from fastwarc.stream_io import Lz4Writer, ZstdWriter
    from fastwarc.warc import WarcRecord

    data = gzip.decompress((FIXTURES / "cc-metadata-join.warc.gz").read_bytes())
    records = [b"WARC/1.1\r\n" + part for part in data.split(b"WARC/1.1\r\n")[1:]]
    path = tmp_path / f"crawl.warc.{container}"
    if container == "bzip2":
        path.write_bytes(b"".join(bz2.compress(record) for record in records))
    else:
        buf = io.BytesIO()
        if container == "lz4":
            writer = Lz4Writer(buf)
        elif container == "zstd":
            writer = ZstdWriter(buf)
        else:
            dictionary = zstandard.train_dictionary(1024, records * 20).as_bytes()
            writer = ZstdWriter(buf, dictionary=dictionary)
        for record in records:
            WarcRecord.from_bytes(record).write(writer)
            writer.finish()
        writer.close()
        path.write_bytes(buf.getvalue())
    full = _records(path)
    assert len(full) == len(records) and any(r.content_languages for r in full)
    assert _located(path, [Locator.of(r) for r in full]) == full
    assert _located(path, [Locator.of(full[2])]) == [full[2]]
