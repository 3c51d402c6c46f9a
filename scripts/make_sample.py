"""Generate ``data/sample/``: a small crawl that exercises every step of redecode.

Usage::

    python scripts/make_sample.py data/sample                 # (re)write the sample
    python scripts/make_sample.py data/sample --oracle-cases DIR   # + a Chromium oracle manifest
    python scripts/make_sample.py data/sample --check-oracle OUT.jsonl  # compare an oracle run

The text comes from ``data/sample/articles.toml`` (written for the project); the page table
below says how each page is encoded, declared, transported and archived, and what redecode is
expected to decide for it. Output is byte-identical on every run and on every machine: fixed
dates, record ids from uuid5, and every compressed stream (gzip members, Content-Encoding
bodies, Parquet) is built here with *stored* / *raw* blocks, so no zlib, brotli, zstd or pyarrow
version can change a byte.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import html
import json
import struct
import sys
import tomllib
import uuid
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

BASE_TIME = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
WARC_FILES = ("sample-main.warc.gz", "sample-transport.warc", "broken.warc.gz")
ARC_FILE = "sample.arc.gz"
PARQUET_FILE = "sample.parquet"
UA = "redecode-sample/0.1 (+https://example.org/redecode)"

# --------------------------------------------------------------------------------------------
# Compressed streams with stored/raw blocks only (valid for every decoder, identical everywhere)
# --------------------------------------------------------------------------------------------


def deflate_stored(data: bytes) -> bytes:
    """Raw DEFLATE (RFC 1951) made of stored blocks (BTYPE=00)."""
    out = bytearray()
    chunks = [data[i : i + 65535] for i in range(0, len(data), 65535)] or [b""]
    for n, chunk in enumerate(chunks):
        out.append(1 if n == len(chunks) - 1 else 0)  # BFINAL, BTYPE=00, then byte-aligned
        out += struct.pack("<HH", len(chunk), len(chunk) ^ 0xFFFF) + chunk
    return bytes(out)


def gzip_member(data: bytes) -> bytes:
    """One gzip member (RFC 1952): MTIME=0, OS=255, stored DEFLATE, CRC32, ISIZE."""
    header = b"\x1f\x8b\x08\x00" + b"\x00\x00\x00\x00" + b"\x00\xff"
    trailer = struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)
    return header + deflate_stored(data) + trailer


def zlib_wrap(data: bytes) -> bytes:
    """zlib stream (RFC 1950) around stored DEFLATE: HTTP ``deflate`` as the RFC means it."""
    return b"\x78\x01" + deflate_stored(data) + struct.pack(">I", zlib.adler32(data))


def brotli_uncompressed(data: bytes) -> bytes:
    """Brotli stream (RFC 7932) of uncompressed meta-blocks, then an empty last meta-block."""
    bits: list[int] = [0]  # WBITS = 16
    out = bytearray()

    def put(value: int, width: int) -> None:
        bits.extend((value >> i) & 1 for i in range(width))

    def flush() -> None:  # pad to a byte boundary, LSB first
        while len(bits) % 8:
            bits.append(0)
        for i in range(0, len(bits), 8):
            out.append(sum(b << k for k, b in enumerate(bits[i : i + 8])))
        bits.clear()

    for i in range(0, len(data), 65536):
        chunk = data[i : i + 65536]
        put(0, 1)  # ISLAST = 0 (an uncompressed meta-block is never last)
        put(0, 2)  # MNIBBLES = 4
        put(len(chunk) - 1, 16)  # MLEN - 1
        put(1, 1)  # ISUNCOMPRESSED
        flush()
        out += chunk
    put(1, 1)  # ISLAST
    put(1, 1)  # ISLASTEMPTY
    flush()
    return bytes(out)


def zstd_raw(data: bytes) -> bytes:
    """Zstandard frame (RFC 8878): single segment, 4-byte content size, raw blocks."""
    out = bytearray(b"\x28\xb5\x2f\xfd" + bytes([0xA0]) + struct.pack("<I", len(data)))
    chunks = [data[i : i + 131072] for i in range(0, len(data), 131072)] or [b""]
    for n, chunk in enumerate(chunks):
        last = 1 if n == len(chunks) - 1 else 0
        out += (last | (0 << 1) | (len(chunk) << 3)).to_bytes(3, "little") + chunk
    return bytes(out)


CODERS = {
    "gzip": gzip_member,
    "x-gzip": gzip_member,
    "deflate": zlib_wrap,
    "deflate-raw": deflate_stored,  # sent as "Content-Encoding: deflate" (IIS and friends)
    "br": brotli_uncompressed,
    "zstd": zstd_raw,
}


def chunked(data: bytes) -> bytes:
    """HTTP/1.1 chunked framing with uneven chunk sizes (they split multi-byte characters)."""
    sizes, out, pos, n = (1000, 333, 2048, 517), bytearray(), 0, 0
    while pos < len(data):
        chunk = data[pos : pos + sizes[n % len(sizes)]]
        out += b"%x\r\n" % len(chunk) + chunk + b"\r\n"
        pos, n = pos + len(chunk), n + 1
    return bytes(out + b"0\r\n\r\n")


# --------------------------------------------------------------------------------------------
# Pages
# --------------------------------------------------------------------------------------------

LOCALES = {"en": "en_GB", "de": "de_DE", "fr": "fr_FR", "es": "es_ES", "ja": "ja_JP",
           "ko": "ko_KR", "zh-CN": "zh_CN", "zh-TW": "zh_TW", "ru": "ru_RU", "pl": "pl_PL"}
HREFLANGS = ("en", "en-gb", "de", "de-at", "fr", "fr-ca", "es", "es-mx", "it", "nl", "pt-br",
             "sv", "da", "nb", "fi", "pl", "cs", "ja", "ko", "zh-hans", "zh-hant")


@dataclass(frozen=True)
class Expect:
    """The decision expected for a decoded record (WHATWG encoding names)."""

    encoding: str
    source: str
    browser: str


@dataclass
class Page:
    """One HTML (or text) capture: what it is, how it travels, and what redecode should decide."""

    file: str
    url: str
    note: str
    expect: Expect | None  # None: not decoded (see ``outcome``)
    article: str | None = None
    codec: str = "utf-8"  # Python codec that writes the bytes
    true_encoding: str = "UTF-8"  # WHATWG name of what the author meant
    content_type: str | None = "text/html"
    decl: str = ""  # declaration placed in <head> (or at the top for the xml layout)
    layout: str = "modern"  # modern | legacy | late-head | late-body | xml | tiny | plain
    bom: bytes = b""
    codings: tuple[str, ...] = ()  # Content-Encoding, in the order applied
    te_chunked: bool = False
    cc_style: bool = False  # stored decoded, codings renamed to X-Crawler-*
    http_length_short: int = 0  # payload stored short by this many bytes, Content-Length says full
    warc_truncated_at: int = 0  # payload cut here and WARC-Truncated: length
    corrupt_coding: bool = False
    request: bool = False
    record_type: str = "response"
    warc_extra: tuple[tuple[str, str], ...] = ()
    outcome: str = "decoded"
    extra: dict[str, Any] = field(default_factory=dict)  # more expectations for expected.json


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def page_html(page: Page, art: dict[str, Any], nav: list[str]) -> str:
    """The page's HTML as the author wrote it (before encoding)."""
    parts = urlsplit(page.url)
    origin = f"{parts.scheme}://{parts.netloc}"
    slug = parts.path.rstrip("/").rsplit("/", 1)[-1].split(".")[0] or "index"
    lang, title, site, desc = art["lang"], art["title"], art["site"], art["description"]
    paras = "\n".join(f"<p>{_esc(p)}</p>" for p in art["paragraphs"])
    canonical = f"{origin}{parts.path}"
    if page.layout == "plain":
        return f"{title}\n{'=' * 40}\n\n" + "\n\n".join(art["paragraphs"]) + "\n"
    if page.layout == "tiny":
        return f"<html><head><title>{title}</title></head><body><p>Coming soon.</p></body></html>\n"
    if page.layout == "legacy":
        query = site.replace(" ", "+")
        return (
            f'<html lang="{lang}">\n<head>\n{page.decl}{chr(10) if page.decl else ""}<title>{_esc(title)}</title>\n'
            f'<meta name="description" content="{_esc(desc)}">\n</head>\n'
            f'<body bgcolor="#ffffff">\n<table width="100%"><tr><td>'
            f'<a href="../index.html">{nav[0]}</a> | <a href="news/index.html">{nav[1]}</a> | '
            f'<a href="/search?q={query}">{_esc(site)}</a></td></tr></table>\n'
            f"<h1>{_esc(title)}</h1>\n{paras}\n<hr>\n"
            f'<p><a href="http://links.example.org/friends.html" rel="nofollow">links</a> | '
            f'<a href="mailto:info@{parts.hostname}">info@{parts.hostname}</a></p>\n'
            f"</body>\n</html>\n"
        )
    image = f"{origin}/images/{slug}.jpg"
    social = (
        f'<meta property="og:type" content="article">\n'
        f'<meta property="og:site_name" content="{_esc(site)}">\n'
        f'<meta property="og:title" content="{_esc(title)}">\n'
        f'<meta property="og:description" content="{_esc(desc)}">\n'
        f'<meta property="og:url" content="{canonical}">\n'
        f'<meta property="og:image" content="{image}">\n'
        f'<meta property="og:locale" content="{LOCALES[lang]}">\n'
        f'<meta name="twitter:card" content="summary_large_image">\n'
        f'<meta name="twitter:title" content="{_esc(title)}">\n'
        f'<meta name="twitter:description" content="{_esc(desc)}">\n'
        f'<meta name="twitter:image" content="{image}">\n'
    )
    top = f"<!DOCTYPE html>\n<html lang=\"{lang}\">\n<head>\n"
    if page.layout == "xml":
        top = (
            f"{page.decl}\n"
            '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
            '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n'
            f'<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="{lang}" lang="{lang}">\n<head>\n'
        )
    head_decl = page.decl if page.layout in ("modern",) else ""
    late = ""
    if page.layout == "late-head":  # long <title>/<link> run first, the declaration after it
        late = "".join(
            f'<link rel="alternate" hreflang="{h}" href="{origin}/{h}{parts.path}">\n'
            for h in HREFLANGS
        ) + f"{page.decl}\n"
    head = (
        f"{top}{head_decl}{chr(10) if head_decl else ''}"
        f"<title>{_esc(title)} - {_esc(site)}</title>\n{late}"
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="description" content="{_esc(desc)}">\n'
        f'<link rel="canonical" href="{canonical}">\n{social}'
        f'<link rel="stylesheet" href="/assets/site.css">\n</head>\n'
    )
    filler = ""
    if page.layout == "late-body":  # a declaration past byte 1024 but in <body>: not honoured
        filler = "".join(f"<!-- cache fragment {i:02d} rendered by the page builder -->\n"
                         for i in range(16)) + f"{page.decl}\n"
    return (
        f'{head}<body>\n<header class="site-header">\n<a class="logo" href="/">{_esc(site)}</a>\n'
        f'<nav><a href="/">{nav[0]}</a> <a href="/news/">{nav[1]}</a> '
        f'<a href="../about/">{nav[2]}</a> <a href="{origin}/privacy#cookies">{nav[3]}</a></nav>\n'
        f"</header>\n{filler}<main>\n<article>\n<h1>{_esc(title)}</h1>\n"
        f'<p class="byline"><time datetime="2026-03-01">2026-03-01</time></p>\n{paras}\n'
        f"</article>\n<aside>"
        f'<a href="https://partner.example.net/offer?ref=sample" rel="nofollow sponsored">Partner</a> '
        f'<a href="https://www.example.org/about">example.org</a></aside>\n</main>\n'
        f'<footer><a href="/contact">{nav[2]}</a> | &copy; 2026 {_esc(site)}</footer>\n'
        f"</body>\n</html>\n"
    )


