"""Chromium's ``<meta>`` charset scan (Blink ``HTMLMetaCharsetParser``), which also finds a
``<meta>`` after the first 1024 bytes while the parser is still in ``<head>``.

This is not the HTML Standard's prescan (see :mod:`.prescan`): Blink runs its HTML tokenizer
over the bytes read as Latin-1 from the start of the document, so text inside ``<script>``,
``<style>``, ``<title>``, ``<textarea>`` (and the other raw-text elements) is not markup, and
the scan stops once a tag that does not belong in ``<head>`` has been seen *and* at least 1024
bytes have been read. Blink's rules, as measured with Chromium 156 (``../shared/oracle``):

- tags that keep the scan "in head": start or end tags ``script``, ``noscript``, ``style``,
  ``link``, ``meta``, ``object``, ``title``, ``base``, and start tags ``html``, ``head``;
  any other tag (including ``</head>`` and unknown elements) leaves the head;
- a ``<meta>`` is decided by Blink's *EncodingFromMetaAttributes*: the first ``charset`` or
  ``content`` attribute wins (``content`` needs ``http-equiv="content-type"``);
- ``x-user-defined`` becomes windows-1252 and UTF-16 becomes UTF-8 (``SetEncoding``).

The tokenizer here is a linear-time approximation of the HTML tokenizer: tags and their
attributes, comments (including ``<!-->``), ``<!``/``<?``/``</`` bogus comments, and the
RCDATA/RAWTEXT/script-data elements whose content is skipped up to the matching end tag.

# DEVIATION: script data is skipped to the first ``</script`` without the tokenizer's
# ``<!--``/``<script`` "double escaped" states — pages that nest script tags inside script
# comments are vanishingly rare, and the simple rule keeps the scan linear.
# DEVIATION: only the character references ``&#NNN;``, ``&#xHH;``, ``&amp;``, ``&quot;``,
# ``&apos;``, ``&lt;``, ``&gt;`` are decoded in attribute values — enough for charset labels,
# which never legitimately contain any.
# DEVIATION: the scan gives up after :data:`MAX_TOKENS` tags and comments — Blink scans a
# ``<head>`` of any length, but a head of thousands of tags before its charset is junk, and the
# cap keeps the worst case (10 MB of ``<meta>``) within a few milliseconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from pipeline.encoding.lookup import get_an_encoding

#: Blink's kBytesToCheckUnconditionally: metas are honoured anywhere in the first 1024 bytes.
BYTES_TO_CHECK_UNCONDITIONALLY = 1024

_HEAD_TAGS = frozenset({b"script", b"noscript", b"style", b"link", b"meta", b"object", b"title", b"base"})
_RCDATA = frozenset({b"title", b"textarea"})
_RAWTEXT = frozenset({b"style", b"xmp", b"iframe", b"noembed", b"noframes", b"script"})

#: Markup tokens examined before giving up (see the DEVIATION in the module docstring).
MAX_TOKENS = 4096

_TAG_NAME = re.compile(rb"[A-Za-z][^\t\n\x0c\r />]*+")
# A tag from its name to its ">", linear: atomic groups and possessive quantifiers never
# backtrack. An unterminated quoted value runs to the end and then fails to find ">".
_ATTRS = (
    rb"(?P<attrs>(?>[\t\n\x0c\r /]++|[^\t\n\x0c\r />][^\t\n\x0c\r />=]*+"
    rb"(?>[\t\n\x0c\r ]*+=[\t\n\x0c\r ]*+"
    rb"(?>\"[^\"]*+(?:\"|\Z)|'[^']*+(?:'|\Z)|[^\t\n\x0c\r >]*+))?+)*+)>"
)
_START_TAG = re.compile(rb"<(?P<name>[A-Za-z][^\t\n\x0c\r />]*+)" + _ATTRS)
_END_TAG = re.compile(rb"</(?P<name>[A-Za-z][^\t\n\x0c\r />]*+)" + _ATTRS)
_ATTRIBUTE = re.compile(
    rb"[\t\n\x0c\r /]*+(?P<name>[^\t\n\x0c\r />][^\t\n\x0c\r />=]*+)"
    rb"(?:[\t\n\x0c\r ]*+=[\t\n\x0c\r ]*+(?:\"(?P<dq>[^\"]*+)\"?|'(?P<sq>[^']*+)'?"
    rb"|(?P<uq>[^\t\n\x0c\r >]*+)))?"
)
_CHAR_REF = re.compile(r"&(?:#[xX]([0-9A-Fa-f]+);?|#([0-9]+);?|(amp|quot|apos|lt|gt);)")
_NAMED = {"amp": "&", "quot": '"', "apos": "'", "lt": "<", "gt": ">"}
# A numeric character reference (as _CHAR_REF reads it) to a letter of "charset", either case.
_CHARSET_LETTER_REF = re.compile(
    rb"&#(?:[xX]0*(?:" + b"|".join(sorted({b"%x" % ord(c) for c in "charsetCHARSET"})) + rb")(?![0-9A-Fa-f])"
    rb"|0*(?:" + b"|".join(sorted({b"%d" % ord(c) for c in "charsetCHARSET"})) + rb")(?![0-9]))"
)
_HTML_SPACE = "\t\n\x0c\r "


@dataclass(frozen=True, slots=True)
class MetaScanResult:
    """A ``<meta>`` Blink honours: WHATWG encoding, label as written, where, and how."""

    encoding: str
    label: str
    kind: str  # "meta-charset" or "meta-http-equiv"
    offset: int  # byte offset of the "<meta"
    end: int  # byte offset just past its ">"
    in_head: bool  # still in <head> when found (False: found within the first 1024 bytes)


@lru_cache(maxsize=16)
def _end_of(name: bytes) -> re.Pattern[bytes]:
    return re.compile(rb"</" + re.escape(name) + rb"[\t\n\x0c\r />]", re.IGNORECASE)


def _char_ref(match: re.Match[str]) -> str:
    hex_digits, dec_digits, named = match.groups()
    if named:
        return _NAMED[named]
    try:
        code = int(hex_digits, 16) if hex_digits else int(dec_digits)
        return chr(code) if 0 < code < 0x110000 and not 0xD800 <= code <= 0xDFFF else "\ufffd"
    except (ValueError, OverflowError):
        return "\ufffd"


def _attributes(raw: bytes) -> list[tuple[str, str]]:
    """The attributes of a tag (names lowercased, later duplicates dropped, as the tokenizer)."""
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for match in _ATTRIBUTE.finditer(raw):
        name = match.group("name").decode("latin-1").lower()
        value_bytes = match.group("dq")
        if value_bytes is None:
            value_bytes = match.group("sq")
        if value_bytes is None:
            value_bytes = match.group("uq") or b""
        value = value_bytes.decode("latin-1")
        if "&" in value:
            value = _CHAR_REF.sub(_char_ref, value)
        if name not in seen:
            seen.add(name)
            out.append((name, value))
    return out


def extract_charset(value: str) -> str:
    """Blink's *ExtractCharset* on a ``content`` value ("" when there is none).

    >>> extract_charset("text/html; charset='koi8-r'")
    'koi8-r'
    >>> extract_charset('text/html; charset="utf-8')   # close quote not found
    ''
    """
    n = len(value)
    lower = value.lower()
    position = 0
    while position < n:
        position = lower.find("charset", position)
        if position < 0:
            break
        position += 7
        while position < n and value[position] <= " ":
            position += 1
        if position >= n or value[position] != "=":
            continue
        position += 1
        while position < n and value[position] <= " ":
            position += 1
        quote = ""
        if position < n and value[position] in "\"'":
            quote = value[position]
            position += 1
        if position >= n:
            break
        end = position
        if quote:
            while end < n and value[end] != quote:
                end += 1
            if end >= n:
                break
        else:
            while end < n and value[end] > " " and value[end] not in "\"';":
                end += 1
        return value[position:end]
    return ""


def encoding_from_meta_attributes(attributes: list[tuple[str, str]]) -> tuple[str | None, str | None, str]:
    """Blink's *EncodingFromMetaAttributes*: (encoding, label, kind); (None, label, kind) when the
    label is not a WHATWG label, (None, None, "") when the meta declares nothing."""
    got_pragma = False
    mode = ""
    charset = ""
    for name, value in attributes:
        if name == "http-equiv":
            if value.lower() == "content-type":
                got_pragma = True
        elif not charset:
            if name == "charset":
                charset, mode = value, "meta-charset"
            elif name == "content":
                charset = extract_charset(value)
                if charset:
                    mode = "meta-http-equiv"
    if mode == "meta-charset" or (mode == "meta-http-equiv" and got_pragma):
        label = charset.strip(_HTML_SPACE)
        encoding = get_an_encoding(label)
        # SetEncoding(kEncodingFromMetaTag): x-user-defined → windows-1252, UTF-16 → UTF-8.
        if encoding == "x-user-defined":
            encoding = "windows-1252"
        elif encoding in ("UTF-16BE", "UTF-16LE"):
            encoding = "UTF-8"
        return encoding, charset, mode
    return None, None, ""


def scan_meta_charset(body: bytes) -> MetaScanResult | None:
    """Find the ``<meta>`` charset Chromium honours anywhere in the document, or None.

    >>> scan_meta_charset(b"<title>x</title>" + b" " * 2000 + b"<meta charset=koi8-r>").encoding
    'KOI8-R'
    >>> scan_meta_charset(b"<body>" + b" " * 2000 + b"<meta charset=koi8-r>") is None
    True
    >>> scan_meta_charset(b"<script>'<meta charset=koi8-r>'</script>") is None
    True
    """
    try:
        return _scan(body)
    except Exception:  # defensive: bytes from the wild never make it raise
        return None


class _MarkupFinder:
    """Finds the next ``<`` followed by an ASCII letter, ``!``, ``/`` or ``?`` in linear time
    whatever the input. A regex search costs per ``<`` it meets, so a chunk dense with ``<``
    (``<<<<...``) is translated once to byte classes and searched with ``bytes.find``."""

    # (the scan mostly ends within a page's first kilobytes: counting the "<" of 64 KB
    # chunks cost more than the scan itself)
    _CHUNK = 1 << 12
    _DENSE = 1 << 6  # "<" per chunk above which the translated search is cheaper
    _TABLE = bytes(
        0x3C if b == 0x3C else 0x4C if chr(b).isascii() and (chr(b).isalpha() or chr(b) in "!/?") else 0x20
        for b in range(256)
    )
    _START = re.compile(rb"<[A-Za-z!/?]")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._base = 0
        self._end = 0  # the current chunk is data[_base:_end]
        self._classes: bytes | None = None
        self._rare_letters = False

    def find(self, position: int) -> int:
        data = self._data
        n = len(data)
        while position < n:
            if not self._base <= position < self._end:
                self._base = position
                self._end = min(position + self._CHUNK, n)
                dense = data.count(b"<", position, self._end) > self._DENSE
                # one byte of overlap so that a "<" at the chunk's end sees its next byte
                self._classes = data[position : self._end + 1].translate(self._TABLE) if dense else None
                # in a dense chunk, are second-byte candidates rare enough to look for them?
                self._rare_letters = (
                    self._classes is not None and self._classes.count(b"L") * 8 <= len(self._classes)
                )
            if self._classes is None:
                match = self._START.search(data, position, self._end + 1)
                found = match.start() if match is not None else -1
            else:
                found = self._find_dense(position - self._base)
                found = found + self._base if found >= 0 else -1
            if found >= 0:
                return found
            position = self._end
        return -1

    def _find_dense(self, offset: int) -> int:
        # bytes.find(b"<L") crawls through a run of "<" byte by byte; when candidates for
        # the second byte are rare, find them instead (memchr) and look one byte back.
        classes = self._classes
        assert classes is not None
        if not self._rare_letters:
            return classes.find(b"<L", offset)
        while True:
            found = classes.find(b"L", max(offset, 1))
            if found < 0:
                return -1
            if classes[found - 1] == 0x3C:
                return found - 1
            offset = found + 1


def _tag_end(data: bytes, start: int, pattern: re.Pattern[bytes]) -> re.Match[bytes] | int | None:
    """The end of the tag at ``start``: an int when no quote can matter (fast path), the regex
    match otherwise, None when the tag runs to the end of the document."""
    close = data.find(b">", start)
    if close < 0:
        return None
    segment = data[start:close]
    if b'"' not in segment and b"'" not in segment:
        return close + 1
    return pattern.match(data, start)


class _CommentEnds:
    """Where the comment that starts at a position ends: just past its first ``-->`` or
    ``--!>`` (comment end and comment end bang states), or -1 when neither follows.

    Each of the two is searched for once per stretch of the document: the scan only moves
    forward, so an end found stays the next one until the scan passes it, and an end not
    found stays missing. Searching the rest of the document for both at every comment would
    take ~100 s over a head of 4,000 comments before 10 MB of text (the absent ``--!>``
    looked for 4,000 times)."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        # per ending: (the position searched from, the position found or -1)
        self._found = {b"-->": (len(data) + 1, -1), b"--!>": (len(data) + 1, -1)}

    def _next(self, ending: bytes, start: int) -> int:
        searched_from, found = self._found[ending]
        if searched_from <= start and (found < 0 or found >= start):
            return found
        found = self._data.find(ending, start)
        self._found[ending] = (start, found)
        return found

    def after(self, start: int) -> int:
        """The end of the comment whose text starts at ``start``, or -1."""
        if self._data.find(b">", start) < 0:  # both endings need one: a memchr answers
            return -1
        close = self._next(b"-->", start)
        if close >= 0:
            # A "--!>" ends the comment first only if it starts before that "-->": look for
            # it there alone, not through the rest of the document (where it is rare).
            bang = self._data.find(b"--!>", start, close + 3)
            return bang + 4 if bang >= 0 else close + 3
        bang = self._next(b"--!>", start)
        return bang + 4 if bang >= 0 else -1


