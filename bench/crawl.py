"""Generate a benchmark crawl (~100 MB of HTML in WARC files) from text written here."""

from __future__ import annotations

import io
import random
import uuid
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

_WORDS = {
    "en": "the archive keeps every byte of the page so that rules can change later and text "
          "decoded today can be decoded again tomorrow when the rules improve".split(),
    "ja": "東京 の 図書館 は 古い 新聞 を 保存 して います 。 文字 化け を 直す ため に 記録 を 残す".split(),
    "ru": "архив хранит каждый байт страницы чтобы правила можно было изменить позже".split(),
    "zh": "档案馆 保存 网页 的 每一个 字节 以便 日后 规则 改进 时 重新 解码".split(),
}
# (url template, content-type, python codec, language, declare in meta?)
_KINDS = [
    ("https://news{n}.example.com/a/{i}", "text/html; charset=utf-8", "utf-8", "en", False),
    ("https://blog{n}.example.de/p/{i}", "text/html", "utf-8", "en", True),
    ("http://www{n}.example.jp/{i}.html", "text/html", "shift_jis", "ja", True),
    ("http://site{n}.example.ru/{i}", "text/html; charset=windows-1251", "cp1251", "ru", False),
    ("http://portal{n}.example.cn/{i}", "text/html", "gbk", "zh", False),
    ("https://shop{n}.example.com/{i}", "text/html", "utf-8", "en", False),
]


def page(rng: random.Random, lang: str, codec: str, declare: bool, i: int, size: int) -> bytes:
    """One page of about ``size`` bytes: head with metadata, nav, an article, a footer."""
    words = _WORDS[lang]
    sep = "" if lang in ("ja", "zh") else " "
    paras = []
    total = 0
    while total < size:
        para = sep.join(rng.choice(words) for _ in range(rng.randint(40, 120)))
        paras.append(f"<p>{para}.</p>")
        total += len(para.encode(codec, "replace")) + 7
    meta = f'<meta charset="{codec}">' if declare else ""
    nav = "".join(f'<li><a href="/section/{k}">section {k}</a></li>' for k in range(15))
    html = (
        f"<!DOCTYPE html><html lang={lang}><head>{meta}<title>Page {i}</title>"
        f'<meta name="description" content="page {i}"><meta property="og:title" content="Page {i}">'
        f'<link rel="canonical" href="/canonical/{i}"></head><body><nav><ul>{nav}</ul></nav>'
        f"<article><h1>Page {i}</h1>{''.join(paras)}</article>"
        f'<footer><a href="https://other.example.org/">other</a> © 2026</footer></body></html>'
    )
    return html.encode(codec, "xmlcharrefreplace")


def write_crawl(folder: Path, total_mb: int = 100, files: int = 4, page_kb: int = 40) -> list[Path]:
    """Write ``files`` gzipped WARCs holding about ``total_mb`` MB of HTML; returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(1234)
    pages = total_mb * 1024 // page_kb
    paths = [folder / f"bench-{k}.warc.gz" for k in range(files)]
    handles = [open(p, "wb") for p in paths]
    writers = [WARCWriter(h, gzip=True) for h in handles]
    try:
        for i in range(pages):
            url_t, ctype, codec, lang, declare = _KINDS[i % len(_KINDS)]
            url = url_t.format(n=i % 50, i=i)
            body = page(rng, lang, codec, declare, i, page_kb * 1024)
            headers = StatusAndHeaders(
                "200 OK", [("Content-Type", ctype), ("Content-Length", str(len(body)))],
                protocol="HTTP/1.1",
            )
            writer = writers[i % files]
            writer.write_record(writer.create_warc_record(
                url, "response", payload=io.BytesIO(body), http_headers=headers,
                warc_headers_dict={
                    "WARC-Record-ID": f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, url)}>",
                    "WARC-Date": "2026-11-01T00:00:00Z",
                },
            ))
    finally:
        for h in handles:
            h.close()
    return paths
