"""The links step's shortcuts give what the general path gives: the Resolver parses
"/x", "//x" and absolute http(s) hrefs without the base, and already-collapsed anchor
text is not split and joined again."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.extract import extract, links
from pipeline.extract.url_resolution import Resolver, _ada_href
from pipeline.native import urls
from tests.oracles import extract as oracle

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
    base_url = _ada_href(base, None)
    assert base_url is not None
    resolve = Resolver(base_url)
    for href in HREFS:
        assert resolve(href) == _ada_href(href, base_url.encode()), href


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


_RELS = [None, "", "nofollow", "NoFollow noopener", " canonical ", "CANONICAL\tx", "next", "Prev",
         "stylesheet", "icon", "nofollow\x0cnext", "no follow", "nofollowx", "nofollow\u00a0", "ﬁ", "\ud800"]
_TAGS_ATTRS = [("navigation", "a", "href"), ("navigation", "area", "href"), ("resource", "link", "href"),
               ("resource", "img", "src"), ("resource", "img", "srcset"), ("form", "form", "action"),
               ("form", "button", "formaction"), ("metadata", "base", "href"),
               ("metadata", "div", "itemtype"), ("css", "div", "style"), ("css", "style", None),
               ("script-string", "script", None), ("refresh", "meta", "content")]
_HREF_POOL = [*HREFS, "", "/é?q=†", "?q=é", "/x?\u00e9#\u00e9", "ŝ", "\ud800/x", "http://a.example/?q=日本",
              "https://other.example/", "http://sub.news.example.co.uk/", "http://192.168.0.1/",
              "https://[::1]/", "http://co.uk/", "/ESC\x1b?q=\x1b", "foo://Example.COM/x",
              "https://news.example.co.uk./dot"]
_PAGES = [None, "https://www.news.example.co.uk/p", "mailto:x@y", "http://192.168.0.1/a", "foo://x.example/"]


@given(st.lists(st.tuples(st.sampled_from(_TAGS_ATTRS), st.sampled_from(_HREF_POOL), st.sampled_from(_RELS),
                          st.sampled_from(["", "t", "two words"])), max_size=30),
       st.sampled_from([*BASES, None]), st.sampled_from(_PAGES),
       st.sampled_from(["UTF-8", "windows-1252", "EUC-KR", "ISO-2022-JP", "UTF-16LE", "gb18030"]))
@settings(max_examples=1500, deadline=None)
def test_links_in_one_c_call_equal_the_oracles_loop(picked, base, page_url, encoding) -> None:  # type: ignore[no-untyped-def]
    # _urls.links (resolve each distinct value once per way of resolving it, re-encode the
    # query in the document's encoding, the host off the same parse, internal flag per
    # host, the Link objects) against the oracle's loop, one candidate at a time, on random
    # candidates.
    candidates = [(kind, tag, attr, page_url if kind == "refresh" and value == "" and page_url else value,
                   rel if tag in ("a", "area", "link") else None, text if tag in ("a", "area") else "")
                  for (kind, tag, attr), value, rel, text in picked]
    fast = links.extract_links(candidates, base, page_url, encoding)
    assert fast == oracle.extract_links(candidates, base, page_url, encoding)


def test_links_in_one_c_call_on_the_article_pages(corpus) -> None:  # type: ignore[no-untyped-def]
    from bench.extract_bench import load_corpus
    from pipeline.extract import document
    from pipeline.extract.meta import HeadFacts, extract_metadata

    pages = load_corpus()
    assert len(pages) == 181
    total = 0
    limits = (10_000,) * 7
    for _, url, html, _ in pages:
        tree = document.parse(html.encode(), 0, 0, 0.0)
        _, candidates, _, _, head = tree.facts(limits)
        _, packed, _, _, _ = document.facts(tree, limits)
        for encoding in ("UTF-8", "windows-1252"):
            base = extract_metadata(HeadFacts(*head), url, encoding).base_url
            fast = links.extract_links(candidates, base, url, encoding)
            assert fast == oracle.extract_links(candidates, base, url, encoding), url
            # the packed candidates (no tuple per candidate) give the same links
            assert links.extract_links([], base, url, encoding, packed) == fast, url
            total += len(fast[0])
    assert total > 40_000


def _record(kind: int, tag: int, length: int) -> bytes:
    """One record's head (_candidates.h: kind, tag, attr, rel, text, length as uint32)."""
    return struct.pack("=6I", kind, tag, 0, 0, 1, length)


@pytest.mark.parametrize("pack", [
    b"", b"RDC", b"XXXX",  # no magic
    b"RDC1\x00",  # a record's head cut short
    b"RDC1" + _record(7, 1, 0),  # no such kind
    b"RDC1" + _record(0, 9, 0),  # an index past the objects
    b"RDC1" + _record(0, 0, 0),  # a tag that is not a str (None)
    b"RDC1" + _record(0, 1, 5) + b"abc",  # a value past the end
])
def test_a_malformed_pack_of_candidates_is_refused(pack: bytes) -> None:
    with pytest.raises(ValueError, match="not a pack of link candidates"):
        links.extract_links([], None, "http://a.example/", "UTF-8", links.Packed(pack, [None, ""]))


def _ada_url_package(href: str, base: str | None) -> tuple[str, str] | None:
    """What the ada-url package's own build (ada's C API: ada_parse_with_base) gives."""
    import ada_url

    try:
        url = ada_url.URL(href, base)
    except ValueError:
        return None
    return url.href, url.hostname


@given(st.one_of(st.sampled_from(_HREF_POOL), st.text(max_size=20)),
       st.sampled_from([*BASES, None, "not a url", "http://[::1", "https://a.example/%zz/é?q#f"]))
@settings(max_examples=400, deadline=None)
def test_the_base_parsed_once_gives_what_ada_parse_with_base_gives(href: str, base: str | None) -> None:
    # _urls keeps a parsed base and parses each href against it; the ada-url package parses
    # the base again for each href: the same parser, so the same URL, host, or failure (a
    # base that does not parse fails every href, an absolute one included).
    if "\x00" in href or any(0xD800 <= ord(c) <= 0xDFFF for c in href):
        return  # (the package's C strings stop at NUL; a lone surrogate has no UTF-8)
    data = None if base is None else base.encode()
    expected = _ada_url_package(href, base)
    assert urls.parse(href, data) == expected
    if base is not None and not href.startswith(("http://", "https://")):
        # the batch (a document's hrefs against one base) reads the same parse
        assert urls.hrefs([href, href], data) == [expected and expected[0]] * 2
