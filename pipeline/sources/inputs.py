"""Turn the command line's inputs into a sorted list of archive files, and account for every
input that named nothing and every file a folder scan passed over.

An input is one of:

- a file (any name: a file given by name is always taken);
- a directory: every archive file below it, recursively (``ARCHIVE_SUFFIXES``); what the
  scan passes over is listed with the reason (:class:`Skipped`);
- a glob pattern (``*``, ``?``, ``[...]``, ``**`` recursive);
- ``@list.txt``, or any ``.txt`` file: a list of paths, one per line, blank lines and
  ``#`` comments ignored (cc-pyspark's input form); relative paths are taken relative to
  the list file's directory, or to ``input_base`` when one is given; each line may itself
  be a directory or a glob;
- Common Crawl's listings, ``warc.paths.gz`` (or any ``.paths`` / ``.paths.gz`` file): the
  same, gzip-compressed or not; their lines are relative to ``input_base``
  (``https://data.commoncrawl.org/`` or ``s3://commoncrawl/``).

Any of these may be a URL (``s3://bucket/prefix/``, ``https://host/x.warc.gz``, a glob
over a bucket): remote inputs are listed and checked through the ``storage`` the caller
passes (the runner's storage layer; this module never opens a store itself). A prefix is
listed recursively with the same suffix rules as a local folder. Remote files named one by
one (a Common Crawl listing names ~90,000) are checked in bulk, one listing per folder.

Saved pages (``.html``, ``.htm``: a browser's "Save as", a wget mirror, what trafilatura is
given) are inputs too (:class:`Page`, each with its name relative to the folder it was
found in): a file named so, or a folder scan's pages when the scan found no archive (beside
archives they are passed over, with the reason: a crawl's folder may hold an ``index.html``).

An input (or a list's line) that names no file is *missing* (:class:`Missing`): the caller
decides whether that stops the run.

:func:`expand_inputs` is the one place that lists inputs.
"""

from __future__ import annotations

import glob
import gzip
import os
import re
from dataclasses import dataclass, field
from typing import Protocol

# Every container the readers take (pipeline/sources/containers.py recognises them by their
# first bytes; these are the names a folder scan picks).
ARCHIVE_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz", ".parquet", ".warc.lz4", ".warc.zst",
                    ".warc.bz2")
#: Common Crawl's derived formats: metadata (WAT) and extracted text (WET), no raw bytes.
DERIVED_SUFFIXES = (".warc.wat.gz", ".warc.wet.gz", ".wat.gz", ".wet.gz", ".wat", ".wet")
#: Saved pages: one HTML file per page, no HTTP headers.
PAGE_SUFFIXES = (".html", ".htm")
_GLOB_CHARS = frozenset("*?[")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
#: Schemes the storage layer reads.
REMOTE_SCHEMES = ("s3", "s3a", "gs", "gcs", "hdfs", "http", "https")
#: Listing files: cc-pyspark's ``.txt`` and Common Crawl's ``warc.paths.gz``.
LIST_SUFFIXES = (".txt", ".paths", ".paths.gz")


class Lister(Protocol):
    """What listing remote inputs needs from the storage layer (``pipeline.storage.Storage``
    has it all); every method raises ``OSError`` naming the path when the store refuses."""

    def is_dir(self, path: str) -> bool: ...
    def list_files(self, path: str, *, hidden: bool = False) -> list[str]: ...
    def glob_entries(self, pattern: str) -> list[tuple[str, bool]]: ...
    def read_bytes(self, path: str) -> bytes: ...
    def existing(self, paths: list[str], failures: dict[str, str] | None = None) -> set[str]: ...


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


@dataclass(frozen=True, slots=True, order=True)
class Page:
    """A saved page to read: its path, and its name relative to the folder it was found in
    (the file's own name when it was named by itself), which ``--url-base`` extends."""

    path: str
    name: str


@dataclass(frozen=True, slots=True)
class Inputs:
    """What the inputs named: the archives and the saved pages to read, and what was missing
    or passed over."""

    files: list[str]
    missing: list[Missing] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)


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


