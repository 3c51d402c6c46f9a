"""S3 through s3fs, with every key taken as it is written.

s3fs reads ``?versionId=`` in a path as a version selector and drops it from the key, even
when versions are not asked for (``version_aware`` false): the object
``q.warc?versionId=abc.arc.gz``, found by listing its prefix, would be opened as
``q.warc``, another object. An S3 key may hold any character, so this layer never reads a
query in an ``s3://`` URL: :func:`literal_key_s3` is s3fs with the key split from the
bucket and nothing else (unless ``version_aware`` is set as a storage option, when s3fs's
own reading of ``?versionId=`` applies).
"""

from __future__ import annotations

import functools
from typing import Any


def literal_key_s3(**options: Any) -> Any:
    """An s3fs filesystem (``options`` as ``s3fs.S3FileSystem`` takes them) that opens,
    lists and writes every key as written."""
    return _literal_key_class()(**options)


@functools.cache
def _literal_key_class() -> type:
    from s3fs import S3FileSystem

    class LiteralKeyS3FileSystem(S3FileSystem):
        """s3fs whose paths are ``bucket/key`` with the key kept whole."""

        def split_path(self, path: str) -> tuple[str, str, str | None]:
            if self.version_aware:
                return super().split_path(path)
            trail = path[len(path.rstrip("/")):]
            stripped = self._strip_protocol(path).lstrip("/")
            if "/" not in stripped:
                return stripped, "", None
            bucket, key = self._find_bucket_key(stripped)
            return bucket, key + trail, None

    return LiteralKeyS3FileSystem
