"""The end-to-end floor: warcio + the header charset's Python codec + one Parquet table.

No sniffing, no fields: what reading a crawl and storing its text costs at the least. Run as
a script (``python -m bench.floor OUT.parquet WARC...``, prints pages, CPU seconds after the
imports and peak RSS MB) or called in-process by the steady-state comparison.
"""

from __future__ import annotations

import resource
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq
from warcio.archiveiterator import ArchiveIterator


def floor(paths: list[str], out: str) -> int:
    """Read ``paths``, decode each response with its header charset, write ``out``; pages."""
    rows = []
    for path in paths:
        with open(path, "rb") as fh:
            for rec in ArchiveIterator(fh):
                if rec.rec_type != "response":
                    continue
                body = rec.content_stream().read()
                ct = rec.http_headers.get_header("Content-Type") or ""
                cs = ct.split("charset=")[-1] if "charset=" in ct else "utf-8"
                text = body.decode(cs, "replace")
                rows.append({"url": rec.rec_headers.get_header("WARC-Target-URI"), "text": text})
    pq.write_table(pa.Table.from_pylist(rows), out, compression="zstd")
    return len(rows)


def main() -> None:
    start = time.process_time()
    pages = floor(sys.argv[2:], sys.argv[1])
    print(pages, time.process_time() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)


if __name__ == "__main__":
    main()
