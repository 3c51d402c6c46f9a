"""Paths and URLs as the storage layer names them: local paths use the OS separator, URLs
(``s3://``, ``gs://``, ``hdfs://``, ``https://``) use ``/``. Pure functions, no I/O."""

from __future__ import annotations

import os
import re

#: Schemes the layer reads (and, but for http/https, writes).
REMOTE_SCHEMES = ("s3", "s3a", "gs", "gcs", "hdfs", "http", "https")
READ_ONLY_SCHEMES = frozenset({"http", "https"})
#: Stores where an object appears only when its upload completes and there is no rename.
OBJECT_STORES = frozenset({"s3", "s3a", "gs", "gcs"})
_URL = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://")


def scheme_of(path: str) -> str | None:
    """The URL scheme of ``path`` (lower case), or None for a local path.

    >>> scheme_of("s3://bucket/x.warc.gz"), scheme_of("/data/x.warc.gz"), scheme_of("C:/x")
    ('s3', None, None)
    """
    match = _URL.match(path)
    return match.group(1).lower() if match else None


def is_url(path: str) -> bool:
    """True for anything that looks like ``scheme://...`` (supported or not)."""
    return _URL.match(path) is not None


def is_remote(path: str) -> bool:
    """True for a URL of a store this layer reads (``s3://``, ``https://``, ...)."""
    return scheme_of(path) in REMOTE_SCHEMES


def is_object_store(path: str) -> bool:
    """True for ``s3://`` and ``gs://`` URLs: no rename, objects appear whole."""
    return scheme_of(path) in OBJECT_STORES


def join(base: str, *names: str) -> str:
    """``base`` joined with ``names`` with ``/`` for URLs, the OS separator otherwise.

    >>> join("s3://b/out/", "records", "part-0.parquet")
    's3://b/out/records/part-0.parquet'
    >>> join("out", "records")
    'out/records'
    """
    if scheme_of(base) is None:
        return os.path.join(base, *names)
    return "/".join([base.rstrip("/"), *(n.strip("/") for n in names)])


def split(path: str) -> tuple[str, str]:
    """``(folder, name)`` of ``path``.

    >>> split("s3://b/out/_runs/r/_lock")
    ('s3://b/out/_runs/r', '_lock')
    >>> split("out/x.json")
    ('out', 'x.json')
    """
    if scheme_of(path) is None:
        return os.path.split(path)
    folder, _, name = path.rstrip("/").rpartition("/")
    return folder, name


def temp_path(path: str, tag: str | None = None) -> str:
    """The hidden name beside ``path`` that it is written under before it is put in place;
    ``tag`` (an attempt id) makes it unique to one writer.

    >>> temp_path("out/records/run_id=r/part-00003.parquet")
    'out/records/run_id=r/.part-00003.parquet.tmp'
    >>> temp_path("s3://b/o/part-00003.parquet", "a1b2")
    's3://b/o/.part-00003.parquet.a1b2.tmp'
    """
    folder, name = split(path)
    hidden = f".{name}.{tag}.tmp" if tag else f".{name}.tmp"
    return join(folder, hidden) if folder else hidden


def normalize(path: str) -> str:
    """A local path normalized (``a/./b`` is ``a/b``); a URL as given but for a trailing
    ``/`` (``os.path.normpath`` would fold ``s3://`` into ``s3:/``).

    >>> normalize("crawl/./a.warc.gz"), normalize("s3://b/crawl//x/")
    ('crawl/a.warc.gz', 's3://b/crawl//x')
    """
    if is_url(path):
        return path.rstrip("/") if path.count("/") > 2 else path
    return os.path.normpath(path)


#: Stores whose URLs are a bucket (or host) and a key: no query, no fragment; ``?`` and
#: ``#`` are characters of the key (``s3://b/q.warc?versionId=1.arc.gz`` is one object).
LITERAL_KEY_SCHEMES = frozenset({"s3", "s3a", "gs", "gcs", "hdfs"})


def redact_url(path: str) -> str:
    """``path`` without user information or a query (presigned URLs carry credentials).
    A bucket's key keeps every character: ``?`` and ``#`` in an ``s3://`` URL are part of
    the key, not a query or a fragment.

    >>> redact_url("https://u:p@host/x.warc.gz?X-Amz-Signature=abc")
    'https://host/x.warc.gz'
    >>> redact_url("s3://bucket/crawl/x.warc.gz")
    's3://bucket/crawl/x.warc.gz'
    >>> redact_url("s3://bucket/crawl/r#frag.arc.gz")
    's3://bucket/crawl/r#frag.arc.gz'
    """
    scheme = scheme_of(path)
    if scheme is None:
        return path
    rest = path[len(scheme) + 3 :]
    authority, slash, tail = rest.partition("/")
    authority = authority.rpartition("@")[2]
    if scheme in LITERAL_KEY_SCHEMES:
        return f"{scheme}://{authority}{slash}{tail}"
    tail = tail.split("?", 1)[0].split("#", 1)[0]
    if not slash:
        authority = authority.split("?", 1)[0].split("#", 1)[0]
    return f"{scheme}://{authority}{slash}{tail}"
