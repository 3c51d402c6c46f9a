"""Saved pages (``.html``, ``.htm`` files: a browser's "Save as", a wget mirror, the files
trafilatura is given) as records: each file is one ``resource`` record of MIME type
``text/html`` with no HTTP header, so it goes through the same stages as a WARC record
(the body's own ``<meta charset>``, BOM or bytes decide its encoding).

A page's locator is the file itself: ``warc_filename`` is its path (as the input named it),
``warc_record_offset`` 0 and ``warc_record_length`` its size, so reading those bytes gives
the record back. Its ``record_id`` is derived from its name relative to the folder it was
found in (:class:`pipeline.sources.inputs.Page`), as an ARC record's is from its file name
and offset: the same page has the same id wherever the folder is mounted and whatever the
run. Its URL is the one the run was given for it (``--url-base`` and the page's name, else
the file's own ``file://`` URL, see :func:`page_url`); ``fetch_time`` is NULL (a saved
file does not say when it was fetched).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from urllib.parse import quote

from pipeline.sources.record import RawRecord

#: What is left unescaped of a page's relative name in its URL: the path characters the
#: URL Standard keeps (a name with spaces, or one of wget's "page.html?x=1", stays a path).
_PATH_SAFE = "/~!$&'()*+,;=:@"


def page_url(path: str, name: str, url_base: str | None) -> str:
    """The URL a saved page is decoded as: ``url_base`` extended by the page's relative
    ``name`` (percent-encoded where a URL path must be), else a local file's ``file://``
    URL, else (a page in a store) its own URL.

    >>> page_url("/data/site/a b.html", "a b.html", "https://example.com/")
    'https://example.com/a%20b.html'
    >>> page_url("/data/site/example.jp/index.html", "example.jp/index.html", "https://")
    'https://example.jp/index.html'
    >>> page_url("/data/site/x.htm", "x.htm", None)
    'file:///data/site/x.htm'
    """
    if url_base is not None:
        return url_base + quote(name, safe=_PATH_SAFE)
    if "://" in path:
        return path
    return Path(path).resolve().as_uri()


def page_record_id(name: str) -> str:
    """The stable id of the page whose relative name is ``name``.

    >>> page_record_id("a/index.html") == page_record_id("a/index.html")
    True
    """
    return f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'page:{name}')}>"


def page_record(shown: str, name: str, url: str, data: bytes, size: int) -> RawRecord:
    """The record of a saved page: ``shown`` (the path as rows name it), its relative
    ``name``, its ``url``, the bytes read (``data``: the reader's cap on a block, the rules'
    ``max_decompressed``, at most) and the file's ``size`` (a file longer than what was
    read is cut, flagged ``cap`` as an archive's block is)."""
    capped = size > len(data)
    return RawRecord(
        warc_filename=shown,
        warc_record_offset=0,
        warc_record_length=size,
        record_id=page_record_id(name),
        record_type="resource",
        url=url,
        fetch_time=None,
        http_block=data,
        block_truncated=capped,
        block_truncation="cap" if capped else None,
        warc_content_type="text/html",
    )
