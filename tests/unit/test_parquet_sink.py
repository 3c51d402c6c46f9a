"""The Parquet sink: dictionary encoding where values repeat."""

from __future__ import annotations

import pyarrow.parquet as pq

from pipeline.schema import TABLES, UNIQUE_VALUED
from pipeline.sinks.parquet import ParquetSink


def test_unique_valued_columns_exist() -> None:
    for table, columns in UNIQUE_VALUED.items():
        assert columns <= set(TABLES[table].names), columns - set(TABLES[table].names)


def test_dictionary_only_where_values_repeat(tmp_path) -> None:  # type: ignore[no-untyped-def]
    schema = TABLES["links"]
    path = tmp_path / "part.parquet"
    with open(path, "wb") as fh:
        sink = ParquetSink(fh, schema, UNIQUE_VALUED["links"])
        for i in range(50):
            sink.write({"run_id": "r", "record_id": "<urn:1>", "url": "http://a.example/",
                        "target_url": f"http://a.example/{i}", "anchor_text": f"link {i}",
                        "rel": None, "tag": "a", "attr": "href", "internal": True,
                        "nofollow": False})
        sink.close()
    meta = pq.ParquetFile(path).metadata.row_group(0)
    encodings = {meta.column(i).path_in_schema: meta.column(i).encodings for i in range(meta.num_columns)}
    assert any("DICTIONARY" in e for e in encodings["record_id"]), encodings["record_id"]
    assert not any("DICTIONARY" in e for e in encodings["target_url"]), encodings["target_url"]
    assert pq.read_table(path).num_rows == 50


def test_the_worker_pool_is_jemalloc_unless_the_user_chose(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import pyarrow as pa

    from pipeline.sinks.parquet import use_reusing_memory_pool

    before = pa.default_memory_pool()
    try:
        monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL", raising=False)
        assert use_reusing_memory_pool() == "jemalloc" == pa.default_memory_pool().backend_name
        pa.set_memory_pool(pa.system_memory_pool())
        monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "system")
        assert use_reusing_memory_pool() == "system"  # left as the user set it
    finally:
        pa.set_memory_pool(before)


def test_a_task_writes_no_min_max_on_free_text_columns(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # The writer copies a row group's extreme values to compute them (schema.FREE_TEXT):
    # a task's committed parts leave them out on free text and keep them elsewhere
    from pathlib import Path

    from pipeline.rules import load_rules
    from pipeline.runners.task import Task, run_and_commit
    from pipeline.schema import FREE_TEXT

    sample = Path(__file__).resolve().parents[2] / "data" / "sample" / "sample-main.warc.gz"
    task = Task(0, str(sample), "stats", str(tmp_path), load_rules(None))
    assert run_and_commit(task).written > 0
    for table in ("records", "links"):
        meta = pq.ParquetFile(task.rundir.part(table, 0)).metadata.row_group(0)
        with_stats = {meta.column(i).path_in_schema for i in range(meta.num_columns)
                      if meta.column(i).statistics is not None
                      and meta.column(i).statistics.has_min_max}
        assert not with_stats & FREE_TEXT[table], (table, with_stats & FREE_TEXT[table])
        assert {"record_id", "url"} <= with_stats, (table, with_stats)
