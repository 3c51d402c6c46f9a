"""Turn the command line's inputs into a sorted list of archive files, and account for every
input that named nothing and every file a folder scan passed over.

An input is one of:

- a file (any name: a file given by name is always taken);
- a directory: every archive file below it, recursively (``ARCHIVE_SUFFIXES``); what the
  scan passes over is listed with the reason (:class:`Skipped`);
- a glob pattern (``*``, ``?``, ``[...]``, ``**`` recursive);
- ``@list.txt``, or any ``.txt`` file: a list of paths, one per line, blank lines and
  ``#`` comments ignored (cc-pyspark's input form); relative paths are taken relative to
  the list file's directory; each line may itself be a directory or a glob.

An input (or a list's line) that names no file is *missing* (:class:`Missing`), and so is a
remote URL (``s3://``, ``gs://``, ``https://``, ...) until a storage layer reads them: the
caller decides whether that stops the run.

:func:`expand_inputs` is the one place that lists inputs (a storage layer for remote paths
replaces it).
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass, field

# Every container the readers take (pipeline/sources/containers.py recognises them by their
# first bytes; these are the names a folder scan picks).
ARCHIVE_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz", ".parquet", ".warc.lz4", ".warc.zst",
                    ".warc.bz2")
#: Common Crawl's derived formats: metadata (WAT) and extracted text (WET), no raw bytes.
DERIVED_SUFFIXES = (".warc.wat.gz", ".warc.wet.gz", ".wat.gz", ".wet.gz", ".wat", ".wet")
_GLOB_CHARS = frozenset("*?[")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


@dataclass(frozen=True, slots=True)
class Missing:
    """An input that names no file (or one that cannot be read here), and why."""

    input: str
    reason: str


@dataclass(frozen=True, slots=True)
class Skipped:
    """A file (or hidden folder) a folder scan passed over, and why."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class Inputs:
    """What the inputs named: the files to read, and what was missing or passed over."""

    files: list[str]
    missing: list[Missing] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def writable_name(path: str) -> str:
    r"""``path`` as tables, JSON and terminals can hold it: a file name that is not UTF-8
    (Python keeps its bytes as lone surrogates) shows them as ``\xNN`` escapes.

    >>> writable_name("crawl/caf" + chr(0xDCE9) + ".warc.gz")  # the byte 0xE9
    'crawl/caf\\xe9.warc.gz'
    >>> writable_name("crawl/café.warc.gz")
    'crawl/café.warc.gz'
    """
    if path.isascii():
        return path
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def is_archive_name(name: str) -> bool:
    """True for the archive extensions searched in directories (case-insensitive).

    >>> is_archive_name("CC-MAIN-1.warc.gz"), is_archive_name("notes.txt")
    (True, False)
    >>> is_archive_name("CC-MAIN-1.warc.wat.gz")
    False
    """
    lower = name.lower()
    return lower.endswith(ARCHIVE_SUFFIXES) and not lower.endswith(DERIVED_SUFFIXES)


def skip_reason(name: str) -> str:
    """Why a folder scan passes over a file that :func:`is_archive_name` refuses.

    >>> skip_reason("x.warc.wet.gz")
    'WAT/WET hold no raw responses'
    >>> skip_reason("example-bad.warc.gz.bad")
    'unknown suffix .bad'
    >>> skip_reason("README.md")
    'not an archive name'
    """
    lower = name.lower()
    if lower.endswith(DERIVED_SUFFIXES):
        return "WAT/WET hold no raw responses"
    if any(kind in lower for kind in (".warc", ".arc", ".parquet")):
        return f"unknown suffix {os.path.splitext(name)[1]}"
    return "not an archive name"


class _Expansion:
    def __init__(self, exclude: str | None) -> None:
        self.exclude = os.path.realpath(exclude) if exclude else None
        self.seen_lists: set[str] = set()
        self.missing: list[Missing] = []
        self.skipped: list[Skipped] = []

    def walk(self, directory: str) -> list[str]:
        found = []
        for root, dirs, files in os.walk(directory, followlinks=False):
            kept = []
            for name in sorted(dirs):
                path = os.path.join(root, name)
                if name.startswith("."):
                    self.skipped.append(Skipped(path, "hidden folder"))
                elif self.exclude and os.path.realpath(path) == self.exclude:
                    self.skipped.append(Skipped(path, "the output folder"))
                else:
                    kept.append(name)
            dirs[:] = kept
            for name in sorted(files):
                path = os.path.join(root, name)
                if is_archive_name(name):
                    found.append(path)
                else:
                    self.skipped.append(Skipped(path, skip_reason(name)))
        return found

    def read_list(self, list_path: str) -> list[str]:
        real = os.path.realpath(list_path)
        if real in self.seen_lists:
            raise ValueError(f"input list includes itself: {list_path}")
        self.seen_lists.add(real)
        base = os.path.dirname(list_path)
        out: list[str] = []
        with open(list_path, encoding="utf-8") as fh:
            for number, line in enumerate(fh, 1):
                entry = line.strip()
                if not entry or entry.startswith("#"):
                    continue
                if not os.path.isabs(entry) and not _URL.match(entry):
                    entry = os.path.join(base, entry)
                hits, reason = self.expand_one(entry)
                if not hits:
                    self.missing.append(Missing(f"{list_path}:{number}: {line.strip()}", reason))
                out.extend(hits)
        return out

    def expand_one(self, item: str) -> tuple[list[str], str]:
        """The files ``item`` names, and why there are none when there are none."""
        if _URL.match(item):
            return [], "remote inputs (s3://, gs://, https://, ...) cannot be read yet"
        if item.startswith("@"):
            if not os.path.isfile(item[1:]):
                return [], "no such list file"
            return self.read_list(item[1:]), "the list names no file"
        if os.path.isdir(item):
            return self.walk(item), "no archive files in this folder"
        if os.path.isfile(item):
            if item.lower().endswith(".txt"):
                return self.read_list(item), "the list names no file"
            return [item], ""
        if _GLOB_CHARS & set(item):
            out: list[str] = []
            for hit in sorted(glob.glob(item, recursive=True)):
                if os.path.isdir(hit):
                    out.extend(self.walk(hit))
                elif os.path.isfile(hit):
                    out.append(hit)
            return out, "the pattern matches no file"
        if os.path.lexists(item):
            return [], "not a regular file or folder"
        return [], "no such file or folder"


def expand_inputs(inputs: list[str], *, exclude: str | None = None) -> Inputs:
    """Every archive file named by ``inputs``, sorted and without duplicates, with every
    input that named nothing (:attr:`Inputs.missing`) and every file a folder scan passed
    over (:attr:`Inputs.skipped`). ``exclude`` is a folder never scanned (the output).

    Raises ``ValueError`` for a list file that includes itself.
    """
    expansion = _Expansion(exclude)
    files: dict[str, str] = {}
    for item in inputs:
        known = len(expansion.missing)
        hits, reason = expansion.expand_one(item)
        if not hits and len(expansion.missing) == known:  # (a list names its own bad lines)
            expansion.missing.append(Missing(item, reason))
        for hit in hits:
            files.setdefault(os.path.normpath(hit), os.path.normpath(hit))
    return Inputs(sorted(files.values()), expansion.missing, expansion.skipped)
