"""Metadata: document.title, base URL, description, OpenGraph/Twitter, canonical, lang."""

from __future__ import annotations

from pipeline.extract import extract


def _e(html: str, url: str | None = "https://www.example.com/a/b.html", encoding: str = "UTF-8"):
    return extract(html, url, encoding)


def test_title_strips_and_collapses_ascii_whitespace_only() -> None:
    # Infra "strip and collapse ASCII whitespace": NBSP is not ASCII whitespace.
    assert _e("<title>\n  A \t\r\n B\u00a0 </title>").title == "A B\u00a0"


def test_title_is_the_first_title_element_in_tree_order() -> None:
    assert _e("<title>one</title><title>two</title>").title == "one"
    # A title in the body still counts (tree order, not "in head").
    assert _e("<body><p>x</p><title>late</title>").title == "late"


def test_title_skips_svg_title_elements() -> None:
    # "the title element is the first title element in the document": an HTML one.
    html = "<body><svg><title>icon</title></svg><title>page</title>"
    assert _e(html).title == "page"


def test_title_inside_svg_foreign_object_is_html() -> None:
    assert _e("<svg><foreignObject><title>f</title></foreignObject></svg>").title == "f"


def test_no_title_element_is_none_and_empty_title_is_empty() -> None:
    assert _e("<p>no title").title is None
    assert _e("<title>  </title>").title == ""


def test_title_keeps_markup_as_text_rcdata() -> None:
    assert _e("<title>a <b>bold</b> &amp; c</title>").title == "a <b>bold</b> & c"


def test_meta_description_first_non_empty_wins_case_insensitive_name() -> None:
    html = '<meta name="Description" content=" first "><meta name=description content=second>'
    assert _e(html).description == "first"


def test_open_graph_property_and_name_forms_first_wins() -> None:
    html = (
        '<meta name="og:title" content="by name">'
        '<meta property="og:title" content="by property">'
        '<meta property="OG:TYPE" content="article">'
        '<meta property="og:site_name" content="Site"><meta property="og:locale" content="en_US">'
        '<meta property="og:description" content="d">'
    )
    e = _e(html)
    assert (e.og_title, e.og_type, e.og_site_name, e.og_locale, e.og_description) == (
        "by name", "article", "Site", "en_US", "d")


def test_relative_image_urls_are_resolved_against_the_base_url() -> None:
    html = (
        '<base href="/static/"><meta property="og:image" content="img/a.png">'
        '<meta name="twitter:image" content="//cdn.example.net/t.png">'
        '<meta property="og:url" content="/a/b.html">'
    )
    e = _e(html)
    assert e.og_image == "https://www.example.com/static/img/a.png"
    assert e.twitter_image == "https://cdn.example.net/t.png"
    assert e.og_url == "https://www.example.com/a/b.html"


def test_og_image_url_and_twitter_image_src_are_fallbacks() -> None:
    html = '<meta property="og:image:url" content="/x.png"><meta name="twitter:image:src" content="/y.png">'
    e = _e(html)
    assert (e.og_image, e.twitter_image) == ("https://www.example.com/x.png", "https://www.example.com/y.png")


def test_twitter_card_fields() -> None:
    html = ('<meta name="twitter:card" content="summary"><meta property="twitter:title" content="T">'
            '<meta name="twitter:description" content="D">')
    e = _e(html)
    assert (e.twitter_card, e.twitter_title, e.twitter_description) == ("summary", "T", "D")


def test_canonical_is_absolute_and_rel_is_a_token_list() -> None:
    html = '<link rel="stylesheet" href="/s.css"><link rel="Alternate CANONICAL" href="../c?x=1">'
    assert _e(html).canonical_url == "https://www.example.com/c?x=1"


def test_base_href_resolves_against_the_record_url() -> None:
    e = _e('<base href="../other/"><a href="x">x</a>')
    assert e.base_href == "../other/"
    assert e.base_url == "https://www.example.com/other/"
    # the base element's own href resolves against the record URL, the anchor against the base
    assert [(link.tag, link.url) for link in e.links] == [
        ("base", "https://www.example.com/other/"), ("a", "https://www.example.com/other/x")]


def test_first_base_with_href_wins_and_a_bad_one_falls_back_to_the_record_url() -> None:
    assert _e('<base target=_blank><base href="/one/"><base href="/two/">').base_url == (
        "https://www.example.com/one/")
    # "If urlRecord is failure": the fallback base URL (the document's URL).
    assert _e('<base href="http://[bad">').base_url == "https://www.example.com/a/b.html"


def test_base_without_record_url_must_be_absolute() -> None:
    links = extract('<base href="https://x.example/d/"><a href=y>y</a>', None, "UTF-8").links
    assert [link.url for link in links if link.tag == "a"] == ["https://x.example/d/y"]


def test_html_lang_is_recorded_as_written() -> None:
    assert _e('<html lang=" pt-BR "><p>x').html_lang == "pt-BR"
    assert _e("<p>x").html_lang is None


def test_whole_visible_text_length_excludes_scripts_and_styles() -> None:
    e = _e("<style>p{}</style><script>var x=1;</script><p>Hello</p><p>world</p>")
    assert e.text_length == len("Hello world")


def test_deviation_title_inside_annotation_xml_is_not_an_html_title() -> None:
    # DEVIATION (tree.is_html_element): annotation-xml encoding="text/html" would make
    # this an HTML title in a browser; we take it as MathML and fall through to the next.
    html = '<math><annotation-xml encoding="text/html"><title>m</title></annotation-xml></math><title>t</title>'
    assert _e(html).title == "t"
