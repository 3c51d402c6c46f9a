"""Registered domains (eTLD+1) from the Public Suffix List snapshot that ships inside the
``publicsuffixlist`` package (read from the package's own file; never fetched at run time).

Private suffixes (``github.io``, ``blogspot.com``) count as public suffixes, as browsers
do for "site": ``a.github.io`` and ``b.github.io`` are different registered domains.
"""

from __future__ import annotations

from functools import lru_cache

from publicsuffixlist import PublicSuffixList

try:
    from pipeline.extract import _urls  # type: ignore[attr-defined]
except ImportError:  # built without a compiler
    _urls = None

_PSL = PublicSuffixList()  # loads the bundled public_suffix_list.dat, no network


@lru_cache(maxsize=65536)
def registered_domain(host: str | None) -> str | None:
    """The registered domain of ``host`` (an ASCII-serialized URL host).

    IP addresses are their own registered domain; a host that is itself a public suffix,
    or has no dot, has none.

    >>> registered_domain("news.bbc.co.uk"), registered_domain("a.b.github.io")
    ('bbc.co.uk', 'b.github.io')
    >>> registered_domain("192.168.0.1"), registered_domain("[::1]"), registered_domain("co.uk")
    ('192.168.0.1', '[::1]', None)
    """
    if not host:
        return None
    if host.startswith("[") or host.replace(".", "").isdigit():
        return host
    return _PSL.privatesuffix(host.rstrip(".").lower())


def url_host(href: str) -> str | None:
    """The host of a serialized special URL (``scheme://[userinfo@]host[:port]/...``).

    >>> url_host("https://u:p@www.Example.com:8080/x?y"), url_host("mailto:a@b.c")
    ('www.Example.com', None)
    """
    start = href.find("://")
    if start < 0:
        return None
    start += 3
    end = len(href)
    for stop in "/?#":
        at = href.find(stop, start)
        if 0 <= at < end:
            end = at
    authority = href[start:end]
    authority = authority[authority.rfind("@") + 1 :]
    if authority.startswith("["):
        close = authority.find("]")
        return authority[: close + 1] if close >= 0 else authority
    colon = authority.find(":")
    host = authority if colon < 0 else authority[:colon]
    return host or None


def url_hosts(urls: list[str | None]) -> list[str | None]:
    """:func:`url_host` of each URL (None stays None), in one C call when ``_urls`` is built.

    >>> url_hosts(["https://a.example/x", None, "mailto:x@y"])
    ['a.example', None, None]
    """
    if _urls is not None:
        return _urls.hosts(urls)
    return [None if url is None else url_host(url) for url in urls]
