"""Record lists: inputs that name records by their byte ranges instead of whole files.

A record list is a table with one row per record: ``warc_filename`` (string),
``warc_record_offset`` and ``warc_record_length`` (integers), the columns of Common Crawl's
columnar index (``cc-index-table``: what an Athena or DuckDB query over it selects, as
cc-pyspark's ``CCIndexWarcSparkJob`` reads it) and of redecode's own ``records`` and
``errors`` tables. ``warc_record_offset_in_member`` is read when the list has it (redecode's
tables: a record inside a whole-file gzip member cannot be read by its range alone); other
columns are ignored. It is a Parquet file, or a CSV file (``.csv``, ``.csv.gz``; a header
row, then one record a row).

Which input is a list (:func:`is_record_list`): any file named with ``--records-from``, a
``.csv``/``.csv.gz`` file named as an input, and a Parquet file named as an input whose
columns hold the three locator columns and no page body (a Parquet table of pages, read by
:mod:`pipeline.sources.parquet`, has a ``body`` column; a table with both is a table of
pages: its bodies are decoded, as before). A list without the three columns, or whose
Parquet columns have other types, is refused before the run starts (:class:`RecordListError`).

The rows are read whole when the run is planned (:func:`read_record_lists`): each
``warc_filename`` that is not an absolute path or a URL is taken relative to
``--input-base`` (``s3://commoncrawl/`` or ``https://data.commoncrawl.org/`` for Common
Crawl's ``crawl-data/...`` names), else to the list's folder. The records are grouped by
file, in file order, one task per file (:class:`RecordRanges`); a record listed twice is read
once. A row that names no record (a null or empty field, a negative offset, a length below 1,
an integer that does not parse, a CSV row with missing fields) is an ``errors`` row
(``source-bad-list-row``, with what the row holds of its locator), written by a task of the
list's own; a row that names a file that is not there, an offset past its end or a range
that is not one record is an ``errors`` row of its file's task (``source-unreadable-file``,
``source-bad-locator``: :func:`pipeline.sources.ranges.read_located`). So every row is one
record seen, and ``seen = written + skipped + errors`` counts the list's rows.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import os
import re
from array import array
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Literal, Protocol

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.errors import RecordError
from pipeline.sources.ranges import Locator

#: The columns a record list must have (Common Crawl's columnar index names them so).
LOCATOR_COLUMNS = ("warc_filename", "warc_record_offset", "warc_record_length")
#: Read when the list has it: where a record starts inside its gzip member.
IN_MEMBER = "warc_record_offset_in_member"
#: Names of files that are record lists when named as inputs (a Parquet file: by its columns).
CSV_SUFFIXES = (".csv", ".csv.gz")
#: The page body column of a Parquet table of pages (``--columns body=...`` renames it).
BODY = "body"
#: A list row's field that is not written out in full in a message beyond this many characters.
SHOWN = 200

ListKind = Literal["parquet", "csv"]
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


class RecordListError(ValueError):
    """A record list that cannot be read as one (the run is refused: exit code 2)."""


class Reader(Protocol):
    """What reading a list needs of the storage layer (``pipeline.storage.Storage``)."""

    def open_read(self, path: str, *, random_access: bool = False) -> BinaryIO: ...


@dataclass(frozen=True, slots=True, eq=False)
class RecordRanges:
    """What one task of a record list reads: the records of one file, in file order
    (:meth:`locators`), held compactly (a run over a columnar-index query may name millions
    of records); or, for the list's own task, the list's rows that name no record
    (:attr:`bad`, each an ``errors`` row; nothing is opened)."""

    #: the lists that named these records, for messages
    lists: tuple[str, ...]
    offsets: array[int] = field(default_factory=lambda: array("q"))
    lengths: array[int] = field(default_factory=lambda: array("q"))
    #: -1: the record starts its member (the locator's ``offset_in_member`` None)
    in_member: array[int] = field(default_factory=lambda: array("q"))
    bad: tuple[RecordError, ...] = ()
    #: a hint for a missing file (a relative name looked for without ``--input-base``)
    hint: str = ""

    def __len__(self) -> int:
        return len(self.offsets) + len(self.bad)

    @property
    def size(self) -> int:
        """The bytes of the records' ranges (what the task reads, for progress)."""
        return sum(self.lengths)

    def locators(self) -> list[Locator]:
        """The records, as :func:`~pipeline.sources.ranges.read_located` takes them."""
        return [Locator(o, n, None if m < 0 else m)
                for o, n, m in zip(self.offsets, self.lengths, self.in_member, strict=True)]


