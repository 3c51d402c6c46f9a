"""One storage layer for every path the tool takes: local paths, ``s3://``, ``gs://``,
``hdfs://`` and ``http(s)://`` (read only), through fsspec.

Why fsspec (README, dependencies): one interface over every store, streaming reads with
read-ahead (a 1 GB ``.warc.gz`` is decoded while it downloads, never staged), recursive
listing of a prefix, credentials from each store's standard chain (for S3, botocore's:
environment, config files, instance roles, and ``AWS_ENDPOINT_URL``), and DuckDB reads an
fsspec filesystem registered with it, so audits of a remote output need no DuckDB extension
download. (pyarrow.fs has no HTTP filesystem, and its S3 client does not honour
``AWS_ENDPOINT_URL``.)

Writes are atomic for a reader: on a local or HDFS path a file is written under a temporary
name and renamed; on an object store (S3, GCS) the object becomes visible only when its
upload completes (a single PUT or a completed multipart upload), so it is written under its
final key and an unfinished upload is discarded, never visible.

Local paths are handled with ``os`` directly (no fsspec in the hot path of a local run).
"""

from __future__ import annotations

import contextlib
import os
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, Any

#: Schemes the layer reads (and, but for http/https, writes).
REMOTE_SCHEMES = ("s3", "s3a", "gs", "gcs", "hdfs", "http", "https")
READ_ONLY_SCHEMES = frozenset({"http", "https"})
#: Stores where an object appears only when its upload completes: written in place.
OBJECT_STORES = frozenset({"s3", "s3a", "gs", "gcs"})
_URL = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://")
#: Read-ahead block for remote inputs: large enough to keep a stream busy, small enough that
#: a worker holds only a few of them.
READ_BLOCK = 8 * 2**20
#: Option names whose values are secrets: never written to _run.json, logs or errors rows.
_SECRET = re.compile(r"secret|password|token|credential|(^|_)key$|session", re.IGNORECASE)
#: For S3: fail fast on an unreachable endpoint instead of botocore's long default retries.
_S3_DEFAULTS: dict[str, Any] = {
    "config_kwargs": {"connect_timeout": 10, "read_timeout": 120,
                      "retries": {"max_attempts": 3, "mode": "standard"}},
}


class StorageError(OSError):
    """A path that cannot be read, listed or written: one line naming the path."""


class MissingPath(StorageError, FileNotFoundError):
    """A file, folder, key or bucket that does not exist."""


def _error(exc: BaseException, path: str) -> StorageError:
    cls = MissingPath if isinstance(exc, FileNotFoundError) else StorageError
    return cls(describe(exc, path))


def scheme_of(path: str) -> str | None:
    """The URL scheme of ``path`` (lower case), or None for a local path.

    >>> scheme_of("s3://bucket/x.warc.gz"), scheme_of("/data/x.warc.gz"), scheme_of("C:/x")
    ('s3', None, None)
    """
    match = _URL.match(path)
    return match.group(1).lower() if match else None


def is_remote(path: str) -> bool:
    """True for a URL of a store this layer reads (``s3://``, ``https://``, ...)."""
    return scheme_of(path) in REMOTE_SCHEMES


def join(base: str, *names: str) -> str:
    """``base`` joined with ``names`` with ``/`` for URLs, the OS separator otherwise.

    >>> join("s3://b/out/", "records", "part-0.parquet")
    's3://b/out/records/part-0.parquet'
    """
    if scheme_of(base) is None:
        return os.path.join(base, *names)
    return "/".join([base.rstrip("/"), *(n.strip("/") for n in names)])


def _typed(value: str) -> Any:
    """A command-line option value as TOML reads it (true, 3, 1.5, "x"), else the string."""
    try:
        return tomllib.loads(f"v = {value}")["v"]
    except tomllib.TOMLDecodeError:
        return value


def parse_storage_options(items: list[str]) -> dict[str, Any]:
    """``--storage-option KEY=VALUE`` values as nested options.

    ``KEY`` may start with a scheme (``s3.anon=true``) to apply to that store only; other
    dots nest (``client_kwargs.region_name=eu-west-1``). Values are read as TOML literals
    where they parse (``true``, ``30``), else taken as strings.

    >>> parse_storage_options(["s3.anon=true", "client_kwargs.region_name=eu-west-1"])
    {'s3': {'anon': True}, 'client_kwargs': {'region_name': 'eu-west-1'}}
    """
    options: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--storage-option wants KEY=VALUE, got {item!r}")
        node = options
        *parents, leaf = key.strip().split(".")
        for part in parents:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise ValueError(f"--storage-option {key!r} conflicts with an earlier option")
            node = child
        node[leaf] = _typed(value.strip())
    return options


