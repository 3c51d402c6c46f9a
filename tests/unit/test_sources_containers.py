"""Every container a crawl comes in, written by the tools that write them: FastWARC's
writers (gzip, LZ4, zstd with a dictionary frame), the ``zstd`` CLI with a dictionary it
trained, the ``bzip2`` CLI. Records and offsets must hold for each: the bytes at a record's
offset and length are that record, compressed on their own."""

from __future__ import annotations

import bz2
import gzip
import io
import random
import shutil
import subprocess
import tracemalloc
import zlib
from collections.abc import Callable
from pathlib import Path

import lz4.frame
import pytest
import zstandard
from fastwarc.stream_io import GzipWriter, Lz4Writer, ZstdWriter
from fastwarc.warc import WarcRecord

from pipeline.errors import RecordError
from pipeline.sources.archive import iter_archive
from pipeline.sources.containers import (
    LZ4_MAX_BLOCKS,
    ZSTD,
    lz4_content_starts_with,
    lz4_frame_end,
)
from pipeline.sources.record import RawRecord

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "warc"


def _records() -> list[bytes]:
    """Plain WARC records (from the gzip fixture with metadata, a real crawl's shape)."""
    data = gzip.decompress((FIXTURES / "cc-metadata-join.warc.gz").read_bytes())
    parts = data.split(b"WARC/1.1\r\n")[1:]
    return [b"WARC/1.1\r\n" + p for p in parts]


RECORDS = _records()
TYPES = ["warcinfo", "request", "response", "metadata", "response"]


def _fastwarc_file(writer_type: type, **kwargs: object) -> bytes:
    buf = io.BytesIO()
    writer = writer_type(buf, **kwargs)
    for raw in RECORDS:
        WarcRecord.from_bytes(raw).write(writer)
        writer.finish()  # one member/frame per record, as FastWARC's recompress writes them
    writer.close()
    return buf.getvalue()


def _dictionary() -> bytes:
    return zstandard.train_dictionary(1024, RECORDS * 20).as_bytes()


def _unzstd(dctx: zstandard.ZstdDecompressor) -> object:
    # frames written in streaming mode carry no content size: decompress as a stream
    return lambda data: dctx.decompressobj().decompress(data)


def _read(path: Path, reader: str = "auto") -> list[RawRecord | RecordError]:
    return list(iter_archive(str(path), reader=reader))  # type: ignore[arg-type]


def _member(data: bytes, rec: RawRecord, decompress: object) -> bytes:
    return decompress(data[rec.warc_record_offset : rec.warc_record_offset + rec.warc_record_length])  # type: ignore[operator]


def _check(path: Path, decompress: object) -> None:
    data = path.read_bytes()
    for reader in ("auto", "careful"):
        items = _read(path, reader)
        assert [i.record_type for i in items if isinstance(i, RawRecord)] == TYPES, reader
        for rec, raw in zip(items, RECORDS, strict=True):
            assert isinstance(rec, RawRecord) and rec.offset_in_member is None
            # the record's own member decompresses to exactly that record
            assert _member(data, rec, decompress).rstrip(b"\r\n") == raw.rstrip(b"\r\n")
    assert _read(path) == _read(path, "careful")


def test_gzip_written_by_fastwarc(tmp_path: Path) -> None:
    path = tmp_path / "c.warc.gz"
    path.write_bytes(_fastwarc_file(GzipWriter))
    _check(path, gzip.decompress)


def test_lz4_written_by_fastwarc(tmp_path: Path) -> None:
    path = tmp_path / "c.warc.lz4"
    path.write_bytes(_fastwarc_file(Lz4Writer))
    _check(path, lz4.frame.decompress)


def test_zstd_written_by_fastwarc_without_dictionary(tmp_path: Path) -> None:
    path = tmp_path / "c.warc.zst"
    path.write_bytes(_fastwarc_file(ZstdWriter))
    _check(path, _unzstd(zstandard.ZstdDecompressor()))


