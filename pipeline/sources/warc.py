"""The careful WARC/ARC reader: WARC (0.17–1.1) and ARC v1 files, plain or compressed, into
:class:`RawRecord` values, one bad record never stopping a file.

warcio's record loader parses the WARC/ARC header blocks; the framing around it (members,
offsets, blank lines between records, recovery after a broken record) is ours. The fast
path (:mod:`pipeline.sources.fast`) hands files and stretches of files to this reader
whenever FastWARC cannot read them exactly.

- The container is chosen by the file's first bytes, not its name
  (:mod:`pipeline.sources.containers`): gzip, zstd (with the WARC-zstd dictionary frame),
  LZ4 and bzip2 members are read as one stream (RFC 1952 §2.2 for gzip), while remembering
  where each member starts; anything else is read plain. A whole-file gzip (one member
  holding many records, which warcio refuses) and a record split over two members are
  read too; such records carry ``offset_in_member`` (see :class:`RawRecord`).
- After a broken record (unparsable header, header block over ``max_header``, corrupt
  member, missing Content-Length) the reader yields a ``RecordError`` at that offset and
  resynchronizes: compressed files at the next member whose content starts like a record,
  plain files (and inside a member) at the next line that starts like a WARC or ARC header.
- A block shorter than its Content-Length is kept and flagged (``block_truncated``), with
  the reason: ``"gzip"`` when its member is cut off, ``"length"`` when the file ends
  first, ``"next-record"`` when the block holds the start of another record (a
  Content-Length that lies: the block is cut there and reading goes on from that record),
  ``"framing"`` when data other than the record separator follows the block (the
  Content-Length was too small, so the block is probably cut short), ``"cap"`` when the
  block is over ``max_block`` and only its start is kept.
- warcio's ARC reader skips the first line after a record when no blank line separates the
  records (Heritrix ARCs); here blank lines are optional, so those records are read.
- Only ``response``, ``resource`` and ``metadata`` blocks are kept in memory; the blocks of
  other record types (requests, revisits, warcinfo, ...) are skipped (``http_block`` = b"").
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, BinaryIO

from pipeline.errors import ErrorType, RecordError
from pipeline.inflate import INFLATE_ERRORS
from pipeline.sources.containers import Codec
from pipeline.sources.record import RawRecord
from pipeline.sources.streams import (
    CHUNK,
    WARC_LINE,
    CompressedSource,
    LineSource,
    MemberChain,
    find_next_member,
)

if TYPE_CHECKING:
    from warcio.statusandheaders import StatusAndHeaders

#: Blocks over this are cut (block_truncation="cap"); the runner passes the rules'
#: ``max_decompressed``, since a longer body could not be decoded anyway.
MAX_BLOCK = 64 * 2**20
#: A WARC/ARC header block (all its lines) over this is an error: no writer produces one,
#: and an unbounded header line would hold the whole file in memory.
MAX_HEADER = 2**20
KEEP_BLOCK = frozenset({"response", "resource", "metadata"})
MAX_METADATA_BLOCK = 2**20  # CC metadata records are a few hundred bytes
RESYNC_LINE = 1 << 16  # while searching for the next record, read lines in pieces this big
# A record start inside a block: "WARC/x.y" alone on a line, then a header field line.
_EMBEDDED_RECORD = re.compile(rb"(?:^|\n)(WARC/[0-9]\.[0-9]+\r?\n[!-9;-~]+:)")
# The same after a line break only: a piece read after the first may start mid-line.
_NEWLINE_RECORD = re.compile(rb"\n(WARC/[0-9]\.[0-9]+\r?\n[!-9;-~]+:)")
_OVERLAP = 4096  # bytes of the piece before searched again with the next one
# A member that starts a record: a version line and a header field line (after the
# separator of the record before, which some writers put at the start of the next member).
_RECORD_MEMBER = re.compile(rb"[\r\n]*WARC/[0-9]\.[0-9]+\r?\n[!-9;-~]+:")


def valid_content_length(value: str | None) -> bool:
    """Whether a WARC Content-Length value is a length: ``1*DIGIT`` (WARC 1.1 §5.7; DIGIT is
    RFC 5234's, ASCII 0-9), white space around it tolerated. ``str.isdigit`` alone would let
    "²" through (``int()`` refuses it) and ``isdecimal`` other scripts' digits ("١٢").

    >>> valid_content_length(" 120 "), valid_content_length("\u00b2"), valid_content_length("\u0661")
    (True, False, False)
    """
    if value is None:
        return False
    value = value.strip()
    return value.isascii() and value.isdigit()


@lru_cache(maxsize=1)
def _loader() -> Any:
    """warcio's record loader, made on first use: the fast path reads clean files without
    it, and importing warcio costs ~20 ms of every process's start-up (it imports fsspec)."""
    from warcio.recordloader import ArcWarcRecordLoader

    return ArcWarcRecordLoader(verify_http=False, arc2warc=True)


class HeaderTooLong(Exception):
    """A WARC/ARC header block over the reader's cap."""


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
    next_record: bool = False  # the block was cut where another record starts
    # Where to look again for records the block swallowed (its Content-Length ran past the
    # end of the file): the position just after this record's header.
    rescan_from: int | None = None
    lead: int = -1  # where the blank lines before the record began (-1: there were none)


@dataclass(slots=True)
class _Broken:
    """A record that could not be read; reading resynchronizes after it."""

    start: int
    error_type: ErrorType
    message: str
    record_id: str | None = None


@dataclass(slots=True)
class _Format:
    """The file's format, fixed by its first record ("warc" or "arc")."""

    known: str | None = None


class _HeaderLines:
    """The stream as warcio's header parser sees it: ``readline`` stops at ``budget``
    bytes in all (raising :class:`HeaderTooLong`), ``read`` is passed through."""

    __slots__ = ("_src", "_left")

    def __init__(self, src: LineSource, budget: int) -> None:
        self._src = src
        self._left = budget

    def readline(self, limit: int = -1) -> bytes:
        line = self._src.readline(self._left + 1)
        self._left -= len(line)
        if self._left < 0:
            raise HeaderTooLong("header block over the cap")
        return line

    def read(self, n: int = -1) -> bytes:
        return self._src.read(n)

    def tell(self) -> int:
        return self._src.tell()


def _error_type(exc: BaseException, caps: _Caps) -> ErrorType:
    if isinstance(exc, caps.errors):
        return caps.corrupt
    if isinstance(exc, HeaderTooLong):
        return "source-header-too-long"
    if isinstance(exc, EOFError):
        return "source-truncated-record"
    name = type(exc).__name__
    if name in ("ArchiveLoadFailed", "StatusAndHeadersParserException"):
        return "source-invalid-record-header"
    return "source-read-failed"


def _read_records(src: LineSource, fmt: _Format, caps: _Caps, *, resyncing: bool = False,
                  member_start: Callable[[int, int], int | None] | None = None,
                  ) -> Iterator[_Parsed | _Broken]:
    """Records from ``src`` until it ends.

    After a :class:`_Broken` record the stream is searched, line by line, for the next line
    that starts a record (``WARC/x.y`` or, in an ARC file, a plausible URL line), and
    reading goes on from there; the bytes skipped belong to the broken record's error.
    ``resyncing`` starts in that search. A member start is a line start too:
    ``member_start(lo, hi)`` gives the first one strictly inside ``[lo, hi)`` of the
    stream (a compressed file's), so a record in the member after junk without a line break
    is found, not swallowed by the junk's last line. A corrupt compressed stream (``source-gzip-corrupt``) ends the iteration, and
    so does a record whose block ran to the end of the stream (``rescan_from`` set): the
    caller resynchronizes on the file.
    """
    at_line_start = True
    lead = -1
    while True:
        start = src.tell()
        try:
            line = src.readline(RESYNC_LINE if resyncing else caps.max_header + 1)
        except Exception as exc:  # noqa: BLE001 - corrupt compressed data between records
            yield _Broken(start, _error_type(exc, caps), f"{type(exc).__name__}: {exc}")
            return
        if not line:
            return
        # A line that is no record line ends at a member start inside it: the next line
        # starts there (junk without a line break must not hide the record after it).
        cut = False
        if member_start is not None and line.strip():
            inside = member_start(start, start + len(line))
            if inside is not None and not (WARC_LINE.match(line) or _plausible_arc_line(line)):
                src.push_back(line[inside - start :])
                line, cut = line[: inside - start], True
        if resyncing:
            starts_record = at_line_start and (
                WARC_LINE.match(line) is not None
                or (fmt.known == "arc" and _plausible_arc_line(line)))
            at_line_start = cut or line.endswith(b"\n")
            if not starts_record:
                continue
            resyncing = False
        elif not line.strip():
            if lead < 0:
                lead = start
            continue  # blank lines between records (WARC: CRLF CRLF; ARC: LF, or none)
        elif len(line) > caps.max_header:
            # A first line over the cap: not a record line at all, unless it starts like one.
            kind: ErrorType = ("source-header-too-long" if line.startswith(b"WARC/")
                               else "source-invalid-record-header")
            item: _Parsed | _Broken = _Broken(
                start, kind, f"a line of over {caps.max_header} bytes: {line[:80]!r}")
            yield item
            resyncing, at_line_start = True, cut
            continue
        item = _read_one(src, line, start, fmt, caps)
        if isinstance(item, _Parsed):
            item.lead = lead
        lead = -1
        yield item
        if isinstance(item, _Broken):
            if item.error_type == caps.corrupt:
                return
            resyncing, at_line_start = True, True
        elif item.rescan_from is not None:
            return


def _read_one(src: LineSource, line: bytes, start: int, fmt: _Format, caps: _Caps) -> _Parsed | _Broken:
    is_warc = line.startswith(b"WARC/")
    if fmt.known is None:
        fmt.known = "warc" if is_warc else "arc"
    if fmt.known == "arc" and not is_warc and not _plausible_arc_line(line):
        return _Broken(start, "source-invalid-record-header", f"not an ARC record line: {line[:80]!r}")
    if fmt.known == "warc" and not is_warc:
        return _Broken(start, "source-invalid-record-header", f"not a WARC record: {line[:80]!r}")
    record_id = None
    rescan_from = None
    next_record = False
    try:
        lines = _HeaderLines(src, caps.max_header - len(line))
        rec = _loader().parse_record_stream(lines, line, fmt.known, no_record_parse=True)
        headers = rec.rec_headers
        record_id = headers.get_header("WARC-Record-ID") if is_warc else None
        declared = rec.length
        if is_warc:
            raw_len = headers.get_header("Content-Length")
            if not valid_content_length(raw_len):
                return _Broken(start, "source-bad-content-length",
                               f"WARC record without a valid Content-Length: {raw_len!r}", record_id)
        declared = max(int(declared or 0), 0)
        rtype = (rec.rec_type or "unknown").strip().lower()
        keep = caps.max_block if rtype != "metadata" else min(MAX_METADATA_BLOCK, caps.max_block)
        block_start = src.tell()
        # In a compressed file the block is not read into a member that starts a record:
        # a Content-Length that runs past the records after it stops at the first of them
        # (MemberChain.stop_before), not at the end of the file, once per lying record.
        chain = src.raw if is_warc and isinstance(src.raw, MemberChain) else None
        if chain is not None:
            chain.stop_before = _RECORD_MEMBER.match
        rest = None if caps.stream_end is None else caps.stream_end - block_start
        found = False
        try:
            if is_warc and rest is not None and declared > rest:
                # A block that claims more than the file holds: read until the record
                # after it, not to the end of the file once per such record.
                block, got, found = _read_until_record(src, rest, keep if rtype in KEEP_BLOCK else 0)
                capped = rtype in KEEP_BLOCK and got > keep
            elif rtype in KEEP_BLOCK:
                block = src.read(min(declared, keep))
                got = len(block)
                capped = declared > keep
                if capped and len(block) == keep:
                    got += src.skip(declared - keep)
            else:
                block, capped = b"", False
                got = src.skip(declared)
        finally:
            stopped = found or (chain is not None and chain.stopped)
            if chain is not None:
                chain.stop_before, chain.stopped = None, False
        if got < declared and is_warc:
            # The stream ended inside the block. A Content-Length that lies (runs past
            # records that follow) must not swallow them: look for a record start inside
            # (a block read up to a record start has none: it was searched as it was read).
            cut = None if found else _embedded_record(block)
            if cut is not None:
                if capped:  # the stream is past the kept block: read again from the record
                    rescan_from = block_start + cut
                else:
                    src.push_back(block[cut:])
                block = block[:cut].removesuffix(b"\r\n\r\n")
                next_record, capped, got = True, False, declared
            elif stopped:
                # The block ran into a member that starts a record, or was read up to a
                # record start: it ends there (the whole block when it was under the cap).
                block = block.removesuffix(b"\r\n\r\n")
                capped = capped and got > keep
                next_record, got = True, declared
            elif capped or rtype not in KEEP_BLOCK:
                rescan_from = block_start + len(block)
    except Exception as exc:  # noqa: BLE001 - warcio and the decompressors raise many kinds
        return _Broken(start, _error_type(exc, caps), f"{type(exc).__name__}: {exc}", record_id)
    end = src.tell()
    overrun = False
    if got == declared and not capped and not next_record:
        try:
            after = src.peekline()
        except Exception:  # noqa: BLE001 - a later corrupt member is reported on its own
            after = b""
        # WARC 1.1 §5: the block is followed by two CRLFs; ARC records may follow at once.
        overrun = bool(after.strip()) and not (
            after.startswith(b"WARC/") or (fmt.known == "arc" and _plausible_arc_line(after)))
    return _Parsed(start, end, headers, None if is_warc else line, rtype, block,
                   got < declared, capped, overrun, next_record, rescan_from)


def _read_until_record(src: LineSource, n: int, keep: int) -> tuple[bytes, int, bool]:
    """Up to ``n`` bytes of a block, a piece at a time, ended at the first record start in
    them (``_EMBEDDED_RECORD``; the bytes from it on are pushed back): ``(the block's first
    keep bytes, bytes read, whether a record start ended it)``. Pieces overlap by
    ``_OVERLAP`` bytes, so a record start across two pieces is found unless its first field
    name is longer than that."""
    kept: list[bytes] = []
    kept_len = got = 0
    tail = b""
    while got < n:
        piece = src.read(min(CHUNK, n - got))
        if not piece:
            break
        data = tail + piece
        m = (_EMBEDDED_RECORD if not got else _NEWLINE_RECORD).search(data)
        end = len(piece) if m is None else m.start(1) - len(tail)  # in piece; < 0: in tail
        if kept_len < keep and end > 0:
            kept.append(piece[: min(end, keep - kept_len)])
            kept_len += len(kept[-1])
        if m is not None:
            src.push_back(data[m.start(1) :])
            got += end
            block = b"".join(kept)
            return block[: max(0, min(len(block), got))], got, True
        got += len(piece)
        tail = data[-_OVERLAP:]
    return b"".join(kept), got, False


def _embedded_record(block: bytes) -> int | None:
    """Where a WARC record starts inside ``block`` (a ``WARC/x.y`` line followed by a
    header field line), else None."""
    m = _EMBEDDED_RECORD.search(block)
    return m.start(1) if m else None


#: The error type of corrupt compressed data, per codec.
_CORRUPT: dict[str, ErrorType] = {"gzip": "source-gzip-corrupt", "zstd": "source-zstd-corrupt",
                                  "lz4": "source-lz4-corrupt", "bzip2": "source-bzip2-corrupt"}


@dataclass(frozen=True, slots=True)
class _Caps:
    """The reader's limits, and what the container's decompressor raises."""

    max_block: int = MAX_BLOCK
    max_header: int = MAX_HEADER
    errors: tuple[type[BaseException], ...] = INFLATE_ERRORS
    corrupt: ErrorType = "source-gzip-corrupt"  # the error type for corrupt compressed data
    stream_end: int | None = None  # where the stream ends, when known (a plain file's size)
    warc: bool = False  # the file is known to be WARC (not sniffed from the first line read)


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
    elif p.next_record:
        truncation = "next-record"
    elif p.overrun:
        truncation = "framing"
    bad = p.short or p.capped or p.overrun or p.next_record
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
        payload_digest=get("warc-payload-digest"),
    )


