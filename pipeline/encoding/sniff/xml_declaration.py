"""Chromium's XML-declaration check in ``text/html`` (Blink ``TextResourceDecoder::CheckForXMLCharset``).

The HTML Standard's prescan reads an XML declaration only within the first 1024 bytes and only
when no ``<meta>`` is found there (:func:`.prescan.get_an_xml_encoding`). Chromium 156 honours
``<?xml ... encoding="X"?>`` at the very start of any HTML document (measured with
``../shared/oracle``), and a ``<meta>`` found later still overrides it. It also takes a
BOM-less ``<?x`` in UTF-16 as UTF-16. Differences from the standard's *get an XML encoding*:
the ``>`` may lie past byte 1024, and a label with spaces is not rejected outright.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.encoding.lookup import get_an_encoding

#: Blink's kMinimumLengthOfXMLDeclaration: shorter documents are not checked.
MINIMUM_LENGTH_OF_XML_DECLARATION = 8


@dataclass(frozen=True, slots=True)
class XmlDeclaration:
    """What the check found: the WHATWG encoding (None: unknown label) and the label as written."""

    encoding: str | None
    label: str
    kind: str  # "xml-declaration" or "xml-utf16"


def find_xml_encoding(declaration: bytes) -> str | None:
    """Blink's *FindXMLEncoding*: the ``encoding="..."`` label inside a declaration, or None.

    >>> find_xml_encoding(b'<?xml version="1.0" encoding = \\'KOI8-R\\'?')
    'KOI8-R'
    >>> find_xml_encoding(b'<?xml version="1.0"?') is None
    True
    """
    position = declaration.find(b"encoding")
    if position < 0:
        return None
    position += 8
    n = len(declaration)
    # "Skip spaces and stray control characters."
    while position < n and declaration[position] <= 0x20:
        position += 1
    if position >= n or declaration[position] != 0x3D:  # "="
        return None
    position += 1
    while position < n and declaration[position] <= 0x20:
        position += 1
    if position >= n or declaration[position] not in (0x22, 0x27):
        return None
    quote = declaration[position]
    position += 1
    end = declaration.find(bytes((quote,)), position)
    if end < 0:
        return None
    return declaration[position:end].decode("latin-1")


def check_xml_declaration(body: bytes) -> XmlDeclaration | None:
    """The XML declaration Chromium reads at the start of an HTML document, or None.

    >>> check_xml_declaration(b'<?xml version="1.0" encoding="windows-1251"?><rss/>').encoding
    'windows-1251'
    >>> check_xml_declaration(b'<?xml version="1.0" encoding="UTF-16"?><rss/>').encoding
    'UTF-8'
    >>> check_xml_declaration(b'<\\x00?\\x00x\\x00m\\x00l\\x00').encoding
    'UTF-16LE'
    """
    if len(body) < MINIMUM_LENGTH_OF_XML_DECLARATION:
        return None
    if body.startswith(b"<?xml"):
        end = body.find(b">")
        if end < 0:
            return None
        label = find_xml_encoding(body[:end])
        if label is None:
            return None
        encoding = get_an_encoding(label)
        # SetEncoding(kEncodingFromXMLHeader) uses the closest byte-based equivalent.
        if encoding in ("UTF-16BE", "UTF-16LE"):
            encoding = "UTF-8"
        return XmlDeclaration(encoding, label, "xml-declaration")
    if body.startswith(b"<\x00?\x00x\x00"):
        return XmlDeclaration("UTF-16LE", "UTF-16LE", "xml-utf16")
    if body.startswith(b"\x00<\x00?\x00x"):
        return XmlDeclaration("UTF-16BE", "UTF-16BE", "xml-utf16")
    return None
