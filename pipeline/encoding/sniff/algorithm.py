"""The encoding decision: every sniffing step in order, every signal recorded, three policies.

Implements the HTML Standard's *encoding sniffing algorithm* (BOM, transport layer, prescan,
then the parser's in-``<head>`` "change the encoding"), Chromium 156's measured additions
(XML declaration, late ``<meta>``, TLD fallback, never detecting UTF-8), and the project's
own steps beyond the standard (operator rules, UTF-8 check, detection, repair).

https://html.spec.whatwg.org/commit-snapshots/e2f08b4e56d9a098038fb16c7ff6bb820a57cfab/#encoding-sniffing-algorithm

Order per policy (``DESIGN.md`` "Encoding decision"):

- ``standard``: BOM > rule(force) > header > meta (prescan) > late-meta > xml > rule(fallback)
  > UTF-8 check > detection (a malformed declaration the bytes agree with counts as evidence)
  > TLD default;
- ``browser``: what Chromium shows (:func:`browser_encoding`);
- ``repair``: ``standard``, then a declaration is overridden when the body is valid multi-byte
  UTF-8 (``repair-utf8``) or when a UTF-8 declaration sits on bytes that are mostly not UTF-8
  (``repair-detected``).

``encoding_browser`` is computed whatever the policy.
"""

from __future__ import annotations

from typing import Literal

from pipeline.encoding.decision import (
    DECLARED_SOURCES,
    BytesEvidence,
    Confidence,
    EncodingDecision,
    EncodingSource,
    Signal,
)
from pipeline.encoding.decoders import decode
from pipeline.encoding.decoders.single_byte import read_alike
from pipeline.encoding.lookup import get_an_encoding
from pipeline.encoding.mojibake import MOJIBAKE_THRESHOLD, mojibake_score
from pipeline.encoding.options import EncodingOptions, Override
from pipeline.encoding.sniff import ced
from pipeline.encoding.sniff.bom import bom_sniff
from pipeline.encoding.sniff.browser_detect import emulate_chromium_detection
from pipeline.encoding.sniff.detect import (
    has_iso_2022_jp_escapes,
    high_bytes,
    utf16_without_bom,
)
from pipeline.encoding.sniff.evidence import Evidence, meta_label, override_index
from pipeline.encoding.sniff.late_meta import (
    BYTES_TO_CHECK_UNCONDITIONALLY,
)
from pipeline.encoding.sniff.lenient_meta import lenient_meta_label
from pipeline.encoding.sniff.prescan import PRESCAN_BYTES
from pipeline.encoding.sniff.tld_defaults import tld_default
from pipeline.http.content_type import charset_from_content_type, essence_and_charset

#: repair-utf8 needs at least this many valid multi-byte sequences and no malformed one.
REPAIR_MIN_MULTIBYTE = 2
#: repair-detected overrides a legacy declaration only on at least this many non-ASCII bytes
#: (in the detector's sample): below it a detector's confidence and a mojibake score are
#: ratios over too few characters. Fitted by ``scripts/fit_repair.py`` (docs/sniffing.md).
REPAIR_MIN_NON_ASCII = 48
_ASCII_BYTES = bytes(range(0x80))
_HIGH_BYTES = bytes(range(0x80, 0x100))
#: A UTF-16 declaration with no NUL byte in this many bytes is repaired (repair policy).
_UTF16_NUL_WINDOW = 4096
#: Bytes the lenient-meta agreement check decodes.
_LENIENT_AGREEMENT_BYTES = 65536


def decide(
    body: bytes,
    content_type: str | None = None,
    url: str | None = None,
    options: EncodingOptions | None = None,
    *,
    crawler_charset: str | None = None,
) -> EncodingDecision:
    """Decide the encoding of an HTML ``body`` served with ``content_type`` at ``url``.

    ``options.policy`` picks the policy; ``crawler_charset`` (a WARC's
    ``WARC-Identified-Content-Charset``) is recorded as a signal, never trusted. Never raises.

    >>> d = decide(b"<meta charset=koi8-r>", "text/html; charset=windows-1251")
    >>> d.encoding, d.encoding_source, d.meta_charset, [s.kind for s in d.signals]
    ('windows-1251', 'header', 'koi8-r', ['http-charset', 'meta-prescan'])
    """
    options = options or EncodingOptions()
    try:
        return _decide(body, content_type, url, options, crawler_charset)
    except Exception as error:  # a bug must not lose the record: decode as the browser default
        signal = Signal("internal-error", None, None, f"{type(error).__name__}: {error}")
        return EncodingDecision(
            "windows-1252", "default", "windows-1252", "default", "tentative", options.policy,
            None, None, None, (signal,),
        )


