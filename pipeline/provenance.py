"""What code made a run's rows: the pipeline's version, a digest of the package's own files,
and the versions of the parsers, detectors and libraries whose answers reach the tables.

A run records it in ``_run.json`` and in its ``runs`` row (``code``), and ``rules_version``
follows every version in it (:func:`code_versions`): a row made by other code has another
``rules_version``. The digest of the package's files is recorded beside them, not in
``rules_version``: it tells an edit whose version was not bumped, and changes with any
comment.

Nothing here imports the compiled modules or ``importlib.metadata`` (a run's start-up pays
for neither): the build's record is a file, a library's version is the name of its
``.dist-info`` folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from pipeline import __version__
from pipeline.derived import cache_dir, write_once

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


def _source_files(folder: str, prefix: str = "") -> Iterator[tuple[str, os.stat_result]]:
    """The source files under ``folder`` (a package's): (path from the package, POSIX, and
    its ``stat``), in no particular order."""
    with os.scandir(folder) as entries:
        for entry in entries:
            name = prefix + entry.name
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    yield from _source_files(entry.path, name + "/")
            elif (os.path.splitext(entry.name)[1] in _SOURCE_SUFFIXES and name != NATIVE_INFO.name
                  and entry.is_file()):
                yield name, entry.stat()


def _digest_files(package: Path, names: list[str]) -> str:
    digest = hashlib.sha256()
    for name in names:
        digest.update(name.encode() + b"\0")
        digest.update(hashlib.sha256((package / name).read_bytes()).digest())
    return digest.hexdigest()


def _source_digest(package: Path = _PACKAGE) -> str:
    """sha256 over the source files of ``package`` (each one's path and sha256, in path
    order).

    Kept in :func:`pipeline.derived.cache_dir`, named by the files' paths and ``stat``
    (size, modification and change times, inode): reading and hashing the ~1 MB took ~5 ms
    of every run's start-up, listing the files takes ~1. An edit changes a file's change
    time (which no tool sets back), so it is digested again."""
    # in the order of their paths' parts (as pathlib sorts them)
    files = sorted(_source_files(str(package)), key=lambda file: file[0].split("/"))
    state = hashlib.sha256(str(package).encode())
    for name, st in files:
        state.update(f"\0{name}\0{st.st_size} {st.st_mtime_ns} {st.st_ctime_ns} {st.st_ino}"
                     .encode())
    target = cache_dir() / f"source-{state.hexdigest()[:32]}.txt"
    with contextlib.suppress(OSError, UnicodeDecodeError):
        kept = target.read_text("ascii")
        if _SHA256_HEX.fullmatch(kept):
            return kept
    digest = _digest_files(package, [name for name, _ in files])
    write_once(target, lambda tmp: tmp.write_text(digest, "ascii"))
    return digest


_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


#: Written by the build (``setup.py``, ``BuildNative``): the parsers compiled in, and which
#: extensions were built.
NATIVE_INFO = _PACKAGE / "_native.json"


def _compiled_versions() -> dict[str, str]:
    """What the build compiled in, as the build recorded it (nothing is imported)."""
    try:
        info = json.loads(NATIVE_INFO.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"native": "no record of the build"}
    return {str(key): json.dumps(value) if not isinstance(value, str) else value
            for key, value in sorted(info.items())}


#: An installed distribution's metadata folder: ``{name}-{version}.dist-info`` (the name with
#: ``-`` written ``_``: the wheel format's escaping, PEP 427).
_DIST_INFO = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)\.dist-info$")


def _normalized(name: str) -> str:
    """A distribution name as PEP 503 normalizes it (``chardetng_py`` -> ``chardetng-py``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def distribution_versions(names: tuple[str, ...]) -> dict[str, str]:
    """The installed version of each distribution of ``names``, as the first folder of
    ``sys.path`` that holds one names it (what ``importlib.metadata.version`` answers); "not
    installed" when none does.

    >>> distribution_versions(("pyarrow",))["pyarrow"] != "not installed"
    True
    """
    wanted = {_normalized(name): name for name in names}
    found: dict[str, str] = {}
    for folder in sys.path:
        if len(found) == len(wanted):
            break
        try:
            entries = os.scandir(folder or ".")
        except OSError:
            continue
        with entries:
            for entry in entries:
                match = _DIST_INFO.match(entry.name)
                if match is not None:
                    key = _normalized(match["name"])
                    if key in wanted and wanted[key] not in found:
                        found[wanted[key]] = match["version"]
    return {name: found.get(name, "not installed") for name in names}


@cache
def code_versions() -> dict[str, str]:
    """The versions of the code that decodes in this process: ``{"pipeline": version, what
    the build compiled in ("lexbor", "ada", "ced", "nanoarrow", "built", "sanitize"), and one entry per
    library}`` (what ``rules_version`` follows)."""
    return {"pipeline": __version__, **_compiled_versions(), **distribution_versions(LIBRARIES)}


@cache
def code_identity() -> dict[str, str]:
    """:func:`code_versions` and ``source_sha256``, the digest of the package's own files."""
    return {**code_versions(), "source_sha256": _source_digest()}


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
