"""TSV and JSON records at full precision, and the natural orders of queries and runs.

The record engine under :mod:`irpref.report.formats` (the one table writer,
which also lays out the terminal and paper formats). Per-query rows are printed in natural query
order (``106_2`` before ``106_10``, :func:`natural_key`); the terminal table
also lists runs in natural order (``run2`` before ``run10``, :func:`sort_runs`).

TSV and JSON print every value at full double precision: the shortest text
that reads back as the same double (pyarrow's float-to-string cast, e.g.
``0.1``, ``1e-7``, ``1``, ``nan``, ``inf``), so no digit is lost between
irpref and a downstream tool. Both are built column-wise with pyarrow
(no Python loop per row): each key column is encoded once (distinct values
and codes), the per-query sort orders the codes, and a row is a few gathers
from small tables of ready-made text plus the value's text, chunk by chunk on
two threads: several million rows per second.

Text fields are escaped so a name cannot break a line or a column: backslash,
tab, newline and carriage return become ``\\\\``, ``\\t``, ``\\n``, ``\\r`` in
TSV (JSON escapes them itself). A null key (the query of a mean row, when
per-query and mean rows are printed together) is an empty field in TSV and
``null`` in JSON; a NaN or infinite value is ``null`` in JSON.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TextIO

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from irpref.runtime.threads import WRITE_CAP, worker_count

__all__ = [
    "escape",
    "format_value",
    "natural_key",
    "natural_sorted",
    "sort_queries",
    "sort_runs",
    "tsv_chunks",
    "write_json",
    "write_parquet",
    "write_tsv",
]

CHUNK_ROWS = 1 << 18
_DIGITS = re.compile(r"(\d+)")


def natural_key(text) -> tuple:
    """Sort key ordering digit runs by value: ``106_2`` < ``106_10`` < ``107``.

    A number sorts before text (as ``"9" < "a"``); text pieces compare
    case-sensitively; a null (a mean row) sorts last.
    """
    if text is None or (isinstance(text, float) and text != text):
        return ((2, ""),)
    parts = _DIGITS.split(str(text))
    return tuple((0, int(p), p) if i % 2 else (1, p, "") for i, p in enumerate(parts) if p)


def natural_sorted(values) -> list:
    """``values`` sorted by :func:`natural_key` (unique values, e.g. query ids)."""
    return sorted(values, key=natural_key)


def _natural_ranks(column: pd.Series) -> np.ndarray:
    """Rank of every row's value in natural order (nulls last); the key is
    computed once per distinct value."""
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    rank = np.empty(len(uniques) + 1, dtype=np.int64)
    order = sorted(range(len(uniques)), key=lambda i: natural_key(uniques[i]))
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(uniques))
    rank[-1] = len(uniques)  # code -1 (null) sorts last
    return rank[codes]


def sort_queries(frame: pd.DataFrame, column: str = "query") -> pd.DataFrame:
    """``frame`` stably sorted by ``column`` in natural order (other orders kept)."""
    if column not in frame.columns or frame.empty:
        return frame
    return frame.iloc[np.argsort(_natural_ranks(frame[column]), kind="stable")]


RUN_KEYS = ("run", "run_a", "run_b")


def sort_runs(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` stably sorted by its run columns (``run``, or ``run_a`` then
    ``run_b``) in natural order (``run2`` before ``run10``); the order of the
    other rows (e.g. queries) is kept within each run."""
    cols = [c for c in RUN_KEYS if c in frame.columns]
    if not cols or frame.empty:
        return frame
    keys = [_natural_ranks(frame[col]) for col in reversed(cols)]
    return frame.iloc[np.lexsort(keys)]  # lexsort is stable; the last key leads


def format_value(value: float) -> str:
    """Shortest text that reads back as the same double (``repr``), e.g. ``0.1``, ``nan``."""
    return repr(float(value))


def escape(text: str) -> str:
    """A name as one TSV field: backslash, tab, newline, carriage return escaped."""
    return (
        text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    )


def _needs_escape(values: pa.Array) -> bool:
    return bool(pc.any(pc.match_substring_regex(values, r"[\\\t\n\r]")).as_py() or False)


def _escape_array(values: pa.Array) -> pa.Array:
    if len(values) == 0 or not _needs_escape(values):
        return values
    for old, new in (("\\", "\\\\"), ("\t", "\\t"), ("\n", "\\n"), ("\r", "\\r")):
        values = pc.replace_substring(values, old, new)
    return values


