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

#: What a sniffing step records (:class:`Signal`'s ``kind``), in the order the steps run:
#: the BOM, the transport layer and the crawler's verdict, an operator rule, the prescan
#: (a ``<meta>`` or an XML declaration in the first 1024 bytes), Chromium's meta scan, the
#: XML declaration, the project's checks and detectors, the browser view's detection, the
#: repair policy, and an internal error (the decision fell back to the browser default).
SignalKind = Literal[
    "bom", "http-charset", "crawler-charset", "rule", "meta-prescan", "xml-prescan",
    "meta-scan", "xml-declaration", "utf16-pattern", "iso-2022-jp-escapes", "ascii",
    "utf8-check", "malformed-meta", "detector", "detector-refined", "detector-second-opinion",
    "tld-default", "browser-detection", "repair", "internal-error",
]

#: The sources that are a declaration: of the server (``header``), of the page (``meta``,
#: ``xml``, ``late-meta``) or of the operator (``rule``). The repair policy overrides only
#: these, and a page report offers another reading only of these.
DECLARED_SOURCES: frozenset[EncodingSource] = frozenset({"header", "meta", "xml", "late-meta", "rule"})

#: The signal kinds each source is decided from (the winning signal of a decision is one of
#: its source's kinds with the decision's encoding).
SOURCE_SIGNALS: dict[EncodingSource, tuple[SignalKind, ...]] = {
    "bom": ("bom",),
    "header": ("http-charset",),
    "meta": ("meta-prescan", "meta-scan"),
    "xml": ("xml-prescan", "xml-declaration"),
    "late-meta": ("meta-scan",),
    "rule": ("rule",),
    "utf8": ("utf8-check",),
    "detected": ("detector-refined", "detector", "malformed-meta", "utf16-pattern",
                 "iso-2022-jp-escapes", "browser-detection"),
    "default": ("tld-default", "ascii", "browser-detection"),
    "repair-utf8": ("repair",),
    "repair-detected": ("repair",),
}

#: The signal kinds that carry a declaration made by the server or the page (not the
#: operator's rules): two of them naming different encodings are a ``declared_conflict``.
DECLARING_SIGNALS: frozenset[SignalKind] = frozenset(
    kind for source in ("header", "meta", "xml", "late-meta") for kind in SOURCE_SIGNALS[source])


@dataclass(frozen=True, slots=True)
class Signal:
    """One thing a sniffing step saw, whether or not it won.

    ``kind`` names the step (:data:`SignalKind`); ``label`` is what was seen verbatim;
    ``encoding`` its WHATWG name (None when the label is unknown); ``note`` says more.
    """

    kind: SignalKind
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
    #: The index of the operator's ``[[encoding.override]]`` that matched the URL (the
    #: first that matches; a ``fallback`` rule matches a page that declares its charset
    #: without deciding it), None when none did.
    override: int | None = None
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