def _decide(
    body: bytes, content_type: str | None, url: str | None, options: EncodingOptions,
    crawler_charset: str | None,
) -> EncodingDecision:
    evidence = Evidence(body, url, options)
    signals = evidence.signals
    # Step 1 (Encoding Standard "BOM sniff"): a BOM wins over everything.
    bom, bom_length = bom_sniff(body)
    if bom is not None:
        signals.append(Signal("bom", bom, bom, f"{bom_length}-byte byte order mark"))
    # Transport layer: "If the transport layer specifies a character encoding, and it is
    # supported, return that encoding with the confidence certain."
    http_label = charset_from_content_type(content_type)
    http_encoding = get_an_encoding(http_label) if http_label is not None else None
    if http_label is not None:
        signals.append(Signal(
            "http-charset", http_label, http_encoding,
            "" if http_encoding else "not a WHATWG label: ignored",
        ))
    if crawler_charset:
        signals.append(Signal(
            "crawler-charset", crawler_charset, get_an_encoding(crawler_charset),
            "the crawler's own verdict: recorded for audit only",
        ))
    override = override_index(options.overrides, url)
    rule = None if override is None else options.overrides[override]
    rule_encoding = get_an_encoding(rule.encoding) if rule is not None else None
    if rule is not None:
        signals.append(Signal(
            "rule", rule.encoding, rule_encoding,
            f"{rule.mode} override for {rule.host or rule.url_prefix}"
            + ("" if rule_encoding else ": not a WHATWG label, ignored"),
        ))
    if bom is None:
        evidence.prescan()  # cheap (1024 bytes); recorded even when the header wins

    browser, browser_source = browser_encoding(evidence, bom, http_encoding, content_kind(content_type))
    if options.policy == "browser":
        encoding, source = browser, browser_source
    else:
        encoding, source = _standard(evidence, bom, http_encoding, rule, rule_encoding)
        if options.policy == "repair":
            encoding, source = _repair(evidence, encoding, source)
    # What the decision saw; the page's own declaration and the bytes' verdict, found after
    # it (a header-declared page never paid for the later steps), are columns of their own.
    seen, meta_charset = tuple(signals), meta_label(evidence)
    declared = _declared(evidence, http_encoding) if bom is None else None
    reading = _read_bytes(evidence, lenient=False) if bom is None else None
    weight: int | None = None
    alike: tuple[str, ...] = ()
    if reading is not None and reading[1] in ("detector", "detector-weak"):
        sample = evidence.sample()
        weight = len(sample) - len(sample.translate(None, _HIGH_BYTES))
        alike = read_alike(reading[0], high_bytes(body))
    return EncodingDecision(
        encoding=encoding,
        encoding_source=source,
        encoding_browser=browser,
        encoding_browser_source=browser_source,
        confidence=_confidence(source),
        policy=options.policy,
        http_charset=http_label,
        meta_charset=meta_charset,
        bom=bom,
        signals=seen,
        declared=declared[0] if declared is not None else None,
        bytes_encoding=reading[0] if reading is not None else None,
        bytes_evidence=reading[1] if reading is not None and reading[1] != "malformed-meta" else None,
        bytes_weight=weight,
        bytes_alike=alike,
        override=override,
    )


def _confidence(source: EncodingSource) -> Confidence:
    # The HTML Standard: BOM and transport layer are "certain", the prescan "tentative".
    return "certain" if source in ("bom", "header", "rule") else "tentative"


def _standard(
    evidence: Evidence, bom: str | None, http_encoding: str | None,
    rule: Override | None, rule_encoding: str | None,
) -> tuple[str, EncodingSource]:
    if bom is not None:
        return bom, "bom"
    if rule is not None and rule_encoding is not None and rule.mode == "force":
        return rule_encoding, "rule"
    declared = _declared(evidence, http_encoding)
    if declared is not None:
        return declared
    if rule is not None and rule_encoding is not None:
        return rule_encoding, "rule"
    reading = _read_bytes(evidence, lenient=True)
    if reading is not None:
        encoding, kind = reading
        return encoding, "utf8" if kind == "utf8" else "detected"
    if evidence.body.isascii():
        evidence.signals.append(Signal(
            "ascii", None, "windows-1252", "pure ASCII: any ASCII-compatible encoding reads it the same",
        ))
        return "windows-1252", "default"
    default = tld_default(evidence.url, evidence.options.default_encoding)
    evidence.signals.append(Signal("tld-default", evidence.tld, default, "nothing else to go on"))
    return default, "default"