def _json_strings(uniques: pa.Array) -> pa.Array:
    return pa.array([json.dumps(u, ensure_ascii=False) for u in uniques.to_pylist()],
                    type=pa.string())


# -- the record builder ------------------------------------------------------------
#
# Every row is the same pattern: ``LEAD P0 t0 P1 t1 ... Pk tk`` with fixed text
# ``Pi`` before each column's text ``ti`` (TSV: tabs; JSON: ``"name": ``). A
# column with few distinct values is a *dictionary piece*: codes into its
# distinct texts, with the fixed text before it (and after it, up to the next
# column) folded into every entry. Neighbouring dictionary pieces whose entries
# multiply to a small table are fused into one (codes a * n_b + b), so a
# compare row (run_a, run_b, query, measure, value) costs two gathers and one
# join of three string arrays. The row end (``\n``, ``}``) is written as the
# *start* of the next row, so it folds into the first column too: the writer
# drops it before the first row and adds it after the last.

_SAMPLE = 2048


def _is_float(column: pd.Series) -> bool:
    return pd.api.types.is_float_dtype(column.dtype)


class _Layout:
    """The fixed text of one output format: ``lead`` before every row (the previous
    row's end and the separator), ``prefixes[i]`` before column ``i``."""

    def __init__(self, lead: str, end: str, prefixes: Sequence[str], null: str,
                 encode, json_values: bool, empty_nan: bool = False) -> None:
        self.lead, self.end, self.prefixes = lead, end, list(prefixes)
        self.null, self.encode, self.json_values = null, encode, json_values
        self.empty_nan = empty_nan  # TSV: a NaN (not applicable) is an empty field


def _tsv_layout(columns: Sequence[str], empty_nan: bool = False) -> _Layout:
    return _Layout("\n", "\n", ["" if i == 0 else "\t" for i in range(len(columns))], "",
                   _escape_array, json_values=False, empty_nan=empty_nan)


def _json_layout(columns: Sequence[str]) -> _Layout:
    prefixes = [("{" if i == 0 else ", ") + json.dumps(str(name)) + ": "
                for i, name in enumerate(columns)]
    return _Layout("},\n", "}", prefixes, "null", _json_strings, json_values=True)


def _float_text(values: np.ndarray, layout: _Layout) -> pa.Array:
    """Shortest round-trip text of each double (pyarrow's cast); ``null`` for a
    non-finite value in JSON; empty for NaN in a TSV written with ``empty_nan``."""
    text = pc.cast(pa.array(values, type=pa.float64()), pa.string())
    if layout.json_values and not np.isfinite(values).all():
        text = pc.if_else(pa.array(np.isfinite(values)), text, pa.scalar("null"))
    elif layout.empty_nan and np.isnan(values).any():
        text = pc.if_else(pa.array(~np.isnan(values)), text, pa.scalar(""))
    return text


