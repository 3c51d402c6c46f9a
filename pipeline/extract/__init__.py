"""Extraction stage: fields of a decoded HTML document (title, metadata, links, main text).

Public API: :func:`pipeline.extract.extract` (see ``extract.py``) with
:class:`pipeline.extract.options.ExtractOptions`; results are
:class:`pipeline.extract.fields.Extracted` / :class:`~pipeline.extract.fields.Link`.
"""

from __future__ import annotations

from pipeline.extract.document import CAPPED
from pipeline.extract.extract import extract
from pipeline.extract.fields import Extracted, Link
from pipeline.extract.options import ExtractOptions

__all__ = ["CAPPED", "Extracted", "ExtractOptions", "Link", "extract"]
