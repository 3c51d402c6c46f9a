"""URL-like string literals of inline scripts and JSON data blocks.

A script is read as an ECMAScript *InputElement* stream (ECMAScript 2024 §12: white space
§12.2, line terminators §12.3, comments §12.4 and Annex B.1.1's HTML-like comments, string
literals §12.9.4, template literals §12.9.6, regular expression literals §12.9.5), and the
value of every string literal (and of every template literal without substitutions) is
decoded as §12.9.4.1 *SV* says: ``\\n``, ``\\x41``, ``\\u00e9``, ``\\u{1F600}``, ``\\/``,
line continuations, and Annex B.1.2's legacy octal escapes; the UTF-16 value then becomes a
scalar value string as WebIDL's USVString conversion does (a lone surrogate becomes
U+FFFD), which is what ``fetch()`` or ``new URL()`` receive. JSON text (``application/ld+json``,
``importmap``, ...) is read the same way: every JSON string (RFC 8259 §7) is a string literal
with the same value.

Where a ``/`` starts a regular expression literal depends on the syntactic grammar
(§12: the *InputElementRegExp* and *InputElementDiv* goals). DEVIATION: the goal is taken
from the previous token, as tokenizers without a parser do: after an identifier (not a
keyword that precedes an expression), a number, a string, a template, ``)`` or ``]`` a
``/`` divides; anywhere else it starts a regular expression. A regular expression that
does not end on its line (so the guess was wrong, or the script is not valid) ends the
line's reading there: the reading stays linear whatever the input.

A literal is kept when it is URL-like (:func:`url_like`): an absolute ``http``, ``https``,
``ftp``, ``ws`` or ``wss`` URL or a scheme-relative one whose host has a dot (or is an IP
literal), a path-absolute URL (``/x``), or a dot-relative path (``./x``, ``../x``) — and
then only if it resolves (the links step parses it). The oracle of the compiled core's
``script_urls`` (``pipeline/extract/_urltext.c``), which the pipeline runs: tests compare
the two, and the strings with esprima's tokenizer on real scripts.
https://tc39.es/ecma262/2024/#sec-ecmascript-language-lexical-grammar
"""

from __future__ import annotations

import re

_LINE_TERMINATORS = "\n\r\u2028\u2029"
#: Identifiers and keywords, numbers, and everything a division may follow.
_WORD = re.compile(r"[A-Za-z0-9_$\u0080-\U0010ffff]+|\\u[0-9A-Fa-f{][0-9A-Fa-f}]*")
#: Keywords after which an expression (so a regular expression) may start.
_BEFORE_EXPRESSION = frozenset({
    "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case",
    "do", "else", "yield", "await",
})
_SPACE = re.compile("[\t\x0b\x0c \u00a0\ufeff\u1680\u2000-\u200a\u202f\u205f\u3000\n\r\u2028\u2029]+")
_LINE_END = re.compile("[\n\r\u2028\u2029]")
_SINGLE_ESCAPES = {"'": "'", '"': '"', "\\": "\\", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
                   "t": "\t", "v": "\v"}
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")
_CODE_POINT = re.compile(r"\{([0-9A-Fa-f]+)\}")
_OCTAL = re.compile(r"[0-3][0-7]{0,2}|[4-7][0-7]?")
_SURROGATES = re.compile("[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]")
#: The plain run of a string literal (no quote, backslash or line end).
_STRING_RUN = {q: re.compile(f"[^{q}\\\\\n\r]+") for q in "'\""}
_TEMPLATE_RUN = re.compile(r"[^`\\$]+|\$(?!\{)")
#: Absolute URLs of the schemes a crawler fetches, and scheme-relative ones: the host (after
#: any userinfo) is an IP literal or has a dot.
_ABSOLUTE = re.compile(r"(?:(?:https?|ftp|wss?):)?//(?:[^/?#@]*@)?(?:\[|[^/?#:]*\.[^/?#:]*[^/?#:.])",
                       re.IGNORECASE | re.ASCII)
#: The code points a valid URL string holds (URL Standard §4.3 URL code points, "%", "#" and
#: the brackets of an IPv6 host): no white space, no control, none of "<>\"{}|\\^`"
#: (template placeholders, markup).
_URL_TEXT = re.compile(r"[!#$%&'()*+,\-./0-9:;=?@A-Z\[\]_a-z~\u00a0-\U0010fffd]+")


