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
    strict = replace(ExtractOptions(), threshold=10_000.0)
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
