"""Generate a benchmark crawl (~100 MB of HTML in WARC files) from text written here."""

from __future__ import annotations

import io
import random
import uuid
from dataclasses import dataclass
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


# -- A Common Crawl shaped crawl from real pages ------------------------------------------------

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
#: Languages Common Crawl's metadata names for a page, by the page's true encoding (roughly
#: what CLD2 says of such pages; the join copies the codes, nothing else reads them).
_LANGS = {"UTF-8": "eng", "Shift_JIS": "jpn", "EUC-JP": "jpn", "ISO-2022-JP": "jpn",
          "EUC-KR": "kor", "Big5": "zho", "GBK": "zho", "windows-1251": "rus", "KOI8-R": "rus",
          "ISO-8859-5": "rus", "IBM866": "rus", "x-mac-cyrillic": "rus", "windows-1255": "heb",
          "ISO-8859-7": "ell", "windows-1256": "ara", "ISO-8859-6": "ara", "windows-874": "tha",
          "windows-1254": "tur"}


def real_pages() -> list[tuple[str, bytes, str]]:
    """The real pages at hand: the 181 article-extraction pages (UTF-8) and every WHATWG-scope
    page of the chardet corpus; (URL, bytes as stored, true encoding) each."""
    import csv
    import gzip
    import json

    truth = json.loads((CORPUS / "article-extraction" / "ground-truth.json").read_text("utf-8"))
    pages = [(entry["url"], gzip.decompress((CORPUS / "article-extraction" / "html" /
                                             f"{key}.html.gz").read_bytes()), "UTF-8")
             for key, entry in sorted(truth.items())]
    with open(CORPUS / "chardet" / "MANIFEST.tsv", encoding="utf-8") as fh:
        for k, row in enumerate(csv.DictReader(fh, delimiter="\t")):
            if row["scope"] != "whatwg":
                continue
            tld = row["site_tld"] if row["site_tld"] != "-" else "com"
            pages.append((f"http://www{k}.example.{tld}/{Path(row['path']).stem}.html",
                          (CORPUS / "chardet" / row["path"]).read_bytes(), row["true_encoding"]))
    return pages


@dataclass(frozen=True, slots=True)
class RealCrawl:
    """What :func:`write_real_crawl` wrote."""

    paths: tuple[Path, ...]
    pages: int  # HTML responses (what every stack decodes)
    html_bytes: int  # their payloads, as the server sent them (before content codings)
    records: int  # every WARC record


def write_real_crawl(folder: Path, repeats: int = 2, files: int = 4) -> RealCrawl:
    """A per-record-gzip crawl shaped like a Common Crawl WARC file, from :func:`real_pages`
    ``repeats`` times over (each time under other URLs), in ``files`` files.

    Each capture is a request, a response and a metadata record (``charset-detected``,
    ``languages-cld2``), as Common Crawl writes them. Most payloads are stored decoded with
    the crawler's ``X-Crawler-Content-Encoding`` / ``X-Crawler-Content-Length`` headers (Common
    Crawl's practice); one in ten keeps ``Content-Encoding: gzip``, one in ten is chunked (what
    other crawlers store). Half the UTF-8 pages and a third of the legacy ones declare their
    charset in the header; the others rely on the page. One capture in 25 is a PDF or an image
    (skipped by every stack).
    """
    import gzip

    folder.mkdir(parents=True, exist_ok=True)
    pages = real_pages()
    paths = tuple(folder / f"CC-MAIN-bench-{k:05d}.warc.gz" for k in range(files))
    handles = [open(p, "wb") for p in paths]  # noqa: SIM115 - closed below
    writers = [WARCWriter(h, gzip=True) for h in handles]
    html = records = n = 0
    try:
        for rep in range(repeats):
            for i, (url, body, encoding) in enumerate(pages):
                n += 1
                writer = writers[n % files]
                url = url.replace("://", f"://r{rep}.", 1) if rep else url
                rid = f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, url)}>"
                date = {"WARC-Date": f"2026-11-{1 + rep:02d}T00:00:{i % 60:02d}Z"}
                kind = n % 25
                if kind == 24:  # not HTML
                    ctype, payload = ("application/pdf", b"%PDF-1.4\n" + body[:4000]) if n % 2 \
                        else ("image/jpeg", b"\xff\xd8\xff\xe0" + body[:4000])
                else:
                    declare = (n % 2 == 0) if encoding == "UTF-8" else (n % 3 == 0)
                    ctype = f"text/html; charset={encoding}" if declare else "text/html"
                    payload = body
                    html += len(body)
                headers = [("Date", "Sun, 01 Nov 2026 00:00:00 GMT"), ("Server", "nginx"),
                           ("Content-Type", ctype), ("Cache-Control", "max-age=600"),
                           ("Vary", "Accept-Encoding"), ("Set-Cookie", f"id={n}; path=/; HttpOnly")]
                if kind == 5:
                    payload = gzip.compress(payload, 6, mtime=0)
                    headers += [("Content-Encoding", "gzip"), ("Content-Length", str(len(payload)))]
                elif kind == 15:
                    payload = b"%x\r\n%s\r\n0\r\n\r\n" % (len(payload), payload)
                    headers.append(("Transfer-Encoding", "chunked"))
                else:
                    headers += [("X-Crawler-Content-Encoding", "gzip"),
                                ("Content-Length", str(len(payload)))]
                writer.write_record(writer.create_warc_record(
                    url, "request", payload=io.BytesIO(b""),
                    http_headers=StatusAndHeaders("GET / HTTP/1.1", [("Host", "x"),
                                                  ("Accept-Encoding", "gzip")],
                                                  is_http_request=True),
                    warc_headers_dict={**date, "WARC-Concurrent-To": rid}))
                writer.write_record(writer.create_warc_record(
                    url, "response", payload=io.BytesIO(payload),
                    http_headers=StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1"),
                    warc_headers_dict={**date, "WARC-Record-ID": rid}))
                lang = _LANGS.get(encoding, "eng")
                meta = (f"fetchTimeMs: {100 + n % 900}\r\ncharset-detected: {encoding}\r\n"
                        f'languages-cld2: {{"reliable":true,"text-bytes":{len(body)},"languages":'
                        f'[{{"code":"{lang[:2]}","code-iso-639-3":"{lang}","text-covered":0.98,'
                        f'"score":1021.0,"name":"{lang}"}}]}}\r\n').encode()
                writer.write_record(writer.create_warc_record(
                    url, "metadata", payload=io.BytesIO(meta),
                    warc_content_type="application/warc-fields",
                    warc_headers_dict={**date, "WARC-Concurrent-To": rid}))
                records += 3
    finally:
        for h in handles:
            h.close()
    responses = repeats * len(pages)
    return RealCrawl(paths, responses - sum(1 for k in range(1, responses + 1) if k % 25 == 24),
                     html, records)


def main() -> None:
    """``python -m bench.crawl DIR [--repeats N] [--files F]``: :func:`write_real_crawl`, with
    what it wrote printed as JSON (the benchmarks build the crawl in a process of their own,
    so that the process that measures stays small: see bench/proc.py)."""
    import argparse
    import json

    parser = argparse.ArgumentParser(prog="python -m bench.crawl")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--files", type=int, default=4)
    args = parser.parse_args()
    crawl = write_real_crawl(args.folder, repeats=args.repeats, files=args.files)
    print(json.dumps({"paths": [str(p) for p in crawl.paths], "pages": crawl.pages,
                      "html_bytes": crawl.html_bytes, "records": crawl.records}))


if __name__ == "__main__":
    main()
