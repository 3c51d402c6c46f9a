"""URL resolution per the WHATWG URL Standard (ada-url), with the query encoded in the
document's encoding the way browsers do.

https://url.spec.whatwg.org/#concept-basic-url-parser (query state)
https://html.spec.whatwg.org/multipage/urls-and-fetching.html#encoding-parsing-a-url

ada-url implements the basic URL parser with UTF-8 as the encoding. The HTML Standard's
*encoding-parse a URL* passes the document's character encoding, and the query state
then says: "Percent-encode after encoding, with encoding, buffer, and
queryPercentEncodeSet". So for a legacy-encoded document whose link has non-ASCII
characters in its query, the query ada produced is replaced by the one encoded here.
"""

from __future__ import annotations

from collections.abc import Callable

from pipeline.extract.query_encoding import UTF8_OUTPUT, percent_encode_query
from pipeline.native import urls

#: Special schemes (URL Standard §4.1) whose query takes the document encoding; the query
#: state sets encoding to UTF-8 "If url is not special or url's scheme is "ws" or "wss"".
_DOCUMENT_ENCODED_SCHEMES = ("http:", "https:", "ftp:", "file:")
_C0_OR_SPACE = "".join(chr(c) for c in range(0x21))
_TAB_OR_NEWLINE = str.maketrans("", "", "\t\n\r")


def parse_url(url: str | None) -> str | None:
    """Parse an absolute URL (the record URL); None when it is missing or fails.

    >>> parse_url("HTTP://Example.COM/a/../b c")
    'http://example.com/b%20c'
    >>> parse_url("not a url") is None
    True
    """
    if url is None:
        return None
    parsed = _ada_parse(url, None)
    return None if parsed is None else parsed[0]


def _input_query(href: str) -> str | None:
    """The part of ``href`` that the basic URL parser hands to its query state."""
    # "Remove any leading and trailing C0 control or space from input."
    # "Remove all ASCII tab or newline from input."
    text = href.strip(_C0_OR_SPACE).translate(_TAB_OR_NEWLINE)
    hash_at = text.find("#")
    if hash_at >= 0:
        text = text[:hash_at]
    query_at = text.find("?")
    return None if query_at < 0 else text[query_at + 1 :]


def _ada_parse(href: str, base: str | None) -> tuple[str, str] | None:
    """Basic URL parser (UTF-8; ada compiled into ``_urls``): the href and hostname, or None
    on failure."""
    try:
        base_data = base.encode("utf-8") if base is not None else None
    except UnicodeEncodeError:  # a lone surrogate: not a scalar value string
        return None
    return urls.parse(href, base_data)


def _ada_href(href: str, base_data: bytes | None) -> str | None:
    """The href alone of ``href`` parsed against ``base_data`` (one-at-a-time resolution; a
    document's hrefs go through :meth:`Resolver.many` and the batch parser)."""
    parsed = urls.parse(href, base_data)
    return None if parsed is None else parsed[0]


