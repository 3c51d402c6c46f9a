"""One host parser (pipeline/urlhost.py) for every stage: the encoding decision's TLD default
and per-host overrides, the records' host columns and every link's ``internal`` flag (and
the extraction oracle's) give the same host and registered domain for the same URL."""

from __future__ import annotations

import html

import pytest

from pipeline.encoding.options import Override
from pipeline.encoding.sniff import evidence, tld_defaults
from pipeline.extract import extract
from pipeline.urlhost import host_fields, parse_host, registered_domain, url_host
from tests.oracles import extract as oracle

#: IDNA, IPv4 in its spellings, IPv6, trailing dots, userinfo, ports, percent-encoded hosts,
#: public suffixes, single labels, non-special schemes, URLs that do not parse.
URLS = [
    "http://Bücher.DE/x", "https://xn--bcher-kva.de./x", "http://BÜCHER.de:8080/", "https://日本語.jp/",
    "http://0x7f.1/", "http://127.1/", "http://192.168.0.1:8080/a", "http://0300.0250.0.1/",
    "http://[::1]/", "http://[0:0::1]:81/", "https://[2001:db8::7]/x",
    "http://example.com./", "http://www.example.co.uk./p", "http://example.com../",
    "https://u:p@www.Example.com/", "https://user@news.example.co.uk:443/x", "http://a@b@c.example.org/",
    "http://%65xample.com/", "http://ex%61mple.co.uk/", "http://EXAMPLE.COM:80/",
    "http://co.uk/", "http://github.io/", "http://a.github.io/", "http://b.a.github.io/",
    "http://localhost/", "http://x.localhost/", "http://example/",
    "foo://Example.COM/x", "foo://example.com/", "ws://example.com/chat", "wss://www.example.com/",
    "ftp://ftp.example.org/pub", "file:///etc/hosts", "file://server.example.com/share",
    "mailto:a@example.com", "data:text/plain,x", "javascript:void(0)",
    "http://[::1", "http://exa mple.com/", "http://", "not a url",
]
PAGES = ["https://www.example.com/p", "http://news.example.co.uk/a", "http://192.168.0.1/",
         "https://a.github.io/", "http://[::1]/", "foo://example.com/", "http://localhost/"]


@pytest.mark.parametrize("url", URLS)
def test_the_encoding_decision_reads_the_records_host(url: str) -> None:
    host, tld, _ = host_fields(url)
    # the TLD default (Chromium's table) and the per-host overrides read the same host
    assert tld_defaults.url_tld(url) == tld
    assert evidence.url_host(url) == host == url_host(url)
    found = parse_host(url)
    if found is not None and found[1]:
        # an override names a host as the rules loader serializes it (no trailing dot): it
        # matches the URL's host, and a trailing-dot host is another host
        rule = Override("Shift_JIS", host=host.rstrip("."))
        matched = evidence.match_override((rule,), url) is rule
        assert matched is not host.endswith("."), host


def _expected_internal(page: str, target: str) -> bool | None:
    page_domain, target_domain = host_fields(page)[2], host_fields(target)[2]
    if page_domain is None or target_domain is None:
        return None
    return page_domain == target_domain


@pytest.mark.parametrize("page", PAGES)
def test_links_internal_flag_follows_the_records_registered_domain_and_the_oracles(page: str) -> None:
    body = "".join(f'<a href="{html.escape(url)}">x</a>' for url in URLS)
    fast = extract(body, page, "UTF-8")
    targets = [link.url for link in fast.links]
    assert len(targets) + fast.bad_urls == len(URLS)
    assert [link.internal for link in fast.links] == [_expected_internal(page, t) for t in targets]
    # the oracle (selectolax walk, the links one at a time in Python)
    assert oracle.extract(body, page, "UTF-8") == fast


def test_hosts_as_the_url_standard_serializes_them() -> None:
    assert parse_host("HTTP://user:pw@Bücher.DE.:8080/x") == ("xn--bcher-kva.de.", True)
    assert parse_host("http://0x7f.1/") == ("127.0.0.1", True)
    assert parse_host("foo://Ex.COM/") == ("Ex.COM", False)  # an opaque host: as written
    assert host_fields("foo://example.com/") == ("example.com", None, None)
    # a trailing dot is another host, and its registrable domain keeps the dot
    assert host_fields("http://www.example.co.uk./") == ("www.example.co.uk.", "uk", "example.co.uk.")
    assert registered_domain("b.a.github.io") == "a.github.io"  # private suffixes count
    assert host_fields("http://[::1]:81/")[1:] == (None, "[::1]")  # an IP is its own


def test_rules_compare_an_override_host_as_the_parser_serializes_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pipeline.rules import load_rules

    rules = tmp_path / "rules.toml"
    rules.write_text('[[encoding.override]]\nhost = "Bücher.DE."\nencoding = "shift_jis"\n', "utf-8")
    override = load_rules(rules).encoding.overrides[0]
    assert override.host == "xn--bcher-kva.de"
    assert evidence.match_override((override,), "http://www.BÜCHER.de/katalog") is override


def test_the_cached_public_suffix_list_is_the_packages_own(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # parsed by the package once (and kept in the cache), then read back from the cache:
    # the same rules either way, IDNA forms included
    from publicsuffixlist import PublicSuffixList

    from pipeline import urlhost

    monkeypatch.setenv("REDECODE_CACHE_DIR", str(tmp_path))
    urlhost.public_suffix_list.cache_clear()
    try:
        parsed = urlhost.public_suffix_list()
        (kept,) = tmp_path.glob("psl-*.txt")
        urlhost.public_suffix_list.cache_clear()
        cached = urlhost.public_suffix_list()
        assert cached is not parsed
        own = PublicSuffixList()
        hosts = ("news.bbc.co.uk", "a.b.github.io", "www.city.kawasaki.jp", "x.ck", "co.uk",
                 "a.b.unknowntld", "xn--55qx5d.cn", "a.公司.cn")
        for psl in (parsed, cached):
            # the whole state the package's parser leaves (a new field of it shows here)
            assert vars(psl) == vars(own)
            assert [psl.privatesuffix(h) for h in hosts] == [own.privatesuffix(h) for h in hosts]
        assert "xn--55qx5d.cn" in cached._publicsuffix and "公司.cn" in cached._publicsuffix
        assert kept.read_text("utf-8").count("\n") + 1 == len(own._publicsuffix)
    finally:
        urlhost.public_suffix_list.cache_clear()
