"""The one place that touches fsspec: every read, listing and write of the tool, on a local
path or a remote store.

Local paths are handled with ``os`` directly (no fsspec in the hot path of a local run).
Remote stores go through fsspec (s3fs for ``s3://``; ``gs://`` needs the ``[gcs]`` extra).

Writes, in three steps a caller combines:

- :meth:`Storage.open_write` writes a file under its own name; a failure removes it (an
  object store discards the unfinished upload: nothing ever becomes visible);
- :meth:`Storage.promote` puts a finished file under its final name: a rename on a local
  path or HDFS, a server-side copy (then the temporary key is deleted) on an object store,
  where the copy appears whole or not at all;
- :meth:`Storage.atomic_writer` is both for small files (metadata): on an object store the
  object is written in place (it appears when its upload completes).

Conditional writes (:meth:`Storage.create`, :meth:`Storage.replace`,
:meth:`Storage.remove_if`) are S3's ``If-None-Match: *`` / ``If-Match: <ETag>``: what run
locks on an object store are built on (there is no ``flock``).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, BinaryIO, cast

from pipeline.storage.errors import MissingPath, StorageError, scrub_urls, to_storage_error
from pipeline.storage.options import merge, public, secret_values
from pipeline.storage.paths import (
    OBJECT_STORES,
    READ_ONLY_SCHEMES,
    REMOTE_SCHEMES,
    is_remote,
    redact_url,
    scheme_of,
    split,
    temp_path,
)

#: Read-ahead block for streamed inputs: large enough to keep a stream busy, small enough
#: that a worker holds only a few of them.
READ_BLOCK = 8 * 2**20
#: Block for random access (Parquet footers and row groups of small tables).
RANDOM_BLOCK = 2**20
#: Multipart upload part size (S3's minimum is 5 MiB): a worker writing three parts holds
#: three of these, not s3fs's default 50 MiB each.
WRITE_BLOCK = 8 * 2**20
#: Concurrent requests for a bulk existence check over a store that has no listing (HTTP).
EXISTS_THREADS = 16
#: For S3: fail fast on an unreachable endpoint instead of botocore's long default retries,
#: and never answer from a cached listing (other processes write the same prefixes).
_S3_DEFAULTS: dict[str, Any] = {
    "config_kwargs": {"connect_timeout": 10, "read_timeout": 120,
                      "retries": {"max_attempts": 3, "mode": "standard"}},
    "use_listings_cache": False,
}


#: For HTTP(S): URLs are taken as written (a presigned URL's query is already encoded, and
#: re-encoding it breaks the signature).
_HTTP_DEFAULTS: dict[str, Any] = {"encoded": True}


@dataclass(frozen=True, slots=True)
class Versioned:
    """An object read with its version: what a conditional write compares against."""

    data: bytes
    etag: str
    age: float  # seconds since it was last written, by the store's clock


@dataclass(frozen=True)
class Storage:
    """Every file operation the runner, the sources' openers and the audits need.

    ``options`` are the parsed ``--storage-option`` values merged over the rules file's
    ``[storage]`` (see :func:`~pipeline.storage.options.parse_storage_options`): keys
    named after a scheme apply to that store only, the rest to every remote store.
    Credentials come from each store's standard chain (for S3, botocore's: environment,
    config files, instance roles; ``AWS_ENDPOINT_URL`` picks the endpoint).
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
        elif protocol in ("http", "https"):
            opts = _HTTP_DEFAULTS | opts
        try:
            if protocol == "s3":
                from pipeline.storage.s3keys import literal_key_s3

                fs = literal_key_s3(**opts)
            else:
                fs = fsspec.filesystem(protocol, **opts)
        except ImportError as exc:
            raise StorageError(f"{redact_url(path)}: {protocol}:// needs an optional package "
                               f"({exc.name}); see the README's dependency list") from None
        except (TypeError, ValueError) as exc:
            raise StorageError(f"{redact_url(path)}: bad storage option: {self.scrub(str(exc))}"
                               ) from None
        return fs, fs._strip_protocol(path) if protocol not in ("http", "https") else path

    def _url(self, fs_path: str, like: str) -> str:
        scheme = scheme_of(like)
        if scheme in ("http", "https"):
            return fs_path
        return f"{scheme}://{fs_path}"

    def _call(self, fn: Any, path: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - each store raises its own kinds
            raise self._error(exc, path) from None

    def _error(self, exc: BaseException, path: str) -> StorageError:
        err = to_storage_error(exc, path)
        scrubbed = self.scrub(str(err))
        return err if scrubbed == str(err) else type(err)(scrubbed)

    def snapshot(self) -> Storage:
        """This storage for reading a folder that does not change while it is read (an
        audit of an output): listings are cached and answer later size and existence
        questions, so opening a file listed before costs no extra request. (A run never
        uses it: other processes write the prefixes it lists.)"""
        s3 = self.options.get("s3")
        scoped = dict(s3) if isinstance(s3, Mapping) else {}
        return Storage({**self.options, "s3": {**scoped, "use_listings_cache": True}})

    def for_executors(self, paths: list[str]) -> Storage:
        """This storage as a process on another host must see it to reach the same stores
        (a Spark executor, whose environment is not this process's), given the ``paths``
        it will use: the options without any secret value (credentials never travel:
        executors take theirs from their own chain), and, when one of ``paths`` is on S3,
        the endpoint and region that botocore resolves here from the environment and the
        AWS config files (``AWS_ENDPOINT_URL``, ``AWS_ENDPOINT_URL_S3``,
        ``AWS_DEFAULT_REGION``, the profile's ``endpoint_url`` and ``region``) written in,
        where no option names them. :class:`StorageError` when the AWS profile named cannot
        be read."""
        options = public(self.options)
        if any(scheme_of(path) in ("s3", "s3a") for path in paths):
            location = self._s3_location()
            options = merge(options, {"s3": location}) if location else options
        return Storage(options)

    def _s3_location(self) -> dict[str, Any]:
        """The S3 endpoint and region this process's clients use, as options (only those
        that come from the environment or config files, not the options)."""
        opts: dict[str, Any] = {k: v for k, v in self.options.items()
                                if k not in REMOTE_SCHEMES or not isinstance(v, Mapping)}
        for key in ("s3", "s3a"):
            if isinstance(self.options.get(key), Mapping):
                opts = merge(opts, self.options[key])
        kwargs = opts.get("client_kwargs")
        client: Mapping[str, Any] = kwargs if isinstance(kwargs, Mapping) else {}
        import botocore.exceptions
        import botocore.session
        from botocore import UNSIGNED
        from botocore.config import Config

        profile = opts.get("profile")
        found: dict[str, Any] = {}
        try:
            session = botocore.session.Session(profile=profile)
            region = client.get("region_name") or session.get_config_variable("region")
            if not client.get("region_name") and region:
                found["client_kwargs"] = {"region_name": region}
            if not (opts.get("endpoint_url") or client.get("endpoint_url")):
                # the configured endpoint, if any: what differs from botocore's own default
                configured, default = (
                    session.create_client("s3", region_name=region, config=Config(
                        signature_version=UNSIGNED, ignore_configured_endpoint_urls=ignore,
                    )).meta.endpoint_url for ignore in (False, True))
                if configured != default:
                    found["endpoint_url"] = configured
        except botocore.exceptions.BotoCoreError as exc:
            raise StorageError(f"s3: the AWS configuration cannot be read here ({exc})"
                               ) from None
        return found

    def scrub(self, text: str) -> str:
        """``text`` without the secret option values, URL user information or query
        strings it may hold (for the storage layer's own messages)."""
        return scrub_urls(self.scrub_secrets(text))

    def scrub_secrets(self, text: str) -> str:
        """``text`` with every secret option value replaced by ``***``."""
        for secret in secret_values(self.options):
            text = text.replace(secret, "***")
        return text

    # -- reading ----------------------------------------------------------------------

    def open_read(self, path: str, *, random_access: bool = False) -> BinaryIO:
        """A binary, seekable file to read ``path`` (remote: streamed with read-ahead, or
        in small blocks for ``random_access``); :class:`StorageError` names the path."""
        if not is_remote(path):
            try:
                return open(path, "rb")  # noqa: SIM115 - the caller closes it
            except OSError as exc:
                raise self._error(exc, path) from None
        fs, fs_path = self._fs(path)
        if random_access:
            return cast(BinaryIO, self._call(fs.open, path, fs_path, "rb",
                                             block_size=RANDOM_BLOCK, cache_type="bytes"))
        return cast(BinaryIO, self._call(fs.open, path, fs_path, "rb", block_size=READ_BLOCK,
                                         cache_type="readahead"))

    def read_bytes(self, path: str) -> bytes:
        """The whole of a small file (a rules file, a list, a metadata file)."""
        if not is_remote(path):
            try:
                with open(path, "rb") as fh:
                    return fh.read()
            except OSError as exc:
                raise self._error(exc, path) from None
        fs, fs_path = self._fs(path)
        return bytes(self._call(fs.cat_file, path, fs_path))

    def read_many(self, paths: list[str]) -> list[bytes | None]:
        """The content of each of ``paths`` (None for one that does not exist), read
        concurrently from a remote store (resuming a large run reads thousands of small
        metadata files)."""

        def one(path: str) -> bytes | None:
            try:
                return self.read_bytes(path)
            except FileNotFoundError:
                return None

        if not any(is_remote(p) for p in paths):
            return [one(p) for p in paths]
        from concurrent.futures import ThreadPoolExecutor  # (remote paths only)

        with ThreadPoolExecutor(EXISTS_THREADS) as pool:
            return list(pool.map(one, paths))

    def exists(self, path: str) -> bool:
        """True when ``path`` is a file or a folder (a prefix holding objects)."""
        if not is_remote(path):
            return os.path.exists(path)
        fs, fs_path = self._fs(path)
        return bool(self._call(fs.exists, path, fs_path))

    def is_dir(self, path: str) -> bool:
        """True for a local folder or a remote prefix that holds objects (or a bucket)."""
        if not is_remote(path):
            return os.path.isdir(path)
        if scheme_of(path) in READ_ONLY_SCHEMES:
            return False  # an HTTP server has no listing to trust
        fs, fs_path = self._fs(path)
        return bool(self._call(fs.isdir, path, fs_path))

    def is_file(self, path: str) -> bool:
        """True for a file (an object); :class:`StorageError` when the store cannot say (an
        HTTP server that cannot be reached, or refuses the request)."""
        if not is_remote(path):
            return os.path.isfile(path)
        fs, fs_path = self._fs(path)
        if scheme_of(path) in READ_ONLY_SCHEMES:
            # fsspec's isfile() answers False for a server it cannot reach; info() says why.
            try:
                info = self._call(fs.info, path, fs_path)
            except MissingPath:
                return False
            return info.get("type") == "file"
        return bool(self._call(fs.isfile, path, fs_path))

    def check_bucket(self, path: str) -> None:
        """Raise :class:`StorageError` (naming ``path``) unless the bucket or root that
        ``path`` lives in can be listed: a missing bucket, bad credentials and an
        unreachable endpoint are found before anything is written."""
        if not is_remote(path) or scheme_of(path) in READ_ONLY_SCHEMES:
            return
        fs, fs_path = self._fs(path)
        root = fs_path.split("/", 1)[0]
        self._call(fs.ls, path, root, detail=False)

    def list_files(self, path: str, *, hidden: bool = False) -> list[str]:
        """Every file below the folder or prefix ``path``, recursively, as full paths/URLs,
        sorted. Files below hidden folders (``.git``, ``.tmp``) are left out unless
        ``hidden``."""
        if not is_remote(path):
            found: list[str] = []
            for root, dirs, files in os.walk(path, followlinks=False):
                if not hidden:
                    dirs[:] = [d for d in dirs if not d.startswith(".")]
                found.extend(os.path.join(root, name) for name in files)
            return sorted(found)
        fs, fs_path = self._fs(path)
        keys = self._call(fs.find, path, fs_path)
        base = fs_path.rstrip("/") + "/"
        return sorted(self._url(key, path) for key in keys if hidden or not any(
            part.startswith(".") for part in key[len(base):].split("/")[:-1]))

    def list_dir(self, path: str) -> list[tuple[str, bool]]:
        """``(name, is_folder)`` of every entry directly in the folder ``path``, by name;
        none when it does not exist."""
        if not is_remote(path):
            try:
                with os.scandir(path) as entries:
                    return sorted((e.name, e.is_dir()) for e in entries)
            except (FileNotFoundError, NotADirectoryError):
                return []
            except OSError as exc:
                raise self._error(exc, path) from None
        return sorted((name, entry.get("type") == "directory")
                      for name, entry in self._remote_entries(path))

    def list_sizes(self, path: str) -> dict[str, int]:
        """``name -> bytes`` of every file directly in the folder ``path`` (one listing;
        none when it does not exist)."""
        if not is_remote(path):
            try:
                with os.scandir(path) as entries:
                    return {e.name: e.stat(follow_symlinks=False).st_size for e in entries
                            if not e.is_dir()}
            except (FileNotFoundError, NotADirectoryError):
                return {}
            except OSError as exc:
                raise self._error(exc, path) from None
        return {name: int(entry.get("size") or 0) for name, entry in self._remote_entries(path)
                if entry.get("type") != "directory"}

    def _remote_entries(self, path: str) -> list[tuple[str, dict[str, Any]]]:
        """``(name, fsspec entry)`` of every entry directly in the remote folder ``path``
        (one listing; none when it does not exist)."""
        fs, fs_path = self._fs(path)
        try:
            entries = fs.ls(fs_path, detail=True)
        except FileNotFoundError:
            return []
        except Exception as exc:  # noqa: BLE001
            raise self._error(exc, path) from None
        base = fs_path.rstrip("/")
        return [(entry["name"].rstrip("/").rpartition("/")[2], entry) for entry in entries
                if entry["name"].rstrip("/") != base]

    def glob(self, pattern: str) -> list[str]:
        """Paths matching a glob pattern (``*``, ``?``, ``[...]``, ``**``)."""
        if not is_remote(pattern):
            import glob as _glob

            return sorted(_glob.glob(pattern, recursive=True))
        fs, fs_path = self._fs(pattern)
        return sorted(self._url(key, pattern) for key in self._call(fs.glob, pattern, fs_path))

    def glob_entries(self, pattern: str) -> list[tuple[str, bool]]:
        """``(path, is_folder)`` of every match of a glob pattern, sorted."""
        if not is_remote(pattern):
            return [(path, os.path.isdir(path)) for path in self.glob(pattern)]
        fs, fs_path = self._fs(pattern)
        found = self._call(fs.glob, pattern, fs_path, detail=True)
        return sorted((self._url(key, pattern), info.get("type") == "directory")
                      for key, info in found.items())

    def existing(self, paths: list[str], failures: dict[str, str] | None = None) -> set[str]:
        """Which of ``paths`` are files, checked in bulk: one listing per folder on a store
        that lists (S3, GCS, HDFS), concurrent requests over HTTP. A missing bucket or
        folder means none of its paths exist; other failures raise :class:`StorageError`,
        but for an HTTP URL, whose failure is its own: it is left out of the answer and
        its one-line reason goes into ``failures`` (a server that cannot be reached, a
        request refused), when given."""
        found: set[str] = set()
        by_folder: dict[str, list[str]] = {}
        for path in paths:
            if not is_remote(path):
                if os.path.isfile(path):
                    found.add(path)
            elif scheme_of(path) in READ_ONLY_SCHEMES:
                by_folder.setdefault("", []).append(path)
            else:
                by_folder.setdefault(split(path)[0], []).append(path)
        http = by_folder.pop("", [])
        if http:

            def probe(path: str) -> bool | str:
                try:
                    return self.is_file(path)
                except StorageError as exc:
                    return str(exc)

            from concurrent.futures import ThreadPoolExecutor  # (remote paths only)

            with ThreadPoolExecutor(EXISTS_THREADS) as pool:
                for path, ok in zip(http, pool.map(probe, http), strict=True):
                    if ok is True:
                        found.add(path)
                    elif isinstance(ok, str) and failures is not None:
                        failures[path] = ok
        for folder, members in by_folder.items():
            files = {f"{folder}/{name}" for name, is_dir in self.list_dir(folder) if not is_dir}
            found.update(path for path in members if path in files)
        return found

    # -- writing ----------------------------------------------------------------------

    def _writable(self, path: str) -> None:
        if scheme_of(path) in READ_ONLY_SCHEMES:
            raise StorageError(f"{redact_url(path)}: http(s) is read-only; write to a local "
                               "path or an object store")

    def make_dirs(self, path: str) -> None:
        """Create a local (or HDFS) folder and its parents; object stores need none."""
        self._writable(path)
        if not is_remote(path):
            try:
                os.makedirs(path, exist_ok=True)
            except OSError as exc:
                raise self._error(exc, path) from None
        elif scheme_of(path) not in OBJECT_STORES:
            fs, fs_path = self._fs(path)
            self._call(fs.makedirs, path, fs_path, exist_ok=True)

    @contextlib.contextmanager
    def open_write(self, path: str, *, sync: bool = False) -> Iterator[IO[bytes]]:
        """A binary file written under ``path`` itself; on any failure it is removed (an
        object store's unfinished upload is discarded, so it never appears). ``sync``
        flushes a local file's data to the disk when it closes."""
        self._writable(path)
        scheme = scheme_of(path)
        if scheme is None:
            folder = os.path.dirname(path)
            if folder:
                os.makedirs(folder, exist_ok=True)
            try:
                with open(path, "wb", opener=_no_follow) as fh:
                    yield fh
                    fh.flush()
                    if sync:
                        os.fdatasync(fh.fileno())
            except BaseException:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
                raise
            return
        fs, fs_path = self._fs(path)
        if scheme in OBJECT_STORES:
            fh = self._call(fs.open, path, fs_path, "wb", block_size=WRITE_BLOCK)
            try:
                yield fh
            except BaseException:
                with contextlib.suppress(Exception):
                    fh.discard()  # aborts the multipart upload: nothing becomes visible
                fh.closed = True  # a discarded file must not upload again when collected
                raise
            self._call(fh.close, path)
            return
        try:
            with fs.open(fs_path, "wb") as fh:
                yield fh
        except BaseException:
            with contextlib.suppress(Exception):
                fs.rm_file(fs_path)
            raise

    def promote(self, tmp: str, path: str, *, sync_folder: bool = False) -> None:
        """Put the finished file ``tmp`` under its final name ``path`` (replacing what was
        there): a rename locally and on HDFS, a server-side copy then the deletion of
        ``tmp`` on an object store (the copy appears whole). ``sync_folder`` also flushes
        a local folder's entries (the rename) to the disk."""
        self._writable(path)
        scheme = scheme_of(path)
        if scheme is None:
            try:
                os.replace(tmp, path)
            except OSError as exc:
                raise self._error(exc, path) from None
            if sync_folder:
                fsync_folder(os.path.dirname(path) or ".")
            return
        fs, fs_path = self._fs(path)
        _, tmp_fs_path = self._fs(tmp)
        if scheme in OBJECT_STORES:
            self._call(fs.copy, path, tmp_fs_path, fs_path)
            self._call(fs.rm_file, tmp, tmp_fs_path)
            return
        with contextlib.suppress(FileNotFoundError):
            fs.rm_file(fs_path)  # HDFS renames never replace
        self._call(fs.mv, path, tmp_fs_path, fs_path)

    @contextlib.contextmanager
    def atomic_writer(self, path: str, *, durable: bool = True) -> Iterator[IO[bytes]]:
        """A binary file whose content appears at ``path`` whole, or not at all.

        Local and HDFS: written to ``.<name>.tmp`` beside ``path`` and renamed over it
        (``durable``: the data and the rename are flushed to the disk). Object stores:
        written to ``path`` itself (the object appears when its upload completes)."""
        if scheme_of(path) in OBJECT_STORES:
            with self.open_write(path) as fh:
                yield fh
            return
        tmp = temp_path(path)
        with self.open_write(tmp, sync=durable) as fh:
            yield fh
        try:
            self.promote(tmp, path, sync_folder=durable)
        except BaseException:
            self.remove(tmp)
            raise

    def write_bytes(self, path: str, data: bytes, *, durable: bool = True) -> None:
        """Write a small file atomically (metadata, markers)."""
        with self.atomic_writer(path, durable=durable) as fh:
            fh.write(data)

    def remove(self, path: str) -> None:
        """Delete one file if it exists (never a folder, never a pattern)."""
        self._writable(path)
        if not is_remote(path):
            with contextlib.suppress(FileNotFoundError):
                try:
                    os.unlink(path)
                except IsADirectoryError:
                    raise StorageError(f"{path}: a folder, not a file") from None
            return
        fs, fs_path = self._fs(path)
        try:
            fs.rm_file(fs_path)
        except FileNotFoundError:
            pass
        except Exception as exc:  # noqa: BLE001
            raise self._error(exc, path) from None

    def remove_all(self, paths: list[str]) -> None:
        """Delete each of ``paths`` (files) that exists; an object store deletes in bulk."""
        remote = [p for p in paths if is_remote(p)]
        for path in paths:
            if not is_remote(path):
                self.remove(path)
        if not remote:
            return
        fs, _ = self._fs(remote[0])
        if scheme_of(remote[0]) in OBJECT_STORES:
            self._call(fs.rm, remote[0], [self._fs(p)[1] for p in remote])
        else:
            for path in remote:
                self.remove(path)

    def remove_empty_dir(self, path: str) -> None:
        """Remove the folder ``path`` if it is empty (object stores have no folders)."""
        if not is_remote(path):
            with contextlib.suppress(OSError):
                os.rmdir(path)
        elif scheme_of(path) not in OBJECT_STORES and scheme_of(path) not in READ_ONLY_SCHEMES:
            fs, fs_path = self._fs(path)
            with contextlib.suppress(Exception):
                fs.rmdir(fs_path)

    # -- conditional writes (object stores) -----------------------------------------------

    def _s3(self, path: str) -> tuple[Any, str, str]:
        fs, fs_path = self._fs(path)
        if scheme_of(path) not in ("s3", "s3a"):
            raise StorageError(
                f"{redact_url(path)}: conditional writes (what a run lock needs where there is "
                "no flock) are implemented for s3:// only; write the output to s3:// or a "
                "local or mounted path")
        bucket, _, key = fs_path.partition("/")
        return fs, bucket, key

    def create(self, path: str, data: bytes) -> str:
        """Write ``path`` only if it does not exist (``If-None-Match: *``); returns its
        ETag. :class:`~pipeline.storage.errors.Conflict` when it exists."""
        fs, bucket, key = self._s3(path)
        reply = self._call(fs.call_s3, path, "put_object", Bucket=bucket, Key=key, Body=data,
                           IfNoneMatch="*")
        return str(reply["ETag"])

    def replace(self, path: str, data: bytes, etag: str) -> str:
        """Overwrite ``path`` only if its ETag is still ``etag`` (``If-Match``); returns
        the new ETag. :class:`~pipeline.storage.errors.Conflict` when it changed."""
        fs, bucket, key = self._s3(path)
        reply = self._call(fs.call_s3, path, "put_object", Bucket=bucket, Key=key, Body=data,
                           IfMatch=etag)
        return str(reply["ETag"])

    def abort_uploads(self, folder: str, names: re.Pattern[str]) -> list[str]:
        """Abort every unfinished multipart upload of an object directly in ``folder``
        whose name ``names`` matches, and return their URLs. A writer killed in the middle
        of an upload (SIGKILL, the OOM killer, a lost host) leaves one: no object appears,
        a listing shows nothing, but S3 keeps (and bills) its parts until it is aborted or a
        lifecycle rule (``AbortIncompleteMultipartUpload``) removes it. S3 only: elsewhere
        an unfinished write is a file the caller removes by name (none here)."""
        if scheme_of(folder) not in ("s3", "s3a"):
            return []
        fs, bucket, key = self._s3(folder)
        prefix = key.rstrip("/") + "/"
        aborted: list[str] = []
        markers: dict[str, str] = {}
        while True:
            reply = self._call(fs.call_s3, folder, "list_multipart_uploads", Bucket=bucket,
                               Prefix=prefix, **markers)
            for upload in reply.get("Uploads", []):
                name = upload["Key"][len(prefix):]
                if "/" not in name and names.fullmatch(name):
                    url = f"{scheme_of(folder)}://{bucket}/{upload['Key']}"
                    self._call(fs.call_s3, url, "abort_multipart_upload", Bucket=bucket,
                               Key=upload["Key"], UploadId=upload["UploadId"])
                    aborted.append(url)
            if not reply.get("IsTruncated"):
                return aborted
            markers = {"KeyMarker": reply["NextKeyMarker"],
                       "UploadIdMarker": reply["NextUploadIdMarker"]}

    def read_versioned(self, path: str) -> Versioned | None:
        """``path``'s content, ETag and age (by the store's own clock: no skew between
        hosts) read in one request, or None when it does not exist."""
        fs, bucket, key = self._s3(path)
        from email.utils import parsedate_to_datetime

        from fsspec.asyn import sync

        async def get() -> Versioned:
            reply = await fs._call_s3("get_object", Bucket=bucket, Key=key)
            async with reply["Body"] as body:
                data = await body.read()
            now = reply.get("ResponseMetadata", {}).get("HTTPHeaders", {}).get("date")
            modified = reply.get("LastModified")
            age = ((parsedate_to_datetime(now) - modified).total_seconds()
                   if now and modified else 0.0)
            return Versioned(bytes(data), str(reply["ETag"]), max(age, 0.0))

        try:
            return sync(fs.loop, get)
        except FileNotFoundError:
            return None
        except Exception as exc:  # noqa: BLE001
            raise self._error(exc, path) from None

    def remove_if(self, path: str, etag: str) -> None:
        """Delete ``path`` if its ETag is still ``etag`` (``If-Match``; a store that ignores
        the condition deletes it anyway)."""
        fs, bucket, key = self._s3(path)
        try:
            fs.call_s3("delete_object", Bucket=bucket, Key=key, IfMatch=etag)
        except FileNotFoundError:
            pass
        except Exception as exc:  # noqa: BLE001
            raise self._error(exc, path) from None

    # -- DuckDB -----------------------------------------------------------------------

    def register_duckdb(self, con: Any, path: str) -> None:
        """Let DuckDB read ``path``'s store through this layer: no extension download
        (autoinstall and autoload are off)."""
        con.execute("set autoinstall_known_extensions = false")
        con.execute("set autoload_known_extensions = false")
        if is_remote(path):
            fs, _ = self._fs(path)
            con.register_filesystem(fs)


def _no_follow(path: str, flags: int) -> int:
    """Open ``path`` as ``open()`` would, but never through a symbolic link: a link where a
    file is written is refused (ELOOP), so nothing outside the folder written is touched."""
    return os.open(path, flags | os.O_NOFOLLOW, 0o666)


def fsync_folder(folder: str) -> None:
    """Flush a local folder's entries (a rename inside it) to the disk, where the system
    allows."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems cannot sync a folder; the rename is atomic anyway
        pass
    finally:
        os.close(fd)
