"""Read WARC (0.17–1.1) and ARC v1 files, plain or gzipped, into :class:`RawRecord` values.

warcio's record loader parses the WARC/ARC header blocks; the framing around it (gzip
members, offsets, blank lines between records, recovery after a broken record) is ours, so
that a bad record never stops a file:

- The container is chosen by the file's first bytes, not its name: a gzip magic number
  means per-record gzip (RFC 1952 members, one per record); anything else is read plain.
- The gzip members are read as one stream (RFC 1952 §2.2), so a whole-file gzip (one
  member holding many records, which warcio refuses) and a record split over two members
  are read too; such records carry ``offset_in_member`` (see :class:`RawRecord`).
- After a broken record (unparsable header, corrupt gzip member, missing Content-Length)
  the reader yields a ``RecordError`` at that offset and resynchronizes: gzipped files at
  the next gzip member whose content starts like a record, plain files at the next line that
  starts like a WARC or ARC header.
- A block shorter than its Content-Length is kept and flagged (``block_truncated``), with
  the reason: ``"gzip"`` when its gzip member is cut off, ``"length"`` otherwise;
  ``"framing"`` when data other than the record separator follows the block (the
  Content-Length was too small, so the block is probably cut short), ``"cap"`` when the
  block is over ``max_block`` and only its start is kept.
- warcio's ARC reader skips the first line after a record when no blank line separates the
  records (Heritrix ARCs); here blank lines are optional, so those records are read.
- Only ``response``, ``resource`` and ``metadata`` blocks are kept in memory; the blocks of
  other record types (requests, revisits, warcinfo, ...) are skipped (``http_block`` = b"").
"""

from __future__ import annotations

import logging
import re
import uuid
import zlib
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import PurePath
from typing import BinaryIO

from warcio.recordloader import ArcWarcRecordLoader
from warcio.statusandheaders import StatusAndHeaders

from pipeline.errors import RecordError
from pipeline.inflate import INFLATE_ERRORS
from pipeline.sources.record import RawRecord
from pipeline.sources.streams import (
    GZIP_MAGIC,
    WARC_LINE,
    CompressedSource,
    LineSource,
    MemberChain,
    find_next_member,
)

MAX_BLOCK = 128 * 2**20  # a block over this is cut (block_truncation="cap"); keeps memory bounded
KEEP_BLOCK = frozenset({"response", "resource", "metadata"})
MAX_METADATA_BLOCK = 2**20  # CC metadata records are a few hundred bytes
RESYNC_LINE = 1 << 16  # while searching for the next record, read lines in pieces this big
_LOADER = ArcWarcRecordLoader(verify_http=False, arc2warc=True)
# warcio logs a warning for every WARC-Target-URI with spaces (it percent-encodes them);
# on a crawl that floods the progress display, and the URL is kept either way.
logging.getLogger("warcio.recordloader").setLevel(logging.ERROR)
_LZ4_MAGIC = b"\x04\x22\x4d\x18"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


@dataclass(slots=True)
class _Parsed:
    """One record read from a stream (positions in that stream's coordinates)."""

    start: int
    end: int
    headers: StatusAndHeaders
    arc_line: bytes | None  # the ARC URL-record line; None for WARC
    record_type: str
    block: bytes
    short: bool
    capped: bool
    overrun: bool = False  # data continues after the block where a separator should be


@dataclass(slots=True)
class _Broken:
    """A record that could not be read; reading resynchronizes after it."""

    start: int
    error_type: str
    message: str
    record_id: str | None = None


@dataclass(slots=True)
class _Format:
    """The file's format, fixed by its first record ("warc" or "arc")."""

    known: str | None = None


def _error_type(exc: BaseException) -> str:
    if isinstance(exc, INFLATE_ERRORS):
        return "source-gzip-corrupt"
    if isinstance(exc, EOFError):
        return "source-truncated-record"
    name = type(exc).__name__
    if name in ("ArchiveLoadFailed", "StatusAndHeadersParserException"):
        return "source-invalid-record-header"
    return "source-read-failed"


