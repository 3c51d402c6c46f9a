"""``Content-Type`` header values: the MIME Sniffing Standard's *parse a MIME type* and the Fetch
Standard's *extract a MIME type*, plus the ``charset`` label the HTML Standard's encoding sniffing
algorithm takes from the transport layer.

- MIME Sniffing, *parse a MIME type*:
  https://mimesniff.spec.whatwg.org/commit-snapshots/39aa53511b13953d84fef8d4131d6f61d0ccbde6/#parse-a-mime-type
- Fetch, *extract a MIME type* (the first ``charset`` of the winning essence is kept, a later
  value with the same essence and no charset inherits it):
  https://fetch.spec.whatwg.org/#concept-header-extract-mime-type
- Fetch, *collect an HTTP quoted string*:
  https://fetch.spec.whatwg.org/#collect-an-http-quoted-string

Never raises on any input: a value that does not parse is ``None``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

# HTTP whitespace: U+000A LF, U+000D CR, or an HTTP tab or space.
_HTTP_WHITESPACE = "\n\r\t "
_HTTP_TAB_OR_SPACE = "\t "
# HTTP token code points: U+0021 (!), U+0023 (#) ... U+007E (~) and ASCII alphanumerics.
_TOKEN_RE = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")
# HTTP quoted-string token code points: U+0009, U+0020 to U+007E, U+0080 to U+00FF.
_QUOTED_STRING_TOKEN_RE = re.compile(r"[\t\x20-\x7e\x80-\xff]*\Z")


@dataclass(slots=True)
class MimeType:
    """A MIME type record: ``type``, ``subtype`` (both ASCII-lowercase) and ordered ``parameters``."""

    type: str
    subtype: str
    parameters: dict[str, str] = field(default_factory=dict)

    @property
    def essence(self) -> str:
        """``type/subtype``, e.g. ``"text/html"``."""
        return f"{self.type}/{self.subtype}"


def _collect_http_quoted_string(value: str, position: int) -> tuple[str, int]:
    """Fetch's *collect an HTTP quoted string* with *extract-value* set; returns (value, position).

    The caller guarantees ``value[position] == '"'``.
    """
    out: list[str] = []
    n = len(value)
    # Step 4: "Advance position by 1."
    position += 1
    while True:
        # Step 5.1: "Append the result of collecting a sequence of code points that are not
        # U+0022 (") or U+005C (\) from input, given position, to value."
        end = position
        while end < n and value[end] not in '"\\':
            end += 1
        out.append(value[position:end])
        position = end
        # Step 5.2: "If position is past the end of input, then break."
        if position >= n:
            break
        # Step 5.3-5.4: "Let quoteOrBackslash be the code point at position ... Advance position by 1."
        quote_or_backslash = value[position]
        position += 1
        if quote_or_backslash == "\\":
            # Step 5.5.1: "If position is past the end of input, then append U+005C (\) to value
            # and break."
            if position >= n:
                out.append("\\")
                break
            # Step 5.5.2-3: append the code point at position, advance by 1.
            out.append(value[position])
            position += 1
        else:
            # Step 5.6: quoteOrBackslash is U+0022 ("): break.
            break
    return "".join(out), position


def parse_mime_type(value: str) -> MimeType | None:
    """Implements the MIME Sniffing Standard's *parse a MIME type*; ``None`` is failure.

    https://mimesniff.spec.whatwg.org/commit-snapshots/39aa53511b13953d84fef8d4131d6f61d0ccbde6/#parse-a-mime-type

    >>> m = parse_mime_type('Text/HTML; Charset="Shift_JIS"; charset=utf-8')
    >>> m.essence, m.parameters
    ('text/html', {'charset': 'Shift_JIS'})
    >>> parse_mime_type("text/html ;charset = utf-8").parameters   # no whitespace around "="
    {}
    >>> parse_mime_type("html") is None
    True
    """
    # Step 1: "Remove any leading and trailing HTTP whitespace from input."
    value = value.strip(_HTTP_WHITESPACE)
    n = len(value)
    # Step 3: "Let type be the result of collecting a sequence of code points that are not U+002F (/)."
    slash = value.find("/")
    type_ = value if slash < 0 else value[:slash]
    # Step 4: "If type is the empty string or does not solely contain HTTP token code points,
    # then return failure."
    if not type_ or not _TOKEN_RE.match(type_):
        return None
    # Step 5: "If position is past the end of input, then return failure."
    if slash < 0:
        return None
    # Step 6-7: skip "/", collect the subtype up to ";".
    position = slash + 1
    semi = value.find(";", position)
    end = n if semi < 0 else semi
    # Step 8: "Remove any trailing HTTP whitespace from subtype."
    subtype = value[position:end].rstrip(_HTTP_WHITESPACE)
    # Step 9: "If subtype is the empty string or does not solely contain HTTP token code points,
    # then return failure."
    if not subtype or not _TOKEN_RE.match(subtype):
        return None
    # Step 10: "Let mimeType be a new MIME type record whose type is type, in ASCII lowercase,
    # and subtype is subtype, in ASCII lowercase."
    mime = MimeType(type_.lower(), subtype.lower())
    position = end
    # Step 11: "While position is not past the end of input:"
    while position < n:
        # 11.1: "Advance position by 1. (This skips past U+003B (;).)"
        position += 1
        # 11.2: "Collect a sequence of code points that are HTTP whitespace from input given position."
        while position < n and value[position] in _HTTP_WHITESPACE:
            position += 1
        # 11.3: "Let parameterName be the result of collecting a sequence of code points that are
        # not U+003B (;) or U+003D (=) from input, given position."
        start = position
        while position < n and value[position] not in ";=":
            position += 1
        # 11.4: "Set parameterName to parameterName, in ASCII lowercase."
        name = value[start:position].lower()
        # 11.5: "If position is not past the end of input, then: if the code point at position
        # within input is U+003B (;), then continue; advance position by 1 (skips past "=")."
        if position < n:
            if value[position] == ";":
                continue
            position += 1
        # 11.6: "If position is past the end of input, then break."
        if position >= n:
            break
        # 11.8: "If the code point at position within input is U+0022 ("), then:"
        if value[position] == '"':
            param_value, position = _collect_http_quoted_string(value, position)
            # "Collect a sequence of code points that are not U+003B (;) from input, given position."
            semi = value.find(";", position)
            position = n if semi < 0 else semi
        else:
            # 11.9: collect up to ";", "Remove any trailing HTTP whitespace from parameterValue.
            # If parameterValue is the empty string, then continue."
            semi = value.find(";", position)
            end = n if semi < 0 else semi
            param_value = value[position:end].rstrip(_HTTP_WHITESPACE)
            position = end
            if not param_value:
                continue
        # 11.10: "If all of the following are true ... set mimeType's parameters[parameterName]
        # to parameterValue": name non-empty and solely token code points, value solely HTTP
        # quoted-string token code points, and name not already present (first one wins).
        if (
            name
            and _TOKEN_RE.match(name)
            and _QUOTED_STRING_TOKEN_RE.match(param_value)
            and name not in mime.parameters
        ):
            mime.parameters[name] = param_value
    return mime


def split_header_value(value: str) -> list[str]:
    """Fetch's *getting, decoding, and splitting* of one combined header value.

    Splits on commas outside HTTP quoted strings and strips HTTP tabs and spaces.
    https://fetch.spec.whatwg.org/#header-value-get-decode-and-split

    >>> split_header_value('text/html;charset="a,b", text/plain')
    ['text/html;charset="a,b"', 'text/plain']
    """
    values: list[str] = []
    n = len(value)
    position = 0
    temporary: list[str] = []
    while True:
        # Collect code points that are not U+0022 (") or U+002C (,).
        start = position
        while position < n and value[position] not in '",':
            position += 1
        temporary.append(value[start:position])
        if position < n:
            if value[position] == '"':
                # Append the result of collecting an HTTP quoted string (not extract-value).
                begin = position
                _, position = _collect_http_quoted_string(value, position)
                temporary.append(value[begin:position])
                if position < n:
                    continue
            else:
                # Assert: the code point at position is U+002C (,). Advance position by 1.
                position += 1
        # Remove all HTTP tab or space from the start and end of temporaryValue.
        values.append("".join(temporary).strip(_HTTP_TAB_OR_SPACE))
        temporary = []
        if position >= n:
            break
    return values


def extract_mime_type(value: str | None) -> MimeType | None:
    """Implements the Fetch Standard's *extract a MIME type* for one ``Content-Type`` value.

    https://fetch.spec.whatwg.org/#concept-header-extract-mime-type

    Several values (a combined header, ``a, b``) are split first; the last parsable one
    wins, and a charset seen earlier with the same essence is carried over.

    >>> extract_mime_type("text/html;charset=gbk, text/html").parameters
    {'charset': 'gbk'}
    >>> extract_mime_type("text/html;charset=gbk, text/plain").parameters
    {}
    >>> extract_mime_type("*/*, text/html").essence
    'text/html'
    """
    if value is None:
        return None
    try:
        # Step 1-3: charset, essence and mimeType start out null.
        charset: str | None = None
        essence: str | None = None
        mime: MimeType | None = None
        # Step 6: "For each value of values:"
        for item in split_header_value(value):
            # 6.1-6.2: parse; "If temporaryMimeType is failure or its essence is "*/*",
            # then continue."
            temporary = parse_mime_type(item)
            if temporary is None or temporary.essence == "*/*":
                continue
            mime = temporary
            # 6.4: "If mimeType's essence is not essence, then: set charset to null; if
            # mimeType's parameters["charset"] exists, set charset to it; set essence."
            if mime.essence != essence:
                charset = mime.parameters.get("charset")
                essence = mime.essence
            # 6.5: "Otherwise, if mimeType's parameters["charset"] does not exist, and charset
            # is non-null, set mimeType's parameters["charset"] to charset."
            elif "charset" not in mime.parameters and charset is not None:
                mime.parameters["charset"] = charset
        return mime
    except Exception:  # never raise on header bytes from the wild
        return None


# A crawl repeats a few Content-Type values ("text/html; charset=UTF-8"): what is read off
# them is kept. Long values are not, so the cache stays small whatever the input.
_CACHED_VALUE_LEN = 256


@lru_cache(maxsize=1024)
def _cached_essence_and_charset(value: str) -> tuple[str | None, str | None]:
    return _essence_and_charset(value)


def _essence_and_charset(value: str) -> tuple[str | None, str | None]:
    mime = extract_mime_type(value)
    return (None, None) if mime is None else (mime.essence, mime.parameters.get("charset"))


def essence_and_charset(value: str | None) -> tuple[str | None, str | None]:
    """The essence and the raw ``charset`` parameter of ``value``'s MIME type (Fetch's
    *extract a MIME type*; None for each that is missing).

    >>> essence_and_charset("Text/HTML; Charset=gbk"), essence_and_charset("nonsense")
    (('text/html', 'gbk'), (None, None))
    """
    if value is None:
        return None, None
    if len(value) <= _CACHED_VALUE_LEN:
        return _cached_essence_and_charset(value)
    return _essence_and_charset(value)


def charset_from_content_type(value: str | None) -> str | None:
    """The raw ``charset`` label of a ``Content-Type`` value (not yet resolved to an encoding).

    >>> charset_from_content_type('text/html; charset="Windows-1251"')
    'Windows-1251'
    >>> charset_from_content_type("text/html") is None
    True
    """
    return essence_and_charset(value)[1]