@pytest.mark.parametrize("compressed_frame", [False, True], ids=["plain-dict", "compressed-dict"])
def test_zstd_with_a_dictionary_frame_written_by_fastwarc(tmp_path: Path, compressed_frame: bool) -> None:
    dictionary = _dictionary()
    path = tmp_path / "c.warc.zst"
    path.write_bytes(_fastwarc_file(ZstdWriter, dictionary=dictionary,
                                    compress_dictionary_frame=compressed_frame))
    assert path.read_bytes()[:4] == b"\x5d\x2a\x4d\x18"  # the proposal's dictionary frame
    dctx = zstandard.ZstdDecompressor(dict_data=zstandard.ZstdCompressionDict(dictionary))
    _check(path, _unzstd(dctx))


@pytest.mark.skipif(shutil.which("zstd") is None, reason="needs the zstd CLI")
def test_zstd_with_a_dictionary_trained_and_applied_by_the_zstd_cli(tmp_path: Path) -> None:
    samples = tmp_path / "samples"
    samples.mkdir()
    for i, raw in enumerate(RECORDS * 20):
        (samples / f"{i}.warc").write_bytes(raw)
    dict_path = tmp_path / "warc.dict"
    subprocess.run(["zstd", "-q", "--train", "--maxdict=2048", "-o", str(dict_path),
                    *map(str, samples.iterdir())], check=True)
    dictionary = dict_path.read_bytes()
    # The IIPC proposal's layout: a skippable frame 0x184D2A5D holding the dictionary,
    # then one frame per record, each compressed by the CLI with that dictionary.
    out = bytearray(b"\x5d\x2a\x4d\x18" + len(dictionary).to_bytes(4, "little") + dictionary)
    for raw in RECORDS:
        out += subprocess.run(["zstd", "-q", "-c", "-D", str(dict_path)], input=raw,
                              capture_output=True, check=True).stdout
    path = tmp_path / "cli.warc.zst"
    path.write_bytes(bytes(out))
    dctx = zstandard.ZstdDecompressor(dict_data=zstandard.ZstdCompressionDict(dictionary))
    _check(path, _unzstd(dctx))


@pytest.mark.skipif(shutil.which("bzip2") is None, reason="needs the bzip2 CLI")
def test_bzip2_per_record_streams_written_by_the_bzip2_cli(tmp_path: Path) -> None:
    out = b"".join(subprocess.run(["bzip2", "-c"], input=raw, capture_output=True,
                                  check=True).stdout for raw in RECORDS)
    path = tmp_path / "c.warc.bz2"
    path.write_bytes(out)
    _check(path, bz2.decompress)


@pytest.mark.skipif(shutil.which("bzip2") is None, reason="needs the bzip2 CLI")
def test_whole_file_bzip2_of_an_arc_file(tmp_path: Path) -> None:
    arc = (FIXTURES / "arc-no-blank-lines.arc").read_bytes()
    path = tmp_path / "c.arc.bz2"
    path.write_bytes(subprocess.run(["bzip2", "-c"], input=arc, capture_output=True, check=True).stdout)
    items = _read(path)
    assert [i.record_type for i in items if isinstance(i, RawRecord)] == ["warcinfo", "response", "response"]
    member = bz2.decompress(path.read_bytes())
    for rec in items:
        assert isinstance(rec, RawRecord) and rec.warc_record_offset == 0
        assert rec.offset_in_member is not None
        assert member[rec.offset_in_member :].startswith((b"filedesc://", b"http://"))


def test_a_corrupt_zstd_frame_is_an_error_and_the_next_frame_is_read(tmp_path: Path) -> None:
    data = bytearray(_fastwarc_file(ZstdWriter))
    second = next(r for r in _read_bytes(tmp_path, bytes(data)) if isinstance(r, RawRecord)
                  and r.record_type == "request")
    for i in range(second.warc_record_offset + 12, second.warc_record_offset + 40):
        data[i] ^= 0x55
    items = _read_bytes(tmp_path, bytes(data))
    kinds = [i.error_type if isinstance(i, RecordError) else i.record_type for i in items]
    assert kinds[0] == "warcinfo" and "source-zstd-corrupt" in kinds
    assert kinds[-3:] == ["response", "metadata", "response"]


