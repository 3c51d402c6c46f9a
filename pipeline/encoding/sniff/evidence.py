"""The evidence the decision draws on, gathered lazily and recorded as signals as it is found.

Each finding is computed at most once per document (the ``standard`` and ``browser`` answers
share them) and only when a step needs it: a page with a header charset never runs the
late-meta scan, the UTF-8 check or a detector.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.encoding.decision import Signal
from pipeline.encoding.options import EncodingOptions, Override
from pipeline.encoding.sniff.detect import (
    Guess,
    chardetng_guesses,
    charset_normalizer_guess,
    detector_sample,
    refine_cyrillic,
)
from pipeline.encoding.sniff.late_meta import MetaScanResult, scan_meta_charset
from pipeline.encoding.sniff.latin import refine_latin
from pipeline.encoding.sniff.prescan import PrescanResult, prescan_byte_stream
from pipeline.encoding.sniff.utf8 import Utf8Check, check_utf8
from pipeline.encoding.sniff.xml_declaration import XmlDeclaration, check_xml_declaration
from pipeline.urlhost import url_host, url_tld

# The bytes where KOI8-U has Ukrainian letters and KOI8-R box drawing.
_KOI8_U_ONLY = (b"\xa4", b"\xa6", b"\xa7", b"\xad", b"\xb4", b"\xb6", b"\xb7", b"\xbd")


@dataclass(slots=True)
class Evidence:
    """Evidence about one body, gathered lazily (a declared page never pays for detection);
    every finding is appended to ``signals`` as it is made."""

    body: bytes
    url: str | None
    options: EncodingOptions
    signals: list[Signal] = field(default_factory=list)
    _prescan: PrescanResult | None | bool = False
    _scan: MetaScanResult | None | bool = False
    _xml: XmlDeclaration | None | bool = False
    _utf8: Utf8Check | None = None
    _guesses: dict[str, Guess | None] = field(default_factory=dict)
    _sample: bytes | None = None

    @property
    def tld(self) -> str | None:
        return url_tld(self.url)

    def prescan(self) -> PrescanResult | None:
        if self._prescan is False:
            self._prescan = prescan_byte_stream(self.body)
            found = self._prescan
            if found is not None:
                self.signals.append(Signal(
                    "meta-prescan" if found.kind.startswith("meta") else "xml-prescan",
                    found.label, found.encoding, f"{found.kind} at byte {found.offset}",
                ))
        return self._prescan  # type: ignore[return-value]

    def scan(self) -> MetaScanResult | None:
        if self._scan is False:
            self._scan = scan_meta_charset(self.body)
            found = self._scan
            if found is not None:
                where = "in <head>" if found.in_head else "within the first 1024 bytes"
                self.signals.append(Signal(
                    "meta-scan", found.label, found.encoding,
                    f"{found.kind} at byte {found.offset}, {where} (Chromium's meta scan)",
                ))
        return self._scan  # type: ignore[return-value]

    def xml(self) -> XmlDeclaration | None:
        if self._xml is False:
            self._xml = check_xml_declaration(self.body)
            found = self._xml
            if found is not None:
                note = found.kind if found.encoding else "not a WHATWG label: ignored"
                self.signals.append(Signal("xml-declaration", found.label, found.encoding, note))
        return self._xml  # type: ignore[return-value]

    def utf8(self) -> Utf8Check:
        if self._utf8 is None:
            self._utf8 = check_utf8(self.body)
            check = self._utf8
            note = (
                f"valid={check.is_utf8}, multibyte={check.multibyte}, errors={check.errors}"
                + (", truncated at end" if check.truncated_at_end else "")
            )
            self.signals.append(Signal("utf8-check", None, "UTF-8" if check.is_utf8 else None, note))
        return self._utf8

    def sample(self) -> bytes:
        """The bytes the detectors see (:func:`.detect.detector_sample`)."""
        if self._sample is None:
            self._sample = detector_sample(self.body, self.options.detector_max_bytes)
        return self._sample

    def chardetng(self) -> Guess | None:
        """chardetng's answer on the detector sample (TLD hint, no UTF-8), run once."""
        if "chardetng" not in self._guesses:
            sample = self.sample()
            self._guesses["chardetng"], self._guesses["chardetng-generic"] = chardetng_guesses(
                sample, (self.tld, None), allow_utf8=False, last=len(sample) == len(self.body),
            )
        return self._guesses["chardetng"]

    def chardetng_generic(self) -> Guess | None:
        """chardetng's answer on the same sample without the TLD hint (same pass)."""
        self.chardetng()
        return self._guesses["chardetng-generic"]

    def guess(self) -> Guess | None:
        """The standard policy's detector answer: chardetng, refined, with a second opinion."""
        if "standard" not in self._guesses:
            sample = self.sample()
            guess = self.chardetng()
            if guess is not None:
                note = "confident" if guess.confident else "weak: no candidate scored lower"
                self.signals.append(Signal("detector", "chardetng", guess.encoding, note))
                refined = refine_cyrillic(sample, guess.encoding)
                if refined == "KOI8-U" and not any(byte in self.body for byte in _KOI8_U_ONLY):
                    # chardetng names the KOI8 family KOI8-U; without a byte where KOI8-U and
                    # KOI8-R differ, the text is the same, and KOI8-R is what pages declare
                    # and what Chromium shows.
                    refined = "KOI8-R"
                if refined != guess.encoding:
                    self.signals.append(Signal(
                        "detector-refined", guess.encoding, refined,
                        "no byte where KOI8-U and KOI8-R differ" if refined == "KOI8-R"
                        else "the Mac Cyrillic reading is cleaner Cyrillic (chardetng has no x-mac-cyrillic)",
                    ))
                    guess = Guess(refined, guess.confident)
                latin = refine_latin(sample, guess.encoding)
                if latin is not None:
                    self.signals.append(Signal(
                        "detector-refined", guess.encoding, latin[0],
                        f"reads as other text, and better {latin[1]}, than chardetng's answer "
                        "(chardetng has no ISO-8859-3/4/10/15/16 and reads ISO-8859-13 as windows-1257)",
                    ))
                    guess = Guess(latin[0], guess.confident)
            self._guesses["standard"] = guess
            if self.options.second_opinion:
                second = charset_normalizer_guess(sample)
                self.signals.append(Signal(
                    "detector-second-opinion", "charset-normalizer", second,
                    "agrees" if guess is not None and second == guess.encoding else "differs",
                ))
        return self._guesses["standard"]


