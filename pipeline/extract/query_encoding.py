"""The URL Standard's *percent-encode after encoding* for a URL's query, in the
document's encoding (what browsers do with the query of a link on a legacy page).

https://url.spec.whatwg.org/#string-percent-encode-after-encoding — the bytes come from the
Encoding Standard's encoders (:mod:`pipeline.encoding.encoders`, derived from the same
indexes as the decoders); a code point the encoder cannot encode becomes
``%26%23NNN%3B`` (its "html" error mode, percent-encoded). UTF-8, UTF-16BE/LE and
replacement documents encode URLs as UTF-8 (the HTML Standard's "encoding-parse a URL" takes
the document's *output encoding*).
"""

from __future__ import annotations

from pipeline.encoding.encoders import UTF8_OUTPUT, encode_or_fail

__all__ = ["UTF8_OUTPUT", "percent_encode_query"]

_HEX = "0123456789ABCDEF"


def _in_set(byte: int, special: bool) -> bool:
    # The query percent-encode set: C0 controls, space, ", #, <, >, and > U+007E; the
    # special-query percent-encode set adds '.
    return (
        byte < 0x21 or byte > 0x7E or byte in (0x22, 0x23, 0x3C, 0x3E)
        or (special and byte == 0x27)
    )


def _percent_encode_bytes(data: bytes, special: bool, out: list[str]) -> None:
    for byte in data:
        if _in_set(byte, special):
            out.append("%" + _HEX[byte >> 4] + _HEX[byte & 15])
        else:
            out.append(chr(byte))


def percent_encode_query(query: str, encoding: str, special: bool) -> str:
    """URL Standard query state: *percent-encode after encoding* ``query`` with ``encoding``.

    ``encoding`` is a WHATWG encoding name (unknown names act as UTF-8). Unencodable code
    points become ``%26%23NNN%3B`` (the encoder's "html" error mode, percent-encoded).

    >>> percent_encode_query("a=\\u2020", "windows-1252", True)
    'a=%86'
    >>> percent_encode_query("\\u2020", "EUC-KR", True)
    '%A2%D3'
    >>> percent_encode_query("\\u00a2'", "ISO-8859-2", False)
    "%26%23162%3B'"
    """
    if not _is_scalar(query):
        # The URL parser takes scalar values: a lone surrogate is U+FFFD by then.
        query = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in query)
    out: list[str] = []
    # "While potentialError is non-null": each error is appended as %26%23NNN%3B in place.
    for item in encode_or_fail(query, encoding):
        if isinstance(item, int):
            out.append(f"%26%23{item}%3B")
        else:
            _percent_encode_bytes(item, special, out)
    return "".join(out)


def _is_scalar(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
