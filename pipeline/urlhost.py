"""Host columns of a record URL: host name, TLD, registered domain (Public Suffix List).

The PSL snapshot ships inside the ``publicsuffixlist`` package (``public_suffix_list.dat``);
nothing is fetched at run time.
"""

from __future__ import annotations

from functools import lru_cache

import ada_url
from publicsuffixlist import PublicSuffixList

_PSL = PublicSuffixList()


@lru_cache(maxsize=65536)
def registered_domain(host: str | None) -> str | None:
    """The registrable domain ("eTLD+1") of an ASCII host, None for IPs, suffixes and bad hosts.

    >>> registered_domain("www.bbc.co.uk")
    'bbc.co.uk'
    >>> registered_domain("co.uk") is None
    True
    """
    if not host or host.startswith("[") or host.replace(".", "").isdigit():
        return None
    return _PSL.privatesuffix(host.rstrip(".").lower())


def host_fields(url: str | None) -> tuple[str | None, str | None, str | None]:
    """``(url_host_name, url_host_tld, url_host_registered_domain)`` for a URL (WHATWG parsing).

    >>> host_fields("http://WWW.Example.CO.JP:8080/a")
    ('www.example.co.jp', 'jp', 'example.co.jp')
    >>> host_fields("not a url")
    (None, None, None)
    """
    if not url:
        return None, None, None
    try:
        host = ada_url.URL(url).hostname
    except ValueError:
        return None, None, None
    if not host:
        return None, None, None
    bare = host.rstrip(".")
    if bare.startswith("[") or bare.replace(".", "").isdigit():
        return host, None, None
    tld = bare.rsplit(".", 1)[-1] or None
    return host, tld, registered_domain(bare)