def match_override(overrides: tuple[Override, ...], url: str | None) -> Override | None:
    """The first operator override whose host (or a parent domain) or URL prefix matches.

    >>> rule = Override("Shift_JIS", host="example.jp")
    >>> match_override((rule,), "http://www.example.jp/a") is rule
    True
    >>> match_override((rule,), "http://notexample.jp/") is None
    True
    """
    index = override_index(overrides, url)
    return None if index is None else overrides[index]


def override_index(overrides: tuple[Override, ...], url: str | None) -> int | None:
    """The index of :func:`match_override`'s override in ``overrides`` (the first that
    matches; equal rules are told apart), else None.

    >>> rules = (Override("EUC-JP", host="other.jp"), Override("Shift_JIS", host="example.jp"))
    >>> override_index(rules, "http://www.example.jp/a")
    1
    >>> override_index(rules + rules, "http://other.jp/")
    0
    """
    if not overrides or not url:
        return None
    host = url_host(url) or ""
    for index, override in enumerate(overrides):
        if override.url_prefix is not None and url.startswith(override.url_prefix):
            return index
        if override.host is not None:
            wanted = override.host.lower().rstrip(".")
            if host == wanted or host.endswith("." + wanted):
                return index
    return None


def meta_label(evidence: Evidence) -> str | None:
    """The in-document label as seen: prescan, else Chromium's scan, else the XML declaration."""
    for found in (evidence._prescan, evidence._scan, evidence._xml):
        if found not in (None, False):
            return found.label  # type: ignore[union-attr]
    return None