def M(enc: str, src: str, browser: str | None = None) -> Expect:  # noqa: N802 - table shorthand
    """Expectation shorthand: the browser shows ``enc`` unless told otherwise."""
    return Expect(enc, src, browser or enc)


CHARSET_META = '<meta charset="{}">'
HTTP_EQUIV = '<meta http-equiv="Content-Type" content="text/html; charset={}">'
MAIN, TRANSPORT, BROKEN = WARC_FILES


def pages() -> list[Page]:
    """The table of HTML/text captures, in archive order per file."""
    u8 = CHARSET_META.format("utf-8")
    P = Page  # noqa: N806
    return [
        # ---- mostly UTF-8; many declare it only in <meta> (the requests ISO-8859-1 trap) ----
        P(MAIN, "https://news.example.com/2026/03/alder-river-cleanup", "UTF-8, charset in header and meta; full OG/twitter fields", M("UTF-8", "header"), "en-river", content_type="text/html; charset=utf-8", decl=u8, request=True),
        P(MAIN, "https://www.example.de/reise/herbst-im-harz", "UTF-8 declared only in <meta charset> (requests would use ISO-8859-1)", M("UTF-8", "meta"), "de-harz", decl=u8, request=True),
        P(MAIN, "https://blog.example.fr/cuisine/tarte-aux-pommes", "UTF-8 only in <meta charset=UTF-8>", M("UTF-8", "meta"), "fr-tarte", decl='<meta charset="UTF-8">'),
        P(MAIN, "https://www.example.jp/news/2026/03/sakura", "UTF-8 only in <meta charset>, .jp host", M("UTF-8", "meta"), "ja-sakura", decl=u8, request=True),
        P(MAIN, "https://shop.example.kr/ko/news/boseong-tea", "UTF-8 only in <meta http-equiv> (content before http-equiv)", M("UTF-8", "meta"), "ko-tea", decl='<meta content="text/html; charset=utf-8" http-equiv="Content-Type">'),
        P(MAIN, "https://www.example.cn/keji/dianchi", "UTF-8 only in <meta charset>, .cn host", M("UTF-8", "meta"), "zh-battery", decl=u8),
        P(MAIN, "https://www.example.tw/library/hours", "UTF-8 in header (no space: text/html;charset=UTF-8)", M("UTF-8", "header"), "zht-lib", content_type="text/html;charset=UTF-8"),
        P(MAIN, "https://www.example.ru/news/metro", "UTF-8 only in <meta http-equiv>, .ru host", M("UTF-8", "meta"), "ru-metro", decl=HTTP_EQUIV.format("utf-8")),
        P(MAIN, "https://www.example.pl/kuchnia/pierogi", "UTF-8 only in <meta charset>, .pl host", M("UTF-8", "meta"), "pl-pierogi", decl=u8),
        P(MAIN, "https://wiki.example.org/wiki/Harrow_Point_Lighthouse", "UTF-8 in header; crawler recorded WARC-Identified-Payload-Type and WARC-Identified-Content-Charset", M("UTF-8", "header"), "en-lighthouse", content_type="text/html; charset=UTF-8", request=True, warc_extra=(("WARC-Identified-Payload-Type", "text/html"), ("WARC-Identified-Content-Charset", "UTF-8")), extra={"content_mime_detected": "text/html", "content_charset": "UTF-8"}),
        P(MAIN, "https://forum.example.com/t/sourdough-starter-holiday/4412", "prescan skips a commented-out <meta charset=iso-8859-1>; emoji", M("UTF-8", "meta"), "en-sourdough", decl='<!-- <meta charset="iso-8859-1"> (old template) -->\n' + u8),
        P(MAIN, "https://www.example.es/ocio/mercados-de-invierno", "header label 'utf8' with odd case (Charset=UTF8)", M("UTF-8", "header"), "es-mercados", content_type="text/html; Charset=UTF8"),
        P(MAIN, "https://www.example.com/blog/alder-river-follow-up", "<meta charset=utf-8> unquoted", M("UTF-8", "meta"), "en-river", decl="<meta charset=utf-8>"),
        P(MAIN, "https://www.example.co.uk/travel/lisbon", "header charset in quotes: charset=\"utf-8\"", M("UTF-8", "header"), "en-lisbon", content_type='text/html; charset="utf-8"'),
        P(MAIN, "https://www.example.ch/de/harz", "upper-case <META HTTP-EQUIV CONTENT=text/html;charset=UTF-8>", M("UTF-8", "meta"), "de-harz", decl='<META HTTP-EQUIV="Content-Type" CONTENT="text/html;charset=UTF-8">'),
        P(MAIN, "https://www.example.be/fr/tarte-aux-pommes", "XHTML-style self-closing <meta http-equiv ... />", M("UTF-8", "meta"), "fr-tarte", decl='<meta http-equiv="Content-Type" content="text/html; charset=utf-8" />'),
        P(MAIN, "https://www.example.mx/ocio/mercados", "<meta charset='utf-8'> single-quoted", M("UTF-8", "meta"), "es-mercados", decl="<meta charset='utf-8'>"),
        P(MAIN, "https://www.example.co.jp/blog/sakura", "UTF-8 in header, .co.jp host", M("UTF-8", "header"), "ja-sakura", content_type="text/html; charset=utf-8"),
        P(MAIN, "https://www.example.jp/shop/komorebi", "UTF-8 only in <meta charset>; wave dash U+FF5E as UTF-8", M("UTF-8", "meta"), "ja-cafe", decl=u8),
        P(MAIN, "https://news.example.co.kr/society/subway", "UTF-8 only in <meta charset>, .co.kr host", M("UTF-8", "meta"), "ko-subway", decl=u8),
        P(MAIN, "https://www.example.com.cn/news/chengqiang", "UTF-8 in header, .com.cn host", M("UTF-8", "header"), "zh-wall", content_type="text/html; charset=UTF-8"),
        P(MAIN, "https://news.example.com.tw/tea/alishan", "UTF-8 only in <meta charset>, .com.tw host", M("UTF-8", "meta"), "zht-tea", decl=u8),
        P(MAIN, "https://www.example.by/auto/zimnie-shiny", "UTF-8 only in <meta http-equiv>, .by host", M("UTF-8", "meta"), "ru-tyres", decl=HTTP_EQUIV.format("UTF-8")),
        P(MAIN, "https://www.example.ru/library/hours", "UTF-8 only in <meta charset>, .ru host", M("UTF-8", "meta"), "ru-library", decl=u8),
        P(MAIN, "https://www.example.pl/miasto/nowy-most", "UTF-8 only in <meta charset>, .pl host", M("UTF-8", "meta"), "pl-most", decl=u8),
        P(MAIN, "https://www.example.de/kultur/stadtbuecherei", "UTF-8 only in <meta charset>, .de host", M("UTF-8", "meta"), "de-buecherei", decl=u8),
        P(MAIN, "https://www.example.de/stadt/biergaerten-fruehling", "UTF-8 only in <meta charset> (the same article as the repair case, declared right)", M("UTF-8", "meta"), "de-muenchen", decl=u8),
        P(MAIN, "https://docs.example.com/en/sync-agent/settings", "UTF-8 in header, <meta charset> near the top", M("UTF-8", "header"), "en-docs", content_type="text/html; charset=utf-8", decl=u8),
        P(MAIN, "https://www.example.jp/books/ekimae-shoten", "unknown header label (charset=utf8mb4) is ignored; <meta charset> decides", M("UTF-8", "meta"), "ja-shoten", content_type="text/html; charset=utf8mb4", decl=u8),
        P(MAIN, "https://www.example.com.hk/zh-hant/library", "<meta charset=utf-16> on an 8-bit page means UTF-8", M("UTF-8", "meta"), "zht-lib", decl=CHARSET_META.format("utf-16")),
        P(MAIN, "https://archive.example.org/saved/chengqiang.html", "resource record (no HTTP headers), WARC Content-Type text/html, <meta charset>", M("UTF-8", "meta"), "zh-wall", decl=u8, record_type="resource"),
        P(MAIN, "https://downloads.example.org/tool/2.4/NOTES.txt", "text/plain with charset=utf-8 (text MIME types are decoded too)", M("UTF-8", "header"), "en-notes", content_type="text/plain; charset=utf-8", layout="plain"),
        # ---- repair case: the header lies, the body is valid multi-byte UTF-8 ----
        P(MAIN, "https://www.example.de/stadt/biergaerten", "header says ISO-8859-1, body is valid UTF-8 (repair policy: UTF-8)", M("windows-1252", "header"), "de-muenchen", content_type="text/html; charset=ISO-8859-1", extra={"repair": {"encoding": "UTF-8", "encoding_source": "repair-utf8"}}),
        # ---- undeclared UTF-8: Chromium never detects UTF-8 and shows the TLD fallback ----
        P(MAIN, "https://www.example.com/travel/lisbon-budget", "undeclared UTF-8 on .com", M("UTF-8", "utf8", "windows-1252"), "en-lisbon"),
        P(MAIN, "https://www.example.jp/shotengai/natsumatsuri", "undeclared UTF-8 on .jp", M("UTF-8", "utf8", "Shift_JIS"), "ja-matsuri"),
        P(MAIN, "https://www.example.ru/culture/library-hours", "undeclared UTF-8 on .ru with no Content-Type header at all", M("UTF-8", "utf8", "windows-1251"), "ru-library", content_type=None),
        P(MAIN, "https://www.example.kr/news/subway-line", "undeclared UTF-8 on .kr", M("UTF-8", "utf8", "EUC-KR"), "ko-subway"),
        P(MAIN, "https://www.example.cn/wenhua/chengqiang", "undeclared UTF-8 on .cn", M("UTF-8", "utf8", "GBK"), "zh-wall"),
        P(MAIN, "https://www.example.tw/news/alishan-tea", "undeclared UTF-8 on .tw", M("UTF-8", "utf8", "Big5"), "zht-tea"),
        # ---- legacy encodings, declared ----
        P(MAIN, "http://www.example.jp/cafe/komorebi.html", "Shift_JIS in header; wave dash 0x8160 is U+FF5E (Python's shift_jis says U+301C); Shift_JIS query link", M("Shift_JIS", "header"), "ja-cafe", codec="cp932", true_encoding="Shift_JIS", content_type="text/html; charset=Shift_JIS", layout="legacy", request=True),
        P(MAIN, "http://www.example.co.jp/company/news.html", "Shift_JIS via <meta http-equiv> label x-sjis", M("Shift_JIS", "meta"), "ja-shoten", codec="cp932", true_encoding="Shift_JIS", layout="legacy", decl=HTTP_EQUIV.format("x-sjis")),
        P(MAIN, "http://matsuri.example.jp/index.html", "EUC-JP via <meta http-equiv>", M("EUC-JP", "meta"), "ja-matsuri", codec="euc_jp", true_encoding="EUC-JP", layout="legacy", decl=HTTP_EQUIV.format("EUC-JP")),
        P(MAIN, "http://www.example.kr/news/subway.html", "EUC-KR in header", M("EUC-KR", "header"), "ko-subway", codec="euc_kr", true_encoding="EUC-KR", content_type="text/html; charset=euc-kr", layout="legacy"),
        P(MAIN, "http://shop.example.co.kr/tea/boseong.html", "EUC-KR via <meta charset=ks_c_5601-1987>", M("EUC-KR", "meta"), "ko-tea", codec="euc_kr", true_encoding="EUC-KR", layout="legacy", decl=CHARSET_META.format("ks_c_5601-1987")),
        P(MAIN, "http://news.example.cn/chengqiang.html", "labelled gb2312, decoded as GBK (寧 is not in GB2312)", M("GBK", "meta"), "zh-wall", codec="gbk", true_encoding="GBK", layout="legacy", decl=HTTP_EQUIV.format("gb2312")),
        P(MAIN, "http://www.example.com.tw/tea/alishan.html", "Big5 in header", M("Big5", "header"), "zht-tea", codec="big5", true_encoding="Big5", content_type="text/html; charset=big5", layout="legacy"),
        P(MAIN, "http://www.example.ru/auto/zimnie-shiny.html", "windows-1251 in header", M("windows-1251", "header"), "ru-tyres", codec="cp1251", true_encoding="windows-1251", content_type="text/html; charset=windows-1251", layout="legacy"),
        P(MAIN, "http://lib.example.ru/news.html", "KOI8-R via <meta charset>", M("KOI8-R", "meta"), "ru-library", codec="koi8_r", true_encoding="KOI8-R", layout="legacy", decl=CHARSET_META.format("koi8-r")),
        P(MAIN, "http://shop.example.com/sale/wool-blankets.html", "windows-1252 declared as ISO-8859-1 in header; euro sign is byte 0x80", M("windows-1252", "header"), "en-blankets", codec="cp1252", true_encoding="windows-1252", content_type="text/html; charset=ISO-8859-1", layout="legacy", request=True),
        P(MAIN, "http://www.example.pl/wiadomosci/most.html", "ISO-8859-2 via <meta http-equiv>", M("ISO-8859-2", "meta"), "pl-most", codec="iso8859_2", true_encoding="ISO-8859-2", layout="legacy", decl=HTTP_EQUIV.format("iso-8859-2")),
        P(MAIN, "http://www.example.at/bibliothek/zeiten.html", "<meta charset=x-user-defined> means windows-1252", M("windows-1252", "meta"), "de-buecherei", codec="cp1252", true_encoding="windows-1252", layout="legacy", decl=CHARSET_META.format("x-user-defined")),
        # ---- BOM, xml declaration, late meta ----
        P(MAIN, "https://www.example.net/ja/sakura", "UTF-8 BOM wins over a conflicting header charset=windows-1252", M("UTF-8", "bom"), "ja-sakura", content_type="text/html; charset=windows-1252", bom=b"\xef\xbb\xbf", decl=u8),
        P(MAIN, "https://intranet.example.com/reports/battery.htm", "UTF-16LE BOM page (Office 'Unicode' export, meta charset=unicode)", M("UTF-16LE", "bom"), "zh-battery", codec="utf-16-le", true_encoding="UTF-16LE", bom=b"\xff\xfe", decl=HTTP_EQUIV.format("unicode")),
        P(MAIN, "http://www.example.fr/actualites/prix-baguette.html", "<?xml encoding=ISO-8859-15?> in text/html (euro 0xA4, oe 0xBD)", M("ISO-8859-15", "xml"), "fr-pain", codec="iso8859_15", true_encoding="ISO-8859-15", layout="xml", decl='<?xml version="1.0" encoding="ISO-8859-15"?>'),
        P(MAIN, "https://docs.example.com/sync-agent/configure", "<meta charset=utf-8> after byte 1024 (after many <link hreflang>), still in <head>", M("UTF-8", "late-meta"), "en-docs", layout="late-head", decl=u8),
        P(MAIN, "https://www.example.de/wandern/harz-herbst", "<meta charset=utf-8> after byte 1024 inside <body>: ignored; undeclared UTF-8", M("UTF-8", "utf8", "windows-1252"), "de-harz", layout="late-body", decl=u8),
        # ---- rules: declares nothing / lies; rules.toml decides ----
        P(MAIN, "http://legacy.example.jp/catalog/index.html", "EUC-JP, declares nothing; rules.toml host override (fallback)", M("EUC-JP", "rule", "EUC-JP"), "ja-catalog", codec="euc_jp", true_encoding="EUC-JP", layout="legacy", extra={"without_rules": {"encoding": "EUC-JP", "encoding_source": "detected"}}),
        P(MAIN, "http://mislabeled.example.com/ru/press/2026.html", "windows-1251 body, header lies (ISO-8859-1); rules.toml url_prefix override (force)", M("windows-1251", "rule", "windows-1252"), "ru-tyres", codec="cp1251", true_encoding="windows-1251", content_type="text/html; charset=iso-8859-1", layout="legacy", extra={"without_rules": {"encoding": "windows-1252", "encoding_source": "header"}}),
        # ---- undeclared legacy bytes: detection (TLD as a hint) ----
        P(MAIN, "http://www.example.com/ru/library.html", "undeclared windows-1251 on .com", M("windows-1251", "detected"), "ru-library", codec="cp1251", true_encoding="windows-1251", layout="legacy"),
        P(MAIN, "http://www.example.com/jp/shoten.html", "undeclared Shift_JIS on .com", M("Shift_JIS", "detected"), "ja-shoten", codec="cp932", true_encoding="Shift_JIS", layout="legacy"),
        P(MAIN, "http://www.example.cn/keji/dianchi.html", "undeclared GBK on .cn", M("GBK", "detected"), "zh-battery", codec="gbk", true_encoding="GBK", layout="legacy"),
        P(MAIN, "http://www.example.kr/tea/boseong.html", "undeclared EUC-KR on .kr", M("EUC-KR", "detected"), "ko-tea", codec="euc_kr", true_encoding="EUC-KR", layout="legacy"),
        P(MAIN, "http://www.example.tw/library/hours.html", "undeclared Big5 on .tw", M("Big5", "detected"), "zht-lib", codec="big5", true_encoding="Big5", layout="legacy"),
        # ---- nothing to go on: defaults ----
        P(MAIN, "http://status.example.com/", "undeclared pure ASCII", M("windows-1252", "default"), "en-status"),
        P(MAIN, "http://www.example.jp/status/", "undeclared pure ASCII on a .jp host: windows-1252 as in Chromium (Shift_JIS would read it the same)", M("windows-1252", "default"), "en-status"),
        P(MAIN, "http://tiny.example.jp/", "undeclared .jp page whose only non-ASCII is one Shift_JIS character in <title>: chardetng still answers (standard: detected); Chromium's detector declines and shows the .jp default", M("Shift_JIS", "detected"), "ja-tiny", codec="cp932", true_encoding="Shift_JIS", layout="tiny"),
        P(MAIN, "http://soon.example.jp/", "undeclared .jp page with a 3-character Shift_JIS <title>: Chromium's detector guesses EUC-JP (mojibake in the browser)", M("Shift_JIS", "detected", "EUC-JP"), "ja-soon", codec="cp932", true_encoding="Shift_JIS", layout="tiny"),
        # ---- transport codings (plain .warc, WARC/1.0) ----
        P(TRANSPORT, "https://chunked.example.com/news/alder-river", "Transfer-Encoding: chunked (chunks split multi-byte characters)", M("UTF-8", "header"), "en-river", content_type="text/html; charset=utf-8", decl=u8, te_chunked=True),
        P(TRANSPORT, "http://www.example.jp/gz/sakura.html", "Content-Encoding: gzip; Shift_JIS in header", M("Shift_JIS", "header"), "ja-sakura", codec="cp932", true_encoding="Shift_JIS", content_type="text/html; charset=Shift_JIS", layout="legacy", codings=("gzip",)),
        P(TRANSPORT, "http://www.example.kr/xgzip/subway.html", "Content-Encoding: x-gzip; EUC-KR via <meta charset>", M("EUC-KR", "meta"), "ko-subway", codec="euc_kr", true_encoding="EUC-KR", layout="legacy", decl=CHARSET_META.format("euc-kr"), codings=("x-gzip",)),
        P(TRANSPORT, "http://www.example.ru/deflate/metro.html", "Content-Encoding: deflate (zlib-wrapped); windows-1251 in header", M("windows-1251", "header"), "ru-metro", codec="cp1251", true_encoding="windows-1251", content_type="text/html; charset=windows-1251", layout="legacy", codings=("deflate",)),
        P(TRANSPORT, "http://www.example.cn/deflate/dianchi.html", "Content-Encoding: deflate sent as raw DEFLATE (no zlib header); GBK via <meta charset>", M("GBK", "meta"), "zh-battery", codec="gbk", true_encoding="GBK", layout="legacy", decl=CHARSET_META.format("gbk"), codings=("deflate-raw",)),
        P(TRANSPORT, "https://www.example.de/br/harz", "Content-Encoding: br; UTF-8 only in <meta>", M("UTF-8", "meta"), "de-harz", decl=u8, codings=("br",)),
        P(TRANSPORT, "https://www.example.es/zstd/mercados", "Content-Encoding: zstd; UTF-8 in header", M("UTF-8", "header"), "es-mercados", content_type="text/html; charset=utf-8", codings=("zstd",)),
        P(TRANSPORT, "https://www.example.tw/stacked/alishan.html", "stacked Content-Encoding: gzip, br; Big5 via <meta charset>", M("Big5", "meta"), "zht-tea", codec="big5", true_encoding="Big5", layout="legacy", decl=CHARSET_META.format("big5"), codings=("gzip", "br")),
        P(TRANSPORT, "https://www.example.pl/chunked-gzip/pierogi", "Transfer-Encoding: chunked + Content-Encoding: gzip", M("UTF-8", "meta"), "pl-pierogi", decl=u8, codings=("gzip",), te_chunked=True),
        P(TRANSPORT, "https://www.example.fr/cc/tarte-aux-pommes", "Common Crawl style: payload stored decoded, X-Crawler-Content-Encoding: gzip; CC metadata record follows", M("UTF-8", "meta"), "fr-tarte", decl=u8, codings=("gzip",), te_chunked=True, cc_style=True, request=True, warc_extra=(("WARC-Identified-Payload-Type", "text/html"),), extra={"content_mime_detected": "text/html", "content_charset": "UTF-8", "content_languages": "fra"}),
        P(TRANSPORT, "http://broken.example.com/corrupt-gzip.html", "corrupt gzip Content-Encoding body (bad stored-block length)", None, "en-status", content_type="text/html; charset=utf-8", codings=("gzip",), corrupt_coding=True, outcome="error:http"),
        P(TRANSPORT, "https://slow.example.com/articles/ekimae-shoten", "payload 700 bytes shorter than Content-Length (cut inside a character), no WARC-Truncated", M("UTF-8", "meta"), "ja-shoten", decl=u8, http_length_short=700, extra={"content_truncated": True}),
        P(TRANSPORT, "https://big.example.org/wiki/Harrow_Point_Lighthouse", "WARC-Truncated: length (payload cut at 2048 bytes)", M("UTF-8", "header"), "en-lighthouse", content_type="text/html; charset=UTF-8", warc_truncated_at=2048, extra={"content_truncated": True}),
    ]


