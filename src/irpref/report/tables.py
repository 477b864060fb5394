"""Writing result tables as a terminal table, TSV, JSON, Markdown, LaTeX or HTML.

:data:`FORMATS` is the one list of ``--format`` choices every table command
offers; the paper formats (:data:`PAPER_FORMATS`) are laid out by
:mod:`irpref.report.formats`. Per-query rows are printed in natural query
order (``106_2`` before ``106_10``, :func:`natural_key`); the terminal table
also lists runs in natural order (``run2`` before ``run10``, :func:`sort_runs`).

TSV and JSON print every value at full double precision: the shortest text
that reads back as the same double (pyarrow's float-to-string cast, e.g.
``0.1``, ``1e-7``, ``1``, ``nan``, ``inf``), so no digit is lost between
irpref and a downstream tool. Both are built column-wise with pyarrow
(no Python loop per row): several million rows per second.

Text fields are escaped so a name cannot break a line or a column: backslash,
tab, newline and carriage return become ``\\\\``, ``\\t``, ``\\n``, ``\\r`` in
TSV (JSON escapes them itself). A null key (the query of a mean row, when
per-query and mean rows are printed together) is an empty field in TSV and
``null`` in JSON; a NaN or infinite value is ``null`` in JSON.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator, Sequence
from typing import TextIO

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "FORMATS",
    "PAPER_FORMATS",
    "escape",
    "format_value",
    "natural_key",
    "natural_sorted",
    "sort_queries",
    "sort_runs",
    "write_frame",
    "tsv_chunks",
    "write_json",
    "write_table",
    "write_tsv",
]

TEXT_FORMATS = ("table", "tsv", "json")
PAPER_FORMATS = ("markdown", "latex", "html")
FORMATS = (*TEXT_FORMATS, *PAPER_FORMATS)
CHUNK_ROWS = 1 << 20
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


def sort_queries(frame: pd.DataFrame, column: str = "query") -> pd.DataFrame:
    """``frame`` stably sorted by ``column`` in natural order (other orders kept)."""
    if column not in frame.columns or frame.empty:
        return frame
    codes, uniques = pd.factorize(frame[column], use_na_sentinel=True)
    rank = np.empty(len(uniques) + 1, dtype=np.int64)
    order = sorted(range(len(uniques)), key=lambda i: natural_key(uniques[i]))
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(uniques))
    rank[-1] = len(uniques)  # null keys last
    return frame.iloc[np.argsort(rank[codes], kind="stable")]


RUN_KEYS = ("run", "run_a", "run_b")


def sort_runs(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` stably sorted by its run columns (``run``, or ``run_a`` then
    ``run_b``) in natural order (``run2`` before ``run10``); the order of the
    other rows (e.g. queries) is kept within each run."""
    cols = [c for c in RUN_KEYS if c in frame.columns]
    if not cols or frame.empty:
        return frame
    keys = []
    for col in cols:
        codes, uniques = pd.factorize(frame[col], use_na_sentinel=True)
        rank = np.empty(len(uniques) + 1, dtype=np.int64)
        order = sorted(range(len(uniques)), key=lambda i: natural_key(uniques[i]))
        rank[np.asarray(order, dtype=np.int64)] = np.arange(len(uniques))
        rank[-1] = len(uniques)
        keys.append(rank[codes])
    return frame.iloc[np.lexsort(keys[::-1])]  # lexsort is stable; the last key leads


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