def is_page_name(name: str) -> bool:
    """True for a saved page's name (case-insensitive).

    >>> is_page_name("Index.HTML"), is_page_name("a.htm"), is_page_name("a.warc.gz")
    (True, True, False)
    """
    return name.lower().endswith(PAGE_SUFFIXES)


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


def _is_cc_listing(path: str) -> bool:
    """True for Common Crawl's listings (``warc.paths.gz``, any ``.paths``/``.paths.gz``),
    whose lines are relative to the crawl's root, not to the listing's folder."""
    return path.split("?", 1)[0].lower().endswith((".paths", ".paths.gz"))


def _scheme(path: str) -> str | None:
    match = _URL.match(path)
    return match.group()[:-3].lower() if match else None


def _url_folder(url: str) -> str:
    return url.rstrip("/").rpartition("/")[0]


def _url_name(url: str) -> str:
    """The last segment of a URL's path (a page named by its URL)."""
    path = url.split("?", 1)[0] if _scheme(url) in ("http", "https") else url
    return path.rstrip("/").rpartition("/")[2]


def _glob_base(pattern: str) -> str:
    """The folder a glob pattern's matches are under: its segments before the first one
    that holds a glob character.

    >>> _glob_base("pages/**/*.html"), _glob_base("s3://b/site/*/index.html")
    ('pages', 's3://b/site')
    """
    segments = pattern.split("/")
    fixed = []
    for segment in segments[:-1]:
        if _GLOB_CHARS & set(segment):
            break
        fixed.append(segment)
    return "/".join(fixed)


def _has_glob(item: str) -> bool:
    path = item.split("?", 1)[0] if _URL.match(item) else item
    return bool(_GLOB_CHARS & set(path))


def _reason(exc: OSError) -> str:
    """A storage error's message without the path it starts with (the input names it)."""
    text = str(exc)
    head, sep, tail = text.partition(": ")
    return tail if sep and "://" in head else text


