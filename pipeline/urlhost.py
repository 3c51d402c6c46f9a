"""The one URL and host parser: a URL's host, top-level domain and registered domain, and
its path and query (the ``records`` columns ``url_path`` and ``url_query``).

Every stage that needs a host takes it from here: the encoding decision (the TLD default
and the operator's per-host overrides, ``pipeline.encoding.sniff``), the ``records`` host
columns (:func:`host_fields`) and the ``internal`` flag of every link
(``pipeline.extract.links``, whose compiled loop reads the host off the same ada parse).
So a row's registered domain and its links' ``internal`` flags cannot disagree.

The host is the WHATWG URL Standard's (§3 hosts, §4.4 the basic URL parser), as ada
parses it (here through ada-url's Python API; the compiled links loop calls the same ada,
built from the same package's sources, through its C API):
lowercased, IDNA-mapped to its ASCII form (``Bücher.de`` → ``xn--bcher-kva.de``),
percent-decoded (``%65xample.com`` → ``example.com``), IPv4 in any of its spellings
serialized dotted-decimal (``0x7f.1`` → ``127.0.0.1``), IPv6 in brackets, userinfo and port
left out, a trailing dot kept (``example.com.`` is another host than ``example.com``).
Hosts of non-special URLs (``foo://Example.COM/``) are opaque: kept as written, with no TLD
and no registered domain (URL Standard: only a domain has a public suffix).

The registered domain is the URL Standard's *registrable domain* of a domain host (§3.2:
the Public Suffix List algorithm, a trailing dot kept), from the PSL snapshot that ships
inside the ``publicsuffixlist`` package (read from the package's own file, never fetched at
run time; loaded when a registered domain is first asked for: :func:`public_suffix_list`). Private suffixes count as public (``a.github.io`` and ``b.github.io`` are two
registered domains), as browsers do for "site". DEVIATION: an IP address is its own
registered domain (the URL Standard gives an IP host none), so that links between pages of
one IP host are ``internal``, as a browser's "same site" (scheme and host) says.

This module imports nothing from the pipeline's stages (``encoding`` and ``extract`` both
import it; it imports neither).
"""

from __future__ import annotations

import hashlib
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ada_url import URL

from pipeline.derived import cache_dir, write_once

if TYPE_CHECKING:
    from publicsuffixlist import PublicSuffixList

_NOT_SPECIAL = 1  # ada's scheme_type for a non-special scheme (ada::scheme::NOT_SPECIAL)


@lru_cache(maxsize=256)  # (a record's URL is parsed for its row and again for its links)
def parse_url(url: str | None) -> URL | None:
    """``url`` parsed by the URL Standard's basic URL parser (ada), or None when it is None
    or does not parse."""
    if not url:
        return None
    try:
        url.encode("utf-8")
        return URL(url)
    except (ValueError, UnicodeEncodeError):  # a parse failure, or a lone surrogate
        return None


def parse_host(url: str | None) -> tuple[str, bool] | None:
    """``(host, special)`` of ``url`` parsed by the basic URL parser: the host serialized
    (URL Standard §3.6 host serializer) and whether the scheme is special (then the host
    is a domain or an IP address; otherwise an opaque host or an IPv6 address). None when
    ``url`` is None, does not parse, or has an empty or no host (``mailto:``, ``file:///``).

    >>> parse_host("HTTP://user:pw@Bücher.DE.:8080/x"), parse_host("foo://Ex.COM/")
    (('xn--bcher-kva.de.', True), ('Ex.COM', False))
    >>> parse_host("mailto:a@b.example") is None, parse_host("http://[::1") is None
    (True, True)
    """
    parsed = parse_url(url)
    if parsed is None:
        return None
    host = parsed.hostname
    if not host:
        return None
    return host, parsed.scheme_type != _NOT_SPECIAL


def url_host(url: str | None) -> str | None:
    """The host of ``url`` (see :func:`parse_host`), or None.

    >>> url_host("https://user@Example.CO.JP:8080/path?q"), url_host("http://%65x.com/")
    ('example.co.jp', 'ex.com')
    >>> url_host(None) is None, url_host("http://[::1]:80/")
    (True, '[::1]')
    """
    found = parse_host(url)
    return None if found is None else found[0]


def _ends_in_a_number(host: str) -> bool:
    """URL Standard §3.5 *ends in a number checker*: a special URL's host that ends in a
    number is an IPv4 address (the parser has already serialized it dotted-decimal)."""
    last = host[:-1] if host.endswith(".") else host
    last = last.rpartition(".")[2]
    return bool(last) and (last.isdigit() and last.isascii() or last[:2].lower() == "0x")


def is_ip(host: str) -> bool:
    """Whether a special URL's serialized host is an IP address (IPv6 in brackets, or IPv4).

    >>> is_ip("[::1]"), is_ip("192.0.2.1"), is_ip("example.com"), is_ip("1.example")
    (True, True, False, False)
    """
    return host.startswith("[") or _ends_in_a_number(host)


