"""``redecode audit | diff | report``: thin typer commands over ``pipeline.audit`` and
``pipeline.report`` (mounted into the main ``redecode`` app by ``pipeline.cli``).

Everything printed comes from the crawl or the user (titles, URLs, run ids, paths), so the
consoles interpret no markup and no emoji codes, and :func:`printable` shows control and
bidirectional characters as escapes: a page cannot style, link or rewrite the terminal.
Exit codes: 0 ok; 1 a gate or check failed; 2 usage error (nothing read); 3 some part of
the runs looked at could not be read (each printed with its reason).
"""

# No `from __future__ import annotations` here: typer reads every command's annotations
# when the CLI starts, and evaluates string ones twice each (~7 ms of each start).

import datetime
import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from pipeline.terminal import printable

if TYPE_CHECKING:  # imported where used: duckdb costs ~0.4 s, and `redecode run` never needs it
    from pipeline import audit

app = typer.Typer(help="Audit decoded output with DuckDB.", add_completion=False)
out_console = Console(markup=False, emoji=False, highlight=False)
err_console = Console(stderr=True, markup=False, emoji=False, highlight=False, soft_wrap=True)

#: What ``redecode audit`` shows, in order (name, heading).
AUDITS = (
    ("audit_fffd_spikes", "U+FFFD spikes per host and day (against the host's baseline)"),
    ("audit_mojibake_by_host", "Hosts with mojibake, U+FFFD or requests-garbled pages"),
    ("audit_mojibake_candidates", "Mojibake candidates (worst records)"),
    ("audit_header_meta_conflicts", "HTTP charset vs in-document charset conflicts"),
    ("audit_browser_mismatches", "Browser encoding differs from the chosen one"),
    ("audit_encoding_mix_by_tld", "Encoding mix per TLD"),
    ("audit_decision_sources", "Decision sources"),
    ("audit_duplicate_record_ids", "Record ids carried by several records (reported only)"),
    ("audit_errors_by_stage", "Errors by stage"),
    ("audit_errors_by_file", "Errors by file"),
)
#: A table column is never squeezed below this many cells (or its header, or its widest
#: value, whichever is least); a table that cannot fit so is printed one row per block.
MIN_CELLS = 16

class Format(StrEnum):
    """Output formats of ``audit`` and ``diff``."""

    table = "table"
    json = "json"
    markdown = "markdown"


OutDirOpt = Annotated[
    str, typer.Option("--out", help="Output folder of `redecode run` (a path or a URL).")
]
StorageOpt = Annotated[
    list[str] | None,
    typer.Option("--storage-option", metavar="KEY=VALUE",
                 help="Option of the storage layer (repeatable), e.g. s3.endpoint_url=URL. "
                      "Credentials come from the standard chain."),
]
RunOpt = Annotated[
    str | None, typer.Option("--run", help="Run id to audit (default: the newest run).")
]
FormatOpt = Annotated[Format, typer.Option("--format", help="table | json | markdown.")]
LimitOpt = Annotated[int, typer.Option("--limit", min=0, help="Rows shown per audit.")]
FailOnOpt = Annotated[
    list[str] | None,
    typer.Option("--fail-on", metavar="EXPR",
                 help='Gate NAME OP NUMBER, e.g. "fffd_spike_hosts>0" (repeatable); '
                      "exit 1 when one holds."),
]
CheckOpt = Annotated[
    list[str] | None,
    typer.Option("--check", metavar="NAME",
                 help="Run a check_ query (repeatable; 'all' runs every one); exit 1 when "
                      "one returns rows."),
]

MemoryOpt = Annotated[
    str | None,
    typer.Option("--memory-limit", metavar="SIZE",
                 help="Memory DuckDB may hold (e.g. 2GB, 512MB; default 1GB, "
                      "pipeline.audit.MEMORY_LIMIT); past it, it spills to a temporary folder."),
]


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}"
    return printable(str(value))


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime.date | datetime.datetime):
        return value.isoformat()
    return value


def _say(message: str) -> None:
    """One line on stderr (user text in ``message`` is made printable)."""
    err_console.print(printable(message))


def _fail(message: str, code: int) -> typer.Exit:
    _say(f"error: {message}")
    return typer.Exit(code=code)


