"""The worker function: one RawRecord in, its table rows (or a skip, or an error) out.

Pure apart from the rules: the local pool and Spark call the same ``process_record``, so
both write the same rows. Stages run in the DESIGN.md order:
sources → http → encoding (sniff ▶ decode) → extract → rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pipeline import http
from pipeline.encoding.api import decode_html
from pipeline.encoding.decision import Decoded
from pipeline.encoding.mojibake import mojibake_score, naive_decode_garbled
from pipeline.errors import RecordError, Skip
from pipeline.extract import extract
from pipeline.extract.fields import Extracted
from pipeline.http.response import HttpResponse
from pipeline.rules import Rules
from pipeline.sources.record import RawRecord
from pipeline.urlhost import host_fields


@dataclass(frozen=True, slots=True)
class Rows:
    """A decoded record's output: one ``records`` row and its ``links`` rows."""

    record: dict[str, Any]
    links: list[dict[str, Any]] = field(default_factory=list)


Outcome = Rows | Skip | RecordError


def parse_fetch_time(value: str | None) -> datetime | None:
    """WARC-Date (ISO 8601, 'Z' or offset; ARC's 14-digit form) → aware UTC datetime, else None.

    >>> parse_fetch_time("2024-05-18T06:19:12Z").isoformat()
    '2024-05-18T06:19:12+00:00'
    >>> parse_fetch_time("20110504094018").year
    2011
    >>> parse_fetch_time("2008-10-294T12:00:00Z") is None
    True
    """
    if not value:
        return None
    text = value.strip()
    try:
        if len(text) == 14 and text.isdigit():
            return datetime.strptime(text, "%Y%m%d%H%M%S").replace(tzinfo=UTC)
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def _error(raw: RawRecord, stage: str, exc: BaseException) -> RecordError:
    return RecordError(
        stage=stage,  # type: ignore[arg-type]
        error_type=f"{stage}-unexpected-{type(exc).__name__.lower()}",
        message=str(exc)[:2000],
        warc_filename=raw.warc_filename,
        offset=raw.warc_record_offset,
        record_id=raw.record_id,
    )


def process_record(raw: RawRecord, rules: Rules, run_id: str) -> Outcome:
    """Run every stage on one record. Never raises for bad input: failures come back as values."""
    skip = http.select(raw)
    if skip is not None:
        return skip
    try:
        resp = http.parse_response(raw, max_decompressed=rules.max_decompressed)
    except Exception as exc:  # a bug in a stage must cost one record, not the run
        return _error(raw, "http", exc)
    if isinstance(resp, RecordError):
        return resp
    skip = http.select_response(resp)
    if skip is not None:
        return skip
    try:
        decoded = decode_html(
            resp.body, resp.content_type, raw.url, rules=rules, crawler_charset=raw.crawler_charset
        )
        score = mojibake_score(decoded.text, decoded.encoding)
        garbled = naive_decode_garbled(resp.body, resp.content_type, decoded.text)
    except Exception as exc:
        return _error(raw, "encoding", exc)
    try:
        fields = extract(decoded.text, raw.url, decoded.encoding, rules.extract, utf8=decoded.utf8)
    except Exception as exc:
        return _error(raw, "extract", exc)
    return _rows(raw, resp, decoded, fields, score, garbled, rules, run_id)


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
    declared = {
        s.encoding
        for s in decision.signals
        if s.encoding and s.kind in ("http-charset", "meta-prescan", "xml-declaration", "late-meta")
    }
    record = {
        "run_id": run_id,
        "record_id": raw.record_id,
        "warc_filename": raw.warc_filename,
        "warc_record_offset": raw.warc_record_offset,
        "warc_record_length": raw.warc_record_length,
        "url": raw.url,
        "url_host_name": host,
        "url_host_tld": tld,
        "url_host_registered_domain": registered,
        "fetch_time": parse_fetch_time(raw.fetch_time),
        "fetch_status": resp.status,
        "content_mime_type": resp.mime_type,
        "content_mime_detected": raw.content_mime_detected,
        "content_length": resp.content_length,
        "content_truncated": resp.content_truncated,
        "content_charset": raw.crawler_charset,
        "content_languages": raw.content_languages,
        "http_charset": decision.http_charset,
        "meta_charset": decision.meta_charset,
        "bom": decision.bom,
        "encoding": decision.encoding,
        "encoding_source": decision.encoding_source,
        "encoding_browser": decision.encoding_browser,
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
        "bad_url_count": fields.bad_urls,
        "extract_errors": json.dumps(list(fields.errors), ensure_ascii=False) if fields.errors else None,
        "rules_version": rules.version,
    }
    links = [
        {
            "run_id": run_id,
            "record_id": raw.record_id,
            "url": raw.url,
            "target_url": link.url,
            "anchor_text": link.anchor_text,
            "rel": link.rel,
            "tag": link.tag,
            "attr": link.attr,
            "internal": link.internal,
            "nofollow": link.nofollow,
        }
        for link in fields.links
    ]
    return Rows(record=record, links=links)


def error_row(err: RecordError, run_id: str) -> dict[str, Any]:
    """An ``errors`` table row for a RecordError."""
    return {
        "run_id": run_id,
        "warc_filename": err.warc_filename,
        "warc_record_offset": err.offset,
        "record_id": err.record_id,
        "stage": err.stage,
        "error_type": err.error_type,
        "message": err.message,
    }