def _zeros_frame(codec: str, size: int) -> bytes:
    """One member of ``size`` zero bytes (no record in it), written by a streaming compressor."""
    if codec == "gzip":
        comp = zlib.compressobj(9, zlib.DEFLATED, 31)
        return comp.compress(b"\0" * size) + comp.flush()
    obj = zstandard.ZstdCompressor(level=3).compressobj()  # (no content size in the frame)
    return obj.compress(b"\0" * size) + obj.flush()


@pytest.mark.parametrize("codec", ["zstd", "gzip"])
def test_a_member_of_junk_without_a_line_break_does_not_hide_the_record_after_it(
        tmp_path: Path, codec: str) -> None:
    # Zeros where a record should start: an error row; the search for the next record goes
    # on at the next member's start (a line start), so the record there is read, not lost.
    one = {"zstd": lambda raw: zstandard.ZstdCompressor().compress(raw),
           "gzip": lambda raw: gzip.compress(raw, mtime=0)}[codec]
    junk = _zeros_frame(codec, 1 << 20)
    data = one(RECORDS[0]) + junk + one(RECORDS[2]) + one(RECORDS[4])
    path = tmp_path / f"x.warc.{'zst' if codec == 'zstd' else 'gz'}"
    path.write_bytes(data)
    items = _read(path)
    assert items == _read(path, "careful")
    kinds = [i.error_type if isinstance(i, RecordError) else i.record_type for i in items]
    assert kinds == ["warcinfo", "source-invalid-record-header", "response", "response"]
    assert items[1].offset == len(one(RECORDS[0]))
    assert items[2].warc_record_offset == len(one(RECORDS[0])) + len(junk)


def test_a_zstd_frame_is_handed_out_in_pieces_each_output_byte_copied_once() -> None:
    # 24 MiB of zeros in one frame: one piece of input decompresses to all of it (RLE
    # blocks), which the reader asks for 64 KiB at a time. Bytes allocated (each a copy)
    # must stay linear in the output: slicing the leftover off at every call allocated
    # ~12 MiB a call, ~4.6 GiB in all.
    size, step = 24 << 20, 1 << 16
    frame = _zeros_frame("zstd", size)
    d = ZSTD.new()
    allocated = out = 0
    tracemalloc.start()
    try:
        data = frame
        while not d.eof:
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            piece = d.decompress(data, step)
            allocated += tracemalloc.get_traced_memory()[1] - before
            data = d.unconsumed_tail
            assert len(piece) <= step
            out += len(piece)
            del piece
    finally:
        tracemalloc.stop()
    assert out == size and d.unused_data == b""
    assert allocated < 3 * size, allocated


def _read_bytes(tmp_path: Path, data: bytes) -> list[RawRecord | RecordError]:
    path = tmp_path / "x.warc.zst"
    path.write_bytes(data)
    fast, careful = _read(path), _read(path, "careful")
    assert fast == careful
    return fast


def _at(data: bytes) -> Callable[[int, int], bytes]:
    return lambda pos, n: data[pos : pos + n]


@pytest.mark.parametrize("options", [
    {},
    {"block_checksum": True},
    {"content_checksum": True},
    {"block_checksum": True, "content_checksum": True, "store_size": True},
    {"block_size": lz4.frame.BLOCKSIZE_MAX64KB, "block_linked": False},
], ids=["plain", "block-checksums", "content-checksum", "all-flags", "independent-blocks"])
@pytest.mark.parametrize("content", [b"WARC/1.1\r\n" + b"abcdefgh" * 40_000,  # blocks compressed
                                     b"WARC/1.1\r\n" + bytes(range(256)) * 10,  # one short block
                                     b"WARC/1.1\r\n" + random.Random(3).randbytes(150_000)],  # stored
                         ids=["compressible", "short", "incompressible"])
