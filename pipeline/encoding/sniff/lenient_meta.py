"""Malformed in-document declarations that the HTML Standard's prescan ignores, read leniently.

Pages in the wild write ``<meta httpequiv="ContentType" content="text/html; charset=...">``
(no ``http-equiv``, so no pragma), ``charset=iso-8859&#8211;1`` (an en dash), put the
``<meta>`` somewhere the prescan never reaches, or declare a name that is not a WHATWG label
(``<?xml ... encoding="MacCyrillic"?>``). Browsers ignore them, so this never informs the
``browser`` policy; ``standard``/``repair`` use such a label only after every spec step found
nothing, and only when the bytes agree with it (see :mod:`.algorithm`). w3lib added the same
kind of fallback for the ``httpequiv`` typo.
"""

from __future__ import annotations

import html
import re

from pipeline.encoding.lookup import get_an_encoding

#: How far to look: farther than the prescan, not the whole page.
LENIENT_SCAN_BYTES = 8192

_META_CHARSET = re.compile(
    rb"<meta\b[^>]{0,512}?charset\s*=\s*[\"']?\s*((?:&#?\w{1,8};|[^\"'\s;>/]){1,40})",
    re.IGNORECASE,
)
_XML_ENCODING = re.compile(rb"<\?xml\b[^>]{0,256}?encoding\s*=\s*[\"']\s*([^\"'\s>]{1,40})", re.IGNORECASE)
_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"), "-")

#: Names that other software writes for WHATWG encodings but that are not WHATWG labels
#: (Apple's and Python's/Windows' code page names). Only unambiguous ones.
NON_WHATWG_ALIASES: dict[str, str] = {
    "maccyrillic": "x-mac-cyrillic", "mac-cyrillic": "x-mac-cyrillic",
    "x-mac-cyrillic": "x-mac-cyrillic", "macroman": "macintosh", "mac-roman": "macintosh",
    "cp932": "Shift_JIS", "cp936": "GBK", "cp949": "EUC-KR", "cp950": "Big5",
    "win-1251": "windows-1251", "win1251": "windows-1251", "windows1251": "windows-1251",
    "win-1250": "windows-1250", "windows1250": "windows-1250", "windows1252": "windows-1252",
    "utf_8": "UTF-8", "utf": "UTF-8",
}


def lenient_label(label: str) -> str | None:
    """Resolve a malformed label: entities decoded, dashes normalised, then the WHATWG table,
    then :data:`NON_WHATWG_ALIASES`.

    >>> lenient_label("MacCyrillic"), lenient_label("iso-8859&#8211;1"), lenient_label("bogus")
    ('x-mac-cyrillic', 'windows-1252', None)
    """
    cleaned = html.unescape(label).translate(_DASHES).strip()
    return get_an_encoding(cleaned) or NON_WHATWG_ALIASES.get(cleaned.lower())


def lenient_meta_label(body: bytes) -> tuple[str, str] | None:
    """(encoding, label as written) of the first malformed-but-readable meta charset, or None.

    >>> lenient_meta_label(b'<meta httpequiv="ContentType" content="text/html; charset=koi8-r">')
    ('KOI8-R', 'koi8-r')
    >>> lenient_meta_label(b'<meta http-equiv="Content-Type" content="text/html; charset=iso-8859&#8211;1">')
    ('windows-1252', 'iso-8859&#8211;1')
    >>> lenient_meta_label(b'<p>charset=koi8-r</p>') is None
    True
    """
    head = body[:LENIENT_SCAN_BYTES]
    for pattern in (_META_CHARSET, _XML_ENCODING):
        for match in pattern.finditer(head):
            label = match.group(1).decode("latin-1")
            encoding = lenient_label(label)
            if encoding is not None:
                return encoding, label
    return None
