"""What the storage layer raises: one line naming the path, never a traceback, never a
credential (URLs lose their user information and query strings)."""

from __future__ import annotations

import errno
import re
from typing import Literal

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


#: What a storage failure was, as :func:`describe` words it.
FailureKind = Literal["missing", "denied", "unreachable", "no-credentials", "other"]
_UNREACHABLE = ("EndpointConnectionError", "ClientConnector", "ConnectTimeout",
                "ConnectionRefused", "ServerDisconnected", "ServerTimeout", "gaierror")


def failure_kind(exc: BaseException) -> FailureKind:
    """What ``exc`` (any store's own kind) says went wrong. fsspec's HTTP filesystem
    raises ``FileNotFoundError`` for every failure, a server it cannot reach included: the
    exception it chains (``__cause__``) says which."""
    cause = exc.__cause__
    text = str(exc)
    chain = f"{type(exc).__name__} {text} {type(cause).__name__ if cause else ''}"
    if "NoCredentials" in chain:
        return "no-credentials"
    if any(kind in chain for kind in _UNREACHABLE):
        return "unreachable"
    status = getattr(cause, "status", None)
    if isinstance(status, int) and status in (401, 403):
        return "denied"
    if isinstance(exc, FileNotFoundError) or "NoSuchBucket" in chain or "NoSuchKey" in chain:
        return "missing"
    if isinstance(exc, PermissionError) or "InvalidAccessKeyId" in chain or (
        "SignatureDoesNotMatch" in chain
    ):
        return "denied"
    return "other"


def describe(exc: BaseException, path: str) -> str:
    """One line for a storage failure on ``path``: what went wrong, without a traceback."""
    shown = redact_url(path)
    name = type(exc).__name__
    text = str(exc).strip()
    text = scrub_urls(text.splitlines()[0]) if text else name
    cause = exc.__cause__
    detail = (scrub_urls(f"{type(cause).__name__}: {cause}".splitlines()[0])
              if cause is not None and isinstance(exc, FileNotFoundError) else text)
    kind = failure_kind(exc)
    if kind == "no-credentials":
        return f"{shown}: no credentials found (environment, config files, instance role)"
    if kind == "unreachable":
        return f"{shown}: cannot reach the storage endpoint ({detail})"
    if kind == "denied":
        return f"{shown}: access denied; check the credentials ({detail})"
    if kind == "missing":
        return f"{shown}: not found ({text})"
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
    cls = MissingPath if failure_kind(exc) == "missing" else StorageError
    return cls(describe(exc, path))
