"""The WARC/ARC reader on crafted defects (tests/fixtures/warc, built by
scripts/make_warc_fixtures.py): every record once, errors with offsets, truncation flags."""

from __future__ import annotations

import gzip
import importlib.util
import io
import random
import zlib
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.errors import RecordError
from pipeline.sources import fast, iter_records
from pipeline.sources.archive import iter_archive
from pipeline.sources.ccmeta import JOIN_WINDOW
from pipeline.sources.containers import GZIP
from pipeline.sources.fast import MAX_LYING_HANDOVERS, iter_fast
from pipeline.sources.record import RawRecord
from pipeline.sources.warc import MAX_BLOCK, MAX_HEADER, read_careful
from tests.crawl_builder import http_response, write_records

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "warc"


def _load_builder():
    spec = importlib.util.spec_from_file_location("make_warc_fixtures", ROOT / "scripts" / "make_warc_fixtures.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read(name: str) -> list[RawRecord | RecordError]:
    return list(iter_records(str(FIXTURES / name)))


def shape(items: list[RawRecord | RecordError]) -> list[str]:
    """One word per yielded item: the record type, or ``!error-type``."""
    return [f"!{i.error_type}" if isinstance(i, RecordError) else i.record_type for i in items]


def test_committed_fixtures_equal_what_the_script_builds() -> None:
    built = _load_builder().build()
    committed = {p.name for p in FIXTURES.iterdir()}
    assert committed == set(built)
    for name, data in built.items():
        assert (FIXTURES / name).read_bytes() == data, name


# file -> what the reader yields, in order (records by type, errors by error_type)
CASES = {
    # the member CRC fails: that record is the error, the file goes on
    "gzip-bad-crc.warc.gz": ["warcinfo", "!source-gzip-corrupt", "response"],
    "corrupt-deflate-data.warc.gz": ["warcinfo", "!source-gzip-corrupt", "response"],
    "garbage-between-members.warc.gz": ["warcinfo", "!source-not-a-gzip-member", "response"],
    # warcio refuses a whole-file gzip; here its three records are read
    "whole-file-gzip.warc.gz": ["warcinfo", "response", "request"],
    "record-split-over-members.warc.gz": ["warcinfo", "response", "response"],
    # junk inside a whole-file member: one error, then the reader finds the next record
    "whole-file-gzip-junk-inside.warc.gz": ["warcinfo", "!source-invalid-record-header", "response", "response"],
    "junk-between-records.warc": ["warcinfo", "!source-invalid-record-header", "response"],
    "missing-content-length.warc": ["warcinfo", "!source-bad-content-length", "response"],
    "concatenated-whole-file-gzip.warc.gz": ["warcinfo", "response", "response"] * 2,
    # "²", "١٢", "５": digits to str.isdigit (or int()), not to the WARC grammar
    "content-length-not-ascii-digits.warc": ["warcinfo", *["!source-bad-content-length"] * 3, "response"],
    "content-length-not-ascii-digits.warc.gz": ["warcinfo", *["!source-bad-content-length"] * 3,
                                                "response"],
    "content-length-too-long.warc": ["warcinfo", "response"],
    "content-length-too-short.warc": ["warcinfo", "response", "!source-invalid-record-header", "response"],
    "truncated-gzip-member.warc.gz": ["warcinfo", "response"],
    "truncated-in-header.warc.gz": ["warcinfo", "!source-truncated-record"],
    "cc-metadata-join.warc.gz": ["warcinfo", "request", "response", "metadata", "response"],
    # warcio skips the line after a record when no blank line separates ARC records
    "arc-no-blank-lines.arc": ["warcinfo", "response", "response"],
    "empty.warc.gz": ["!source-empty-file"],
    "lz4-corrupt-frame.warc.lz4": ["!source-lz4-corrupt"],
    # a Content-Length of 2 GiB: the block is cut at the next record, all 9 records read
    "content-length-lies.warc": ["warcinfo"] + ["response"] * 8,
    "content-length-lies.warc.gz": ["warcinfo"] + ["response"] * 8,
    # the same lie on a request (block not kept): read again from after its header
    "content-length-lies-request.warc.gz": ["warcinfo", "request", "response", "response", "response"],
    # a 2 MiB header line: over the 1 MiB header cap, an error; the next record is read
    "header-line-over-cap.warc.gz": ["warcinfo", "!source-header-too-long", "response"],
    "http-faults.warc.gz": ["warcinfo", "response", "response"],
}


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir()))
def test_fast_path_and_careful_reader_give_identical_records(name: str) -> None:
    path = str(FIXTURES / name)
    assert list(iter_archive(path)) == list(iter_archive(path, reader="careful"))


