"""The oracle of ``pipeline/sources/_fields.c``: what the fast path (``pipeline.sources.fast``)
reads of a WARC record's header, one field at a time.
"""

from __future__ import annotations

from collections.abc import Iterable


def warc_fields(items: Iterable[tuple[str, str]], names: tuple[str, ...]) -> tuple | None:
    """What the fast path reads of a record's header (FastWARC's ``headers.items()``): for
    each of ``names`` (lowercase) the value of the first item whose key lowered equals it,
    else None (the careful reader's rule for a repeated name), then the bytes the lines take
    written "key: value" CRLF in UTF-8. None instead when the careful reader could read the
    header otherwise: a key or value holds CR or LF (FastWARC ends lines at CRLF only,
    warcio at LF), or a value found holds U+FFFD (FastWARC's stand-in for bytes that are not
    UTF-8; warcio decodes such a line as ISO-8859-1). ``_fields.c`` does it in
    one pass.

    >>> warc_fields([("WARC-Type", "response"), ("warc-type", "x")], ("warc-type", "a"))
    ('response', None, 35)
    >>> warc_fields([("WARC-Target-URI", "http://\ufffd/")], ("warc-target-uri",)) is None
    True
    """
    fields: dict[str, str] = {}
    size = 0
    for key, value in items:
        if "\r" in key or "\n" in key or "\r" in value or "\n" in value:
            return None
        size += len(key.encode()) + len(value.encode()) + 4
        fields.setdefault(key.lower(), value)
    values = tuple(fields.get(name) for name in names)
    if any(value is not None and "\ufffd" in value for value in values):
        return None
    return (*values, size)
