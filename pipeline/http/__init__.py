"""HTTP: a stored response (:class:`RawRecord`) → :class:`HttpResponse` with transfer and
content codings removed and a MIME type; and which records are decoded at all.

- :func:`parse_response` (``parse.py``): status line, header fields, de-chunking, content
  codings with a size cap, MIME type (header, else sniffed).
- :func:`select` / :func:`select_response` (``select.py``): the record-type and MIME filters.
"""

from __future__ import annotations

from pipeline.http.parse import parse_response
from pipeline.http.response import HttpResponse
from pipeline.http.select import is_text_mime, select, select_response

__all__ = ["HttpResponse", "is_text_mime", "parse_response", "select", "select_response"]
