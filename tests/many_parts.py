"""A run of many committed tasks made from one real task (what the tests and the bench of the
audits over many parts read): decoding thousands of files is not what they look at."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.runners.rundir import TASK_TABLES, RunDir, part_name
from pipeline.storage import Storage

#: A file takes at most 65,000 hard links on ext4: one copy of a source per this many.
LINKS_PER_COPY = 60_000
#: The ``runs`` columns that count, multiplied by the number of ranks.
COUNTS = ("files", "records_seen", "records_written", "records_skipped", "errors",
          "partial_errors", "links_written", "bytes_read")


def spread(out: Path, run_id: str, ranks: int, *, distinct: bool = True) -> None:
    """Give rank 0's parts, stats and completion marker of the finished run ``run_id`` to
    ranks 1 to ``ranks - 1``, each naming its own input, and make the ``runs`` row count
    them all (the accounting adds up). ``distinct`` writes each rank's records naming its own
    input file (record keys stay unique); else every part is a hard link to rank 0's."""
    run = RunDir(Storage(), str(out), run_id)
    stats = json.loads(Path(run.stats(0)).read_text())
    marker = json.loads(Path(run.marker(0)).read_text())
    # rank 0 of a tiny run wrote at most one part of each table: part 0
    records = pq.read_table(run.task_part("records", 0, 0))
    filename = records.schema.get_field_index("warc_filename")
    record_id = records.schema.get_field_index("record_id")
    # a table rank 0 wrote no part of (no row) has none in any rank
    sources = {table: out / f".{table}.source" for table in TASK_TABLES
               if os.path.exists(run.task_part(table, 0, 0))}
    for table, source in sources.items():
        shutil.copyfile(run.task_part(table, 0, 0), source)
    inputs = [stats["path"].replace("000000", f"{n:06d}") for n in range(ranks)]
    for n in range(1, ranks):
        for table, source in sources.items():
            if distinct and table == "records":
                name = os.path.basename(inputs[n])
                pq.write_table(records.set_column(
                    filename, "warc_filename", pa.array([name] * len(records), pa.string()),
                ).set_column(record_id, "record_id", pa.array(
                    [f"{rid}-{n}" for rid in records["record_id"].to_pylist()], pa.string())),
                    run.task_part("records", n, 0))
                continue
            copy = source.with_name(f"{source.name}.{n // LINKS_PER_COPY}")
            if not copy.exists():
                shutil.copyfile(source, copy)
            os.link(copy, run.task_part(table, n, 0))
        # the stats list the rank's own parts, each of the size the listing shows
        parts = {table: [[part_name(n, 0), rows, os.path.getsize(run.task_part(table, n, 0))]
                         for _, rows, _ in listed]
                 for table, listed in stats.get("parts", {}).items()}
        Path(run.stats(n)).write_text(json.dumps(stats | {"rank": n, "path": inputs[n],
                                                          "parts": parts}))
        Path(run.marker(n)).write_text(json.dumps(marker | {"path": inputs[n]}))
    for path in out.glob(".*.source*"):
        path.unlink()
    runs_part = Path(run.part("runs", 0))
    row = pq.read_table(runs_part).to_pylist()[0]
    row.update({name: row[name] * ranks for name in COUNTS}, inputs=inputs)
    pq.write_table(pa.Table.from_pylist([row], schema=pq.read_schema(runs_part)), runs_part)
