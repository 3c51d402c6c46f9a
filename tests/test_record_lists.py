"""`redecode run LIST`: a record list (a Common Crawl columnar-index query's result, or
redecode's own locators) reads only the records it names, by their byte ranges; its rows
equal a whole-file run's restricted to those records, on the WARC samples corpus and the
sample crawl, locally, on S3 (the loopback moto server) and over https."""

from __future__ import annotations

import csv
import json
import os
from collections import Counter
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.rules import load_rules
from pipeline.runners.local import run
from pipeline.runners.rundir import RunRefused
from pipeline.sources import iter_records
from pipeline.sources.record import RawRecord
from pipeline.storage import Storage
from tests.cli_helpers import no_traceback, redecode, runs_row
from tests.httpserver import serve
from tests.run_tables import table_rows

#: a record's key in every table: where it is
Key = tuple[str, int, int]


def rows(out: Path, table: str, run_id: str) -> list[tuple]:
    """Every row of a run's table but its run_id, sorted (a table without a row has no
    part)."""
    files = [str(f) for f in sorted((out / table / f"run_id={run_id}").glob("*.parquet"))]
    if not files:
        return []
    relation = duckdb.sql(f"select * exclude (run_id) from read_parquet({files!r})")
    return sorted(relation.fetchall(), key=repr)