def _read_records(src: LineSource, fmt: _Format, max_block: int) -> Iterator[_Parsed | _Broken]:
    """Records from ``src`` until it ends.

    After a :class:`_Broken` record the stream is searched, line by line, for the next line
    that starts a record (``WARC/x.y`` or, in an ARC file, a plausible URL line), and
    reading goes on from there; the bytes skipped belong to the broken record's error.
    A corrupt compressed stream (``source-gzip-corrupt``) ends the iteration: the caller
    resynchronizes on the file.
    """
    resyncing = False
    at_line_start = True
    while True:
        start = src.tell()
        try:
            line = src.readline(RESYNC_LINE if resyncing else None)
        except Exception as exc:  # noqa: BLE001 - corrupt compressed data between records
            yield _Broken(start, _error_type(exc), f"{type(exc).__name__}: {exc}")
            return
        if not line:
            return
        if resyncing:
            starts_record = at_line_start and (
                WARC_LINE.match(line) is not None
                or (fmt.known == "arc" and _plausible_arc_line(line)))
            at_line_start = line.endswith(b"\n")
            if not starts_record:
                continue
            resyncing = False
        elif not line.strip():
            continue  # blank lines between records (WARC: CRLF CRLF; ARC: LF, or none)
        item = _read_one(src, line, start, fmt, max_block)
        yield item
        if isinstance(item, _Broken):
            if item.error_type == "source-gzip-corrupt":
                return
            resyncing, at_line_start = True, True


def _read_one(src: LineSource, line: bytes, start: int, fmt: _Format, max_block: int) -> _Parsed | _Broken:
    is_warc = line.startswith(b"WARC/")
    if fmt.known is None:
        fmt.known = "warc" if is_warc else "arc"
    if fmt.known == "arc" and not is_warc and not _plausible_arc_line(line):
        return _Broken(start, "source-invalid-record-header", f"not an ARC record line: {line[:80]!r}")
    if fmt.known == "warc" and not is_warc:
        return _Broken(start, "source-invalid-record-header", f"not a WARC record: {line[:80]!r}")
    record_id = None
    try:
        rec = _LOADER.parse_record_stream(src, line, fmt.known, no_record_parse=True)
        headers = rec.rec_headers
        record_id = headers.get_header("WARC-Record-ID") if is_warc else None
        declared = rec.length
        if is_warc:
            raw_len = headers.get_header("Content-Length")
            if raw_len is None or not raw_len.strip().isdigit():
                return _Broken(start, "source-bad-content-length",
                               f"WARC record without a valid Content-Length: {raw_len!r}", record_id)
        declared = max(int(declared or 0), 0)
        rtype = (rec.rec_type or "unknown").strip().lower()
        keep = max_block if rtype != "metadata" else MAX_METADATA_BLOCK
        if rtype in KEEP_BLOCK:
            block = src.read(min(declared, keep))
            got = len(block)
            capped = declared > keep
            if capped:
                got += src.skip(declared - keep)
        else:
            block, capped = b"", False
            got = src.skip(declared)
    except Exception as exc:  # noqa: BLE001 - warcio and zlib raise many kinds on bad bytes
        return _Broken(start, _error_type(exc), f"{type(exc).__name__}: {exc}", record_id)
    end = src.tell()
    overrun = False
    if got == declared and not capped:
        try:
            after = src.peekline()
        except Exception:  # noqa: BLE001 - a later corrupt member is reported on its own
            after = b""
        # WARC 1.1 §5: the block is followed by two CRLFs; ARC records may follow at once.
        overrun = bool(after.strip()) and not (
            after.startswith(b"WARC/") or (fmt.known == "arc" and _plausible_arc_line(after)))
    return _Parsed(start, end, headers, None if is_warc else line, rtype, block,
                   got < declared, capped, overrun)


def _plausible_arc_line(line: bytes) -> bool:
    """An ARC v1 URL-record line: five fields, the third a 12-18 digit date."""
    parts = line.strip().rsplit(b" ", 4)
    return len(parts) == 5 and parts[2].isdigit() and 12 <= len(parts[2]) <= 18


