"""``redecode suggest-rules``: the rules a finished run's evidence supports (a thin typer
command over :mod:`pipeline.suggest`, mounted into the main app by ``pipeline.cli``).

Exit codes: 0 the rules were written (whether or not any was proposed); 2 usage error
(nothing written: no such run, a bad option, an unusable ``--rules``); 3 written, but some
part of the run could not be read (each printed with its reason).
"""

# No `from __future__ import annotations` here: typer reads every command's annotations
# when the CLI starts, and evaluates string ones twice each (~7 ms of each start).

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from pipeline.cli_audit import (
    OutDirOpt,
    StorageOpt,
    _fail,
    _known_runs,
    _open_out,
    _report_unreadable,
    _say,
)

app = typer.Typer(help="Rules learned from a run.", add_completion=False)


class RulesFormat(StrEnum):
    """Output formats of ``suggest-rules``."""

    toml = "toml"
    json = "json"


@app.command("suggest-rules")
def suggest_rules_command(
    *,
    out: OutDirOpt = "out",
    run_id: Annotated[
        str | None, typer.Option("--run-id", "--run", help="The run to learn from (default: "
                                 "the newest).")
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Rules file to write (default: "
                                  "standard output).")
    ] = None,
    rules: Annotated[
        str | None, typer.Option("--rules", help="The current rules file: its entries are "
                                 "kept, and what they cover gets no proposal (default: the "
                                 "run's own overrides).")
    ] = None,
    min_pages: Annotated[
        int, typer.Option("--min-pages", min=1, help="Pages whose bytes say the rule's "
                          "encoding strongly that a rule needs at least.")
    ] = 2,
    holdout: Annotated[
        float | None, typer.Option("--holdout", metavar="FRACTION", help="Learn on the "
                                   "other pages of each host and report, on this fraction "
                                   "of them, what the rules would change.")
    ] = None,
    fmt: Annotated[RulesFormat, typer.Option("--format", help="toml | json.")] = RulesFormat.toml,
    storage_option: StorageOpt = None,
) -> None:
    """Propose [[encoding.override]] rules from a finished run: hosts (or URL prefixes)
    whose declarations their bytes contradict (force), or that declare nothing and whose
    pages agree (fallback); each with its evidence, and what was not proposed and why."""
    from pipeline import audit, suggest
    from pipeline.cli import load_storage_and_rules
    from pipeline.rules import RulesError
    from pipeline.storage import StorageError

    if holdout is not None and not 0 < holdout < 1:
        raise _fail(f"--holdout {holdout}: a fraction between 0 and 1 (exclusive)", 2)
    if output is not None and (output.is_dir() or str(output).endswith(("/", "\\"))):
        raise _fail(f"-o {output} is a folder; give the rules file to write", 2)
    current_text = None
    try:
        storage, current = load_storage_and_rules(rules, storage_option)
        if rules is not None:
            current_text = storage.read_bytes(rules).decode("utf-8")
    except (RulesError, StorageError, OSError) as exc:
        raise _fail(f"--rules {exc}" if not str(exc).startswith(str(rules)) else str(exc), 2) from None
    parts = _open_out(out, storage_option)
    con = audit.connect(parts, run=run_id)
    known = _known_runs(out, con, [run_id] if run_id is not None else [])
    selected = run_id or known[0]
    overrides = (current.encoding.overrides if rules is not None
                 else suggest.run_overrides(con, selected))
    groups = suggest.gather(con, overrides, holdout)
    found = suggest.propose(groups, min_pages=min_pages, holdout=holdout, run_id=selected)
    if fmt is RulesFormat.json:
        text = json.dumps(suggest.to_json(found), indent=2, ensure_ascii=False) + "\n"
    else:
        text = suggest.to_toml(found, current_text, rules)
        _check_rules_file(text)
    if output is None:
        sys.stdout.write(text)
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise _fail(f"-o {output}: {exc.strerror or exc}", 2) from None
        _say(f"wrote {output}: {len(found.proposals)} rule(s) proposed, "
             f"{len(found.not_proposed)} not proposed")
    if _report_unreadable(parts, {selected}):
        raise _fail("some parts of this run could not be read (listed above)", 3)


def _check_rules_file(text: str) -> None:
    """The file written must load as rules (a current file written with inline tables that
    the appended entries cannot extend is refused, not written broken)."""
    from pipeline.rules import RulesError, load_rules

    try:
        load_rules("suggested rules", raw=text.encode("utf-8"))
    except RulesError as exc:
        raise _fail(f"the proposed rules do not load together with --rules: {exc}", 2) from None
