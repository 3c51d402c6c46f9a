"""``redecode audit | diff | report``: thin typer commands over ``pipeline.audit`` and
``pipeline.report`` (mounted into the main ``redecode`` app by ``pipeline.cli``)."""

from __future__ import annotations

import datetime
import json
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:  # imported where used: duckdb costs ~0.4 s, and `redecode run` never needs it
    from pipeline import audit

app = typer.Typer(help="Audit decoded output with DuckDB.", add_completion=False)
out_console = Console(soft_wrap=True)
err_console = Console(stderr=True, soft_wrap=True)

#: What ``redecode audit`` shows, in order (name, heading).
AUDITS = (
    ("audit_fffd_spikes", "U+FFFD spikes per host and day (against the host's baseline)"),
    ("audit_mojibake_by_host", "Hosts with mojibake, U+FFFD or requests-garbled pages"),
    ("audit_mojibake_candidates", "Mojibake candidates (worst records)"),
    ("audit_header_meta_conflicts", "HTTP charset vs in-document charset conflicts"),
    ("audit_browser_mismatches", "Browser encoding differs from the chosen one"),
    ("audit_encoding_mix_by_tld", "Encoding mix per TLD"),
    ("audit_decision_sources", "Decision sources"),
    ("audit_errors_by_stage", "Errors by stage"),
)


class Format(StrEnum):
    """Output formats of ``audit`` and ``diff``."""

    table = "table"
    json = "json"
    markdown = "markdown"


OutDirOpt = Annotated[Path, typer.Option("--out", help="Output folder of `redecode run`.")]
RunOpt = Annotated[
    str | None, typer.Option("--run", help="Run id to audit (default: the newest run).")
]
FormatOpt = Annotated[Format, typer.Option("--format", help="table | json | markdown.")]
LimitOpt = Annotated[int, typer.Option("--limit", help="Rows shown per audit.")]


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime.date | datetime.datetime):
        return value.isoformat()
    return value


def _print(result: audit.QueryResult, heading: str, fmt: Format, limit: int) -> None:
    rows = result.rows[:limit]
    if fmt is Format.markdown:
        out_console.print(f"\n### {heading}\n")
        if not rows:
            out_console.print("No rows.")
            return
        out_console.print("| " + " | ".join(result.columns) + " |", markup=False)
        out_console.print("|" + "---|" * len(result.columns), markup=False)
        for row in rows:
            cells = (str(value).replace("|", "\\|") for value in row)
            out_console.print("| " + " | ".join(cells) + " |", markup=False)
        return
    if not rows:
        out_console.print(f"{heading}: no rows", markup=False)
        return
    table = Table(title=f"{heading} ({len(result.rows)} rows)", title_justify="left")
    for column in result.columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*(_cell(value) for value in row))
    out_console.print(table)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _check_out(out: Path) -> None:
    if not out.is_dir():
        err_console.print(f"error: output folder {out} does not exist", markup=False)
        raise typer.Exit(code=1)


@app.command("audit")
def audit_command(
    *,
    out: OutDirOpt = Path("out"),
    run: RunOpt = None,
    fail_on: Annotated[
        list[str] | None,
        typer.Option("--fail-on", help='Gate NAME OP NUMBER, e.g. "fffd_spike_hosts>0" '
                     '(repeatable). Exit 1 when any holds.'),
    ] = None,
    fmt: FormatOpt = Format.table,
    limit: LimitOpt = 10,
) -> None:
    """Run the audits and check_ queries on a run; exit 1 when a gate or check fails."""
    from pipeline import audit
    _check_out(out)
    known = set(audit.gate_names())
    try:
        gates = [audit.parse_gate(expr, known) for expr in fail_on or []]
    except ValueError as error:
        err_console.print(f"error: {error}", markup=False)
        raise typer.Exit(code=2) from None
    if not _run_audit(out, run, gates, fmt, limit):
        raise typer.Exit(code=1)


