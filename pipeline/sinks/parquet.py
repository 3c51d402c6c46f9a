"""Parquet sinks: an explicit schema, row-group batching, written to a binary file object
the caller opened (and later puts in place: the runner writes parts under temporary names
and commits them, see ``docs/run.md``).
"""

from __future__ import annotations

import os
from typing import IO, Any

import pyarrow as pa
import pyarrow.parquet as pq

#: Rows buffered before a row group is written (bounds memory per worker: measured peak RSS
#: per worker 434 MB with 2,000 rows, 343 MB with 500, of which 172 MB is code and models).
ROW_GROUP_ROWS = 500
#: main_text and friends can be large; flush earlier when the buffered text (in characters)
#: grows past this. Small enough that the Arrow conversion's buffers are reused rather than
#: grown (by realloc into fresh pages) for every row group: on the bench crawl 2 MiB gave a
#: quarter of the page faults of 16 MiB and 187 MB instead of 314 MB peak RSS per worker.
ROW_GROUP_BYTES = 2 * 2**20


def use_reusing_memory_pool() -> str:
    """Make Arrow allocate from jemalloc (else the system allocator) unless the user chose a
    pool with ``ARROW_DEFAULT_MEMORY_POOL``; returns the pool's name.

    pyarrow's default, mimalloc, hands the multi-MB buffers of every row group back to the
    kernel and faults them in again as zeroed huge pages: 3.9% of a worker's CPU under perf
    on the bench crawl, 0.7% with jemalloc (1.1% with the system allocator), and ~25 MB less
    peak RSS per worker.
    """
    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        return pa.default_memory_pool().backend_name
    try:
        pool = pa.jemalloc_memory_pool()
    except NotImplementedError:  # a pyarrow built without jemalloc
        pool = pa.system_memory_pool()
    pa.set_memory_pool(pool)
    return pool.backend_name


class ParquetSink:
    """Writes rows of one table to one binary file (opened and closed by the caller)."""

    def __init__(self, sink: IO[bytes], schema: pa.Schema,
                 unique_valued: frozenset[str] = frozenset(),
                 free_text: frozenset[str] = frozenset()) -> None:
        self.sink = sink
        self.schema = schema
        # dictionary-encode every column but those whose values rarely repeat
        self._dictionary = [f.name for f in schema if f.name not in unique_valued]
        # min/max statistics on every column but free text (schema.FREE_TEXT says why)
        self._statistics = [f.name for f in schema if f.name not in free_text]
        # The string columns, measured per row (not every value tested for its type).
        self._text_columns = tuple(f.name for f in schema
                                   if pa.types.is_string(f.type) or pa.types.is_large_string(f.type))
        self.rows_written = 0
        self._buffer: list[dict[str, Any]] = []
        self._buffer_bytes = 0
        # Converted tables not yet written, and their rows and text: a row group gathers
        # them up to the same limits as rows given one by one.
        self._pending: list[pa.Table] = []
        self._pending_rows = 0
        self._pending_bytes = 0
        self._writer: pq.ParquetWriter | None = None

    def text_size(self, row: dict[str, Any]) -> int:
        """The characters in ``row``'s string columns (what the row-group threshold counts)."""
        # (map/filter keep the per-column loop in C: None and "" add nothing)
        return sum(map(len, filter(None, map(row.get, self._text_columns))))

    def table_text_size(self, table: pa.Table) -> int:
        """The bytes of ``table``'s string columns: what the row-group threshold counts for
        a table that is not converted here (an upper bound of :meth:`text_size`'s
        characters)."""
        return sum(table.column(name).nbytes for name in self._text_columns)

    def write(self, row: dict[str, Any]) -> None:
        """Buffer one row; a full buffer becomes a row group."""
        self._buffer.append(row)
        self._buffer_bytes += self.text_size(row)
        if (len(self._buffer) + self._pending_rows >= ROW_GROUP_ROWS
                or self._buffer_bytes + self._pending_bytes >= ROW_GROUP_BYTES):
            self._flush()

    def write_table(self, table: pa.Table, text: int = 0) -> None:
        """Add ``table`` (already converted to this schema; ``text``: the characters in its
        string columns, as :meth:`text_size` counts them) after what :meth:`write` buffered.
        Tables are gathered into one row group until it holds ``ROW_GROUP_ROWS`` rows or
        ``ROW_GROUP_BYTES`` of text. Arrow sets up a zstd context for each column chunk: the
        records a task converts at a time (~130 on the bench crawl) made a row group each, and
        writing Parquet took 116-117 µs a page against 99-105 gathered (``bench.stage_profile``)."""
        self._pend_buffer()  # (rows given one by one keep their place)
        if table.num_rows:
            self._pend(table, text)
        if self._pending_rows >= ROW_GROUP_ROWS or self._pending_bytes >= ROW_GROUP_BYTES:
            self._write_pending()

    def write_many(self, rows: list[dict[str, Any]]) -> None:
        """:meth:`write` for each of ``rows`` (a page's links), in order."""
        write = self.write
        for row in rows:
            write(row)

    def _flush(self) -> None:
        """Write what is buffered and pending as one row group."""
        self._pend_buffer()
        self._write_pending()

    def _pend_buffer(self) -> None:
        if self._buffer:
            self._pend(pa.Table.from_pylist(self._buffer, schema=self.schema), self._buffer_bytes)
            self._buffer = []
            self._buffer_bytes = 0

    def _pend(self, table: pa.Table, text: int) -> None:
        self._pending.append(table)
        self._pending_rows += table.num_rows
        self._pending_bytes += text

    def _write_pending(self) -> None:
        if self._writer is None:
            self._writer = pq.ParquetWriter(self.sink, self.schema, compression="zstd",
                                            use_dictionary=self._dictionary,
                                            write_statistics=self._statistics)
        if self._pending:
            tables, self._pending = self._pending, []
            self._writer.write_table(tables[0] if len(tables) == 1 else pa.concat_tables(tables))
            self.rows_written += self._pending_rows
            self._pending_rows = self._pending_bytes = 0

    def close(self) -> None:
        """Write what is buffered and the footer (an empty table still gets a whole file);
        the file object stays open."""
        self._flush()
        assert self._writer is not None
        self._writer.close()
        self._writer = None

    def abort(self) -> None:
        """Stop writing (the caller discards the file)."""
        self._writer = None
        self._buffer = []
        self._pending = []
        self._pending_rows = self._pending_bytes = 0
