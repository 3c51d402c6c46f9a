"""Every output table's columns, declared once (writers never infer a schema).

Grains:
- ``records``: one row per HTTP response/resource record that was decoded.
- ``links``: one row per link found in a decoded record.
- ``runs``: one row per run.
- ``errors``: one row per record (or file) that failed a stage, and one per failed part of
  a record that was still written (``is_partial``).

Column names follow Common Crawl's columnar index where one fits (DESIGN.md); where our
value set differs from CC's, ``docs/schema.md`` says how.

Layout: ``<out>/<table>/run_id=<RUN>/part-<rank>.parquet``; ``run_id`` is also a column of
every part. A run id matches :data:`RUN_ID_PATTERN`, so that it is a safe path component and
reads back unchanged through DuckDB's hive partitioning (no ``/``, ``=``, ``%``, newline).
"""

from __future__ import annotations

import re

import pyarrow as pa

#: What a run id may be: letters, digits, ``-``, ``_`` and ``.``, not starting with a dot,
#: at most 128 characters.
RUN_ID_PATTERN = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")


def is_valid_run_id(run_id: str) -> bool:
    """Whether ``run_id`` matches :data:`RUN_ID_PATTERN` (the whole string).

    >>> is_valid_run_id("20261130T120000Z-1a2b3c4d"), is_valid_run_id("nightly.1")
    (True, True)
    >>> is_valid_run_id("a/b"), is_valid_run_id("a%2Fb"), is_valid_run_id(".hidden")
    (False, False, False)
    >>> is_valid_run_id("x=y"), is_valid_run_id("x\\n"), is_valid_run_id("")
    (False, False, False)
    """
    return RUN_ID_PATTERN.fullmatch(run_id) is not None


