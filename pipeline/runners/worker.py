"""The worker function: one RawRecord in, its table rows (or a skip, or an error) out.

Pure apart from the rules: the local pool and Spark call the same ``process_record``, so
both write the same rows. Stages run in the DESIGN.md order:
sources → http → encoding (sniff ▶ decode) → extract → rows.

A failure that costs the record is returned as a ``RecordError`` (the record is lost and
counted in ``errors``). A failure of one part of a record that is still written (the
encoding decision fell back after an internal error, an extraction part failed) travels
with its rows as a *partial* error: an ``errors`` row with ``is_partial`` true, counted
apart (``partial_errors``) so that seen = written + skipped + errors still holds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa

from pipeline import http
from pipeline.encoding.api import decode_html
from pipeline.encoding.decision import DECLARING_SIGNALS, Decoded
from pipeline.encoding.mojibake import mojibake_score, naive_decode_garbled
from pipeline.errors import ErrorType, RecordError, Skip, Stage
from pipeline.extract import CAPPED, extract
from pipeline.extract.fields import Extracted
from pipeline.extract.links import NO_LINKS, PageLinks
from pipeline.extract.url_resolution import resolve_url
from pipeline.http.message import get_all
from pipeline.http.response import HttpResponse
from pipeline.native import urls
from pipeline.rules import Rules
from pipeline.schema import LINKS
from pipeline.sources.inputs import writable_name
from pipeline.sources.record import RawRecord
from pipeline.urlhost import host_fields, path_and_query
from pipeline.urlkey import url_surtkey


@dataclass(frozen=True, slots=True)
class Rows:
    """A decoded record's output: one ``records`` row and its links (each a ``links`` row with
    the record's ``run_id``, ``record_id`` and ``url``), the parts that failed while the
    record was still written, and the operator override that matched.

    The links stay compiled values until the links table of a batch of records is written
    from them by compiled code (:func:`links_table`): no Python object per link."""

    record: dict[str, Any]
    links: PageLinks = NO_LINKS
    partial: tuple[RecordError, ...] = ()
    #: index of the ``[[encoding.override]]`` that matched the URL (None: no rule matched)
    rule: int | None = None


Outcome = Rows | Skip | RecordError


def parse_fetch_time(value: str | None) -> datetime | None:
    """WARC-Date (ISO 8601, 'Z' or offset; ARC's 14-digit form) → aware UTC datetime, else None.

    >>> parse_fetch_time("2024-05-18T06:19:12Z").isoformat()
    '2024-05-18T06:19:12+00:00'
    >>> parse_fetch_time("20110504094018").year
    2011
    >>> parse_fetch_time("2008-10-294T12:00:00Z") is None
    True

    A time that UTC cannot hold (``0001-01-01T00:00:00+01:00`` is in year 0) is None too:

    >>> parse_fetch_time("0001-01-01T00:00:00+01:00") is None
    True
    """
    if not value:
        return None
    text = value.strip()
    try:
        if len(text) == 14 and text.isdigit():
            return datetime.strptime(text, "%Y%m%d%H%M%S").replace(tzinfo=UTC)
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return parsed.astimezone(UTC)
    except (ValueError, OverflowError):
        return None


#: The error type of a bug in each stage (the exception is named in the message).
_UNEXPECTED: dict[Stage, ErrorType] = {
    "http": "http-unexpected", "encoding": "encoding-unexpected",
    "extract": "extract-unexpected", "sink": "sink-unexpected",
}


def _error(raw: RawRecord, stage: Stage, exc: BaseException) -> RecordError:
    return RecordError(
        stage=stage,
        error_type=_UNEXPECTED[stage],
        message=f"{type(exc).__name__}: {exc}"[:2000],
        warc_filename=raw.warc_filename,
        offset=raw.warc_record_offset,
        record_id=raw.record_id,
        offset_in_member=raw.offset_in_member,
        length=raw.warc_record_length,
    )


def process_record(raw: RawRecord, rules: Rules, run_id: str) -> Outcome:
    """Run every stage on one record. Never raises for bad input: failures come back as values."""
    try:
        skip = http.select(raw)
        if skip is not None:
            return skip
        resp = http.parse_response(raw, max_decompressed=rules.max_decompressed)
        if isinstance(resp, RecordError):
            return resp
        skip = http.select_response(resp)
        if skip is not None:
            return skip
    except Exception as exc:  # a bug in a stage must cost one record, not the run
        return _error(raw, "http", exc)
    try:
        decoded = decode_html(
            resp.body, resp.content_type, raw.url, rules=rules, crawler_charset=raw.crawler_charset
        )
        score = mojibake_score(decoded.text, decoded.encoding, utf8=decoded.utf8)
        garbled = naive_decode_garbled(resp.body, resp.content_type, decoded.text, utf8=decoded.utf8)
    except Exception as exc:
        return _error(raw, "encoding", exc)
    try:
        fields = extract(decoded.text, raw.url, decoded.encoding, rules.extract, utf8=decoded.utf8)
    except Exception as exc:
        return _error(raw, "extract", exc)
    try:
        rows = _rows(raw, resp, decoded, fields, score, garbled, rules, run_id)
    except Exception as exc:
        return _error(raw, "sink", exc)
    partial = partial_errors(raw, decoded, fields)
    rule = decoded.decision.override
    if partial or rule is not None:
        rows = Rows(rows.record, rows.links, partial, rule)
    return rows


def partial_errors(raw: RawRecord, decoded: Decoded, fields: Extracted) -> tuple[RecordError, ...]:
    """The parts of a record that failed although its row is written: an internal error in
    the encoding decision, each failed extraction part."""
    # decide() never raises: an internal error leaves a signal and the browser default.
    found: list[tuple[Stage, ErrorType, str]] = [
        ("encoding", "encoding-decision-failed",
         f"{signal.note}; decoded as {decoded.encoding} ({decoded.encoding_source})")
        for signal in decoded.decision.signals if signal.kind == "internal-error"
    ]
    # extract() keeps every field that did come out and lists the parts that failed
    # ("links: ValueError: ...", "parse: too-deep: ...") or were cut ("input-capped: ...").
    found += [("extract", _extract_error_type(failure), failure) for failure in fields.errors]
    return tuple(
        RecordError(stage=stage, error_type=error_type, message=message[:2000],
                    warc_filename=raw.warc_filename, offset=raw.warc_record_offset,
                    record_id=raw.record_id, offset_in_member=raw.offset_in_member,
                    length=raw.warc_record_length)
        for stage, error_type, message in found
    )


#: The error type of each extraction part (``Extracted.errors`` starts with the part's name).
_EXTRACT_ERRORS: dict[str, ErrorType] = {
    "parse": "extract-parse-failed", "metadata": "extract-metadata-failed",
    "links": "extract-links-failed", "main-text": "extract-main-text-failed",
    "language": "extract-language-failed", CAPPED: "extract-input-capped",
}


def _extract_error_type(failure: str) -> ErrorType:
    """``extract-<part>-failed`` for a part that failed, ``extract-input-capped`` for a cut."""
    return _EXTRACT_ERRORS.get(failure.partition(":")[0], "extract-unexpected")


def fetch_redirect(resp: HttpResponse, url: str | None) -> str | None:
    """Where a redirect points: a 3xx response's first ``Location`` resolved against the
    record's URL (Fetch Standard, *location URL*: the value parsed with the response's URL
    as the base), serialized; None for another status, no Location, or one that does not
    parse. Bytes outside ASCII are percent-encoded first, as Chromium's URL parser does
    with a header's bytes (valid UTF-8 comes out as the URL parser makes it of the text).

    >>> from pipeline.http.response import HttpResponse
    >>> moved = HttpResponse(301, ((b"Location", b"../b?x=\\xc3\\xa9"),), None, None, False, b"", 0, None)
    >>> fetch_redirect(moved, "http://a.example/d/c")
    'http://a.example/b?x=%C3%A9'
    """
    if resp.status is None or not 300 <= resp.status <= 399:
        return None
    found = get_all(resp.headers, b"location")
    if not found:
        return None
    value = "".join(chr(b) if b < 0x80 else f"%{b:02X}" for b in found[0].strip())
    return resolve_url(value, url) if value else None


def content_digest(value: str | None) -> str | None:
    """``WARC-Payload-Digest`` as Common Crawl's index writes it: a SHA-1 digest's base32
    value without its ``sha1:`` label; another algorithm's as written.

    >>> content_digest("sha1:CH7IV3XAD3M7A42JARKRLJ3T5PGGCGXD"), content_digest("sha256:ab")
    ('CH7IV3XAD3M7A42JARKRLJ3T5PGGCGXD', 'sha256:ab')
    """
    if not value or not value.strip():
        return None
    value = value.strip()
    label, sep, digest = value.partition(":")
    return digest.strip() if sep and label.strip().lower() == "sha1" else value


def _signals_json(decoded: Decoded) -> str:
    return json.dumps(
        [
            {"kind": s.kind, "label": s.label, "encoding": s.encoding, "note": s.note}
            for s in decoded.decision.signals
        ],
        ensure_ascii=False,
    )


def _rows(
    raw: RawRecord,
    resp: HttpResponse,
    decoded: Decoded,
    fields: Extracted,
    score: float,
    garbled: bool,
    rules: Rules,
    run_id: str,
) -> Rows:
    decision = decoded.decision
    host, tld, registered = host_fields(raw.url)
    path, query = path_and_query(raw.url) or (None, None)
    declared = {s.encoding for s in decision.signals if s.encoding and s.kind in DECLARING_SIGNALS}
    record = {
        "run_id": run_id,
        "record_id": raw.record_id,
        "warc_filename": writable_name(raw.warc_filename),
        "warc_record_offset": raw.warc_record_offset,
        "warc_record_length": raw.warc_record_length,
        "warc_record_offset_in_member": raw.offset_in_member,
        "url": raw.url,
        "url_surtkey": url_surtkey(raw.url),
        "url_host_name": host,
        "url_host_tld": tld,
        "url_host_registered_domain": registered,
        "url_path": path,
        "url_query": query,
        "fetch_time": parse_fetch_time(raw.fetch_time),
        "fetch_status": resp.status,
        "fetch_redirect": fetch_redirect(resp, raw.url),
        "content_digest": content_digest(raw.payload_digest),
        "content_mime_type": resp.mime_type,
        "content_mime_detected": raw.content_mime_detected,
        "content_length": resp.content_length,
        "content_truncated": resp.content_truncated,
        "http_notes": ",".join(resp.http_notes) or None,
        "content_charset": raw.crawler_charset,
        "content_languages": raw.content_languages,
        "http_charset": decision.http_charset,
        "meta_charset": decision.meta_charset,
        "bom": decision.bom,
        "encoding": decision.encoding,
        "encoding_source": decision.encoding_source,
        "encoding_browser": decision.encoding_browser,
        "encoding_declared": decision.declared,
        "encoding_bytes": decision.bytes_encoding,
        "encoding_bytes_evidence": decision.bytes_evidence,
        "encoding_bytes_weight": decision.bytes_weight,
        "encoding_bytes_alike": ",".join(decision.bytes_alike) or None,
        "encoding_confidence": decision.confidence,
        "encoding_signals": _signals_json(decoded),
        "declared_conflict": len(declared) > 1,
        "replacement_chars": decoded.replacement_chars,
        "decode_errors": decoded.decode_errors,
        "mojibake_score": score,
        "naive_decode_garbled": garbled,
        "text_length": fields.text_length,
        "title": fields.title,
        "description": fields.description,
        "og_title": fields.og_title,
        "og_description": fields.og_description,
        "og_image": fields.og_image,
        "og_url": fields.og_url,
        "og_type": fields.og_type,
        "og_site_name": fields.og_site_name,
        "og_locale": fields.og_locale,
        "twitter_card": fields.twitter_card,
        "twitter_title": fields.twitter_title,
        "twitter_description": fields.twitter_description,
        "twitter_image": fields.twitter_image,
        "canonical_url": fields.canonical_url,
        "lang": fields.lang,
        "html_lang": fields.html_lang,
        "lang_detected": fields.lang_detected,
        "main_text": fields.main_text,
        "main_text_length": len(fields.main_text),
        "links_count": len(fields.links),
        "links_dropped_count": fields.links_truncated,
        "links_dropped_by_kind": json.dumps(dict(fields.links_dropped)) if fields.links_dropped else None,
        "bad_url_count": fields.bad_urls,
        "extract_errors": json.dumps(list(fields.errors), ensure_ascii=False) if fields.errors else None,
        "rules_version": rules.version,
    }
    return Rows(record=record, links=fields.links)


def link_rows(rows: Rows) -> list[dict[str, Any]]:
    """The ``links`` rows of one record, as dicts: only to name what was refused when a
    record's links do not convert (:func:`pipeline.runners.parts.RecordParts.flush`)."""
    record = rows.record
    return [
        {
            "run_id": record["run_id"],
            "record_id": record["record_id"],
            "url": record["url"],
            "target_url": link.url,
            "anchor_text": link.anchor_text,
            "rel": link.rel,
            "tag": link.tag,
            "attr": link.attr,
            "kind": link.kind,
            "internal": link.internal,
            "nofollow": link.nofollow,
        }
        for link in rows.links
    ]