def _err(name: str, offset: int | None, error_type: ErrorType, message: str,
         record_id: str | None = None, in_member: int | None = None) -> RecordError:
    return RecordError(stage="source", error_type=error_type, message=message,
                       warc_filename=name, offset=offset, record_id=record_id,
                       offset_in_member=in_member)


def _iter_plain(fh: BinaryIO, name: str, start: int, caps: _Caps, *,
                resyncing: bool = False) -> Iterator[RawRecord | RecordError]:
    fmt = _Format("warc" if caps.warc else None)
    caps = replace(caps, stream_end=fh.seek(0, 2))
    at: int | None = start
    while at is not None:
        fh.seek(at)
        src = LineSource(fh, at)
        at = None
        for item in _read_records(src, fmt, caps, resyncing=resyncing):
            if isinstance(item, _Broken):
                yield _err(name, item.start, item.error_type, item.message, item.record_id)
                continue
            yield _to_raw(item, name, item.start, item.end - item.start, None, "length")
            at = item.rescan_from
        resyncing = True  # a rescan looks for the records a lying Content-Length swallowed


def _iter_members(fh: BinaryIO, name: str, codec: Codec, start: int, caps: _Caps,
                  in_member: int = 0) -> Iterator[RawRecord | RecordError]:
    fmt = _Format("warc" if caps.warc else None)
    start_at: int | None = start
    skip = in_member
    exact = in_member > 0  # a record starts there: read it, do not search for one
    while start_at is not None:
        comp = CompressedSource(fh, start_at)
        head = comp.peek(8)
        pad = codec.padding(head)
        if pad is not None:
            start_at += pad  # a zstd skippable frame (dictionary, extension) is not a record
            continue
        if not codec.starts_member(head):
            nxt = find_next_member(fh, start_at, codec)
            yield from _gap_error(fh, name, start_at, nxt)
            start_at = nxt
            continue
        chain = MemberChain(comp, codec)
        start_at, skip = yield from _chain_records(chain, fh, fmt, name, codec, caps, skip, exact)
        exact = False