RECORDS = pa.schema(
    [
        ("run_id", pa.string()),
        ("record_id", pa.string()),
        ("warc_filename", pa.string()),
        ("warc_record_offset", pa.int64()),
        ("warc_record_length", pa.int64()),
        # NULL when the record is whole compressed members (or a plain file's bytes): then
        # offset and length are their byte range, as in Common Crawl's index. Else the
        # record shares a member (a whole-file gzip): offset is that member's, this the
        # record's offset in the member's decompressed bytes, length its uncompressed length
        # (docs/schema.md, "The locator").
        ("warc_record_offset_in_member", pa.int64()),
        ("url", pa.string()),
        # Common Crawl's SURT key of the URL ("com,example)/path?a=1&b=2": pipeline.urlkey)
        ("url_surtkey", pa.string()),
        ("url_host_name", pa.string()),
        ("url_host_tld", pa.string()),
        ("url_host_registered_domain", pa.string()),
        ("url_path", pa.string()),  # the URL Standard's path ("/a/b%20c")
        ("url_query", pa.string()),  # the query without "?"; NULL when none, "" for a bare "?"
        ("fetch_time", pa.timestamp("us", tz="UTC")),
        ("fetch_status", pa.int32()),
        # a 3xx response's Location resolved against the URL; NULL for other statuses
        ("fetch_redirect", pa.string()),
        # WARC-Payload-Digest as Common Crawl's index writes it (base32 SHA-1 without "sha1:")
        ("content_digest", pa.string()),
        ("content_mime_type", pa.string()),
        ("content_mime_detected", pa.string()),
        ("content_length", pa.int64()),
        ("content_truncated", pa.string()),
        # what the HTTP layer noticed about the stored response's framing (http.HttpNote),
        # comma-separated in the order met ("lf-only-header-lines,chunked-not-framed");
        # NULL when nothing was odd
        ("http_notes", pa.string()),
        ("content_charset", pa.string()),  # the crawler's charset (CC: content_charset)
        ("content_languages", pa.string()),
        ("http_charset", pa.string()),
        ("meta_charset", pa.string()),
        ("bom", pa.string()),
        ("encoding", pa.string()),
        ("encoding_source", pa.string()),
        ("encoding_browser", pa.string()),
        # the encoding the page's own declarations give (header, else in-document), won or not
        ("encoding_declared", pa.string()),
        # what the bytes alone decode as (UTF-8 check, byte patterns, the detector), and on
        # what: utf8 | pattern | detector | detector-weak; NULL for ASCII-only bytes or a BOM
        ("encoding_bytes", pa.string()),
        ("encoding_bytes_evidence", pa.string()),
        # the non-ASCII bytes the detector read (its evidence's weight); NULL for the others
        ("encoding_bytes_weight", pa.int64()),
        # the other single-byte encodings that read the body exactly as encoding_bytes does
        # (comma-separated); NULL when none
        ("encoding_bytes_alike", pa.string()),
        ("encoding_confidence", pa.string()),
        ("encoding_signals", pa.string()),  # JSON list of every signal seen
        # two declarations (header, <meta>, XML declaration) name different encodings
        # (decision.DECLARING_SIGNALS)
        ("declared_conflict", pa.bool_()),
        ("replacement_chars", pa.int64()),
        ("decode_errors", pa.int64()),
        ("mojibake_score", pa.float64()),
        ("naive_decode_garbled", pa.bool_()),
        ("text_length", pa.int64()),
        ("title", pa.string()),
        ("description", pa.string()),
        ("og_title", pa.string()),
        ("og_description", pa.string()),
        ("og_image", pa.string()),
        ("og_url", pa.string()),
        ("og_type", pa.string()),
        ("og_site_name", pa.string()),
        ("og_locale", pa.string()),
        ("twitter_card", pa.string()),
        ("twitter_title", pa.string()),
        ("twitter_description", pa.string()),
        ("twitter_image", pa.string()),
        ("canonical_url", pa.string()),
        ("lang", pa.string()),
        ("html_lang", pa.string()),
        ("lang_detected", pa.string()),
        ("main_text", pa.string()),
        ("main_text_length", pa.int64()),
        ("links_count", pa.int64()),
        ("links_dropped_count", pa.int64()),  # links past extract.max_links, not recorded (all kinds)
        # JSON object kind -> links past that kind's limit ({"resource": 12}); NULL when none
        ("links_dropped_by_kind", pa.string()),
        ("bad_url_count", pa.int64()),
        # JSON list of extraction parts that failed ("links: ValueError: ...", "parse: too-deep:
        # ..."); the record is still written with every field that did come out.
        ("extract_errors", pa.string()),
        ("rules_version", pa.string()),
    ]
)

LINKS = pa.schema(
    [
        ("run_id", pa.string()),
        ("record_id", pa.string()),
        ("url", pa.string()),
        ("target_url", pa.string()),
        ("anchor_text", pa.string()),
        ("rel", pa.string()),
        ("tag", pa.string()),  # the element's local name
        ("attr", pa.string()),  # the attribute; NULL for an element's content (style, script)
        # navigation, resource, form, refresh, metadata, css, script-string
        ("kind", pa.string()),
        ("internal", pa.bool_()),
        ("nofollow", pa.bool_()),
    ]
)

ERRORS = pa.schema(
    [
        ("run_id", pa.string()),
        ("warc_filename", pa.string()),
        ("warc_record_offset", pa.int64()),
        ("warc_record_offset_in_member", pa.int64()),  # as in records
        # as in records, for a record that failed once it was read whole (NULL otherwise)
        ("warc_record_length", pa.int64()),
        ("record_id", pa.string()),
        ("stage", pa.string()),  # "source", "http", "encoding", "extract", "sink", "runner"
        ("error_type", pa.string()),  # kebab-case code naming the stage, e.g. "http-content-encoding-failed"
        ("message", pa.string()),
        # true: a part failed but the record's row was still written (runs.partial_errors);
        # false: the record (or, offset NULL, the whole file) is lost (runs.errors).
        ("is_partial", pa.bool_()),
    ]
)