# Where a <meta> start tag can begin: _TAG_NAME lowered is b"meta" only before one of these.
_META_TAG_START = re.compile(rb"<[Mm][Ee][Tt][Aa](?:[\t\n\x0c\r />]|\Z)")


def _may_declare(data: bytes, position: int) -> bool:
    """Whether a ``<meta>`` at or after ``position`` could declare a charset at all.

    Only a ``charset`` attribute or a ``content`` value containing "charset" (ASCII
    case-insensitive, after character references are decoded) can; no char of Latin-1 or of a
    named reference decoded here lowers into those letters, so either the bytes hold
    "charset" in some case or a numeric reference to one of its letters. A shortcut, not a
    deviation: without either, the scan can only end with None.
    """
    if data.find(b"charset", position) >= 0:  # as written nearly always: no lowered copy
        return True
    return b"charset" in data[position:].lower() or _CHARSET_LETTER_REF.search(data, position) is not None


def _scan(data: bytes) -> MetaScanResult | None:
    in_head = True
    position = 0
    n = len(data)
    finder = _MarkupFinder(data)
    comment_ends = _CommentEnds(data)
    tags = 0
    checked = left_head = False
    while True:
        if not in_head and not left_head:
            # Out of <head>, the scan only goes on to the first token at or past byte 1024, and
            # only a <meta> can end it with an answer: without a "<meta" starting before then
            # (a 6-byte window past 1024 is enough to see one), the answer is None.
            left_head = True
            limit = BYTES_TO_CHECK_UNCONDITIONALLY + 5
            if _META_TAG_START.search(data, position, limit) is None:
                return None
        if not checked and position >= BYTES_TO_CHECK_UNCONDITIONALLY:
            # Past the first 1024 bytes, still in <head>: a page with no charset declaration
            # further on would be scanned to the end of its <head> for nothing.
            checked = True
            if in_head and not _may_declare(data, position):
                return None
        start = finder.find(position)
        if start < 0:
            return None
        # The character token before this markup ended at `start`: Blink stops once out of
        # <head> and at least 1024 characters were consumed.
        if not in_head and start >= BYTES_TO_CHECK_UNCONDITIONALLY:
            return None
        tags += 1
        if tags > MAX_TOKENS:
            return None
        second = data[start + 1]
        if second == 0x21:  # "<!"
            if data.startswith(b"<!--", start):
                # Comment start state: "<!-->" and "<!--->" close at once.
                if data.startswith(b">", start + 4):
                    end = start + 5
                elif data.startswith(b"->", start + 4):
                    end = start + 6
                else:
                    end = comment_ends.after(start + 4)
                    if end < 0:
                        return None
            else:  # DOCTYPE, CDATA in HTML content and other "<!": up to the next ">"
                close = data.find(b">", start + 2)
                if close < 0:
                    return None
                end = close + 1
        elif second == 0x3F:  # "<?": bogus comment
            close = data.find(b">", start + 2)
            if close < 0:
                return None
            end = close + 1
        elif second == 0x2F:  # "</"
            if start + 2 < n and data[start + 2] == 0x3E:  # "</>" is dropped
                end = start + 3
            elif start + 2 < n and (0x41 <= data[start + 2] <= 0x5A or 0x61 <= data[start + 2] <= 0x7A):
                tag_end = _tag_end(data, start, _END_TAG)
                if tag_end is None:
                    return None  # end tag running to the end of the document
                name_match = _TAG_NAME.match(data, start + 2)
                assert name_match is not None
                if name_match.group().lower() not in _HEAD_TAGS:
                    in_head = False
                end = tag_end if isinstance(tag_end, int) else tag_end.end()
            else:  # "</" then not a letter: bogus comment
                close = data.find(b">", start + 2)
                if close < 0:
                    return None
                end = close + 1
        else:  # "<" + letter: a start tag
            tag_end = _tag_end(data, start, _START_TAG)
            if tag_end is None:
                return None  # the tag runs to the end of the document: no token
            end = tag_end if isinstance(tag_end, int) else tag_end.end()
            name_match = _TAG_NAME.match(data, start + 1)
            assert name_match is not None
            name = name_match.group().lower()
            if name == b"meta":
                raw = data[name_match.end() : end - 1]
                encoding, label, kind = encoding_from_meta_attributes(_attributes(raw))
                if encoding is not None and label is not None:
                    return MetaScanResult(encoding, label, kind, start, end, in_head)
            if name not in _HEAD_TAGS and name not in (b"html", b"head"):
                in_head = False
            if name == b"plaintext":
                return None
            if name in _RCDATA or name in _RAWTEXT:
                close_tag = _end_of(name).search(data, end)
                if close_tag is None:
                    return None
                end = close_tag.start()
        if not in_head and end >= BYTES_TO_CHECK_UNCONDITIONALLY:
            return None
        position = end