def broken_pages() -> list[Page]:
    """The records of broken.warc.gz (a garbage member is inserted after the first)."""
    u8 = CHARSET_META.format("utf-8")
    return [
        Page(BROKEN, "https://www.example.org/before-garbage/most", "good record before a garbage gzip member", M("UTF-8", "meta"), "pl-most", decl=u8),
        Page(BROKEN, "https://www.example.org/after-garbage/library", "good record after the garbage member (a reader must resync at the next member)", M("UTF-8", "meta"), "ru-library", decl=u8),
        Page(BROKEN, "https://www.example.org/cut-off/sakura", "last gzip member cut short at end of file (record block truncated)", M("UTF-8", "meta"), "ja-sakura", decl=u8, extra={"content_truncated": True}),
    ]


def arc_pages() -> list[Page]:
    """The two HTML records of sample.arc.gz."""
    return [
        Page(ARC_FILE, "http://www.example.co.jp/arc/shoten.html", "ARC v1 record; Shift_JIS in header", M("Shift_JIS", "header"), "ja-shoten", codec="cp932", true_encoding="Shift_JIS", content_type="text/html; charset=Shift_JIS", layout="legacy"),
        Page(ARC_FILE, "http://www.example.de/arc/buecherei.html", "ARC v1 record; <meta http-equiv> iso-8859-1 means windows-1252", M("windows-1252", "meta"), "de-buecherei", codec="latin-1", true_encoding="windows-1252", layout="legacy", decl=HTTP_EQUIV.format("iso-8859-1")),
    ]