_RECORD_ID = re.compile(rb"WARC-Record-ID:[ \t]*(<[^>\r\n]{1,200}>)")


def _salvage_record_id(fh: BinaryIO, offset: int, codec: Codec) -> str | None:
    """The WARC-Record-ID of a corrupt member, decompressed piece by piece up to the error
    (a decompressor drops the output of the call that fails), so the error row can name
    the record."""
    fh.seek(offset)
    d = codec.new()
    head = b""
    try:
        while len(head) < 8192 and not d.eof:
            piece = fh.read(64)
            if not piece:
                break
            head += d.decompress(piece, 8192)
    except Exception:  # noqa: BLE001 - the corruption itself; keep what came before it
        pass
    m = _RECORD_ID.search(head)
    return m.group(1).decode("latin-1") if m else None


def _gap_error(fh: BinaryIO, name: str, start: int, nxt: int | None) -> Iterator[RecordError]:
    """An error for bytes between members that are not a member (padding is ignored)."""
    fh.seek(start)
    size = 0
    junk = False
    while nxt is None or size < nxt - start:
        piece = fh.read(min(1 << 16, (nxt - start - size) if nxt is not None else 1 << 16))
        if not piece:
            break
        size += len(piece)
        junk = junk or bool(piece.strip(b"\x00\r\n\t "))
    if junk:
        yield _err(name, start, "source-not-a-gzip-member",
                   f"{size} bytes that are not a compressed member")