def restricted(out: Path, run_id: str, keys: set[Key]) -> dict[str, list[tuple]]:
    """The whole-file run's rows of the records ``keys`` names (records and errors by their
    locator, links by their record's id)."""
    got: dict[str, list[tuple]] = {}
    for table in ("records", "errors"):
        files = [str(f) for f in sorted((out / table / f"run_id={run_id}").glob("*.parquet"))]
        if not files:  # (a table without a row has no part)
            got[table] = []
            continue
        relation = duckdb.sql(f"select * exclude (run_id) from read_parquet({files!r})")
        names = relation.columns
        at = [names.index(c) for c in ("warc_filename", "warc_record_offset",
                                       "warc_record_offset_in_member")]
        got[table] = sorted((r for r in relation.fetchall()
                             if (r[at[0]], r[at[1]], -1 if r[at[2]] is None else r[at[2]]) in keys),
                            key=repr)
    # a record id can be in several files (the corpus holds the same records as .warc.gz and
    # .warc.lz4): its links come once per copy, each copy's the same
    copies = Counter(r[0] for r in rows(out, "records", run_id))
    chosen = Counter(r[0] for r in got["records"])
    links = Counter(r for r in rows(out, "links", run_id) if r[0] in chosen)
    got["links"] = sorted((link for link, n in links.items()
                           for _ in range(n // copies[link[0]] * chosen[link[0]])), key=repr)
    return got


@pytest.fixture(scope="module")
def whole(sample_crawl: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A whole-file run of the WARC samples and the sample crawl, and every record its
    files hold (read by the reader, skipped ones too) by its name under the input root."""
    out = tmp_path_factory.mktemp("lists") / "out"
    roots = [str(p) for p in sample_crawl]
    rules = load_rules(sample_crawl[1] / "rules.toml")
    summary = run(roots, out, rules, workers=1, run_id="whole")
    assert summary.invariant_ok, summary.problems
    root = runs_row(out, "whole")["input_root"]
    located: list[tuple[str, RawRecord]] = []
    for name in runs_row(out, "whole")["config"]["inputs"]:
        relative = os.path.relpath(name, root)
        located += [(relative, r) for r in iter_records(name, max_block=rules.max_decompressed)
                    if isinstance(r, RawRecord)]
    return {"out": out, "root": root, "records": located, "rules": sample_crawl[1] / "rules.toml"}


def locator_table(chosen: list[tuple[str, RawRecord]], *, in_member: bool = True) -> pa.Table:
    columns = {
        "warc_filename": [name for name, _ in chosen],
        "warc_record_offset": pa.array([r.warc_record_offset for _, r in chosen], pa.int64()),
        "warc_record_length": pa.array([r.warc_record_length for _, r in chosen], pa.int64()),
    }
    if in_member:
        columns["warc_record_offset_in_member"] = pa.array(
            [r.offset_in_member for _, r in chosen], pa.int64())
    return pa.table(columns)


def keys_of(chosen: list[tuple[str, RawRecord]]) -> set[Key]:
    return {(name, r.warc_record_offset, -1 if r.offset_in_member is None else r.offset_in_member)
            for name, r in chosen}


def test_a_list_run_equals_the_whole_file_run_restricted_to_its_records(whole, tmp_path: Path
                                                                        ) -> None:
    chosen = [item for i, item in enumerate(whole["records"]) if i % 3 != 1]
    assert len({name for name, _ in chosen}) > 40  # every file of the corpus and the sample
    listed = locator_table([*chosen, chosen[5]])  # a record listed twice is read once
    pq.write_table(listed, tmp_path / "locators.parquet")
    out = whole["out"]
    result = redecode("run", str(tmp_path / "locators.parquet"), "--input-base", whole["root"],
                      "--out", str(out), "--run-id", "list", "--rules", str(whole["rules"]),
                      "-q", "-w", "2")
    assert result.returncode == 0, result.stderr
    expected = restricted(out, "whole", keys_of(chosen))
    assert expected["records"] and expected["errors"] and expected["links"]
    for table in ("records", "links", "errors"):
        assert rows(out, table, "list") == expected[table], table
    row = runs_row(out, "list")
    assert row["records_seen"] == len(chosen)  # every row once: seen = written + skipped + errors
    assert row["records_seen"] == (row["records_written"] + row["records_skipped"]
                                   + row["errors"])
    assert sum(json.loads(row["skipped_by_reason"]).values()) == row["records_skipped"] > 0
    assert row["config"]["record_lists"][0]["rows"] == len(chosen) + 1
    assert "1 rows repeat a record listed before (read once)" in result.stderr


def test_a_common_crawl_index_csv_reads_the_records_of_per_record_gzip_files(
        whole, tmp_path: Path) -> None:
    """The index's three columns only (no offset in member: Common Crawl's files hold one
    gzip member per record), as a CSV with other columns, named with --records-from."""
    chosen = [(name, r) for name, r in whole["records"] if name.endswith(".warc.gz")
              and r.offset_in_member is None and r.record_type == "response"]
    with open(tmp_path / "query-result", "w", newline="") as fh:  # an Athena result's name
        writer = csv.writer(fh)
        writer.writerow(["url", "warc_filename", "warc_record_offset", "warc_record_length",
                         "fetch_status"])
        for name, r in chosen:
            writer.writerow([r.url, name, r.warc_record_offset, r.warc_record_length, 200])
    os.rename(tmp_path / "query-result", tmp_path / "query-result.csv")
    out = whole["out"]
    result = redecode("run", "--records-from", str(tmp_path / "query-result.csv"),
                      "--input-base", whole["root"], "--out", str(out), "--run-id", "csv",
                      "--rules", str(whole["rules"]), "-q", "-w", "1")
    assert result.returncode == 0, result.stderr
    expected = restricted(out, "whole", keys_of(chosen))
    assert len(expected["records"]) > 30
    for table in ("records", "links", "errors"):
        assert rows(out, table, "csv") == expected[table], table


def test_bad_rows_are_errors_rows_with_their_locator_and_the_run_goes_on(
        whole, tmp_path: Path) -> None:
    good = next((name, r) for name, r in whole["records"]
                if name.endswith("sample-main.warc.gz") and r.record_type == "response")
    name, record = good
    size = (Path(whole["root"]) / name).stat().st_size
    lines = [
        "warc_filename,warc_record_offset,warc_record_length",
        f"{name},{record.warc_record_offset},{record.warc_record_length}",
        "no/such/file.warc.gz,0,100",  # a missing file: the file is unreadable (exit 3)
        f"{name},{size + 10},100",  # past the end
        # not where a record starts: the reader's own error there, as a whole-file read has it
        f"{name},{record.warc_record_offset + 1},{record.warc_record_length}",
        f"{name},{record.warc_record_offset},{record.warc_record_length - 1}",  # not its length
        f"{name},,{record.warc_record_length}",  # null offset
        f"{name},{record.warc_record_offset}",  # a short row
    ]
    (tmp_path / "bad.csv").write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    result = redecode("run", str(tmp_path / "bad.csv"), "--input-base", whole["root"],
                      "--out", str(out), "--run-id", "bad", "-q", "-w", "1")
    assert result.returncode == 3, result.stderr
    assert no_traceback(result)
    missing = os.path.join(whole["root"], "no/such/file.warc.gz")
    assert f"unreadable: {missing}: source-unreadable-file" in result.stderr
    errors = duckdb.sql(
        "select warc_filename, warc_record_offset, warc_record_length, error_type from "
        f"read_parquet('{out}/errors/run_id=bad/*.parquet') where not is_partial "
        "order by all").fetchall()
    assert errors == sorted([
        ("no/such/file.warc.gz", 0, 100, "source-unreadable-file"),
        (name, size + 10, 100, "source-bad-locator"),
        (name, record.warc_record_offset + 1, None, "source-not-a-gzip-member"),
        (name, record.warc_record_offset, record.warc_record_length - 1, "source-bad-locator"),
        (name, None, record.warc_record_length, "source-bad-list-row"),
        (name, record.warc_record_offset, None, "source-bad-list-row"),
    ], key=lambda r: tuple((v is None, v) for v in r))
    assert "nothing to decode" not in result.stderr  # (a file whose listed record failed)
    requests = [r for n, r in whole["records"] if n == name and r.record_type == "request"]
    (tmp_path / "requests.csv").write_text("warc_filename,warc_record_offset,warc_record_length\n"
                                           + "".join(f"{name},{r.warc_record_offset},"
                                                     f"{r.warc_record_length}\n"
                                                     for r in requests))
    skipped = redecode("run", str(tmp_path / "requests.csv"), "--input-base", whole["root"],
                       "--out", str(out), "--run-id", "req", "-q", "-w", "1")
    assert skipped.returncode == 0 and requests, skipped.stderr
    assert "nothing to decode" not in skipped.stderr  # the list chose them
    assert json.loads(runs_row(out, "req")["skipped_by_reason"]) == {"request": len(requests)}
    row = runs_row(out, "bad")
    assert (row["records_seen"], row["records_written"], row["errors"]) == (7, 1, 6)


def test_a_list_that_cannot_be_one_is_refused_before_anything_is_written(
        whole, tmp_path: Path) -> None:
    (tmp_path / "cols.csv").write_text("warc_filename,offset,length\na.warc.gz,0,1\n")
    pq.write_table(pa.table({"warc_filename": ["a"], "warc_record_offset": [0.5],
                             "warc_record_length": [1]}), tmp_path / "float.parquet")
    out = tmp_path / "out"
    for args, said in (
        ([str(tmp_path / "cols.csv")], "it lacks warc_record_offset, warc_record_length"),
        (["--records-from", str(tmp_path / "float.parquet")],
         "column warc_record_offset is double, not an integer"),
        (["--records-from", whole["rules"].as_posix()], "not a Parquet file or a CSV file"),
    ):
        result = redecode("run", *args, "--out", str(out), "-q")
        assert result.returncode == 2 and no_traceback(result), result.stderr
        assert said in result.stderr
        assert not out.exists()
    # a file both named and listed would be read twice
    sample = Path(whole["root"]) / whole["records"][-1][0]
    (tmp_path / "one.csv").write_text(
        f"warc_filename,warc_record_offset,warc_record_length\n{sample},0,10\n")
    both = redecode("run", os.path.relpath(sample), str(tmp_path / "one.csv"), "--out",
                    str(out), "-q")
    assert both.returncode == 2 and "both an input and named by a record list" in both.stderr
    (tmp_path / "empty.csv").write_text("warc_filename,warc_record_offset,warc_record_length\n")
    empty = redecode("run", str(tmp_path / "empty.csv"), "--out", str(out), "-q")
    assert empty.returncode == 2 and "the record lists hold no rows" in empty.stderr
    assert not out.exists()


def test_resume_needs_the_same_records(whole, tmp_path: Path) -> None:
    chosen = whole["records"][:20]
    pq.write_table(locator_table(chosen), tmp_path / "a.parquet")
    out = tmp_path / "out"
    common = ["--input-base", whole["root"], "--out", str(out), "-q", "--run-id", "r", "-w", "1"]
    first = redecode("run", str(tmp_path / "a.parquet"), *common)
    assert first.returncode == 0, first.stderr
    again = redecode("run", str(tmp_path / "a.parquet"), *common, "--resume")
    assert again.returncode == 0 and "nothing to do" in again.stderr
    pq.write_table(locator_table(chosen[:19]), tmp_path / "a.parquet")  # other records
    other = redecode("run", str(tmp_path / "a.parquet"), *common, "--resume")
    assert other.returncode == 2 and "other record lists" in other.stderr


def test_a_list_on_s3_reads_its_records_from_s3(s3_env, crawl_bucket: str, whole,
                                                sample_crawl: tuple[Path, Path],
                                                tmp_path: Path) -> None:
    server, bucket = s3_env
    # per-record gzip, LZ4 and a plain file, and the sample crawl's own
    files = ("pywb/iana.warc.gz", "resiliparse/warcfile.warc.lz4", "pywb/example-extra.warc",
             "data/sample/sample-main.warc.gz")
    chosen = [(name, r) for name, r in whole["records"]
              if r.record_type == "response" and name.endswith(files)][::2]

    def in_bucket(name: str) -> str:  # the bucket holds the two folders of the local crawl
        full = Path(whole["root"]) / name
        for folder, key in zip(sample_crawl, ("corpus/warc-samples", "data/sample"), strict=True):
            if folder in full.parents:
                return f"{key}/{full.relative_to(folder)}"
        raise AssertionError(name)

    pq.write_table(locator_table([(in_bucket(n), r) for n, r in chosen]), tmp_path / "l.parquet")
    server.client().upload_file(str(tmp_path / "l.parquet"), bucket.removeprefix("s3://"),
                                "lists/l.parquet")
    out = str(tmp_path / "from-s3")  # (what a run writes to S3: tests/test_remote_run.py)
    result = redecode("run", f"{bucket}/lists/l.parquet", "--input-base", f"{crawl_bucket}/",
                      "--out", out, "--run-id", "s3", "-q", "-w", "1", "--rules",
                      str(whole["rules"]))
    assert result.returncode == 0, result.stderr
    local = tmp_path / "local"
    pq.write_table(locator_table(chosen), tmp_path / "local.parquet")
    reference = redecode("run", str(tmp_path / "local.parquet"), "--input-base", whole["root"],
                         "--out", str(local), "--run-id", "ref", "-q", "-w", "1", "--rules",
                         str(whole["rules"]))
    assert reference.returncode == 0, reference.stderr
    got = table_rows(Storage(), out, "s3", f"{crawl_bucket}/corpus/warc-samples",
                     f"{crawl_bucket}/data/sample")
    want = table_rows(Storage(), str(local), "ref", *(str(p) for p in sample_crawl))
    for table in ("records", "links", "errors"):
        assert got[table] == want[table], table
    assert {json.loads(r)["warc_filename"].rpartition("/")[2] for r in got["records"]} == {
        f.rpartition("/")[2] for f in files}


def test_a_list_of_https_urls_reads_their_ranges(whole, sample_crawl: tuple[Path, Path],
                                                 tmp_path: Path) -> None:
    chosen = [(name, r) for name, r in whole["records"]
              if name.endswith("data/sample/sample-main.warc.gz")][1::2]
    with serve(sample_crawl[1], "t0k") as base:
        url = f"{base}/sample-main.warc.gz?token=t0k"
        pq.write_table(locator_table([(url, r) for _, r in chosen]), tmp_path / "h.parquet")
        out = tmp_path / "out"
        result = redecode("run", str(tmp_path / "h.parquet"), "--out", str(out), "--run-id",
                          "h", "-q", "--rules", str(whole["rules"]))
    assert result.returncode == 0, result.stderr
    assert "t0k" not in result.stderr
    expected = restricted(whole["out"], "whole", keys_of(chosen))
    got = rows(out, "records", "h")
    name_at = duckdb.sql(f"select * from read_parquet('{out}/records/run_id=h/*.parquet')"
                         ).columns.index("warc_filename") - 1
    assert {r[name_at] for r in got} == {"sample-main.warc.gz"}  # relative to the host's root
    strip = [r[:name_at] + r[name_at + 1:] for r in got]
    assert strip == [r[:name_at] + r[name_at + 1:] for r in expected["records"]]


def test_a_list_run_as_a_base_run_is_a_global_change(whole, tmp_path: Path) -> None:
    """A list run's rows of a file are some of the file's: a run of the whole file copies
    none of them."""
    out = tmp_path / "out"
    name = next(n for n, _ in whole["records"] if n.endswith("data/sample/sample-main.warc.gz"))
    chosen = [(n, r) for n, r in whole["records"] if n == name][:3]
    pq.write_table(locator_table(chosen), tmp_path / "few.parquet")
    first = redecode("run", str(tmp_path / "few.parquet"), "--input-base", whole["root"],
                     "--out", str(out), "--run-id", "few", "-q", "-w", "1")
    assert first.returncode == 0, first.stderr
    full = redecode("run", str(Path(whole["root"]) / name), "--input-base", whole["root"],
                    "--out", str(out), "--run-id", "all", "--base-run", "few", "-q")
    assert full.returncode == 0, full.stderr
    assert "the base run read record lists" in full.stderr
    assert runs_row(out, "all")["records_copied"] == 0
    assert runs_row(out, "all")["records_seen"] == sum(1 for n, _ in whole["records"] if n == name)


def test_records_from_a_query_s_output_folder_reads_its_part_files(whole, tmp_path: Path
                                                                   ) -> None:
    """An Athena or Spark query writes its result as part files in a folder, beside a
    ``_SUCCESS`` marker: ``--records-from FOLDER`` (or a glob) reads every part."""
    from pipeline.runners.plan import plan

    query = tmp_path / "query"
    query.mkdir()
    halves = whole["records"][:10], whole["records"][10:20]
    for n, half in enumerate(halves):
        pq.write_table(locator_table(half), query / f"20261207_{n:05d}_part")
    (query / "_SUCCESS").write_text("")
    rules = load_rules(None)
    for given in (str(query), str(query / "2026*")):
        planned = plan([], tmp_path / "out", rules, records_from=[given],
                       input_base=whole["root"])
        assert [e["path"] for e in planned.config["record_lists"]] == [
            str(query / "20261207_00000_part"), str(query / "20261207_00001_part")]
        assert sum(len(r) for r in planned.ranges.values()) == 20
    (query / "20261207_00000_part").unlink()
    (query / "20261207_00001_part").unlink()
    with pytest.raises(RunRefused, match="no file in it"):
        plan([], tmp_path / "out", rules, records_from=[str(query)])
