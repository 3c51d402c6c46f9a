"""`redecode audit | diff | report` as a user runs them: the installed console script in a
subprocess, on output folders a user can have (odd folder names, broken partitions, hostile
page text, real WARC samples)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.fixtures.audit import build

REDECODE = Path(sys.executable).parent / "redecode"
ROOT = Path(__file__).resolve().parent.parent
WARC_SAMPLES = ROOT.parent / "shared" / "corpus" / "warc-samples"


def redecode(*args: str | Path, columns: int = 80, **env: str) -> subprocess.CompletedProcess[str]:
    """The console script with ``args``, no terminal, ``COLUMNS`` wide."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR")}
    full_env |= {"COLUMNS": str(columns)} | env
    return subprocess.run([str(REDECODE), *map(str, args)], capture_output=True, text=True,
                          timeout=120, check=False, env=full_env)


def assert_one_line_error(result: subprocess.CompletedProcess[str], code: int, *names: str) -> None:
    assert result.returncode == code, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for name in names:
        assert name in lines[0], (name, lines[0])


def test_a_glob_character_in_out_reads_that_folder_only(tmp_path: Path) -> None:
    # DuckDB globs every path it is given: `g[1]` once matched the neighbour `g1`
    build.clean_run(tmp_path / "g1", "neighbour")
    build.clean_run(tmp_path / "g[1]", "mine")
    result = redecode("audit", "--out", tmp_path / "g[1]", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["run_id"] == "mine"
    assert json.loads(result.stdout)["gates"]["records"] == len(build._records("x"))
    for name in ("a*", "b?"):  # the other glob characters
        build.clean_run(tmp_path / name, "starred")
    build.clean_run(tmp_path / "ab", "plain")
    result = redecode("audit", "--out", tmp_path / "a*", "--format", "json")
    assert json.loads(result.stdout)["run_id"] == "starred"


def _break_partitions(out: Path) -> list[Path]:
    """Beside a good run, partitions DuckDB's hive reading chokes on, and a corrupt part."""
    good = out / "records" / "run_id=clean" / "part-00000.parquet"
    broken = []
    for name in ("run_id=a%2Fb", "run_id=x=y", "run_id=new\nline", "stray"):
        folder = out / "records" / name
        folder.mkdir()
        shutil.copy(good, folder / "part-00000.parquet")
        broken.append(folder)
    corrupt = out / "records" / "run_id=old" / "part-00000.parquet"
    corrupt.parent.mkdir()
    corrupt.write_bytes(good.read_bytes()[:300])
    broken.append(corrupt)
    return broken


def test_unreadable_partitions_are_reported_and_the_other_runs_audited(tmp_path: Path) -> None:
    build.clean_run(tmp_path)
    broken = _break_partitions(tmp_path)
    result = redecode("audit", "--out", tmp_path, "--fail-on", "errors>0")
    assert result.returncode == 0, result.stderr
    assert "Gates for run clean" in result.stdout
    reported = [line for line in result.stderr.splitlines() if line.startswith("unreadable: ")]
    assert len(reported) == len(broken), result.stderr
    assert "not a readable Parquet file" in result.stderr
    assert "new\\nline" in result.stderr  # the newline shown, not printed
    payload = json.loads(redecode("audit", "--out", tmp_path, "--format", "json").stdout)
    assert {Path(item["path"]).name for item in payload["unreadable"]} == {
        "run_id=a%2Fb", "run_id=x=y", "run_id=new\nline", "stray", "part-00000.parquet"}
    build.write_run(tmp_path, "later", build._records("later"), started_at=build.DAYS[1])
    assert redecode("diff", "--out", tmp_path, "clean", "later").returncode == 0
    report = redecode("report", "--out", tmp_path, "-o", tmp_path / "r.html")
    assert report.returncode == 0, report.stderr
    assert "Parts left out" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_an_unreadable_part_of_the_audited_run_exits_3(tmp_path: Path) -> None:
    build.clean_run(tmp_path)
    (tmp_path / "errors" / "run_id=clean" / "part-00001.parquet").write_bytes(b"PAR1 cut off")
    result = redecode("audit", "--out", tmp_path)
    assert result.returncode == 3, result.stderr
    assert "part-00001.parquet: not a readable Parquet file" in result.stderr
    assert "could not be read" in result.stderr.splitlines()[-1]


HOSTILE_TITLE = "[/] [link=http://evil.example/]click[/link] \x1b]8;;http://evil.example/\x07x"


def _hostile_out(out: Path) -> None:
    records = build._records("before")
    for record in records:
        record["title"] = HOSTILE_TITLE
        record["url"] = record["url"] + "?q=[bold]x[/bold]"
        record["warc_filename"] = "[red]input[/red].warc.gz"
        record["mojibake_score"] = 0.9  # every record is listed as a candidate
    build.write_run(out, "before", records)
    after = [dict(record, run_id="after", encoding="UTF-8", encoding_source="rule")
             for record in records]
    build.write_run(out, "after", after, started_at=build.DAYS[1])


@pytest.mark.parametrize("force_terminal", [False, True], ids=["pipe", "terminal"])
def test_page_text_is_printed_as_text_never_as_markup(tmp_path: Path, force_terminal: bool) -> None:
    _hostile_out(tmp_path)
    env = {"FORCE_COLOR": "1", "TTY_COMPATIBLE": "1"} if force_terminal else {}
    for args in (["audit"], ["audit", "--format", "markdown"], ["diff", "before", "after"]):
        result = redecode(*args, "--out", tmp_path, columns=400, **env)
        assert result.returncode == 0, result.stderr
        assert "[bold]x[/bold]" in result.stdout, args  # in every URL
        # no hyperlink, no control sequence from the page reaches the terminal
        assert "\x1b]8;" not in result.stdout and "\x07" not in result.stdout
        if args[0] == "audit":  # the titles of the mojibake candidates
            assert "[/] [link=http://evil.example/]click[/link]" in result.stdout, args
            assert "\\x1b]8;;http://evil.example/\\x07x" in result.stdout, args


def test_audit_tables_fit_80_columns_one_line_per_row(tmp_path: Path) -> None:
    records = build._records("wide")
    long_path = "/crawl/2026/segments/" + "x" * 60 + "/CC-MAIN-00042.warc.gz"
    errors = [{"run_id": "wide", "warc_filename": long_path, "warc_record_offset": 7,
               "record_id": "<urn:uuid:e>", "stage": "http",
               "error_type": "http-content-encoding-failed", "message": "bad gzip " * 20}]
    build.write_run(tmp_path, "wide", records, errors=errors)
    result = redecode("audit", "--out", tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(cell_len(line) for line in lines) <= 80
    # the long path keeps both ends on one line: the folder it starts in, the file it names
    assert any("/crawl/20" in line and "CC-MAIN-00042.warc.gz" in line for line in lines), \
        result.stdout
    wide = redecode("audit", "--out", tmp_path, columns=400).stdout
    assert long_path in wide  # nothing is cut when the terminal is wide enough


def test_duplicate_record_ids_are_reported_not_fatal(tmp_path: Path) -> None:
    records = build._records("dups")
    twin = dict(records[0], warc_filename="copy-of-sample.warc.gz")  # same record, 2 archives
    build.write_run(tmp_path, "dups", [*records, twin])
    result = redecode("audit", "--out", tmp_path, "--format", "json")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["gates"]["duplicate_record_ids"] == 1
    (row,) = payload["audits"]["audit_duplicate_record_ids"]
    assert (row["records"], row["files"]) == (2, 2)
    assert redecode("audit", "--out", tmp_path, "--check", "all").returncode == 0
    gated = redecode("audit", "--out", tmp_path, "--fail-on", "duplicate_record_ids>0")
    assert gated.returncode == 1
    assert "FAILED gate duplicate_record_ids>0 (value 1)" in gated.stderr


def test_audit_passes_on_real_warc_samples_with_repeated_record_ids(tmp_path: Path) -> None:
    # wget wrote two records with one WARC-Record-ID; example.warc / example.warc.gz hold the
    # same records: real crawls, reported as duplicates, not a failed audit
    inputs = [WARC_SAMPLES / name for name in ("pywb/example-wget-1-14.warc.gz",
                                               "warcio/example.warc", "warcio/example.warc.gz")]
    run = redecode("run", *inputs, "--out", tmp_path / "out", "-q", "--workers", "1")
    assert run.returncode == 0, run.stderr
    result = redecode("audit", "--out", tmp_path / "out", "--format", "json")
    assert result.returncode == 0, result.stderr
    duplicates = json.loads(result.stdout)["audits"]["audit_duplicate_record_ids"]
    assert sorted((row["records"], row["files"]) for row in duplicates) == [(2, 1), (2, 2)]
    checked = redecode("audit", "--out", tmp_path / "out", "--check", "all")
    assert checked.returncode == 0, checked.stderr


def test_usage_errors_exit_2_with_one_line(tmp_path: Path) -> None:
    build.clean_run(tmp_path / "out")
    (tmp_path / "file").write_text("x")
    assert_one_line_error(redecode("audit", "--out", tmp_path / "nope"), 2,
                          str(tmp_path / "nope"), "does not exist")
    assert_one_line_error(redecode("audit", "--out", tmp_path / "file"), 2, "not a folder")
    assert_one_line_error(redecode("diff", "--out", tmp_path / "nope", "a", "b"), 2)
    assert_one_line_error(redecode("audit", "--out", tmp_path / "out", "--check", "check_nope"),
                          2, "check_nope", "check_record_key_unique")
    assert_one_line_error(redecode("report", "--out", tmp_path / "out", "-o", tmp_path), 2,
                          "is a folder")
    assert_one_line_error(redecode("report", "--out", tmp_path / "out", "-o",
                                   tmp_path / "file" / "r.html"), 2, "not a folder")


def test_report_marks_gates_and_lists_errors(tmp_path: Path) -> None:
    build.error_run(tmp_path / "out")
    output = tmp_path / "report.html"
    result = redecode("report", "--out", tmp_path / "out", "-o", output,
                      "--fail-on", "errors>0", "--fail-on", "mojibake_rate>0.5",
                      "--check", "check_runs_known")
    assert result.returncode == 1, result.stderr  # errors>0 holds
    assert "FAILED gate errors>0 (value 2)" in result.stderr
    text = output.read_text(encoding="utf-8")
    assert '<td>errors&gt;0</td><td class="fail">&#10007; FAILED</td>' in text
    assert '<td>mojibake_rate&gt;0.5</td><td class="ok">&#10003; pass</td>' in text
    assert "<td>check_runs_known</td>" in text
    errors = text[text.index("<h2>Errors</h2>"):]
    for expected in ("sample.warc.gz", "http-content-encoding-failed", "bad gzip",
                     "extract-timeout", "took too long"):
        assert expected in errors


def test_a_stray_parquet_in_the_folder_of_a_run_with_bookkeeping_is_left_out(
    tmp_path: Path,
) -> None:
    # A copy made beside a part ("part-00000 (copy).parquet") is no part the run wrote:
    # the audits leave it out and say so, instead of counting its rows twice.
    out = tmp_path / "out"
    sample = ROOT / "data" / "sample" / "sample.arc.gz"
    ran = redecode("run", sample, "--out", out, "--run-id", "r", "-q")
    assert ran.returncode == 0, ran.stderr
    before = json.loads(redecode("audit", "--out", out, "--format", "json").stdout)["gates"]
    assert before["records"] > 0
    copies = []
    for table, part in (("records", "part-00000-0000"), ("runs", "part-00000")):
        folder = out / table / "run_id=r"
        copies.append(folder / f"{part} (copy).parquet")
        shutil.copy(folder / f"{part}.parquet", copies[-1])
    result = redecode("audit", "--out", out, "--format", "json")
    assert result.returncode == 0, result.stderr  # every part of the run was read
    payload = json.loads(result.stdout)
    assert payload["gates"]["records"] == before["records"]
    assert sorted(item["path"] for item in payload["unreadable"]) == sorted(map(str, copies))
    assert all(item["reason"].startswith("not a part run r wrote")
               for item in payload["unreadable"])
    for copy in copies:
        assert f"unreadable: {copy}: not a part run r wrote" in result.stderr
