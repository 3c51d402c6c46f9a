"""The input root of a run, and the stable name (``warc_filename``) of each input file.

Common Crawl's index names a file by its key below the bucket
(``crawl-data/CC-MAIN-2024-10/segments/.../warc/CC-MAIN-...-00000.warc.gz``), not by the
path a job happened to read it from. A run does the same: every file is named relative to
the run's **input root**, which the run records (``_run.json`` and ``runs.input_root``), so
that ``input root + warc_filename`` opens the file again (:func:`located_path`) wherever
the next run is started from.

The input root is, in this order:

- ``--input-base`` when it is given (the folder or URL a Common Crawl listing's lines are
  relative to: with ``https://data.commoncrawl.org/`` or ``s3://commoncrawl/`` the names
  are Common Crawl's own ``crawl-data/...``);
- for inputs that are all URLs of one store, the store's root: the bucket
  (``s3://bucket/``, ``gs://bucket/``), the host (``https://host/``) or the file system
  (``hdfs://namenode/``): the name is the object's key or the URL's path;
- for local inputs, the deepest folder that holds every folder named on the command line
  (a folder input itself, a glob's folder before its first wildcard) and every input file
  (a file named alone, or listed in ``@list.txt``, counts by its folder): ``redecode run
  crawl/`` names ``crawl/2024/a.warc.gz`` ``2024/a.warc.gz``, and ``redecode run
  crawl/a.warc.gz`` names it ``a.warc.gz``; as an absolute path;
- none, when the inputs mix local files and URLs or several stores: every file is then
  named by its full path or URL.

A file outside the root (an input elsewhere than ``--input-base``) keeps its full absolute
path or URL, so a name never collides with another file's.
"""

from __future__ import annotations

import os
import re

_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)")
_GLOB_CHARS = frozenset("*?[")


def _is_url(path: str) -> bool:
    return _URL.match(path) is not None


def _store_root(url: str) -> str:
    """``scheme://netloc/`` of ``url``.

    >>> _store_root("s3://commoncrawl/crawl-data/x.warc.gz")
    's3://commoncrawl/'
    """
    match = _URL.match(url)
    assert match is not None
    return f"{match.group(1).lower()}://{match.group(2)}/"


def _folder_named(item: str) -> str | None:
    """The folder a local input names itself (a folder, a glob's folder before its first
    wildcard), else None (a file, a list: they count by the files they give)."""
    if _GLOB_CHARS & set(item):
        static = []
        for part in item.split(os.sep):
            if _GLOB_CHARS & set(part):
                break
            static.append(part)
        return os.path.abspath(os.sep.join(static) or ".")
    if os.path.isdir(item):
        return os.path.abspath(item)
    return None


def input_root(inputs: list[str], files: list[str], input_base: str | None = None) -> str | None:
    """The run's input root (module docstring) for the command line's ``inputs``, the
    ``files`` they named (as the runner names them: without credentials) and
    ``input_base``; None when the files have none in common. A local root is an absolute
    path, a URL root ends with ``/``.

    >>> input_root(["s3://cc/crawl-data/"], ["s3://cc/crawl-data/a.warc.gz"])
    's3://cc/'
    >>> input_root(["x.paths"], ["https://h/crawl-data/a.warc.gz"], "https://h/")
    'https://h/'
    >>> input_root(["/data/crawl/a.warc.gz", "/data/crawl/b/c.warc.gz"],
    ...            ["/data/crawl/a.warc.gz", "/data/crawl/b/c.warc.gz"])
    '/data/crawl'
    >>> input_root(["/data/a.warc.gz", "s3://b/c.warc.gz"], ["/data/a.warc.gz", "s3://b/c.warc.gz"]) is None
    True
    """
    if input_base:
        if _is_url(input_base):
            return input_base if input_base.endswith("/") else input_base + "/"
        return os.path.abspath(input_base)
    if not files:
        return None
    remote = [path for path in files if _is_url(path)]
    if remote:
        roots = {_store_root(path) for path in remote}
        return roots.pop() if len(remote) == len(files) and len(roots) == 1 else None
    folders = [os.path.dirname(os.path.abspath(path)) for path in files]
    for item in inputs:
        local = item[1:] if item.startswith("@") else item
        if not _is_url(local) and not item.startswith("@"):
            named = _folder_named(local)
            if named is not None:
                folders.append(named)
    return os.path.commonpath(folders)


def stable_name(path: str, root: str | None) -> str:
    """``path`` (a local path or a URL without credentials) as ``warc_filename`` names it:
    relative to ``root``, else its full absolute path or URL.

    >>> stable_name("https://h/crawl-data/a.warc.gz", "https://h/")
    'crawl-data/a.warc.gz'
    >>> stable_name("/data/crawl/b/c.warc.gz", "/data/crawl")
    'b/c.warc.gz'
    >>> stable_name("/elsewhere/c.warc.gz", "/data/crawl")
    '/elsewhere/c.warc.gz'
    """
    if _is_url(path):
        if root is not None and _is_url(root) and path.startswith(root) and len(path) > len(root):
            return path[len(root):]
        return path
    full = os.path.abspath(path)
    if root is None or _is_url(root):
        return full
    if os.path.commonpath([full, root]) != root:
        return full
    return os.path.relpath(full, root).replace(os.sep, "/")


def located_path(root: str | None, warc_filename: str) -> str:
    """The file a ``warc_filename`` of a run with input root ``root`` names (what
    :func:`stable_name` undoes): an absolute path or a URL as it is, else ``root`` joined
    with it.

    >>> located_path("s3://commoncrawl/", "crawl-data/a.warc.gz")
    's3://commoncrawl/crawl-data/a.warc.gz'
    >>> located_path("/data/crawl", "b/c.warc.gz")
    '/data/crawl/b/c.warc.gz'
    """
    if root is None or _is_url(warc_filename) or os.path.isabs(warc_filename):
        return warc_filename
    if _is_url(root):
        return root + warc_filename
    return os.path.join(root, *warc_filename.split("/"))