class Resolver:
    """Resolves the URLs of one document: base URL and encoding fixed, results cached."""

    __slots__ = ("_base", "_base_data", "_encoding", "_cache", "_origin", "_scheme")

    def __init__(self, base: str | None, encoding: str = "UTF-8") -> None:
        self._base = base
        try:
            self._base_data = base.encode("utf-8") if base is not None else None
        except UnicodeEncodeError:
            self._base, self._base_data = None, None
        self._encoding = encoding
        self._cache: dict[str, str | None] = {}
        # For an http(s) base (serialized: "scheme://[userinfo@]host[:port]/path..."),
        # hrefs starting "/x" or "//x" resolve exactly as the origin (scheme) + href
        # parsed alone: ada then parses one URL instead of the base again on every call.
        self._origin: str | None = None
        self._scheme: str | None = None
        if self._base is not None and self._base.startswith(("http://", "https://")):
            colon = self._base.index(":")
            path_at = self._base.find("/", colon + 3)
            if path_at > 0:
                self._origin = self._base[:path_at]
                self._scheme = self._base[: colon + 1]

    def __call__(self, href: str) -> str | None:
        """The URL for ``href``, or None when it does not parse."""
        cache = self._cache
        if href in cache:
            return cache[href]
        if href.startswith(("https://", "http://")):
            # An absolute http(s) URL: the base plays no part ("special authority
            # ignore slashes" either way).
            url = _ada_href(href, None)
        elif (self._origin is not None and href[:1] == "/" and href[1:2] != "\\"
              and href[:3].isprintable()):  # (the parser drops tabs and newlines first)
            if href[1:2] != "/":
                url = _ada_href(self._origin + href, None)  # path-absolute
            elif href[2:3] not in ("/", "\\", "") and self._scheme is not None:
                url = _ada_href(self._scheme + href, None)  # scheme-relative
            else:
                url = _ada_href(href, self._base_data)
        else:
            url = _ada_href(href, self._base_data)
        if url is not None:
            url = _document_encoded(href, (url, ""), self._encoding)[0]
        cache[href] = url
        return url

    def compiled_args(self) -> tuple[bytes | None, Callable[[str, str], str] | None, bool]:
        """What ``_urls.links`` needs to resolve as :meth:`many` does: (base as UTF-8,
        the re-encoding of a resolved URL's query in the document's encoding or None when
        queries stay UTF-8, whether every href needs it rather than only non-ASCII ones)."""
        encoding = self._encoding
        if encoding in UTF8_OUTPUT:
            return self._base_data, None, False
        # ASCII encodes to itself in every encoding but ISO-2022-JP (_document_encoded)
        return (self._base_data, lambda href, url: _document_encoded(href, (url, ""), encoding)[0],
                encoding == "ISO-2022-JP")

    def many(self, hrefs: list[str]) -> list[str | None]:
        """``[self(href) for href in hrefs]``, the uncached ones parsed in one C call."""
        cache = self._cache
        todo = [href for href in dict.fromkeys(hrefs) if href not in cache]
        if todo:
            encoding = self._encoding
            parsed = urls.hrefs(todo, self._base_data)
            if encoding in UTF8_OUTPUT:  # queries stay UTF-8: nothing to re-encode
                cache.update(zip(todo, parsed, strict=True))
            else:
                for href, url in zip(todo, parsed, strict=True):
                    if url is not None:
                        url = _document_encoded(href, (url, ""), encoding)[0]
                    cache[href] = url
        return [cache[href] for href in hrefs]


def resolve_url(href: str, base: str | None, encoding: str = "UTF-8") -> str | None:
    """*Encoding-parse a URL*: ``href`` against ``base`` with the document's ``encoding``.

    Returns the serialized URL, or None on failure (never raises).

    >>> resolve_url("../c?q=\\u2020", "http://ex.com/a/b/", "windows-1252")
    'http://ex.com/a/c?q=%86'
    >>> resolve_url("../c?q=\\u2020", "http://ex.com/a/b/")
    'http://ex.com/a/c?q=%E2%80%A0'
    >>> resolve_url("http://[::1", None) is None
    True
    """
    parsed = resolve_url_and_host(href, base, encoding)
    return None if parsed is None else parsed[0]


def resolve_url_and_host(href: str, base: str | None, encoding: str = "UTF-8") -> tuple[str, str] | None:
    """Like :func:`resolve_url`, with the URL's hostname ("" when it has none)."""
    parsed = _ada_parse(href, base)
    if parsed is None:
        return None
    return _document_encoded(href, parsed, encoding)


def _document_encoded(href: str, parsed: tuple[str, str], encoding: str) -> tuple[str, str]:
    """Replace the UTF-8 query of ``parsed`` by ``href``'s query in the document encoding."""
    result, host = parsed
    if encoding in UTF8_OUTPUT or (href.isascii() and encoding != "ISO-2022-JP"):
        # ASCII encodes to itself in every encoding but ISO-2022-JP (whose encoder
        # rejects U+000E, U+000F and U+001B).
        return parsed
    if not result.startswith(_DOCUMENT_ENCODED_SCHEMES):
        return parsed
    query = _input_query(href)
    if query is None or (query.isascii() and encoding != "ISO-2022-JP"):
        return parsed
    hash_at = result.find("#")
    head, fragment = (result, "") if hash_at < 0 else (result[:hash_at], result[hash_at:])
    query_at = head.find("?")
    if query_at < 0:  # the parser dropped the query; nothing to re-encode
        return parsed
    # Every URL with a document-encoded scheme is special: the special-query set applies.
    encoded = percent_encode_query(query, encoding, special=True)
    return head[: query_at + 1] + encoded + fragment, host
