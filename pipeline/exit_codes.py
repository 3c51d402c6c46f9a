"""The exit codes every ``redecode`` command uses, declared once (README and ``--help`` show
the same table).

A run stopped from outside follows the shell's conventions instead: 128 + the signal's
number (130 after Ctrl-C, 143 after SIGTERM), and 74 (``EX_IOERR`` of BSD's sysexits.h)
when its output could not be written (a full disk); both say how to resume.
"""

from __future__ import annotations

OK = 0
#: A gate (``--fail-on``) or a check (``--check``, ``--strict``) failed.
CHECK_FAILED = 1
#: A usage or configuration error, found before anything was written.
USAGE = 2
#: The run finished, but some inputs could not be read at all (each is printed with its reason).
UNREADABLE_INPUTS = 3
#: The accounting invariant (seen = written + skipped + errors) broke.
INVARIANT_BROKEN = 4
#: The run stopped because its output could not be written (sysexits.h ``EX_IOERR``).
OUTPUT_FAILED = 74

TABLE = (
    (OK, "success"),
    (CHECK_FAILED, "a gate (--fail-on) or a check (--check, --strict) failed"),
    (USAGE, "usage or configuration error, found before anything is written"),
    (UNREADABLE_INPUTS, "the run finished, but some inputs could not be read at all"),
    (INVARIANT_BROKEN, "the accounting invariant broke (seen = written + skipped + errors)"),
)


def help_text() -> str:
    """The table as ``--help`` prints it (click keeps the lines of a paragraph led by ``\\b``)."""
    lines = ["\b", "Exit codes:"]
    lines += [f"  {code}  {meaning}" for code, meaning in TABLE]
    lines.append("  130/143 stopped by Ctrl-C/SIGTERM; 74 the output could not be written")
    return "\n".join(lines)
