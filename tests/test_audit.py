"""`redecode audit` / `redecode diff` through typer's CliRunner on crafted runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline import audit
from pipeline.cli_audit import app
from tests.fixtures.audit import build

runner = CliRunner()
GATES = ["--fail-on", "fffd_spike_hosts>0", "--fail-on", "mojibake_rate>0.01",
         "--fail-on", "errors>0", "--fail-on", "browser_mismatch_rate>0.05"]


@pytest.fixture(scope="module")
def outs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("audit")
    for scenario in ("clean_run", "fffd_spike_run", "mojibake_run", "error_run",
                     "rules_change_runs"):
        getattr(build, scenario)(root / scenario)
    return {path.name: path for path in root.iterdir()}


def test_audit_passes_the_clean_run(outs: dict[str, Path]) -> None:
    result = runner.invoke(app, ["audit", "--out", str(outs["clean_run"]), *GATES])
    assert result.exit_code == 0, result.output
    assert "FAILED" not in result.output


def test_audit_fails_on_the_fffd_spike_and_names_the_gate(outs: dict[str, Path]) -> None:
    result = runner.invoke(app, ["audit", "--out", str(outs["fffd_spike_run"]), *GATES])
    assert result.exit_code == 1, result.output
    assert "FAILED gate fffd_spike_hosts>0 (value 1)" in result.output
    assert "FAILED gate mojibake_rate" not in result.output


def test_audit_fails_on_mojibake_and_names_the_gate(outs: dict[str, Path]) -> None:
    result = runner.invoke(app, ["audit", "--out", str(outs["mojibake_run"]), *GATES])
    assert result.exit_code == 1, result.output
    assert "FAILED gate mojibake_rate>0.01" in result.output
    assert "FAILED gate fffd_spike_hosts" not in result.output


def test_audit_fails_on_errors_rows(outs: dict[str, Path]) -> None:
    result = runner.invoke(app, ["audit", "--out", str(outs["error_run"]), *GATES])
    assert result.exit_code == 1, result.output
    assert "FAILED gate errors>0 (value 2)" in result.output


def test_audit_fails_on_browser_mismatch_rate(tmp_path: Path) -> None:
    records = build._records("mismatch")
    for record in records:
        if record["url_host_name"] == "shop.example.de":  # UTF-8 declared in meta only...
            record["encoding_browser"] = "windows-1252"  # ...that a browser ignored
    build.write_run(tmp_path, "mismatch", records)
    result = runner.invoke(app, ["audit", "--out", str(tmp_path), *GATES])
    assert result.exit_code == 1, result.output
    assert "FAILED gate browser_mismatch_rate>0.05" in result.output


def test_audit_without_gates_reports_but_passes(outs: dict[str, Path]) -> None:
    result = runner.invoke(app, ["audit", "--out", str(outs["fffd_spike_run"])])
    assert result.exit_code == 0, result.output
    assert "U+FFFD spikes per host and day" in result.output
    # markdown rows are not folded to the terminal width
    result = runner.invoke(app, ["audit", "--out", str(outs["fffd_spike_run"]),
                                 "--format", "markdown"])
    assert "| spike | news.example.jp | 2026-11-02 | 6 | 6 |" in result.stdout


def test_audit_fails_when_a_check_returns_rows(tmp_path: Path) -> None:
    # one archive record written twice: a pipeline fault, caught by the check when asked
    records = build._records("dup")
    records.append(dict(records[0]))
    build.write_run(tmp_path, "dup", records, records_written=len(records))
    assert runner.invoke(app, ["audit", "--out", str(tmp_path)]).exit_code == 0
    for check in ("check_record_key_unique", "all"):
        result = runner.invoke(app, ["audit", "--out", str(tmp_path), "--check", check])
        assert result.exit_code == 1, result.output
        assert "FAILED check check_record_key_unique (1 rows)" in result.output


@pytest.mark.parametrize("expr", ["nosuch>0", "errors>>1", "errors>abc", "__import__('os')>0",
                                  "errors>1; drop", "mojibake_rate>nan"])
def test_malformed_or_unknown_gates_exit_2(outs: dict[str, Path], expr: str) -> None:
    result = runner.invoke(app, ["audit", "--out", str(outs["clean_run"]), "--fail-on", expr])
    assert result.exit_code == 2, result.output
    assert "error:" in result.output


def test_unknown_gate_message_lists_the_known_gates(outs: dict[str, Path]) -> None:
    result = runner.invoke(app, ["audit", "--out", str(outs["clean_run"]),
                                 "--fail-on", "fffd_spikes>0"])
    assert "unknown gate 'fffd_spikes'" in result.output
    assert "fffd_spike_hosts" in result.output


@pytest.mark.parametrize(
    ("expr", "value", "fails"),
    [("errors>0", 0, False), ("errors>0", 1, True), ("errors>=1", 1, True),
     ("mojibake_rate<0.5", 0.2, True), ("mojibake_rate = 0.2", 0.2, True),
     ("errors!=3", 3, False), ("records<=1e3", 1000, True)],
)
def test_gate_comparisons(expr: str, value: float, fails: bool) -> None:
    gate = audit.parse_gate(expr, {"errors", "mojibake_rate", "records"})
    assert gate.fails(value) is fails


def test_gate_names_are_the_columns_of_audit_gates() -> None:
    names = audit.gate_names()
    for required in ("fffd_spike_hosts", "mojibake_rate", "errors", "browser_mismatch_rate"):
        assert required in names


def test_audit_json_format(outs: dict[str, Path]) -> None:
    result = runner.invoke(app, ["audit", "--out", str(outs["fffd_spike_run"]),
                                 "--format", "json", "--fail-on", "fffd_spike_hosts>0"])
    assert result.exit_code == 1
    payload = json.loads(result.stdout)
    assert payload["failed_gates"] == ["fffd_spike_hosts>0"]
    assert payload["gates"]["fffd_spike_hosts"] == 1
    assert payload["audits"]["audit_fffd_spikes"][0]["fetch_day"] == "2026-11-02"


def test_audit_markdown_format(outs: dict[str, Path]) -> None:
    result = runner.invoke(app, ["audit", "--out", str(outs["clean_run"]),
                                 "--format", "markdown"])
    assert result.exit_code == 0, result.output
    assert "| gate | value | fail-on | status |" in result.stdout
    assert "### Encoding mix per TLD" in result.stdout


def test_audit_of_a_named_run(outs: dict[str, Path]) -> None:
    out = str(outs["rules_change_runs"])
    result = runner.invoke(app, ["audit", "--out", out, "--run", "before", "--format", "json"])
    assert json.loads(result.stdout)["run_id"] == "before"
    missing = runner.invoke(app, ["audit", "--out", out, "--run", "nope"])
    assert missing.exit_code == 2 and "no run 'nope'" in missing.output


def test_audit_of_a_folder_without_runs_exits_2(tmp_path: Path) -> None:
    # an empty output must not pass a CI gate
    result = runner.invoke(app, ["audit", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "no run in" in result.output


def test_diff_shows_the_changed_decisions(outs: dict[str, Path]) -> None:
    result = runner.invoke(app, ["diff", "--out", str(outs["rules_change_runs"]),
                                 "before", "after"])
    assert result.exit_code == 0, result.output
    assert "decisions_changed" in result.output
    result = runner.invoke(app, ["diff", "--out", str(outs["rules_change_runs"]),
                                 "before", "after", "--format", "markdown"])
    assert "| decisions_changed | 12 |" in result.stdout
    assert "windows-1252 -> Shift_JIS" in result.output
    assert "detected -> rule" in result.output


def test_diff_json_counts(outs: dict[str, Path]) -> None:
    result = runner.invoke(app, ["diff", "--out", str(outs["rules_change_runs"]),
                                 "before", "after", "--format", "json"])
    payload = json.loads(result.stdout)
    assert payload["summary"]["decisions_changed"] == 12
    assert payload["summary"]["fffd_down"] == 12
    assert len(payload["Decisions changed"]) == 10  # --limit default


def test_diff_of_an_unknown_run_exits_2(outs: dict[str, Path]) -> None:
    result = runner.invoke(app, ["diff", "--out", str(outs["rules_change_runs"]),
                                 "before", "nope"])
    assert result.exit_code == 2
    assert "no run 'nope'" in result.output
