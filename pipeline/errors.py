"""Record-level failures and skips as values (never exceptions): each becomes an ``errors`` row
or a skip count, so that records seen = written + skipped + errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: "sink" is the runner's own row building and writing; "runner" a file the runner could not
#: process at all (its worker process died twice while reading it).
Stage = Literal["source", "http", "encoding", "extract", "sink", "runner"]


@dataclass(frozen=True, slots=True)
class RecordError:
    """A record (or a whole input file) that failed a stage.

    ``error_type`` is kebab-case and names the stage ("http-content-encoding-failed",
    "source-unreadable-file", ...). ``offset`` is the record's offset in its file, or None
    for a whole-file failure.
    """

    stage: Stage
    error_type: str
    message: str
    warc_filename: str
    offset: int | None = None
    record_id: str | None = None


@dataclass(frozen=True, slots=True)
class Skip:
    """A record that is deliberately not decoded, with the reason (a kebab-case word)."""

    reason: str  # "request", "revisit", "metadata", "warcinfo", "non-text-mime", "http-status", ...