def _record_id(name: str, offset: int, in_member: int | None) -> str:
    """A deterministic id for records that have none (ARC): same file + offset, same id."""
    key = f"{PurePath(name).name}#{offset}" + (f"+{in_member}" if in_member is not None else "")
    return f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, key)}>"


def _to_raw(p: _Parsed, name: str, offset: int, length: int, in_member: int | None,
            truncation: str | None) -> RawRecord:
    # One pass over the header list instead of a linear get_header() per field; the first
    # occurrence of a name wins, as with warcio's get_header.
    fields: dict[str, str] = {}
    for key, value in p.headers.headers:
        fields.setdefault(key.lower(), value)
    get = fields.get
    if p.arc_line is not None:
        arc_fields = p.arc_line.strip().rsplit(b" ", 4)
        record_type = "warcinfo" if p.arc_line.startswith(b"filedesc://") else "response"
        content_type = arc_fields[3].decode("latin-1") if len(arc_fields) == 5 else None
        record_id = _record_id(name, offset, in_member)
    else:
        record_type = p.record_type
        content_type = get("content-type")
        record_id = get("warc-record-id") or _record_id(name, offset, in_member)
    if p.capped:
        truncation = "cap"
    elif p.overrun:
        truncation = "framing"
    bad = p.short or p.capped or p.overrun
    return RawRecord(
        warc_filename=name,
        warc_record_offset=offset,
        warc_record_length=length,
        record_id=record_id,
        record_type=record_type,
        url=get("warc-target-uri"),
        fetch_time=get("warc-date"),
        http_block=p.block,
        content_mime_detected=get("warc-identified-payload-type"),
        crawler_charset=get("warc-identified-content-charset"),
        warc_truncated=get("warc-truncated"),
        block_truncated=bad,
        block_truncation=truncation if bad else None,
        warc_content_type=content_type,
        offset_in_member=in_member,
        concurrent_to=get("warc-concurrent-to"),
    )


def _err(name: str, offset: int | None, error_type: str, message: str,
         record_id: str | None = None) -> RecordError:
    return RecordError(stage="source", error_type=error_type, message=message,
                       warc_filename=name, offset=offset, record_id=record_id)


def _iter_plain(fh: BinaryIO, name: str, max_block: int) -> Iterator[RawRecord | RecordError]:
    for item in _read_records(LineSource(fh, 0), _Format(), max_block):
        if isinstance(item, _Broken):
            yield _err(name, item.start, item.error_type, item.message, item.record_id)
        else:
            yield _to_raw(item, name, item.start, item.end - item.start, None, "length")


def _iter_gzip(fh: BinaryIO, name: str, max_block: int) -> Iterator[RawRecord | RecordError]:
    fmt = _Format()
    start_at: int | None = 0
    while start_at is not None:
        comp = CompressedSource(fh, start_at)
        if comp.peek(3) != GZIP_MAGIC:
            nxt = find_next_member(fh, start_at)
            yield from _gap_error(fh, name, start_at, nxt)
            start_at = nxt
            continue
        start_at = yield from _chain_records(MemberChain(comp), fh, fmt, name, max_block)


_RECORD_ID = re.compile(rb"WARC-Record-ID:[ \t]*(<[^>\r\n]{1,200}>)")


def _salvage_record_id(fh: BinaryIO, offset: int) -> str | None:
    """The WARC-Record-ID of a corrupt member, decompressed piece by piece up to the error
    (zlib drops the output of the call that fails), so the error row can name the record."""
    fh.seek(offset)
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    head = b""
    try:
        while len(head) < 8192 and not d.eof:
            piece = fh.read(64)
            if not piece:
                break
            head += d.decompress(piece)
    except zlib.error:
        pass
    m = _RECORD_ID.search(head)
    return m.group(1).decode("latin-1") if m else None


def _gap_error(fh: BinaryIO, name: str, start: int, nxt: int | None) -> Iterator[RecordError]:
    """An error for bytes between members that are not a gzip member (padding is ignored)."""
    fh.seek(start)
    gap = fh.read((nxt - start) if nxt is not None else -1)
    if gap.strip(b"\x00\r\n\t "):
        yield _err(name, start, "source-not-a-gzip-member",
                   f"{len(gap)} bytes that are not a gzip member")