@pytest.mark.parametrize("name", ["content-length-lies.warc", "content-length-lies.warc.gz"])
def test_a_lying_content_length_is_cut_at_the_next_record_and_flagged(name: str) -> None:
    items = read(name)
    liar = items[1]
    assert isinstance(liar, RawRecord)
    assert liar.block_truncated and liar.block_truncation == "next-record"
    # the liar's block is its own response only, not the records after it
    assert liar.http_block.endswith(b"</html>\n") and b"WARC/1.1" not in liar.http_block
    ids = [i.record_id for i in items if isinstance(i, RawRecord)]
    assert len(ids) == 9 == len(set(ids))


def test_a_lie_longer_than_the_block_cap_is_found_in_the_kept_part() -> None:
    items = list(iter_archive(str(FIXTURES / "content-length-lies.warc.gz"), max_block=4096))
    assert shape(items) == ["warcinfo"] + ["response"] * 8
    assert isinstance(items[1], RawRecord) and items[1].block_truncation == "next-record"


def test_header_cap_is_a_keyword() -> None:
    # the 2 MiB line passes a 4 MiB cap; the record is then read whole
    items = list(iter_archive(str(FIXTURES / "header-line-over-cap.warc.gz"), max_header=4 << 20))
    assert shape(items) == ["warcinfo", "response", "response"]


def test_reading_from_a_callers_file_object_keeps_the_name_as_locator() -> None:
    import io

    data = (FIXTURES / "cc-metadata-join.warc.gz").read_bytes()
    items = list(iter_records("s3://bucket/crawl.warc.gz", fileobj=io.BytesIO(data)))
    assert shape(items) == CASES["cc-metadata-join.warc.gz"]
    assert {i.warc_filename for i in items} == {"s3://bucket/crawl.warc.gz"}


@pytest.mark.parametrize("name", sorted(CASES), ids=sorted(CASES))
def test_every_record_once_and_errors_in_place(name: str) -> None:
    assert shape(read(name)) == CASES[name]


def test_errors_name_the_file_and_the_offset_of_the_bad_member() -> None:
    items = read("gzip-bad-crc.warc.gz")
    err = items[1]
    assert isinstance(err, RecordError) and err.stage == "source"
    assert err.warc_filename.endswith("gzip-bad-crc.warc.gz")
    first = items[0]
    assert isinstance(first, RawRecord)
    # the bad member starts right after the first record's member
    assert err.offset == first.warc_record_offset + first.warc_record_length
    # the record inside the bad member is named
    assert err.record_id == "<urn:uuid:00000000-0000-4000-8000-000000000002>"


def test_offsets_and_lengths_lead_back_to_each_gzip_member() -> None:
    path = FIXTURES / "cc-metadata-join.warc.gz"
    data = path.read_bytes()
    records = [r for r in iter_archive(str(path)) if isinstance(r, RawRecord)]
    assert records[0].warc_record_offset == 0
    for rec, nxt in zip(records, records[1:], strict=False):
        assert rec.warc_record_offset + rec.warc_record_length == nxt.warc_record_offset
    assert records[-1].warc_record_offset + records[-1].warc_record_length == len(data)
    for rec in records:
        member = data[rec.warc_record_offset : rec.warc_record_offset + rec.warc_record_length]
        text = gzip.decompress(member)
        assert rec.record_id.encode() in text