def _run_audit(
    out: Path, run: str | None, gates: list[audit.Gate], fmt: Format, limit: int
) -> bool:
    """Print the audits of ``run``; say which gates and checks failed; True when none did."""
    from pipeline import audit
    con = audit.connect(out, run=run)
    known = audit.run_ids(con)
    if not known:  # an empty output must not pass a CI gate
        err_console.print(f"error: no run in {out}", markup=False)
        return False
    if run is not None and run not in known:
        err_console.print(f"error: no run {run!r} in {out}", markup=False)
        return False
    values = audit.gate_values(con)
    failed = [gate for gate in gates if gate.fails(values[gate.name])]
    checks = {name: audit.query(con, name) for name in audit.sql_files()
              if name.startswith("check_")}
    broken = [name for name, result in checks.items() if result.rows]
    results = [(audit.query(con, name), heading) for name, heading in AUDITS]

    if fmt is Format.json:
        payload = {
            "run_id": values["run_id"],
            "gates": {name: value for name, value in values.items() if name != "run_id"},
            "failed_gates": [str(gate) for gate in failed],
            "failed_checks": broken,
            "audits": {result.name: [{k: _jsonable(v) for k, v in row.items()}
                                     for row in result.as_dicts()[:limit]]
                       for result, _ in results},
        }
        out_console.print_json(json.dumps(payload, default=str))
    else:
        gate_result = audit.QueryResult(
            "gates", ["gate", "value", "fail-on", "status"],
            [(name, value, ", ".join(str(g) for g in gates if g.name == name),
              "FAILED" if any(g.name == name for g in failed) else "ok")
             for name, value in values.items() if name != "run_id"],
        )
        _print(gate_result, f"Gates for run {values['run_id']}", fmt, len(gate_result.rows))
        for result, heading in results:
            _print(result, heading, fmt, limit)
        for name, result in checks.items():
            if result.rows:
                _print(result, f"{name} FAILED (must return no rows)", fmt, limit)
    for gate in failed:
        err_console.print(f"FAILED gate {gate} (value {_cell(values[gate.name])})",
                          markup=False)
    for name in broken:
        err_console.print(f"FAILED check {name} ({len(checks[name].rows)} rows)", markup=False)
    return not (failed or broken)


@app.command("diff")
def diff_command(
    run_a: Annotated[str, typer.Argument(help="The run before (e.g. the old rules).")],
    run_b: Annotated[str, typer.Argument(help="The run after.")],
    *,
    out: OutDirOpt = Path("out"),
    fmt: FormatOpt = Format.table,
    limit: LimitOpt = 10,
) -> None:
    """What changed from RUN_A to RUN_B: decisions, U+FFFD up/down, fields; counts, examples."""
    from pipeline import audit
    _check_out(out)
    con = audit.connect(out, run_a=run_a, run_b=run_b)
    known = audit.run_ids(con)
    missing = [run for run in (run_a, run_b) if run not in known]
    if missing:
        err_console.print(f"error: no run {', '.join(missing)} in {out}; runs: "
                          f"{', '.join(known) or 'none'}", markup=False)
        raise typer.Exit(code=1)
    summary = audit.query(con, "audit_run_diff_summary").as_dicts()[0]
    changes = audit.query(con, "audit_decision_changes").as_dicts()
    groups = {
        "Decisions changed": [row for row in changes if row["is_decision_changed"]],
        "U+FFFD went up": [row for row in changes if row["fffd_change"] == "up"],
        "U+FFFD went down": [row for row in changes if row["fffd_change"] == "down"],
        "Fields changed, same decision": [
            row for row in changes
            if not row["is_decision_changed"] and row["fffd_change"] == "same"
        ],
    }
    if fmt is Format.json:
        payload = {"summary": summary} | {
            heading: [{key: _jsonable(value) for key, value in row.items()}
                      for row in rows[:limit]]
            for heading, rows in groups.items()
        }
        out_console.print_json(json.dumps(payload, default=str))
        return
    transposed = audit.QueryResult("summary", ["measure", "records"], list(summary.items()))
    _print(transposed, f"{run_a} -> {run_b}", fmt, len(transposed.rows))
    for heading, rows in groups.items():
        examples = audit.QueryResult(
            "audit_decision_changes", ["url", "encoding", "source", "fffd", "fields changed"],
            [_change_example(row) for row in rows],
        )
        _print(examples, f"{heading} (examples)", fmt, limit)


def _change_example(row: dict[str, Any]) -> tuple[str, ...]:
    """One changed record as url, "a -> b" pairs and the names of the changed fields."""
    fields = [name.removeprefix("is_").removesuffix("_changed") for name, value in row.items()
              if name.startswith("is_") and name.endswith("_changed") and value
              and name != "is_decision_changed"]
    return (
        row["url"],
        f"{row['encoding_a']} -> {row['encoding_b']}",
        f"{row['source_a']} -> {row['source_b']}",
        f"{row['fffd_a']} -> {row['fffd_b']}",
        ", ".join(fields),
    )


@app.command("report")
def report_command(
    *,
    out: OutDirOpt = Path("out"),
    output: Annotated[
        Path, typer.Option("--output", "-o", help="HTML file to write.")
    ] = Path("report.html"),
    run: RunOpt = None,
) -> None:
    """Write one self-contained HTML report (inline SVG charts, no network)."""
    from pipeline import report
    _check_out(out)
    path = report.write_report(out, output, run=run)
    err_console.print(f"wrote {path}", markup=False)
