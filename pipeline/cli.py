"""The ``redecode`` command line: a thin typer shell over the runners and the encoding API."""

# No `from __future__ import annotations` here: typer reads every command's annotations
# when the CLI starts, and evaluates string ones twice each (~7 ms of each start).

import json
import re
import shlex
import signal
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from pipeline import __version__, exit_codes

app = typer.Typer(
    help="Re-decode archived web crawls exactly as a browser would, and audit them.",
    epilog=exit_codes.help_text(),
    no_args_is_help=True,
    add_completion=False,
    # Plain click help and errors: no rich markup is ever read from help or user text.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
# Every message that can hold user or page text is printed with markup and emoji codes off:
# a run id, a path or a record's text is shown as written, never read as rich markup or
# ``:name:`` emoji (and rich's emoji table, ~3 ms, is not loaded), as in cli_audit.
console = Console(stderr=True, markup=False, emoji=False, highlight=False, soft_wrap=True)
stdout = Console(markup=False, emoji=False, highlight=False)

OutOpt = Annotated[
    str, typer.Option("--out", help="Output folder (Parquet tables): a path, or s3://bucket/prefix.")
]
RulesOpt = Annotated[
    str | None,
    typer.Option("--rules", help="Rules file (TOML): overrides, policy, options (a path or a URL)."),
]
StorageOpt = Annotated[
    list[str] | None,
    typer.Option("--storage-option", metavar="KEY=VALUE",
                 help="Option of the storage layer (repeatable), e.g. s3.endpoint_url=URL, "
                      "s3.anon=true; wins over the rules file's [storage]. Credentials come "
                      "from the standard chain (environment, config files, instance role)."),
]
PolicyOpt = Annotated[
    str | None,
    typer.Option(
        "--policy", envvar="REDECODE_POLICY",
        help="standard (default) | browser | repair. Overrides the rules file.",
    ),
]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"redecode {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Re-decode archived web crawls exactly as a browser would, and audit them."""


def _say(label: str, message: str, style: str = "red") -> None:
    """One line on stderr: a styled label, then ``message`` exactly as written (a file name
    that is not UTF-8 with ``\\xNN`` escapes)."""
    from pipeline.sources.inputs import writable_name

    console.print(Text.assemble((label, style), " ", writable_name(message)))


def _fail(message: str, code: int) -> NoReturn:
    _say("error:", message)
    raise typer.Exit(code=code)


def _parse_columns(values: list[str]) -> dict[str, str]:
    columns = {}
    for value in values:
        ours, sep, theirs = value.partition("=")
        if not sep or not ours or not theirs:
            raise typer.BadParameter(f"--columns wants OURS=THEIRS, got {value!r}")
        columns[ours] = theirs
    return columns


_SIZE_UNITS = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "KIB": 2**10,
               "MIB": 2**20, "GIB": 2**30}


def parse_size(option: str, value: str) -> int:
    """A size as ``--part-size`` and ``--task-size`` take it: bytes, or a number with
    KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024).

    >>> parse_size("--part-size", "256MB"), parse_size("--part-size", "1.5 KiB")
    (256000000, 1536)
    """
    match = re.fullmatch(r"\s*([0-9.]+)\s*([A-Za-z]*)\s*", value)
    unit = _SIZE_UNITS.get(match.group(2).upper()) if match else None
    try:
        if match is None or unit is None:
            raise ValueError(value)
        size = float(match.group(1)) * unit
    except ValueError:
        raise typer.BadParameter(f"{option} {value!r}: a size such as 256MB, 64MiB or "
                                 "1000000") from None
    return int(size)


