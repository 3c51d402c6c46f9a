"""A crawl of many hosts that each serve one encoding, for the rules loop (``suggest-rules``,
``--policy repair``, ``--base-run``): some hosts declare their encoding, some lie with
``charset=iso-8859-1``, some declare nothing; half of each host's pages are long articles,
half a title and a few words. A few hosts serve two encodings under two path prefixes.

The text is real: sentences of ``../shared/corpus/chardet`` (each file decoded with its true
encoding), the project's own prose (:mod:`tests.browser_view.texts`) and the texts CPython's
test suite keeps for its CJK codecs (``test/cjkencodings``, where the interpreter ships its
tests). ``half`` keeps either half of every language's sentences (by a hash of the
sentence), so that what is fitted on one crawl is reported on another that shares no text.

Every page's true encoding is in the manifest :func:`write_crawl` returns: a page is decoded
right when its text under the chosen encoding equals its text under the true one (ASCII
pages are right under any ASCII-compatible encoding).
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import re
import sysconfig
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from tests.browser_view.pages import encode, sentences

HostKind = Literal["declares", "lies", "silent", "mixed"]
Half = Literal["fit", "report"]

#: (language, true encoding) of the hosts: every script family a detector must tell apart.
ENCODINGS: tuple[tuple[str, str], ...] = (
    ("ja", "Shift_JIS"), ("ja", "EUC-JP"), ("zh-Hans", "GBK"), ("zh-Hant", "Big5"),
    ("ko", "EUC-KR"), ("ru", "windows-1251"), ("ru", "KOI8-R"), ("bg", "windows-1251"),
    ("hu", "windows-1250"), ("el", "windows-1253"), ("he", "windows-1255"),
    ("tr", "windows-1254"), ("cs", "windows-1250"), ("pl", "ISO-8859-2"),
    ("pt", "windows-1252"), ("th", "windows-874"), ("ja", "UTF-8"), ("ru", "UTF-8"),
)
#: CPython's CJK codec texts (real prose), by language.
_CJK_TEXTS = {"ja": ("shift_jis", "euc_jp"), "zh-Hans": ("gb2312", "gbk"),
              "zh-Hant": ("big5",), "ko": ("euc_kr", "cp949")}
_GENERIC_TLDS = ("com", "net", "org", "info")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*|\n+")
#: The lie: what misconfigured servers send for every page.
LIE = "text/html; charset=iso-8859-1"


@dataclass(frozen=True, slots=True)
class Page:
    """One response of the crawl and the truth about it."""

    url: str
    content_type: str
    body: bytes
    truth: str  # the encoding the page was written in
    host: str
    kind: HostKind
    long: bool


@cache
def _cjk_sentences(lang: str) -> tuple[str, ...]:
    folder = Path(sysconfig.get_paths()["stdlib"]) / "test" / "cjkencodings"
    found = []
    for name in _CJK_TEXTS.get(lang, ()):
        path = folder / f"{name}-utf8.txt"
        if not path.exists():
            raise FileNotFoundError(f"{path}: CPython's test texts (the interpreter's test package)")
        found += [s.strip() for s in _SENTENCE_END.split(path.read_text(encoding="utf-8"))
                  if len(s.strip()) >= 6 and not s.isascii()]
    return tuple(found)


@cache
def pool(lang: str, half: Half | None) -> tuple[str, ...]:
    """The sentences of ``lang`` (chardet corpus, own prose, CPython's CJK texts), or the
    ``half`` of them whose hash falls on that side."""
    every = tuple(dict.fromkeys((*sentences(lang), *_cjk_sentences(lang))))
    if half is None:
        return every
    side = 0 if half == "fit" else 1
    kept = tuple(s for s in every if hashlib.sha256(s.encode()).digest()[0] % 2 == side)
    if len(kept) < 4:
        raise ValueError(f"{lang}: only {len(kept)} sentences in the {half} half")
    return kept


def _text_for(rng: random.Random, sentences_: tuple[str, ...], encoding: str) -> Iterator[str]:
    """Sentences that ``encoding`` can write without a character reference."""
    while True:
        sentence = rng.choice(sentences_)
        if encode(sentence, encoding) == sentence.encode(_codec(encoding), "replace"):
            yield sentence


def _codec(encoding: str) -> str:
    from tests.browser_view.pages import _CODECS

    return _CODECS[encoding]


def _words(sentence: str, count: int) -> str:
    """About ``count`` words of ``sentence`` (at most 12 characters a word)."""
    if " " in sentence.strip():
        return " ".join(sentence.split()[:count])[: count * 12]
    return sentence[: count * 2]  # Chinese, Japanese, Thai: no spaces between words


def page_html(rng: random.Random, lang: str, encoding: str, long: bool,
              meta: str | None, half: Half | None = None) -> str:
    """A page in ``lang``: a long article (6-20 sentences in paragraphs) or a title and a
    few words; ``meta`` is the ``<meta charset>`` label to write, if any; ``half`` the half
    of the language's sentences it draws from."""
    texts = _text_for(rng, pool(lang, half), encoding)
    first = next(texts)
    title = _words(first, rng.randint(2, 5))
    head = f'<meta charset="{meta}">' if meta else ""
    if long:
        body = "".join(
            "<p>" + " ".join(next(texts) for _ in range(rng.randint(2, 4))) + "</p>\n"
            for _ in range(rng.randint(3, 5)))
    else:
        body = f"<p>{_words(next(texts), rng.randint(3, 6))}</p>"
    return (f"<!DOCTYPE html>\n<html><head>{head}<title>{title}</title></head>\n"
            f"<body><h1>{title}</h1>\n{body}<a href=\"/\">home</a></body></html>\n")


def crawl_pages(seed: int, *, hosts_per_kind: int | None = None, pages_per_host: int = 20,
                mixed_hosts: int = 3, half: Half | None = None) -> list[Page]:
    """The pages of a crawl: for each (language, encoding) of :data:`ENCODINGS` (or the
    first ``hosts_per_kind``), a host that declares it (header or ``<meta>``), one that lies
    (:data:`LIE`), one that declares nothing, each with ``pages_per_host`` pages (half long,
    half short); plus ``mixed_hosts`` hosts that declare nothing and serve two encodings
    under ``/a/`` and ``/b/``."""
    rng = random.Random(seed)
    chosen = ENCODINGS[:hosts_per_kind] if hosts_per_kind else ENCODINGS
    pages: list[Page] = []
    for index, (lang, encoding) in enumerate(chosen):
        for kind in ("declares", "lies", "silent"):
            tld = rng.choice(_GENERIC_TLDS)
            host = f"{kind}{index}-{lang.lower()}.example.{tld}"
            in_header = rng.random() < 0.5
            for number in range(pages_per_host):
                long = number % 2 == 0
                meta = encoding if kind == "declares" and not in_header else None
                html = page_html(rng, lang, encoding, long, meta, half)
                content_type = {"declares": f"text/html; charset={encoding}" if in_header
                                else "text/html", "lies": LIE, "silent": "text/html"}[kind]
                pages.append(Page(f"http://{host}/{number}.html", content_type,
                                  encode(html, encoding), encoding, host, kind, long))
    for index in range(mixed_hosts):
        (lang_a, enc_a), (lang_b, enc_b) = rng.sample([e for e in chosen if e[1] != "UTF-8"], 2)
        host = f"mixed{index}.example.{rng.choice(_GENERIC_TLDS)}"
        for number in range(pages_per_host):
            lang, encoding, prefix = ((lang_a, enc_a, "a") if number % 2 == 0
                                      else (lang_b, enc_b, "b"))
            long = number % 4 < 2
            html = page_html(rng, lang, encoding, long, None, half)
            pages.append(Page(f"http://{host}/{prefix}/{number}.html", "text/html",
                              encode(html, encoding), encoding, host, "mixed", long))
    return pages


def write_crawl(path: Path, pages: list[Page], *, seed: int = 0) -> Path:
    """Write ``pages`` as one gzipped WARC (a response per page) at ``path``, and their
    truth beside it (``<path>.truth.json``: URL -> page facts); returns the manifest path."""
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for page in pages:
            headers = StatusAndHeaders(
                "200 OK", [("Content-Type", page.content_type),
                           ("Content-Length", str(len(page.body)))], protocol="HTTP/1.1")
            record_id = hashlib.sha256(f"{seed}:{page.url}".encode()).hexdigest()[:32]
            record = writer.create_warc_record(
                page.url, "response", payload=io.BytesIO(page.body), http_headers=headers,
                warc_headers_dict={"WARC-Record-ID": f"<urn:uuid:{record_id}>",
                                   "WARC-Date": "2026-01-02T03:04:05Z"})
            writer.write_record(record)
    manifest = path.with_name(path.name + ".truth.json")
    manifest.write_text(json.dumps(
        {page.url: {k: v for k, v in asdict(page).items() if k != "body"} for page in pages},
        indent=0))
    return manifest


def decoded_right(body: bytes, chosen: str, truth: str) -> bool:
    """Whether decoding ``body`` as ``chosen`` gives the text its true encoding gives."""
    from pipeline.encoding.decoders import decode

    return chosen == truth or decode(body, chosen).text == decode(body, truth).text
