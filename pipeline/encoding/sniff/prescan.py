"""Implements the HTML Standard's *prescan a byte stream to determine its encoding*, with
*get an attribute*, *get an XML encoding* and the *algorithm for extracting a character encoding
from a meta element*.

https://html.spec.whatwg.org/commit-snapshots/e2f08b4e56d9a098038fb16c7ff6bb820a57cfab/#prescan-a-byte-stream-to-determine-its-encoding

The prescan looks at the first :data:`PRESCAN_BYTES` bytes only ("The user agent is encouraged
to only prescan the first 1024 bytes"), exactly as html5lib-tests expect; running off the end
of those bytes in the middle of a construct finds nothing (html5lib, jsdom and Firefox agree).
Pure functions over bytes; they never raise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.encoding.lookup import get_an_encoding

PRESCAN_BYTES = 1024

_SPACE = b"\t\n\x0c\r "  # 0x09, 0x0A, 0x0C, 0x0D, 0x20
_SPACE_OR_SLASH = b"\t\n\x0c\r /"
_SPACE_OR_GT = b"\t\n\x0c\r >"
_ASCII_WHITESPACE = "\t\n\x0c\r "


class _End(Exception):
    """Ran off the end of the prescanned bytes."""


@dataclass(frozen=True, slots=True)
class PrescanResult:
    """What the prescan found: the WHATWG encoding, the label as written, and its kind."""

    encoding: str
    label: str
    kind: str  # "meta-charset", "meta-http-equiv", "xml-utf16", "xml-declaration"
    offset: int  # byte offset of the declaring construct


def extract_encoding_from_meta(content: str) -> tuple[str | None, str | None]:
    """The *algorithm for extracting a character encoding from a meta element*.

    Returns (encoding, label): ``(None, None)`` is "nothing"; ``(None, label)`` means a
    label was found but *get an encoding* failed on it.

    https://html.spec.whatwg.org/commit-snapshots/e2f08b4e56d9a098038fb16c7ff6bb820a57cfab/#algorithm-for-extracting-a-character-encoding-from-a-meta-element

    >>> extract_encoding_from_meta("text/html; charset = 'koi8-r'")
    ('KOI8-R', 'koi8-r')
    >>> extract_encoding_from_meta("text/html; charset=\\"utf-8")   # unmatched quote
    (None, None)
    >>> extract_encoding_from_meta("charsetcharset=latin1;x")
    ('windows-1252', 'latin1')
    """
    lower = content.lower()  # "ASCII case-insensitive match": only ASCII letters matter here
    n = len(content)
    position = 0
    while True:
        # Step 2 "Loop: Find the first seven characters in s after position that are an ASCII
        # case-insensitive match for the word "charset". If no such match is found, return nothing."
        found = lower.find("charset", position)
        if found < 0:
            return None, None
        position = found + 7
        # Step 3: "Skip any ASCII whitespace that immediately follow the word "charset"."
        while position < n and content[position] in _ASCII_WHITESPACE:
            position += 1
        # Step 4: "If the next character is not a U+003D EQUALS SIGN (=), then move position to
        # point just before that next character, and jump back to the step labeled loop."
        if position >= n or content[position] != "=":
            continue
        position += 1
        # Step 5: "Skip any ASCII whitespace that immediately follow the equals sign."
        while position < n and content[position] in _ASCII_WHITESPACE:
            position += 1
        # Step 6: "Process the next character as follows:"
        if position >= n:
            return None, None  # "If there is no next character: Return nothing."
        char = content[position]
        if char in "\"'":
            close = content.find(char, position + 1)
            if close < 0:
                return None, None  # "an unmatched U+0022 (") / U+0027 ('): Return nothing."
            label = content[position + 1 : close]
        else:
            # "Otherwise: ... up to but not including the first ASCII whitespace or U+003B (;)
            # character, or the end of s, whichever comes first."
            end = position
            while end < n and content[end] not in "\t\n\x0c\r ;":
                end += 1
            label = content[position:end]
        return get_an_encoding(label), label


# *Get an attribute* as one regex match, step by step (the comments name the steps).
# Possessive quantifiers and atomic groups keep it from backtracking into a different reading,
# so a match fails only when the bytes run out mid-attribute (then :class:`_End`).
# Step 1: "If the byte at position is one of 0x09, 0x0A, 0x0C, 0x0D, 0x20, or 0x2F (/) then
# advance position to the next byte and redo this step."
_SKIP = rb"[\t\n\x0c\r /]*+"
# Step 2 ("If the byte at position is 0x3E (>), then abort ... There is no attribute.") is
# the "gt" alternative below; an attribute starts with any other byte.
_ATTRIBUTE_BODY = (
    # Steps 3-5: the name. Its first byte is anything but space, "/" or ">" (an "=" while the
    # name is empty is appended); then bytes up to a space, "/", ">" or "=".
    rb"(?P<name>[^\t\n\x0c\r />][^\t\n\x0c\r /=>]*+)"
    # Step 6 "Spaces": skip whitespace. Steps 4/7: a "/" or ">" (directly after the name), or
    # any byte but "=" (after spaces): the value is the empty string, position stays there.
    rb"[\t\n\x0c\r ]*+"
    rb"(?:(?=[^=])"
    # Step 8: "Advance position past the 0x3D (=) byte." Step 9 "Value": skip whitespace.
    rb"|=[\t\n\x0c\r ]*+"
    # Step 10: a quote: the value runs to the matching quote, position after it; ">": the
    # empty value, position at it; anything else starts an unquoted value (steps 11-12) that
    # runs to the next space or ">", position at that byte.
    rb"(?>\"(?P<dq>[^\"]*+)\"|'(?P<sq>[^']*+)'|(?=>)"
    rb"|(?P<uq>[^\t\n\x0c\r >\"'][^\t\n\x0c\r >]*+)(?=[\t\n\x0c\r >])))"
)
_ATTRIBUTE_RE = re.compile(_SKIP + rb"(?:(?P<gt>>)|" + _ATTRIBUTE_BODY + rb")")
# A tag other than <meta> from its "<": step 1 of that branch ("Advance the position pointer so
# that it points at the next 0x09, 0x0A, 0x0C, 0x0D, 0x20, or 0x3E byte"), then step 2,
# "Repeatedly get an attribute until no further attributes can be found" (the same body as
# above, unnamed): it ends at the ">" where get an attribute finds none. No match = _End.
_OTHER_TAG = (
    rb"[^\t\n\x0c\r >]*+(?:" + _SKIP + re.sub(rb"\(\?P<\w+>", b"(?:", _ATTRIBUTE_BODY) + rb")*+"
    + _SKIP + rb">"
)
_OTHER_TAG_RE = re.compile(_OTHER_TAG)


def _get_an_attribute(data: bytes, position: int) -> tuple[str, str, int] | None:
    """*Get an attribute*: returns (name, value, new position), or None when there is none.

    https://html.spec.whatwg.org/commit-snapshots/e2f08b4e56d9a098038fb16c7ff6bb820a57cfab/#concept-get-attributes-when-sniffing
    Raises :class:`_End` when the bytes run out. Names and values have ASCII upper-case
    letters lowered ("0x41-0x5A: append the code point b+0x20"), every other byte kept.

    >>> _get_an_attribute(b' /Charset = "UTF-8" >', 0)
    ('charset', 'utf-8', 19)
    >>> _get_an_attribute(b"a b>", 0), _get_an_attribute(b" >", 0)
    (('a', '', 2), None)
    """
    match = _ATTRIBUTE_RE.match(data, position)
    if match is None:
        raise _End
    name = match["name"]
    if name is None:
        return None
    value = match["dq"]
    if value is None:
        value = match["sq"]
        if value is None:
            value = match["uq"] or b""
    # bytes.lower() lowers exactly 0x41-0x5A; latin-1 gives each byte's code point.
    return name.lower().decode("latin-1"), value.lower().decode("latin-1"), match.end()


# The byte sequences the prescan loop acts on, in the loop's order of precedence (a "<" that
# starts none of them is "any other byte": "Do nothing with that byte", so the search moves
# on): "<!--"; "<meta" (ASCII case-insensitive) followed by 0x09, 0x0A, 0x0C, 0x0D, 0x20 or
# 0x2F; "<", optionally "/", and an ASCII letter; "<!", "</" or "<?".
_PRESCAN_MARKUP_RE = re.compile(
    rb"<(?:(?P<comment>!--)|(?P<meta>[Mm][Ee][Tt][Aa][\t\n\x0c\r /])|(?P<tag>/?[A-Za-z])|[!/?])"
)
# The same loop over everything but a <meta> (a shortcut through the bytes that cannot yield an
# encoding), each construct exactly as its branch below: any other byte; a comment ("the first
# 0x3E byte which is preceded by two 0x2D bytes ... The two 0x2D bytes can be the same as those
# in the '<!--' sequence"); "<!", "<?", "</" + not a letter (to the first ">"); a tag other than
# <meta> (_OTHER_TAG); a "<" that starts none of these. The alternatives start differently, so
# a construct that runs out of bytes stops the match there, and the loop meets it and ends.
_PRESCAN_SKIP_RE = re.compile(
    rb"(?:[^<]++"
    rb"|<!(?=--)(?s:.*?)-->"
    rb"|(?:<!(?!--)|<\?|</(?![A-Za-z]))[^>]*+>"
    rb"|(?![<][Mm][Ee][Tt][Aa][\t\n\x0c\r /])(?=</?[A-Za-z])" + _OTHER_TAG
    + rb"|<(?![!/?A-Za-z]))*+"
)


def _prescan_meta(data: bytes) -> PrescanResult | None:
    position = 0
    while True:
        skipped = _PRESCAN_SKIP_RE.match(data, position)
        markup = _PRESCAN_MARKUP_RE.search(data, skipped.end() if skipped is not None else position)
        if markup is None:
            return None
        start = markup.start()
        if markup["comment"] is not None:
            # "Advance the position pointer so that it points at the first 0x3E byte which is
            # preceded by two 0x2D bytes (i.e. at the end of an ASCII '-->' sequence) and comes
            # after the 0x3C byte that was found. (The two 0x2D bytes can be the same as those
            # in the '<!--' sequence.)"
            end = data.find(b"-->", start + 2)
            if end < 0:
                return None
            position = end + 2
        elif markup["meta"] is not None:
            found, position = _prescan_one_meta(data, start)
            if found is _END:
                return None
            if found is not None:
                assert isinstance(found, PrescanResult)
                return found
        elif markup["tag"] is not None:
            # "A sequence of bytes starting with a 0x3C byte (<), optionally a 0x2F byte (/),
            # and finally a byte in the range 0x41-0x5A or 0x61-0x7A (an ASCII letter)":
            # 1. "Advance the position pointer so that it points at the next 0x09, 0x0A, 0x0C,
            # 0x0D, 0x20, or 0x3E byte." 2. "Repeatedly get an attribute until no further
            # attributes can be found, then jump to the step below labeled next byte."
            # (_OTHER_TAG_RE: both steps; the bytes ran out when it does not match.)
            tag = _OTHER_TAG_RE.match(data, start)
            if tag is None:
                return None
            position = tag.end() - 1  # the ">" where no further attribute was found
        else:  # "<!", "</", "<?"
            # "Advance the position pointer so that it points at the first 0x3E byte which comes
            # after the 0x3C byte that was found."
            end = data.find(b">", start + 1)
            if end < 0:
                return None
            position = end
        # "Next byte: Move position so it points at the next byte in the input byte stream."
        position = max(position, start) + 1


def _skip_space_or_slash(data: bytes, position: int) -> int:
    while position < len(data) and data[position] in _SPACE_OR_SLASH:
        position += 1
    return position


_END = object()


def _prescan_one_meta(data: bytes, position: int) -> tuple[PrescanResult | None | object, int]:
    """The ``<meta`` branch of the prescan loop: (result, None to go on, or _END; position)."""
    start = position
    # 1. "Advance the position pointer so that it points at the next byte after the 0x09, 0x0A,
    # 0x0C, 0x0D, 0x20, or 0x2F byte (the one in sequence of characters matched above)."
    position += 6
    # 2-5. attribute list, got pragma, need pragma, charset.
    attribute_list: set[str] = set()
    got_pragma = False
    need_pragma: bool | None = None
    charset: str | None = None
    charset_label: str | None = None
    kind = "meta-charset"
    try:
        # 6. "Attributes: Get an attribute and its value. If no attribute was sniffed, then jump
        # to the processing step below."
        while (attribute := _get_an_attribute(data, position)) is not None:
            name, value, position = attribute
            # 7. "If the attribute's name is already in attribute list, then return to the step
            # labeled attributes." 8. "Add the attribute's name to attribute list."
            if name in attribute_list:
                continue
            attribute_list.add(name)
            # 9. "Run the appropriate step from the following list, if one applies:"
            if name == "http-equiv":
                # "If the attribute's value is "content-type", then set got pragma to true."
                if value == "content-type":
                    got_pragma = True
            elif name == "content":
                # "Apply the algorithm for extracting a character encoding from a meta element,
                # giving the attribute's value as the string to parse. If a character encoding is
                # returned, and if charset is still set to null, let charset be the encoding
                # returned, and set need pragma to true."
                encoding, label = extract_encoding_from_meta(value)
                if encoding is not None and charset is None:
                    charset, charset_label, need_pragma = encoding, label, True
                    kind = "meta-http-equiv"
            elif name == "charset":
                # "Let charset be the result of getting an encoding from the attribute's value,
                # and set need pragma to false."
                charset, charset_label, need_pragma = get_an_encoding(value), value, False
                kind = "meta-charset"
    except _End:
        return _END, position
    # The attributes ran to the ">" (get an attribute skipped spaces and slashes up to it).
    position = _skip_space_or_slash(data, position)
    # 11. "Processing: If need pragma is null, then jump to the step below labeled next byte."
    # 12. "If need pragma is true but got pragma is false, then jump to ... next byte."
    # 13. "If charset is failure, then jump to the step below labeled next byte."
    if need_pragma is None or (need_pragma and not got_pragma) or charset is None:
        return None, position
    # 14. "If charset is UTF-16BE/LE, then set charset to UTF-8."
    if charset in ("UTF-16BE", "UTF-16LE"):
        charset = "UTF-8"
    # 15. "If charset is x-user-defined, then set charset to windows-1252."
    if charset == "x-user-defined":
        charset = "windows-1252"
    # 16. "Abort the prescan a byte stream to determine its encoding algorithm, returning the
    # encoding given by charset."
    assert charset_label is not None
    return PrescanResult(charset, charset_label, kind, start), position


def get_an_xml_encoding(data: bytes) -> tuple[str | None, str | None]:
    """The HTML Standard's *get an XML encoding* on the first bytes: (encoding, label as written).

    https://html.spec.whatwg.org/commit-snapshots/e2f08b4e56d9a098038fb16c7ff6bb820a57cfab/#concept-get-xml-encoding-when-sniffing

    >>> get_an_xml_encoding(b'<?xml version="1.0" encoding = "EUC-JP"?><x/>')
    ('EUC-JP', 'EUC-JP')
    >>> get_an_xml_encoding(b'<?xml version="1.0" encoding="utf-16"?>')
    ('UTF-8', 'utf-16')
    >>> get_an_xml_encoding(b' <?xml encoding="koi8-r"?>')
    (None, None)
    """
    # 1. "If input does not start with `<?xml`, then return failure."
    if not data.startswith(b"<?xml"):
        return None, None
    # 2. "Let xmlDeclarationEnd be the index of the first byte in input that is 0x3E (>).
    # If there is no such byte, then return failure."
    end = data.find(b">")
    if end < 0:
        return None, None
    # 3. "Let encodingPosition be the position of the first occurrence of `encoding` in input
    # before xmlDeclarationEnd. If there is no such occurrence, then return failure."
    position = data.find(b"encoding", 0, end)
    if position < 0:
        return None, None
    position += 8
    # "While the byte at encodingPosition is less than or equal to 0x20, advance encodingPosition."
    while position < end and data[position] <= 0x20:
        position += 1
    # "If the byte at encodingPosition is not 0x3D (=), then return failure."
    if position >= end or data[position] != 0x3D:
        return None, None
    position += 1
    while position < end and data[position] <= 0x20:
        position += 1
    # "Let quoteMark be the byte at encodingPosition. If quoteMark is not either 0x22 (") or
    # 0x27 ('), then return failure."
    if position >= end or data[position] not in (0x22, 0x27):
        return None, None
    quote = data[position]
    position += 1
    # "Let encodingEndPosition be the index of the next occurrence of quoteMark in input starting
    # from encodingPosition. If quoteMark does not occur, then return failure."
    close = data.find(bytes((quote,)), position, end)
    if close < 0:
        return None, None
    potential = data[position:close]
    label = potential.decode("latin-1")
    # "If potentialEncoding contains one or more bytes whose byte value is 0x20 or below, then
    # return failure."
    if any(byte <= 0x20 for byte in potential):
        return None, label
    # "Let encoding be the result of getting an encoding given potentialEncoding isomorphic
    # decoded. If the encoding is UTF-16BE/LE, then change it to UTF-8."
    encoding = get_an_encoding(label)
    if encoding in ("UTF-16BE", "UTF-16LE"):
        encoding = "UTF-8"
    return encoding, label


_META_START = re.compile(rb"<meta[\t\n\x0c\r /]", re.IGNORECASE)


def prescan_byte_stream(body: bytes, limit: int = PRESCAN_BYTES) -> PrescanResult | None:
    """Implements *prescan a byte stream to determine its encoding* on ``body[:limit]``.

    https://html.spec.whatwg.org/commit-snapshots/e2f08b4e56d9a098038fb16c7ff6bb820a57cfab/#prescan-a-byte-stream-to-determine-its-encoding

    >>> prescan_byte_stream(b'<!-- <meta charset=x> --><meta content="text/html; charset=koi8-r" http-equiv=Content-Type>').encoding
    'KOI8-R'
    >>> prescan_byte_stream(b'<meta content="text/html; charset=koi8-r">') is None   # no pragma
    True
    >>> prescan_byte_stream(b'<?xml version="1.0" encoding="big5"?><rss/>').kind
    'xml-declaration'
    """
    data = body[:limit]
    try:
        # 1-3: "Let fallback utf-16 encoding be false ... Prescan for UTF-16 XML declarations:
        # If position points to: 0x3C 0x0 0x3F 0x0 0x78 0x0 (case-sensitive UTF-16 little-endian
        # '<?x'): set fallback utf-16 encoding to UTF-16LE; 0x0 0x3C 0x0 0x3F 0x0 0x78: UTF-16BE."
        fallback_utf16: str | None = None
        if data.startswith(b"<\x00?\x00x\x00"):
            fallback_utf16 = "UTF-16LE"
        elif data.startswith(b"\x00<\x00?\x00x"):
            fallback_utf16 = "UTF-16BE"
        # 4-5: the loop over bytes (meta, comments, other tags). Only a "<meta" followed by a
        # space or slash can yield an encoding there, so without one the loop cannot find
        # anything and is skipped (a fast path, not a deviation).
        found = _prescan_meta(data) if _META_START.search(data) else None
        if found is not None:
            return found
        # 6: "If fallback utf-16 encoding is not false, then return fallback utf-16 encoding."
        if fallback_utf16 is not None:
            return PrescanResult(fallback_utf16, fallback_utf16, "xml-utf16", 0)
        # 7: "Otherwise, return the result of getting an XML encoding given input."
        encoding, label = get_an_xml_encoding(data)
        if encoding is not None and label is not None:
            return PrescanResult(encoding, label, "xml-declaration", 0)
        return None
    except Exception:  # defensive: a prescan of bytes from the wild never raises
        return None
