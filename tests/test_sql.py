"""Every sql/ file runs on crafted runs; check_ files return no rows on good data and catch
broken data; sql/views.sql is the generated text; the files keep the dbt style rules."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline import audit
from tests.fixtures.audit import build

SQL_FILES = sorted(audit.sql_files())
SCENARIOS = ("clean_run", "fffd_spike_run", "mojibake_run", "error_run", "rules_change_runs")


@pytest.fixture(scope="module")
def outs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("sql")
    built = {}
    for scenario in SCENARIOS:
        getattr(build, scenario)(root / scenario)
        built[scenario] = root / scenario
    return built


def test_sql_folder_holds_every_kind_of_query() -> None:
    prefixes = {name.split("_", 1)[0] for name in SQL_FILES}
    assert prefixes == {"stg", "int", "audit", "check"}
    assert len([name for name in SQL_FILES if name.startswith("check_")]) >= 3


@pytest.fixture(scope="module")
def cons(outs: dict[str, Path]) -> dict[str, duckdb.DuckDBPyConnection]:
    return {scenario: audit.connect(out) for scenario, out in outs.items()}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_sql_file_runs(cons: dict[str, duckdb.DuckDBPyConnection], scenario: str) -> None:
    con = cons[scenario]
    for name in SQL_FILES:
        result = audit.query(con, name)
        assert result.columns, name


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_check_queries_return_no_rows_on_consistent_runs(
    cons: dict[str, duckdb.DuckDBPyConnection], scenario: str
) -> None:
    con = cons[scenario]
    for name in (name for name in SQL_FILES if name.startswith("check_")):
        assert audit.query(con, name).rows == [], name


def test_checks_catch_broken_runs(tmp_path: Path) -> None:
    # a duplicated record, a record without encoding_source, and runs counts that don't add up
    records = build._records("broken")
    records.append(dict(records[0]))
    records[1]["encoding_source"] = None
    build.write_run(tmp_path, "broken", records, records_seen=999, invariant_ok=False)
    con = audit.connect(tmp_path)
    assert len(audit.query(con, "check_record_key_unique").rows) == 1
    assert len(audit.query(con, "check_decision_complete").rows) == 1
    assert len(audit.query(con, "check_accounting_invariant").rows) == 1


def test_records_without_a_runs_row_are_caught(tmp_path: Path) -> None:
    build.clean_run(tmp_path)
    for part in (tmp_path / "runs").rglob("*.parquet"):
        part.unlink()
    con = audit.connect(tmp_path)
    assert audit.query(con, "check_runs_known").rows == [("clean",)]


def test_fffd_spike_is_found_on_the_injected_host_and_day(cons: dict[str, duckdb.DuckDBPyConnection]) -> None:
    con = cons["fffd_spike_run"]
    spikes = audit.query(con, "audit_fffd_spikes").as_dicts()
    assert [(row["url_host_name"], str(row["fetch_day"])) for row in spikes] == [
        ("news.example.jp", "2026-11-02")
    ]
    assert spikes[0]["baseline_kind"] == "host-other-days"  # its own other day, share 0


def test_no_spike_on_the_clean_run(cons: dict[str, duckdb.DuckDBPyConnection]) -> None:
    con = cons["clean_run"]
    assert audit.query(con, "audit_fffd_spikes").rows == []


def test_a_host_that_always_has_fffd_is_not_a_spike_against_itself(tmp_path: Path) -> None:
    # every day of the host has the same U+FFFD share: its own baseline matches, no spike
    records = build._records("steady")
    for record in records:
        if record["url_host_name"] == "shop.example.de":
            record["replacement_chars"] = 5
    build.write_run(tmp_path, "steady", records)
    con = audit.connect(tmp_path)
    assert audit.query(con, "audit_fffd_spikes").rows == []


def test_single_day_host_is_compared_with_the_other_hosts(tmp_path: Path) -> None:
    records = [record for record in build._records("oneday")
               if record["fetch_time"].day == 1]
    for record in records:
        if record["url_host_name"] == "blog.example.ru":
            record["replacement_chars"] = 9
    build.write_run(tmp_path, "oneday", records)
    con = audit.connect(tmp_path)
    spikes = audit.query(con, "audit_fffd_spikes").as_dicts()
    assert [row["url_host_name"] for row in spikes] == ["blog.example.ru"]
    assert spikes[0]["baseline_kind"] == "other-hosts"


def _nightly_runs(out: Path, nights: int, fffd: dict[tuple[str, int], int]) -> None:
    """One run a night, each holding the pages fetched that night (fetch day = night);
    ``fffd[(host, night)]`` puts that many U+FFFD on every page of the host that night."""
    for night in range(1, nights + 1):
        run_id = f"night-{night}"
        day = datetime(2026, 11, night, 8, tzinfo=UTC)
        records = []
        for host in build.HOSTS:
            for index in range(build.PAGES_PER_HOST_DAY):
                record = build._record(run_id, host, day, index)
                record["replacement_chars"] = fffd.get((host, night), 0)
                records.append(record)
        build.write_run(out, run_id, records, started_at=day + timedelta(hours=1))


def test_a_host_steady_over_the_nights_is_not_a_spike(tmp_path: Path) -> None:
    # blog.example.ru has U+FFFD every night: against its earlier nights the last one is
    # no spike (against the other hosts of that night alone it would be one)
    _nightly_runs(tmp_path, 3, {("blog.example.ru", n): 5 for n in (1, 2, 3)})
    con = audit.connect(tmp_path)
    assert audit.query(con, "audit_fffd_spikes").rows == []


def test_a_host_spikes_against_its_own_earlier_nights(tmp_path: Path) -> None:
    _nightly_runs(tmp_path, 3, {("news.example.jp", 3): 7})
    con = audit.connect(tmp_path)
    spikes = audit.query(con, "audit_fffd_spikes").as_dicts()
    assert [(row["run_id"], row["url_host_name"], str(row["fetch_day"])) for row in spikes] == [
        ("night-3", "news.example.jp", "2026-11-03")]
    assert spikes[0]["baseline_kind"] == "host-earlier-nights"
    assert (spikes[0]["baseline_runs"], spikes[0]["baseline_rate"]) == (2, 0)


def test_later_nights_are_not_the_baseline_of_an_earlier_one(tmp_path: Path) -> None:
    # night 1 selected: its host-day has only later nights, which are not its past
    _nightly_runs(tmp_path, 3, {("news.example.jp", 1): 7})
    con = audit.connect(tmp_path, run="night-1")
    spikes = audit.query(con, "audit_fffd_spikes").as_dicts()
    assert [(row["url_host_name"], row["baseline_kind"]) for row in spikes] == [
        ("news.example.jp", "other-hosts")]


def test_a_re_decoded_night_counts_once_in_the_baseline(tmp_path: Path) -> None:
    # night 2 decoded twice (a rules change): the newer run's figures stand for that night
    _nightly_runs(tmp_path, 3, {("news.example.jp", 2): 7, ("news.example.jp", 3): 7})
    day = datetime(2026, 11, 2, 8, tzinfo=UTC)
    redone = [build._record("night-2-redo", host, day, index)
              for host in build.HOSTS for index in range(build.PAGES_PER_HOST_DAY)]
    build.write_run(tmp_path, "night-2-redo", redone, started_at=datetime(2026, 11, 4, tzinfo=UTC))
    con = audit.connect(tmp_path, run="night-3")
    spikes = audit.query(con, "audit_fffd_spikes").as_dicts()
    # baseline: night 1 (clean) and night 2 as re-decoded (clean): the spike stands
    assert [(row["url_host_name"], row["baseline_rate"], row["baseline_runs"]) for row in spikes] \
        == [("news.example.jp", 0, 2)]


def test_mojibake_candidates_use_the_one_threshold(cons: dict[str, duckdb.DuckDBPyConnection]) -> None:
    con = cons["mojibake_run"]
    candidates = audit.query(con, "audit_mojibake_candidates").as_dicts()
    assert {row["url_host_name"] for row in candidates} == {"blog.example.ru"}
    assert len(candidates) == 12
    threshold = con.execute("select redecode_mojibake_threshold()").fetchone()
    assert threshold == (audit.MOJIBAKE_THRESHOLD,)


def test_encoding_mix_per_tld_counts_the_survey_columns(cons: dict[str, duckdb.DuckDBPyConnection]) -> None:
    con = cons["clean_run"]
    mix = {row["url_host_tld"]: row for row in
           audit.query(con, "audit_encoding_mix_by_tld").as_dicts()}
    assert (mix["de"]["pages"], mix["de"]["non_utf8_pages"], mix["de"]["naive_garbled_pages"]) \
        == (12, 0, 12)
    assert (mix["jp"]["non_utf8_pages"], mix["jp"]["naive_garbled_pages"]) == (12, 0)


def test_decision_changes_between_two_runs(outs: dict[str, Path]) -> None:
    con = audit.connect(outs["rules_change_runs"], run_a="before", run_b="after")
    summary = audit.query(con, "audit_run_diff_summary").as_dicts()[0]
    assert (summary["decisions_changed"], summary["fffd_down"], summary["fffd_up"]) == (12, 12, 0)
    changes = audit.query(con, "audit_decision_changes").as_dicts()
    assert {(row["encoding_a"], row["encoding_b"], row["source_b"]) for row in changes} == {
        ("windows-1252", "Shift_JIS", "rule")
    }


def test_run_selection_defaults_to_the_newest_and_can_be_bound(outs: dict[str, Path]) -> None:
    out = outs["rules_change_runs"]
    assert audit.gate_values(audit.connect(out))["run_id"] == "after"
    assert audit.gate_values(audit.connect(out, run="before"))["run_id"] == "before"


def test_a_hostile_run_id_is_bound_not_interpolated(outs: dict[str, Path]) -> None:
    con = audit.connect(outs["clean_run"], run="x'; drop view records; --")
    assert audit.gate_values(con)["records"] == 0
    assert audit.query(con, "records").rows  # the view is still there


def test_empty_folder_gives_empty_typed_views(tmp_path: Path) -> None:
    con = audit.connect(tmp_path)
    gates = audit.gate_values(con)
    assert gates["records"] == 0 and gates["errors"] == 0


def test_views_sql_is_generated_text() -> None:
    # run `python -m pipeline.audit` after changing sql/, schema.py or the threshold
    assert audit.VIEWS_SQL.read_text(encoding="utf-8") == audit.render_views_sql()


def test_views_sql_lines_are_short() -> None:
    lines = audit.VIEWS_SQL.read_text(encoding="utf-8").splitlines()
    assert [line for line in lines if len(line) > 80] == []


def test_views_sql_runs_as_the_duckdb_cli_reads_it(outs: dict[str, Path]) -> None:
    # what `duckdb -c "set variable redecode_out = '...'" -c ".read sql/views.sql"` does
    con = duckdb.connect()
    con.execute("set variable redecode_out = ?", [str(outs["fffd_spike_run"])])
    con.execute(audit.VIEWS_SQL.read_text(encoding="utf-8"))
    rows = con.execute("select url_host_name from audit_fffd_spikes limit 20").fetchall()
    assert rows == [("news.example.jp",)]


def test_views_sql_defaults_the_output_folder_to_out() -> None:
    con = duckdb.connect()
    con.execute(audit.render_views_sql(audit.Parts(out="")))
    assert con.execute("select redecode_out()").fetchone() == ("out",)
    con.execute("set variable redecode_out = 'elsewhere'")
    assert con.execute("select redecode_out()").fetchone() == ("elsewhere",)


@pytest.mark.parametrize("name", SQL_FILES)
def test_sql_file_follows_dbt_style(name: str) -> None:
    text = (audit.SQL_DIR / f"{name}.sql").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines), "lines of 80 characters at most"
    assert lines[0].startswith(f"-- {name}:"), "first line says what the file computes"
    assert re.search(r"^with\n", text, re.M), "import CTEs first"
    assert text.rstrip().endswith("select * from final"), "ends with select * from final"
    code = "\n".join(line.split("--")[0] for line in lines)
    code = re.sub(r"'[^']*'", "''", code)
    assert not re.search(r"\b(SELECT|FROM|WHERE|JOIN|GROUP BY|ORDER BY|WITH|AS)\b", code), \
        "lowercase keywords"
    assert not re.search(r"\b(?:from|join)\s+\w+\s+(?:as\s+)?[a-z]\b(?!\w)", code), \
        "no single-letter aliases"
    assert not re.search(r"\n\s*,", code), "trailing commas, not leading"
    assert "read_parquet" not in code, "SQL never names a file: views come from audit.py"


def test_run_id_column_in_files_and_in_the_hive_path_agree_even_when_numeric(
    tmp_path: Path,
) -> None:
    # run_id is both a column inside each part and the run_id=... folder; a numeric-looking
    # id must stay a varchar (hive_types), not be auto-cast to an integer
    build.write_run(tmp_path, "20261130", build._records("20261130"))
    con = audit.connect(tmp_path)
    assert audit.gate_values(con)["run_id"] == "20261130"
    assert con.execute("select distinct typeof(run_id) from records").fetchall() == [("VARCHAR",)]


# --- the real sample crawl, decoded by the real runner ---------------------------------------

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample"


@pytest.fixture(scope="module")
def sample_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """data/sample/ decoded twice: plain, then with data/sample/rules.toml."""
    out = tmp_path_factory.mktemp("sample") / "out"
    for extra in ([], ["--rules", str(SAMPLE / "rules.toml")]):
        completed = subprocess.run(
            [sys.executable, "-m", "pipeline", "run", str(SAMPLE), "--out", str(out), *extra],
            capture_output=True, text=True, timeout=300, check=False,
        )
        assert completed.returncode == 0, completed.stderr[-3000:]
    return out


def test_every_sql_file_runs_on_the_sample_and_checks_are_empty(sample_out: Path) -> None:
    con = audit.connect(sample_out)
    assert len(audit.run_ids(con)) == 2
    assert audit.gate_values(con)["records"] > 0
    for name in SQL_FILES:
        result = audit.query(con, name)
        if name.startswith("check_"):
            assert result.rows == [], name


def test_rules_file_changes_decisions_on_the_sample(sample_out: Path) -> None:
    newest_first = audit.run_ids(audit.connect(sample_out))
    con = audit.connect(sample_out, run_a=newest_first[1], run_b=newest_first[0])
    changes = audit.query(con, "audit_decision_changes").as_dicts()
    changed = {row["url_host_name"]: row for row in changes if row["is_decision_changed"]}
    # rules.toml forces windows-1251 under mislabeled.example.com/ru/ (the header lies)
    assert changed["mislabeled.example.com"]["encoding_b"] == "windows-1251"
    assert changed["mislabeled.example.com"]["source_b"] == "rule"


def test_audit_gates_pass_on_the_clean_sample(sample_out: Path) -> None:
    from typer.testing import CliRunner

    from pipeline.cli_audit import app

    result = CliRunner().invoke(app, [
        "audit", "--out", str(sample_out), "--fail-on", "fffd_spike_hosts>0",
        "--fail-on", "errors>100", "--fail-on", "mojibake_rate>0.5",
    ])
    assert result.exit_code == 0, result.output


# --- views.sql from the duckdb CLI, as the README says -----------------------------------------

DUCKDB = Path(sys.executable).parent / "duckdb"
ROOT = Path(__file__).resolve().parent.parent


def _readme_duckdb_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## The day's commands", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.startswith(("duckdb ", "redecode sql "))]


def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=f"{DUCKDB.parent}{os.pathsep}{os.environ['PATH']}")
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def test_the_readme_duckdb_commands_run_as_written(sample_out: Path, tmp_path: Path) -> None:
    # a checkout after `make redecode`: out/ beside sql/
    (tmp_path / "sql").symlink_to(ROOT / "sql")
    (tmp_path / "out").symlink_to(sample_out)
    commands = _readme_duckdb_commands()
    assert len(commands) >= 3
    for command in commands:
        result = _shell(command, tmp_path)
        assert result.returncode == 0 and not result.stderr, (command, result.stderr)
        assert result.stdout.strip(), command


def test_views_sql_works_in_a_database_file_in_later_sessions(sample_out: Path,
                                                              tmp_path: Path) -> None:
    (tmp_path / "sql").symlink_to(ROOT / "sql")
    (tmp_path / "out").symlink_to(sample_out)
    database = tmp_path / "audit.duckdb"
    first = subprocess.run([str(DUCKDB), str(database), "-c", ".read sql/views.sql"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert first.returncode == 0, first.stderr
    for query in ("select records from audit_gates", "select count(*) from records"):
        later = subprocess.run([str(DUCKDB), str(database), "-csv", "-noheader", "-c", query],
                               cwd=tmp_path, capture_output=True, text=True, timeout=120,
                               check=False)
        assert later.returncode == 0, later.stderr  # once: "cannot take NULL list"
        assert int(later.stdout.strip()) > 0
    # a setting still comes from the session when it is set there
    stricter = subprocess.run(
        [str(DUCKDB), str(database), "-csv", "-noheader", "-c",
         "set variable redecode_mojibake_threshold = 2.0", "-c",
         "select count(*) from audit_mojibake_candidates"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert stricter.stdout.strip() == "0", stricter.stderr


def test_parts_written_before_a_column_rename_read_under_the_new_name(tmp_path: Path) -> None:
    build.clean_run(tmp_path)
    part = tmp_path / "records" / "run_id=clean" / "part-00000.parquet"
    table = pq.read_table(part)
    old_names = ["crawler_charset" if name == "content_charset" else name
                 for name in table.column_names]
    values = pa.array(["UTF-8"] * table.num_rows)
    index = old_names.index("crawler_charset")
    pq.write_table(table.rename_columns(old_names).set_column(index, "crawler_charset", values),
                   part)
    con = audit.connect(tmp_path)
    assert con.execute("select distinct content_charset from records").fetchall() == [("UTF-8",)]
    assert "crawler_charset" not in [row[0] for row in con.execute("describe records").fetchall()]


def test_every_package_is_listed_for_the_wheel() -> None:
    # pyproject lists packages (pipeline.sql maps to sql/): a new package must be added there
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = {".".join(path.parent.relative_to(ROOT).parts)
             for path in (ROOT / "pipeline").rglob("__init__.py")}
    assert listed == found | {"pipeline.sql"}
    assert (ROOT / "sql" / "__init__.py").exists()


def test_redecode_sql_keeps_the_output_folder_absolute_in_a_database_file(
    sample_out: Path, tmp_path: Path,
) -> None:
    # The views printed by the installed package read --out as an absolute path: a database
    # file made in one directory reads the same folder from any other.
    made, elsewhere = tmp_path / "made", tmp_path / "elsewhere"
    made.mkdir()
    elsewhere.mkdir()
    (made / "out").symlink_to(sample_out)
    database = tmp_path / "audit.duckdb"
    created = _shell(f"redecode sql --out out/ | duckdb {database}", made)
    assert created.returncode == 0 and not created.stderr, created.stderr
    ((expected,),) = duckdb.execute(
        "select count(*) from read_parquet(?)",
        [[str(p) for p in sorted((sample_out / "records").glob("*/*.parquet"))]]).fetchall()
    later = _shell(f"duckdb {database} -csv -noheader -c 'select count(*) from records'",
                   elsewhere)
    assert later.returncode == 0, later.stderr
    assert int(later.stdout.strip()) == expected > 0


def test_the_printed_views_read_a_run_that_wrote_no_errors_part(tmp_path: Path) -> None:
    # a run writes no part of a table it has no row of: `redecode sql` prints views that
    # still read (read_parquet refuses a glob that matches nothing)
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    sample = Path(__file__).resolve().parents[1] / "data" / "sample" / "sample-main.warc.gz"
    (crawl / sample.name).write_bytes(sample.read_bytes())
    redecode = str(Path(sys.executable).with_name("redecode"))
    out = tmp_path / "out"
    done = subprocess.run([redecode, "run", str(crawl), "--out", str(out), "-q"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert not list(out.glob("errors/*/*.parquet")) and list(out.glob("records/*/*.parquet"))
    views = subprocess.run([redecode, "sql", "--out", str(out)], capture_output=True,
                           text=True, check=True).stdout
    con = duckdb.connect()
    con.execute(views)
    assert con.execute("select count(*) from errors").fetchall() == [(0,)]
    assert con.execute("select count(*) from records").fetchall()[0][0] > 0
