"""Host columns of a record URL: host name, TLD, registered domain (Public Suffix List).

The registered domain comes from :func:`pipeline.extract.domains.registered_domain`, the same
function that decides whether a link is ``internal``, so the two always agree.
"""

from __future__ import annotations

import ada_url

from pipeline.extract.domains import registered_domain


def host_fields(url: str | None) -> tuple[str | None, str | None, str | None]:
    """``(url_host_name, url_host_tld, url_host_registered_domain)`` for a URL (WHATWG parsing).

    >>> host_fields("http://WWW.Example.CO.JP:8080/a")
    ('www.example.co.jp', 'jp', 'example.co.jp')
    >>> host_fields("http://192.0.2.1/")
    ('192.0.2.1', None, '192.0.2.1')
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
    is_ip = bare.startswith("[") or bare.replace(".", "").isdigit()
    tld = None if is_ip else (bare.rsplit(".", 1)[-1] or None)
    return host, tld, registered_domain(bare)