def load_storage_and_rules(
    rules_path: str | None, storage_options: list[str] | None, policy: str | None = None,
) -> tuple[Any, Any]:
    """The storage layer and the rules of a command: ``--storage-option`` values read the
    rules file (which may live in a store), then its ``[storage]`` section fills in what
    the command line left. Raises ``RulesError`` or ``StorageError`` (one line each)."""
    from pipeline.rules import load_rules
    from pipeline.storage import Storage, merge, parse_storage_options

    try:
        options = parse_storage_options(storage_options or [])
    except ValueError as exc:
        from pipeline.rules import RulesError

        raise RulesError(str(exc)) from None
    raw = Storage(options).read_bytes(rules_path) if rules_path is not None else None
    resolved = load_rules(rules_path, policy=policy, raw=raw)
    return Storage(merge(resolved.storage.to_options(), options)), resolved


def _value_source(ctx: typer.Context, name: str, from_rules: bool = False) -> str:
    """Where a resolved option came from: cli > env > rules file > default (kept in _run.json)."""
    source = ctx.get_parameter_source(name)
    if source is not None and source.name == "COMMANDLINE":
        return "cli"
    if source is not None and source.name == "ENVIRONMENT":
        return "env"
    return "rules" if from_rules else "default"


@app.command(epilog=exit_codes.help_text())
def run(
    ctx: typer.Context,
    inputs: Annotated[
        list[str] | None,
        typer.Argument(help="WARC/ARC/Parquet files, folders, globs, @list.txt of paths, "
                       "warc.paths.gz, record lists (a .csv, or a Parquet file of "
                       "warc_filename, warc_record_offset, warc_record_length); local paths "
                       "or URLs (s3://, gs://, hdfs://, https://)."),
    ] = None,
    *,
    out: OutOpt = "out",
    rules: RulesOpt = None,
    policy: PolicyOpt = None,
    workers: Annotated[
        int | None,
        typer.Option("--workers", "-w", envvar="REDECODE_WORKERS", min=1,
                     help="Processes (default: cores)."),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option("--resume", help="Continue an unfinished run (--run-id, else the newest "
                     "run of the same inputs and rules); never starts a second copy."),
    ] = False,
    run_id: Annotated[
        str | None,
        typer.Option("--run-id", help="Name the run (letters, digits, '-', '_', '.').")
    ] = None,
    overwrite: Annotated[
        bool,
        typer.Option("--overwrite", help="Replace the run named by --run-id (its parts and "
                     "metadata are removed first)."),
    ] = False,
    allow_missing: Annotated[
        bool,
        typer.Option("--allow-missing", help="Run the inputs that exist when some named "
                     "nothing (they are listed and kept in the runs row)."),
    ] = False,
    columns: Annotated[
        list[str] | None,
        typer.Option("--columns", help="Parquet sources and record lists: map "
                     "OURS=THEIRS column names."),
    ] = None,
    input_base: Annotated[
        str | None,
        typer.Option("--input-base", metavar="URL",
                     help="What relative lines of path lists are relative to, e.g. "
                          "https://data.commoncrawl.org/ for Common Crawl's warc.paths.gz."),
    ] = None,
    url_base: Annotated[
        str | None,
        typer.Option("--url-base", metavar="URL",
                     help="Saved pages (.html, .htm): the URL of the folder they were found "
                          "in, which each page's relative name extends (default: its "
                          "file:// URL); https:// for a wget mirror of host folders."),
    ] = None,
    storage_option: StorageOpt = None,
    engine: Annotated[
        str, typer.Option("--engine", help="local (a process pool) | spark.")
    ] = "local",
    master: Annotated[
        str | None,
        typer.Option("--master", help="--engine spark: the Spark master (default: the active "
                     "session's or spark-submit's, else local[*])."),
    ] = None,
    partitions: Annotated[
        int | None,
        typer.Option("--partitions", min=1, help="--engine spark: Spark tasks (default: one "
                     "per input file)."),
    ] = None,
    records_from: Annotated[
        list[str] | None,
        typer.Option("--records-from", metavar="LIST",
                     help="A record list (Parquet or CSV: warc_filename, warc_record_offset, "
                     "warc_record_length, e.g. a Common Crawl columnar-index query's result), "
                     "whatever its name, or a folder or glob of them (a query's part files): "
                     "only the records named are read, by their byte ranges; relative names "
                     "are taken from --input-base. Repeatable."),
    ] = None,
    base_run: Annotated[
        str | None,
        typer.Option("--base-run", help="A finished run in --out to start from: when only "
                     "the overrides changed, only the records they can alter are decoded "
                     "again and the other rows copied (else everything is decoded, and the "
                     "run says why)."),
    ] = None,
    part_size: Annotated[
        str,
        typer.Option("--part-size", metavar="SIZE", help="Close a part of records, links or "
                     "errors and start the next at this size (256MB, 64MiB, bytes)."),
    ] = "256MiB",
    task_size: Annotated[
        str,
        typer.Option("--task-size", metavar="SIZE", help="Group small local input files "
                     "into one task up to this many bytes of input (0: a task per file)."),
    ] = "64MiB",
    commit_width: Annotated[
        int,
        typer.Option("--commit-width", min=1, help="Parts (on Spark: tasks) put in place "
                     "at once when tasks are committed."),
    ] = 16,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="Stop at the first record error (for debugging).")
    ] = False,
) -> None:
    """Decode archived crawls into Parquet tables under --out."""
    from pipeline.runners.startup import start_worker

    start_worker()  # first: this process decodes when it runs one worker
    from pipeline.rules import RulesError
    from pipeline.runners.plan import NothingToResume, plan
    from pipeline.runners.rundir import RunRefused
    from pipeline.storage import StorageError

    if not inputs and not records_from:
        _fail("no inputs: name files, folders or lists, or a record list with --records-from",
              exit_codes.USAGE)
    if engine not in ("local", "spark"):
        _fail(f"--engine {engine!r}: expected local or spark", exit_codes.USAGE)
    if engine != "spark" and (master is not None or partitions is not None):
        _fail("--master and --partitions need --engine spark", exit_codes.USAGE)
    try:
        storage, resolved = load_storage_and_rules(rules, storage_option, policy)
        planned = plan(
            inputs or [], out, resolved, workers=workers, run_id=run_id, resume=resume,
            overwrite=overwrite, allow_missing=allow_missing,
            columns=_parse_columns(columns or []),
            config_sources={
                "policy": _value_source(ctx, "policy", from_rules=rules is not None),
                "workers": _value_source(ctx, "workers"),
            },
            strict=strict, storage=storage, input_base=input_base,
            engine={"engine": engine, "master": master, "partitions": partitions},
            url_base=url_base,
            base_run=base_run,
            records_from=records_from,
            part_size=parse_size("--part-size", part_size),
            task_size=parse_size("--task-size", task_size),
            commit_width=commit_width,
        )
    except (RulesError, RunRefused) as exc:
        _fail(str(exc), exit_codes.USAGE)
    except StorageError as exc:
        _fail(f"--rules {exc}", exit_codes.USAGE)
    except NothingToResume as exc:
        _say("nothing to do:", str(exc), "yellow")
        raise typer.Exit(exit_codes.OK) from None
    for note in planned.notes:
        _say("note:", note, "yellow")
    if planned.base is not None and planned.base.change == "global":
        _say("note:", f"--base-run {planned.base.run_id}: a global change, every record is "
             f"decoded again ({'; '.join(planned.base.reasons)})", "yellow")
    executor = None
    if engine == "spark":
        from pipeline.runners.spark import (
            SparkUnavailable,
            check_executors,
            spark_executor,
            spark_session,
        )

        try:
            session = spark_session(master)
            check_executors(session, planned)  # before anything is written
            executor = spark_executor(session, partitions)
        except SparkUnavailable as exc:
            _fail(str(exc), exit_codes.USAGE)
    summary = _execute(planned, quiet, executor)
    _print_summary(summary)
    if not summary.invariant_ok:
        for problem in summary.problems:
            _say("accounting:", problem)
        raise typer.Exit(exit_codes.INVARIANT_BROKEN)
    if summary.unreadable:
        raise typer.Exit(exit_codes.UNREADABLE_INPUTS)


