"""The Spark runner writes the same rows as the local pool (PySpark local mode)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pipeline.rules import load_rules
from pipeline.runners.local import run
from tests.crawl_builder import write_warc
from tests.test_runner import table_rows

pytestmark = [pytest.mark.slow, pytest.mark.spark]


def test_spark_local_mode_writes_the_same_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # executors must run this venv's interpreter to see the project's packages
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    monkeypatch.setenv("PYSPARK_DRIVER_PYTHON", sys.executable)
    pyspark_sql = pytest.importorskip("pyspark.sql", reason="pip install -e '.[spark]'")
    inputs = []
    for n in range(3):
        path = tmp_path / f"s-{n}.warc.gz"
        write_warc(path, 12, seed=f"s{n}-")
        inputs.append(str(path))
    rules = load_rules(None)
    spark = (
        pyspark_sql.SparkSession.builder.master("local[2]")
        .appName("redecode-test")
        .config("spark.ui.enabled", "false")
        .config("spark.pyspark.python", sys.executable)  # executors need this venv's packages
        .getOrCreate()
    )
    try:
        from pipeline.runners.spark import run_spark

        summary = run_spark(spark, inputs, tmp_path / "spark", rules, run_id="x")
    finally:
        spark.stop()
    assert summary.invariant_ok, summary.problems
    assert summary.written == 36
    run(inputs, tmp_path / "local", rules, workers=1, run_id="x")
    for table in ("records", "links", "errors"):
        assert table_rows(tmp_path / "spark", table, "x") == table_rows(tmp_path / "local", table, "x")