def test_plain_file_offsets_point_at_the_record_line() -> None:
    path = FIXTURES / "missing-content-length.warc"
    data = path.read_bytes()
    for item in iter_records(str(path)):
        offset = item.offset if isinstance(item, RecordError) else item.warc_record_offset
        assert data[offset : offset + 9] == b"WARC/1.1\r"


def test_truncated_gzip_member_is_flagged_gzip() -> None:
    rec = read("truncated-gzip-member.warc.gz")[1]
    assert isinstance(rec, RawRecord)
    assert rec.block_truncated and rec.block_truncation == "gzip"


def test_block_shorter_than_content_length_is_flagged_length() -> None:
    rec = read("content-length-too-long.warc")[1]
    assert isinstance(rec, RawRecord)
    assert rec.block_truncated and rec.block_truncation == "length"


def test_junk_after_a_block_flags_framing() -> None:
    rec = read("content-length-too-short.warc")[1]
    assert isinstance(rec, RawRecord)
    assert rec.block_truncation == "framing"


def test_whole_file_gzip_records_carry_their_offset_inside_the_member() -> None:
    items = read("whole-file-gzip.warc.gz")
    member = gzip.decompress((FIXTURES / "whole-file-gzip.warc.gz").read_bytes())
    for rec in items:
        assert isinstance(rec, RawRecord)
        assert rec.warc_record_offset == 0
        assert rec.offset_in_member is not None
        assert member[rec.offset_in_member :].startswith(b"WARC/1.1")


def test_cc_metadata_is_joined_to_its_response() -> None:
    items = read("cc-metadata-join.warc.gz")
    first, second = items[2], items[4]
    assert isinstance(first, RawRecord) and isinstance(second, RawRecord)
    assert first.crawler_charset == "windows-1252"
    assert first.content_languages == "fra,eng"
    assert first.content_mime_detected == "text/html"
    # WARC-Identified-Content-Charset and WARC-Truncated are kept from the record header
    assert second.crawler_charset == "UTF-8"
    assert second.warc_truncated == "length"
    assert second.content_languages is None


def test_metadata_beyond_the_join_window_is_not_joined() -> None:
    items = read("metadata-outside-window.warc.gz")
    assert len(items) > JOIN_WINDOW + 2
    response = items[0]
    assert isinstance(response, RawRecord) and response.record_type == "response"
    assert response.crawler_charset is None and response.content_languages is None


def test_arc_record_ids_are_deterministic() -> None:
    a = read("arc-no-blank-lines.arc")
    b = read("arc-no-blank-lines.arc")
    assert [r.record_id for r in a] == [r.record_id for r in b]
    assert len({r.record_id for r in a}) == 3
    rec = a[1]
    assert isinstance(rec, RawRecord)
    assert rec.url == "http://example.test/a" and rec.fetch_time == "2026-01-02T03:04:05Z"
    assert rec.warc_content_type == "text/html"
    assert rec.http_block.startswith(b"HTTP/1.1 200 OK")


def test_missing_file_is_an_error_not_an_exception(tmp_path: Path) -> None:
    items = list(iter_records(str(tmp_path / "nope.warc.gz")))
    assert shape(items) == ["!source-unreadable-file"]
    assert items[0].offset is None


def test_blocks_of_skipped_record_types_are_not_kept() -> None:
    items = read("cc-metadata-join.warc.gz")
    request = items[1]
    assert isinstance(request, RawRecord) and request.http_block == b""
    assert isinstance(items[2], RawRecord) and items[2].http_block.startswith(b"HTTP/1.1")


def test_block_over_the_cap_is_cut_and_flagged(tmp_path: Path) -> None:
    items = list(iter_archive(str(FIXTURES / "content-length-too-short.warc"), max_block=16))
    rec = items[1]
    assert isinstance(rec, RawRecord)
    assert len(rec.http_block) == 16 and rec.block_truncation == "cap"