def _resume_command(run_id: str) -> str:
    """This command line, made to resume ``run_id`` (same inputs, rules and options)."""
    args: list[str] = []
    words = iter(sys.argv[1:])
    for word in words:
        if word == "--run-id":
            next(words, None)
        elif word not in ("--resume", "--overwrite") and not word.startswith("--run-id="):
            args.append(word)
    return shlex.join(["redecode", *args, "--resume", "--run-id", run_id])


def _execute(planned: Any, quiet: bool, executor: Any = None) -> Any:
    """Run the plan with progress and signal handling; every way it stops is one message."""
    from pipeline.runners.local import Interrupt, OutputError, RunInterrupted, execute
    from pipeline.runners.progress import run_progress
    from pipeline.runners.rundir import RunRefused
    from pipeline.runners.spark import SparkJobFailed
    from pipeline.runners.taskinfo import StrictModeError

    resume_hint = _resume_command(planned.run_id)
    try:
        with _signals_raise(Interrupt):
            if quiet or not sys.stderr.isatty():
                return execute(planned, executor=executor)
            with run_progress(_sizes(planned), console) as progress:
                return execute(planned, progress=progress, executor=executor)
    except RunRefused as exc:
        _fail(str(exc), exit_codes.USAGE)
    except StrictModeError as exc:
        _say("--strict:", str(exc))
        raise typer.Exit(exit_codes.CHECK_FAILED) from None
    except RunInterrupted as exc:
        name = signal.Signals(exc.signum).name
        _say("interrupted:", f"{name}: run {exc.run_id} stopped; the files it finished are "
             f"kept. Resume with: {resume_hint}", "yellow")
        raise typer.Exit(128 + exc.signum) from None
    except OutputError as exc:
        _say("error:", f"cannot write the output: {exc}; run {exc.run_id} stopped. "
             f"Once it can be written, resume with: {resume_hint}")
        raise typer.Exit(exit_codes.OUTPUT_FAILED) from None
    except SparkJobFailed as exc:
        _say("error:", f"{exc}; run {planned.run_id} stopped, the files committed so far are "
             f"kept. Resume with: {resume_hint}")
        raise typer.Exit(exit_codes.OUTPUT_FAILED) from None