def _key_strings(column: pd.Series, encode) -> pa.Array:
    """A key column as a string array: categories/uniques encoded once, nulls kept."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy()
        uniques = [str(c) for c in column.cat.categories]
    else:
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
        uniques = [str(u) for u in uniques]
    mask = codes < 0
    encoded = encode(pa.array(uniques, type=pa.string()))
    indices = pa.array(np.where(mask, 0, codes).astype(np.int32), mask=mask if mask.any() else None)
    if len(uniques) == 0:
        return pa.nulls(len(column), pa.string())
    return pa.DictionaryArray.from_arrays(indices, encoded).dictionary_decode()


def _float_strings(column: pd.Series) -> pa.Array:
    return pc.cast(pa.array(column.to_numpy(np.float64)), pa.string())


def _is_float(column: pd.Series) -> bool:
    return pd.api.types.is_float_dtype(column.dtype)


def _json_value_strings(column: pd.Series) -> pa.Array:
    values = column.to_numpy(np.float64)
    text = pc.cast(pa.array(values), pa.string())
    return pc.if_else(pa.array(np.isfinite(values)), text, pa.scalar("null"))


def _buffer_bytes(rows: pa.Array) -> bytes:
    rows = pa.concat_arrays([rows]) if isinstance(rows, pa.ChunkedArray) else rows
    """The concatenated UTF-8 bytes of a string array (its data buffer, no copy per row)."""
    if len(rows) == 0:
        return b""
    offsets = np.frombuffer(rows.buffers()[1], dtype=np.int32)
    offsets = offsets[rows.offset : rows.offset + len(rows) + 1]
    data = rows.buffers()[2]
    if data is None:
        return b""
    return data[int(offsets[0]) : int(offsets[-1])].to_pybytes()


def tsv_chunks(frame: pd.DataFrame, columns: Sequence[str] | None = None) -> Iterator[bytes]:
    """The TSV body of ``frame`` (no header) in chunks of encoded UTF-8 bytes."""
    columns = list(frame.columns if columns is None else columns)
    for start in range(0, len(frame), CHUNK_ROWS):
        part = frame.iloc[start : start + CHUNK_ROWS]
        arrays = []
        for name in columns:
            col = part[name] if name in part else pd.Series([None] * len(part), dtype=object)
            if _is_float(col):
                arrays.append(_float_strings(col))
            else:
                arrays.append(pc.fill_null(_key_strings(col, _escape_array), ""))
        last = arrays.pop()
        arrays.append(pc.binary_join_element_wise(last, pa.scalar("\n"), ""))
        yield _buffer_bytes(pc.binary_join_element_wise(*arrays, "\t"))


def _json_chunks(frame: pd.DataFrame, columns: Sequence[str]) -> Iterator[bytes]:
    def encode(uniques: pa.Array) -> pa.Array:
        return pa.array([json.dumps(u, ensure_ascii=False) for u in uniques.to_pylist()],
                        type=pa.string())

    for start in range(0, len(frame), CHUNK_ROWS):
        part = frame.iloc[start : start + CHUNK_ROWS]
        pieces = []
        for i, name in enumerate(columns):
            col = part[name] if name in part else pd.Series([None] * len(part), dtype=object)
            if _is_float(col):
                text = _json_value_strings(col)
            elif pd.api.types.is_integer_dtype(col.dtype) or pd.api.types.is_bool_dtype(col.dtype):
                text = pc.cast(pa.array(col.to_numpy()), pa.string())
                if pd.api.types.is_bool_dtype(col.dtype):
                    text = pc.utf8_lower(text)
            else:
                text = pc.fill_null(_key_strings(col, encode), "null")
            prefix = ("{" if i == 0 else ", ") + json.dumps(str(name)) + ": "
            pieces.append(pc.binary_join_element_wise(pa.scalar(prefix), text, ""))
        rows = pc.binary_join_element_wise(*pieces, pa.scalar("},\n"), "")
        body = _buffer_bytes(rows)[:-2]  # no comma after the chunk's last record
        yield body if start == 0 else b",\n" + body


def _frames(frame) -> list[pd.DataFrame]:
    return [f for f in (frame if isinstance(frame, (list, tuple)) else [frame]) if len(f)]


def _emit(out: TextIO, data: bytes) -> None:
    if not data:
        return
    buffer = getattr(out, "buffer", None)
    if buffer is not None:
        out.flush()
        buffer.write(data)
    else:
        out.write(data.decode("utf-8"))


def write_tsv(frame, out: TextIO, columns: Sequence[str] | None = None) -> None:
    """``frame`` (or a list of frames, one table) as TSV with a header line; a column
    a frame lacks is empty (see the module docstring for the rules)."""
    frames = _frames(frame)
    if columns is None:
        columns = list((frames[0] if frames else frame).columns)
    _emit(out, ("\t".join(escape(str(c)) for c in columns) + "\n").encode("utf-8"))
    for part in frames:
        for chunk in tsv_chunks(part, columns):
            _emit(out, chunk)


def write_json(frame, out: TextIO, columns: Sequence[str] | None = None) -> None:
    """``frame`` (or a list of frames) as one JSON array of records, one per line;
    a column a frame lacks is null."""
    frames = _frames(frame)
    if not frames:
        _emit(out, b"[]\n")
        return
    columns = list(frames[0].columns if columns is None else columns)
    _emit(out, b"[\n")
    for i, part in enumerate(frames):
        for j, chunk in enumerate(_json_chunks(part, columns)):
            _emit(out, chunk if i == 0 or j > 0 else b",\n" + chunk)
    _emit(out, b"\n]\n")


def write_table(
    frame: pd.DataFrame,
    keys: Sequence[str],
    fmt: str = "tsv",
    out: TextIO | None = None,
    *,
    wide_index: Sequence[str] | None = None,
    wide_columns: str = "measure",
    digits: int = 4,
) -> None:
    """Write ``frame`` (key columns + ``value``) as ``table``, ``tsv`` or ``json``.

    ``frame`` may be a list of frames printed as one table (tsv/json), e.g.
    per-query rows then mean rows without a query column (empty / null).
    ``table`` pivots to a wide view: rows ``wide_index`` (default: all keys
    but ``wide_columns``), one column per ``wide_columns`` value; a null key
    (a mean row) shows as ``(mean)`` there.
    """
    out = out or sys.stdout
    columns = [*keys, "value"]
    if "query" in keys:
        frame = ([sort_queries(f) for f in frame] if isinstance(frame, (list, tuple))
                 else sort_queries(frame))
    if fmt == "tsv":
        write_tsv(frame, out, columns)
    elif fmt == "json":
        write_json(frame, out, columns)
    elif fmt in ("table", *PAPER_FORMATS):
        if isinstance(frame, (list, tuple)):
            frame = pd.concat(frame, ignore_index=True)
        if fmt == "table":  # the terminal view: runs in natural order, as queries
            frame = sort_runs(frame)
        index = (
            list(wide_index) if wide_index is not None else [k for k in keys if k != wide_columns]
        )
        if frame.empty:
            out.write("(no results)\n")
            return
        view = frame[[*index, wide_columns, "value"]].copy()
        for k in index:
            if view[k].isna().any():
                view[k] = view[k].astype(object).where(view[k].notna(), "(mean)")
        wide = view.pivot_table(
            index=index, columns=wide_columns, values="value", sort=False, aggfunc="first",
            observed=True,
        )
        wide.columns.name = None
        if fmt in PAPER_FORMATS:
            from irpref.report.formats import render, render_frame

            if wide.index.nlevels == 1:
                out.write(render(wide, fmt, digits=digits))
            else:
                out.write(render_frame(wide.reset_index(), fmt, digits=digits))
            return
        with pd.option_context(
            "display.max_rows",
            None,
            "display.max_columns",
            None,
            "display.width",
            200,
            "display.float_format",
            lambda v: f"{v:.{digits}f}",
        ):
            out.write(wide.to_string() + "\n")
    else:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")


def write_frame(frame: pd.DataFrame, fmt: str, out: TextIO | None = None, *,
                digits: int = 4, caption: str | None = None, legend: str | None = None) -> None:
    """Any flat frame in one of :data:`FORMATS`: ``table`` (aligned, ``digits``
    significant digits), ``tsv``/``json`` (full precision), or a paper format
    (:func:`irpref.report.formats.render_frame`; ``caption``/``legend`` there,
    ``legend`` also under the terminal table)."""
    out = out or sys.stdout
    if fmt == "tsv":
        write_tsv(frame, out)
    elif fmt == "json":
        write_json(frame, out)
    elif fmt in PAPER_FORMATS:
        from irpref.report.formats import render_frame

        out.write(render_frame(frame, fmt, digits=digits, caption=caption, legend=legend))
    elif fmt == "table":
        if frame.empty:
            out.write("(no results)\n")
            return
        with pd.option_context("display.max_rows", None, "display.max_columns", None,
                               "display.width", 250):
            out.write(frame.to_string(index=False, float_format=lambda v: f"{v:.{digits}g}")
                      + "\n")
        if legend:
            out.write(legend + "\n")
    else:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
