"""What the storage layer raises: one line naming the path, never a traceback, never a
credential (URLs lose their user information and query strings)."""

from __future__ import annotations

import errno
import re

from pipeline.storage.paths import redact_url

#: A URL inside a message (botocore and aiohttp quote the URL they failed on).
_URL_IN_TEXT = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>]+")


class StorageError(OSError):
    """A path that cannot be read, listed or written: one line naming the path."""


class MissingPath(StorageError, FileNotFoundError):
    """A file, folder, key or bucket that does not exist."""


class Conflict(StorageError):
    """A conditional write lost: the object exists (create) or changed (replace)."""


def scrub_urls(text: str) -> str:
    """``text`` with every URL in it redacted (:func:`~pipeline.storage.paths.redact_url`).

    >>> scrub_urls("403 for url='https://h/x?X-Amz-Signature=s' and s3://b/k")
    "403 for url='https://h/x' and s3://b/k"
    """
    return _URL_IN_TEXT.sub(lambda m: redact_url(m.group()), text)


def describe(exc: BaseException, path: str) -> str:
    """One line for a storage failure on ``path``: what went wrong, without a traceback."""
    shown = redact_url(path)
    name = type(exc).__name__
    text = str(exc).strip()
    text = scrub_urls(text.splitlines()[0]) if text else name
    chain = f"{name} {text} {type(exc.__cause__).__name__ if exc.__cause__ else ''}"
    if isinstance(exc, FileNotFoundError) or "NoSuchBucket" in chain or "NoSuchKey" in chain:
        return f"{shown}: not found ({text})"
    if isinstance(exc, PermissionError) or "InvalidAccessKeyId" in chain or (
        "SignatureDoesNotMatch" in chain
    ):
        return f"{shown}: access denied; check the credentials ({text})"
    if any(kind in chain for kind in ("EndpointConnectionError", "ClientConnector",
                                      "ConnectTimeout", "ConnectionRefused", "NoCredentials")):
        if "NoCredentials" in chain:
            return f"{shown}: no credentials found (environment, config files, instance role)"
        return f"{shown}: cannot reach the storage endpoint ({text})"
    return f"{shown}: {name}: {text}"


def _precondition_failed(exc: BaseException) -> bool:
    """An HTTP 412 (a conditional write whose condition did not hold), as s3fs reports it."""
    cause = getattr(exc.__cause__, "response", None)
    if isinstance(cause, dict) and cause.get("Error", {}).get("Code") == "PreconditionFailed":
        return True
    text = str(exc).lower()
    return isinstance(exc, OSError) and exc.errno == errno.EINVAL and (
        "precondition" in text or "pre-condition" in text)


def to_storage_error(exc: BaseException, path: str) -> StorageError:
    """``exc`` (any store's own kind) as a :class:`StorageError` naming ``path``."""
    if isinstance(exc, StorageError):
        return exc
    if isinstance(exc, FileExistsError) or _precondition_failed(exc):
        return Conflict(describe(exc, path))
    cls = MissingPath if isinstance(exc, FileNotFoundError) else StorageError
    return cls(describe(exc, path))
