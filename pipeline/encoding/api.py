"""The stable public API of the encoding stage: :func:`decode_html`, :func:`decide`, :func:`decode_bytes`.

>>> d = decode_html(b"<meta charset=koi8-r><p>\\xf0\\xd2\\xc9\\xd7\\xc5\\xd4")
>>> d.text[-6:], d.encoding, d.encoding_source, d.encoding_browser
('Привет', 'KOI8-R', 'meta', 'KOI8-R')
>>> decode_html(b"\\xef\\xbb\\xbfhi", "text/html; charset=latin1").text   # BOM wins, stripped
'hi'
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pipeline.encoding.decision import Decoded, EncodingDecision
from pipeline.encoding.decoders import decode, decode_bytes
from pipeline.encoding.options import EncodingOptions
from pipeline.encoding.sniff.algorithm import decide
from pipeline.encoding.sniff.bom import bom_sniff

__all__ = ["Decoded", "EncodingDecision", "EncodingOptions", "decide", "decode_bytes", "decode_html"]

_POLICIES = ("standard", "browser", "repair")


def options_from_rules(rules: Any) -> EncodingOptions:
    """The :class:`EncodingOptions` inside ``rules`` (None, an EncodingOptions, or an object
    with an ``.encoding`` EncodingOptions attribute, like the top-level Rules)."""
    if rules is None:
        return EncodingOptions()
    if isinstance(rules, EncodingOptions):
        return rules
    inner = getattr(rules, "encoding", None)
    if isinstance(inner, EncodingOptions):
        return inner
    raise TypeError(f"rules must be None, EncodingOptions or have an .encoding EncodingOptions, not {type(rules).__name__}")


def decode_html(
    body: bytes,
    content_type: str | None = None,
    url: str | None = None,
    *,
    policy: str | None = None,
    rules: Any = None,
    crawler_charset: str | None = None,
) -> Decoded:
    """Decide the encoding of an HTML response body and decode it, byte-exactly (WHATWG decoders).

    ``content_type`` is the HTTP ``Content-Type`` value, ``url`` the page URL (its TLD steers
    detection and the browser fallback), ``policy`` one of ``standard``, ``browser``,
    ``repair`` (None, the default: the policy of ``rules``, which is ``standard`` unless the rules
say otherwise); ``rules`` supplies operator overrides. ``crawler_charset`` (a WARC's
    ``WARC-Identified-Content-Charset``) is recorded as a signal only. A BOM is stripped when
    it decided the encoding. Never raises on any bytes; malformed sequences become U+FFFD,
    counted in ``decode_errors``.
    """
    options = options_from_rules(rules)
    if policy is None:
        policy = options.policy
    if policy not in _POLICIES:
        raise ValueError(f"policy must be one of {_POLICIES}, not {policy!r}")
    if options.policy != policy:
        options = dataclasses.replace(options, policy=policy)  # type: ignore[arg-type]
    body = bytes(body)
    decision = decide(body, content_type, url, options, crawler_charset=crawler_charset)
    payload = body
    if decision.bom is not None and decision.bom == decision.encoding:
        payload = body[bom_sniff(body)[1] :]
    result = decode(payload, decision.encoding)
    return Decoded(
        text=result.text,
        decision=decision,
        # (looking for one first: CPython finds U+FFFD with memchr, but counts it one
        # character at a time, ~20 µs in 70,000 characters of 2 or 4 bytes)
        replacement_chars=result.text.count("\ufffd") if "\ufffd" in result.text else 0,
        decode_errors=result.decode_errors,
        # UTF-8 decoding without errors is the identity on the bytes (a BOM left in the
        # payload would be text too: U+FEFF encodes back to the same three bytes)
        utf8=payload if decision.encoding == "UTF-8" and result.decode_errors == 0 else None,
    )