@pytest.mark.parametrize("cut", [1, 7, 100, 333, 500, 700])
def test_any_cut_of_a_gzip_file_reads_without_raising(tmp_path: Path, cut: int) -> None:
    data = (FIXTURES / "cc-metadata-join.warc.gz").read_bytes()[:cut]
    path = tmp_path / "cut.warc.gz"
    path.write_bytes(data)
    items = list(iter_records(str(path)))
    assert items, "a cut file yields at least one record or error"
    offsets = [i.offset if isinstance(i, RecordError) else i.warc_record_offset for i in items]
    assert all(o is None or 0 <= o < cut for o in offsets)


def test_resync_over_megabytes_of_junk_without_newlines(tmp_path: Path) -> None:
    good = (FIXTURES / "junk-between-records.warc").read_bytes()
    head, _, tail = good.partition(b"stray text")
    path = tmp_path / "long-junk.warc"
    # 3 MB with no newline, then a line that merely contains "WARC/1.1" mid-line
    path.write_bytes(head + b"\xff" * (3 << 20) + b" WARC/1.1\r\n" + tail[tail.index(b"WARC/1.1\r\nWARC-Type"):])
    assert shape(list(iter_records(str(path)))) == ["warcinfo", "!source-invalid-record-header", "response"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["cc-metadata-join.warc.gz", "missing-content-length.warc", "arc-no-blank-lines.arc",
                        "whole-file-gzip.warc.gz"]),
       st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=8))
def test_corrupted_bytes_never_raise_and_offsets_stay_in_the_file(tmp_path: Path, name: str,
                                                                   flips: list[tuple[int, int]]) -> None:
    data = bytearray((FIXTURES / name).read_bytes())
    for at, value in flips:
        data[at % len(data)] = value
    path = tmp_path / name
    path.write_bytes(bytes(data))
    items = list(iter_records(str(path)))
    assert items
    for item in items:
        offset = item.offset if isinstance(item, RecordError) else item.warc_record_offset
        assert offset is None or 0 <= offset < len(data)
    ids = [i.record_id for i in items if isinstance(i, RawRecord)]
    # each record is yielded once: no record id comes back twice
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("data", [
    b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\ntrailer\n",
    bytes(random.Random(7).getrandbits(8) for _ in range(5000)),
    gzip.compress(b"not an archive at all\n" * 50),
], ids=["pdf", "random-bytes", "gzipped-text"])
def test_a_file_with_no_record_is_one_file_level_error(tmp_path, data: bytes) -> None:
    # offset NULL: the whole file failed (it counts as unreadable: exit 3)
    path = tmp_path / "x.warc.gz"
    path.write_bytes(data)
    items = list(iter_records(str(path)))
    assert len(items) == 1 and isinstance(items[0], RecordError), items
    assert items[0].offset is None
    assert items[0].message.startswith("no record found in the file: at byte ")


def test_errors_after_a_first_record_keep_their_offsets(tmp_path) -> None:
    good = tmp_path / "good.warc"
    write_records(good, [("response", "http://a.example/", http_response(b"<p>a</p>"), {})])
    path = tmp_path / "x.warc"
    path.write_bytes(good.read_bytes() + b"garbage that is not a record\r\n\r\n")
    items = list(iter_records(str(path)))
    assert not isinstance(items[0], RecordError)
    assert [i.offset for i in items[1:] if isinstance(i, RecordError)] == [len(good.read_bytes())]