def _sizes(planned: Any) -> list[int | None]:
    """The size of what each task reads, a local input file, a group of them or a batch of
    saved pages (for the progress bar's bytes and time left); None for a remote one
    (knowing it would cost a request each) or one that is gone."""
    import os

    from pipeline.storage import is_remote

    def size(path: str) -> int | None:
        try:
            return None if is_remote(path) else os.path.getsize(path)
        except OSError:
            return None

    sizes: list[int | None] = []
    for name in planned.files:
        ranges = planned.ranges.get(name)
        members = [path for path, _, _ in planned.pages.get(name, ())] or list(
            planned.groups.get(name, ()))
        if ranges is not None:  # a record list's task reads its records' ranges
            sizes.append(ranges.size)
        elif members:
            each = [size(path) for path in members]
            sizes.append(None if None in each else sum(s or 0 for s in each))
        else:
            sizes.append(size(name))
    return sizes


@contextmanager
def _signals_raise(exception: Callable[[int], BaseException]) -> Iterator[None]:
    """While the run executes, SIGINT and SIGTERM raise ``exception(signum)`` in this
    process, so the runner stops its workers, removes their temporary files and unlocks."""

    def handler(signum: int, frame: object) -> None:
        raise exception(signum)

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


#: Paths listed per reason in the summary (all of them are in the runs row's config).
SHOWN_PER_REASON = 10