def _chain_records(chain: MemberChain, fh: BinaryIO, fmt: _Format, name: str,
                   max_block: int) -> Generator[RawRecord | RecordError, None, int | None]:
    """The records of a run of gzip members; returns where to resume (None: end of file).

    Each record is yielded once the next one (or the end) is seen, because only then is its
    compressed extent known.
    """
    src = LineSource(chain, 0)
    held: _Parsed | None = None

    def emit(p: _Parsed, end: int, last: bool) -> RawRecord:
        offset, length, in_member = chain.locate(p.start, end)
        truncation = "gzip" if (last and chain.truncated) else "length"
        return _to_raw(p, name, offset, length, in_member, truncation)

    for item in _read_records(src, fmt, max_block):
        if isinstance(item, _Broken):
            corrupt = item.error_type == "source-gzip-corrupt"
            bad = chain.current if corrupt else chain.member_at(item.start)[1]
            if held is not None:
                if corrupt and chain.member_at(held.start)[1] == bad:
                    # The member's checks (CRC-32/ISIZE) failed after its record was read:
                    # the record's bytes are in doubt, so the record is the error.
                    rid = held.headers.get_header("WARC-Record-ID")
                    yield _err(name, bad, item.error_type, f"gzip member corrupt: {item.message}", rid)
                    return find_next_member(fh, bad + 1)
                yield emit(held, item.start, last=False)
                held = None
            error_type = item.error_type
            if chain.truncated and not corrupt:
                error_type = "source-truncated-record"  # the file ends inside this record
            record_id = item.record_id or (_salvage_record_id(fh, bad) if corrupt else None)
            inside = item.start - chain.member_at(item.start)[0]
            where = f" (at byte {inside} of the decompressed member)" if inside else ""
            yield _err(name, bad, error_type, item.message + where, record_id)
            if corrupt:
                return find_next_member(fh, bad + 1)
            continue  # _read_records has resynchronized inside the stream
        if held is not None:
            yield emit(held, item.start, last=False)
        held = item
        chain.forget_before(held.start)
    if held is not None:
        yield emit(held, src.tell(), last=True)
    if chain.truncated and chain.starts:
        cut_start, cut_offset = chain.starts[-1]
        if held is None or held.end <= cut_start:
            # The file ends inside a member that did not give a record: not silently.
            yield _err(name, cut_offset, "source-truncated-record",
                       "the file ends inside this gzip member before a whole record header")
    if chain.garbage_at is None:
        return None
    nxt = find_next_member(fh, chain.garbage_at)
    yield from _gap_error(fh, name, chain.garbage_at, nxt)
    return nxt


def iter_archive(path: str, *, max_block: int = MAX_BLOCK) -> Iterator[RawRecord | RecordError]:
    """Every record of a WARC/ARC file as a :class:`RawRecord`, or a ``RecordError``.

    Never raises for bad data: an unreadable file gives one ``RecordError`` with offset
    None; a broken record gives a ``RecordError`` at its offset and reading resumes at the
    next record that can be found. Records come in file order; Common Crawl metadata is not
    joined here (see :func:`pipeline.sources.ccmeta.join_metadata`).
    """
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed in the finally below
    except OSError as exc:
        yield _err(path, None, "source-unreadable-file", f"{type(exc).__name__}: {exc}")
        return
    try:
        magic = fh.read(4)
        fh.seek(0)
        if not magic:
            yield _err(path, None, "source-empty-file", "the file is empty")
        elif magic[:3] == GZIP_MAGIC:
            yield from _iter_gzip(fh, path, max_block)
        elif magic in (_LZ4_MAGIC, _ZSTD_MAGIC):
            kind = "LZ4" if magic == _LZ4_MAGIC else "zstd"
            yield _err(path, None, "source-unsupported-compression",
                       f"{kind}-compressed archives are not supported (decompress first)")
        else:
            yield from _iter_plain(fh, path, max_block)
    except OSError as exc:
        yield _err(path, None, "source-unreadable-file", f"{type(exc).__name__}: {exc}")
    finally:
        fh.close()