def _declared(evidence: Evidence, http_encoding: str | None) -> tuple[str, EncodingSource] | None:
    """The encoding the page's own declarations give, in the standard order, and which one
    gave it: the transport layer, the prescan, the parser's late ``<meta>``, the XML
    declaration; None when it declares nothing usable."""
    if http_encoding is not None:
        return http_encoding, "header"
    # Prescan: "If the prescan returns an encoding, return it with confidence tentative."
    prescan = evidence.prescan()
    if prescan is not None and prescan.kind.startswith("meta"):
        return prescan.encoding, "meta"
    if prescan is not None and prescan.kind == "xml-utf16":
        return prescan.encoding, "xml"
    # The parser's "change the encoding" for a <meta> met while still in <head>, after the
    # first 1024 bytes (a meta the prescan saw but rejected stays rejected).
    scan = evidence.scan()
    if scan is not None and scan.in_head and scan.end > PRESCAN_BYTES:
        return scan.encoding, "late-meta"
    if prescan is not None:  # "get an XML encoding" within the first 1024 bytes
        return prescan.encoding, "xml"
    xml = evidence.xml()
    if xml is not None and xml.encoding is not None:
        return xml.encoding, "xml"
    return None


def _read_bytes(
    evidence: Evidence, *, lenient: bool,
) -> tuple[str, BytesEvidence | Literal["malformed-meta"]] | None:
    """What the bytes alone decode as, and how strongly they say it: the standard policy's
    steps for a page that declares nothing. None for ASCII-only bytes and when the detector
    has no answer. ``lenient``: a malformed ``<meta>`` the bytes agree with counts (the
    standard policy's evidence; the bytes' own verdict leaves every declaration out)."""
    body = evidence.body
    utf16 = utf16_without_bom(body)
    if utf16 is not None:
        evidence.signals.append(Signal("utf16-pattern", None, utf16, "NUL bytes at one parity: BOM-less UTF-16"))
        return utf16, "pattern"
    if body.isascii():
        if has_iso_2022_jp_escapes(body):
            evidence.signals.append(Signal("iso-2022-jp-escapes", None, "ISO-2022-JP", "7-bit with JIS escape sequences"))
            return "ISO-2022-JP", "pattern"
        return None
    if evidence.utf8().is_utf8:
        return "UTF-8", "utf8"
    if lenient:
        found = lenient_meta_label(body)
        if found is not None:
            encoding, label = found
            agrees = encoding != "UTF-8" and decode(body[:_LENIENT_AGREEMENT_BYTES], encoding).decode_errors == 0
            evidence.signals.append(Signal(
                "malformed-meta", label, encoding,
                "the bytes agree: used as detection evidence" if agrees else "the bytes disagree: ignored",
            ))
            if agrees:
                return encoding, "malformed-meta"
    guess = evidence.guess()
    if guess is not None:
        return guess.encoding, "detector" if guess.confident else "detector-weak"
    return None


_XML_TYPES = frozenset({"text/xml", "application/xml"})
_JSON_TYPES = frozenset({"application/json", "text/json"})


def content_kind(content_type: str | None) -> str:
    """Blink's *DetermineContentType* for decoding: "html", "xml", "json" or "plain".

    No (or an unparsable) Content-Type counts as HTML: ``decode_html`` decodes HTML.

    >>> content_kind(None), content_kind("application/xhtml+xml"), content_kind("text/plain")
    ('html', 'xml', 'plain')
    """
    essence = essence_and_charset(content_type)[0]
    if essence is None or essence == "text/html":
        return "html"
    subtype = essence.partition("/")[2]
    if essence in _XML_TYPES or subtype.endswith("+xml"):
        return "xml"
    if essence in _JSON_TYPES or subtype.endswith("+json"):
        return "json"
    return "plain"


