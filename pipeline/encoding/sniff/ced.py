"""Chromium's content sniffing with Chromium's own detector: Compact Encoding Detection (CED),
called as Blink calls it.

``pipeline.native.ced`` (``pipeline/encoding/_ced.cpp``) is google/compact_enc_det compiled
by ``setup.py`` with the defines of Chromium's ``third_party/ced/BUILD.gn`` (``HTML5_MODE``; Chromium's
``README.chromium`` lists no local modification). This module makes the call that Blink makes
and reads the answer as Blink reads it:

``TextResourceDecoder::AutoDetectEncodingIfAllowed`` (``core/html/parser/text_resource_decoder.cc``)
runs when nothing declared the encoding (the source is still the default encoding) and hands
the bytes of the chunk being decoded to ``blink::DetectTextEncoding``
(``platform/text/text_encoding_detector.cc``), which calls::

    CompactEncDet::DetectEncoding(
        bytes, size,
        hint_url.GetString().Ascii().c_str(),   // the page URL: CED takes the TLD from it
        nullptr, nullptr,                       // no HTTP or <meta> charset hint
        EncodingNameAliasToEncoding(hint_encoding_name),  // "" for a top-level page: none
        language,                               // UNKNOWN_LANGUAGE unless a local resource
        CompactEncDet::WEB_CORPUS,
        false,                                  // 7-bit encodings included (for ISO-2022-JP)
        &consumed_bytes, &is_reliable);

``is_reliable`` is not looked at. ``UNKNOWN_ENCODING`` leaves detection unfinished (the default
encoding stays); otherwise the answer becomes ``TextEncoding(MimeEncodingName(encoding))``,
and ``DetectTextEncoding`` returns false (the default encoding stays) for UTF-8 on anything but
a local resource (``file:``). ``SetEncoding`` keeps the default when the name is no encoding
Blink knows (its table is the WHATWG one: ``csn_369103``, ``x-binaryenc``, ...). The
``language`` hint is the user's language (``--lang=en-US``: English) for local resources only
("do not use language hint ... more deterministic encoding detection results across
devices"). The default encoding is the TLD's (``text_resource_decoder_builder.cc``), else
the locale's (:mod:`.tld_defaults`).

Measured on Chromium 156 (``../shared/oracle``), beyond what the sources above say:

- **ISO-2022-JP is not taken from detection in HTML**: CED answers ISO-2022-JP for 308 pages of
  ``tests/browser_view``, and Chromium shows the default encoding for 307 of them; the same
  bytes served as ``text/plain`` show ISO-2022-JP. This is Chromium's "Remove auto-detection
  of ISO-2022-JP charset in HTML" (chromestatus feature 6576566521561088).
- **The bytes CED is given are the first 1 MiB of the body** (:data:`FIRST_CHUNK_BYTES`): on
  40 pages of 1.3 MB whose CED answer changes within a few KB of that point, Chromium's
  answer is CED's on exactly the first 1,048,576 bytes on 40 of 40 (on 1,048,000 bytes, 33;
  on 1,049,200, 28). The body reaches Blink as one chunk when it arrives at once; a page
  whose bytes reach Chromium in pieces is detected on its first piece, which no archive
  records. Of the 20,302 oracle pages, 5 (22-80 KB) show an answer CED gives on a shorter
  prefix, some of them only on some loads (``docs/sniffing.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

import ada_url

from pipeline.encoding.decision import EncodingSource
from pipeline.encoding.lookup import get_an_encoding
from pipeline.native import ced as detector

#: CED's own version string (``CompactEncDet::Version()``).
CED_VERSION = detector.CED_VERSION
#: How much of the body CED is given: Blink's first chunk, measured at 1 MiB (module docs).
FIRST_CHUNK_BYTES = 1 << 20
#: ``hint_user_language`` for local resources: the UI language Chromium runs with (en-US, the
#: locale whose default encoding is :data:`.tld_defaults.DEFAULT_ENCODING`).
USER_LANGUAGE = "en"
#: ``url::GetLocalSchemes()`` on Linux: the resources whose UTF-8 answers are kept.
LOCAL_SCHEMES = ("file",)
#: The answers a Blink ``text/html`` decoder does not take from detection (module docs).
NOT_FROM_DETECTION_IN_HTML = frozenset({"ISO-2022-JP"})


@dataclass(frozen=True, slots=True)
class CedAnswer:
    """What ``CompactEncDet::DetectEncoding`` returned."""

    #: ``MimeEncodingName`` of the answer (what Blink looks up), e.g. ``windows-1251``.
    mime_name: str
    #: CED's own name of it (``EncodingName``), e.g. ``CP1251``, ``UTF8``, ``JIS``.
    name: str
    is_reliable: bool
    bytes_consumed: int


def url_hint(url: str | None) -> str:
    """The URL as ``KURL::GetString()`` spells it (WHATWG-serialized: host lowercased,
    IDNA applied), which is what CED takes the TLD from; ``""`` without a URL.

    >>> url_hint("HTTP://WWW.Example.JP/a b")
    'http://www.example.jp/a%20b'
    """
    if not url:
        return ""
    try:
        return str(ada_url.URL(url).href)
    except ValueError:
        return url


def is_local(url: str | None) -> bool:
    """Whether Blink treats ``url`` as a local resource (``url::GetLocalSchemes()``)."""
    return bool(url) and url.partition(":")[0].strip().lower() in LOCAL_SCHEMES  # type: ignore[union-attr]


def detect_encoding(body: bytes, url: str | None, limit: int = FIRST_CHUNK_BYTES) -> CedAnswer:
    """``CompactEncDet::DetectEncoding`` called as ``blink::DetectTextEncoding`` calls it, on
    the bytes Blink gives it (the first ``limit``: :data:`FIRST_CHUNK_BYTES`)."""
    language = USER_LANGUAGE if is_local(url) else None
    mime_name, name, reliable, consumed = detector.detect(
        memoryview(body)[:limit], url_hint(url), None, None, "", language, detector.WEB_CORPUS, False,
    )
    return CedAnswer(mime_name, name, reliable, consumed)


def chromium_sniff(body: bytes, url: str | None, default: str, kind: str = "html") -> tuple[str, EncodingSource, str]:
    """(encoding, source, note): what Blink's content sniffing leaves a ``kind`` document
    (``html`` or ``plain``, :func:`.algorithm.content_kind`) at ``url`` with, whose default
    encoding is ``default`` (the TLD's, else the locale's); the cases are in
    ``tests/unit/test_ced.py``.
    """
    answer = detect_encoding(body, url)
    said = f"CED answers {answer.name} ({answer.mime_name}{', reliable' if answer.is_reliable else ''})"
    if answer.name == "Unknown":
        return default, "default", f"{said}: no detection; the default encoding stays, {default}"
    if answer.name == "UTF8" and not is_local(url):
        return default, "default", f"{said}: Chromium discards UTF-8 from detection; the default encoding stays, {default}"
    encoding = get_an_encoding(answer.mime_name)
    if encoding is None:
        return default, "default", f"{said}: not an encoding Blink knows; the default encoding stays, {default}"
    if encoding in NOT_FROM_DETECTION_IN_HTML and kind == "html":
        return default, "default", f"{said}: not taken from detection in HTML; the default encoding stays, {default}"
    if answer.name == "ASCII-7-bit":
        return encoding, "default", f"{said}: 7-bit bytes (also HZ, UTF-7, ISO-2022-KR/CN in HTML5 mode) read as {encoding}"
    return encoding, "detected", said
