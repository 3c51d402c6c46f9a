"""Options of the encoding stage (built from the rules file by ``pipeline.rules``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class Override:
    """An operator's encoding for a host or a URL prefix.

    ``mode="fallback"`` applies only when the page declares nothing (no BOM, header or
    in-document declaration); ``mode="force"`` wins over declarations (never over a BOM).
    ``host`` matches the host and its subdomains; ``url_prefix`` a literal URL prefix.
    """

    encoding: str  # any WHATWG label; resolved when the rules are loaded
    host: str | None = None
    url_prefix: str | None = None
    mode: Literal["fallback", "force"] = "fallback"


@dataclass(frozen=True, slots=True)
class EncodingOptions:
    """Everything the encoding stage can be told."""

    policy: Literal["standard", "browser", "repair"] = "standard"
    overrides: tuple[Override, ...] = ()
    # Run a second detector (charset-normalizer) on undeclared pages and record it as a signal.
    second_opinion: bool = False
    # Bytes handed to the statistical detector (it gains little past this).
    detector_max_bytes: int = 65536
    # UI-locale stand-in for Chromium's fallback when the TLD says nothing.
    default_encoding: str = "windows-1252"

    def __post_init__(self) -> None:
        # A bad option is a configuration error, raised when the rules file is loaded.
        if self.detector_max_bytes < 1:
            raise ValueError("EncodingOptions.detector_max_bytes must be >= 1")