def url_like(value: str) -> bool:
    """Whether a string literal's value is a URL a crawler would take (before the links
    step checks that it resolves).

    >>> [url_like(v) for v in ("https://a.example/x", "//cdn.example.com/a.js", "/path", "./a")]
    [True, True, True, True]
    >>> [url_like(v) for v in ("/", "//", "https://", "text/html", "a b", "/{id}", "http://localhost/")]
    [False, False, False, False, False, False, False]
    """
    if not value or _URL_TEXT.fullmatch(value) is None:
        return False
    first = value[0]
    if first == "/":
        if value.startswith("//"):
            return _ABSOLUTE.match(value) is not None
        # path-absolute: "/" then a path character (not "/" alone, not "/*")
        second = value[1:2]
        return second != "" and (second.isascii() and (second.isalnum() or second in "-._~%")
                                  or second >= "\u00a0")
    if first == ".":
        return value.startswith(("./", "../"))
    return _ABSOLUTE.match(value) is not None


def string_literals(text: str) -> list[str]:
    """The values of the string literals (and substitution-free template literals) of a
    script or JSON text, in source order.

    >>> string_literals(r'''var a = "x\\/y", re = /"no"/g, b = 4 / 2 / 'z'; // "no"
    ... c = `t${"s"}u`, d = `v`, e = '\\u0041\\x42\\103'; <!-- "no"''')
    ['x/y', 'z', 's', 'v', 'ABC']
    """
    return _Reader(text).run()


def _usv(value: str) -> str:
    """WebIDL USVString conversion of a UTF-16 value held in a ``str`` of code units and
    code points: surrogate pairs joined, lone surrogates replaced."""
    if not any("\ud800" <= c <= "\udfff" for c in value):
        return value
    return _SURROGATES.sub(lambda m: m.group().encode("utf-16", "surrogatepass").decode("utf-16")
                           if len(m.group()) == 2 else "\ufffd", value)