def _print(result: "audit.QueryResult", heading: str, fmt: Format, limit: int) -> None:
    rows = [[_cell(value) for value in row] for row in result.rows[:limit]]
    heading = printable(heading)  # it can hold run ids read from the files
    if fmt is Format.markdown:
        out_console.print(f"\n### {heading}\n")
        if not rows:
            out_console.print("No rows.")
            return
        out_console.print("| " + " | ".join(result.columns) + " |", soft_wrap=True)
        out_console.print("|" + "---|" * len(result.columns), soft_wrap=True)
        for row in rows:
            out_console.print("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |",
                              soft_wrap=True)
        return
    if not rows:
        out_console.print(f"{heading}: no rows")
        return
    title = f"{heading} ({len(result.rows)} rows)"
    _print_table(title, result.columns, rows, out_console.width)


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` terminal cells, with an ellipsis in the middle (the ends of
    a URL or a path say most).

    >>> fit("/work/shared/corpus/warc-samples/resiliparse/warcfile.warc.lz4", 30)
    '/work/share…/warcfile.warc.lz4'
    >>> fit("short", 30)
    'short'
    """
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    head_cells = (width - 1) * 2 // 5
    tail_cells = width - 1 - head_cells
    head, tail = "", ""
    for char in text:
        if cell_len(head + char) > head_cells:
            break
        head += char
    for char in reversed(text):
        if cell_len(char + tail) > tail_cells:
            break
        tail = char + tail
    return f"{head}…{tail}"


def _print_table(title: str, columns: list[str], rows: list[list[str]], width: int) -> None:
    """A table within ``width`` cells: the widest columns give way first, down to
    :data:`MIN_CELLS`, their values cut in the middle; a table that cannot fit so is printed
    one block per row, ``column: value``."""
    natural = [max([cell_len(column)] + [cell_len(row[index]) for row in rows])
               for index, column in enumerate(columns)]
    floors = [min(size, max(cell_len(column), MIN_CELLS))
              for size, column in zip(natural, columns, strict=True)]
    budget = width - (3 * len(columns) + 1)  # borders and one cell of padding each side
    if sum(floors) > budget:
        out_console.print(Text(fit(title, width)))
        label = max(cell_len(column) for column in columns)
        for number, row in enumerate(rows, 1):
            out_console.print(Text(f"-- row {number} --"))
            for column, value in zip(columns, row, strict=True):
                out_console.print(Text(f"{column.rjust(label)}: "
                                       f"{fit(value, max(1, width - label - 2))}"))
        return
    widths = list(natural)
    while sum(widths) > budget:
        widest = max((index for index, size in enumerate(widths) if size > floors[index]),
                     key=lambda index: widths[index])
        widths[widest] -= 1
    table = Table(title=Text(fit(title, width)), title_justify="left", box=box.SQUARE)
    for column, size in zip(columns, widths, strict=True):
        table.add_column(Text(column), min_width=size, max_width=size, no_wrap=True)
    for row in rows:
        table.add_row(*(Text(fit(cell, size)) for cell, size in zip(row, widths, strict=True)))
    out_console.print(table)


def _open_out(out: str, storage_option: list[str] | None) -> "audit.Parts":
    """The committed parts of ``out``; exit 2 (nothing read) when ``out`` is not an
    existing folder or cannot be listed (a missing bucket, bad credentials, an unreachable
    endpoint), each in one line naming it. Unfinished runs are named on stderr."""
    from pipeline import audit
    from pipeline.storage import Storage, StorageError, parse_storage_options, redact_url

    try:
        storage = Storage(parse_storage_options(storage_option or []))
        storage.check_bucket(out)
        if not storage.exists(out):
            raise _fail(f"output folder {redact_url(out)} does not exist", 2)
        if not storage.is_dir(out):
            raise _fail(f"--out {redact_url(out)} is not a folder", 2)
        parts = audit.find_parts(out, storage)
    except ValueError as exc:
        raise _fail(str(exc), 2) from None
    except StorageError as exc:
        raise _fail(f"--out {exc}", 2) from None
    for run in parts.unfinished:
        of = f" of {run.inputs}" if run.inputs is not None else ""
        left = (f"; {run.uncommitted_parts} uncommitted part(s) left out"
                if run.uncommitted_parts else "")
        _say(f"note: run {run.run_id} is unfinished: {run.committed}{of} input files "
             f"committed, only those are read{left} (redecode run --resume finishes it)")
    return parts


def _connect(parts: "audit.Parts", memory_limit: str | None, **runs: str | None) -> Any:
    """:func:`pipeline.audit.connect` over ``parts``; exit 2 on a memory limit DuckDB
    refuses."""
    from pipeline import audit

    try:
        return audit.connect(parts, memory_limit=memory_limit or audit.MEMORY_LIMIT, **runs)
    except ValueError as exc:
        raise _fail(f"--memory-limit: {exc}", 2) from None


def _parse(fail_on: list[str] | None, check: list[str] | None) -> tuple[list[Any], list[str]]:
    """The gates and checks asked for; exit 2 on a malformed or unknown one."""
    from pipeline import audit

    try:
        gates = [audit.parse_gate(expr, audit.gate_names()) for expr in fail_on or []]
        checks = audit.parse_checks(check or [])
    except ValueError as error:
        raise _fail(str(error), 2) from None
    return gates, checks


def _known_runs(out: str, con: Any, wanted: list[str]) -> list[str]:
    """Every run id in ``out``, newest first; exit 2 when there is none or one of ``wanted``
    is not among them."""
    from pipeline import audit

    known = audit.run_ids(con)
    if not known:  # an empty output must not pass a CI gate
        raise _fail(f"no run in {out}", 2)
    missing = [run for run in wanted if run not in known]
    if missing:
        raise _fail(f"no run {', '.join(repr(run) for run in missing)} in {out}; runs: "
                    f"{', '.join(known)}", 2)
    return known


def _report_unreadable(parts: "audit.Parts", looked_at: set[str]) -> bool:
    """Print every part left out with its reason; True when one belongs to a run looked at."""
    for item in parts.unreadable:
        _say(f"unreadable: {item.path}: {item.reason} (left out)")
    return bool(parts.unreadable_of(looked_at))


@app.command("sql")
def sql_command(
    *,
    out: OutDirOpt = "out",
) -> None:
    """Print the SQL views over --out for the duckdb CLI, the folder as an absolute path:
    `redecode sql --out out/ | duckdb audit.duckdb` keeps views that read out/ from any
    working directory."""
    import os

    from pipeline import audit
    from pipeline.storage import is_remote, is_url

    if is_url(out) and not is_remote(out):
        raise _fail(f"--out {out}: not a supported storage URL", 2)
    if not is_url(out) and not os.path.isdir(out):
        _say(f"note: {os.path.abspath(out)} is not a folder yet; the views read it once it "
             "holds a run")
    sys.stdout.write(audit.render_views_sql(out=out))


@app.command("audit")
def audit_command(
    *,
    out: OutDirOpt = "out",
    run: RunOpt = None,
    fail_on: FailOnOpt = None,
    check: CheckOpt = None,
    fmt: FormatOpt = Format.table,
    limit: LimitOpt = 10,
    storage_option: StorageOpt = None,
    memory_limit: MemoryOpt = None,
) -> None:
    """Show the audits of a run; exit 1 when a --fail-on gate holds or a --check fails."""
    from pipeline import audit, suggest

    gates, checks = _parse(fail_on, check)
    parts = _open_out(out, storage_option)
    con = _connect(parts, memory_limit, run=run)
    _known_runs(out, con, [run] if run is not None else [])
    verdict = audit.evaluate(con, gates, checks)
    results = [(audit.query(con, name), heading) for name, heading in AUDITS]
    partial = _report_unreadable(parts, {verdict.run_id or ""})

    if fmt is Format.json:
        payload = {
            "run_id": verdict.run_id,
            "gates": {name: value for name, value in verdict.values.items() if name != "run_id"},
            "failed_gates": [str(gate) for gate in verdict.failed_gates],
            "checks": {name: len(result.rows) for name, result in verdict.checks.items()},
            "failed_checks": verdict.failed_checks,
            "unreadable": [{"path": item.path, "run_id": item.run_id, "reason": item.reason}
                           for item in parts.unreadable],
            "audits": {result.name: [{k: _jsonable(v) for k, v in row.items()}
                                     for row in result.as_dicts()[:limit]]
                       for result, _ in results},
            "proposed_rules": suggest.to_json(verdict.suggestion)["proposed"]
            if verdict.suggestion is not None else [],
        }
        sys.stdout.write(json.dumps(payload, default=str, indent=2) + "\n")
    else:
        _print(_gate_table(verdict), f"Gates for run {verdict.run_id}", fmt, len(verdict.values))
        for result, heading in results:
            _print(result, heading, fmt, limit)
        if verdict.suggestion is not None:
            columns, rows = suggest.proposals_table(verdict.suggestion)
            _print(audit.QueryResult("proposed_rules", columns, rows),
                   "Rules the run's evidence supports (redecode suggest-rules writes them)",
                   fmt, limit)
        for name in verdict.failed_checks:
            _print(verdict.checks[name], f"{name} FAILED (must return no rows)", fmt, limit)
    _conclude(verdict, partial)


def _gate_table(verdict: "audit.Verdict") -> "audit.QueryResult":
    from pipeline import audit

    rows = [(name, value, ", ".join(asked), "" if passed is None else "ok" if passed else "FAILED")
            for name, value, asked, passed in verdict.gate_rows()]
    rows += [(name, len(result.rows), "check", "FAILED" if result.rows else "ok")
             for name, result in verdict.checks.items()]
    return audit.QueryResult("gates", ["gate", "value", "fail-on", "status"], rows)


def _conclude(verdict: "audit.Verdict", partial: bool) -> None:
    """Name every failed gate and check on stderr, then exit 1, 3 or 0."""
    for gate in verdict.failed_gates:
        _say(f"FAILED gate {gate} (value {_cell(verdict.values[gate.name])})")
    for name in verdict.failed_checks:
        _say(f"FAILED check {name} ({len(verdict.checks[name].rows)} rows)")
    if not verdict.passed:
        raise typer.Exit(code=1)
    if partial:
        raise _fail("some parts of this run could not be read (listed above)", 3)


@app.command("diff")
def diff_command(
    run_a: Annotated[str, typer.Argument(help="The run before (e.g. the old rules).")],
    run_b: Annotated[str, typer.Argument(help="The run after.")],
    *,
    out: OutDirOpt = "out",
    fmt: FormatOpt = Format.table,
    limit: LimitOpt = 10,
    storage_option: StorageOpt = None,
    memory_limit: MemoryOpt = None,
) -> None:
    """What changed from RUN_A to RUN_B: decisions, U+FFFD up/down, fields; counts, examples."""
    from pipeline import audit

    parts = _open_out(out, storage_option)
    con = _connect(parts, memory_limit, run_a=run_a, run_b=run_b)
    _known_runs(out, con, [run_a, run_b])
    partial = _report_unreadable(parts, {run_a, run_b})
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
        sys.stdout.write(json.dumps(payload, default=str, indent=2) + "\n")
    else:
        transposed = audit.QueryResult("summary", ["measure", "records"], list(summary.items()))
        _print(transposed, f"{run_a} -> {run_b}", fmt, len(transposed.rows))
        for heading, rows in groups.items():
            examples = audit.QueryResult(
                "audit_decision_changes",
                ["url", "encoding", "source", "fffd", "fields changed"],
                [_change_example(row) for row in rows],
            )
            _print(examples, f"{heading} (examples)", fmt, limit)
    if partial:
        raise _fail("some parts of these runs could not be read (listed above)", 3)


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
    out: OutDirOpt = "out",
    output: Annotated[
        Path, typer.Option("--output", "-o", help="HTML file to write.")
    ] = Path("report.html"),
    run: RunOpt = None,
    fail_on: FailOnOpt = None,
    check: CheckOpt = None,
    storage_option: StorageOpt = None,
    memory_limit: MemoryOpt = None,
) -> None:
    """Write one self-contained HTML report (inline SVG charts, no network), gates marked
    pass/fail; exit 1 when a --fail-on gate holds or a --check fails."""
    from pipeline import audit, report

    gates, checks = _parse(fail_on, check)
    if output.is_dir() or str(output).endswith(("/", "\\")):
        raise _fail(f"-o {output} is a folder; give the HTML file to write", 2)
    if output.parent.exists() and not output.parent.is_dir():
        raise _fail(f"-o {output}: {output.parent} is not a folder", 2)
    parts = _open_out(out, storage_option)
    con = _connect(parts, memory_limit, run=run)
    _known_runs(out, con, [run] if run is not None else [])
    verdict = audit.evaluate(con, gates, checks)
    partial = _report_unreadable(parts, {verdict.run_id or ""})
    try:
        path = report.write_report(parts, output, run=run, verdict=verdict, con=con)
    except OSError as exc:
        raise _fail(f"-o {output}: {exc.strerror or exc}", 2) from None
    _say(f"wrote {path}")
    _conclude(verdict, partial)
