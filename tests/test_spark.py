"""The Spark runner (PySpark local mode, started by the tests): the same rows as a local-disk
run when it reads and writes s3:// on the loopback S3 server, a task that fails once part-way
is retried without a duplicate or a missing row, and ``redecode run --engine spark`` exits
as the local runner does."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipeline.rules import load_rules
from pipeline.runners.local import run
from pipeline.storage import Storage
from tests.cli_helpers import no_traceback, redecode, runs_row
from tests.crawl_builder import write_warc
from tests.run_tables import committed_parts, differences, table_rows

pytestmark = pytest.mark.spark
#: The run of the retry test, and the rank whose task fails once after 5 records.
RETRY_RUN, RETRY_RANK = "retry", 3


@pytest.fixture(scope="module")
def spark(s3_server, tmp_path_factory: pytest.TempPathFactory):
    """One SparkSession (local[2,2]: two cores, a task may fail once and be retried).
    Executors inherit the environment the JVM starts with: the S3 server's endpoint and
    keys, and the fault that the retry test needs (``REDECODE_TEST_FAULT``)."""
    from pipeline.runners.spark import spark_session

    flag = tmp_path_factory.mktemp("fault") / "fired"
    saved = dict(os.environ)
    os.environ.update(s3_server.env)
    os.environ["REDECODE_TEST_FAULT"] = f"{RETRY_RUN}:{RETRY_RANK}:5:{flag}"
    session = spark_session("local[2,2]")
    try:
        yield session, flag
    finally:
        session.stop()
        os.environ.clear()
        os.environ.update(saved)


def s3_rows(out: str, run_id: str, crawl: str) -> dict[str, list[str]]:
    return table_rows(Storage(), out, run_id, f"{crawl}/corpus/warc-samples",
                      f"{crawl}/data/sample")


def test_spark_s3_to_s3_equals_a_local_disk_run(spark, s3_server, crawl_bucket: str,
                                                local_reference) -> None:
    from pipeline.runners.spark import spark_executor

    session, _ = spark
    expected, unreadable = local_reference
    out = s3_server.make_bucket("spark-out") + "/out"
    rules = load_rules(Path(__file__).parent.parent / "data" / "sample" / "rules.toml")
    summary = run([f"{crawl_bucket}/corpus/warc-samples/", f"{crawl_bucket}/data/sample/"],
                  out, rules, run_id="spark", executor=spark_executor(session))
    assert summary.invariant_ok, summary.problems
    assert bool(summary.unreadable) == unreadable
    got = s3_rows(out, "spark", crawl_bucket)
    assert got == expected, differences(got, expected)
    assert not [k for k in s3_server.keys(out) if k.endswith(".tmp")]


def test_a_task_that_fails_once_part_way_is_retried_without_duplicates(
    spark, s3_server, crawl_bucket: str, local_reference,
) -> None:
    from pipeline.runners.spark import spark_executor

    session, flag = spark
    expected, _ = local_reference
    out = s3_server.make_bucket("spark-retry") + "/out"
    rules = load_rules(Path(__file__).parent.parent / "data" / "sample" / "rules.toml")
    assert not flag.exists()
    summary = run([f"{crawl_bucket}/corpus/warc-samples/", f"{crawl_bucket}/data/sample/"],
                  out, rules, run_id=RETRY_RUN, executor=spark_executor(session))
    assert flag.exists()  # the first attempt at the rank failed after 5 records
    assert summary.invariant_ok, summary.problems
    got = s3_rows(out, RETRY_RUN, crawl_bucket)
    assert got == expected, differences(got, expected)  # none twice, none missing
    assert not [k for k in s3_server.keys(out) if k.endswith(".tmp")]
    # the lost attempt is counted, in the summary and the runs row, and kept with its reason
    assert (summary.attempts_lost, summary.executors_lost) == (1, 0)
    storage = Storage()
    (part,) = committed_parts(storage, out, "runs", RETRY_RUN)
    with storage.open_read(part, random_access=True) as fh:
        row = pq.read_table(fh).to_pylist()[0]
    assert (row["attempts_lost"], row["executors_lost"]) == (1, 0)
    (lost,) = json.loads(s3_server.read(f"{out}/_runs/{RETRY_RUN}/_lost.json"))
    assert lost["kind"] == "attempt" and lost["ranks"] == [RETRY_RANK]
    assert lost["where"].startswith("executor driver on ")  # local mode: the driver's JVM
    assert "InjectedFault: injected by REDECODE_TEST_FAULT" in lost["reason"]
    assert "Traceback" in lost["detail"] and "\tat org.apache" not in lost["detail"]


def test_run_spark_probes_an_executor_then_runs(spark, tmp_path: Path) -> None:
    from pipeline.runners.spark import run_spark

    session, _ = spark
    crawl = tmp_path / "c.warc.gz"
    write_warc(crawl, 5, seed="api")
    summary = run_spark(session, [str(crawl)], str(tmp_path / "out"), load_rules(None),
                        run_id="api")
    assert summary.invariant_ok and (summary.files, summary.written) == (1, 5)
    assert (summary.attempts_lost, summary.executors_lost) == (0, 0)


@pytest.mark.slow  # a second JVM (~8 CPU-seconds) and two command-line runs
def test_the_command_line_engine_exits_as_the_local_runner_does(tmp_path: Path) -> None:
    good = [tmp_path / f"g{n}.warc.gz" for n in range(3)]
    for n, path in enumerate(good):
        write_warc(path, 8, seed=f"g{n}")
    (tmp_path / "x.warc").write_bytes(b"%PDF-1.4\nnot an archive\n")
    inputs = [*(str(p) for p in good), str(tmp_path / "x.warc")]
    spark_run = redecode("run", *inputs, "--out", str(tmp_path / "spark"), "--run-id", "e",
                         "--engine", "spark", "--master", "local[1]", "--partitions", "2",
                         timeout=300)
    local_run = redecode("run", *inputs, "--out", str(tmp_path / "local"), "--run-id", "e")
    assert spark_run.returncode == local_run.returncode == 3, spark_run.stderr
    assert no_traceback(spark_run)
    assert f"unreadable: {tmp_path / 'x.warc'}: source-invalid-record-header" in spark_run.stderr
    assert table_rows(Storage(), str(tmp_path / "spark"), "e") == table_rows(
        Storage(), str(tmp_path / "local"), "e")
    config = runs_row(tmp_path / "spark", "e")["config"]
    assert config["engine"] == {"engine": "spark", "master": "local[1]", "partitions": 2}
    usage = redecode("run", *inputs, "--out", str(tmp_path / "o"), "--master", "local[1]")
    assert usage.returncode == 2 and "--master and --partitions need --engine spark" in usage.stderr


@pytest.mark.slow  # three Spark jobs over the sample (tests/test_incremental.py covers the
# plan and the copies in the default suite)
def test_an_incremental_run_on_spark_equals_a_full_one(spark, s3_server, crawl_bucket: str,
                                                       tmp_path: Path) -> None:
    from pipeline.runners.spark import spark_executor
    from tests.test_remote_run import CHANGED_RULES

    session, _ = spark
    out = s3_server.make_bucket("spark-incremental") + "/out"
    inputs = [f"{crawl_bucket}/corpus/warc-samples/", f"{crawl_bucket}/data/sample/"]
    sample = load_rules(Path(__file__).parent.parent / "data" / "sample" / "rules.toml")
    changed = load_rules("changed", raw=CHANGED_RULES.encode())
    run(inputs, out, sample, run_id="base", executor=spark_executor(session))
    summary = run(inputs, out, changed, run_id="incremental", base_run="base",
                  executor=spark_executor(session))
    assert summary.invariant_ok, summary.problems
    assert 0 < summary.redecoded < summary.copied
    run(inputs, out, changed, run_id="full", executor=spark_executor(session))
    got, want = s3_rows(out, "incremental", crawl_bucket), s3_rows(out, "full", crawl_bucket)
    for table in ("records", "links", "errors"):
        assert got[table] == want[table], differences({table: got[table]}, {table: want[table]})


def test_a_record_list_on_spark_reads_what_a_local_list_run_reads(
        spark, s3_server, crawl_bucket: str, tmp_path: Path) -> None:
    """Each task carries its records to the executor: the same rows as the local runner's,
    the list's bad rows included."""
    import pyarrow as pa

    from pipeline.runners.spark import spark_executor

    session, _ = spark
    sample = Path(__file__).parent.parent / "data" / "sample"
    names = ["data/sample/sample-main.warc.gz", "data/sample/sample-transport.warc",
             "corpus/warc-samples/pywb/iana.warc.gz", "no/such.warc.gz", None]
    offsets = [1267, 0, 334, 0, 5]
    lengths = [3643, 1, 2258, 10, 10]
    pq.write_table(pa.table({"warc_filename": names, "warc_record_offset": offsets,
                             "warc_record_length": lengths}), tmp_path / "list.parquet")
    rules = load_rules(sample / "rules.toml")
    got = {}
    for name, executor in (("spark", spark_executor(session)), ("local", None)):
        out = str(tmp_path / name)
        summary = run([], out, rules, run_id="l", records_from=[str(tmp_path / "list.parquet")],
                      input_base=f"{crawl_bucket}/", executor=executor, workers=1)
        assert summary.invariant_ok, summary.problems
        assert (summary.seen, summary.written) == (5, 2)
        got[name] = table_rows(Storage(), out, "l")
    for table in ("records", "links", "errors"):
        assert got["spark"][table] == got["local"][table], table