def test_a_clean_file_is_read_without_importing_warcio(tmp_path: Path) -> None:
    # warcio (with fsspec) costs ~15-20 ms of every process's start-up; only the careful
    # reader needs it, so a file FastWARC reads whole must not import it.
    import subprocess
    import sys

    path = tmp_path / "clean.warc.gz"
    write_records(path, [("response", "http://a.example/", http_response(b"<p>x"), {})])
    code = ("import sys\nfrom pipeline.sources import iter_records\n"
            f"items = list(iter_records({str(path)!r}))\n"
            "print(len(items), type(items[0]).__name__, 'warcio' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["1", "RawRecord", "False"]
    # and the careful reader still imports it where it is needed (an ARC file)
    arc = Path(__file__).resolve().parents[2] / "data" / "sample" / "sample.arc.gz"
    code = ("import sys\nfrom pipeline.sources import iter_records\n"
            f"items = list(iter_records({str(arc)!r}))\n"
            "print(any(type(i).__name__ == 'RawRecord' for i in items), 'warcio' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True"]


class _CountingFile(io.FileIO):
    """A file that counts the bytes read from it."""

    bytes_read = 0

    def read(self, n: int = -1) -> bytes:
        data = super().read(n)
        self.bytes_read += len(data or b"")
        return data or b""

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def, override]
        n = super().readinto(buffer) or 0
        self.bytes_read += n
        return n


@pytest.mark.parametrize("compressed", [True, False], ids=["gzip", "plain"])
@pytest.mark.parametrize("lying", ["request", "response"])
def test_lying_content_lengths_are_read_once(tmp_path: Path, lying: str, compressed: bool) -> None:
    # Each lying record's block runs past the records after it (to the end of the file): the
    # reader stops at the record after it, rather than reading (and decompressing) the rest
    # of the file once per lie.
    fx = _load_builder()
    wrap = fx.gz if compressed else (lambda data: data)
    members = [wrap(fx.warcinfo())]
    for i in range(60):
        block = (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" if lying == "request"
                 else fx.HTTP_OK % len(fx.PAGE) + fx.PAGE)
        members.append(wrap(fx.record(lying, 2 * i + 2, block, content_length=2**31)))
        members.append(wrap(fx.response(2 * i + 3, fx.PAGE * 20)))
    path = tmp_path / ("lies.warc.gz" if compressed else "lies.warc")
    path.write_bytes(b"".join(members))
    with _CountingFile(path) as fh:
        items = list(read_careful(fh, str(path), GZIP if compressed else None))
        read_back = fh.bytes_read
    assert read_back <= 2 * path.stat().st_size
    assert shape(items) == ["warcinfo"] + [lying, "response"] * 60
    # The fast path reads a lying block to the end of the file before it hands the file over
    # (and the careful reader then reads from the lie on): after MAX_LYING_HANDOVERS such
    # records the careful reader keeps the file. (Without that limit: 61x the file's size.)
    with _CountingFile(path) as fh:
        fast_items = list(iter_fast(fh, str(path), GZIP if compressed else None,
                                    max_block=MAX_BLOCK, max_header=MAX_HEADER))
        fast_read = fh.bytes_read
    assert fast_items == items
    assert fast_read <= (2 * MAX_LYING_HANDOVERS + 4) * path.stat().st_size
    offsets = [0]
    for member in members[:-1]:
        offsets.append(offsets[-1] + len(member))
    assert [r.warc_record_offset for r in items] == offsets
    # each lying record ends where the next one starts
    liars = items[1::2]
    assert all(r.block_truncation == "next-record" for r in liars)
    assert all(r.warc_record_offset + r.warc_record_length == nxt.warc_record_offset
               for r, nxt in zip(liars, items[2::2], strict=True))
    if lying == "response":
        assert all(r.http_block == fx.HTTP_OK % len(fx.PAGE) + fx.PAGE for r in liars)
    assert list(iter_records(str(path))) == items


@pytest.mark.parametrize("compressed", [True, False], ids=["gzip", "plain"])
def test_a_record_start_across_read_pieces_ends_a_lying_block(tmp_path: Path, compressed: bool) -> None:
    # The record after a lying block found wherever the read pieces (64 KiB) cut it.
    from pipeline.sources.streams import CHUNK

    fx = _load_builder()
    wrap = fx.gz if compressed else (lambda data: data)
    for size in (CHUNK - 40, CHUNK - 8, CHUNK - 5, CHUNK - 4, CHUNK - 1, CHUNK, CHUNK + 3):
        block = fx.HTTP_OK % 0 + b"x" * (size - len(fx.HTTP_OK % 0))
        assert len(block) == size
        data = wrap(fx.warcinfo()) + wrap(fx.record("response", 2, block, content_length=2**31)) \
            + wrap(fx.response(3))
        path = tmp_path / f"{size}.warc{'.gz' if compressed else ''}"
        path.write_bytes(data)
        items = list(iter_records(str(path)))
        assert shape(items) == ["warcinfo", "response", "response"], size
        liar = items[1]
        assert isinstance(liar, RawRecord) and liar.http_block == block, size
        assert liar.block_truncation == "next-record"


