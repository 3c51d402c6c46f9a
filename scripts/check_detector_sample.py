"""Do smaller detector samples change any decision? (docs/sniffing.md, "detector sample")

Decodes every BOM-less whatwg-scope file of ../shared/corpus/chardet with its in-document
declarations removed (so detection decides), once per (block, non-ASCII cap) setting of
``pipeline.encoding.sniff.detect``, and prints how many decisions differ from the first.

    .venv/bin/python scripts/check_detector_sample.py
"""

from __future__ import annotations

import csv
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline import decode_html  # noqa: E402
from pipeline.encoding.sniff import detect  # noqa: E402

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "chardet"
DECLARATION = re.compile(rb"<meta[^>]*charset[^>]*>|<\?xml[^>]*>", re.I)
SETTINGS = [(4096, 2048), (1024, 2048), (512, 2048), (256, 2048), (4096, 1024), (512, 1024)]


def main() -> None:
    with open(CORPUS / "MANIFEST.tsv", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh, delimiter="\t") if r["scope"] == "whatwg"]
    docs = []
    for row in rows:
        body = (CORPUS / row["path"]).read_bytes()
        if body.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
            continue
        tld = row["site_tld"] if row["site_tld"] != "-" else "com"
        docs.append((DECLARATION.sub(b"", body), f"http://x.{tld}/", row["true_encoding"].lower()))
    first = None
    for block, cap in SETTINGS:
        detect._BLOCK, detect.DETECTOR_MAX_NON_ASCII = block, cap
        start = time.process_time()
        got = [(d.decision.encoding, d.decision.encoding_browser)
               for d in (decode_html(body, None, url) for body, url, _ in docs)]
        seconds = time.process_time() - start
        first = first or got
        right = sum(g[0].lower() == truth for g, (_, _, truth) in zip(got, docs, strict=True))
        differ = sum(a != b for a, b in zip(got, first, strict=True))
        print(f"block {block:5d}  non-ASCII cap {cap:5d}: {len(docs)} files, {right} right, "
              f"{differ} decisions differ from the first setting, {seconds:.2f} CPU s")


if __name__ == "__main__":
    main()
