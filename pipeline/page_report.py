"""One page, explained (``redecode decode``): the encoding decision, what the text looks like
(mojibake score, what ``requests`` would have shown), the extracted fields, and a warning
when the chosen decoding looks wrong.

It runs the same stages as a record of a run (``decode_html``, ``mojibake_score``,
``naive_decode_garbled``, ``extract``), on one body given by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pipeline.encoding.api import decode_html
from pipeline.encoding.decision import DECLARED_SOURCES, Decoded
from pipeline.encoding.decoders import decode
from pipeline.encoding.explain import explain, explain_text
from pipeline.encoding.mojibake import (
    MOJIBAKE_THRESHOLD,
    is_mojibake,
    mojibake_score,
    naive_decode_garbled,
)
from pipeline.encoding.sniff.detect import chardetng_guess
from pipeline.extract import extract
from pipeline.extract.fields import Extracted
from pipeline.http.mime_sniff import SNIFF_LEN, identify_unknown_mime_type
from pipeline.rules import Rules
from pipeline.sources.containers import sniff_codec
from pipeline.urlhost import host_fields

#: Links listed in the text output (all of them are in the JSON).
SHOWN_LINKS = 5


@dataclass(frozen=True, slots=True)
class Alternative:
    """What the bytes read as without the declarations: the detector's encoding and its score."""

    encoding: str
    mojibake_score: float
    replacement_chars: int


@dataclass(frozen=True, slots=True)
class PageReport:
    """Everything ``redecode decode`` says about one page."""

    decoded: Decoded
    mojibake_score: float
    naive_decode_garbled: bool
    fields: Extracted
    warnings: tuple[str, ...]
    alternative: Alternative | None


#: What MIME sniffing may call a page's first bytes (octet-stream: binary bytes and no
#: signature, which a page in UTF-16 without a BOM also is).
_PAGE_LIKE = frozenset({"text/html", "text/xml", "text/plain", "application/octet-stream"})
#: Archives a run reads, by their first bytes (the compressed ones by their codec).
_ARCHIVES = ((b"WARC/", "a WARC file"), (b"filedesc://", "an ARC file"),
             (b"PAR1", "a Parquet file"))
_RUN_HINT = "; redecode run PATH --out DIR decodes the pages of an archive"


def not_a_page(body: bytes) -> str | None:
    """Why ``body`` is no page to decode, or None: an archive (WARC, ARC, Parquet), a
    compressed stream (gzip, zstd, LZ4, bzip2: a compressed WARC, or a body still
    compressed), or a file MIME sniffing names by its first bytes (a PDF, an image).

    >>> not_a_page(b"<!doctype html><title>x</title>") is None
    True
    >>> not_a_page(b"%PDF-1.7 ...")
    'application/pdf by its first bytes, not a page'
    """
    head = body[:SNIFF_LEN]
    codec = sniff_codec(head)
    if codec is not None:
        return f"a {codec.name} stream (a compressed archive, or a body still compressed), " \
               f"not a page{_RUN_HINT}"
    for magic, what in _ARCHIVES:
        if head.startswith(magic):
            return f"{what}, not a page{_RUN_HINT}"
    mime = identify_unknown_mime_type(head)
    if mime not in _PAGE_LIKE:
        return f"{mime} by its first bytes, not a page"
    return None


def _alternative(body: bytes, decoded: Decoded, url: str | None) -> Alternative | None:
    """The detector's reading of ``body`` (declarations ignored), when it differs."""
    tld = host_fields(url)[1] if url else None
    guess = chardetng_guess(body, tld, allow_utf8=True)
    if guess is None or guess.encoding == decoded.encoding:
        return None
    text = decode(body, guess.encoding).text
    return Alternative(guess.encoding, mojibake_score(text, guess.encoding), text.count("\ufffd"))


def _warnings(body: bytes, decoded: Decoded, score: float,
              alternative: Alternative | None) -> tuple[str, ...]:
    """Why the chosen decoding may be wrong, in words (empty when nothing points that way)."""
    out = []
    source = decoded.encoding_source
    non_ascii = len(body) - len(body.decode("latin-1").encode("ascii", "ignore"))
    if is_mojibake(score):
        out.append(f"the text looks like mojibake (score {score:.2f} > {MOJIBAKE_THRESHOLD}): "
                   f"{decoded.encoding} from '{source}' is probably not the page's encoding")
    if decoded.decode_errors and non_ascii and decoded.decode_errors * 20 >= non_ascii:
        out.append(f"{decoded.decode_errors} malformed sequences for {non_ascii} non-ASCII bytes: "
                   f"the bytes are not {decoded.encoding}")
    if alternative is not None and source in DECLARED_SOURCES and (out or is_mojibake(score)):
        if not is_mojibake(alternative.mojibake_score) and alternative.replacement_chars <= decoded.replacement_chars:
            # --policy repair only overrides a declaration for UTF-8 bodies.
            remedy = ("--policy repair, or " if alternative.encoding == "UTF-8" else "") + \
                "an [[encoding.override]] rule with mode = \"force\" for this host"
            out.append(f"without the declaration the bytes read as {alternative.encoding} "
                       f"(score {alternative.mojibake_score:.2f}, "
                       f"{alternative.replacement_chars} U+FFFD): {remedy}")
    if decoded.encoding != decoded.encoding_browser:
        out.append(f"a browser shows this page as {decoded.encoding_browser}, not {decoded.encoding}: "
                   "visitors saw it differently from what the author meant")
    return tuple(out)