def _few_distinct(bits: np.ndarray) -> bool:
    """Whether a column likely repeats its values (a sample of evenly spaced rows)."""
    if len(bits) < 256:
        return False
    sample = bits[:: max(1, len(bits) // _SAMPLE)]
    return len(np.unique(sample)) * 4 <= len(sample)


def _source(col: pd.Series, layout: _Layout):
    """One whole column as ``("dict", codes, texts, uniques)`` (codes index
    ``texts``, the encoded ``uniques``; -1 is null), ``("float", values)`` or
    ``("text", strings)``."""
    if _is_float(col):
        values = col.to_numpy(np.float64)
        bits = values.view(np.int64)  # by bit pattern: -0.0 and 0.0 print differently
        if _few_distinct(bits):
            codes, uniques = pd.factorize(bits, use_na_sentinel=False)
            floats = uniques.view(np.float64)
            return "dict", codes, _float_text(floats, layout), list(floats)
        return "float", values
    if layout.json_values and (pd.api.types.is_integer_dtype(col.dtype)
                               or pd.api.types.is_bool_dtype(col.dtype)):
        values = pa.Array.from_pandas(col)  # a nullable column's NA -> null, not "nan"
        text = pc.cast(values, pa.string())
        if pd.api.types.is_bool_dtype(col.dtype):
            text = pc.utf8_lower(text)
        return "text", pc.fill_null(text, layout.null) if values.null_count else text
    if isinstance(col.dtype, pd.CategoricalDtype):
        codes = col.cat.codes.to_numpy()
        uniques = list(col.cat.categories)
    else:
        codes, uniques = pd.factorize(col, use_na_sentinel=True)
        uniques = list(uniques)
    texts = layout.encode(pa.array([str(u) for u in uniques], type=pa.string()))
    return "dict", codes, texts, uniques


def _natural_order(codes: np.ndarray, uniques: list) -> np.ndarray | None:
    """Row order sorting ``codes`` stably by the natural key of their values (nulls
    last); None when the rows are in that order already."""
    order = sorted(range(len(uniques)), key=lambda i: natural_key(uniques[i]))
    rank = np.empty(len(uniques) + 1, dtype=np.min_scalar_type(len(uniques)))
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(uniques))
    rank[-1] = len(uniques)  # null keys last (code -1)
    keys = rank[codes]
    if len(keys) < 2 or bool((keys[1:] >= keys[:-1]).all()):
        return None
    return np.argsort(keys, kind="stable")  # radix sort for narrow integer keys


def _dict_entries(codes: np.ndarray, texts: pa.Array, null: str) -> tuple[np.ndarray, pa.Array]:
    """Codes without -1: a null row points at an extra entry ``null``."""
    n = len(texts)
    if len(codes) and codes.min() < 0:
        texts = pa.concat_arrays([texts, pa.array([null], pa.string())])
        codes = np.where(codes < 0, n, codes)
    return codes.astype(np.int64, copy=False), texts


def _affix(texts: pa.Array, before: str, after: str) -> pa.Array:
    if not before and not after:
        return texts
    return pc.binary_join_element_wise(pa.scalar(before), texts, pa.scalar(after), "")


def _record_pieces(sources: list, rows, n: int, layout: _Layout) -> list:
    """The pieces whose row-wise concatenation is the text of ``rows`` (an index
    array or a slice of the sources): ``[codes, texts]`` (dictionary),
    ``pa.Array`` (dense) or ``str`` (fixed text)."""
    pieces: list = []
    for i, src in enumerate(sources):
        before = (layout.lead if i == 0 else "") + layout.prefixes[i]
        if src[0] == "dict":
            codes, texts = _dict_entries(src[1][rows], src[2], layout.null)
            if pieces and isinstance(pieces[-1], list):  # this prefix ends the previous entries
                pieces[-1][1] = _affix(pieces[-1][1], "", before)
                before = ""
            pieces.append([codes, _affix(texts, before, "")])
            continue
        if pieces and isinstance(pieces[-1], list):
            pieces[-1][1] = _affix(pieces[-1][1], "", before)
        elif before:
            pieces.append(before)
        if src[0] == "float":
            pieces.append(_float_text(src[1][rows], layout))
        else:
            index = (np.arange(len(src[1]))[rows] if isinstance(rows, slice) else rows)
            pieces.append(src[1].take(pa.array(index)))
    return _fuse(pieces, limit=max(64, n // 4))


def _fuse(pieces: list, limit: int) -> list:
    """Neighbouring dictionary pieces merged while their entry product is <= ``limit``."""
    out: list = []
    for p in pieces:
        if isinstance(p, list) and out and isinstance(out[-1], list):
            (ca, ta), (cb, tb) = out[-1], p
            na, nb = len(ta), len(tb)
            if na * nb <= limit:
                left = ta.take(pa.array(np.repeat(np.arange(na), nb)))
                right = tb.take(pa.array(np.tile(np.arange(nb), na)))
                out[-1] = [ca * nb + cb, pc.binary_join_element_wise(left, right, "")]
                continue
        out.append(p)
    return out


def _rows_text(sources: list, rows, n: int, layout: _Layout) -> pa.Array:
    """One string per row (each starting with ``layout.lead``)."""
    arrays = []
    for p in _record_pieces(sources, rows, n, layout):
        if isinstance(p, list):
            codes, texts = p
            arrays.append(texts.take(pa.array(codes.astype(np.int32, copy=False))))
        elif isinstance(p, str):
            arrays.append(pa.scalar(p))
        else:
            arrays.append(p)
    if len(arrays) == 1:
        return arrays[0]
    return pc.binary_join_element_wise(*arrays, "")


def _data(rows: pa.Array) -> memoryview:
    """The concatenated UTF-8 bytes of a string array (its data buffer, no copy)."""
    rows = pa.concat_arrays(rows.chunks) if isinstance(rows, pa.ChunkedArray) else rows
    if len(rows) == 0 or rows.buffers()[2] is None:
        return memoryview(b"")
    offsets = np.frombuffer(rows.buffers()[1], dtype=np.int32)
    offsets = offsets[rows.offset : rows.offset + len(rows) + 1]
    return memoryview(rows.buffers()[2])[int(offsets[0]) : int(offsets[-1])]


def _chunks(frame: pd.DataFrame, columns: Sequence[str], layout: _Layout,
            sort_by: str | None = None) -> Iterator[memoryview]:
    """The rows of ``frame`` (each starting with ``layout.lead``), stably sorted by
    ``sort_by`` in natural order, chunk by chunk. Columns are encoded once (distinct
    values, codes); chunks gather codes and values. Both run on two threads
    (pyarrow's kernels release the GIL), chunks written in order."""
    n = len(frame)
    missing = pd.Series([None] * n, dtype=object)
    threads = worker_count(WRITE_CAP)
    with ThreadPoolExecutor(max_workers=threads) as pool:
        sources = list(pool.map(
            lambda name: _source(frame.get(name, missing), layout), columns))
        order = None
        if sort_by in columns:
            src = sources[list(columns).index(sort_by)]
            if src[0] == "dict":
                order = _natural_order(np.asarray(src[1]), src[3])
            else:
                order = sort_queries(frame[[sort_by]].reset_index(drop=True), sort_by).index
                order = None if (order == np.arange(n)).all() else order.to_numpy()

        def build(start: int) -> memoryview:
            stop = min(start + CHUNK_ROWS, n)
            rows = slice(start, stop) if order is None else order[start:stop]
            return _data(_rows_text(sources, rows, stop - start, layout))

        pending: list = []
        for start in range(0, n, CHUNK_ROWS):
            pending.append(pool.submit(build, start))
            if len(pending) > threads:  # bounded look-ahead: memory of a few chunks
                yield pending.pop(0).result()
        for future in pending:
            yield future.result()


def _write_records(frames: list[pd.DataFrame], columns: Sequence[str], layout: _Layout,
                   out: TextIO, sort_by: str | None = None) -> None:
    """All rows of ``frames``; the lead of the first row is dropped and the row end
    written after the last."""
    skip = len(layout.lead.encode("utf-8"))
    wrote = False
    for part in frames:
        for data in _chunks(part, columns, layout, sort_by):
            if not wrote and len(data):
                data, wrote = data[skip:], True
            _emit(out, data)
    if wrote:
        _emit(out, layout.end.encode("utf-8"))


def tsv_chunks(frame: pd.DataFrame, columns: Sequence[str] | None = None) -> Iterator[bytes]:
    """The TSV body of ``frame`` (no header) in chunks of encoded UTF-8 bytes."""
    columns = list(frame.columns if columns is None else columns)
    first = True
    for data in _chunks(frame, columns, _tsv_layout(columns)):
        yield bytes(data[1:] if first else data)  # each row starts with the previous's end
        first = False
    if not first:
        yield b"\n"


def _frames(frame):
    """The non-empty frames of ``frame``: a frame, a list or tuple of frames (a
    list), or any other iterable of frames, read one at a time as it is written
    (:class:`_Stream`: a large table streamed frame by frame)."""
    if isinstance(frame, (pd.DataFrame, list, tuple)):
        return [f for f in (frame if isinstance(frame, (list, tuple)) else [frame]) if len(f)]
    return _Stream(frame)


class _Stream:
    """Frames from an iterator, its first non-empty frame read ahead (for the
    header and the empty case); each frame is dropped once written."""

    def __init__(self, frames) -> None:
        self._rest = (f for f in frames if len(f))
        self._first = next(self._rest, None)

    def __bool__(self) -> bool:
        return self._first is not None

    def __getitem__(self, index: int) -> pd.DataFrame:
        if index != 0 or self._first is None:
            raise IndexError(index)
        return self._first

    def __iter__(self):
        first, self._first = self._first, None
        if first is not None:
            yield first
            del first
        yield from self._rest


def _emit(out: TextIO, data) -> None:
    if not len(data):
        return
    buffer = getattr(out, "buffer", None)
    if buffer is not None:
        out.flush()
        buffer.write(data)
    else:
        out.write(bytes(data).decode("utf-8"))


def write_tsv(frame, out: TextIO, columns: Sequence[str] | None = None, *,
              sort_by: str | None = None, empty_nan: bool = False) -> None:
    """``frame`` (or a list of frames, one table) as TSV with a header line; a column
    a frame lacks is empty (see the module docstring for the rules). ``sort_by``:
    each frame's rows stably sorted by that column in natural order. ``empty_nan``:
    a NaN float is an empty field (a value that does not apply, e.g. the
    baseline's difference to itself), not ``nan``."""
    frames = _frames(frame)
    if columns is None:
        columns = list((frames[0] if frames else frame).columns)
    _emit(out, ("\t".join(escape(str(c)) for c in columns) + "\n").encode("utf-8"))
    _write_records(frames, columns, _tsv_layout(columns, empty_nan), out, sort_by)


def write_json(frame, out: TextIO, columns: Sequence[str] | None = None, *,
               sort_by: str | None = None) -> None:
    """``frame`` (or a list of frames) as one JSON array of records, one per line;
    a column a frame lacks is null. ``sort_by`` as in :func:`write_tsv`."""
    frames = _frames(frame)
    if not frames:
        _emit(out, b"[]\n")
        return
    columns = list(frames[0].columns if columns is None else columns)
    _emit(out, b"[\n")
    _write_records(frames, columns, _json_layout(columns), out, sort_by)
    _emit(out, b"\n]\n")


def _binary_sink(out):
    """The binary stream under ``out`` (a text stream's ``buffer``, or ``out``
    itself); a terminal is refused (UsageError, exit 2): Parquet is binary."""
    from irpref.errors import UsageError

    isatty = getattr(out, "isatty", None)
    if isatty is not None and isatty():
        raise UsageError("--format parquet writes binary data: give -o FILE (or redirect "
                         "standard output to a file or a pipe)")
    buffer = getattr(out, "buffer", None)
    if buffer is not None:
        out.flush()
        return buffer
    if isinstance(out, io.TextIOBase):
        raise UsageError("--format parquet writes binary data: it needs a binary stream")
    return out


def _arrow_column(part: pd.DataFrame, name: str) -> pa.Array:
    """One column of ``part`` for Parquet: floats and integers as they are,
    everything else as strings (a categorical by its codes, no object per
    row); a column the frame lacks is all null."""
    if name not in part.columns:
        return pa.nulls(len(part), pa.string())
    col = part[name]
    if _is_float(col) or pd.api.types.is_integer_dtype(col.dtype) or \
            pd.api.types.is_bool_dtype(col.dtype):
        return pa.Array.from_pandas(col)
    if isinstance(col.dtype, pd.CategoricalDtype):
        codes = col.cat.codes.to_numpy()
        texts = pa.array([str(c) for c in col.cat.categories], pa.string())
        valid = codes >= 0
        return texts.take(pa.array(np.where(valid, codes, 0), mask=~valid))
    return pa.array([None if v is None or (isinstance(v, float) and v != v) else str(v)
                     for v in col], pa.string())


def write_parquet(frame, out, columns: Sequence[str] | None = None, *,
                  sort_by: str | None = None) -> None:
    """``frame`` (or a list of frames, one table) as Parquet: floats and
    integers typed, other columns strings (a column a frame lacks is null),
    written row group by row group (``CHUNK_ROWS`` rows each) so a large
    per-query table is never converted whole. ``sort_by`` as in
    :func:`write_tsv`. ``out``: a binary stream, or a text stream with a
    ``buffer``; a terminal is refused (UsageError)."""
    import pyarrow.parquet as pq

    sink = _binary_sink(out)
    frames = _frames(frame)
    if columns is None:
        columns = list((frames[0] if frames else frame).columns)
    writer = None
    try:
        for part in frames:
            if sort_by in part.columns:
                part = sort_queries(part, sort_by)
            for start in range(0, len(part), CHUNK_ROWS):
                rows = part.iloc[start : start + CHUNK_ROWS]
                table = pa.table({str(c): _arrow_column(rows, c) for c in columns})
                if writer is None:
                    writer = pq.ParquetWriter(sink, table.schema)
                writer.write_table(table.cast(writer.schema))
        if writer is None:  # no row: the columns, typed as strings
            empty = pa.table({str(c): pa.array([], pa.string()) for c in columns})
            writer = pq.ParquetWriter(sink, empty.schema)
            writer.write_table(empty)
    finally:
        if writer is not None:
            writer.close()
