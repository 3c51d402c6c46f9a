"""A task of a record list (:mod:`pipeline.sources.record_lists`): the records it names in
one file, read by their byte ranges with the reader ``--base-run`` reads records back with
(:func:`pipeline.sources.ranges.read_located`), near ranges fetched together; or the list's
rows that name no record, one ``errors`` row each.

A file that cannot be opened (missing, access refused) or that has no records to read (an
empty file, a zstd dictionary that cannot be used) gives each listed record an ``errors``
row with its locator and makes the file *unreadable* (the run exits 3, as for a whole file);
a range that is not one record is that record's ``errors`` row (``source-bad-locator``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import BinaryIO

from pipeline.errors import RecordError
from pipeline.runners.taskinfo import Task
from pipeline.sources.ranges import read_located
from pipeline.sources.record import RawRecord
from pipeline.storage import StorageError

#: The errors that say the file as a whole could not be read (each listed record gets one).
FILE_ERRORS = frozenset({"source-unreadable-file", "source-empty-file",
                         "source-bad-zstd-dictionary"})


class RangeReading:
    """The reading of a range task, with what :class:`~pipeline.runners.task.run_task`
    asks of an opened input: how far it has read (the bytes of the records' ranges, for
    progress) and whether the file was unreadable."""

    def __init__(self, task: Task) -> None:
        assert task.ranges is not None
        self.task = task
        self.ranges = task.ranges
        self.size = self.ranges.size
        self.unreadable: str | None = None
        self._read = 0
        self._reported = 0
        self._fh: BinaryIO | None = None

    def records(self) -> Iterator[RawRecord | RecordError]:
        """The listed records of the file, in file order (or the list's bad rows)."""
        task, ranges = self.task, self.ranges
        yield from ranges.bad
        locators = ranges.locators()
        if not locators:
            return
        try:
            self._fh = task.storage.open_read(task.path, random_access=True)
        except StorageError as exc:
            self.unreadable = f"source-unreadable-file: {exc}{ranges.hint}"
            for loc in locators:
                yield RecordError("source", "source-unreadable-file",
                                  f"{exc}{ranges.hint}"[:2000], task.warc_filename, loc.offset,
                                  offset_in_member=loc.offset_in_member, length=loc.length)
            return
        read_any = False
        try:
            for item in read_located(self._fh, task.warc_filename, locators,
                                     max_block=task.rules.max_decompressed, coalesce=True):
                if isinstance(item, RawRecord):
                    read_any = True
                    self._read += item.warc_record_length
                elif not read_any and self.unreadable is None and item.error_type in FILE_ERRORS:
                    self.unreadable = f"{item.error_type}: {item.message}"
                yield item
        except Exception as exc:  # a reader bug costs the records not read yet, not the run
            yield RecordError("source", "source-reader-failed",
                              f"reading stopped: {type(exc).__name__}: {exc}"[:2000],
                              task.warc_filename)
        finally:
            self.close()
        if read_any:
            self.unreadable = None

    def advance(self) -> int:
        """Bytes of the listed records read since the last call."""
        step = max(min(self._read, self.size) - self._reported, 0)
        self._reported += step
        return step

    def finish(self) -> int:
        """The bytes not reported yet: by the end every listed range counts as read."""
        step = max(self.size - self._reported, 0)
        self._reported = self.size
        return step

    def close(self) -> None:
        """Close the file (if it was opened)."""
        if self._fh is not None:
            with contextlib.suppress(Exception):
                self._fh.close()