@given(st.lists(st.tuples(st.sampled_from(["request", "response", "metadata"]), st.booleans(),
                          st.sampled_from([0, 10, 3000, 65_500, 65_530, 70_000])),
                min_size=1, max_size=6),
       st.booleans())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_records_after_lying_lengths_are_all_read(tmp_path: Path, records: list[tuple[str, bool, int]],
                                                  compressed: bool) -> None:
    # Any mix of truthful and lying (2 GiB) Content-Lengths: every record once, where it
    # starts, a lie ending at the record after it (the last one runs to the end of the file).
    fx = _load_builder()
    wrap = fx.gz if compressed else (lambda data: data)
    members = [wrap(fx.warcinfo())]
    for n, (rtype, lies, size) in enumerate(records):
        block = b"y" * size if rtype != "response" else fx.HTTP_OK % size + b"y" * size
        members.append(wrap(fx.record(rtype, n + 2, block, content_length=2**31 if lies else -1)))
    path = tmp_path / ("mix.warc.gz" if compressed else "mix.warc")
    path.write_bytes(b"".join(members))
    items = list(iter_records(str(path)))
    assert shape(items) == ["warcinfo"] + [rtype for rtype, _, _ in records]
    offsets = [0]
    for member in members[:-1]:
        offsets.append(offsets[-1] + len(member))
    assert [r.warc_record_offset for r in items] == offsets
    for item, (_, lies, _) in zip(items[1:-1], records[:-1], strict=True):
        assert item.block_truncation == ("next-record" if lies else None)
    assert items[-1].block_truncated == records[-1][1]


@pytest.mark.parametrize("compressed", [True, False], ids=["gzip", "plain"])
def test_a_fast_path_check_that_raises_hands_the_file_to_the_careful_reader(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compressed: bool) -> None:
    """A check of the fast path that raises on bytes it did not expect (here: made to, on the
    4th record) costs speed, not records: the careful reader reads on from the first record
    not yet passed on, and the file reads as the careful reader alone reads it."""
    fx = _load_builder()
    parts = [fx.warcinfo(), *(fx.response(2 + i) for i in range(6))]
    path = tmp_path / ("f.warc.gz" if compressed else "f.warc")
    path.write_bytes(b"".join(map(fx.gz, parts)) if compressed else b"".join(parts))
    expected = list(iter_archive(str(path), reader="careful"))
    looked_up = fast.fields.warc_fields
    calls = 0

    def failing_on_the_4th(items: object, names: tuple[str, ...]) -> tuple | None:
        nonlocal calls
        calls += 1
        if calls == 4:
            raise ValueError("a check's bug")
        return looked_up(items, names)

    monkeypatch.setattr(fast, "fields", SimpleNamespace(warc_fields=failing_on_the_4th))
    assert list(iter_archive(str(path))) == expected
    assert calls >= 4 and len(expected) == 7


def _members(data: bytes, cuts: list[int], compress: Callable[[bytes], bytes]) -> bytes:
    """``data`` cut at ``cuts`` (sorted), each piece compressed as a member of its own."""
    return b"".join(compress(data[a:b]) for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True))