def parquet_pages() -> list[Page]:
    """The five rows of sample.parquet."""
    u8 = CHARSET_META.format("utf-8")
    return [
        Page(PARQUET_FILE, "https://www.example.com/parquet/alder-river", "Parquet row; UTF-8 only in <meta>", M("UTF-8", "meta"), "en-river", decl=u8),
        Page(PARQUET_FILE, "http://www.example.jp/parquet/komorebi.html", "Parquet row; Shift_JIS in header", M("Shift_JIS", "header"), "ja-cafe", codec="cp932", true_encoding="Shift_JIS", content_type="text/html; charset=shift_jis", layout="legacy"),
        Page(PARQUET_FILE, "http://www.example.ru/parquet/shiny.html", "Parquet row; windows-1251 via <meta http-equiv>", M("windows-1251", "meta"), "ru-tyres", codec="cp1251", true_encoding="windows-1251", layout="legacy", decl=HTTP_EQUIV.format("windows-1251")),
        Page(PARQUET_FILE, "http://www.example.kr/parquet/tea.html", "Parquet row; EUC-KR in header", M("EUC-KR", "header"), "ko-tea", codec="euc_kr", true_encoding="EUC-KR", content_type="text/html; charset=EUC-KR", layout="legacy"),
        Page(PARQUET_FILE, "http://www.example.cn/parquet/chengqiang.html", "Parquet row; undeclared GBK on .cn", M("GBK", "detected"), "zh-wall", codec="gbk", true_encoding="GBK", layout="legacy"),
    ]


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------