def browser_encoding(
    evidence: Evidence, bom: str | None, http_encoding: str | None, kind: str = "html",
) -> tuple[str, EncodingSource]:
    """What Chromium 156 shows (``document.characterSet``) and the step that decided it.

    Blink ``TextResourceDecoder``: BOM, then the header charset, then (HTML) the meta scan,
    which overrides an XML declaration (HTML and XML), then content sniffing (HTML and plain
    text: CED as Chromium calls it, :mod:`.ced`, else its emulation), where a UTF-8 verdict is
    thrown away on non-``file:`` URLs and the TLD default (else the locale default) applies.
    XML and JSON have no detection and default to UTF-8.
    """
    if bom is not None:
        return bom, "bom"
    if http_encoding is not None:
        return http_encoding, "header"
    if kind == "html":
        scan = evidence.scan()
        if scan is not None:
            return scan.encoding, ("meta" if scan.offset < BYTES_TO_CHECK_UNCONDITIONALLY else "late-meta")
    if kind in ("html", "xml"):
        xml = evidence.xml()
        if xml is not None and xml.encoding is not None:
            return xml.encoding, "xml"
    if kind in ("xml", "json"):
        return "UTF-8", "default"
    url = evidence.url
    default = tld_default(url, evidence.options.default_encoding)
    if ced.NATIVE:
        encoding, source, note = ced.chromium_sniff(evidence.body, url, default, kind)
    else:
        sample = evidence.sample()
        whole = len(sample) == len(evidence.body)  # then the standard policy's evidence is the same
        encoding, source, note = emulate_chromium_detection(
            evidence.body, evidence.tld, default, allow_utf8=ced.is_local(url),
            is_utf8=evidence.utf8().is_utf8 if whole and not sample.isascii() else None,
            guesses=lambda: (evidence.chardetng(), evidence.chardetng_generic()),
            sample=sample,
        )
    evidence.signals.append(Signal("browser-detection", None, encoding, note))
    return encoding, source


def _repair(evidence: Evidence, encoding: str, source: EncodingSource) -> tuple[str, EncodingSource]:
    if source not in DECLARED_SOURCES:
        return encoding, source
    body = evidence.body
    if encoding in ("UTF-16LE", "UTF-16BE") and b"\x00" not in body[:_UTF16_NUL_WINDOW] and (
        body.isascii() or evidence.utf8().is_utf8
    ):
        # UTF-16 text of markup has a NUL in every other byte; none at all means the
        # declaration is wrong (a common server misconfiguration).
        evidence.signals.append(Signal(
            "repair", encoding, "UTF-8", f"declared {encoding} but no NUL byte in the first {_UTF16_NUL_WINDOW} bytes",
        ))
        return "UTF-8", "repair-utf8"
    if body.isascii():
        return encoding, source
    check = evidence.utf8()
    if encoding != "UTF-8":
        # A legacy (or UTF-16) declaration on a body of valid multi-byte UTF-8: the chance that
        # legacy text forms only valid UTF-8 sequences is negligible.
        if check.is_utf8 and check.errors <= int(check.truncated_at_end) and check.multibyte >= REPAIR_MIN_MULTIBYTE:
            evidence.signals.append(Signal(
                "repair", encoding, "UTF-8",
                f"declared {encoding} but the body is valid UTF-8 ({check.multibyte} multi-byte sequences)",
            ))
            return "UTF-8", "repair-utf8"
        contradicting = _contradicting_guess(evidence, encoding) if source != "rule" else None
        if contradicting is not None:
            evidence.signals.append(Signal(
                "repair", encoding, contradicting,
                f"declared {encoding} but the bytes read as it are mojibake and read cleanly as "
                f"{contradicting} (the detector's confident answer)",
            ))
            return contradicting, "repair-detected"
        return encoding, source
    # A UTF-8 declaration on bytes that are mostly malformed as UTF-8.
    if not check.is_utf8 and check.errors > check.multibyte:
        guess = evidence.guess()
        if guess is not None and guess.encoding != "UTF-8":
            evidence.signals.append(Signal(
                "repair", encoding, guess.encoding,
                f"declared UTF-8 but {check.errors} malformed sequences vs {check.multibyte} valid",
            ))
            return guess.encoding, "repair-detected"
    return encoding, source


def _contradicting_guess(evidence: Evidence, declared: str) -> str | None:
    """The detector's answer when the bytes contradict a legacy declaration as plainly as
    valid UTF-8 would: read as declared they score as mojibake, the detector is confident of
    another encoding, which reads them without a malformed sequence and below the mojibake
    threshold, and they hold at least :data:`REPAIR_MIN_NON_ASCII` non-ASCII bytes. (An
    operator's rule is never second-guessed: the caller leaves ``rule`` decisions alone.)"""
    guess = evidence.guess()
    if guess is None or not guess.confident or guess.encoding == declared:
        return None
    sample = evidence.sample()
    if len(sample.translate(None, _ASCII_BYTES)) < REPAIR_MIN_NON_ASCII:
        return None
    if mojibake_score(decode(sample, declared).text, declared) <= MOJIBAKE_THRESHOLD:
        return None
    as_guessed = decode(sample, guess.encoding)
    # (a sample cut from a longer body may end inside a character)
    if as_guessed.decode_errors > int(len(sample) < len(evidence.body)):
        return None
    if mojibake_score(as_guessed.text, guess.encoding) > MOJIBAKE_THRESHOLD:
        return None
    return guess.encoding
