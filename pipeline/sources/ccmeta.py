"""Join Common Crawl ``metadata`` records to their ``response`` (via ``WARC-Concurrent-To``).

Common Crawl writes, for each capture, a ``request``, a ``response`` and then a
``metadata`` record whose ``application/warc-fields`` payload holds the crawler's own
verdicts::

    fetchTimeMs: 258
    charset-detected: UTF-8
    languages-cld2: {"reliable":true,"text-bytes":6513,"languages":[{"code":"an",
                     "code-iso-639-3":"arg","text-covered":0.97,...}]}

Because the metadata record comes *after* the response, the join holds records back in a
bounded window: at most ``JOIN_WINDOW`` records and ``JOIN_WINDOW_BYTES`` bytes of blocks.
A metadata record that arrives after its response has left the window is not joined (the
response keeps whatever its own headers said). Record order and the one-yield-per-record
accounting are unchanged: the join only fills ``crawler_charset`` / ``content_languages``.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable, Iterator

from pipeline.errors import RecordError
from pipeline.sources.record import RawRecord, with_crawler_metadata

# Common Crawl puts request, response, metadata next to each other; 8 leaves room for
# crawlers that interleave a few captures, and bounds memory with the byte cap below.
JOIN_WINDOW = 8
JOIN_WINDOW_BYTES = 64 * 2**20


class CcMetadataError(ValueError):
    """A metadata payload the join cannot read (its record becomes an ``errors`` row)."""


def parse_cc_metadata(block: bytes) -> tuple[str | None, str | None]:
    """``(charset-detected, languages)`` from a CC metadata payload; languages as Common
    Crawl's index writes them: ISO 639-3 codes joined by commas, best first.

    Raises :class:`CcMetadataError` when ``languages-cld2`` is not JSON, or nests too deeply
    to parse (Python's parser recurses once per level).

    >>> parse_cc_metadata(b'charset-detected: UTF-8\\r\\nlanguages-cld2: '
    ...                   b'{"languages":[{"code":"an","code-iso-639-3":"arg"},'
    ...                   b'{"code":"es","code-iso-639-3":"spa"}]}\\r\\n')
    ('UTF-8', 'arg,spa')
    >>> parse_cc_metadata(b'languages-cld2: ' + b'[' * 100_000)
    Traceback (most recent call last):
    ...
    pipeline.sources.ccmeta.CcMetadataError: languages-cld2: JSON nested too deeply
    """
    charset = languages = None
    for line in block.split(b"\n"):
        key, sep, value = line.partition(b":")
        if not sep:
            continue
        key = key.strip().lower()
        if key == b"charset-detected":
            charset = value.strip().decode("latin-1") or None
        elif key == b"languages-cld2":
            languages = _cld2_codes(value.strip())
    return charset, languages


# The decoder's C scanner (not in the type stubs).
_SCAN: Callable[[str, int], tuple[object, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _json(raw: bytes) -> object:
    """``json.loads(raw)``. Common Crawl's value is one UTF-8 object: read straight by the
    decoder's C scanner (1.2 µs, where ``json.loads`` spends 2.5 finding the bytes' encoding
    and skipping whitespace in Python); anything else goes through ``json.loads`` itself."""
    if raw[:1] == b"{":
        try:
            text = raw.decode("utf-8")
            value, end = _SCAN(text, 0)
        except (ValueError, StopIteration):
            pass
        else:
            if end == len(text):
                return value
    return json.loads(raw)


def _cld2_codes(raw: bytes) -> str | None:
    try:
        data = _json(raw)
    except RecursionError:
        raise CcMetadataError("languages-cld2: JSON nested too deeply") from None
    except ValueError as exc:
        raise CcMetadataError(f"languages-cld2: not JSON ({exc})") from None
    langs = data.get("languages") if isinstance(data, dict) else None
    if not isinstance(langs, list):
        return None
    codes = []
    for lang in langs:
        if isinstance(lang, dict):
            code = lang.get("code-iso-639-3") or lang.get("code")
            if isinstance(code, str) and code:
                codes.append(code)
    return ",".join(codes) or None


def join_metadata(
    items: Iterable[RawRecord | RecordError],
) -> Iterator[RawRecord | RecordError]:
    """Pass ``items`` through, filling each response's ``crawler_charset`` and
    ``content_languages`` from a later metadata record that names it in
    ``WARC-Concurrent-To`` (within the window described in the module docstring). A
    metadata record whose payload cannot be read is passed on as a ``RecordError`` in its
    place (one item per record either way). When ``items`` raises, the records the window
    holds are passed on first, then the exception."""
    pending: deque[list[RawRecord | RecordError]] = deque()
    responses: dict[str, list[RawRecord | RecordError]] = {}
    held_bytes = 0
    try:
        for item in items:
            box: list[RawRecord | RecordError] = [item]
            if isinstance(item, RawRecord):
                if item.record_type == "metadata" and item.concurrent_to:
                    target_box = responses.get(item.concurrent_to.strip())
                    if target_box is not None:
                        try:
                            charset, languages = parse_cc_metadata(item.http_block)
                        except CcMetadataError as exc:
                            box = [_unreadable(item, exc)]
                        else:
                            target = target_box[0]
                            assert isinstance(target, RawRecord)
                            target_box[0] = with_crawler_metadata(
                                target,
                                # The response's own WARC-Identified-Content-Charset wins if present.
                                target.crawler_charset or charset,
                                target.content_languages or languages,
                            )
                if item.record_type in ("response", "resource"):
                    responses[item.record_id.strip()] = box
                if isinstance(box[0], RawRecord):
                    held_bytes += len(item.http_block)
            pending.append(box)
            while len(pending) > JOIN_WINDOW or (held_bytes > JOIN_WINDOW_BYTES and pending):
                out_box = pending.popleft()
                held_bytes -= _release(out_box, responses)
                yield out_box[0]
    except Exception:
        # The reader failed (a bug: readers yield errors, they do not raise): the records
        # it read before are passed on before the failure is, not lost with the window.
        while pending:
            yield pending.popleft()[0]
        raise
    while pending:
        out_box = pending.popleft()
        _release(out_box, responses)
        yield out_box[0]


def join_forward(record: RawRecord, following: Iterator[RawRecord | RecordError]) -> RawRecord:
    """``record`` as :func:`join_metadata` passes it on, given the items that follow it in its
    file (``following``, in file order): a response's crawler fields are filled by the
    metadata records naming it among the next :data:`JOIN_WINDOW` items, while the window's
    blocks stay within :data:`JOIN_WINDOW_BYTES` and no later response takes its record id.
    What comes before ``record`` never changes it. ``following`` is read only as far as the
    join can still change the record (Common Crawl's metadata record is the next record, and
    it names both fields)."""
    if record.record_type not in ("response", "resource"):
        return record
    key = record.record_id.strip()
    held = len(record.http_block)
    for _ in range(JOIN_WINDOW):
        if held > JOIN_WINDOW_BYTES or (record.crawler_charset and record.content_languages):
            break  # out of the window, or nothing left to fill (each field keeps its first value)
        item = next(following, None)
        if item is None:
            break
        if not isinstance(item, RawRecord):
            continue
        counted = True
        if item.record_type == "metadata" and item.concurrent_to and item.concurrent_to.strip() == key:
            try:
                charset, languages = parse_cc_metadata(item.http_block)
            except CcMetadataError:
                counted = False  # the metadata record becomes an error row: no block held
            else:
                record = with_crawler_metadata(record, record.crawler_charset or charset,
                                               record.content_languages or languages)
        if item.record_type in ("response", "resource") and item.record_id.strip() == key:
            break  # a later response with the same id is joined from here on, not this one
        held += len(item.http_block) if counted else 0
    return record


def _unreadable(item: RawRecord, exc: CcMetadataError) -> RecordError:
    return RecordError(
        stage="source",
        error_type="source-cc-metadata-invalid",
        message=str(exc),
        warc_filename=item.warc_filename,
        offset=item.warc_record_offset,
        record_id=item.record_id,
        offset_in_member=item.offset_in_member,
    )


def _release(box: list[RawRecord | RecordError], responses: dict[str, list]) -> int:
    """Forget a record that leaves the window; its bytes. A response is forgotten only if
    its record id still names it (a later response with the same id keeps its place)."""
    item = box[0]
    if isinstance(item, RawRecord):
        key = item.record_id.strip()
        if responses.get(key) is box:
            del responses[key]
        return len(item.http_block)
    return 0
