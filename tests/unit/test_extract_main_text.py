"""Main text: ExtractContent over the DOM, the port's bugs fixed, and the improvements."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.extract import ExtractOptions, extract
from pipeline.extract.main_text import prepare_blocks, score_blocks

PARAGRAPH = (
    "The committee met on Tuesday to discuss the new budget, which has been delayed for "
    "three months. Members agreed that the proposal needed more work, and they asked the "
    "treasurer to prepare a revised version before the next meeting in December."
)
NAV = "<nav><ul>" + "".join(f"<li><a href=/s{i}>Section {i}</a></li>" for i in range(12)) + "</ul></nav>"


DEFAULTS = ExtractOptions()


def _main(html: str, options: ExtractOptions = DEFAULTS) -> str:
    return extract(html, "https://example.com/a", "UTF-8", options).main_text


def test_article_paragraphs_win_over_navigation_and_footer() -> None:
    html = (f"<body>{NAV}<div class=content><h1>Budget</h1><p>{PARAGRAPH}</p><p>{PARAGRAPH}</p></div>"
            "<footer><p>Copyright 2019 Example Corp. All Rights Reserved. Privacy. Terms.</p></footer>")
    text = _main(html)
    assert PARAGRAPH in text
    assert "Section 3" not in text and "Copyright" not in text


def test_paragraphs_become_lines_and_inline_markup_does_not_split_words() -> None:
    html = f"<div><p>{PARAGRAPH}</p><p>Second <b>para</b>graph, <a href=/x>linked</a> here. {PARAGRAPH}</p></div>"
    lines = _main(html).split("\n")
    assert lines[0] == PARAGRAPH
    assert lines[1].startswith("Second paragraph, linked here.")


def test_link_dense_blocks_are_dropped() -> None:
    # eliminate_link: fewer than 20 characters of non-link text per link.
    links = "<div>" + " ".join(f"<a href=/r{i}>A related story headline number {i}</a>" for i in range(8)) + "</div>"
    text = _main(f"<div><p>{PARAGRAPH}</p></div>{links}")
    assert PARAGRAPH in text and "related story" not in text


def test_hidden_nodes_are_not_main_text() -> None:
    hidden = "A hidden paragraph that nobody sees in the browser, long enough to be a block on its own."
    html = (f"<div><p>{PARAGRAPH}</p><div hidden><p>{hidden}</p></div>"
            f"<div style='DISPLAY: none'><p>{hidden}</p></div><div aria-hidden=true><p>{hidden}</p></div></div>")
    assert "hidden paragraph" not in _main(html)
    assert "hidden paragraph" in _main(html, replace(ExtractOptions(), drop_hidden=False))


def test_article_container_is_preferred() -> None:
    teaser = ("Another story about something else entirely, with enough words to be scored as a "
              "block by ExtractContent. It goes on for a while, on purpose, to look like content.")
    html = (f"<div><p>{teaser}</p></div><article><p>{PARAGRAPH}</p><p>{PARAGRAPH}</p></article>"
            f"<div><p>{teaser}</p></div>")
    assert "Another story" not in _main(html)
    assert PARAGRAPH in _main(html)


def test_itemprop_article_body_is_preferred() -> None:
    teaser = "Teaser text " * 30
    html = f"<div><p>{teaser}</p></div><div itemprop=articleBody><p>{PARAGRAPH}</p></div>"
    text = _main(html)
    assert PARAGRAPH in text and "Teaser" not in text


def test_boilerplate_pattern_is_pruned_only_below_the_share_guard() -> None:
    share = "<div class=share-tools><p>Share this article on Facebook, Twitter, LinkedIn and by email with your friends today.</p></div>"
    assert "Share this" not in _main(f"<div><p>{PARAGRAPH}</p><p>{PARAGRAPH}</p></div>{share}")
    # A wrapper whose class matches a pattern but holds most of the text is kept.
    wrapper = f"<div class=has-sidebar><p>{PARAGRAPH}</p><p>{PARAGRAPH}</p></div>"
    assert PARAGRAPH in _main(wrapper)


def test_form_wrapping_the_whole_page_is_kept() -> None:
    # ASP.NET pages put everything in one form: the share guard keeps it.
    assert PARAGRAPH in _main(f"<form><div><p>{PARAGRAPH}</p></div></form>")


def test_cjk_text_without_spaces_is_extracted() -> None:
    sentence = "委員会は火曜日に新しい予算について話し合った。予算は三か月遅れている、と委員は述べた！"
    html = f"{NAV}<div><p>{sentence * 3}</p></div>"
    assert sentence in _main(html)


def _score(blocks: list[str], options: ExtractOptions) -> list[str]:
    return score_blocks([b for block in blocks for b in prepare_blocks(block)], options)


def test_punctuation_is_counted_once_per_match() -> None:
    # The Python port counted a match once per alternative of the expression; here
    # "a, b. c!" has exactly 3 matches, so the score is (len + 3 * weight).
    block = "x" * 30 + ", y. z!"
    options = replace(ExtractOptions(), min_length=1, punctuation_weight=10.0, decay_factor=1.0,
                      continuous_factor=1.62)
    length = len(block)
    just_below = replace(options, threshold=length + 3 * 10.0 - 0.01)
    just_above = replace(options, threshold=length + 3 * 10.0 + 0.01)
    assert _score([block], just_below) == [block]
    assert _score([block], just_above) == []


def test_decay_factor_lowers_later_blocks() -> None:
    blocks = ["a" * 100, "b" * 100, "c" * 100]
    options = replace(ExtractOptions(), threshold=80, min_length=1, decay_factor=0.7)
    # 100, 70, 49: only the first passes 80.
    assert _score(blocks, options) == ["a" * 100]
    assert _score(blocks, replace(options, decay_factor=1.0)) == blocks


def test_continuous_factor_clusters_and_the_best_cluster_wins() -> None:
    options = replace(ExtractOptions(), threshold=100, min_length=1, decay_factor=1.0,
                      continuous_factor=1.62, punctuation_weight=0.0)
    # Two short-gap clusters; the second (two long blocks) outweighs the first.
    blocks = ["a" * 120, "x" * 10, "y" * 10, "z" * 10, "b" * 140, "c" * 140]
    assert _score(blocks, options) == ["b" * 140, "c" * 140]


def test_waste_expressions_score_a_block_down() -> None:
    options = replace(ExtractOptions(), threshold=80, min_length=1, punctuation_weight=0.0)
    block = "Copyright " + "a" * 90  # 100 * 0.72 = 72 < 80
    assert _score([block], options) == []
    assert _score(["Plain text " + "a" * 90], options) != []


def test_options_are_per_call_not_shared_state() -> None:
    html = f"<div><p>{PARAGRAPH}</p></div>"
    # (no fallback: a page this small would otherwise get its longest block)
    strict = replace(ExtractOptions(), threshold=10_000.0, fallback_min_chars=0)
    assert _main(html, strict) == ""
    assert PARAGRAPH in _main(html)
    assert _main(html, strict) == ""


def test_empty_and_bodyless_documents() -> None:
    assert _main("") == ""
    assert _main("<html><head><title>t</title></head></html>") == ""


def test_a_data_table_inside_the_article_is_kept_whole() -> None:
    rows = "".join(f"<tr><td>{i}</td><td>Driver number {i}</td><td>{5000 - i}</td></tr>" for i in range(12))
    html = f"<article><p>{PARAGRAPH}</p><table>{rows}</table><p>{PARAGRAPH}</p></article>"
    text = _main(html)
    assert "Driver number 7" in text
    # Cells are lines of one block (not blocks of their own, each too short to score).
    assert "\n7\nDriver number 7\n4993\n" in "\n" + text + "\n"


def test_bad_options_fail_when_built_not_per_record() -> None:
    import pytest

    with pytest.raises(ValueError, match="punctuations"):
        ExtractOptions(punctuations="([")
    with pytest.raises(ValueError, match="continuous_factor"):
        ExtractOptions(continuous_factor=0.0)
    with pytest.raises(ValueError, match="prune_max_share"):
        ExtractOptions(prune_max_share=0.0)


def test_waste_prefilter_is_exact() -> None:
    # The default expression's prefilter looks for "copyr" or "all r" in any ASCII case:
    # under the regex's IGNORECASE only the ASCII cases match those letters (and only a
    # space matches the space), over every code point.
    import re

    from pipeline.extract.main_text import _maybe_waste, _waste_counter
    from pipeline.extract.options import DEFAULT_WASTE_EXPRESSIONS

    for letter in "copyral ":
        pattern = re.compile(f"(?i){re.escape(letter)}")
        assert {chr(c) for c in range(0x110000) if pattern.fullmatch(chr(c))} == {letter, letter.upper()}
    assert {chr(c) for c in range(0x110000) if re.fullmatch("(?i)i", chr(c))} == set("iIİı")  # why not "right"
    count = _waste_counter(DEFAULT_WASTE_EXPRESSIONS)
    reference = re.compile(DEFAULT_WASTE_EXPRESSIONS)
    texts = ("COPYRİGHT 2024", "Copyrıght", "ALL RIGHTS RESERVED", "aLL rıghtſ reſerved", "plain",
             "Copy right", "", "copyr", "all r", "the right light", "©", "Copyright © All Rights Reserved")
    for text in texts:
        data = text.encode()
        assert count(data, _maybe_waste(data)) == len(reference.findall(text)), text
    assert [_maybe_waste(t.encode()) for t in ("the right light", "COPYRİGHT", "xALL Rx")] == [False, True, True]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["Copyright", "COPYRİGHT", "copyrıght", "copyr", "all r", "ALL RIGHTS RESERVED",
                                 "all rıghtſ reſerved", "All Rights", " ", "x", "é", "日本", "ight", "ſ", "İ"]),
                max_size=30).map("".join))
def test_waste_count_matches_the_regex_over_the_whole_text(text: str) -> None:
    import re

    from pipeline.extract.main_text import _maybe_waste, _waste_counter
    from pipeline.extract.options import DEFAULT_WASTE_EXPRESSIONS

    data = text.encode()
    count = _waste_counter(DEFAULT_WASTE_EXPRESSIONS)
    assert count(data, _maybe_waste(data)) == len(re.compile(DEFAULT_WASTE_EXPRESSIONS).findall(text))


COMMENT = "I disagree with the treasurer: the budget was delayed because the council never met in June."
THREAD = ("<div id=comments><h3>2 Comments</h3><ol class=commentlist>"
          f"<li class=comment><p>{COMMENT}</p><a href=/r>Reply</a></li>"
          "<li class=comment><p>Thanks for the report, this is exactly what the minutes say.</p></li>"
          "</ol><div id=respond><form><p>Leave a reply: your email address will not be published."
          "</p><textarea></textarea></form></div></div>")


def test_comments_follow_the_article_by_default() -> None:
    # Dragnet's gold keeps the comments; [extract] comments = false leaves them out
    html = f"<body>{NAV}<article><p>{PARAGRAPH}</p><p>{PARAGRAPH}</p></article>{THREAD}"
    text = _main(html)
    assert text.index(PARAGRAPH) < text.index(COMMENT)
    assert "exactly what the minutes say" in text
    assert "Reply" not in text.split("\n")  # too short to be a comment
    assert "Leave a reply" not in text  # the reply form is structural boilerplate
    without = _main(html, replace(DEFAULTS, comments=False))
    assert PARAGRAPH in without and COMMENT not in without


def test_a_comment_section_outside_the_article_is_no_longer_scored_into_it() -> None:
    long_thread = THREAD.replace("<li class=comment>", "<li class=comment><p>" + PARAGRAPH[::-1] + "</p>")
    html = f"<body><div class=main><p>{PARAGRAPH}</p></div>{long_thread}"
    text = _main(html, replace(DEFAULTS, comments=False))
    assert text == PARAGRAPH


def test_a_content_class_protects_its_element_from_the_other_class_words() -> None:
    # TypePad: the post's wrapper is "entry-author-NAME entry-type-post entry"; "author" alone
    # would prune it (it holds less than 30% of a page with a long sidebar)
    sidebar = "<div id=sidebar>" + f"<p>{PARAGRAPH[::-1]}</p>" * 8 + "</div>"
    html = (f"<body><div class='entry-author-garr entry-type-post entry'><p>{PARAGRAPH}</p></div>"
            f"{sidebar}")
    assert PARAGRAPH in _main(html)
    html = f"<body><div class='entry-author-garr'><p>{PARAGRAPH}</p></div>{sidebar}"
    assert PARAGRAPH not in _main(html)


def test_a_link_around_block_elements_stays_link_text_in_each_block() -> None:
    # Teaser cards: one <a> around a heading and a summary in block elements. The blocks the
    # card is cut into are each link text (a link block), not a summary scored as content.
    cards = "".join(
        f"<a href=/story/{i}><div class=card-text><h3>Another story headline number {i}</h3>"
        f"<div>A summary of that other story, {i} sentences long, written to be read "
        "before anyone follows the link to the story.</div></div></a>" for i in range(4))
    html = f"<body><div><p>{PARAGRAPH}</p><p>{PARAGRAPH}</p></div><section>{cards}</section>"
    text = _main(html)
    assert PARAGRAPH in text
    assert "A summary of that other story" not in text
    # the same summaries outside links are content
    unlinked = cards.replace("<a href=", "<span data-href=").replace("</a>", "</span>")
    assert "A summary of that other story" in _main(html.replace(cards, unlinked))


def test_a_post_in_an_aside_under_the_share_guard_is_found_by_the_fallback() -> None:
    # A theme that wraps the post in <aside class=blogPost>: structural boilerplate holding
    # less than 30% of a page with a long menu. The fallback prunes less and less until the
    # page has a main text (patterns, then the structural tags).
    menu = "<div><ul>" + "".join(f"<li><a href=/s{i}>Menu entry with a longer name, number {i}</a></li>"
                                 for i in range(60)) + "</ul></div>"
    html = f"<body>{menu}<aside class=blogPost><h1>Budget</h1><p>{PARAGRAPH}</p></aside>"
    assert PARAGRAPH in _main(html)
    # (with the fallback off, nothing is left)
    assert _main(html, replace(DEFAULTS, fallback_min_chars=0)) == ""


def test_comment_sections_that_are_boilerplate_themselves_are_not_comments() -> None:
    article = f"<article><p>{PARAGRAPH}</p><p>{PARAGRAPH}</p></article>"
    rules = ("<div class='modal-window window-comments-rules'><p>Users are obliged to speak "
             "respectfully to the other participants in the discussion.</p></div>")
    widget = ("<div class='widget recent-comments'><ul><li>Maitama: Congratulations for a well "
              "deserved achievement by the council…</li></ul></div>")
    login = ("<aside class=comments-block><p>If you would like to add a comment, please register "
             "or log in to your account.</p></aside>")
    text = _main(f"<body>{article}{THREAD}{rules}{widget}{login}")
    assert COMMENT in text  # the thread is kept
    assert "obliged" not in text and "Congratulations" not in text and "register" not in text


def test_the_reply_form_and_hidden_boxes_inside_a_comment_section_are_left_out() -> None:
    thread = (f"<div id=comments><div class=comment><p>{COMMENT}</p></div>"
              "<div id=comment-preview class=hiddenBox><p>Previewing your Comment: this is only a "
              "preview, your comment has not yet been posted.</p></div>"
              "<div id=respond class=comment-respond><h3>Leave a Reply</h3><p class=comment-notes>"
              "Your email address will not be published. Required fields are marked.</p></div></div>")
    text = _main(f"<body><article><p>{PARAGRAPH}</p><p>{PARAGRAPH}</p></article>{thread}")
    assert COMMENT in text
    assert "Previewing" not in text and "Leave a Reply" not in text and "email address" not in text


FOOTER = "<footer><p>Copyright 2019 Example Corp. All Rights Reserved.</p></footer>"


def test_a_tiny_page_under_the_minimum_length_keeps_its_text() -> None:
    # Every block is shorter than min_length (80): nothing scores, and the page is too small
    # for the fallback; its longest block is the main text.
    notice = "The office is closed on Monday, 3 June."
    text = _main(f"<body>{NAV}<div class=content><h1>Closed</h1><p>{notice}</p></div>{FOOTER}")
    assert text == f"Closed\n{notice}"
    # a countdown left by a page of script loaders is no text
    assert _main("<body><div><span>1</span> Secs</div>") == ""


def test_a_small_link_directory_as_the_page_content_is_kept() -> None:
    # A link directory: every block is a link block (under 20 characters of other text per
    # link), so nothing scores; on a small page the list itself is the main text.
    sites = ["Harbour Museum", "City Library", "Botanical Garden", "Old Town Walking Tours",
             "River Ferry Timetable", "Regional Bus Company", "Tourist Information Office"]
    items = "".join(f"<li><a href=https://e{i}.example/>{site}</a> (daily)</li>" for i, site in enumerate(sites))
    text = _main(f"<body>{NAV}<div id=main><h1>Useful links</h1><ul>{items}</ul></div>{FOOTER}")
    assert text.split("\n") == [f"{site} (daily)" for site in sites]


def test_code_left_as_text_by_broken_markup_is_not_main_text() -> None:
    # A script whose start tag was mangled ("<scr ipt>") is text to the parser: a block that
    # reads as code (braces, semicolons) is not scored, however long.
    code = ("var _gaq = _gaq || []; _gaq.push(['_setAccount', 'UA-1234-1']); (function() { var ga = "
            "document.createElement('script'); ga.async = true; ga.src = '/ga.js'; })();")
    html = f"<body>{NAV}<div><p>{PARAGRAPH}</p><p>{PARAGRAPH}</p></div><div><scr ipt>{code}</div>{FOOTER}"
    text = _main(html)
    assert PARAGRAPH in text and "_gaq" not in text
    # prose with semicolons and parentheses is not code
    prose = ("He came; he saw (as ever); he left; and then he wrote it all down; the committee "
             "read it (twice) and filed it.")
    assert prose in _main(html.replace(code, prose))


def test_a_report_in_br_lines_is_kept_line_by_line() -> None:
    lines = ["Station report for 12 March", "Temperature at noon: 14 degrees",
             "Wind from the north-west, 20 km/h", "Rain: 2 mm overnight", "Observer: J. Smith"]
    text = _main(f"<body>{NAV}<div><font size=2>{'<br>'.join(lines)}</font></div>{FOOTER}")
    assert text.split("\n") == lines