@dataclass(frozen=True, slots=True)
class RecordLists:
    """The record lists of a run, grouped into tasks."""

    #: a file's path (as it is opened) -> its records; a list's path -> its rows that name
    #: no record (tasks in this order: the files sorted, then the lists)
    tasks: dict[str, RecordRanges]
    #: what the run's config keeps of each list: its path, rows and a digest of what it
    #: names (a resumed run must name the same records)
    identity: list[dict[str, Any]]
    #: one line per list for the terminal
    notes: list[str]


def list_kind(name: str) -> ListKind | None:
    """The kind of record list a file's name says it is (None: a Parquet file's columns,
    or nothing, decide).

    >>> list_kind("index.CSV"), list_kind("q.csv.gz"), list_kind("q.parquet"), list_kind("a.warc")
    ('csv', 'csv', 'parquet', None)
    """
    lower = name.split("?", 1)[0].lower()
    if lower.endswith(CSV_SUFFIXES):
        return "csv"
    if lower.endswith(".parquet"):
        return "parquet"
    return None


def is_record_list(path: str, storage: Reader, columns: Mapping[str, str] | None = None
                   ) -> bool:
    """Whether an input named on the command line is a record list (module docstring): a
    CSV file, or a Parquet file with the locator columns and no page body (``columns``:
    ``--columns``' renames of the page table's columns). Reads a Parquet file's footer;
    False for anything else, and for a file that cannot be opened or is not Parquet (the
    run reports it as the input it is)."""
    kind = list_kind(path)
    if kind is None or _has_glob(path) or (not _URL.match(path) and not os.path.isfile(path)):
        return False
    if kind == "csv":
        return True
    try:
        with storage.open_read(path, random_access=True) as fh:
            names = set(pq.read_schema(fh).names)
    except Exception:  # noqa: BLE001 - not a list; read as an input, which says why
        return False
    their = _their(columns or {})
    body = (columns or {}).get(BODY, BODY)
    return {their[c] for c in LOCATOR_COLUMNS} <= names and body not in names


def read_record_lists(paths: list[str], storage: Reader, input_base: str | None,
                      shown: Mapping[str, str] | None = None,
                      columns: Mapping[str, str] | None = None) -> RecordLists:
    """The records ``paths`` (record lists) name, grouped by file (module docstring).
    ``shown``: a path as messages and rows name it (without credentials); by default itself.
    ``columns``: the lists' names of our columns where they differ (``--columns
    warc_filename=filename``: a CDX index's ``filename``, ``offset``, ``length``).
    Raises :class:`RecordListError` for a list that cannot be one."""
    if not paths:  # (a run without a list loads no pyarrow.compute)
        return RecordLists({}, [], [])
    shown = shown or {}
    parts: list[pa.Table] = []
    tasks: dict[str, RecordRanges] = {}
    identity: list[dict[str, Any]] = []
    notes: list[str] = []
    hints: dict[str, str] = {}
    for number, path in enumerate(paths):
        name = shown.get(path, path)
        table = _read(path, name, storage, columns or {})
        base = input_base or (_url_folder(path) if _URL.match(path) else os.path.dirname(path))
        table, bad, relative = _valid(table, name, base)
        if input_base is None:
            hint = (f" (a relative warc_filename, looked for beside the list {name} since no "
                    "--input-base was given; Common Crawl's names need --input-base "
                    "s3://commoncrawl/ or https://data.commoncrawl.org/)")
            for resolved in relative:
                hints.setdefault(resolved, hint)
        parts.append(table.append_column(
            "list", pa.array(np.full(table.num_rows, number, np.int32))))
        if bad:
            before = tasks[name].bad if name in tasks else ()
            tasks[name] = RecordRanges((name,), bad=before + tuple(bad))
        identity.append({"path": name, "rows": table.num_rows + len(bad),
                         "sha256": _digest(table)})
        notes.append(f"record list {name}: {table.num_rows + len(bad)} rows"
                     + (f", {len(bad)} naming no record (errors rows)" if bad else ""))
    merged = pa.concat_tables(parts) if parts else _EMPTY
    files, dropped = _group(merged, [shown.get(p, p) for p in paths], hints)
    if dropped:
        notes.append(f"record lists: {dropped} rows repeat a record listed before (read once)")
    return RecordLists({**dict(sorted(files.items())), **tasks}, identity, notes)


