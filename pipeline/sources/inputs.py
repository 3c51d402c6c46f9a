"""Turn the command line's inputs into a sorted list of archive files.

An input is one of:

- a file (any name: a file given by name is always taken);
- a directory: every archive file below it, recursively (``ARCHIVE_SUFFIXES``);
- a glob pattern (``*``, ``?``, ``[...]``, ``**`` recursive);
- ``@list.txt``, or any ``.txt`` file: a list of paths, one per line, blank lines and
  ``#`` comments ignored (cc-pyspark's input form); relative paths are taken relative to
  the list file's directory; each line may itself be a directory or a glob.
"""

from __future__ import annotations

import glob
import os

# .warc.lz4 / .warc.zst are included so that a directory of them is accounted for (each
# gives an "unsupported compression" error row) rather than silently passed over.
ARCHIVE_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz", ".parquet", ".warc.lz4", ".warc.zst")
_GLOB_CHARS = frozenset("*?[")


def is_archive_name(name: str) -> bool:
    """True for the archive extensions searched in directories (case-insensitive).

    >>> is_archive_name("CC-MAIN-1.warc.gz"), is_archive_name("notes.txt")
    (True, False)
    """
    return name.lower().endswith(ARCHIVE_SUFFIXES)


def _walk(directory: str) -> list[str]:
    found = []
    for root, dirs, files in os.walk(directory, followlinks=False):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found.extend(os.path.join(root, f) for f in files if is_archive_name(f))
    return found


def _read_list(list_path: str, seen_lists: set[str]) -> list[str]:
    real = os.path.realpath(list_path)
    if real in seen_lists:
        raise ValueError(f"input list includes itself: {list_path}")
    seen_lists.add(real)
    base = os.path.dirname(list_path)
    out: list[str] = []
    with open(list_path, encoding="utf-8") as fh:
        for line in fh:
            entry = line.strip()
            if not entry or entry.startswith("#"):
                continue
            if not os.path.isabs(entry) and "://" not in entry:
                entry = os.path.join(base, entry)
            out.extend(_expand_one(entry, seen_lists))
    return out


def _expand_one(item: str, seen_lists: set[str]) -> list[str]:
    if item.startswith("@"):
        return _read_list(item[1:], seen_lists) if os.path.isfile(item[1:]) else []
    if os.path.isdir(item):
        return _walk(item)
    if os.path.isfile(item):
        if item.lower().endswith(".txt"):
            return _read_list(item, seen_lists)
        return [item]
    if _GLOB_CHARS & set(item):
        out: list[str] = []
        for hit in glob.glob(item, recursive=True):
            if os.path.isdir(hit):
                out.extend(_walk(hit))
            elif os.path.isfile(hit):
                out.append(hit)
        return out
    return []


def expand_inputs(inputs: list[str]) -> list[str]:
    """Every archive file named by ``inputs``, sorted and without duplicates.

    Raises ``ValueError`` (a usage error) when nothing matches, naming the inputs that
    matched nothing.
    """
    seen_lists: set[str] = set()
    files: dict[str, str] = {}
    missing: list[str] = []
    for item in inputs:
        hits = _expand_one(item, seen_lists)
        if not hits:
            missing.append(item)
        for hit in hits:
            files.setdefault(os.path.normpath(hit), os.path.normpath(hit))
    if not files:
        shown = ", ".join(missing) if missing else "(no inputs)"
        raise ValueError(f"no input files found: {shown}")
    return sorted(files.values())
