"""The 42 files of ../shared/corpus/warc-samples: every file accounted for, counts pinned.

Expected counts come from the corpus README (warcio 1.8.1's counts, FastWARC's where warcio
fails) and from inspecting the files; where ours differ from the README's warcio count the
row says why. "decodable" = records that pass select(), parse_response() and
select_response() (HTML, XHTML or text/*, non-empty body).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from warcio.archiveiterator import ArchiveIterator

from pipeline.errors import RecordError
from pipeline.http import parse_response, select, select_response
from pipeline.sources import iter_records
from pipeline.sources.record import RawRecord

# file -> (RawRecords, RecordErrors of any stage, decodable responses)
EXPECTED: dict[str, tuple[int, int, int]] = {
    "jwarc/cc.warc.gz": (1, 0, 1),
    "jwarc/gzip_extra_sl.warc.gz": (1, 0, 0),  # warcinfo only; gzip FEXTRA accepted
    # 3 responses: one text/html page, an empty javascript body, an empty 302
    "pywb/dupes.warc.gz": (25, 0, 1),
    # one response's status line is "HTTPX/1.1 200 OK": an http error row
    "pywb/example-extra.warc": (6, 1, 1),
    "pywb/example-url-agnostic-orig.warc.gz": (2, 0, 1),
    "pywb/example-url-agnostic-revisit.warc.gz": (2, 0, 0),
    "pywb/example-wget-1-14.warc.gz": (6, 0, 4),  # the response + 3 text/plain resources
    "pywb/example-wpull.warc.gz": (4, 0, 2),
    "pywb/example2.warc.gz": (3, 0, 1),
    "pywb/httpbin-resource.warc.gz": (1, 0, 0),  # not text
    # README: 20 HTML responses, 2 of them empty; plus 2 text/css responses
    "pywb/iana.warc.gz": (343, 0, 20),
    "pywb/missing-status-text.warc": (1, 0, 0),  # a 302 with Content-Length: 0
    "resiliparse/block-sized-records.warc.gz": (3, 0, 0),  # WARC-Type "unknown"
    "resiliparse/block-sized-records.warc.lz4": (3, 0, 0),  # the same records as the .gz
    "resiliparse/clipped.warc.gz": (1, 0, 1),  # truncated, see below
    "resiliparse/clueweb-quirk.warc.gz": (30, 0, 29),
    "resiliparse/warcfile.warc.gz": (50, 0, 16),
    "resiliparse/warcfile.warc.lz4": (50, 0, 16),  # the same records as the .gz
    # filedesc + 3 records; none holds an HTTP message: two are empty (length -1 and "abc"
    # become 0), the third's 1-byte block is "\n"; all three are skipped as empty-record
    "warcio/bad.arc": (4, 0, 0),
    # warcio refuses whole-file gzip; FastWARC's count (6) is read here too
    "warcio/example-bad-non-chunked.warc.gz": (6, 0, 1),
    "warcio/example-bad.warc.gz.bad": (6, 0, 2),
    "warcio/example-digest.warc": (4, 0, 0),
    "warcio/example-iana.org-chunked.warc": (3, 0, 1),
    "warcio/example-resource.warc.gz": (3, 0, 1),
    "warcio/example-space-in-target-uri.warc.gz": (2, 0, 0),  # a PNG resource
    "warcio/example-space-in-url.arc": (2, 0, 1),  # the file ends 12 bytes early: truncated
    # warcio's 4 records, plus an error row for the 2 stray bytes after the response
    # (its Content-Length is 2 short; warcio only warns "Record not followed by newline")
    "warcio/example-trunc.warc": (4, 1, 1),
    "warcio/example-wget-bad-target-uri.warc.gz": (6, 0, 3),
    # the response spans two gzip members: warcio yields it cut and then raises; read
    # whole here, as FastWARC does (response + request)
    "warcio/example-wrong-chunks.warc.gz": (2, 0, 1),
    "warcio/example.arc": (2, 0, 1),
    "warcio/example.arc.gz": (2, 0, 1),
    "warcio/example.warc": (6, 0, 1),
    "warcio/example.warc.gz": (6, 0, 1),
    "warcio/post-test.warc.gz": (6, 0, 0),  # JSON responses
    # 9 ARC records (filedesc, dns, robots.txt, /, index.php, 3 images, an RSS feed): the
    # README's "3 pages" counts header lines at line starts, but Heritrix writes no newline
    # between records; warcio stops after the filedesc (it swallows the next header line)
    "webarchive-commons/IAH-20080430204825-00000-blackbook-truncated.arc": (9, 0, 4),
    # README: 11 text/html responses (2 of them empty 301s); + text/plain, text/xml and 3
    # text/plain resources
    "webarchive-commons/IAH-urls-wget.warc.gz": (36, 0, 14),
    "webarchive-commons/kb-prod-har-003.kb.dk_truncated.arc": (4, 0, 3),
    # warcio stops after 3 responses; FastWARC reads all 8 records, so do we
    "webarchive-commons/link-extraction-test.warc": (8, 0, 7),
    "webarchive-commons/mutliple-headers.warc": (1, 0, 1),
    "whirlwind-python/whirlwind.warc.gz": (4, 0, 1),
    "whirlwind-python/whirlwind.warc.wat.gz": (2, 0, 0),
    "whirlwind-python/whirlwind.warc.wet.gz": (2, 0, 0),
}


def sample_files(corpus: Path) -> list[str]:
    root = corpus / "warc-samples"
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if p.is_file() and p.name not in ("README.md", "MANIFEST.tsv"))


def account(path: Path) -> tuple[int, int, int, list[RawRecord]]:
    records = errors = decodable = 0
    raws: list[RawRecord] = []
    for item in iter_records(str(path)):
        if isinstance(item, RecordError):
            errors += 1
            continue
        records += 1
        raws.append(item)
        if select(item) is not None:
            continue
        resp = parse_response(item)
        if isinstance(resp, RecordError):
            errors += 1
        elif select_response(resp) is None:
            decodable += 1
    return records, errors, decodable, raws


def test_all_42_files_are_in_the_table(corpus: Path) -> None:
    files = sample_files(corpus)
    assert len(files) == 42
    assert sorted(EXPECTED) == files


@pytest.mark.parametrize("name", sorted(EXPECTED), ids=sorted(EXPECTED))
def test_records_errors_and_decodable_per_file(corpus: Path, name: str) -> None:
    records, errors, decodable, _ = account(corpus / "warc-samples" / name)
    assert (records, errors, decodable) == EXPECTED[name]
    assert records + errors > 0, "every file yields its records or an error"


def test_silent_truncations_are_flagged(corpus: Path) -> None:
    root = corpus / "warc-samples"
    flagged: dict[str, list[str | None]] = {}
    for name in ("resiliparse/clipped.warc.gz", "warcio/example-space-in-url.arc", "warcio/example-trunc.warc"):
        flagged[name] = []
        for item in iter_records(str(root / name)):
            if isinstance(item, RawRecord) and item.record_type == "response":
                resp = parse_response(item)
                assert not isinstance(resp, RecordError)
                flagged[name].append(resp.content_truncated)
    # clipped: gzip stream cut off; Content-Length 88038, far fewer bytes readable
    assert flagged["resiliparse/clipped.warc.gz"] == ["gzip"]
    assert flagged["warcio/example-space-in-url.arc"] == ["length"]
    assert flagged["warcio/example-trunc.warc"] == ["framing"]


def test_clipped_keeps_what_was_readable(corpus: Path) -> None:
    (rec,) = [r for r in iter_records(str(corpus / "warc-samples/resiliparse/clipped.warc.gz"))]
    assert isinstance(rec, RawRecord) and rec.block_truncated
    # README: 74970 payload bytes readable of Content-Length 88038 (block = head + payload)
    resp = parse_response(rec)
    assert not isinstance(resp, RecordError)
    assert len(resp.body) == 74970


def test_common_crawl_metadata_and_identified_type_are_kept(corpus: Path) -> None:
    items = list(iter_records(str(corpus / "warc-samples/whirlwind-python/whirlwind.warc.gz")))
    (resp,) = [i for i in items if isinstance(i, RawRecord) and i.record_type == "response"]
    assert resp.crawler_charset == "UTF-8"  # metadata record: charset-detected
    assert resp.content_languages == "spa"  # languages-cld2, as ISO 639-3 codes
    assert resp.content_mime_detected == "text/html"  # WARC-Identified-Payload-Type
    parsed = parse_response(resp)
    assert not isinstance(parsed, RecordError)
    # X-Crawler-Content-Encoding: the payload is stored decoded and kept as is
    assert parsed.codings_removed == () and parsed.body.lstrip().lower().startswith(b"<!doctype html")


def test_stored_dechunked_and_stored_decoded_bodies_are_kept(corpus: Path) -> None:
    notes: Counter[str] = Counter()
    for name in ("pywb/iana.warc.gz", "resiliparse/clueweb-quirk.warc.gz"):
        for item in iter_records(str(corpus / "warc-samples" / name)):
            if isinstance(item, RawRecord) and select(item) is None:
                resp = parse_response(item)
                assert not isinstance(resp, RecordError)
                notes.update(resp.http_notes)
    assert notes["content-encoding-not-applied"] == 29  # every ClueWeb page
    assert notes["lf-only-header-lines"] == 29
    assert notes["chunked-not-framed"] > 0


@pytest.mark.parametrize("name", ["pywb/iana.warc.gz", "resiliparse/warcfile.warc.gz", "warcio/example.warc",
                                  "webarchive-commons/kb-prod-har-003.kb.dk_truncated.arc",
                                  "webarchive-commons/IAH-urls-wget.warc.gz"])
def test_offsets_and_lengths_equal_warcio_where_warcio_reads_the_file(corpus: Path, name: str) -> None:
    path = corpus / "warc-samples" / name
    ours = [(r.warc_record_offset, r.warc_record_length) for r in iter_records(str(path))
            if isinstance(r, RawRecord)]
    theirs = []
    with open(path, "rb") as fh:
        it = ArchiveIterator(fh, arc2warc=True)
        for rec in it:
            rec.raw_stream.read()
            theirs.append((it.get_record_offset(), it.get_record_length()))
    assert sorted(ours) == theirs


@pytest.mark.parametrize("name", sorted(EXPECTED), ids=sorted(EXPECTED))
def test_fast_path_and_careful_reader_give_identical_records(corpus: Path, name: str) -> None:
    # FastWARC reads what it can and hands the rest to the careful reader: the records
    # (locators, flags, blocks) and errors must be those the careful reader alone gives.
    from pipeline.sources.archive import iter_archive

    path = str(corpus / "warc-samples" / name)
    assert list(iter_archive(path)) == list(iter_archive(path, reader="careful"))