class _Reader:
    """One left-to-right reading of a script."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.out: list[str] = []
        # per open template substitution: the depth of braces opened inside it
        self.templates: list[int] = []

    def run(self) -> list[str]:
        text, end, at = self.text, len(self.text), 0
        regex_ok = True  # whether a "/" here starts a regular expression
        line_start = True  # only white space and comments so far on this line
        while at < end:
            c = text[at]
            space = _SPACE.match(text, at)
            if space is not None:
                if _LINE_END.search(space.group()):
                    line_start = True
                at = space.end()
                continue
            if c == "/" and text.startswith("/", at + 1) or (
                    c == "<" and text.startswith("!--", at + 1)) or (
                    line_start and c == "-" and text.startswith("->", at + 1)):
                # single-line comments, Annex B.1.1's HTML-like ones included
                found = _LINE_END.search(text, at)
                at = end if found is None else found.start()
                continue
            if c == "/" and text.startswith("*", at + 1):
                close = text.find("*/", at + 2)
                if close < 0:
                    return self.out
                if _LINE_END.search(text, at, close):
                    line_start = True
                at = close + 2
                continue
            line_start = False
            if c in "'\"":
                value, at = self.string(at)
                if value is not None:
                    self.out.append(_usv(value))
                regex_ok = False
            elif c == "`":
                at = self.template(at + 1)
                regex_ok = False
            elif c == "}" and self.templates and self.templates[-1] == 0:
                self.templates.pop()
                at = self.template(at + 1)
                regex_ok = False
            elif c == "/":
                if regex_ok:
                    at = self.regex(at)
                    regex_ok = False
                else:
                    at += 1
                    regex_ok = True
            else:
                word = _WORD.match(text, at)
                if word is not None:
                    at = word.end()
                    regex_ok = word.group() in _BEFORE_EXPRESSION
                    continue
                if c == "{" and self.templates:
                    self.templates[-1] += 1
                elif c == "}" and self.templates:
                    self.templates[-1] -= 1
                regex_ok = c not in ")]"
                at += 1
        return self.out

    def string(self, at: int) -> tuple[str | None, int]:
        """A string literal from its quote at ``at``: (value or None if it is not a valid
        one, position after). An unterminated literal ends at its line's end."""
        text, end, quote = self.text, len(self.text), self.text[at]
        run = _STRING_RUN[quote]
        out: list[str] = []
        at += 1
        valid = True
        while at < end:
            c = text[at]
            if c == quote:
                return ("".join(out) if valid else None), at + 1
            if c in "\n\r":  # §12.9.4: no LF or CR in a string literal
                return None, at
            if c == "\\":
                value, at = self.escape(at + 1, template=False)
                if value is None:
                    valid = False
                else:
                    out.append(value)
                continue
            piece = run.match(text, at)
            assert piece is not None
            out.append(piece.group())
            at = piece.end()
        return None, at

    def escape(self, at: int, template: bool) -> tuple[str | None, int]:
        """§12.9.4 EscapeSequence / LineContinuation after a backslash: (its SV, or None
        for an invalid escape; the position after)."""
        text = self.text
        if at >= len(text):
            return None, at
        c = text[at]
        if c in _LINE_TERMINATORS:  # LineContinuation: the empty string
            return "", at + (2 if text.startswith("\r\n", at) else 1)
        if c in _SINGLE_ESCAPES:
            return _SINGLE_ESCAPES[c], at + 1
        if c == "x":
            found = _HEX2.match(text, at + 1)
            return (None, at + 1) if found is None else (chr(int(found.group(), 16)), found.end())
        if c == "u":
            found = _HEX4.match(text, at + 1)
            if found is not None:
                return chr(int(found.group(), 16)), found.end()
            braced = _CODE_POINT.match(text, at + 1)
            if braced is None or int(braced.group(1), 16) > 0x10FFFF:
                return None, at + 1
            return chr(int(braced.group(1), 16)), braced.end()
        if c == "0" and not ("0" <= text[at + 1:at + 2] <= "9" and text[at + 1:at + 2]):
            return "\0", at + 1
        if "0" <= c <= "7":  # Annex B.1.2 LegacyOctalEscapeSequence (not in templates)
            octal = _OCTAL.match(text, at)
            assert octal is not None
            return (None if template else chr(int(octal.group(), 8))), octal.end()
        if c in "89":  # NonOctalDecimalEscapeSequence
            return (None if template else c), at + 1
        return c, at + 1  # NonEscapeCharacter

    def template(self, at: int) -> int:
        """A template's characters from ``at`` (after "`" or a substitution's "}") to its
        end or its next substitution; keeps the value of a template without any."""
        text, end = self.text, len(self.text)
        whole = text[at - 1] == "`"  # the template's start: it may have no substitution
        out: list[str] = []
        valid = True
        while at < end:
            c = text[at]
            if c == "`":
                if whole and valid:
                    self.out.append(_usv("".join(out)))
                return at + 1
            if c == "$":  # "${" (a lone "$" is matched by the run below)
                if text.startswith("{", at + 1):
                    self.templates.append(0)
                    return at + 2
            if c == "\\":
                value, at = self.escape(at + 1, template=True)
                if value is None:
                    valid = False
                else:
                    out.append(value)
                continue
            piece = _TEMPLATE_RUN.match(text, at)
            assert piece is not None
            # §12.9.6 TV: a CR LF or CR of the source is a LF (an escaped "\r" stays CR)
            out.append(piece.group().replace("\r\n", "\n").replace("\r", "\n"))
            at = piece.end()
        return at

    def regex(self, at: int) -> int:
        """§12.9.5 a regular expression literal from its "/" at ``at``; the position after
        its flags, or (no closing "/" on the line) the line's end."""
        text, end = self.text, len(self.text)
        at += 1
        in_class = False
        while at < end:
            c = text[at]
            if c in _LINE_TERMINATORS:
                return at
            if c == "\\":
                if text[at + 1:at + 2] in _LINE_TERMINATORS:  # (a line end cannot be escaped)
                    return at + 1
                at += 2
                continue
            if c == "[":
                in_class = True
            elif c == "]":
                in_class = False
            elif c == "/" and not in_class:
                flags = _WORD.match(text, at + 1)
                return at + 1 if flags is None else flags.end()
            at += 1
        return at
