"""The URLs of a style sheet or a ``style`` attribute, found by CSS tokenization.

Implements CSS Syntax Module Level 3 §3.3 (preprocessing the input stream) and §4
(tokenization: §4.3.1 consume a token, §4.3.4 consume an ident-like token, §4.3.5 consume a
string token, §4.3.6 consume a url token, §4.3.7 consume an escaped code point,
§4.3.14 consume the remnants of a bad url), and keeps, in source order:

- the value of every ``<url-token>`` (``url(x.png)``);
- the first ``<string-token>`` of a ``url(`` function (``url("x.png")``);
- the string of an ``@import`` rule's prelude (``@import "x.css"``, CSS Cascade §2);
- the strings of ``image-set()`` / ``-webkit-image-set()`` (CSS Images 4 §2.2: a
  ``<string>`` there is a URL).

Left out: URLs in an ``@namespace`` prelude (a namespace name is never loaded), empty
URLs (CSS Values 4 §4.5: ``url("")`` is an invalid resource) and fragment-only ones
(``url(#clip)``: a reference into the document itself). A bad url or bad string token has
no value. The tokenizer never builds the token list: it reads what decides a URL and
skips the rest, in one pass (linear in the input). The oracle of the compiled core's
``css_urls`` (``pipeline/extract/_urltext.c``), which the pipeline runs: tests compare the
two, and this one with tinycss2.
https://www.w3.org/TR/css-syntax-3/#tokenization
"""

from __future__ import annotations

import re

