"""The audits over many parts: each part is read once, into DuckDB's tables, whatever the
number of queries; DuckDB holds at most the memory limit the code sets; a table with no part
and a table whose parts differ in columns read as they should. The run of 100,050 tasks is
measured by ``bench/audit_bench.py`` (docs/audit.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from pipeline import audit
from tests.cli_helpers import redecode
from tests.crawl_builder import write_warc
from tests.fixtures.audit import build
from tests.many_parts import spread

REDECODE = str(Path(sys.executable).with_name("redecode"))
#: Ranks of the run the memory test audits (3 part files each).
RANKS = 1_000
#: The audit's peak RSS must stay under this: the interpreter, pyarrow and DuckDB loaded take
#: about 200 MB, the audit about 240 MB in all; views that read every part with
#: union_by_name, bound again by every query, take 1.4 GB on this run.
PEAK_RSS_MB = 600
# The peak RSS of one child process, measured by a process of its own (whose only child it is).
_PEAK_RSS = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024, file=sys.stderr)
sys.exit(done.returncode)
"""


def real_run(tmp_path: Path, run_id: str, pages: int = 5) -> Path:
    """A finished ``redecode run`` of one WARC file of ``pages`` pages, in ``tmp_path/out``."""
    crawl = tmp_path / "crawl"
    crawl.mkdir(exist_ok=True)
    write_warc(crawl / "f000000.warc.gz", pages, seed=run_id)
    out = tmp_path / "out"
    done = redecode("run", str(crawl), "--out", str(out), "--run-id", run_id, "-w", "1", "-q")
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of :data:`RANKS` committed tasks (rank 0's parts hard-linked to all)."""
    out = real_run(tmp_path_factory.mktemp("many"), "many")
    spread(out, "many", RANKS, distinct=False)
    return out


def test_an_audit_of_many_parts_stays_within_its_memory(many: Path) -> None:
    # every check but the record keys' (the parts are one part linked a thousand times)
    checks = [arg for name in audit.check_names() if name != "check_record_key_unique"
              for arg in ("--check", name)]
    done = subprocess.run(
        [sys.executable, "-c", _PEAK_RSS, REDECODE, "audit", "--out", str(many), "--format",
         "json", "--memory-limit", "64MB", *checks],
        capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["gates"]["records"] == 5 * RANKS and result["failed_checks"] == []
    peak_mb = int(done.stderr.strip().splitlines()[-1])
    # (the sanitizer build's allocator adds shadow memory, redzones and a quarantine to every
    # block: its resident size measures the sanitizer, the audit above still runs under it)
    if "libasan" not in os.environ.get("LD_PRELOAD", ""):
        assert peak_mb < PEAK_RSS_MB, peak_mb


def test_the_audits_read_each_part_once_when_connecting(tmp_path: Path) -> None:
    out = real_run(tmp_path, "once")
    spread(out, "once", 3)
    con = audit.connect(out)
    names = [name for name in audit.sql_files() if name.startswith(("audit_", "check_"))]
    before = {name: audit.query(con, name).rows for name in names}
    assert before["audit_gates"][0][1] == 15  # the records of the three ranks
    for table in ("records", "links", "errors"):  # (a table without a row has no part)
        for part in (out / table / "run_id=once").glob("*.parquet"):
            part.unlink()
    # every audit and check still answers the same: the parts were read when connecting
    assert {name: audit.query(con, name).rows for name in names} == before


def test_connect_sets_the_memory_limit_and_a_temporary_folder_of_its_own(tmp_path: Path) -> None:
    build.clean_run(tmp_path)
    con = audit.connect(tmp_path, memory_limit="100MB")
    limit, folder = con.execute("select current_setting('memory_limit'), "
                                "current_setting('temp_directory')").fetchone() or (None, None)
    assert limit == "95.3 MiB"  # 100 MB as DuckDB prints it
    assert os.path.dirname(folder) == tempfile.gettempdir()
    assert con.execute("select current_setting('preserve_insertion_order')").fetchone() == (False,)
    with pytest.raises(ValueError, match="memory limit 'lots' refused"):
        audit.connect(tmp_path, memory_limit="lots")
    refused = redecode("audit", "--out", str(tmp_path), "--memory-limit", "lots")
    assert refused.returncode == 2 and "error: --memory-limit: memory limit 'lots'" \
        in refused.stderr, refused.stderr


def test_a_table_with_no_part_at_all_reads_as_empty(tmp_path: Path) -> None:
    out = real_run(tmp_path, "noerrors")
    spread(out, "noerrors", 3)
    # a run that wrote no error has no errors part at all
    assert not list((out / "errors").glob("run_id=noerrors/*.parquet"))
    parts = audit.find_parts(out)
    assert parts.files["errors"] == () and parts.layouts["errors"] == ()
    assert audit.file_variables(parts).keys() == {"redecode_parts_records_0",
                                                  "redecode_parts_links_0",
                                                  "redecode_parts_runs_0"}
    done = redecode("audit", "--out", str(out), "--check", "all", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert {"records": 15, "errors": 0}.items() <= json.loads(done.stdout)["gates"].items()


def test_parts_of_two_column_layouts_read_as_one_table(tmp_path: Path) -> None:
    build.clean_run(tmp_path)
    folder = tmp_path / "records" / "run_id=clean"
    table = pq.read_table(folder / "part-00000.parquet")
    # a part written before content_charset was named so, beside one written after
    old = table.rename_columns(["crawler_charset" if name == "content_charset" else name
                                for name in table.column_names])
    old = old.set_column(old.column_names.index("crawler_charset"), "crawler_charset",
                         pa.array(["KOI8-R"] * old.num_rows))
    pq.write_table(old.drop_columns(["title"]), folder / "part-00001.parquet")
    parts = audit.find_parts(tmp_path)
    assert [len(group) for group in parts.layouts["records"]] == [1, 1]
    con = audit.connect(parts)
    counts = dict(con.execute("select content_charset is not distinct from 'KOI8-R', count(*) "
                              "from records group by all").fetchall())
    assert counts == {True: old.num_rows, False: table.num_rows}
    assert con.execute("select count(*) from records where title is null").fetchone() \
        == (old.num_rows + table.filter(pc.is_null(table["title"])).num_rows,)
