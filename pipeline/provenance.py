"""What code made a run's rows: the pipeline's version, a digest of the package's own files,
and the versions of the parsers, detectors and libraries whose answers reach the tables.

A run records it in ``_run.json`` (``code``); an incremental re-decode (``--base-run``) copies
rows only from a run whose code is the same, since any of these can change a row.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from importlib import metadata
from pathlib import Path

from pipeline import __version__

#: Distributions whose behaviour reaches a row (parsing, detection, decoding, URL and host
#: handling, Parquet writing).
LIBRARIES = (
    "ada-url", "brotli", "chardetng-py", "charset-normalizer", "fastwarc", "ftfy", "isal",
    "lz4", "numpy", "publicsuffixlist", "py3langid", "pyarrow", "warcio",
    "zstandard",
)
#: The package's files that make up its behaviour: the Python and the data it loads (the
#: same set in a source checkout and in an installed wheel; compiled modules are named by
#: the versions of what they compile in, below).
_SOURCE_SUFFIXES = (".py", ".json", ".txt", ".dat", ".npz")
_PACKAGE = Path(__file__).resolve().parent


def _source_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*")):
        if (path.suffix in _SOURCE_SUFFIXES and "__pycache__" not in path.parts
                and path != NATIVE_INFO and path.is_file()):
            digest.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


#: Written by the build (``setup.py``, ``BuildNative``): the parsers compiled in, and which
#: extensions were built.
NATIVE_INFO = _PACKAGE / "_native.json"


def _compiled_versions() -> dict[str, str]:
    """What the build compiled in, as the build recorded it (nothing is imported)."""
    try:
        info = json.loads(NATIVE_INFO.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"native": "not built"}
    return {str(key): json.dumps(value) if not isinstance(value, str) else value
            for key, value in sorted(info.items())}


@cache
def code_identity() -> dict[str, str]:
    """The code that decodes in this process: ``{"pipeline": version, "source_sha256": ...,
    what the build compiled in ("lexbor", "ada", "ced", "built", ...), and one entry per
    library}``."""
    identity = {"pipeline": __version__, "source_sha256": _source_digest(), **_compiled_versions()}
    for name in LIBRARIES:
        try:
            identity[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            identity[name] = "not installed"
    return identity


def code_changes(before: dict[str, str] | None, after: dict[str, str]) -> list[str]:
    """What differs between two :func:`code_identity` values, one line a key
    (``"pyarrow 15.0.0 -> 16.1.0"``); a run that recorded none differs in everything.

    >>> code_changes({"pipeline": "0.1.0", "ftfy": "6.2"}, {"pipeline": "0.1.0", "ftfy": "6.3"})
    ['ftfy 6.2 -> 6.3']
    >>> code_changes(None, {"pipeline": "0.1.0"})
    ['the base run recorded no code identity']
    """
    if not before:
        return ["the base run recorded no code identity"]
    return [f"{key} {before.get(key, 'absent')} -> {after.get(key, 'absent')}"
            for key in sorted(set(before) | set(after)) if before.get(key) != after.get(key)]
