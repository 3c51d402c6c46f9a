"""A rich progress display for runs: the bar and its time left follow the bytes of the input
files read (not only whole files: one large file is most of a run), beside files done,
records, records/s and MB/s (rich's progress machinery is imported when a bar is drawn: a
quiet run, or one whose standard error is not a terminal, draws none)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from rich.console import Console

#: What a run tells its progress display: "records" (records done and bytes of the input
#: file read since the last call), "file" (one more input file finished: count and bytes
#: 0), "resumed" (count is the rank of a file an earlier run committed: not read again).
ProgressEvent = Literal["records", "file", "resumed"]
#: A run's progress callback: (event, count, bytes).
ProgressFn = Callable[[ProgressEvent, int, int], None]


class RunProgress:
    """What the display knows: the size of every input file (None where it is not known
    without asking a remote store) and what was done. The bar's total is the bytes to read
    (a file of unknown size counts as the mean of the known ones); with no size known at
    all, it counts files."""

    def __init__(self, sizes: Sequence[int | None]) -> None:
        self.sizes = list(sizes)
        self.files = len(self.sizes)
        self.files_done = 0
        self.records = 0
        self.bytes_read = 0
        self.skipped_bytes = 0  # files resumed: committed before, not read again

    @property
    def by_bytes(self) -> bool:
        """True when the bar follows bytes (some size is known)."""
        return any(size is not None for size in self.sizes)

    @property
    def total(self) -> float:
        """What the bar runs to: bytes still to read when it follows bytes, else files."""
        if not self.by_bytes:
            return float(self.files)
        known = [size for size in self.sizes if size is not None]
        mean = sum(known) / len(known)
        return sum(mean if size is None else size for size in self.sizes) - self.skipped_bytes

    @property
    def completed(self) -> float:
        """Where the bar stands (never past its total; all of it once every file is done)."""
        if self.files_done >= self.files:
            return self.total
        done = self.bytes_read if self.by_bytes else self.files_done
        return min(float(done), self.total)

    def update(self, event: ProgressEvent, count: int, nbytes: int) -> None:
        """Take one :data:`ProgressFn` event."""
        if event == "records":
            self.records += count
            self.bytes_read += nbytes
        elif event == "file":
            self.files_done += 1
        elif event == "resumed":
            self.files_done += 1
            size = self.sizes[count] if 0 <= count < self.files else None
            if size is not None:
                self.skipped_bytes += size

    def line(self, elapsed: float) -> str:
        """Files, records and rates, as the bar's text shows them."""
        elapsed = max(elapsed, 1e-6)
        return (f"{self.files_done:,}/{self.files:,} files  {self.records:,} records  "
                f"{self.records / elapsed:,.0f} rec/s  {self.bytes_read / elapsed / 1e6:,.1f} MB/s")


@contextmanager
def run_progress(sizes: Sequence[int | None], console: Console | None = None
                 ) -> Iterator[ProgressFn]:
    """Yield a progress callback for :func:`pipeline.runners.local.execute` over input files
    of ``sizes`` (bytes, by rank; None where unknown); draws while it runs (on ``console``,
    the terminal's standard error by default)."""
    from rich.progress import (
        BarColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    started = time.monotonic()
    state = RunProgress(sizes)
    bar = Progress(
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[line]}"),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    )
    task = bar.add_task("run", total=state.total, line=state.line(0.0))

    def update(event: ProgressEvent, count: int, nbytes: int) -> None:
        state.update(event, count, nbytes)
        bar.update(task, total=state.total, completed=state.completed,
                   line=state.line(time.monotonic() - started))

    with bar:
        yield update