def redact(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` with every secret value replaced by ``"***"`` (for _run.json and logs).

    >>> redact({"s3": {"secret": "x", "anon": False}, "key": "k"})
    {'s3': {'secret': '***', 'anon': False}, 'key': '***'}
    """
    out: dict[str, Any] = {}
    for key, value in options.items():
        if isinstance(value, Mapping):
            out[key] = redact(value)
        else:
            out[key] = "***" if _SECRET.search(key) else value
    return out


def redact_url(path: str) -> str:
    """``path`` without user information or a query (presigned URLs carry credentials).

    >>> redact_url("https://u:p@host/x.warc.gz?X-Amz-Signature=abc")
    'https://host/x.warc.gz'
    """
    scheme = scheme_of(path)
    if scheme is None:
        return path
    rest = path[len(scheme) + 3 :]
    authority, slash, tail = rest.partition("/")
    authority = authority.rpartition("@")[2]
    return f"{scheme}://{authority}{slash}{tail.split('?', 1)[0]}"


def describe(exc: BaseException, path: str) -> str:
    """One line for a storage failure on ``path``: what went wrong, without a traceback."""
    shown = redact_url(path)
    name = type(exc).__name__
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else name
    if isinstance(exc, FileNotFoundError):
        return f"{shown}: not found ({text})"
    if isinstance(exc, PermissionError):
        return f"{shown}: access denied; check the credentials ({text})"
    if "EndpointConnectionError" in name or "ClientConnector" in name or "ConnectTimeout" in name:
        return f"{shown}: cannot reach the storage endpoint ({text})"
    return f"{shown}: {name}: {text}"


@dataclass(frozen=True)
class Storage:
    """Every file operation the runner, the sources' openers and the audits need.

    ``options`` are the parsed ``--storage-option`` values (see :func:`parse_storage_options`):
    keys named after a scheme apply to that store only, the rest to every remote store.
    """

    options: Mapping[str, Any] = field(default_factory=dict)

    def _fs(self, path: str) -> tuple[Any, str]:
        scheme = scheme_of(path)
        if scheme is None or scheme not in REMOTE_SCHEMES:
            raise StorageError(f"{redact_url(path)}: not a supported storage URL "
                               f"(schemes: {', '.join(REMOTE_SCHEMES)})")
        import fsspec

        protocol = {"s3a": "s3", "gcs": "gs"}.get(scheme, scheme)
        opts: dict[str, Any] = {k: v for k, v in self.options.items()
                                if k not in REMOTE_SCHEMES or not isinstance(v, Mapping)}
        for key in {scheme, protocol}:
            scoped = self.options.get(key)
            if isinstance(scoped, Mapping):
                opts.update(scoped)
        if protocol == "s3":
            opts = _S3_DEFAULTS | opts
        try:
            fs = fsspec.filesystem(protocol, **opts)
        except ImportError as exc:
            raise StorageError(f"{redact_url(path)}: {protocol}:// needs an optional package "
                               f"({exc.name}); see the README's dependency list") from None
        return fs, fs._strip_protocol(path) if protocol not in ("http", "https") else path

    def _url(self, fs: Any, fs_path: str, like: str) -> str:
        scheme = scheme_of(like)
        if scheme in ("http", "https"):
            return fs_path
        return f"{scheme}://{fs_path}"

    # -- reading ----------------------------------------------------------------------

    def open_read(self, path: str) -> IO[bytes]:
        """A binary file to read ``path`` forward (remote: streamed with read-ahead)."""
        if not is_remote(path):
            return open(path, "rb")  # noqa: SIM115 - the caller closes it
        fs, fs_path = self._fs(path)
        try:
            return fs.open(fs_path, "rb", block_size=READ_BLOCK, cache_type="readahead")
        except Exception as exc:  # noqa: BLE001 - each store raises its own kinds
            raise _error(exc, path) from None

    def read_bytes(self, path: str) -> bytes:
        """The whole of a small file (a rules file, a list, a metadata file)."""
        with self.open_read(path) as fh:
            try:
                return fh.read()
            except Exception as exc:  # noqa: BLE001
                raise _error(exc, path) from None

    def exists(self, path: str) -> bool:
        """True when ``path`` is a file or a folder (a prefix holding objects)."""
        if not is_remote(path):
            return os.path.exists(path)
        fs, fs_path = self._fs(path)
        return bool(self._call(fs.exists, fs_path, path))

    def is_dir(self, path: str) -> bool:
        """True for a local folder or a remote prefix that holds objects."""
        if not is_remote(path):
            return os.path.isdir(path)
        if scheme_of(path) in READ_ONLY_SCHEMES:
            return False  # an HTTP server has no listing to trust
        fs, fs_path = self._fs(path)
        return bool(self._call(fs.isdir, fs_path, path))

    def is_file(self, path: str) -> bool:
        """True for a file (an object)."""
        if not is_remote(path):
            return os.path.isfile(path)
        fs, fs_path = self._fs(path)
        return bool(self._call(fs.isfile, fs_path, path))

    def list_files(self, path: str) -> list[str]:
        """Every file below the folder or prefix ``path``, recursively, as full paths/URLs.

        Local folders skip hidden subfolders (``.git``, ``.tmp``), as remote listings skip
        keys under a hidden "folder"."""
        if not is_remote(path):
            found = []
            for root, dirs, files in os.walk(path, followlinks=False):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                found.extend(os.path.join(root, name) for name in files)
            return sorted(found)
        fs, fs_path = self._fs(path)
        keys = self._call(fs.find, fs_path, path)
        base = fs_path.rstrip("/") + "/"
        return sorted(self._url(fs, key, path) for key in keys
                      if not any(part.startswith(".") for part in key[len(base):].split("/")[:-1]))

    def glob(self, pattern: str) -> list[str]:
        """Paths matching a glob pattern (``*``, ``?``, ``[...]``, ``**``)."""
        if not is_remote(pattern):
            import glob as _glob

            return sorted(_glob.glob(pattern, recursive=True))
        fs, fs_path = self._fs(pattern)
        return sorted(self._url(fs, key, pattern) for key in self._call(fs.glob, fs_path, pattern))

    def _call(self, fn: Any, fs_path: str, shown: str) -> Any:
        try:
            return fn(fs_path)
        except Exception as exc:  # noqa: BLE001
            raise _error(exc, shown) from None

    # -- writing ----------------------------------------------------------------------

    def _writable(self, path: str) -> None:
        if scheme_of(path) in READ_ONLY_SCHEMES:
            raise StorageError(f"{redact_url(path)}: http(s) is read-only; write to a local "
                               "path or an object store")

    def make_dirs(self, path: str) -> None:
        """Create a local (or HDFS) folder and its parents; object stores need none."""
        self._writable(path)
        if not is_remote(path):
            os.makedirs(path, exist_ok=True)
        elif scheme_of(path) not in OBJECT_STORES:
            fs, fs_path = self._fs(path)
            self._call(lambda p: fs.makedirs(p, exist_ok=True), fs_path, path)

    @contextlib.contextmanager
    def atomic_writer(self, path: str, tmp_name: str | None = None) -> Iterator[IO[bytes]]:
        """A binary file whose content appears at ``path`` whole, or not at all.

        Local and HDFS: written to ``tmp_name`` (default ``.<name>.tmp`` beside ``path``) and
        renamed over ``path`` on success; removed on failure. Object stores: written to
        ``path`` itself (the object appears when its upload completes) and discarded on failure.
        """
        self._writable(path)
        scheme = scheme_of(path)
        folder, _, name = path.rpartition("/" if scheme else os.sep)
        tmp = tmp_name or f".{name}.tmp"
        if scheme is None:
            tmp_path = os.path.join(folder, tmp) if folder else tmp
            os.makedirs(folder or ".", exist_ok=True)
            try:
                with open(tmp_path, "wb") as fh:
                    yield fh
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp_path, path)
            except BaseException:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp_path)
                raise
            return
        fs, fs_path = self._fs(path)
        if scheme in OBJECT_STORES:
            try:
                fh = fs.open(fs_path, "wb")
            except Exception as exc:  # noqa: BLE001
                raise _error(exc, path) from None
            try:
                yield fh
            except BaseException:
                with contextlib.suppress(Exception):
                    fh.discard()  # aborts the multipart upload: nothing becomes visible
                fh.closed = True  # a discarded file must not try to upload again when collected
                raise
            try:
                fh.close()
            except Exception as exc:  # noqa: BLE001
                raise _error(exc, path) from None
            return
        tmp_fs_path = fs_path.rpartition("/")[0] + "/" + tmp
        try:
            with fs.open(tmp_fs_path, "wb") as fh:
                yield fh
            fs.mv(tmp_fs_path, fs_path)
        except BaseException:
            with contextlib.suppress(Exception):
                fs.rm(tmp_fs_path)
            raise

    def write_bytes(self, path: str, data: bytes) -> None:
        """Write a small file atomically (metadata, markers)."""
        with self.atomic_writer(path) as fh:
            fh.write(data)

    def remove(self, path: str) -> None:
        """Delete one file if it exists (never a folder, never a pattern)."""
        self._writable(path)
        if not is_remote(path):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            return
        fs, fs_path = self._fs(path)
        with contextlib.suppress(MissingPath):
            self._call(fs.rm_file, fs_path, path)

    # -- DuckDB -----------------------------------------------------------------------

    def register_duckdb(self, con: Any, path: str) -> None:
        """Let DuckDB read ``path``'s store through this layer (no extension download)."""
        con.execute("set autoinstall_known_extensions = false")
        con.execute("set autoload_known_extensions = false")
        if is_remote(path):
            fs, _ = self._fs(path)
            con.register_filesystem(fs)