class _Expansion:
    def __init__(self, exclude: str | None, storage: Lister | None,
                 input_base: str | None) -> None:
        self.exclude = exclude.rstrip("/") if exclude and _URL.match(exclude) else (
            os.path.realpath(exclude) if exclude else None)
        self.storage = storage
        self.input_base = input_base
        self.seen_lists: set[str] = set()
        self.missing: list[Missing] = []
        self.skipped: list[Skipped] = []
        #: remote files named one by one, checked in bulk at the end: (url, missing label)
        self.pending: list[tuple[str, str]] = []
        #: missing label -> what a reason for it adds (a list's relative line: where from)
        self.hints: dict[str, str] = {}
        self.pages: list[Page] = []

    def take_pages(self, pages: list[Page], archives: list[str]) -> None:
        """A folder scan's pages: taken when it found no archive, else passed over."""
        if not archives:
            self.pages.extend(pages)
            return
        self.skipped.extend(Skipped(page.path, "a saved page beside archives (name the "
                                    "pages' own folder or files to decode them)")
                            for page in pages)

    def miss(self, label: str, reason: str) -> None:
        """Report ``label`` as missing, for ``reason`` (and what is known of where it was
        looked for)."""
        self.missing.append(Missing(label, reason + self.hints.get(label, "")))

    def walk(self, directory: str) -> list[str]:
        found = []
        pages: list[Page] = []
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
                elif is_page_name(name):
                    pages.append(Page(path, os.path.relpath(path, directory).replace(os.sep, "/")))
                else:
                    self.skipped.append(Skipped(path, skip_reason(name)))
        self.take_pages(pages, found)
        return found

    def walk_remote(self, prefix: str) -> list[str]:
        """A remote prefix listed recursively, with the local folder scan's rules."""
        assert self.storage is not None
        base = prefix.rstrip("/") + "/"
        found = []
        pages: list[Page] = []
        passed: set[str] = set()
        for url in self.storage.list_files(prefix, hidden=True):
            rel = url[len(base):] if url.startswith(base) else url.rpartition("/")[2]
            parts = rel.split("/")
            hidden = next((i for i, part in enumerate(parts[:-1]) if part.startswith(".")), None)
            if hidden is not None:
                folder = base + "/".join(parts[: hidden + 1])
                if folder not in passed:
                    passed.add(folder)
                    self.skipped.append(Skipped(folder, "hidden folder"))
            elif self.exclude and (url + "/").startswith(self.exclude + "/"):
                if self.exclude not in passed:
                    passed.add(self.exclude)
                    self.skipped.append(Skipped(self.exclude, "the output folder"))
            elif is_archive_name(parts[-1]):
                found.append(url)
            elif is_page_name(parts[-1]):
                pages.append(Page(url, rel))
            else:
                self.skipped.append(Skipped(url, skip_reason(parts[-1])))
        self.take_pages(pages, found)
        return found

    def read_list(self, list_path: str) -> list[str]:
        remote = _URL.match(list_path) is not None
        key = list_path if remote else os.path.realpath(list_path)
        if key in self.seen_lists:
            raise ValueError(f"input list includes itself: {list_path}")
        self.seen_lists.add(key)
        base = self.input_base or (_url_folder(list_path) if remote else os.path.dirname(list_path))
        if self.storage is not None:
            raw = self.storage.read_bytes(list_path)
        else:
            with open(list_path, "rb") as fh:
                raw = fh.read()
        if list_path.lower().endswith(".gz"):
            raw = gzip.decompress(raw)
        out: list[str] = []
        for number, line in enumerate(raw.decode("utf-8").splitlines(), 1):
            entry = line.strip()
            if not entry or entry.startswith("#"):
                continue
            label = f"{list_path}:{number}: {line.strip()}"
            if not os.path.isabs(entry) and not _URL.match(entry):
                entry = (base.rstrip("/") + "/" + entry if _URL.match(base)
                         else os.path.join(base, entry))
                if self.input_base is None and _is_cc_listing(list_path):
                    self.hints[label] = (
                        f" (a relative line, looked for in the list's folder {base or '.'} "
                        "since no --input-base was given; Common Crawl's listings need "
                        "--input-base https://data.commoncrawl.org/ or s3://commoncrawl/)")
            out.extend(self.expand_reported(entry, label))
        return out

    def expand_reported(self, item: str, label: str) -> list[str]:
        """:meth:`expand_one`, reporting ``label`` as missing when it names nothing and
        nothing inside it (a list's own lines) was reported already."""
        known = len(self.missing), len(self.pending), len(self.pages)
        hits, reason = self.expand_one(item, label)
        if not hits and reason and (len(self.missing), len(self.pending),
                                    len(self.pages)) == known:
            self.miss(label, reason)
        return hits

    def expand_one(self, item: str, label: str) -> tuple[list[str], str]:
        """The files ``item`` names, and why there are none when there are none (an empty
        reason: the answer is pending, or the misses are reported already)."""
        target = item[1:] if item.startswith("@") else item
        if _URL.match(target):
            return self.expand_remote(item, label)
        if item.startswith("@"):
            if not os.path.isfile(item[1:]):
                return [], "no such list file"
            return self.read_list(item[1:]), "the list names no file"
        if os.path.isdir(item):
            return self.walk(item), "no archive files in this folder"
        if os.path.isfile(item):
            if item.lower().endswith(LIST_SUFFIXES):
                return self.read_list(item), "the list names no file"
            if is_page_name(item):
                self.pages.append(Page(item, os.path.basename(item)))
                return [], ""
            return [item], ""
        if _GLOB_CHARS & set(item):
            out: list[str] = []
            base = _glob_base(item)
            for hit in sorted(glob.glob(item, recursive=True)):
                if os.path.isdir(hit):
                    out.extend(self.walk(hit))
                elif os.path.isfile(hit) and is_page_name(hit):
                    self.pages.append(Page(hit, os.path.relpath(hit, base or os.curdir)
                                          .replace(os.sep, "/")))
                elif os.path.isfile(hit):
                    out.append(hit)
            return out, "the pattern matches no file"
        if os.path.lexists(item):
            return [], "not a regular file or folder"
        return [], "no such file or folder"

    def expand_remote(self, item: str, label: str) -> tuple[list[str], str]:
        is_list = item.startswith("@")
        url = item[1:] if is_list else item
        if _scheme(url) not in REMOTE_SCHEMES:
            return [], (f"unsupported scheme {_scheme(url)}://; remote inputs are "
                        f"{', '.join(s + '://' for s in REMOTE_SCHEMES)}")
        if self.storage is None:
            return [], "remote inputs need the storage layer"
        try:
            if is_list or url.split("?", 1)[0].lower().endswith(LIST_SUFFIXES):
                return self.read_list(url), "the list names no file"
            if _has_glob(url):
                out: list[str] = []
                base = _glob_base(url)
                for hit, is_dir in self.storage.glob_entries(url):
                    if is_dir:
                        out.extend(self.walk_remote(hit))
                    elif is_page_name(hit):
                        self.pages.append(Page(hit, hit[len(base):].lstrip("/")
                                               if hit.startswith(base) else _url_name(hit)))
                    else:
                        out.append(hit)
                return out, "the pattern matches no file"
            if url.endswith("/"):
                return self.walk_remote(url), "no archive files under this prefix"
        except OSError as exc:
            return [], _reason(exc)
        self.pending.append((url, label))
        return [], ""

    def resolve_pending(self) -> list[str]:
        """The remote files named one by one that exist (one bulk check); a name that is
        a prefix is listed; the rest are missing."""
        if not self.pending:
            return []
        assert self.storage is not None
        failures: dict[str, str] = {}
        try:
            there = self.storage.existing([url for url, _ in self.pending], failures)
        except OSError as exc:
            for _, label in self.pending:
                self.miss(label, _reason(exc))
            return []
        found: list[str] = []
        for url, label in self.pending:
            if url in there and is_page_name(url.split("?", 1)[0]):
                self.pages.append(Page(url, _url_name(url)))
                continue
            if url in there:
                found.append(url)
                continue
            if url in failures:  # an HTTP server that cannot be reached or refuses
                self.miss(label, _reason(OSError(failures[url])))
                continue
            try:
                folder = (_scheme(url) not in ("http", "https")) and self.storage.is_dir(url)
                hits = self.walk_remote(url) if folder else []
            except OSError as exc:
                self.miss(label, _reason(exc))
                continue
            if hits:
                found.extend(hits)
            else:
                self.miss(label, "no archive files under this prefix"
                          if folder else "no such file or folder")
        return found