@pytest.mark.parametrize("codec", ["gzip", "zstd", "lz4", "lz4-unsized"])
def test_members_of_several_records_lose_none_of_them(tmp_path: Path, codec: str) -> None:
    """Members holding several records, one after the other (whole-file compressed WARCs
    concatenated, or a member cut anywhere): FastWARC reports a record inside such a member
    at the next member's position; the fast path must not pass such a record on with that
    offset (it did, and lost the records between), but read those members carefully. LZ4
    frames without their size (as FastWARC writes them) give no size to check: their
    content's first bytes and their blocks must show that each holds one record's start and
    ends where the next record's frame starts (a record split over frames was passed on
    with another offset and length than the careful reader gives it)."""
    import lz4.frame
    import zstandard

    compress = {"gzip": lambda b: gzip.compress(b, mtime=0), "zstd": zstandard.ZstdCompressor().compress,
                "lz4": lz4.frame.compress,
                "lz4-unsized": lambda b: lz4.frame.compress(b, store_size=False)}[codec]
    fx = _load_builder()
    records = [fx.warcinfo(), *(fx.response(n) for n in range(2, 9))]
    rng = random.Random(7)
    for layout in ([3, 3, 2], [1, 3, 1, 3], [2, 1, 1, 1, 1, 2], [8], [1] * 8):
        members, at = [], 0
        for size in layout:
            members.append(compress(b"".join(records[at:at + size])))
            at += size
        path = tmp_path / f"f-{'-'.join(map(str, layout))}.warc.{codec.split('-')[0]}"
        path.write_bytes(b"".join(members))
        fast_items = list(iter_archive(str(path)))
        assert fast_items == list(iter_archive(str(path), reader="careful")), layout
        assert shape(fast_items) == ["warcinfo", *["response"] * 7], layout
    # and members cut at random places, records split over them
    data = b"".join(records)
    for _ in range(20):
        cuts = sorted(rng.sample(range(1, len(data)), rng.randint(1, 9)))
        path = tmp_path / f"cut.warc.{codec.split('-')[0]}"
        path.write_bytes(_members(data, cuts, compress))
        fast_items = list(iter_archive(str(path)))
        assert fast_items == list(iter_archive(str(path), reader="careful")), cuts
        assert [i.record_id for i in fast_items if isinstance(i, RawRecord)] == [
            i.record_id for i in iter_archive(str(path), reader="careful") if isinstance(i, RawRecord)]


@pytest.mark.parametrize("compressed", [True, False], ids=["gzip", "plain"])
@pytest.mark.parametrize("field", [
    b"WARC-Target-URI: http://example.test/caf\xe9\r\n",  # not UTF-8: warcio reads ISO-8859-1
    b"WARC-Record-ID: <urn:uuid:1>\n0-2>\r\n",  # a bare LF: warcio ends the line there
    b"X-Note: a\nContent-Length: 5\r\n",  # ... and reads a field FastWARC does not see
    b"X-Note: \n",  # a bare LF FastWARC strips off the value
])
def test_header_lines_the_two_readers_read_differently_are_read_carefully(
        tmp_path: Path, compressed: bool, field: bytes) -> None:
    """FastWARC ends header lines at CRLF and decodes them as UTF-8 with replacement
    characters; warcio (the careful reader) ends them at LF and decodes a line that is not
    UTF-8 as ISO-8859-1. A record whose header the two would read apart is read carefully."""
    fx = _load_builder()
    odd = fx.response(3).replace(b"WARC-Date:", field + b"WARC-Date:", 1)
    parts = [fx.warcinfo(), fx.response(2), odd, fx.response(4)]
    path = tmp_path / ("f.warc.gz" if compressed else "f.warc")
    path.write_bytes(b"".join(map(fx.gz, parts)) if compressed else b"".join(parts))
    assert list(iter_archive(str(path))) == list(iter_archive(str(path), reader="careful"))