def links_table(staged: list[Rows]) -> pa.Table:
    """The ``links`` rows of ``staged`` as one table: the links of every record appended into
    Arrow arrays by compiled code (``_urls.links_batch``, one builder for the batch) and handed
    to pyarrow as one record batch through the Arrow C Data Interface's PyCapsules.
    ``tests/oracles/links_table.py`` builds the same table in Python; tests compare the two.

    A batch whose strings outgrow one Arrow string array (2 GiB) is written as two halves.
    Raises what a record's links refuse (a string that is not UTF-8-encodable, ValueError)."""
    pages = [(rows.links, record["run_id"], record["record_id"], record["url"])
             for rows in staged if len(rows.links) for record in (rows.record,)]
    try:
        schema, array = urls.links_batch(LINKS.__arrow_c_schema__(), pages)
    except OverflowError:
        if len(pages) < 2:
            raise
        half = len(staged) // 2
        return pa.concat_tables([links_table(staged[:half]), links_table(staged[half:])])
    return pa.Table.from_batches([pa.RecordBatch._import_from_c_capsule(schema, array)])


def error_row(err: RecordError, run_id: str, *, partial: bool = False) -> dict[str, Any]:
    """An ``errors`` table row for a RecordError (``partial``: the record was still written)."""
    return {
        "run_id": run_id,
        "warc_filename": writable_name(err.warc_filename),
        "warc_record_offset": err.offset,
        "warc_record_offset_in_member": err.offset_in_member,
        "warc_record_length": err.length,
        "record_id": err.record_id,
        "stage": err.stage,
        "error_type": err.error_type,
        "message": err.message,
        "is_partial": partial,
    }
