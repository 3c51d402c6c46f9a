"""One storage layer for every path the tool takes: local paths, ``s3://``, ``gs://``,
``hdfs://`` and ``http(s)://`` (read only), through fsspec.

Why fsspec (README, dependencies): one interface over every store, streaming reads with
read-ahead (a 1 GB ``.warc.gz`` is decoded while it downloads, never staged), recursive
listing of a prefix, credentials from each store's standard chain (for S3, botocore's:
environment, config files, instance roles, and ``AWS_ENDPOINT_URL``), and DuckDB reads an
fsspec filesystem registered with it, so audits of a remote output need no DuckDB extension
download. (pyarrow.fs has no HTTP filesystem, and its S3 client does not honour
``AWS_ENDPOINT_URL``.)

``paths`` names paths and URLs (pure), ``options`` parses and redacts storage options,
``errors`` holds what the layer raises, ``store`` is :class:`Storage`, the only module that
imports fsspec.
"""

from pipeline.storage.errors import Conflict, MissingPath, StorageError, describe, scrub_urls
from pipeline.storage.options import merge, parse_storage_options, redact, redact_item
from pipeline.storage.paths import (
    is_object_store,
    is_remote,
    is_url,
    join,
    normalize,
    redact_url,
    scheme_of,
    split,
    temp_path,
)
from pipeline.storage.store import Storage

__all__ = [
    "Conflict", "MissingPath", "Storage", "StorageError", "describe", "is_object_store",
    "is_remote", "is_url", "join", "merge", "normalize", "parse_storage_options", "redact",
    "redact_item", "redact_url", "scheme_of", "scrub_urls", "split", "temp_path",
]
