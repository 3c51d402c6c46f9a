"""The ``redecode`` command line: a thin typer shell over the runners and the encoding API."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(
    help="Re-decode archived web crawls exactly as a browser would, and audit them.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console(stderr=True)

OutOpt = Annotated[Path, typer.Option("--out", "-o", help="Output folder (Parquet tables).")]
RulesOpt = Annotated[
    Path | None, typer.Option("--rules", help="Rules file (TOML): overrides, policy, options.")
]
PolicyOpt = Annotated[
    str | None,
    typer.Option(
        "--policy", envvar="REDECODE_POLICY",
        help="standard (default) | browser | repair. Overrides the rules file.",
    ),
]


def _parse_columns(values: list[str]) -> dict[str, str]:
    columns = {}
    for value in values:
        ours, sep, theirs = value.partition("=")
        if not sep or not ours or not theirs:
            raise typer.BadParameter(f"--columns wants OURS=THEIRS, got {value!r}")
        columns[ours] = theirs
    return columns


def _value_source(ctx: typer.Context, name: str, from_rules: bool = False) -> str:
    """Where a resolved option came from: cli > env > rules file > default (kept in _run.json)."""
    source = ctx.get_parameter_source(name)
    if source is not None and source.name == "COMMANDLINE":
        return "cli"
    if source is not None and source.name == "ENVIRONMENT":
        return "env"
    return "rules" if from_rules else "default"


@app.command()
def run(
    ctx: typer.Context,
    inputs: Annotated[
        list[str],
        typer.Argument(help="WARC/ARC/Parquet files, folders, globs, or @list.txt of paths."),
    ],
    *,
    out: OutOpt = Path("out"),
    rules: RulesOpt = None,
    policy: PolicyOpt = None,
    workers: Annotated[
        int | None,
        typer.Option("--workers", "-w", envvar="REDECODE_WORKERS", help="Processes (default: cores)."),
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Skip inputs already completed in the same run.")
    ] = False,
    run_id: Annotated[str | None, typer.Option("--run-id", help="Name the run.")] = None,
    columns: Annotated[
        list[str] | None,
        typer.Option("--columns", help="Parquet sources: map OURS=THEIRS column names."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="Stop at the first record error (for debugging).")
    ] = False,
) -> None:
    """Decode archived crawls into Parquet tables under --out."""
    from pipeline.rules import RulesError, load_rules
    from pipeline.runners.local import run as run_local
    from pipeline.runners.progress import run_progress
    from pipeline.runners.task import StrictModeError
    from pipeline.sources.inputs import expand_inputs

    try:
        resolved = load_rules(rules, policy=policy)
        files = expand_inputs(inputs)
    except (RulesError, ValueError, OSError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(code=2) from None
    sources = {
        "policy": _value_source(ctx, "policy", from_rules=rules is not None),
        "workers": _value_source(ctx, "workers"),
    }
    kwargs = dict(
        workers=workers or os.cpu_count() or 1,
        run_id=run_id,
        resume=resume,
        columns=_parse_columns(columns or []),
        config_sources=sources,
        strict=strict,
    )
    try:
        if quiet or not sys.stderr.isatty():
            summary = run_local(files, out, resolved, **kwargs)
        else:
            with run_progress(len(files), console) as progress:
                summary = run_local(files, out, resolved, progress=progress, **kwargs)
    except StrictModeError as exc:
        console.print(f"[red]--strict:[/red] {exc}")
        raise typer.Exit(code=1) from None
    _print_summary(summary)
    if not summary.invariant_ok:
        for problem in summary.problems:
            console.print(f"[red]accounting:[/red] {problem}")
        raise typer.Exit(code=1)


def _print_summary(summary: object) -> None:
    from pipeline.runners.local import RunSummary

    assert isinstance(summary, RunSummary)
    table = Table(title=f"run {summary.run_id}", show_header=False)
    rate = summary.seen / summary.seconds if summary.seconds else 0.0
    rows = [
        ("files", f"{summary.files} ({summary.resumed_files} resumed)"),
        ("records seen", f"{summary.seen:,}"),
        ("written", f"{summary.written:,}"),
        ("skipped", f"{summary.skipped_total:,} {summary.skipped}"),
        ("errors", f"{summary.errors:,}"),
        ("links", f"{summary.links:,}"),
        ("encoding_source", json.dumps(summary.sources)),
        ("time", f"{summary.seconds:.2f} s, {rate:,.0f} records/s, "
                 f"{summary.bytes_read / max(summary.seconds, 1e-6) / 1e6:.1f} MB/s"),
        ("workers", f"CPU {summary.cpu_seconds:.2f} s, "
                    f"{summary.seen / max(summary.cpu_seconds, 1e-6):,.0f} records per CPU-second, "
                    f"peak RSS {summary.peak_rss_mb:.0f} MB per worker"),
        ("invariant", "ok: seen = written + skipped + errors" if summary.invariant_ok else "BROKEN"),
    ]
    for key, value in rows:
        table.add_row(key, value)
    Console().print(table)


@app.command()
def decode(
    file: Annotated[Path, typer.Argument(help="A file of raw body bytes ('-' for stdin).")],
    *,
    content_type: Annotated[
        str | None, typer.Option("--content-type", help="The HTTP Content-Type header value.")
    ] = None,
    url: Annotated[str | None, typer.Option("--url", help="The page's URL (TLD hints).")] = None,
    policy: Annotated[str, typer.Option("--policy", help="standard | browser | repair.")] = "standard",
    rules: RulesOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    show_text: Annotated[bool, typer.Option("--text", help="Also print the decoded text.")] = False,
) -> None:
    """Decode one page and explain the decision step by step."""
    from pipeline.encoding.api import decode_html
    from pipeline.encoding.explain import explain, explain_text
    from pipeline.rules import RulesError, load_rules

    try:
        resolved = load_rules(rules, policy=policy)
        body = sys.stdin.buffer.read() if str(file) == "-" else file.read_bytes()
    except (RulesError, OSError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(code=2) from None
    decoded = decode_html(body, content_type, url, rules=resolved)
    if as_json:
        data = explain(decoded)
        if show_text:
            data["text"] = decoded.text
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        typer.echo(explain_text(decoded))
        if show_text:
            typer.echo(decoded.text)


def _mount_audit_commands() -> None:
    # audit / diff / report live in their own module; they appear as top-level commands.
    from pipeline import cli_audit

    app.registered_commands.extend(cli_audit.app.registered_commands)


_mount_audit_commands()
