"""How output files are put in place: written under a temporary name beside the final one,
flushed, then renamed (``os.replace`` is atomic within one file system), so a reader, a
later ``--resume`` or an audit sees the old file or all of the new one, never a part.

These functions are the one place that writes output files; a storage layer for object
stores (where a rename is not atomic) replaces them.
"""

from __future__ import annotations

import os
from pathlib import Path


def tmp_path(path: Path) -> Path:
    """The temporary name ``path`` is written under before it is renamed into place.

    >>> tmp_path(Path("out/records/run_id=r/part-00003.parquet")).name
    '.part-00003.parquet.tmp'
    """
    return path.with_name(f".{path.name}.tmp")


def write_atomic(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` through :func:`tmp_path` and a rename: ``path`` then holds
    the old content or all of the new, even when the disk fills up or the process dies
    (the temporary file is removed on any failure).

    ``durable`` also flushes the file and its folder to the disk (for files a later run
    trusts: completion markers, stats, the run's config).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = tmp_path(path)
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        fsync_folder(path.parent)


def commit(tmp: Path, path: Path) -> None:
    """Flush a finished temporary file's data to the disk and rename it to ``path``: a
    completion marker written (durably) after it never points at a part whose data a power
    loss could take back. (The folder is not flushed per part: the marker's is.)"""
    fd = os.open(tmp, os.O_RDONLY)
    try:
        os.fdatasync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def fsync_folder(folder: Path) -> None:
    """Flush a folder's entries (a rename inside it) to the disk, where the system allows."""
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