@dataclass
class Built:
    """One archived record as written, and what redecode is expected to make of it."""

    file: str
    record_type: str | None
    url: str | None
    note: str
    expected: dict[str, Any]
    page: Page | None = None
    text: str | None = None  # the author's text (what a correct decode yields)
    payload: bytes = b""  # the HTTP payload after transport decoding (what decode_html gets)


def _sha1_b32(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _http_date(when: datetime) -> str:
    return when.strftime("%a, %d %b %Y %H:%M:%S GMT")


def encode_page(page: Page, articles: dict[str, Any], nav: dict[str, list[str]]) -> tuple[str, bytes]:
    """(author's text, payload bytes) of a page; checks the layout really tests what it says."""
    art = articles[page.article]
    text = page_html(page, art, nav[art["lang"]])
    body = page.bom + text.encode(page.codec)
    if page.layout in ("late-head", "late-body"):
        pos = body.find(page.decl.encode())
        assert pos > 1024 and b"charset" not in body[:1024], page.url
        assert (pos < body.find(b"</head>")) == (page.layout == "late-head"), page.url
    if page.expect and page.expect.source == "default" and page.layout != "tiny":
        assert body.isascii(), page.url
    return text, body


def http_response(page: Page, body: bytes, when: datetime) -> tuple[bytes, bool]:
    """The stored HTTP block of a response and whether its payload is stored short."""
    headers = [("Date", _http_date(when)),
               ("Server", "Apache/2.2.15 (Unix)" if page.layout == "legacy" else "nginx")]
    if page.content_type is not None:
        headers.append(("Content-Type", page.content_type))
    wire = body
    for coding in page.codings:
        wire = CODERS[coding](wire)
    if page.corrupt_coding:  # NLEN of the first stored block no longer complements LEN
        wire = wire[:13] + bytes([wire[13] ^ 0x5A]) + wire[14:]
    content_coding = ", ".join("deflate" if c == "deflate-raw" else c for c in page.codings)
    if page.cc_style:  # Common Crawl stores the payload decoded and renames the headers
        stored = body
        if page.te_chunked:
            headers.append(("X-Crawler-Transfer-Encoding", "chunked"))
        headers += [("X-Crawler-Content-Encoding", content_coding), ("Content-Length", str(len(body)))]
    else:
        if content_coding:
            headers.append(("Content-Encoding", content_coding))
        if page.te_chunked:
            headers.append(("Transfer-Encoding", "chunked"))
            stored = chunked(wire)
        else:
            headers.append(("Content-Length", str(len(wire))))
            stored = wire
    headers += [("Cache-Control", "max-age=600"), ("Vary", "Accept-Encoding")]
    truncated = False
    if page.http_length_short:
        stored, truncated = stored[: -page.http_length_short], True
    if page.warc_truncated_at:
        stored, truncated = stored[: page.warc_truncated_at], True
    head = "HTTP/1.1 200 OK\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
    return head.encode("latin-1") + stored, truncated


def http_request(url: str) -> bytes:
    """The HTTP request a crawler would have sent for ``url``."""
    parts = urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    return (f"GET {path or '/'} HTTP/1.1\r\nHost: {parts.netloc}\r\nUser-Agent: {UA}\r\n"
            "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n"
            "Accept-Language: en-GB,en;q=0.8\r\nAccept-Encoding: gzip, deflate, br, zstd\r\n\r\n"
            ).encode("ascii")


def tiny_png() -> bytes:
    """A valid 1x1 RGB PNG (its IDAT is a stored zlib stream)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib_wrap(b"\x00\x2e\x7d\x32"))
            + chunk(b"IEND", b""))


def skipped(reason: str) -> dict[str, Any]:
    """expected.json fields of a record that is not decoded."""
    return {"expected": f"skipped:{reason}", "encoding": None, "encoding_source": None,
            "encoding_browser": None}


def page_expectation(page: Page, text: str, truncated: bool, art: dict[str, Any]) -> dict[str, Any]:
    """expected.json fields of a page record."""
    if page.expect is None:
        return {"expected": page.outcome, "encoding": None, "encoding_source": None,
                "encoding_browser": None}
    exp: dict[str, Any] = {
        "expected": page.outcome, "encoding": page.expect.encoding,
        "encoding_source": page.expect.source, "encoding_browser": page.expect.browser,
        "content_type": page.content_type, "content_truncated": truncated,
    }
    intact = not truncated
    if page.expect.encoding == page.true_encoding and intact:
        exp["text_sha256"] = _sha256(text)
    if page.layout != "plain":
        exp["html_lang"] = art["lang"] if page.layout != "tiny" else None
        if page.expect.encoding == page.true_encoding:
            exp["title"] = art["title"] if page.layout in ("legacy", "tiny") else f"{art['title']} - {art['site']}"
    for key, value in page.extra.items():
        if key == "content_truncated":
            continue
        exp[key] = dict(value) if isinstance(value, dict) else value
    repair = exp.get("repair")
    if repair and repair["encoding"] == page.true_encoding and intact:
        repair["text_sha256"] = _sha256(text)
    return exp


class WarcFile:
    """Writes WARC records in order (each one a gzip member when the name ends in .gz)."""

    def __init__(self, name: str, version: str, minute: int) -> None:
        self.name, self.version, self.minute = name, version, minute
        self.data = bytearray()
        self.count = 0
        self.info_id = ""

    def when(self) -> datetime:
        """WARC-Date of the next record: one second per record."""
        return BASE_TIME + timedelta(minutes=self.minute, seconds=self.count)

    def record(self, rtype: str, url: str | None, block: bytes, content_type: str,
               extra: tuple[tuple[str, str], ...] = ()) -> str:
        """Append a record with digests and a uuid5 id; returns the WARC-Record-ID."""
        rid = f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'{self.name}#{self.count}#{rtype}#{url}')}>"
        fields = [("WARC-Type", rtype), ("WARC-Date", self.when().strftime("%Y-%m-%dT%H:%M:%SZ")),
                  ("WARC-Record-ID", rid), ("Content-Length", str(len(block))),
                  ("Content-Type", content_type)]
        if self.info_id and rtype != "warcinfo":
            fields.append(("WARC-Warcinfo-ID", self.info_id))
        fields += list(extra)
        if url is not None:
            fields.append(("WARC-Target-URI", url))
        if rtype in ("response", "request") and b"\r\n\r\n" in block:
            fields.append(("WARC-Payload-Digest", _sha1_b32(block.split(b"\r\n\r\n", 1)[1])))
        fields.append(("WARC-Block-Digest", _sha1_b32(block)))
        head = f"WARC/{self.version}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields) + "\r\n"
        self.add(head.encode("utf-8") + block + b"\r\n\r\n")
        if rtype == "warcinfo":
            self.info_id = rid
        return rid

    def add(self, raw: bytes) -> None:
        """Append one serialized record (gzip-wrapped for .gz files)."""
        self.data += gzip_member(raw) if self.name.endswith(".gz") else raw
        self.count += 1

    def warcinfo(self) -> None:
        """The warcinfo record that opens the file."""
        fields = {"software": "redecode scripts/make_sample.py", "format": f"WARC File Format {self.version}",
                  "isPartOf": "redecode-sample", "operator": "redecode project",
                  "description": "generated test crawl; see data/sample/README.md"}
        block = "".join(f"{k}: {v}\r\n" for k, v in fields.items()).encode()
        self.record("warcinfo", None, block, "application/warc-fields",
                    (("WARC-Filename", self.name),))


def build_warcs(articles: dict[str, Any], nav: dict[str, list[str]]) -> tuple[dict[str, bytes], list[Built]]:
    """Every WARC file's bytes and the records written, in order."""
    out: dict[str, bytes] = {}
    built: list[Built] = []
    by_file: dict[str, list[Page]] = {name: [] for name in WARC_FILES}
    for page in pages() + broken_pages():
        by_file[page.file].append(page)
    for minute, name in enumerate(WARC_FILES):
        warc = WarcFile(name, "1.1" if name == MAIN else "1.0", minute * 10)
        warc.warcinfo()
        built.append(Built(name, "warcinfo", None, "warcinfo record", skipped("warcinfo")))
        first: tuple[str, str, str, bytes] | None = None  # (url, date, id, payload) for the revisit
        for n, page in enumerate(by_file[name]):
            art = articles[page.article]
            text, body = encode_page(page, articles, nav)
            if page.request:
                warc.record("request", page.url, http_request(page.url),
                            "application/http; msgtype=request")
                built.append(Built(name, "request", page.url, "request record", skipped("request")))
            if page.record_type == "resource":
                warc.record("resource", page.url, body, page.content_type or "text/html", page.warc_extra)
                built.append(Built(name, "resource", page.url, page.note,
                                   page_expectation(page, text, False, art), page, text, body))
                continue
            date = warc.when().strftime("%Y-%m-%dT%H:%M:%SZ")
            block, truncated = http_response(page, body, warc.when())
            extra = page.warc_extra + ((("WARC-Truncated", "length"),) if page.warc_truncated_at else ())
            if name == BROKEN and n == 1:  # a garbage gzip member: invalid block type, then junk
                warc.data += (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff\x07"
                              + b"disk error: this block was overwritten\n" * 4)
                warc.count += 1
                built.append(Built(name, None, None, "garbage gzip member (invalid deflate block type)",
                                   {"expected": "error:source", "encoding": None,
                                    "encoding_source": None, "encoding_browser": None}))
            if name == BROKEN and n == 2:  # the last member is cut short: the file ends mid-record
                before = len(warc.data)
                rid = warc.record("response", page.url, block, "application/http; msgtype=response", extra)
                member = bytes(warc.data[before:])
                warc.data = warc.data[:before] + member[: len(member) * 3 // 5]
                truncated = True
            else:
                rid = warc.record("response", page.url, block, "application/http; msgtype=response", extra)
            payload = body[: -page.http_length_short] if page.http_length_short else body
            if page.warc_truncated_at:
                payload = body[: page.warc_truncated_at]
            if name == BROKEN and n == 2:
                payload = b""  # whatever survives depends on the reader; not decoded by the test
            built.append(Built(name, "response", page.url, page.note,
                               page_expectation(page, text, truncated or bool(page.extra.get("content_truncated")), art),
                               page, text, payload))
            if first is None:
                first = (page.url, date, rid, block.split(b"\r\n\r\n", 1)[1])
            if page.cc_style:
                meta = ("fetchTimeMs: 87\r\ncharset-detected: UTF-8\r\nlanguages-cld2: "
                        '{"reliable":true,"text-bytes":1093,"languages":[{"code":"fr",'
                        '"code-iso-639-3":"fra","text-covered":0.99,"score":1012.0,"name":"FRENCH"}]}\r\n')
                warc.record("metadata", page.url, meta.encode(), "application/warc-fields",
                            (("WARC-Concurrent-To", rid),))
                built.append(Built(name, "metadata", page.url, "Common Crawl metadata record (charset-detected, languages-cld2) for the response before it", skipped("metadata")))
            if name == MAIN and n == 0:
                png = b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: %d\r\n\r\n" % len(tiny_png())
                url = "https://news.example.com/images/alder-river-cleanup.png"
                warc.record("response", url, png + tiny_png(), "application/http; msgtype=response")
                built.append(Built(name, "response", url, "image/png response", skipped("non-text-mime")))
            if name == MAIN and page.url.startswith("https://wiki."):
                doc = json.dumps({"status": "ok", "updated": "2026-03-01T12:00:00Z", "components":
                                  [{"name": "api", "status": "ok"}, {"name": "search", "status": "degraded"}]}).encode()
                js = b"HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: %d\r\n\r\n" % len(doc)
                url = "https://api.example.com/v1/status.json"
                warc.record("response", url, js + doc, "application/http; msgtype=response")
                built.append(Built(name, "response", url, "application/json response", skipped("non-text-mime")))
        if name == MAIN and first is not None:
            head = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                    b"Content-Length: %d\r\n\r\n" % len(first[3]))
            warc.record("revisit", first[0], head, "application/http; msgtype=response", (
                ("WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"),
                ("WARC-Refers-To-Target-URI", first[0]), ("WARC-Refers-To-Date", first[1]),
                ("WARC-Refers-To", first[2]), ("WARC-Payload-Digest", _sha1_b32(first[3]))))
            built.append(Built(name, "revisit", first[0], "revisit (identical payload digest) of the first page", skipped("revisit")))
        out[name] = bytes(warc.data)
    return out, built


def build_arc(articles: dict[str, Any], nav: dict[str, list[str]]) -> tuple[bytes, list[Built]]:
    """An ARC v1 file (one gzip member per record): the filedesc header, then two pages."""
    when = BASE_TIME + timedelta(minutes=30)
    desc = b"1 0 redecode\nURL IP-address Archive-date Content-type Archive-length\n"
    stamp = when.strftime("%Y%m%d%H%M%S")
    data = gzip_member(b"filedesc://%s 0.0.0.0 %s text/plain %d\n" % (ARC_FILE.encode(), stamp.encode(), len(desc)) + desc + b"\n")
    built = [Built(ARC_FILE, "warcinfo", None, "ARC filedesc header record", skipped("warcinfo"))]
    for n, page in enumerate(arc_pages(), start=1):
        text, body = encode_page(page, articles, nav)
        block, _ = http_response(page, body, when + timedelta(seconds=n))
        block = block.replace(b"HTTP/1.1 200 OK", b"HTTP/1.0 200 OK", 1)
        stamp = (when + timedelta(seconds=n)).strftime("%Y%m%d%H%M%S")
        line = f"{page.url} 192.0.2.{n} {stamp} text/html {len(block)}\n".encode()
        data += gzip_member(line + block + b"\n")
        built.append(Built(ARC_FILE, "response", page.url, page.note,
                           page_expectation(page, text, False, articles[page.article]), page, text, body))
    return data, built


# Parquet by hand (Thrift compact protocol): no pyarrow version can change a byte.
_I32, _I64, _BIN, _LIST, _STRUCT, _BOOL = 5, 6, 8, 9, 12, 1


def _uvarint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _tvalue(ftype: int, value: Any) -> bytes:
    if ftype in (_I32, _I64):
        return _uvarint((value << 1) ^ (value >> 63))  # zigzag
    if ftype == _BIN:
        raw = value.encode() if isinstance(value, str) else value
        return _uvarint(len(raw)) + raw
    if ftype == _LIST:
        etype, items = value
        head = bytes([len(items) << 4 | etype]) if len(items) < 15 else bytes([0xF0 | etype]) + _uvarint(len(items))
        return head + b"".join(_tvalue(etype, item) for item in items)
    return _tstruct(value)


def _tstruct(fields: list[tuple[int, int, Any]]) -> bytes:
    out, last = bytearray(), 0
    for fid, ftype, value in fields:
        wire_type = (1 if value else 2) if ftype == _BOOL else ftype
        out.append((fid - last) << 4 | wire_type)
        last = fid
        if ftype != _BOOL:
            out += _tvalue(ftype, value)
    return bytes(out + b"\x00")


def build_parquet(articles: dict[str, Any], nav: dict[str, list[str]]) -> tuple[bytes, list[Built]]:
    """sample.parquet: url, fetch_time (timestamp ms, UTC), status, headers (raw), body (binary)."""
    rows, built = [], []
    for n, page in enumerate(parquet_pages()):
        text, body = encode_page(page, articles, nav)
        when = BASE_TIME + timedelta(minutes=40, seconds=n)
        block, _ = http_response(page, body, when)
        head = block.split(b"\r\n\r\n", 1)[0].split(b"\r\n", 1)[1] + b"\r\n"
        rows.append((page.url, int(when.timestamp() * 1000), 200, head, body))
        built.append(Built(PARQUET_FILE, "response", page.url, page.note,
                           page_expectation(page, text, False, articles[page.article]), page, text, body))
    string = [(10, _STRUCT, [(1, _STRUCT, [])])]  # LogicalType STRING
    millis_utc = [(10, _STRUCT, [(8, _STRUCT, [(1, _BOOL, True), (2, _STRUCT, [(1, _STRUCT, [])])])])]
    columns = [  # (name, physical type, converted type, logical type)
        ("url", 6, 0, string), ("fetch_time", 2, 9, millis_utc), ("status", 1, None, []),
        ("headers", 6, None, []), ("body", 6, None, [])]
    data, chunks = bytearray(b"PAR1"), []
    for i, (name, ptype, _, _) in enumerate(columns):
        values = [row[i] for row in rows]
        if ptype == 6:
            page_data = b"".join(struct.pack("<I", len(v.encode() if isinstance(v, str) else v))
                                 + (v.encode() if isinstance(v, str) else v) for v in values)
        else:
            page_data = b"".join(struct.pack("<q" if ptype == 2 else "<i", v) for v in values)
        header = _tstruct([(1, _I32, 0), (2, _I32, len(page_data)), (3, _I32, len(page_data)),
                           (5, _STRUCT, [(1, _I32, len(rows)), (2, _I32, 0), (3, _I32, 3), (4, _I32, 3)])])
        offset, size = len(data), len(header) + len(page_data)
        data += header + page_data
        meta = [(1, _I32, ptype), (2, _LIST, (_I32, [0])), (3, _LIST, (_BIN, [name])), (4, _I32, 0),
                (5, _I64, len(rows)), (6, _I64, size), (7, _I64, size), (9, _I64, offset)]
        chunks.append(([(2, _I64, offset), (3, _STRUCT, meta)], size))
    schema = [[(4, _BIN, "schema"), (5, _I32, len(columns))]]
    for name, ptype, converted, logical in columns:
        element = [(1, _I32, ptype), (3, _I32, 0), (4, _BIN, name)]
        if converted is not None:
            element.append((6, _I32, converted))
        schema.append(element + logical)
    footer = _tstruct([
        (1, _I32, 1), (2, _LIST, (_STRUCT, schema)), (3, _I64, len(rows)),
        (4, _LIST, (_STRUCT, [[(1, _LIST, (_STRUCT, [c for c, _ in chunks])),
                               (2, _I64, sum(s for _, s in chunks)), (3, _I64, len(rows))]])),
        (6, _BIN, "redecode scripts/make_sample.py")])
    data += footer + struct.pack("<I", len(footer)) + b"PAR1"
    return bytes(data), built


# --------------------------------------------------------------------------------------------
# Outputs
# --------------------------------------------------------------------------------------------

RULES_TOML = """\
# Encoding rules for the sample crawl: redecode run data/sample/ --rules data/sample/rules.toml
# Each [[encoding.override]] gives a WHATWG label for a host (and its subdomains) or a URL prefix.
# mode = "fallback" applies only when the page declares nothing; "force" beats a declaration
# (never a BOM).

[[encoding.override]]
host = "legacy.example.jp"
encoding = "EUC-JP"
mode = "fallback"

[[encoding.override]]
url_prefix = "http://mislabeled.example.com/ru/"
encoding = "windows-1251"
mode = "force"
"""


def build_all(articles_path: Path) -> tuple[dict[str, bytes], list[Built]]:
    """Every output file of data/sample/ (by name) and the list of records, in file order."""
    source = tomllib.loads(articles_path.read_text(encoding="utf-8"))
    articles, nav = source["articles"], source["nav"]
    files, built = build_warcs(articles, nav)
    files[ARC_FILE], arc = build_arc(articles, nav)
    files[PARQUET_FILE], parquet = build_parquet(articles, nav)
    built += arc + parquet
    files["rules.toml"] = RULES_TOML.encode()
    files["expected.json"] = expected_json(built).encode()
    files["README.md"] = readme(built, files).encode()
    return files, built


def expected_json(built: list[Built]) -> str:
    """expected.json: one object per record, in file order."""
    rows = [{"warc_filename": b.file, "url": b.url, "record_type": b.record_type, **b.expected,
             "note": b.note} for b in built]
    return json.dumps(rows, ensure_ascii=False, indent=1) + "\n"


def readme(built: list[Built], files: dict[str, bytes]) -> str:
    """README.md: the files, then one table line per record."""
    lines = [
        "# data/sample: a small generated crawl",
        "",
        "Generated by `make sample` (`scripts/make_sample.py data/sample`) from the text in",
        "`articles.toml`, which the project wrote; nothing here is copied from the web. Re-running",
        "the script gives byte-identical files (`tests/test_sample.py` checks it). Expectations",
        "assume `--rules data/sample/rules.toml`; `expected.json` holds the same table in machine",
        "form (plus `without_rules`, `repair`, `text_sha256`, `title`, `html_lang`). See",
        "`docs/sample.md` for the design and what the Chromium oracle confirmed.",
        "",
        "| file | size |", "|---|---|",
        *(f"| `{name}` | {len(data):,} bytes |" for name, data in sorted(files.items())
          if name.endswith((".gz", ".warc", ".parquet"))),
        "",
        "Formats: WARC/1.1 with one stored-deflate gzip member per record (`sample-main`), plain",
        "WARC/1.0 (`sample-transport`), a broken `.warc.gz`, ARC v1 (`sample.arc.gz`), and a Parquet",
        "table of raw responses (`sample.parquet`: `url` string, `fetch_time` timestamp[ms, UTC],",
        "`status` int32, `headers` binary = the header lines as sent, each ending CRLF, no status",
        "line, `body` binary = the payload with transport codings removed).",
        "",
        "Expected: `decoded: <encoding under --policy standard> / <encoding_source> / browser",
        "<encoding_browser>`, `skipped:<reason>` or `error:<stage>`.",
        "",
        "| file | # | type | URL | exercises | expected |",
        "|---|---|---|---|---|---|",
    ]
    count: dict[str, int] = {}
    for b in built:
        n = count[b.file] = count.get(b.file, -1) + 1
        exp = b.expected
        verdict = exp["expected"]
        if verdict == "decoded":
            verdict = f"decoded: {exp['encoding']} / `{exp['encoding_source']}` / browser {exp['encoding_browser']}"
        note = b.note.replace("<", "&lt;")
        lines.append(f"| {b.file} | {n} | {b.record_type or '-'} | {b.url or '-'} | {note} | {verdict} |")
    return "\n".join(lines) + "\n"


def write_oracle_cases(built: list[Built], folder: Path) -> int:
    """A manifest for ../shared/oracle (``oracle.py pages``): every decodable page, decoded payload."""
    (folder / "bodies").mkdir(parents=True, exist_ok=True)
    lines = []
    for i, b in enumerate(built):
        if b.page is None or b.expected["expected"] != "decoded" or not b.payload:
            continue
        (folder / "bodies" / f"c{i:03d}.bin").write_bytes(b.payload)
        lines.append(json.dumps({"id": f"c{i:03d}", "url": b.url, "content_type": b.page.content_type,
                                 "body": f"bodies/c{i:03d}.bin"}))
        if b.expected["encoding_source"] == "default" and not b.payload.isascii():
            # Contrast: the same bytes under .com must show windows-1252 if nothing was detected.
            lines.append(json.dumps({"id": f"c{i:03d}-com", "url": "http://contrast.example.com/",
                                     "content_type": b.page.content_type, "body": f"bodies/c{i:03d}.bin"}))
    (folder / "cases.jsonl").write_text("\n".join(lines) + "\n")
    return len(lines)


def check_oracle(built: list[Built], results: Path) -> int:
    """Compare an oracle run with the expectations: characterSet, and the decoded text's hash
    wherever the browser's encoding is the author's. Returns the number of mismatches."""
    seen = {r["id"]: r for r in map(json.loads, filter(str.strip, results.read_text().splitlines()))}
    bad = 0
    for i, b in enumerate(built):
        rec = seen.get(f"c{i:03d}")
        if rec is None:
            continue
        want = b.expected["encoding_browser"]
        got = rec.get("characterSet")
        text_ok = "-"
        if b.page and want == b.page.true_encoding and "text_sha256" in b.expected:
            text_ok = str(rec.get("source", {}).get("sha256") == b.expected["text_sha256"])
        status = "ok" if got == want and text_ok != "False" else "MISMATCH"
        bad += status != "ok"
        print(f"{status:8} {b.file:22} {b.url:60} expected {want:13} chromium {got:13} text {text_ok}")
        contrast = seen.get(f"c{i:03d}-com")
        if contrast is not None:
            got = contrast.get("characterSet")
            status = "ok" if got == "windows-1252" else "MISMATCH"
            bad += status != "ok"
            print(f"{status:8} {'(same bytes on .com)':22} {'http://contrast.example.com/':60} "
                  f"expected {'windows-1252':13} chromium {got:13} text -")
    return bad


def main(argv: list[str] | None = None) -> int:
    """Write the sample (and optionally an oracle manifest), or check an oracle run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="output folder (holds articles.toml)")
    parser.add_argument("--oracle-cases", type=Path, help="also write an oracle manifest here")
    parser.add_argument("--check-oracle", type=Path, help="compare an oracle output with the expectations")
    args = parser.parse_args(argv)
    articles = args.out / "articles.toml"
    if not articles.is_file():
        articles = Path(__file__).resolve().parent.parent / "data" / "sample" / "articles.toml"
    files, built = build_all(articles)
    if args.check_oracle:
        return 1 if check_oracle(built, args.check_oracle) else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (args.out / name).write_bytes(data)
    if args.oracle_cases:
        print(f"{write_oracle_cases(built, args.oracle_cases)} oracle cases in {args.oracle_cases}")
    print(f"{len(built)} records in {len(files)} files, {sum(map(len, files.values())):,} bytes -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