_EMPTY = pa.table({"file": pa.array([], pa.string()), "offset": pa.array([], pa.int64()),
                   "length": pa.array([], pa.int64()), "in_member": pa.array([], pa.int64()),
                   "list": pa.array([], pa.int32())})


def _read(path: str, name: str, storage: Reader, columns: Mapping[str, str]) -> pa.Table:
    """The list's rows as a table of ``warc_filename`` (string), ``offset``, ``length`` and
    ``in_member`` (integers, null when absent), ``row`` (its number in the list) and
    ``problem`` (why a CSV row names no record, found while parsing it; else null).
    ``columns``: the list's names of our columns (``--columns warc_filename=filename``)."""
    try:
        with storage.open_read(path, random_access=True) as fh:
            raw = fh.read() if list_kind(path) == "csv" else None
            if raw is None:
                fh.seek(0)
                head = fh.read(4)
                fh.seek(0)
                if head != b"PAR1":
                    raise RecordListError(f"{name}: not a Parquet file or a CSV file (.csv, "
                                          ".csv.gz), so not a record list")
                return _read_parquet(pq.ParquetFile(fh), name, columns)
    except RecordListError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure to read the list refuses the run
        raise RecordListError(f"{name}: cannot be read as a record list: "
                              f"{type(exc).__name__}: {exc}") from None
    return _read_csv(raw, name, path.split("?", 1)[0].lower().endswith(".gz"), columns)


def _their(columns: Mapping[str, str]) -> dict[str, str]:
    """Our four column names -> the list's names of them."""
    return {ours: columns.get(ours, ours) for ours in (*LOCATOR_COLUMNS, IN_MEMBER)}


def _lacking(name: str, their: dict[str, str], present: list[str], csv_header: bool) -> None:
    """Raise :class:`RecordListError` when the list lacks one of the locator columns."""
    missing = [their[c] if their[c] == c else f"{their[c]} ({c}, --columns)"
               for c in LOCATOR_COLUMNS if their[c] not in present]
    if missing:
        raise RecordListError(
            f"{name}: a record list needs {'a header row with ' if csv_header else ''}the "
            f"columns {', '.join(their[c] for c in LOCATOR_COLUMNS)}; it lacks "
            f"{', '.join(missing)}")


def _read_parquet(parquet: pq.ParquetFile, name: str, columns: Mapping[str, str]) -> pa.Table:
    schema = parquet.schema_arrow
    their = _their(columns)
    _lacking(name, their, schema.names, csv_header=False)
    ours = [*LOCATOR_COLUMNS, *([IN_MEMBER] if their[IN_MEMBER] in schema.names else [])]
    wanted = [their[c] for c in ours]
    for column in ours:
        kind = schema.field(their[column]).type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        good = (pa.types.is_string(kind) or pa.types.is_large_string(kind)
                if column == "warc_filename" else pa.types.is_integer(kind))
        if not good:
            raise RecordListError(f"{name}: column {their[column]} is {kind}, not "
                                  f"{'a string' if column == 'warc_filename' else 'an integer'}")
    table = parquet.read(columns=wanted)
    n = table.num_rows
    in_member = (table.column(their[IN_MEMBER]).cast(pa.int64()) if IN_MEMBER in ours
                 else pa.nulls(n, pa.int64()))
    return pa.table({
        "warc_filename": table.column(their["warc_filename"]).cast(pa.string()),
        "offset": table.column(their["warc_record_offset"]).cast(pa.int64()),
        "length": table.column(their["warc_record_length"]).cast(pa.int64()),
        "in_member": in_member,
        "row": pa.array(np.arange(1, n + 1, dtype=np.int64)),
        "problem": pa.nulls(n, pa.string()),
    })


