"""`redecode run --base-run R`: a rule change re-decodes only the records it can alter, and
the run's rows equal a full run's in every column but run_id (crawls of real text in every
container the locators read back: per-record gzip, whole-file gzip, plain WARC)."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import duckdb
import pytest

from tests.cli_helpers import no_traceback, redecode, runs_row
from tests.crawl_builder import http_response, write_records
from tests.host_crawl import LIE, crawl_pages, write_crawl

RULES_A = """
[extract]
max_parse_bytes = 32768

[[encoding.override]]
host = "{silent}"
encoding = "{silent_truth}"
mode = "fallback"
"""
RULES_B = RULES_A + """
[[encoding.override]]
host = "{liar}"
encoding = "{liar_truth}"
mode = "force"
"""


def rows(out: Path, table: str, run_id: str) -> list[tuple]:
    """Every row of a run's table but its run_id, sorted (a multiset to compare)."""
    files = [str(f) for f in sorted((out / table / f"run_id={run_id}").glob("*.parquet"))]
    relation = duckdb.sql(f"select * exclude (run_id) from read_parquet({files!r})")
    return sorted(relation.fetchall(), key=repr)


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Three copies of one crawl (per-record gzip, whole-file gzip, plain), two rules files
    that differ by one override, and a base run of each file under the first."""
    work = tmp_path_factory.mktemp("incremental")
    pages = crawl_pages(5, hosts_per_kind=6, pages_per_host=8, mixed_hosts=1)
    per_record = work / "crawl" / "per-record.warc.gz"
    per_record.parent.mkdir()
    write_crawl(per_record, pages, seed=5)
    plain = per_record.with_name("plain.warc")
    with gzip.open(per_record, "rb") as src, open(plain, "wb") as dst:
        shutil.copyfileobj(src, dst)  # a multi-member gzip reads as one stream
    with open(plain, "rb") as src, gzip.open(per_record.with_name("whole.warc.gz"), "wb") as dst:
        shutil.copyfileobj(src, dst)
    silent = next(p for p in pages if p.kind == "silent" and p.truth != "UTF-8")
    liar = next(p for p in pages if p.kind == "lies" and p.truth not in ("windows-1252", "UTF-8"))
    # pages over max_parse_bytes: written with a partial error row, one where the change
    # reaches (its row comes again) and one where it does not (its row is copied)
    big = [(host, p.body.replace(b"</body>", p.body * 40 + b"</body>"))
           for host, p in ((liar.host, next(q for q in pages if q.host == liar.host and q.long)),
                           (silent.host, next(q for q in pages if q.host == silent.host and q.long)))]
    write_records(per_record.with_name("big.warc.gz"), [
        ("response", f"http://{host}/big.html", http_response(body, content_type), {})
        for (host, body), content_type in zip(big, (LIE, "text/html"), strict=True)])
    names = {"silent": silent.host, "silent_truth": silent.truth, "liar": liar.host,
             "liar_truth": liar.truth}
    (work / "a.toml").write_text(RULES_A.format(**names))
    (work / "b.toml").write_text(RULES_B.format(**names))
    out = work / "out"
    result = redecode("run", str(per_record.parent), "--out", str(out), "--run-id", "A",
                      "--rules", str(work / "a.toml"), "-q", "-w", "1")
    assert result.returncode == 0, result.stderr
    liar_pages = sum(1 for p in pages if p.host == liar.host)
    assert all(len(body) > 32768 for _, body in big)
    return {"work": work, "out": out, "crawl": per_record.parent, "liar_pages": liar_pages,
            "pages": len(pages), "liar": liar.host, "liar_truth": liar.truth}


def test_a_local_change_decodes_only_what_it_can_alter_and_equals_a_full_run(crawl) -> None:
    work, out = crawl["work"], crawl["out"]
    common = [str(crawl["crawl"]), "--out", str(out), "--rules", str(work / "b.toml"), "-q",
              "-w", "1"]
    incremental = redecode("run", *common, "--run-id", "B", "--base-run", "A")
    assert incremental.returncode == 0, incremental.stderr
    full = redecode("run", *common, "--run-id", "B-full")
    assert full.returncode == 0, full.stderr
    for table in ("records", "links", "errors"):
        assert rows(out, table, "B") == rows(out, table, "B-full"), table
    row = runs_row(out, "B")
    # the liar's pages in each of the three files (and its big page) are decoded again; the
    # rest copied
    assert row["records_redecoded"] == 3 * crawl["liar_pages"] + 1
    assert row["records_copied"] == 3 * crawl["pages"] + 2 - row["records_redecoded"]
    partial = rows(out, "errors", "B")
    assert len(partial) == 2 and all(r[-1] for r in partial)  # both still written
    assert row["base_run"] == "A" and row["config"]["base_run"]["change"] == "local"
    assert row["config"]["base_run"]["reasons"] == [
        f"override added: host = {crawl['liar']}, encoding = {crawl['liar_truth']}, "
        "mode = force"]
    assert row["records_written"] == runs_row(out, "B-full")["records_written"]
    assert runs_row(out, "B-full")["records_copied"] == 0


def test_a_global_change_says_so_and_decodes_everything(crawl) -> None:
    work, out = crawl["work"], crawl["out"]
    result = redecode("run", str(crawl["crawl"]), "--out", str(out), "--run-id", "G",
                      "--rules", str(work / "a.toml"), "--policy", "repair", "-q", "-w", "1",
                      "--base-run", "A")
    assert result.returncode == 0, result.stderr
    assert "global change" in result.stderr and "encoding.policy" in result.stderr
    row = runs_row(out, "G")
    assert (row["records_copied"], row["records_redecoded"]) == (0, 0)
    assert row["config"]["base_run"]["change"] == "global"


def test_the_diff_of_the_two_runs_shows_the_rule_change(crawl) -> None:
    out = crawl["out"]
    result = redecode("diff", "--out", str(out), "A", "B", "--format", "json")
    assert result.returncode == 0, result.stderr
    diff = json.loads(result.stdout)
    assert diff["summary"]["decisions_changed"] > 0
    changed = diff["Decisions changed"]
    assert changed and all(crawl["liar"] in row["url"] for row in changed)


@pytest.mark.parametrize("base, reason", [("nope", "no such run"), ("A/B", "--run-id")])
def test_a_base_run_that_cannot_be_one_is_refused(crawl, tmp_path: Path, base: str,
                                                  reason: str) -> None:
    result = redecode("run", str(crawl["crawl"]), "--out", str(crawl["out"]), "--base-run", base,
                      "-q")
    assert result.returncode == 2 and no_traceback(result)
    assert reason in result.stderr


def test_a_local_change_over_groups_of_input_files_equals_a_full_run(crawl, tmp_path: Path) -> None:
    # eight files (two copies of the crawl), one worker: two files a task, whose
    # incremental task copies and reads again from each of its files
    grouped = tmp_path / "grouped"
    grouped.mkdir()
    for copy in range(2):
        for path in sorted(crawl["crawl"].iterdir()):
            shutil.copy(path, grouped / f"{copy}-{path.name}")
    work, out = crawl["work"], tmp_path / "out"
    common = [str(grouped), "--out", str(out), "-q", "-w", "1"]
    for run_id, rules, more in (("A", "a.toml", []), ("B", "b.toml", ["--base-run", "A"]),
                                ("B-full", "b.toml", [])):
        result = redecode("run", *common, "--rules", str(work / rules), "--run-id", run_id,
                          *more)
        assert result.returncode == 0, result.stderr
    stats = [json.loads(p.read_text()) for p in (out / "_runs" / "B" / "_stats").iterdir()]
    assert len(stats) == 4 and all(s["path"].endswith("(2 input files)") for s in stats)
    for table in ("records", "links", "errors"):
        assert rows(out, table, "B") == rows(out, table, "B-full"), table
    row = runs_row(out, "B")
    assert row["records_redecoded"] == 2 * (3 * crawl["liar_pages"] + 1)
    assert row["records_copied"] == 2 * (3 * crawl["pages"] + 2) - row["records_redecoded"]
