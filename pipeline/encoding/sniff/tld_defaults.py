"""Chromium's fallback encoding by top-level domain (Blink ``text_resource_decoder_builder.cc``,
``kEncodings`` / ``GetEncodingFromDomain``), as WHATWG encoding names.

Blink looks up the last label of the URL's host in this table; a TLD not listed falls back to
the browser's default encoding, which depends on the UI locale (windows-1252 for en-US, the
locale the corpus oracle runs under). The table is Chromium's own, copied entry by entry with
each label resolved through the WHATWG table (``ISO-8859-9`` → windows-1254, ``windows-949`` →
EUC-KR); the odd entries (``ee``/``lt``/``lv`` → windows-1256, ``eg`` → windows-1257) are
Chromium's, kept as they are because the goal is what the browser shows.
"""

from __future__ import annotations

from pipeline.encoding.lookup import get_an_encoding
from pipeline.urlhost import url_tld

# Chromium's kEncodings, label as Chromium writes it.
_CHROMIUM_TLD_LABELS: dict[str, str] = {
    "au": "windows-1252", "az": "ISO-8859-9", "bd": "windows-1252", "bg": "windows-1251",
    "br": "windows-1252", "ca": "windows-1252", "ch": "windows-1252", "cn": "GBK",
    "cz": "windows-1250", "de": "windows-1252", "dk": "windows-1252", "ee": "windows-1256",
    "eg": "windows-1257", "et": "windows-1252", "fi": "windows-1252", "fr": "windows-1252",
    "gb": "windows-1252", "gr": "ISO-8859-7", "hk": "Big5", "hr": "windows-1250",
    "hu": "ISO-8859-2", "il": "windows-1255", "ir": "windows-1257", "is": "windows-1252",
    "it": "windows-1252", "jp": "Shift_JIS", "kr": "windows-949", "lt": "windows-1256",
    "lv": "windows-1256", "mk": "windows-1251", "nl": "windows-1252", "no": "windows-1252",
    "pl": "ISO-8859-2", "pt": "windows-1252", "ro": "ISO-8859-2", "rs": "windows-1251",
    "ru": "windows-1251", "se": "windows-1252", "si": "ISO-8859-2", "sk": "windows-1250",
    "th": "windows-874", "tr": "ISO-8859-9", "tw": "Big5", "tz": "windows-1252",
    "ua": "windows-1251", "us": "windows-1252", "vn": "windows-1258", "xa": "windows-1252",
    "xb": "windows-1257",
}

#: TLD → WHATWG encoding name.
TLD_ENCODINGS: dict[str, str] = {
    tld: encoding
    for tld, label in _CHROMIUM_TLD_LABELS.items()
    if (encoding := get_an_encoding(label)) is not None
}

#: Chromium's en-US default when the TLD is not in the table.
DEFAULT_ENCODING = "windows-1252"


def tld_default(url: str | None, default: str = DEFAULT_ENCODING) -> str:
    """Chromium's fallback encoding for a page at ``url`` (*GetEncodingFromDomain*, else default).

    >>> tld_default("http://example.jp/"), tld_default("http://example.kr/"), tld_default(None)
    ('Shift_JIS', 'EUC-KR', 'windows-1252')
    """
    tld = url_tld(url)
    if tld is not None and tld in TLD_ENCODINGS:
        return TLD_ENCODINGS[tld]
    return default