#: §3.3: CR LF, CR and FF become LF; NUL and surrogates become U+FFFD.
_PREPROCESS = re.compile("\r\n|[\r\x0c\x00\ud800-\udfff]")
_REPLACEMENT = {"\r\n": "\n", "\r": "\n", "\x0c": "\n", "\x00": "\ufffd"}
_WHITESPACE = re.compile("[ \t\n]*")
_ESCAPE = r"\\(?:[0-9a-fA-F]{1,6}[ \t\n]?|[^\n]|\Z)"
#: §4.3.12 consume an ident sequence: name code points and escapes.
_NAME = re.compile(rf"(?:[-\w]|[^\x00-\x7f]|{_ESCAPE})+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HEX = re.compile(r"[0-9a-fA-F]{1,6}[ \t\n]?")
#: §4.2: non-printable code points end a url token as a bad url.
_NON_PRINTABLE = frozenset("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0e\x0f\x10\x11\x12\x13\x14"
                           "\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f")
#: The plain run a url token keeps as it is (no escape, quote, paren, white space, control).
_URL_RUN = re.compile(r"[^\\\"'() \t\n\x00-\x08\x0b\x0e-\x1f\x7f]+")
_IMAGE_SET = ("image-set", "-webkit-image-set")


def css_urls(text: str) -> list[str]:
    """The URLs of a style sheet or declaration list, in source order.

    >>> css_urls('a{background:URL( "x.png" )} @import "s.css"; b{src:url(f.woff) u\\\\72l(y)}')
    ['x.png', 's.css', 'f.woff', 'y']
    >>> css_urls('/* url(no) */ p{x:"url(no)"; y:xurl(no); z:5url(no); w:url(#frag)}')
    []
    >>> css_urls("i{b:image-set('a.png' 1x, url(b.png) 2x)} @namespace url(http://ns/);")
    ['a.png', 'b.png']
    """
    text = _PREPROCESS.sub(lambda m: _REPLACEMENT.get(m.group(), "\ufffd"), text)
    return _Tokenizer(text).run()


def css_urls_possible(text: str) -> bool:
    """Whether :func:`css_urls` can find anything in ``text``: every URL it keeps comes
    from a ``url(`` or ``image-set(`` function or token, or an ``@import`` rule.

    >>> css_urls_possible("color: red"), css_urls_possible("background: url(x)")
    (False, True)
    """
    return "(" in text or "@" in text


def _name_starts(text: str, at: int) -> bool:
    """§4.3.9 *check if three code points would start an ident sequence*."""
    c = text[at:at + 1]
    if c == "-":
        d = text[at + 1:at + 2]
        return d == "-" or _is_name_start(d) or _valid_escape(text, at + 1)
    return _is_name_start(c) or _valid_escape(text, at)


def _is_name_start(c: str) -> bool:
    return c != "" and (c.isascii() and (c.isalpha() or c == "_") or not c.isascii())


def _valid_escape(text: str, at: int) -> bool:
    """§4.3.8 *check if two code points are a valid escape*."""
    return text[at:at + 1] == "\\" and text[at + 1:at + 2] != "\n"


def _escaped(text: str, at: int) -> tuple[str, int]:
    """§4.3.7 *consume an escaped code point*, ``at`` just after the backslash."""
    hex_digits = _HEX.match(text, at)
    if hex_digits is not None:
        value = int(hex_digits.group().rstrip(" \t\n"), 16)
        if value == 0 or 0xD800 <= value <= 0xDFFF or value > 0x10FFFF:
            return "\ufffd", hex_digits.end()
        return chr(value), hex_digits.end()
    if at >= len(text):
        return "\ufffd", at
    return text[at], at + 1


def _name_value(raw: str) -> str:
    """The value of a name run (escapes decoded)."""
    if "\\" not in raw:
        return raw
    out, at = [], 0
    while at < len(raw):
        if raw[at] == "\\":
            c, at = _escaped(raw, at + 1)
            out.append(c)
        else:
            out.append(raw[at])
            at += 1
    return "".join(out)


class _Tokenizer:
    """One pass of §4.3.1 over preprocessed text, keeping the URLs."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.urls: list[str] = []
        self.parens: list[bool] = []  # per open "(" or function: is it image-set()?
        self.prelude = ""  # "import" or "namespace" inside that at-rule's prelude
        self.prelude_fresh = False  # no component of the prelude seen yet

    def keep(self, url: str) -> None:
        if url and not url.startswith("#") and self.prelude != "namespace":
            self.urls.append(url)

    def run(self) -> list[str]:
        text, end, at = self.text, len(self.text), 0
        while at < end:
            c = text[at]
            if c in " \t\n":
                at = _WHITESPACE.match(text, at).end()  # type: ignore[union-attr]
                continue
            fresh, self.prelude_fresh = self.prelude_fresh, False
            if c == "/" and text.startswith("*", at + 1):  # §4.3.2 comments
                close = text.find("*/", at + 2)
                at = end if close < 0 else close + 2
                self.prelude_fresh = fresh
            elif c in "\"'":
                value, at = self.string(at)
                if value is not None and (fresh and self.prelude == "import"
                                          or self.parens and self.parens[-1]):
                    self.keep(value)
            elif c == "#" and (_NAME.match(text, at + 1) is not None):  # a hash token
                at = _NAME.match(text, at + 1).end()  # type: ignore[union-attr]
            elif c == "@" and _name_starts(text, at + 1):
                name = _NAME.match(text, at + 1)
                assert name is not None
                at = name.end()
                keyword = _name_value(name.group()).lower()
                self.prelude = keyword if keyword in ("import", "namespace") else ""
                self.prelude_fresh = True
            elif (c in "+-." or c.isdigit()) and _NUMBER.match(text, at) and (
                    c.isdigit() or text[at + 1:at + 2].isdigit()
                    or text[at + 1:at + 2] == "." and text[at + 2:at + 3].isdigit()):
                at = _NUMBER.match(text, at).end()  # type: ignore[union-attr]
                if _name_starts(text, at):  # a dimension: the unit is a name
                    at = _NAME.match(text, at).end()  # type: ignore[union-attr]
                elif text.startswith("%", at):
                    at += 1
            elif c == "-" and text.startswith("->", at + 1):  # CDC
                at += 3
            elif c == "<" and text.startswith("!--", at + 1):  # CDO
                at += 4
            elif _name_starts(text, at):
                at = self.ident_like(at)
            elif c == "(":
                self.parens.append(False)
                at += 1
            elif c == ")":
                if self.parens:
                    self.parens.pop()
                at += 1
            elif c in ";{}":
                self.prelude = ""
                at += 1
            else:  # a delim, comma, colon, bracket, CDO's "<"
                at += 1
        return self.urls

    def string(self, at: int) -> tuple[str | None, int]:
        """§4.3.5 consume a string token from the quote at ``at``: (value or None for a
        bad string, position after)."""
        text, end, quote = self.text, len(self.text), self.text[at]
        out: list[str] = []
        at += 1
        while at < end:
            c = text[at]
            if c == quote:
                return "".join(out), at + 1
            if c == "\n":  # a bad string; the newline is not consumed
                return None, at
            if c == "\\":
                if at + 1 >= end:
                    at += 1
                elif text[at + 1] == "\n":
                    at += 2  # a line continuation
                else:
                    value, at = _escaped(text, at + 1)
                    out.append(value)
                continue
            run_end = at + 1
            while run_end < end and text[run_end] not in (quote, "\n", "\\"):
                run_end += 1
            out.append(text[at:run_end])
            at = run_end
        return "".join(out), at  # EOF: the string as it is (a parse error)

    def ident_like(self, at: int) -> int:
        """§4.3.4 consume an ident-like token at ``at``; the position after."""
        text = self.text
        name = _NAME.match(text, at)
        assert name is not None
        at = name.end()
        if not text.startswith("(", at):
            return at
        value = _name_value(name.group()).lower()
        at += 1
        if value != "url":
            self.parens.append(value in _IMAGE_SET)
            return at
        # "While the next two input code points are whitespace, consume the next input
        # code point." Then a quote (after at most one more whitespace) makes url( a
        # function whose string argument is the URL.
        after = _WHITESPACE.match(text, at).end()  # type: ignore[union-attr]
        if text[after:after + 1] in ("\"", "'"):
            self.parens.append(False)
            value_, at = self.string(after)
            if value_ is not None:
                self.keep(value_)
            return at
        return self.url_token(after)

    def url_token(self, at: int) -> int:
        """§4.3.6 consume a url token (white space after "url(" already skipped)."""
        text, end = self.text, len(self.text)
        out: list[str] = []
        while True:
            if at >= end:  # EOF: the url token as it is (a parse error)
                self.keep("".join(out))
                return at
            c = text[at]
            if c == ")":
                self.keep("".join(out))
                return at + 1
            if c in " \t\n":
                at = _WHITESPACE.match(text, at).end()  # type: ignore[union-attr]
                if at >= end or text[at] == ")":
                    self.keep("".join(out))
                    return min(at + 1, end)
                return self.bad_url(at)
            if c in "\"'(" or c in _NON_PRINTABLE:
                return self.bad_url(at)
            if c == "\\":
                if not _valid_escape(text, at):
                    return self.bad_url(at)
                value, at = _escaped(text, at + 1)
                out.append(value)
                continue
            run = _URL_RUN.match(text, at)
            assert run is not None
            out.append(run.group())
            at = run.end()

    def bad_url(self, at: int) -> int:
        """§4.3.14 consume the remnants of a bad url: up to ")" (escapes skipped)."""
        text, end = self.text, len(self.text)
        while at < end:
            c = text[at]
            if c == ")":
                return at + 1
            if _valid_escape(text, at):
                _, at = _escaped(text, at + 1)
            else:
                at += 1
        return at
