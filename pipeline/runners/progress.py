"""A rich progress display for runs: files done, records/s and MB/s (rich's progress
machinery is imported when a bar is drawn: a quiet run, or one whose standard error is not
a terminal, draws none)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

#: A run's progress callback: (event, records, bytes); event "records" (records and bytes
#: done since the last call) or "file" (one more input file finished).
ProgressFn = Callable[[str, int, int], None]


@contextmanager
def run_progress(total_files: int, console: Console | None = None) -> Iterator[ProgressFn]:
    """Yield a progress callback for :func:`pipeline.runners.local.run`; draws while it runs
    (on ``console``, the terminal's standard error by default)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    started = time.monotonic()
    counts = {"records": 0, "bytes": 0}
    bar = Progress(
        TextColumn("[bold]files"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )
    task = bar.add_task("files", total=total_files, rate="")

    def update(event: str, records: int, nbytes: int) -> None:
        if event == "file":
            bar.advance(task)
            return
        counts["records"] += records
        counts["bytes"] += nbytes
        elapsed = max(time.monotonic() - started, 1e-6)
        bar.update(
            task,
            rate=f"{counts['records']:,} records  {counts['records'] / elapsed:,.0f} rec/s  "
            f"{counts['bytes'] / elapsed / 1e6:,.1f} MB/s",
        )

    with bar:
        yield update