RUNS = pa.schema(
    [
        ("run_id", pa.string()),
        ("started_at", pa.timestamp("us", tz="UTC")),
        ("finished_at", pa.timestamp("us", tz="UTC")),
        ("pipeline_version", pa.string()),
        ("rules_version", pa.string()),
        # JSON: the code that made the rows (pipeline.provenance.code_identity): the pipeline's
        # version, what the build compiled in (Lexbor, ada, CED), each library whose answers
        # reach a row, the digest of the package's files
        ("code", pa.string()),
        ("rules_sha256", pa.string()),
        ("policy", pa.string()),
        ("inputs", pa.list_(pa.string())),
        ("files", pa.int64()),
        ("records_seen", pa.int64()),
        ("records_written", pa.int64()),
        ("records_skipped", pa.int64()),
        ("skipped_by_reason", pa.string()),  # JSON object reason -> count
        ("errors", pa.int64()),  # records lost (errors rows with is_partial false)
        ("partial_errors", pa.int64()),  # errors rows of records still written (is_partial)
        ("links_written", pa.int64()),
        ("bytes_read", pa.int64()),
        ("seconds", pa.float64()),
        ("invariant_ok", pa.bool_()),
        # an incremental re-decode (--base-run): the base run, the records whose rows were
        # copied from it and the records read and decoded again (NULL, 0, 0 otherwise)
        ("base_run", pa.string()),
        ("records_copied", pa.int64()),
        ("records_redecoded", pa.int64()),
        ("attempts_lost", pa.int64()),  # attempts thrown away and tried again (retries)
        ("executors_lost", pa.int64()),  # pool workers or Spark executors that died
        ("config", pa.string()),  # JSON: resolved config with the source of each value
        # what records.warc_filename is relative to (pipeline.sources.roots): an absolute
        # local path or a store's URL; NULL when the run's files have no root in common
        ("input_root", pa.string()),
    ]
)

#: Columns whose values rarely repeat within a row group: written without a dictionary.
#: Parquet writers dictionary-encode every column by default and fall back per page once the
#: dictionary grows too big; on these columns that is hashing every value for nothing
#: (measured on the bench crawl: 12% of the records table's write time, 40% of the links').
UNIQUE_VALUED: dict[str, frozenset[str]] = {
    "records": frozenset({
        "record_id", "url", "url_surtkey", "url_path", "url_query", "content_digest",
        "warc_record_offset", "warc_record_length", "fetch_time",
        "content_length", "encoding_signals", "text_length", "title", "description",
        "og_title", "og_description", "og_image", "og_url", "twitter_title",
        "twitter_description", "twitter_image", "canonical_url", "main_text",
        "main_text_length", "mojibake_score",
    }),
    "links": frozenset({"target_url", "anchor_text"}),
}

#: Free-text columns written without min/max statistics. Nobody filters on a page's text by
#: range, a statistic over 4 KB is not written anyway, and the writer copies each row
#: group's smallest and largest value to find out: 4x a 24 MiB main_text held until the
#: part is closed (bench/hostile_bench.py's Parquet input: see docs/run.md).
FREE_TEXT: dict[str, frozenset[str]] = {
    "records": frozenset({
        "encoding_signals", "title", "description", "og_title", "og_description",
        "twitter_title", "twitter_description", "main_text", "extract_errors",
    }),
    "links": frozenset({"anchor_text"}),
    "errors": frozenset({"message"}),
}

#: Former names of renamed columns, read from parts written before the rename (the audit
#: views take the new column, else the old one).
FORMER_NAMES: dict[str, dict[str, str]] = {
    "records": {"content_charset": "crawler_charset"},
}

TABLES: dict[str, pa.Schema] = {
    "records": RECORDS,
    "links": LINKS,
    "errors": ERRORS,
    "runs": RUNS,
}
