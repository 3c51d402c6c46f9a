"""The peer stacks of the end-to-end benchmark, each what a user of those libraries would write
to turn a crawl into a Parquet table of decoded pages (URL, encoding, title, text). redecode
does strictly more per page (every encoding signal, metadata, OpenGraph, links, language,
mojibake score, the naive decode's verdict), so the peers here do less than it does.

    python -m bench.stacks STACK OUT.parquet WARC...     # prints the pages written

Each runs as a process of its own (``bench/e2e_bench.py`` measures the whole process):

- ``resiliparse``: FastWARC (HTTP parsed, content codings undone) +
  ``resiliparse.parse.encoding.detect_encoding`` + ``HTMLTree`` (title) + ``html2text``'s
  main content;
- ``charset-normalizer``: warcio + the header charset, else charset-normalizer's best guess +
  lxml.html (title, text);
- ``naive``: warcio + ``requests``' rule (the header charset, else ISO-8859-1) +
  BeautifulSoup's ``html.parser`` (title, text);
- ``floor``: warcio + the header charset (else UTF-8) + the text as is: no parse at all, what
  reading a crawl and storing its text costs at the least.

Each writes row groups of 500 pages as it goes (none holds the crawl in memory), skips what
is not HTML by its Content-Type, and counts a file it cannot finish as read up to there (the
peers stop at a broken record; that is their behaviour, not a bench failure).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

SCHEMA = pa.schema([("url", pa.string()), ("encoding", pa.string()), ("title", pa.string()),
                    ("text", pa.string())])
ROW_GROUP = 500

Page = dict[str, Any]


def _charset(content_type: str | None) -> str | None:
    """The ``charset`` parameter of a Content-Type, as ``requests.utils.get_encoding_from_headers``
    reads it."""
    if not content_type:
        return None
    for param in content_type.split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset":
            return value.strip().strip("'\"") or None
    return None


def _decode(body: bytes, label: str | None, fallback: str) -> tuple[str, str]:
    for name in (label, fallback):
        if name:
            try:
                return body.decode(name, "replace"), name
            except LookupError:
                continue
    return body.decode("iso-8859-1"), "iso-8859-1"


def _warcio_pages(paths: list[str]) -> Iterator[tuple[str, str | None, bytes]]:
    """(URL, Content-Type, body with transfer and content codings undone) of each response."""
    from warcio.archiveiterator import ArchiveIterator

    for path in paths:
        with open(path, "rb") as fh:
            try:
                for rec in ArchiveIterator(fh):
                    if rec.rec_type != "response" or rec.http_headers is None:
                        continue
                    ctype = rec.http_headers.get_header("Content-Type")
                    if not ctype or "html" not in ctype.lower():
                        continue
                    yield (rec.rec_headers.get_header("WARC-Target-URI"), ctype,
                           rec.content_stream().read())
            except Exception:  # noqa: BLE001 - warcio stops at a broken record
                continue


def naive(paths: list[str]) -> Iterator[Page]:
    from bs4 import BeautifulSoup

    for url, ctype, body in _warcio_pages(paths):
        text, encoding = _decode(body, _charset(ctype), "iso-8859-1")
        soup = BeautifulSoup(text, "html.parser")
        title = soup.title.get_text() if soup.title else None
        yield {"url": url, "encoding": encoding, "title": title,
               "text": soup.get_text(" ", strip=True)}


def charset_normalizer(paths: list[str]) -> Iterator[Page]:
    import lxml.html
    from charset_normalizer import from_bytes

    for url, ctype, body in _warcio_pages(paths):
        label = _charset(ctype)
        if label is None:
            best = from_bytes(body).best()
            label = best.encoding if best is not None else None
        text, encoding = _decode(body, label, "utf-8")
        try:
            root = lxml.html.document_fromstring(text.encode("utf-8", "surrogatepass"),
                                                 parser=_utf8_parser())
        except Exception:  # noqa: BLE001 - lxml refuses empty documents
            continue
        yield {"url": url, "encoding": encoding, "title": root.findtext(".//title"),
               "text": root.text_content()}


_PARSER: Any = None


def _utf8_parser() -> Any:
    global _PARSER
    if _PARSER is None:
        import lxml.html

        _PARSER = lxml.html.HTMLParser(encoding="utf-8")
    return _PARSER


def resiliparse(paths: list[str]) -> Iterator[Page]:
    from fastwarc.warc import ArchiveIterator, WarcRecordType
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.encoding import bytes_to_str, detect_encoding
    from resiliparse.parse.html import HTMLTree

    for path in paths:
        with open(path, "rb") as fh:
            try:
                for rec in ArchiveIterator(fh, record_types=WarcRecordType.response,
                                           parse_http=True, auto_decode="all"):
                    ctype = rec.http_content_type
                    if not ctype or "html" not in ctype.lower():
                        continue
                    body = rec.reader.read()
                    encoding = detect_encoding(body)
                    tree = HTMLTree.parse(bytes_to_str(body, encoding))
                    yield {"url": rec.headers.get("WARC-Target-URI"), "encoding": encoding,
                           "title": tree.title,
                           "text": extract_plain_text(tree, main_content=True)}
            except Exception:  # noqa: BLE001 - FastWARC stops at a broken record
                continue


def floor(paths: list[str]) -> Iterator[Page]:
    for url, ctype, body in _warcio_pages(paths):
        text, encoding = _decode(body, _charset(ctype), "utf-8")
        yield {"url": url, "encoding": encoding, "title": None, "text": text}


STACKS: dict[str, Callable[[list[str]], Iterator[Page]]] = {
    "resiliparse": resiliparse, "charset-normalizer": charset_normalizer, "naive": naive,
    "floor": floor,
}


def write(pages: Iterator[Page], out: str) -> int:
    """Write ``pages`` to one Parquet file, a row group per :data:`ROW_GROUP` pages."""
    count = 0
    with pq.ParquetWriter(out, SCHEMA, compression="zstd") as writer:
        batch: list[Page] = []
        for page in pages:
            batch.append(page)
            if len(batch) >= ROW_GROUP:
                writer.write_table(pa.Table.from_pylist(batch, schema=SCHEMA))
                count += len(batch)
                batch = []
        if batch:
            writer.write_table(pa.Table.from_pylist(batch, schema=SCHEMA))
            count += len(batch)
    return count


def main() -> None:
    name, out, *paths = sys.argv[1:]
    print(write(STACKS[name](paths), out))


if __name__ == "__main__":
    main()