def _mutated(rng: random.Random, data: bytes) -> bytes:
    """``data`` with a few bytes changed, cut out or put in (record starts, line ends)."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(max(1, len(out)))
        op = rng.random()
        if op < 0.4 and out:
            out[at] = rng.randrange(256)
        elif op < 0.6:
            del out[at:at + rng.randint(1, 20)]
        elif op < 0.8:
            out[at:at] = rng.choice([b"\r\n", b"\n", b"WARC/1.1\r\n", b":", b" ", b"\x00",
                                     b"Content-Length: 5\r\n"])
        else:
            out[at:at] = out[rng.randrange(max(1, len(out))):][:rng.randint(1, 50)]
    return bytes(out)


def _damaged_fixture(rng: random.Random) -> tuple[Path, bytes | None]:
    """A WARC fixture chosen at random and its records damaged (:func:`_mutated`; a gzip
    fixture's once decompressed), or None for the fixtures whose gzip members are corrupt."""
    source = rng.choice([p for p in sorted(FIXTURES.iterdir()) if p.suffix in (".warc", ".gz")])
    data = source.read_bytes()
    if source.suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error):
            return source, None
    return source, _mutated(rng, data)


def test_damaged_files_read_alike_by_both_readers(tmp_path: Path) -> None:
    """The fixtures, damaged at random (a fixed seed): in gzip files the damage goes into
    the records and the members are cut anew at random places. The fast path gives the
    careful reader's records and errors for each file."""
    rng = random.Random(20261202)
    for i in range(150):
        source, raw = _damaged_fixture(rng)
        if source.suffix != ".gz" and raw is not None:
            data = raw
        elif raw is not None and len(raw) > 2:
            cuts = sorted(rng.sample(range(1, len(raw)), min(len(raw) - 1, rng.randint(0, 6))))
            data = _members(raw, cuts, lambda piece: gzip.compress(piece, mtime=0))
        else:
            data = source.read_bytes()
        path = tmp_path / f"{i}{''.join(source.suffixes)}"
        path.write_bytes(data)
        assert list(iter_archive(str(path))) == list(iter_archive(str(path), reader="careful")), source.name


def test_damaged_files_in_lz4_frames_without_their_size_read_alike_by_both_readers(tmp_path: Path) -> None:
    """The fixtures, damaged at random (a fixed seed), in LZ4 frames that record no size:
    one a record, as FastWARC writes them, and a few cut at random places besides. With no
    size to compare, the fast path checks each frame's first bytes and blocks; it gives the
    careful reader's records and errors for each file."""
    import lz4.frame

    rng = random.Random(2)
    for i in range(120):
        source, raw = _damaged_fixture(rng)
        if raw is None or len(raw) < 3:
            continue
        cuts = {k for k in range(1, len(raw)) if raw.startswith(b"WARC/", k) and raw[k - 1] == 10}
        cuts |= set(rng.sample(range(1, len(raw)), min(len(raw) - 1, rng.randint(0, 3))))
        path = tmp_path / f"{i}.warc.lz4"
        path.write_bytes(_members(raw, sorted(cuts), lambda piece: lz4.frame.compress(piece, store_size=False)))
        assert list(iter_archive(str(path))) == list(iter_archive(str(path), reader="careful")), source.name

@pytest.mark.parametrize("compressed", [True, False], ids=["gzip", "plain"])
def test_a_careful_read_of_a_warc_file_from_inside_a_record_finds_the_next_records(
        tmp_path: Path, compressed: bool) -> None:
    """The fast path hands a WARC file over at a position FastWARC gave; if that is inside a
    record (an LZ4 frame without its size, say), the careful reader, told the file is WARC,
    reports it and reads on at the next record, not taking the line there for an ARC
    file's first and every record after it for a bad one."""
    fx = _load_builder()
    parts = [fx.warcinfo(), fx.response(2), fx.response(3), fx.response(4)]
    inside = len(parts[0]) + 30  # inside the second record's header
    if compressed:
        members = [fx.gz(parts[0]), fx.gz(parts[1][:30]), fx.gz(parts[1][30:]), fx.gz(parts[2]), fx.gz(parts[3])]
        inside = len(members[0]) + len(members[1])
        data, codec = b"".join(members), GZIP
    else:
        data, codec = b"".join(parts), None
    path = tmp_path / "f.warc"
    path.write_bytes(data)
    with open(path, "rb") as fh:
        items = list(read_careful(fh, str(path), codec, start=inside, warc=True))
    assert shape(items) == ["!source-invalid-record-header", "response", "response"]