def _read_csv(raw: bytes, name: str, compressed: bool, columns: Mapping[str, str]
              ) -> pa.Table:
    """A CSV list: every field read as text, the integers parsed here (a field that does not
    parse makes its row a bad row, not the list a bad list)."""
    try:
        text = (gzip.decompress(raw) if compressed else raw).decode("utf-8-sig")
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise RecordListError(f"{name}: cannot be read as a CSV record list: "
                              f"{type(exc).__name__}: {exc}") from None
    rows = csv.reader(io.StringIO(text, newline=""))
    header = [h.strip() for h in next(rows, [])]
    their = _their(columns)
    _lacking(name, their, header, csv_header=True)
    at = [header.index(their[c]) for c in (*LOCATOR_COLUMNS, IN_MEMBER) if their[c] in header]
    files: list[str | None] = []
    ints: list[list[int | None]] = [[], [], []]
    numbers: list[int] = []
    problems: list[str | None] = []
    for number, fields in enumerate(rows, 2):  # line 1 is the header
        if not any(f.strip() for f in fields):
            continue  # a blank line
        cells = [fields[i].strip() if i < len(fields) else None for i in at]
        problem = (f"{len(fields)} fields where the header has {len(header)}"
                   if len(fields) < len(header) else None)
        values: list[int | None] = []
        for column, cell in zip((*LOCATOR_COLUMNS, IN_MEMBER)[1:len(at)], cells[1:], strict=True):
            if not cell:
                values.append(None)
                continue
            try:
                values.append(int(cell))
            except ValueError:
                values.append(None)
                problem = problem or f"{their[column]} {cell[:SHOWN]!r} is not an integer"
        values += [None] * (3 - len(values))
        files.append(cells[0] or None)
        for column_values, value in zip(ints, values, strict=True):
            column_values.append(value)
        numbers.append(number)
        problems.append(problem)
    return pa.table({
        "warc_filename": pa.array(files, pa.string()),
        "offset": pa.array(ints[0], pa.int64()),
        "length": pa.array(ints[1], pa.int64()),
        "in_member": pa.array(ints[2], pa.int64()),
        "row": pa.array(numbers, pa.int64()),
        "problem": pa.array(problems, pa.string()),
    })


def _valid(table: pa.Table, name: str, base: str
           ) -> tuple[pa.Table, list[RecordError], list[str]]:
    """The rows that name a record, their files resolved (``file``), an ``errors`` row for
    each of the others, and the files that were named by a relative name."""
    import pyarrow.compute as pc  # (only a run with a record list loads it)
    names, offsets = table.column("warc_filename"), table.column("offset")
    lengths, inner = table.column("length"), table.column("in_member")
    ok = pc.and_kleene(pc.and_kleene(pc.invert(pc.equal(pc.utf8_trim_whitespace(names), "")),
                         pc.greater_equal(offsets, 0)),
                 pc.and_kleene(pc.greater(lengths, 0),
                         pc.or_kleene(pc.is_null(inner), pc.greater_equal(inner, 0))))
    ok = pc.and_kleene(pc.fill_null(ok, False), pc.is_null(table.column("problem")))
    good = table.filter(ok)
    bad: list[RecordError] = []
    if good.num_rows < table.num_rows:
        for row in table.filter(pc.invert(ok)).to_pylist():
            bad.append(_bad_row(row, name, base))
    encoded = good.column("warc_filename").combine_chunks().dictionary_encode()
    unique = [str(v).strip() for v in encoded.dictionary.to_pylist()]
    resolved = [_resolve(v, base) for v in unique]
    relative = [r for r, v in zip(resolved, unique, strict=True) if r != v]
    return pa.table({
        "file": pc.take(pa.array(resolved, pa.string()), encoded.indices),
        "offset": good.column("offset"),
        "length": good.column("length"),
        "in_member": good.column("in_member"),
    }), bad, relative


def _bad_row(row: dict[str, Any], name: str, base: str) -> RecordError:
    """The ``errors`` row of a list row that names no record: its file (resolved, else the
    list), offset and length as far as it has them, and why."""
    problem = row["problem"]
    if problem is None:
        for column, key, test in (("warc_filename", "warc_filename", None),
                                  ("warc_record_offset", "offset", 0),
                                  ("warc_record_length", "length", 1),
                                  (IN_MEMBER, "in_member", 0)):
            value = row[key]
            if value is None and column != IN_MEMBER:
                problem = f"{column} is null"
            elif column == "warc_filename" and not str(value).strip():
                problem = "warc_filename is empty"
            elif test is not None and value is not None and value < test:
                problem = f"{column} {value} is below {test}"
            if problem:
                break
    file = str(row["warc_filename"] or "").strip()
    return RecordError(
        "source", "source-bad-list-row",
        f"{name} row {row['row']}: {problem}; the row names no record"[:2000],
        _resolve(file, base) if file else name,
        row["offset"] if row["offset"] is not None and row["offset"] >= 0 else None,
        offset_in_member=row["in_member"] if (row["in_member"] or 0) >= 0 else None,
        length=row["length"])


