"""The ``links`` table of a batch of records as the pipeline built it in Python before the
compiled builder (``_urls.links_batch``, :func:`pipeline.runners.worker.links_table`): a
list per column of every link's values, each converted by ``pa.array``. The tests and the
fuzzer compare the compiled batch with it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pyarrow as pa

from pipeline.extract.fields import Link
from pipeline.schema import LINKS


def links_table(staged: Iterable[tuple[Mapping[str, Any], Sequence[Link]]]) -> pa.Table:
    """The ``links`` rows of ``staged`` (each a record's row and its links) as one table."""
    links: list[Link] = []
    record_ids: list[str] = []
    urls: list[str | None] = []
    run_ids: list[str] = []
    for record, page in staged:
        n = len(page)
        if n:
            links.extend(page)
            record_ids.extend([record["record_id"]] * n)
            urls.extend([record["url"]] * n)
            run_ids.extend([record["run_id"]] * n)
    values = {
        "run_id": run_ids,
        "record_id": record_ids,
        "url": urls,
        "target_url": [link.url for link in links],
        "anchor_text": [link.anchor_text for link in links],
        "rel": [link.rel for link in links],
        "tag": [link.tag for link in links],
        "attr": [link.attr for link in links],
        "kind": [link.kind for link in links],
        "internal": [link.internal for link in links],
        "nofollow": [link.nofollow for link in links],
    }
    return pa.Table.from_arrays([pa.array(values[f.name], f.type) for f in LINKS], schema=LINKS)
