"""Start-up data redecode derives once from what its dependencies ship, and keeps between
runs: where it lives, and how one is written so that concurrent processes never read half
of it.

The folder is ``REDECODE_CACHE_DIR``, else ``$XDG_CACHE_HOME/redecode``, else
``~/.cache/redecode``; every file in it is named by what it was derived from (a content hash,
or a dependency's release and the size of the file it ships), so every checkout and venv
shares one copy and a new release of a dependency makes a new one. Deleting the folder costs the next run the derivation, nothing else.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path


def cache_dir() -> Path:
    """Where redecode keeps derived files it can rebuild at any time (``REDECODE_CACHE_DIR``,
    else ``$XDG_CACHE_HOME/redecode``, else ``~/.cache/redecode``)."""
    explicit = os.environ.get("REDECODE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "redecode"


def write_once(target: Path, write: Callable[[Path], object],
               errors: tuple[type[Exception], ...] = ()) -> bool:
    """Make ``target`` (a file or a folder) by ``write(temporary path)`` and move it into place
    atomically, unless it is there already; False when it cannot be written (a read-only
    cache, or ``write`` raised one of ``errors``: the caller derives in memory). A process
    that loses the race keeps the winner's."""
    if target.exists():
        return True
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    failures: tuple[type[Exception], ...] = (OSError, *errors)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write(tmp)
        os.replace(tmp, target)
    except failures:
        if tmp.is_dir():
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                tmp.unlink()
        return target.exists()
    return True