def _group(table: pa.Table, names: list[str], hints: dict[str, str]
           ) -> tuple[dict[str, RecordRanges], int]:
    """The rows by file, each file's in file order (offset, then offset in member), and how
    many rows repeated a record listed before."""
    import pyarrow.compute as pc  # (only a run with a record list loads it)
    if table.num_rows == 0:
        return {}, 0
    encoded = table.column("file").combine_chunks().dictionary_encode()
    file_ids = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    offsets = table.column("offset").to_numpy().astype(np.int64)
    lengths = table.column("length").to_numpy().astype(np.int64)
    inner = pc.fill_null(table.column("in_member"), -1).to_numpy().astype(np.int64)
    lists = table.column("list").to_numpy().astype(np.int64)
    order = np.lexsort((lengths, inner, offsets, file_ids))
    file_ids, offsets, lengths = file_ids[order], offsets[order], lengths[order]
    inner, lists = inner[order], lists[order]
    repeat = np.zeros(len(order), dtype=bool)
    repeat[1:] = ((file_ids[1:] == file_ids[:-1]) & (offsets[1:] == offsets[:-1])
                  & (inner[1:] == inner[:-1]) & (lengths[1:] == lengths[:-1]))
    keep = ~repeat
    file_ids, offsets, lengths = file_ids[keep], offsets[keep], lengths[keep]
    inner, lists = inner[keep], lists[keep]
    starts = np.flatnonzero(np.r_[True, file_ids[1:] != file_ids[:-1]])
    ends = np.r_[starts[1:], len(file_ids)]
    dictionary = encoded.dictionary.to_pylist()
    out: dict[str, RecordRanges] = {}
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        path = str(dictionary[int(file_ids[start])])
        named_by = tuple(names[i] for i in sorted(set(lists[start:end].tolist())))
        out[path] = RecordRanges(named_by, _array(offsets[start:end]), _array(lengths[start:end]),
                                 _array(inner[start:end]), hint=hints.get(path, ""))
    return out, int(repeat.sum())


def _array(values: Any) -> array[int]:
    out = array("q")
    out.frombytes(np.ascontiguousarray(values, dtype=np.int64).tobytes())
    return out


def _digest(table: pa.Table) -> str:
    """A digest of the records a list names (its files, offsets, lengths), whatever else it
    holds and in whatever order."""
    import pyarrow.compute as pc  # (only a run with a record list loads it)
    digest = hashlib.sha256()
    if table.num_rows == 0:
        return digest.hexdigest()
    encoded = table.column("file").combine_chunks().dictionary_encode()
    names = encoded.dictionary.to_pylist()
    rank = np.argsort(np.array(names, dtype=object))
    position = np.empty(len(names), dtype=np.int64)
    position[rank] = np.arange(len(names))
    ids = position[encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)]
    keys = np.stack([ids, table.column("offset").to_numpy().astype(np.int64),
                     pc.fill_null(table.column("in_member"), -1).to_numpy().astype(np.int64),
                     table.column("length").to_numpy().astype(np.int64)])
    ordered = keys[:, np.lexsort(keys[::-1])]
    digest.update("\n".join(sorted(names)).encode("utf-8", "surrogatepass"))
    digest.update(np.ascontiguousarray(ordered.T).tobytes())
    return digest.hexdigest()


def _resolve(entry: str, base: str) -> str:
    """A list's ``warc_filename`` as a path to open: as it is when absolute or a URL, else
    relative to ``base`` (``--input-base`` or the list's folder)."""
    if os.path.isabs(entry) or _URL.match(entry):
        return entry
    if _URL.match(base):
        return base.rstrip("/") + "/" + entry.lstrip("/")
    return os.path.normpath(os.path.join(base, entry))


def _url_folder(url: str) -> str:
    return url.split("?", 1)[0].rstrip("/").rpartition("/")[0]


def _has_glob(path: str) -> bool:
    return bool(frozenset("*?[") & set(path.split("?", 1)[0] if _URL.match(path) else path))