def test_an_lz4_frame_end_and_first_bytes_are_read_off_its_headers(content: bytes, options: dict) -> None:
    frame = lz4.frame.compress(content, **{"store_size": False, **options})
    after = lz4.frame.compress(b"WARC/1.0\r\n", store_size=False)
    data = b"\x00" * 7 + frame + after
    assert lz4_frame_end(_at(data), 7, len(data)) == 7 + len(frame)
    assert lz4_frame_end(_at(data), 7, 7 + len(frame)) == 7 + len(frame)
    assert lz4_frame_end(_at(data), 7, 6 + len(frame)) is None  # it runs past the limit
    assert lz4_frame_end(_at(data[: 6 + len(frame)]), 7, len(data)) is None  # cut short
    assert lz4_frame_end(_at(data), 8, len(data)) is None  # not a frame's start
    assert lz4_content_starts_with(frame, b"WARC/1.1\r\n")
    assert not lz4_content_starts_with(frame, b"WARC/1.0\r\n")
    assert not lz4_content_starts_with(frame[:5], b"WARC/")


def test_an_lz4_frame_whose_first_literals_are_short_or_that_names_a_dictionary_is_not_read() -> None:
    # "WARCWARC/": the first sequence's literals are "WARC" only (a match copies the rest)
    frame = lz4.frame.compress(b"WARCWARCWARC/" + b"x" * 100, store_size=False)
    assert lz4.frame.decompress(frame).startswith(b"WARCWARC")
    assert not lz4_content_starts_with(frame, b"WARCWARCW")
    named = bytearray(lz4.frame.compress(b"WARC/1.1\r\n" * 3, store_size=False))
    named[4] |= 0x01  # FLG: a Dictionary ID follows BD
    named[6:6] = b"\x01\x02\x03\x04"
    assert not lz4_content_starts_with(bytes(named), b"WARC/")
    versioned = bytearray(lz4.frame.compress(b"WARC/1.1\r\n", store_size=False))
    versioned[4] ^= 0x80  # FLG version 11
    assert lz4_frame_end(_at(bytes(versioned)), 0, len(versioned)) is None
    assert not lz4_content_starts_with(bytes(versioned), b"WARC/")


def test_an_lz4_frame_of_more_blocks_than_walked_is_read_carefully(tmp_path: Path) -> None:
    """Blocks may be of one byte: the walk stops after LZ4_MAX_BLOCKS of them (None), and the
    fast path hands such a record to the careful reader, which decompresses it."""
    header = lz4.frame.compress(b"", store_size=False)[:7]  # magic, FLG, BD, HC
    body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + b"<p>long</p>" * 500
    record = (b"WARC/1.1\r\nWARC-Type: response\r\n"
              b"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-0000000000ff>\r\n"
              b"WARC-Target-URI: http://example.test/long\r\nWARC-Date: 2026-01-02T03:04:05Z\r\n"
              b"Content-Type: application/http;msgtype=response\r\n"
              b"Content-Length: %d\r\n\r\n" % len(body)) + body + b"\r\n\r\n"
    assert len(record) > LZ4_MAX_BLOCKS + 1

    def framed(data: bytes) -> bytes:  # one uncompressed block a byte, then the EndMark
        return header + b"".join(b"\x01\x00\x00\x80" + data[i:i + 1] for i in range(len(data))) + b"\0" * 4

    short, long_ = framed(record[:LZ4_MAX_BLOCKS - 1]), framed(record[:LZ4_MAX_BLOCKS + 1])
    assert lz4_frame_end(_at(short), 0, len(short)) == len(short)
    assert lz4_frame_end(_at(long_), 0, len(long_)) is None
    assert lz4.frame.decompress(framed(record)) == record
    path = tmp_path / "tiny-blocks.warc.lz4"
    path.write_bytes(b"".join(lz4.frame.compress(r, store_size=False) for r in RECORDS[:2])
                     + framed(record) + b"".join(lz4.frame.compress(r, store_size=False) for r in RECORDS[3:]))
    items = _read(path)
    assert items == _read(path, "careful")
    assert [i.record_type for i in items if isinstance(i, RawRecord)] == TYPES
