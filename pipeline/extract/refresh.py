"""The target of ``<meta http-equiv=refresh content="N; url=...">``.

Implements the parsing part of the HTML Standard's *shared declarative refresh steps*
(§7.4.2.3.3 in the navigation chapter): the time, then the URL string, or no URL (the
document refreshes its own URL). Checked against the WPT cases of
``attr-meta-http-equiv-refresh/parsing.html`` (``tests/fixtures/links/wpt-refresh.json``).
https://html.spec.whatwg.org/commit-snapshots/2c2f4ac1bcae32e4b8af5f6a5a2fb8f5dc2b4e83/#shared-declarative-refresh-steps
"""

from __future__ import annotations

_WHITESPACE = "\t\n\x0c\r "


def parse_refresh(content: str) -> tuple[int, str | None] | None:
    """``(time, url string or None)`` for a refresh ``content`` value; None when the steps
    return without refreshing. The URL string is unresolved ("parse urlString relative to
    document" is the caller's, with the document's encoding).

    >>> parse_refresh("5; URL='/next'"), parse_refresh("0"), parse_refresh("1url=foo")
    ((5, '/next'), (0, None), None)
    >>> parse_refresh("  1  ;  foo"), parse_refresh('1; url="foo\\'bar'), parse_refresh(".9, u")
    ((1, 'foo'), (1, "foo'bar"), (0, 'u'))
    """
    end = len(content)
    position = _skip_whitespace(content, 0)  # Step 3
    # Step 5: "Collect a sequence of code points that are ASCII digits".
    start = position
    while position < end and "0" <= content[position] <= "9":
        position += 1
    digits = content[start:position]
    if not digits:
        # Step 6: "If timeString is the empty string, then: If the code point in input
        # pointed to by position is not U+002E (.), then return."
        if position >= end or content[position] != ".":
            return None
    time = int(digits) if digits else 0  # Step 7 (no sign: only digits were collected)
    # Step 8: "Collect a sequence of code points that are ASCII digits and U+002E FULL
    # STOP characters from input given position. Ignore any collected characters."
    while position < end and (content[position] == "." or "0" <= content[position] <= "9"):
        position += 1
    if position < end:  # Step 10
        if content[position] not in ";," and content[position] not in _WHITESPACE:
            return None
        position = _skip_whitespace(content, position)
        if position < end and content[position] in ";,":
            position += 1
        position = _skip_whitespace(content, position)
    if position >= end:  # Step 11: no URL, the document's own
        return time, None
    url_string = content[position:]  # 11.1
    if content[position] in "Uu":  # 11.3
        position += 1
        if position < end and content[position] in "Rr":  # 11.4
            position += 1
            if position < end and content[position] in "Ll":  # 11.5
                position = _skip_whitespace(content, position + 1)  # 11.6
                if position < end and content[position] == "=":  # 11.7
                    position = _skip_whitespace(content, position + 1)  # 11.8
                    url_string = _skip_quotes(content, position)
        return time, url_string
    return time, _skip_quotes(content, position)


def _skip_quotes(content: str, position: int) -> str:
    """Steps 11.9-11.11 ("skip quotes"): the rest of the value, cut at its closing quote."""
    quote = content[position] if position < len(content) and content[position] in "'\"" else ""
    url_string = content[position + len(quote):]
    if quote and quote in url_string:
        url_string = url_string[: url_string.index(quote)]
    return url_string


def _skip_whitespace(content: str, position: int) -> int:
    while position < len(content) and content[position] in _WHITESPACE:
        position += 1
    return position
