"""The links table: which elements, resolution, anchor text, rel/nofollow, internal."""

from __future__ import annotations

from pipeline.extract import extract
from pipeline.extract.url_resolution import resolve_url
from pipeline.urlhost import registered_domain

PAGE = "https://news.example.co.uk/2019/story.html"


def _links(html: str, url: str | None = PAGE, encoding: str = "UTF-8"):
    e = extract(html, url, encoding)
    return e.links, e.bad_urls


def test_a_area_and_every_link_in_tree_order_with_their_kind() -> None:
    html = (
        '<link rel=stylesheet href=/s.css><link rel=next href=/p2><link rel="prev" href=/p0>'
        '<link rel=alternate hreflang=de href=/de><link rel=canonical href=/c>'
        '<link rel="shortcut ICON" href=/i><link href=/none>'
        '<a href=/a>A</a><a name=x>no href</a><map><area href=/m alt=" Map  area "></map>'
    )
    links, bad = _links(html)
    assert [(link.tag, link.kind, link.url.rsplit("/", 1)[1]) for link in links] == [
        ("link", "resource", "s.css"), ("link", "navigation", "p2"), ("link", "navigation", "p0"),
        ("link", "navigation", "de"), ("link", "navigation", "c"), ("link", "resource", "i"),
        ("link", "navigation", "none"), ("a", "navigation", "a"), ("area", "navigation", "m")]
    assert links[-1].anchor_text == "Map area"
    assert bad == 0
    assert all(link.attr == "href" for link in links)


def test_anchor_text_is_whitespace_collapsed_and_includes_descendants() -> None:
    links, _ = _links("<a href=/x>\n  Read <b>more</b>\t\u00a0 here </a>")
    assert links[0].anchor_text == "Read more here"


def test_rel_is_kept_and_nofollow_is_a_case_insensitive_token() -> None:
    links, _ = _links('<a href=/1 rel="NoFollow noopener">1</a><a href=/2 rel="nofollowers">2</a><a href=/3>3</a>')
    assert [(link.rel, link.nofollow) for link in links] == [
        ("NoFollow noopener", True), ("nofollowers", False), (None, False)]


def test_internal_means_same_registered_domain_per_the_psl() -> None:
    html = ('<a href="https://www.example.co.uk/">same site</a><a href="https://other.co.uk/">co.uk is a suffix</a>'
            '<a href="mailto:a@example.co.uk">mail</a><a href="/rel">relative</a>')
    links, _ = _links(html)
    assert [link.internal for link in links] == [True, False, None, True]


def test_internal_is_unknown_without_a_page_url() -> None:
    links, _ = _links('<a href="https://example.com/">x</a>', url=None)
    assert links[0].internal is None


def test_unparseable_hrefs_are_counted_not_raised() -> None:
    links, bad = _links('<a href="http://[::1">v6</a><a href="https://a b.example/">space</a><a href="/ok">ok</a>')
    assert [link.url for link in links] == ["https://news.example.co.uk/ok"]
    assert bad == 2


def test_relative_links_without_a_record_url_are_bad() -> None:
    links, bad = _links('<a href="/x">x</a><a href="https://y.example/">y</a>', url=None)
    assert [link.url for link in links] == ["https://y.example/"]
    assert bad == 1


def test_query_is_encoded_in_the_document_encoding() -> None:
    # HTML "encoding-parse a URL": the query state encodes with the document's encoding.
    html = '<a href="/search?q=caf\u00e9&amp;s=\u2020#fr\u00e9">x</a>'
    links, _ = _links(html, encoding="windows-1252")
    assert links[0].url == "https://news.example.co.uk/search?q=caf%E9&s=%86#fr%C3%A9"
    links, _ = _links(html, encoding="UTF-8")
    assert links[0].url == "https://news.example.co.uk/search?q=caf%C3%A9&s=%E2%80%A0#fr%C3%A9"


def test_unencodable_query_characters_become_percent_encoded_ncrs() -> None:
    links, _ = _links('<a href="?x=\u4e2d">x</a>', encoding="windows-1252")
    assert links[0].url.endswith("?x=%26%2320013%3B")


def test_path_stays_utf8_whatever_the_document_encoding() -> None:
    links, _ = _links('<a href="/caf\u00e9?q=\u00e9">x</a>', encoding="windows-1252")
    assert links[0].url == "https://news.example.co.uk/caf%C3%A9?q=%E9"


def test_legacy_labels_and_non_special_schemes() -> None:
    # The label is mapped with get_an_encoding; non-special schemes use UTF-8 queries.
    assert resolve_url("?\u00e9", "https://x.example/", "windows-1252") == "https://x.example/?%E9"
    links, _ = _links('<a href="foo:bar?\u00e9">x</a><a href="ws://x.example/?\u00e9">w</a>', encoding="latin1")
    assert [link.url for link in links] == ["foo:bar?%C3%A9", "ws://x.example/?%C3%A9"]


def test_utf16_and_replacement_documents_encode_urls_as_utf8() -> None:
    for encoding in ("UTF-16LE", "UTF-16BE", "replacement"):
        assert resolve_url("?\u00e9", "https://x.example/", encoding) == "https://x.example/?%C3%A9"


def test_registered_domain_handles_ips_and_suffixes() -> None:
    assert registered_domain("a.b.example.com") == "example.com"
    assert registered_domain("127.0.0.1") == "127.0.0.1"
    assert registered_domain("com") is None
    assert registered_domain(None) is None


def test_psl_snapshot_is_bundled_and_read_offline() -> None:
    # The list ships inside the package; loading it must not touch the network.
    import socket

    import publicsuffixlist

    original = socket.socket

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("network access while loading the PSL")

    socket.socket = no_network  # type: ignore[assignment,misc]
    try:
        psl = publicsuffixlist.PublicSuffixList()
        assert psl.privatesuffix("www.example.co.uk") == "example.co.uk"
    finally:
        socket.socket = original  # type: ignore[misc]


def test_the_compiled_links_are_equal_frozen_links() -> None:
    import dataclasses

    import pytest

    from pipeline.extract.fields import Link
    from pipeline.extract.links import extract_links

    (made,), bad = extract_links([("navigation", "a", "href", "/x", None, "t")], "https://x.example/",
                                 "https://x.example/", "UTF-8")
    assert bad == 0 and type(made) is Link
    assert made == Link("https://x.example/x", "t", None, "a", "href", "navigation", True, False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.url = "changed"  # type: ignore[misc]
