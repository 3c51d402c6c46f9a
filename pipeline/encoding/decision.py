"""The encoding decision and the decoded document: the boundary between ``encoding`` and ``extract``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: Which step decided (DESIGN.md "Encoding decision"). "repair-utf8" is the repair policy
#: overriding a declaration on overwhelming evidence that the body is UTF-8; "repair-detected"
#: overriding a UTF-8 declaration on a body that is not UTF-8 at all (the detector's answer).
EncodingSource = Literal[
    "bom", "header", "meta", "xml", "late-meta", "rule", "utf8", "detected", "default",
    "repair-utf8", "repair-detected",
]
Policy = Literal["standard", "browser", "repair"]
#: The HTML Standard's confidence terms.
Confidence = Literal["certain", "tentative", "irrelevant"]
#: What says what the bytes alone are (``EncodingDecision.bytes_evidence``): "utf8" valid
#: multi-byte UTF-8 and "pattern" a byte pattern that admits one reading (BOM-less UTF-16's
#: NULs, ISO-2022-JP's escapes) are certain; "detector" is the statistical detector's answer,
#: as strong as the non-ASCII bytes it read (``bytes_weight``), "detector-weak" an answer the
#: detector itself marks weak (chardetng's ``guess_assess``).
BytesEvidence = Literal["utf8", "pattern", "detector", "detector-weak"]


@dataclass(frozen=True, slots=True)
class Signal:
    """One thing a sniffing step saw, whether or not it won.

    ``kind`` is a kebab-case step name ("bom", "http-charset", "meta-prescan", "xml-declaration",
    "late-meta", "rule", "utf8-check", "detector", "detector-second-opinion", "tld-default",
    "crawler-charset", "malformed-meta", ...); ``label`` is what was seen verbatim;
    ``encoding`` its WHATWG name (None when the label is unknown); ``note`` says more.
    """

    kind: str
    label: str | None
    encoding: str | None
    note: str = ""


@dataclass(frozen=True, slots=True)
class EncodingDecision:
    """What encoding a document is decoded with, which step decided, and every signal seen."""

    encoding: str  # WHATWG name, e.g. "UTF-8", "Shift_JIS", "windows-1252", "replacement"
    encoding_source: EncodingSource
    encoding_browser: str  # what Chromium shows, whatever the policy
    encoding_browser_source: EncodingSource
    confidence: Confidence
    policy: Policy
    http_charset: str | None  # the header's charset label as seen
    meta_charset: str | None  # the in-document label as seen (meta / xml / late-meta)
    bom: str | None  # "UTF-8", "UTF-16LE", "UTF-16BE" or None
    signals: tuple[Signal, ...]
    #: The encoding the page's own declarations give (header, else the in-document ones, in
    #: the standard order), whether or not it won; None when it declares none (or has a BOM).
    declared: str | None = None
    #: What the bytes alone decode as, declarations and rules left out: the standard
    #: policy's undeclared steps (UTF-16 pattern, ISO-2022-JP escapes, the UTF-8 check, the
    #: detector); None for a BOM or for ASCII-only bytes (every ASCII-compatible encoding
    #: reads them alike). The evidence operator rules are proposed from.
    bytes_encoding: str | None = None
    bytes_evidence: BytesEvidence | None = None
    #: the non-ASCII bytes the detector read (None unless ``bytes_evidence`` is the detector's)
    bytes_weight: int | None = None
    #: the other single-byte encodings that read the body exactly as ``bytes_encoding`` does
    bytes_alike: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Decoded:
    """A decoded document (``pipeline.decode_html``'s result)."""

    text: str
    decision: EncodingDecision
    replacement_chars: int  # U+FFFD in ``text``
    decode_errors: int  # malformed sequences the decoder replaced
    #: ``text`` as UTF-8 when the decoded bytes were exactly that (UTF-8, no errors, BOM
    #: stripped): the parser takes UTF-8, and encoding the text again would cost as much as
    #: decoding it did. None otherwise.
    utf8: bytes | None = None

    # Flat accessors: the public API promises these attribute names.
    @property
    def encoding(self) -> str:
        return self.decision.encoding

    @property
    def encoding_source(self) -> str:
        return self.decision.encoding_source

    @property
    def encoding_browser(self) -> str:
        return self.decision.encoding_browser

    @property
    def http_charset(self) -> str | None:
        return self.decision.http_charset

    @property
    def meta_charset(self) -> str | None:
        return self.decision.meta_charset

    @property
    def bom(self) -> str | None:
        return self.decision.bom