@lru_cache(maxsize=65536)
def registered_domain(host: str | None) -> str | None:
    """The registered domain of a special URL's serialized ``host``: the URL Standard's
    *registrable domain* (a trailing dot kept), or the address itself for an IP address.
    None for no host, and for a host that is itself a public suffix or has a single label.

    >>> registered_domain("news.bbc.co.uk"), registered_domain("a.b.github.io")
    ('bbc.co.uk', 'b.github.io')
    >>> registered_domain("192.168.0.1"), registered_domain("[::1]"), registered_domain("co.uk")
    ('192.168.0.1', '[::1]', None)
    >>> registered_domain("www.example.com."), registered_domain("localhost")
    ('example.com.', None)
    """
    if not host:
        return None
    if is_ip(host):
        return host
    trailing_dot = "." if host.endswith(".") else ""
    domain = public_suffix_list().privatesuffix(host[:-1] if trailing_dot else host)
    return None if domain is None else domain + trailing_dot


@cache
def public_suffix_list() -> PublicSuffixList:
    """The PSL snapshot of the ``publicsuffixlist`` package, parsed once per process.

    The package's parser adds each rule's IDNA form (``公司.cn`` and ``xn--55qx5d.cn``), which
    takes Python's IDNA codec ~40 ms over the ~10,000 rules. The rules it ends with are kept
    in :func:`pipeline.derived.cache_dir` (named by the snapshot's and the package's content
    hash) and read back as they are, the parser's own state (its rule set and its longest
    rule's label count) set from them (~3 ms; its parse of the same list again took ~8 ms of
    a one-page run): the same state (``tests/unit/test_urlhost.py``).
    """
    import publicsuffixlist
    from publicsuffixlist import PSLFILE, PublicSuffixList

    digest = hashlib.blake2b(digest_size=12)
    for source in (Path(PSLFILE), Path(publicsuffixlist.__file__)):
        digest.update(source.read_bytes())
    target = cache_dir() / f"psl-{digest.hexdigest()}.txt"
    try:
        rules = target.read_text("utf-8").splitlines()
    except OSError:
        parsed = PublicSuffixList()
        write_once(target, lambda tmp: tmp.write_text("\n".join(sorted(parsed._publicsuffix)), "utf-8"))
        return parsed
    psl = PublicSuffixList(source=(), accept_encoded_idn=False)
    # as its parser sets them (publicsuffixlist's _parse: the set of rules, and the most
    # labels of any rule, "!" and "*" ones included)
    psl._publicsuffix = frozenset(rules)
    psl._maxlabel = max((rule.count(".") + 1 for rule in rules), default=0)
    return psl


def url_registered_domain(url: str | None) -> str | None:
    """:func:`registered_domain` of ``url``'s host; None for a non-special URL (its host
    is opaque) or one without a host.

    >>> url_registered_domain("https://www.Example.co.uk/x"), url_registered_domain("foo://a.example.com/")
    ('example.co.uk', None)
    """
    found = parse_host(url)
    if found is None or not found[1]:
        return None
    return registered_domain(found[0])


def _tld(host: str, special: bool) -> str | None:
    if not special or is_ip(host):
        return None
    # Chromium's GetEncodingFromDomain splits the host on "." without empty pieces: the
    # last label of "example.jp." is "jp".
    return host.rstrip(".").rpartition(".")[2] or None


def url_tld(url: str | None) -> str | None:
    """The last label of ``url``'s domain host ("jp" for ``http://www.example.co.jp./``);
    None for an IP address, an opaque host, or no host.

    >>> url_tld("http://www.example.co.jp./"), url_tld("http://192.168.0.1/"), url_tld(None)
    ('jp', None, None)
    """
    found = parse_host(url)
    return None if found is None else _tld(*found)


@lru_cache(maxsize=256)  # (the row's url_path and url_query, and its url_surtkey)
def path_and_query(url: str | None) -> tuple[str, str | None] | None:
    """``(url_path, url_query)`` of ``url``: the URL Standard's path serialized (ada's
    ``pathname``: dot segments removed, percent-encoded as the path percent-encode set says)
    and its query without the ``?``: None when the URL has none, ``""`` for a bare ``?``
    (as Common Crawl's ``java.net.URL.getQuery()``). None when ``url`` does not parse.

    >>> path_and_query("http://a.example/b/../c d?q=1#f"), path_and_query("http://a.example?")
    (('/c%20d', 'q=1'), ('/', ''))
    >>> path_and_query("http://a.example/x"), path_and_query("not a url")
    (('/x', None), None)
    """
    parsed = parse_url(url)
    if parsed is None:
        return None
    search = parsed.search
    if search:
        return parsed.pathname, search[1:]
    # An empty query serializes as a bare "?" (URL Standard §4.5 step 6); no query, not at all.
    bare = parsed.href.partition("#")[0].endswith("?")
    return parsed.pathname, "" if bare else None


def host_fields(url: str | None) -> tuple[str | None, str | None, str | None]:
    """``(url_host_name, url_host_tld, url_host_registered_domain)`` of a record URL.

    >>> host_fields("http://WWW.Example.CO.JP:8080/a")
    ('www.example.co.jp', 'jp', 'example.co.jp')
    >>> host_fields("http://192.0.2.1/")
    ('192.0.2.1', None, '192.0.2.1')
    >>> host_fields("not a url")
    (None, None, None)
    """
    found = parse_host(url)
    if found is None:
        return None, None, None
    host, special = found
    return host, _tld(host, special), registered_domain(host) if special else None
