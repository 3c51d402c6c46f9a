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
        meta = pq.ParquetFile(task.rundir.task_part(table, 0, 0)).metadata.row_group(0)
        with_stats = {meta.column(i).path_in_schema for i in range(meta.num_columns)
                      if meta.column(i).statistics is not None
                      and meta.column(i).statistics.has_min_max}
        assert not with_stats & FREE_TEXT[table], (table, with_stats & FREE_TEXT[table])
        assert {"record_id", "url"} <= with_stats, (table, with_stats)


def _links(first: int, count: int):  # type: ignore[no-untyped-def]
    import pyarrow as pa

    rows = [{"run_id": "r", "record_id": f"<urn:{i}>", "url": "http://a.example/",
             "target_url": f"http://a.example/{i}", "anchor_text": "x" * 10, "rel": None,
             "tag": "a", "attr": "href", "kind": "navigation", "internal": True, "nofollow": False}
            for i in range(first, first + count)]
    return rows, pa.Table.from_pylist(rows, schema=TABLES["links"])


def test_tables_are_gathered_into_row_groups_up_to_the_limits(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # Arrow sets up a zstd context per column chunk: small tables (a task's records, a stage
    # at a time) are written together, up to ROW_GROUP_ROWS rows or ROW_GROUP_BYTES of text
    import pipeline.sinks.parquet as sink_module

    monkeypatch.setattr(sink_module, "ROW_GROUP_ROWS", 100)
    monkeypatch.setattr(sink_module, "ROW_GROUP_BYTES", 1000)
    path = tmp_path / "part.parquet"
    with open(path, "wb") as fh:
        sink = ParquetSink(fh, TABLES["links"], UNIQUE_VALUED["links"])
        for k in range(5):  # 40 rows each: a row group at 120 rows, then 80 at the close
            sink.write_table(_links(40 * k, 40)[1], text=10)
        assert sink.rows_written == 120
        sink.write_table(_links(200, 3)[1], text=2000)  # over the text limit: written at once
        assert sink.rows_written == 203
        rows, _ = _links(203, 2)
        sink.write_many(rows)  # rows one by one, then a table: the file keeps their order
        sink.write_table(_links(205, 1)[1])
        sink.close()
    meta = pq.ParquetFile(path).metadata
    assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [120, 83, 3]
    ids = pq.read_table(path, columns=["record_id"])["record_id"].to_pylist()
    assert ids == [f"<urn:{i}>" for i in range(206)]