def _chain_records(chain: MemberChain, fh: BinaryIO, fmt: _Format, name: str, codec: Codec,
                   caps: _Caps, skip: int, exact: bool = False,
                   ) -> Generator[RawRecord | RecordError, None, tuple[int | None, int]]:
    """The records of a run of members; returns where to resume: ``(compressed offset, bytes
    to skip in its decompressed stream)``, or ``(None, 0)`` at the end of the file.

    Each record is yielded once the next one (or the end) is seen, because only then is its
    compressed extent known. ``skip`` decompressed bytes are passed over first, searching
    for a record start (a rescan after a Content-Length that ran past the end); with
    ``exact``, a record starts right there (a locator's ``offset_in_member``).
    """
    src = LineSource(chain, 0)
    if skip:
        src.skip(skip)
    held: _Parsed | None = None
    caps = replace(caps, errors=codec.errors, corrupt=_CORRUPT[codec.name])

    def edge(pos: int, lead: int) -> int:
        # A separator that a writer put at the start of the next member (warcio's
        # example-wrong-chunks) does not move the record off its member's start.
        if lead >= 0 and chain.boundary(pos) is None:
            member = chain.member_at(pos)[0]
            if lead <= member:
                return member
        return pos

    def emit(p: _Parsed, end: int, last: bool) -> RawRecord:
        offset, length, in_member = chain.locate(edge(p.start, p.lead), end)
        truncation = "gzip" if (last and chain.truncated) else "length"
        return _to_raw(p, name, offset, length, in_member, truncation)

    for item in _read_records(src, fmt, caps, resyncing=skip > 0 and not exact,
                              member_start=chain.start_inside):
        if isinstance(item, _Broken):
            corrupt = item.error_type == caps.corrupt
            bad = chain.current if corrupt else chain.member_at(item.start)[1]
            if held is not None:
                if corrupt and chain.member_at(held.start)[1] == bad:
                    # The member's checks (CRC-32/ISIZE) failed after its record was read:
                    # the record's bytes are in doubt, so the record is the error.
                    rid = held.headers.get_header("WARC-Record-ID")
                    yield _err(name, bad, item.error_type, f"member corrupt: {item.message}", rid)
                    return find_next_member(fh, bad + 1, codec), 0
                yield emit(held, item.start, last=False)
                held = None
            error_type = item.error_type
            if chain.truncated and not corrupt:
                error_type = "source-truncated-record"  # the file ends inside this record
            record_id = item.record_id or (_salvage_record_id(fh, bad, codec) if corrupt else None)
            inside = item.start - chain.member_at(item.start)[0]
            where = f" (at byte {inside} of the decompressed member)" if inside else ""
            # (a record inside a member is located by its offset there, as a RawRecord is)
            yield _err(name, bad, error_type, item.message + where, record_id,
                       None if corrupt else inside or None)
            if corrupt:
                return find_next_member(fh, bad + 1, codec), 0
            continue  # _read_records has resynchronized inside the stream
        if held is not None:
            yield emit(held, edge(item.start, item.lead), last=False)
        held = item
        chain.forget_before(held.start)
        if item.rescan_from is not None:
            # The block ran to the end of the file: yield it, then read again from just
            # after its header, looking for the records it swallowed.
            yield emit(held, src.tell(), last=True)
            dstart, coffset = chain.member_at(item.rescan_from)
            return coffset, item.rescan_from - dstart
    if held is not None:
        yield emit(held, src.tell(), last=True)
    if chain.truncated and chain.starts:
        cut_start, cut_offset = chain.starts[-1]
        if held is None or held.end <= cut_start:
            # The file ends inside a member that did not give a record: not silently.
            yield _err(name, cut_offset, "source-truncated-record",
                       "the file ends inside this member before a whole record header")
    if chain.garbage_at is None:
        return None, 0
    nxt = find_next_member(fh, chain.garbage_at, codec)
    yield from _gap_error(fh, name, chain.garbage_at, nxt)
    return nxt, 0


def read_careful(fh: BinaryIO, name: str, codec: Codec | None, *, start: int = 0,
                 max_block: int = MAX_BLOCK, max_header: int = MAX_HEADER, warc: bool = False,
                 in_member: int = 0) -> Iterator[RawRecord | RecordError]:
    """Every record of ``fh`` from compressed offset ``start`` (a member or record start)
    on, as a :class:`RawRecord` or a ``RecordError``; ``codec`` None reads it plain.
    ``warc``: the file is known to be WARC (the fast path read WARC records in it), so a
    start that is not a record start is an error and a search for the next WARC record, not
    the first line of an ARC file. ``in_member``: a record starts that many bytes into the
    decompressed member at ``start`` (a locator's ``offset_in_member``); the bytes before
    it are not parsed.

    Never raises for bad data: a broken record gives a ``RecordError`` at its offset and
    reading resumes at the next record that can be found. Seeks back only to recover.
    """
    caps = _Caps(max_block, max_header, warc=warc)
    if codec is None:
        yield from _iter_plain(fh, name, start, caps)
    else:
        yield from _iter_members(fh, name, codec, start, caps, in_member)