def _print_summary(summary: Any) -> None:
    from pipeline.runners.local import RunSummary

    assert isinstance(summary, RunSummary)
    table = Table(title=f"run {summary.run_id}", show_header=False)
    rate = summary.seen / summary.seconds if summary.seconds else 0.0
    passed_over = Counter(reason for _, reason in summary.skipped_inputs)
    rows = [
        ("files", f"{summary.files} ({summary.resumed_files} resumed)"),
        ("passed over", f"{len(summary.skipped_inputs)} {dict(sorted(passed_over.items()))}"),
        ("records seen", f"{summary.seen:,}"),
        ("written", f"{summary.written:,}"),
        ("skipped", f"{summary.skipped_total:,} {summary.skipped}"),
        ("errors", f"{summary.errors:,} records lost, {summary.partial_errors:,} partial "
                   "(written with a part failed)"),
        ("links", f"{summary.links:,}"),
        *((("base run", f"{summary.base_run} ({summary.base_change} change): "
            f"{summary.copied:,} records copied, {summary.redecoded:,} decoded again"),)
          if summary.base_run else ()),
        ("encoding_source", json.dumps(summary.sources)),
        *((f"rule #{use.index}", f"{use.rule}: matched {use.matched:,}, decided {use.decided:,}")
          for use in summary.rules),
        ("time", f"{summary.seconds:.2f} s, {rate:,.0f} records/s, "
                 f"{summary.bytes_read / max(summary.seconds, 1e-6) / 1e6:.1f} MB/s"),
        ("workers", f"CPU {summary.cpu_seconds:.2f} s, "
                    f"{summary.seen / max(summary.cpu_seconds, 1e-6):,.0f} records per CPU-second, "
                    f"peak RSS {summary.peak_rss_mb:.0f} MB per worker"),
        ("invariant", "ok: seen = written + skipped + errors" if summary.invariant_ok else "BROKEN"),
        ("lost", f"{summary.attempts_lost:,} attempts (tried again), {summary.executors_lost:,} "
                 "executors or worker processes"),
    ]
    for key, value in rows:
        table.add_row(key, value)
    stdout.print(table)
    for reason in sorted(passed_over):
        paths = [path for path, why in summary.skipped_inputs if why == reason]
        for path in paths[:SHOWN_PER_REASON]:
            _say("passed over:", f"{path}: {reason}", "yellow")
        if len(paths) > SHOWN_PER_REASON:
            _say("passed over:", f"... and {len(paths) - SHOWN_PER_REASON} more ({reason}); "
                 "all are in the runs row's config", "yellow")
    for item, reason in summary.missing_inputs:
        _say("missing (allowed):", f"{item}: {reason}", "yellow")
    for use in summary.rules:
        if use.matched == 0:
            _say("rule unused:", f"[[encoding.override]] #{use.index} ({use.rule}) matched no "
                 "record in this run", "yellow")
    for lost in summary.lost[:SHOWN_PER_REASON]:
        more = f" and {len(lost.inputs) - 1} more" if len(lost.inputs) > 1 else ""
        held = f" ({lost.inputs[0]}{more})" if lost.inputs else ""
        _say(f"lost {lost.kind}:", f"{lost.where}{held}: {lost.reason}", "yellow")
    if len(summary.lost) > SHOWN_PER_REASON:
        _say("lost:", f"... and {len(summary.lost) - SHOWN_PER_REASON} more; all are in "
             f"_runs/{summary.run_id}/_lost.json", "yellow")
    for note in summary.uncleaned:
        _say("note:", note, "yellow")
    if summary.took_over_lock:
        _say("note:", f"took over the stale lock of {summary.took_over_lock} (no longer "
             "running)", "yellow")
    for path, skipped in summary.nothing_to_decode:
        _say("note:", f"{path}: nothing to decode: {_nothing_to_decode(path, skipped)}",
             "yellow")
    for path, where in summary.truncated:
        _say("truncated:", f"{path}: {where}; every record before it was read, the cut one "
             "as far as it goes (a cut download? fetch the file again)", "yellow")
    for path, reason in summary.unreadable:
        _say("unreadable:", f"{path}: {reason}")


