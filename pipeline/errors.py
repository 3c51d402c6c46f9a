"""Record-level failures and skips as values (never exceptions): each becomes an ``errors`` row
or a skip count, so that records seen = written + skipped + errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

#: "sink" is the runner's own row building and writing; "runner" a file the runner could not
#: process at all (its worker process died twice while reading it).
Stage = Literal["source", "http", "encoding", "extract", "sink", "runner"]

#: Every ``errors.error_type``: kebab-case, starting with its stage (docs/sources.md,
#: docs/run.md and docs/schema.md say when each is written). ``<stage>-unexpected`` is a
#: bug in that stage (the exception is named in the message); ``extract-<part>-failed`` an
#: extraction part that failed while the record was still written.
ErrorType = Literal[
    # the reader (pipeline/sources/)
    "source-unreadable-file", "source-empty-file", "source-bad-zstd-dictionary",
    "source-invalid-record-header", "source-header-too-long", "source-bad-content-length",
    "source-gzip-corrupt", "source-zstd-corrupt", "source-lz4-corrupt", "source-bzip2-corrupt",
    "source-truncated-record", "source-not-a-gzip-member", "source-read-failed",
    "source-reader-failed", "source-cc-metadata-invalid", "source-missing-column",
    "source-bad-row", "source-page-too-large", "source-bad-locator", "source-metadata-too-large",
    "source-bad-list-row",
    # HTTP (pipeline/http/)
    "http-malformed-status-line", "http-content-encoding-failed",
    "http-content-encoding-unsupported", "http-decompressed-too-large", "http-parse-failed",
    "http-unexpected",
    # the encoding decision and the decoder
    "encoding-decision-failed", "encoding-unexpected",
    # extraction
    "extract-parse-failed", "extract-metadata-failed", "extract-links-failed",
    "extract-main-text-failed", "extract-language-failed", "extract-input-capped",
    "extract-unexpected",
    # the row and its part (pipeline/runners/parts.py)
    "sink-invalid-row", "sink-unexpected",
    # the runner: a file whose worker process died twice
    "runner-worker-died",
]
#: :data:`ErrorType` as a set, for checks at run time.
ERROR_TYPES: frozenset[str] = frozenset(get_args(ErrorType))


@dataclass(frozen=True, slots=True)
class RecordError:
    """A record (or a whole input file) that failed a stage.

    ``error_type`` is one of :data:`ErrorType` and names the stage
    ("http-content-encoding-failed", "source-unreadable-file", ...). ``offset`` is the
    record's offset in its file, or None for a whole-file failure; ``offset_in_member`` its
    offset inside the decompressed member at ``offset`` when it does not start that member
    (:class:`~pipeline.sources.record.RawRecord`'s field of that name).
    """

    stage: Stage
    error_type: ErrorType
    message: str
    warc_filename: str
    offset: int | None = None
    record_id: str | None = None
    offset_in_member: int | None = None
    #: the record's ``warc_record_length`` where a stage failed on a record read whole (the
    #: encoding, extraction and row stages: an incremental re-decode reads it back)
    length: int | None = None


@dataclass(frozen=True, slots=True)
class Skip:
    """A record that is deliberately not decoded, with the reason (a kebab-case word)."""

    reason: str  # "request", "revisit", "metadata", "warcinfo", "non-text-mime", "http-status", ...