def inspect_page(body: bytes, content_type: str | None, url: str | None, rules: Rules) -> PageReport:
    """Decode ``body`` as a run would, and say what came out and what looks wrong."""
    decoded = decode_html(body, content_type, url, rules=rules)
    score = mojibake_score(decoded.text, decoded.encoding, utf8=decoded.utf8)
    garbled = naive_decode_garbled(body, content_type, decoded.text, utf8=decoded.utf8)
    fields = extract(decoded.text, url, decoded.encoding, rules.extract, utf8=decoded.utf8)
    suspicious = is_mojibake(score) or decoded.decode_errors > 0
    alternative = _alternative(body, decoded, url) if suspicious else None
    return PageReport(decoded, score, garbled, fields, _warnings(body, decoded, score, alternative),
                      alternative)


def _field_items(fields: Extracted) -> list[tuple[str, Any]]:
    return [
        ("title", fields.title), ("lang", fields.lang), ("html_lang", fields.html_lang),
        ("lang_detected", fields.lang_detected), ("description", fields.description),
        ("canonical_url", fields.canonical_url), ("base_url", fields.base_url),
        ("og_title", fields.og_title), ("og_description", fields.og_description),
        ("og_image", fields.og_image), ("og_url", fields.og_url), ("og_type", fields.og_type),
        ("og_site_name", fields.og_site_name), ("og_locale", fields.og_locale),
        ("twitter_card", fields.twitter_card), ("twitter_title", fields.twitter_title),
        ("twitter_description", fields.twitter_description),
        ("twitter_image", fields.twitter_image), ("text_length", fields.text_length),
        ("main_text_length", len(fields.main_text)), ("links_count", len(fields.links)),
        ("links_dropped_count", fields.links_truncated),
        ("links_dropped_by_kind", dict(fields.links_dropped) or None), ("bad_url_count", fields.bad_urls),
    ]


def report_json(report: PageReport) -> dict[str, Any]:
    """The report as a JSON-ready dict (``redecode decode --format json``)."""
    fields = report.fields
    alternative = report.alternative
    return {
        "decision": explain(report.decoded),
        "mojibake_score": round(report.mojibake_score, 4),
        "is_mojibake": is_mojibake(report.mojibake_score),
        "naive_decode_garbled": report.naive_decode_garbled,
        "warnings": list(report.warnings),
        "alternative": None if alternative is None else {
            "encoding": alternative.encoding,
            "mojibake_score": round(alternative.mojibake_score, 4),
            "replacement_chars": alternative.replacement_chars,
        },
        "fields": dict(_field_items(fields)),
        "links": [{"url": link.url, "anchor_text": link.anchor_text, "rel": link.rel,
                   "tag": link.tag, "attr": link.attr, "kind": link.kind, "internal": link.internal,
                   "nofollow": link.nofollow} for link in fields.links],
        "extract_errors": list(fields.errors),
    }


def report_text(report: PageReport) -> str:
    """The report as readable lines: the decision, the text's health, warnings, the fields."""
    lines = [explain_text(report.decoded)]
    verdict = "looks like mojibake" if is_mojibake(report.mojibake_score) else "looks right"
    lines.append(f"mojibake: score {report.mojibake_score:.2f} ({verdict}; flagged above "
                 f"{MOJIBAKE_THRESHOLD})")
    naive = ("garbled: requests' .text differs from this text" if report.naive_decode_garbled
             else "same text as requests' .text")
    lines.append(f"naive decode: {naive}")
    for warning in report.warnings:
        lines.append(f"warning: {warning}")
    lines.append("fields:")
    for name, value in _field_items(report.fields):
        if value is not None and value != "":
            lines.append(f"  {name}: {value}")
    for link in report.fields.links[:SHOWN_LINKS]:
        lines.append(f"  link: {link.url}  ({link.tag} {link.attr}, "
                     f"{'internal' if link.internal else 'external'})")
    if len(report.fields.links) > SHOWN_LINKS:
        lines.append(f"  ... {len(report.fields.links) - SHOWN_LINKS} more links (--format json)")
    for error in report.fields.errors:
        lines.append(f"  extract error: {error}")
    return "\n".join(lines)
