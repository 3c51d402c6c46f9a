"""Which records are decoded: ``response`` and ``resource`` records whose MIME type (header
essence, else sniffed) is HTML, XHTML or ``text/*``. Everything else is a :class:`Skip`
with a reason, so that records seen = written + skipped + errors.

Status codes are not a reason to skip: a 404 or 500 page, a 3xx body, is still text a
visitor saw (and often the site's own words, e.g. a localized error page), so it is decoded
and the status is kept in ``fetch_status`` for filtering. 1xx/204/304 responses have no
body and are skipped as ``empty-body``.

Skip reasons: the WARC record type for non-response records (``request``, ``revisit``,
``metadata``, ``warcinfo``, ``conversion``, ``continuation``), ``unknown-record-type``,
``non-http`` (a response record that holds no HTTP message, e.g. ``dns:`` captures),
``empty-record`` (no block, or only whitespace), ``empty-body`` and ``non-text-mime``.
"""

from __future__ import annotations

from pipeline.errors import Skip
from pipeline.http.response import HttpResponse
from pipeline.sources.record import RawRecord

DECODED_TYPES = frozenset({"response", "resource"})
KNOWN_TYPES = frozenset({"request", "revisit", "metadata", "warcinfo", "conversion", "continuation"})
TEXT_MIME_TYPES = frozenset({"text/html", "application/xhtml+xml"})


def is_text_mime(essence: str | None) -> bool:
    """HTML, XHTML or any ``text/*`` essence.

    >>> is_text_mime("text/html"), is_text_mime("application/xhtml+xml"), is_text_mime("text/css")
    (True, True, True)
    >>> is_text_mime("application/json"), is_text_mime(None)
    (False, False)
    """
    return essence is not None and (essence in TEXT_MIME_TYPES or essence.startswith("text/"))


def select(raw: RawRecord) -> Skip | None:
    """None when ``raw`` goes on to :func:`parse_response`, else why it is skipped.

    >>> r = RawRecord("f", 0, 1, "id", "request", "http://x/", None, b"GET / HTTP/1.1")
    >>> select(r)
    Skip(reason='request')
    """
    rtype = raw.record_type
    if rtype not in DECODED_TYPES:
        return Skip(rtype if rtype in KNOWN_TYPES else "unknown-record-type")
    if rtype == "response":
        ctype = (raw.warc_content_type or "").lower()
        url = (raw.url or "").lower()
        if not url.startswith(("http:", "https:")) and not ctype.startswith("application/http"):
            return Skip("non-http")
    block = raw.http_block
    if not block or (len(block) <= 64 and not block.strip()):
        return Skip("empty-record")  # nothing stored, or only the separator's whitespace
    return None


def select_response(resp: HttpResponse) -> Skip | None:
    """None when the parsed response is decoded, else why it is skipped.

    >>> resp = HttpResponse(200, (), "image/png", "image/png", False, b"x", 1, None)
    >>> select_response(resp)
    Skip(reason='non-text-mime')
    """
    if not resp.body:
        return Skip("empty-body")
    if not is_text_mime(resp.mime_type):
        return Skip("non-text-mime")
    return None
