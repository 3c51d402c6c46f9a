"""Typed interface of ``pipeline/encoding/_ced.cpp`` (imported through :mod:`pipeline.native`
only)."""

from _typeshed import ReadableBuffer

#: ``CompactEncDet::Version()``.
CED_VERSION: str
WEB_CORPUS: int
QUERY_CORPUS: int

def detect(
    data: ReadableBuffer,
    url_hint: str | None = None,
    http_charset_hint: str | None = None,
    meta_charset_hint: str | None = None,
    encoding_hint: str | None = None,
    language_hint: str | None = None,
    corpus: int = 0,
    ignore_7bit: bool = False,
) -> tuple[str, str, bool, int]:
    """``CompactEncDet::DetectEncoding``: (MIME name, CED name, is_reliable, bytes consumed)."""