def _nothing_to_decode(path: str, skipped: dict[str, int]) -> str:
    """Why a file that was read whole gave no row, in words (WAT and WET files named)."""
    from pipeline.sources.inputs import DERIVED_SUFFIXES

    counts = ", ".join(f"{reason} {n:,}" for reason, n in skipped.items())
    said = f"none of its {sum(skipped.values()):,} records is a response or resource ({counts})"
    derived = set(skipped) - {"warcinfo"} <= {"metadata", "conversion"}
    if path.lower().endswith(DERIVED_SUFFIXES) or (derived and set(skipped) != {"warcinfo"}):
        said += ("; a WAT or WET file holds Common Crawl's metadata or extracted text, not "
                 "the raw responses: give the .warc.gz of the same crawl")
    return said


class DecodeFormat(StrEnum):
    """Output formats of ``decode``."""

    text = "text"
    json = "json"


@app.command()
def decode(
    file: Annotated[str, typer.Argument(help="A file of raw body bytes, a path or a URL "
                                        "('-' for stdin).")],
    *,
    content_type: Annotated[
        str | None, typer.Option("--content-type", help="The HTTP Content-Type header value.")
    ] = None,
    url: Annotated[str | None, typer.Option("--url", help="The page's URL (TLD hints, links).")] = None,
    policy: Annotated[str, typer.Option("--policy", help="standard | browser | repair.")] = "standard",
    rules: RulesOpt = None,
    storage_option: StorageOpt = None,
    fmt: Annotated[
        DecodeFormat, typer.Option("--format", help="text (explained) | json.")
    ] = DecodeFormat.text,
    as_json: Annotated[bool, typer.Option("--json", hidden=True, help="Same as --format json.")] = False,
    show_text: Annotated[
        bool, typer.Option("--text", help="Print only the main text (with --format json: add it).")
    ] = False,
    show_html: Annotated[
        bool, typer.Option("--html", help="Print only the decoded source (with --format json: add it).")
    ] = False,
) -> None:
    """Decode one page as a run would and explain it: the decision step by step, the mojibake
    score, what requests would have shown, the extracted fields, and a warning when the chosen
    decoding looks wrong."""
    from pipeline.page_report import inspect_page, not_a_page, report_json, report_text
    from pipeline.rules import RulesError
    from pipeline.terminal import printable

    try:
        storage, resolved = load_storage_and_rules(rules, storage_option, policy)
        body = sys.stdin.buffer.read() if file == "-" else storage.read_bytes(file)
    except (RulesError, OSError) as exc:
        _fail(str(exc), exit_codes.USAGE)
    if show_text and show_html:
        _fail("--text and --html each print one thing: give one of them", exit_codes.USAGE)
    refused = not_a_page(body)
    if refused is not None:
        from pipeline.storage import redact_url

        _fail(f"{'stdin' if file == '-' else redact_url(file)}: {refused}", exit_codes.USAGE)
    report = inspect_page(body, content_type, url, resolved)
    if fmt is DecodeFormat.json or as_json:
        data = report_json(report)
        if show_text:
            data["main_text"] = report.fields.main_text
        if show_html:
            data["html"] = report.decoded.text
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        if show_text or show_html:
            # The page's own text: as it is for a pipe, escaped for a terminal; what the
            # report would have warned of goes to stderr, so the text alone is on stdout.
            for warning in report.warnings:
                _say("warning:", warning, "yellow")
            out = report.fields.main_text if show_text else report.decoded.text
            raw = not sys.stdout.isatty()
        else:
            out, raw = report_text(report), False
        typer.echo(out if raw else "\n".join(printable(line) for line in out.split("\n")))


def _mount_audit_commands() -> None:
    # audit / diff / report and suggest-rules live in their own modules; they appear as
    # top-level commands.
    from pipeline import cli_audit, cli_rules

    app.registered_commands.extend(cli_audit.app.registered_commands)
    app.registered_commands.extend(cli_rules.app.registered_commands)


_mount_audit_commands()