def expand_inputs(inputs: list[str], *, exclude: str | None = None,
                  storage: Lister | None = None, input_base: str | None = None) -> Inputs:
    """Every archive file named by ``inputs``, sorted and without duplicates (and every saved
    page, in :attr:`Inputs.pages`), with every input that named nothing (:attr:`Inputs.missing`) and every file a folder scan passed
    over (:attr:`Inputs.skipped`). ``exclude`` is a folder never scanned (the output);
    ``storage`` lists remote inputs (without it they are missing); ``input_base`` is what
    relative lines of path lists are relative to (default: the list's folder).

    Raises ``ValueError`` for a list file that includes itself.
    """
    expansion = _Expansion(exclude, storage, input_base)
    files: dict[str, str] = {}
    for item in inputs:
        for hit in expansion.expand_reported(item, item):
            files.setdefault(_normal(hit), _normal(hit))
    for hit in expansion.resolve_pending():
        files.setdefault(_normal(hit), _normal(hit))
    pages: dict[str, Page] = {}
    for page in expansion.pages:
        pages.setdefault(_normal(page.path), Page(_normal(page.path), page.name))
    return Inputs(sorted(files.values()), expansion.missing, expansion.skipped,
                  sorted(pages.values()))


def _normal(path: str) -> str:
    return path if _URL.match(path) else os.path.normpath(path)
