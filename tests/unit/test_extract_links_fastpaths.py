"""The links step's shortcuts give what the general path gives: the Resolver parses
"/x", "//x" and absolute http(s) hrefs without the base, and already-collapsed anchor
text is not split and joined again."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.extract import extract
from pipeline.extract.url_resolution import Resolver, _ada_href

BASES = [
    "https://news.example.co.uk/2019/story.html?q=1#f",
    "https://u:p@h.example:8080/a/b?c#d",
    "http://[::1]:81/x",
    "http://xn--nxasmq6b.com/",
    "file:///C:/dir/page.html",
    "data:text/html,x",
]
HREFS = [
    "/", "/x", "/x/../y?z=%zz#w", "/x y", "/é?é", "/.%2e/x", "/\\x", "/\t/x", "/\n/x",
    "/\r\n/x", "//", "//x", "//x:80/y", "//x:99999/", "//a@b/c", "//[::1]/x", "//é.com/",
    "// x", "//\\x", "//\tx", "///x", "//x\x00", "/x\x00", "/ x ", "/x ",
    "http://a.example/b", "https://A.EXAMPLE:443/./c", "http://", "https://[::1", "https:x",
    "http:/x", "HTTP://a.example/", "x", "?q", "#f", "../x", "mailto:a@b.c",
]


@pytest.mark.parametrize("base", BASES)
def test_resolver_shortcuts_equal_parsing_against_the_base(base: str) -> None:
    base_url = _ada_href(base, None, None)
    assert base_url is not None
    resolve = Resolver(base_url)
    for href in HREFS:
        assert resolve(href) == _ada_href(href, base_url.encode(), base_url), href


@pytest.mark.parametrize(
    ("inner", "text"),
    [
        ("plain words", "plain words"),
        (" lead", "lead"),
        ("trail ", "trail"),
        ("two  spaces", "two spaces"),
        ("tab\there", "tab here"),
        ("line\nbreak", "line break"),
        ("nb\u00a0sp", "nb sp"),
        ("ideographic\u3000space", "ideographic space"),
        ("sep\u2028line", "sep line"),
        ("<b>nested</b> <i>tags</i>", "nested tags"),
        ("", ""),
    ],
)
def test_anchor_text_collapses_every_unicode_whitespace(inner: str, text: str) -> None:
    e = extract(f"<a href=/x>{inner}</a>", "https://a.example/", "UTF-8")
    assert e.links[0].anchor_text == text


_URL_PIECES = ["http", "https", "mailto", ":", "//", "/", "?", "#", "@", "[", "]", "::1", "a", "é",
               "example.com", "xn--p1ai", ":8080", "u:p", " ", "日本"]


@pytest.mark.native  # a compiled extension against its reference
@given(st.lists(st.sampled_from(_URL_PIECES), max_size=12))
@settings(max_examples=2000, deadline=None)
def test_compiled_hosts_equal_url_host(pieces: list[str]) -> None:
    # The links step finds target hosts in one C call (_urls.hosts): the same as the
    # Python url_host on any string, and on every BASES x HREFS target.
    from pipeline.extract import domains

    assert domains._urls is not None, "pipeline.extract._urls is not built"
    url = "".join(pieces)
    assert domains._urls.hosts([url, None]) == [domains.url_host(url), None]


@pytest.mark.native  # a compiled extension against its reference
def test_compiled_hosts_on_resolved_targets() -> None:
    from pipeline.extract import domains

    targets = [t for base in BASES for t in Resolver(base).many(HREFS) if t is not None]
    assert len(targets) > 100
    assert domains.url_hosts(targets) == [domains.url_host(t) for t in targets]


@pytest.mark.native  # a compiled extension against its reference
@pytest.mark.parametrize("base", BASES)
def test_links_made_in_c_equal_the_python_loop(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # _urls.make_links fills Link's slots directly: the same links (and bad count) as
    # the Python constructor, frozen and hashable like them.
    from pipeline.extract import links

    assert links._compiled is not None, "pipeline.extract._urls is not built"
    rels = ["", " rel=nofollow", " rel='NoFollow noopener'", " rel=canonical", " rel=next", " rel=icon"]
    html = "".join(f"<{tag} href='{href}'{rel}>t {i}</{tag}>" for i, href in enumerate(HREFS)
                   for tag, rel in (("a", rels[i % 6]), ("link", rels[(i + 3) % 6])))
    fast = extract(html, base, "windows-1252")
    assert fast.links and fast.bad_urls + len(fast.links) > len(HREFS)  # bad ones too
    assert len({hash(link) for link in fast.links}) > 1
    monkeypatch.setattr(links, "_compiled", None)
    assert extract(html, base, "windows-1252") == fast


_RELS = [None, "", "nofollow", "NoFollow noopener", " canonical ", "CANONICAL\tx", "next", "Prev",
         "alternate", "icon", "nofollow\x0cnext", "no follow", "nofollowx", "nofollow\u00a0", "ﬁ", "\ud800"]
_TAGS = ["a", "a", "area", "link"]
_HREF_POOL = [*HREFS, "/é?q=†", "?q=é", "/x?\u00e9#\u00e9", "ŝ", "\ud800/x", "http://a.example/?q=日本",
              "https://other.example/", "http://sub.news.example.co.uk/", "http://192.168.0.1/",
              "https://[::1]/", "http://co.uk/", "/ESC\x1b?q=\x1b"]


def _python_links(candidates, base, page_url, encoding, monkeypatch):  # type: ignore[no-untyped-def]
    from pipeline.extract import links

    with monkeypatch.context() as patch:
        patch.setattr(links, "_compiled", None)
        return links.extract_links(candidates, len(candidates) + 3, base, page_url, encoding, 10_000)


@pytest.mark.native  # a compiled extension against its reference
@given(st.lists(st.tuples(st.sampled_from(_TAGS), st.sampled_from(_HREF_POOL), st.sampled_from(_RELS),
                          st.sampled_from(["", "t", "two words"])), max_size=30),
       st.sampled_from([*BASES, None]), st.sampled_from([None, "https://www.news.example.co.uk/p", "mailto:x@y"]),
       st.sampled_from(["UTF-8", "windows-1252", "EUC-KR", "ISO-2022-JP", "UTF-16LE", "gb18030"]))
@settings(max_examples=1500, deadline=None)
def test_links_in_one_c_call_equal_the_python_loop(candidates, base, page_url, encoding) -> None:  # type: ignore[no-untyped-def]
    # _urls.links (filter by rel, resolve each distinct href once, re-encode the query in
    # the document's encoding, internal flag per host, the Link objects) against the
    # Python loop it replaces, on random candidates (the Python path swapped in by hand:
    # hypothesis does not reset function-scoped fixtures between examples).
    from pipeline.extract import links
    from pipeline.extract.url_resolution import Resolver

    assert links._compiled is not None, "pipeline.extract._urls is not built"
    assert Resolver(base, encoding).compiled_args() is not None, "ada's batch parser is not bound"
    fast = links.extract_links(candidates, len(candidates) + 3, base, page_url, encoding, 10_000)
    saved = links._compiled
    links._compiled = None
    try:
        slow = links.extract_links(candidates, len(candidates) + 3, base, page_url, encoding, 10_000)
    finally:
        links._compiled = saved
    assert fast == slow


@pytest.mark.native  # a compiled extension against its reference
def test_links_in_one_c_call_on_the_article_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    from bench.extract_bench import CORPUS, load_corpus
    from pipeline.extract import document

    if not document.NATIVE:
        pytest.skip(f"compiled core not in use: {document.native_status()}")

    if not Path(CORPUS).exists():
        pytest.skip("../shared/corpus is not here")
    pages = load_corpus()
    assert len(pages) == 181
    total = 0
    for _, url, html, _ in pages:
        _, count, candidates, _ = document.facts(document.parse(html.encode(), 0, 0, 0.0), 10_000)
        for encoding in ("UTF-8", "windows-1252"):
            from pipeline.extract import links

            fast = links.extract_links(candidates, count, url, url, encoding)
            assert fast == _python_links(candidates, url, url, encoding, monkeypatch), url
            total += len(fast[0])
    assert total > 20_000
