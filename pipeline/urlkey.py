"""Common Crawl's URL key: the SURT form its index sorts by (``url_surtkey``).

A SURT (Sort-friendly URI Reordering Transform) writes the host's labels in reverse order,
so that a host's pages and its subdomains sort together:
``https://www.Example.com/Path/?b=2&a=1`` becomes ``com,example)/path?a=1&b=2``. Common
Crawl's index computes it with the Internet Archive's canonicalization (webarchive-commons'
``WaybackURLKeyMaker``: the ``GoogleURLCanonicalizer`` then the ``IAURLCanonicalizer``, as
the ``surt`` package ports them); this module does the same steps on the URL as the URL
Standard parses it (:func:`pipeline.urlhost.parse_url`, ada), the project's one parser:

1. the scheme, user information and fragment are dropped; a default port is dropped
   (the URL Standard's parser drops it for every special scheme);
2. the host: the parser's (lowercase, IDNA's ASCII form, an IPv4 address in dotted
   decimal in whatever form it was written), without leading or trailing dots, without a
   leading ``www``, ``www2``, ... label; its labels reversed and joined with ``,`` (an IPv4
   address reversed too, as Common Crawl's keys show: ``0,100,22,165)/``); a port kept
   after it (``com,example:8080)``);
3. the path: percent-decoded repeatedly, ``.`` and ``..`` segments resolved and empty
   segments dropped, then percent-encoded again where it holds bytes outside printable
   ASCII, a space, ``%`` or ``#``; lowercased; an ASP.NET session id segment dropped; a
   trailing ``/`` dropped (but for the path ``/`` itself);
4. the query: percent-decoded repeatedly and encoded again the same way; a session id
   parameter (``jsessionid``, ``phpsessid``, ``sid`` of 32 characters, ``aspsessionid``,
   ``cfid``/``cftoken``) dropped; lowercased; its ``&``-separated parameters sorted (by
   name, then value); left out when empty.

Checked against lines of Common Crawl's own index (``tests/unit/test_urlkey.py`` names
them). DEVIATION: hosts go through the URL Standard's host parser, not Java's/Python's
IDNA 2003 and ``inet_aton`` (``http://3279880203/`` is ``195.127.0.11`` both ways; hosts
only one of the two accepts differ); ``ftp:21`` and ``ws:80`` are default ports here
(the canonicalizer drops only ``http:80`` and ``https:443``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import quote_from_bytes, unquote_to_bytes

from pipeline.urlhost import parse_url, path_and_query

#: The bytes percent-encoding leaves as they are (besides letters, digits and ``_.-~``):
#: every printable ASCII character but ``%`` and ``#``.
_SAFE = b"!\"$&'()*+,-./:;<=>?@[\\]^_`{|}~"
_WWW = re.compile(r"www\d*\.")
# What percent-encoding changes: bytes outside printable ASCII, "%" and "#".
_TO_ESCAPE = re.compile(rb"[^!-~]|[%#]")
# What path normalization changes: a "." or ".." segment, an empty segment.
_ODD_PATH = re.compile(rb"/\.\.?(?:/|$)|//")
# ASP.NET cookieless session ids in the path ("/(S(4hqa0555fwsecu455xqckv45))/x.aspx").
_PATH_SESSION = (
    re.compile(rb"^(.*/)(\((?:[a-z]\([0-9a-z]{24}\))+\)/)([^?]+\.aspx.*)$", re.IGNORECASE),
    re.compile(rb"^(.*/)(\([0-9a-z]{24}\)/)([^?]+\.aspx.*)$", re.IGNORECASE),
)
# Session ids among the query's parameters.
_QUERY_SESSION = tuple(re.compile(pattern, re.IGNORECASE) for pattern in (
    rb"^(.*)(?:jsessionid=[0-9a-z]{32})(?:&(.*))?$",
    rb"^(.*)(?:phpsessid=[0-9a-z]{32})(?:&(.*))?$",
    rb"^(.*)(?:sid=[0-9a-z]{32})(?:&(.*))?$",
    rb"^(.*)(?:aspsessionid[a-z]{8}=[a-z]{24})(?:&(.*))?$",
    rb"^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$",
))


def _unescape(data: bytes) -> bytes:
    """Percent-decoded until nothing changes (``%2525`` is ``%``)."""
    while b"%" in data:
        decoded = unquote_to_bytes(data)
        if decoded == data:
            return data
        data = decoded
    return data


def _escape(data: bytes) -> bytes:
    """Percent-encoded once: bytes outside printable ASCII, space, ``%`` and ``#``."""
    if _TO_ESCAPE.search(data) is None:
        return data
    return quote_from_bytes(data, safe=_SAFE).encode("ascii")


def _path(path: str) -> bytes:
    raw = _unescape(path.encode("utf-8"))
    out = _escape(raw if _ODD_PATH.search(raw) is None else _normalized(raw)).lower()
    for pattern in _PATH_SESSION:
        match = pattern.match(out)
        if match:
            out = match.group(1) + match.group(3)
    return out[:-1] if len(out) > 1 and out.endswith(b"/") else out


def _normalized(path: bytes) -> bytes:
    """``.`` and ``..`` segments resolved, empty segments dropped but a trailing one."""
    segments = path.split(b"/")[1:]
    kept: list[bytes] = []
    for segment in segments:
        if segment == b".":
            continue
        if segment == b"..":
            if kept:
                kept.pop()
            else:
                kept.append(segment)
            continue
        kept.append(segment)
    out = b"/" + b"".join(segment + b"/" for segment in kept[:-1] if segment)
    return out + (kept[-1] if kept else b"")


def _query(query: str) -> bytes:
    out = _escape(_unescape(query.encode("utf-8")))
    for pattern in _QUERY_SESSION:
        match = pattern.match(out)
        if match:
            out = match.group(1) + (match.group(2) or b"")
    out = out.lower()
    if b"&" in out:
        pairs = sorted(tuple(arg.split(b"=", 1)) for arg in out.split(b"&"))
        out = b"&".join(b"=".join(pair) for pair in pairs)
    return out


@lru_cache(maxsize=256)
def url_surtkey(url: str | None) -> str | None:
    """The SURT key of ``url`` as Common Crawl's index writes it (module docstring); None
    for a URL that does not parse or has no host.

    >>> url_surtkey("https://www.Example.com:443/Path/index.html?b=2&a=1#top")
    'com,example)/path/index.html?a=1&b=2'
    >>> url_surtkey("http://165.22.100.0/robots.txt"), url_surtkey("http://x.example:8080/a/")
    ('0,100,22,165)/robots.txt', 'example,x:8080)/a')
    """
    parsed = parse_url(url)
    if parsed is None or not parsed.hostname:
        return None
    host = parsed.hostname.strip(".")
    www = _WWW.match(host)
    if www:
        host = host[www.end():]
    key = ",".join(reversed(host.split(".")))
    if parsed.port:
        key += ":" + parsed.port
    found = path_and_query(url)
    assert found is not None
    path, query = found
    surt = key.encode("utf-8") + b")" + _path(path or "/")
    if query:
        canonical = _query(query)
        if canonical:
            surt += b"?" + canonical
    return surt.decode("ascii")
