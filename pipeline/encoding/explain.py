"""A decision told step by step, for ``redecode decode``: each signal, which step won, and why;
then the browser view (what Chromium shows) as the steps Chromium takes.

>>> from pipeline.encoding.api import decode_html
>>> print(explain_text(decode_html(b"<meta charset=koi8-r>", "text/html; charset=utf-8")))
encoding: UTF-8 (header, confidence certain, policy standard)
browser:  UTF-8 (header)
decoded:  21 characters, 0 U+FFFD, 0 decode errors
signals:
  - http-charset: 'utf-8' -> UTF-8  <- decided
  - meta-prescan: 'koi8-r' -> KOI8-R  (meta-charset at byte 0)
why: the HTTP Content-Type charset is a WHATWG label: the transport layer wins over everything but a BOM.
browser view (Chromium 156), step by step:
  1. byte order mark: none
  2. HTTP charset: 'utf-8' -> UTF-8  <- decides
"""

from __future__ import annotations

from typing import Any

from pipeline.encoding.decision import SOURCE_SIGNALS, Decoded, Signal

_WHY: dict[str, str] = {
    "bom": "a byte order mark wins over everything (Encoding Standard, BOM sniff).",
    "header": "the HTTP Content-Type charset is a WHATWG label: the transport layer wins over everything but a BOM.",
    "meta": "no BOM and no usable header charset; the <meta> in the first 1024 bytes decides (HTML prescan).",
    "xml": "no BOM, header or <meta>; the XML declaration decides (Chromium honours it in text/html).",
    "late-meta": "a <meta> after the first 1024 bytes, still inside <head>, changes the encoding (as Chromium does).",
    "rule": "an operator rule matched this URL.",
    "utf8": "nothing declared, and the bytes are UTF-8 (all, or all but a few sequences).",
    "detected": "nothing declared and not UTF-8: statistical detection with the URL's TLD as a hint.",
    "default": "nothing to go on: the TLD's browser default (else windows-1252).",
    "repair-utf8": "the declaration lies: the body is valid multi-byte UTF-8 (repair policy).",
    "repair-detected": "the UTF-8 declaration lies: most of the body is malformed as UTF-8 (repair policy).",
}


def _winner(decoded: Decoded) -> Signal | None:
    decision = decoded.decision
    for kind in SOURCE_SIGNALS.get(decision.encoding_source, ()):
        for signal in decision.signals:
            if signal.kind == kind and signal.encoding == decision.encoding:
                return signal
    return None


# The browser's steps in Blink's order (TextResourceDecoder), with the decision source each
# one produces when it decides.
_BROWSER_STEPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("byte order mark", ("bom",)),
    ("HTTP charset", ("header",)),
    ("<meta> (Chromium's tokenizer scan, in <head>)", ("meta", "late-meta")),
    ("XML declaration", ("xml",)),
    ("content sniffing (CED with the URL as its only hint; UTF-8 answers discarded)", ("detected", "default")),
)


def browser_steps(decoded: Decoded) -> list[str]:
    """The browser view as the steps Chromium takes, up to the one that decided.

    Each step says what it found; the deciding step is marked. Content sniffing, when
    reached, carries CED's answer and how Blink reads it (:mod:`pipeline.encoding.sniff.ced`),
    or without CED the emulation's account (pairs scored, the TLD prior's weight, the top
    candidates' scores, :mod:`pipeline.encoding.sniff.browser_detect`).
    """
    decision = decoded.decision
    found: dict[str, list[Signal]] = {}
    for signal in decision.signals:
        found.setdefault(signal.kind, []).append(signal)
    lines = []
    for number, (title, sources) in enumerate(_BROWSER_STEPS, 1):
        decides = decision.encoding_browser_source in sources
        seen = _browser_step_finding(number, found, decision.bom, decision.http_charset)
        mark = "  <- decides" if decides else ""
        lines.append(f"{number}. {title}: {seen}{mark}")
        if decides:
            break
    return lines


def _browser_step_finding(number: int, found: dict[str, list[Signal]], bom: str | None, http: str | None) -> str:
    if number == 1:
        return f"{bom}" if bom else "none"
    if number == 2:
        signal = found.get("http-charset", [None])[0]
        if signal is None:
            return "none"
        return f"{signal.label!r} -> {signal.encoding}" if signal.encoding else f"{signal.label!r}: not a WHATWG label, ignored"
    if number == 3:
        scans = found.get("meta-scan")
        return f"{scans[0].label!r} -> {scans[0].encoding} ({scans[0].note})" if scans else "none"
    if number == 4:
        xml = found.get("xml-declaration")
        if not xml:
            return "none"
        return f"{xml[0].label!r} -> {xml[0].encoding}" if xml[0].encoding else f"{xml[0].label!r}: ignored"
    detection = found.get("browser-detection")
    if not detection:
        return "not reached (this content type has no detection: UTF-8)"
    return f"{detection[0].encoding}: {detection[0].note}"


def explain(decoded: Decoded) -> dict[str, Any]:
    """The decision as a JSON-ready dict: result, every signal (the winner marked), the reason."""
    decision = decoded.decision
    winner = _winner(decoded)
    return {
        "encoding": decision.encoding,
        "encoding_source": decision.encoding_source,
        "confidence": decision.confidence,
        "policy": decision.policy,
        "encoding_browser": decision.encoding_browser,
        "encoding_browser_source": decision.encoding_browser_source,
        "http_charset": decision.http_charset,
        "meta_charset": decision.meta_charset,
        "bom": decision.bom,
        "text_length": len(decoded.text),
        "replacement_chars": decoded.replacement_chars,
        "decode_errors": decoded.decode_errors,
        "signals": [
            {
                "kind": signal.kind,
                "label": signal.label,
                "encoding": signal.encoding,
                "note": signal.note,
                "decided": signal is winner,
            }
            for signal in decision.signals
        ],
        "why": _WHY.get(decision.encoding_source, ""),
        "browser_steps": browser_steps(decoded),
    }


def explain_text(decoded: Decoded) -> str:
    """The decision as readable lines (what ``redecode decode`` prints without ``--json``)."""
    info = explain(decoded)
    lines = [
        f"encoding: {info['encoding']} ({info['encoding_source']}, confidence {info['confidence']}, policy {info['policy']})",
        f"browser:  {info['encoding_browser']} ({info['encoding_browser_source']})",
        f"decoded:  {info['text_length']} characters, {info['replacement_chars']} U+FFFD, "
        f"{info['decode_errors']} decode errors",
        "signals:" if info["signals"] else "signals:  none",
    ]
    for signal in info["signals"]:
        label = "" if signal["label"] is None else f"{signal['label']!r} "
        target = signal["encoding"] or "(no encoding)"
        note = f"  ({signal['note']})" if signal["note"] else ""
        mark = "  <- decided" if signal["decided"] else ""
        lines.append(f"  - {signal['kind']}: {label}-> {target}{mark}{note}")
    lines.append(f"why: {info['why']}")
    lines.append("browser view (Chromium 156), step by step:")
    lines.extend(f"  {step}" for step in info["browser_steps"])
    return "\n".join(lines)
