"""Runs and qrels as tables: CSV / TSV with a header, JSON lines, Parquet.

The format is chosen by the file name (case-insensitive, ``.gz`` allowed
except for Parquet): ``.csv``, ``.tsv``, ``.jsonl`` / ``.ndjson``,
``.parquet``. A ``.tsv`` file whose first line does not name a query and a
document column is TREC whitespace format (runs are often saved as
``.tsv``). Columns are found by name, case-insensitively, as for DataFrames
(:mod:`irpref.io.frames`): query ``query_id, qid, q_id, query, topic``;
document ``doc_id, docid, docno, doc, document``; score ``score, sim,
similarity``; grade ``relevance, grade, rel, label, judgment``. Other columns
are ignored, except a run name column (``run, name, run_id, system, tag``),
which must hold one value per file.

Rules are those of TREC files (:mod:`irpref.io.trec`): scores are floats
(NaN refused, +-inf accepted), grades integers in ``[-GRADE_MAX, GRADE_MAX]``
(an integral float such as ``2.0`` in JSON or Parquet is accepted), ids are
strings (integers are written in decimal). Every bad row is refused with its
file and line: for CSV/TSV the physical line (the header is line 1), for
JSON lines the line, for Parquet the 1-based row number. CSV/TSV files must
be UTF-8 throughout; fields may be quoted (``"``; an unterminated quote is
refused). CSV/TSV and JSON lines are parsed by Python's ``csv`` and ``json``
modules, one exact path that checks every row (about a million rows per
second, slower than the TREC reader); Parquet is read by pyarrow.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import re
import zlib
from collections.abc import Callable
from functools import partial

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irpref.errors import InputError
from irpref.io.columns import NAMES, Columns, find_column
from irpref.io.lines import check_unique_pairs, line_numbers, read_bytes
from irpref.io.records import GRADE_MAX, Qrels, Run, run_name_from_path

__all__ = ["read_table_qrels", "read_table_run", "row_lines", "table_format"]

QUERY, DOC, SCORE, GRADE, NAME = (NAMES[r] for r in ("query", "doc", "score", "grade", "run"))
_WHAT = {"query": "query", "doc": "document", "score": "score", "grade": "relevance",
         "run": "name"}

_SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl",
             ".parquet": "parquet"}
_SCORE_RE = (
    r"^[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
    r"|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)$"
)
_SCORE_PY = re.compile(_SCORE_RE)
_NAN_PY = re.compile(r"^[+-]?[nN][aA][nN]$")
_GRADE_PY = re.compile(r"^-?[0-9]+$")


def table_format(path: str, columns: Columns | None = None) -> str | None:
    """``csv``, ``tsv``, ``jsonl`` or ``parquet`` from the file name, else None
    (TREC whitespace format). A ``.tsv`` without a recognised header (the
    query and document columns by their names or by ``columns``) is TREC."""
    name = str(path).lower()
    base = name[:-3] if name.endswith(".gz") else name
    fmt = next((f for s, f in _SUFFIXES.items() if base.endswith(s)), None)
    if fmt == "parquet" and name.endswith(".gz"):
        return None
    if fmt == "tsv" and not _has_header(path, columns):
        return None
    return fmt


def _has_header(path: str, columns: Columns | None = None) -> bool:
    """The first lines of a ``.tsv`` name a query and a document column (reads
    at most 64 KB)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(1 << 16)
            if data[:2] == b"\x1f\x8b":
                handle.seek(0)
                with gzip.GzipFile(fileobj=handle) as inflated:
                    data = inflated.read(1 << 16)
    except (OSError, EOFError, zlib.error):
        return False
    while data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    first = next((ln for ln in data.split(b"\n", 64)[:64] if ln.strip()), b"")
    fields = {f.strip().strip('"') for f in first.decode("utf-8", "replace").split("\t")}
    names = {f.lower() for f in fields}
    mapped = columns or {}
    query = ({mapped["query"]} & fields) if "query" in mapped else names & set(QUERY)
    doc = ({mapped["doc"]} & fields) if "doc" in mapped else names & set(DOC)
    return bool(query) and bool(doc)


def _pick(columns: list[str], role: str, path: str, mapping: Columns | None,
          required: bool = True, line: int | None = 1) -> str | None:
    found = find_column(columns, role, mapping, path, line=line)
    if found is not None or not required:
        return found
    raise InputError(path, line, f"no {_WHAT[role]} column: expected one of"
                     f" {', '.join(NAMES[role])} (columns: {', '.join(columns)}); or name it"
                     f" with --columns {role}=NAME")


# ----------------------------------------------------------------------------- reading


def _read(path: str, fmt: str, what: str, mapping: Columns | None):
    """(columns dict of pa arrays, row -> line function) with ids, value and name;
    ``what`` is ``run`` (a score column) or ``qrels`` (a grade column; a run
    column the mapping names is a run's, not looked for)."""
    if what == "qrels" and mapping and "run" in mapping:
        mapping = {role: name for role, name in mapping.items() if role != "run"}
    if fmt in ("csv", "tsv"):
        return _read_csv(path, "," if fmt == "csv" else "\t", what, mapping)
    if fmt == "jsonl":
        return _read_jsonl(path, what, mapping)
    return _read_parquet(path, what, mapping)


def _value_role(what: str) -> str:
    return "score" if what == "run" else "grade"


def _csv_rows(text: str, delimiter: str, path: str):
    """Yield (first line, fields) of each non-empty record, as Python's csv reads."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quotechar='"',
                        strict=True)
    start = 1
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(path, reader.line_num, f"malformed {exc}") from None
        if fields:
            yield start, fields
        start = reader.line_num + 1


def _decode(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(path, line, f"invalid UTF-8 at byte {column} of the line"
                         f" (byte 0x{data[exc.start]:02x})") from None


def _read_csv(path: str, delimiter: str, what: str, mapping: Columns | None):
    """CSV / TSV through Python's csv module: one exact path, every row checked."""
    text = _decode(read_bytes(path), path)
    records = list(_csv_rows(text, delimiter, path))
    if not records:
        raise InputError(path, None, f"empty {what} file: no header and no rows")
    header_line, header = records[0]
    if len(set(header)) != len(header):
        raise InputError(path, header_line, f"repeated column name in the header {header}")
    q = _pick(header, "query", path, mapping, line=header_line)
    d = _pick(header, "doc", path, mapping, line=header_line)
    v = _pick(header, _value_role(what), path, mapping, line=header_line)
    n = _pick(header, "run", path, mapping, required=False, line=header_line)
    iq, id_, iv = header.index(q), header.index(d), header.index(v)
    inn = header.index(n) if n else None
    queries, docs, values, names, lines = [], [], [], [], []
    for start, fields in records[1:]:
        if len(fields) != len(header):
            raise InputError(path, start, f"expected {len(header)} fields as in the header,"
                             f" got {len(fields)}", delimiter.join(fields))
        _check_value(path, start, fields[iv], what)
        queries.append(fields[iq])
        docs.append(fields[id_])
        values.append(fields[iv])
        if inn is not None:
            names.append(fields[inn])
        lines.append(start)
    kind = np.float64 if what == "run" else np.int64
    cols = {
        "query": pa.array(queries, pa.string()),
        "doc": pa.array(docs, pa.string()),
        "value": np.asarray([float(x) if what == "run" else int(x) for x in values], kind),
        "name": pa.array(names, pa.string()) if n else None,
    }
    numbers = np.asarray(lines, np.int64)
    return cols, (lambda: numbers), None


def _check_value(path: str, line: int, text: str, what: str) -> None:
    """Refuse a score / grade given as text that the rules do not allow."""
    if what == "run":
        if _NAN_PY.match(text):
            raise InputError(path, line, "score is NaN")
        if not _SCORE_PY.match(text):
            raise InputError(path, line, f"score {text!r} is not a number"
                             " (a decimal float such as 1.5, -2e-3 or inf)")
    else:
        if not _GRADE_PY.match(text):
            raise InputError(path, line, f"grade {text!r} is not an integer"
                             " (a plain decimal integer: no '+', '.', '_' or hex)")
        if abs(int(text)) > GRADE_MAX:
            raise InputError(path, line, f"grade {int(text)} is out of range:"
                             f" grades lie in [-{GRADE_MAX}, {GRADE_MAX}]")


def _json_id(value, path, line, name):
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise InputError(path, line, f"{name} {value!r} is not a string or an integer")


def _json_value(value, path, line, what):
    if what == "run":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InputError(path, line, f"score {value!r} is not a number")
        value = float(value)
        if math.isnan(value):
            raise InputError(path, line, "score is NaN")
        return value
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(path, line, f"grade {value!r} is not an integer")
    if abs(value) > GRADE_MAX:
        raise InputError(path, line, f"grade {value} is out of range:"
                         f" grades lie in [-{GRADE_MAX}, {GRADE_MAX}]")
    return value


def _read_jsonl(path: str, what: str, mapping: Columns | None):
    data = read_bytes(path)
    text = _decode(data, path)
    keys = None
    out = {"query": [], "doc": [], "value": [], "name": []}
    numbers = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(path, number, f"not JSON ({exc.msg} at column {exc.colno})",
                             line) from None
        if not isinstance(obj, dict):
            raise InputError(path, number, "expected a JSON object per line", line)
        if keys is None:
            cols = list(obj)
            keys = (_pick(cols, "query", path, mapping), _pick(cols, "doc", path, mapping),
                    _pick(cols, _value_role(what), path, mapping),
                    _pick(cols, "run", path, mapping, required=False))
        for key in keys[:3]:
            if key not in obj or obj[key] is None:
                raise InputError(path, number, f"no value for {key!r}", line)
        out["query"].append(_json_id(obj[keys[0]], path, number, "query id"))
        out["doc"].append(_json_id(obj[keys[1]], path, number, "document id"))
        out["value"].append(_json_value(obj[keys[2]], path, number, what))
        if keys[3] is not None:
            out["name"].append(str(obj.get(keys[3])))
        numbers.append(number)
    if keys is None:
        raise InputError(path, None, f"empty {what} file: no rows")
    cols = {
        "query": pa.array(out["query"], pa.string()),
        "doc": pa.array(out["doc"], pa.string()),
        "value": np.asarray(out["value"], np.float64 if what == "run" else np.int64),
        "name": pa.array(out["name"], pa.string()) if keys[3] is not None else None,
    }
    lines = np.asarray(numbers, np.int64)
    return cols, (lambda: lines), None


def _read_parquet(path: str, what: str, mapping: Columns | None):
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path, use_threads=False)  # no Arrow thread outlives the read
    except OSError as exc:
        if isinstance(exc, (FileNotFoundError, IsADirectoryError, PermissionError)):
            read_bytes(path)  # raises the usual error
        raise InputError(path, None, f"not a readable Parquet file ({exc})") from None
    except pa.ArrowException as exc:
        raise InputError(path, None, f"not a readable Parquet file ({exc})") from None
    cols = table.column_names
    q, d = _pick(cols, "query", path, mapping), _pick(cols, "doc", path, mapping)
    v = _pick(cols, _value_role(what), path, mapping)
    n = _pick(cols, "run", path, mapping, required=False)
    for c in (q, d, v):
        column = table[c]
        if column.null_count:
            row = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
            raise InputError(path, row + 1, f"no value for {c!r}")
    out = {"query": _id_column(table[q], path, "query id"),
           "doc": _id_column(table[d], path, "document id"),
           "value": _numeric(table[v], path, what),
           "name": table[n].cast(pa.string()) if n else None}
    n_rows = table.num_rows
    return out, (lambda: np.arange(1, n_rows + 1, dtype=np.int64)), None


def _id_column(column, path: str, what: str):
    t = column.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return column.cast(pa.string())
    if pa.types.is_integer(t):
        return column.cast(pa.string())
    if pa.types.is_dictionary(t):
        return column.cast(pa.string())
    raise InputError(path, None, f"the {what} column has type {t}: expected strings or"
                     " integers")


def _numeric(column, path: str, what: str):
    t = column.type
    if what == "run":
        if not (pa.types.is_integer(t) or pa.types.is_floating(t)):
            raise InputError(path, None, f"the score column has type {t}: expected numbers")
        return column.cast(pa.float64())
    if pa.types.is_integer(t):
        return column.cast(pa.int64())
    if pa.types.is_floating(t):
        values = column.to_numpy()
        bad = ~np.isfinite(values) | (values != np.floor(values))
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(path, row + 1, f"grade {float(values[row])!r} is not an integer")
        big = np.abs(values) > GRADE_MAX
        if big.any():
            row = int(np.flatnonzero(big)[0])
            raise InputError(path, row + 1, f"grade {values[row]:.0f} is out of range:"
                             f" grades lie in [-{GRADE_MAX}, {GRADE_MAX}]")
        return pa.array(values.astype(np.int64))
    raise InputError(path, None, f"the grade column has type {t}: expected integers")


def _finish(path: str, fmt: str, what: str, cols, lines: Callable[[], np.ndarray], csvinfo):
    """Validate the value column (vectorized) and return (query, doc, values, name)."""
    value = cols["value"]
    n = len(value)
    if n == 0:
        raise InputError(path, None, f"empty {what} file: a header but no rows")
    if what == "run":
        values = np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value,
                            np.float64)
        nan = np.isnan(values)
        if nan.any():
            raise InputError(path, int(lines()[int(np.flatnonzero(nan)[0])]), "score is NaN")
    else:
        values = np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value,
                            np.int64)
        big = np.abs(values) > GRADE_MAX
        if big.any():
            row = int(np.flatnonzero(big)[0])
            raise InputError(path, int(lines()[row]), f"grade {values[row]} is out of"
                             f" range: grades lie in [-{GRADE_MAX}, {GRADE_MAX}]")
    query, doc = _single(cols["query"]), _single(cols["doc"])
    return query, doc, values, cols["name"]


def _single(column) -> pa.Array:
    if isinstance(column, pa.ChunkedArray):
        return column.combine_chunks()
    return column


def read_table_qrels(path: str, *, columns: Columns | None = None) -> Qrels:
    """Qrels from a CSV/TSV/JSONL/Parquet file (see the module docstring);
    ``columns``: which column holds what (:mod:`irpref.io.columns`)."""
    path = str(path)
    fmt = table_format(path, columns)
    cols, lines, info = _read(path, fmt, "qrels", columns)
    query, doc, grade, _ = _finish(path, fmt, "qrels", cols, lines, info)
    qrels = Qrels(query, doc, grade, source=path)
    check_unique_pairs(qrels.query, qrels.doc, path, partial(row_line, path, None),
                        what="judged twice")
    return qrels


def read_table_run(path: str, name: str | None = None, *, use_tag: bool = False,
                   check_duplicates: bool = True, columns: Columns | None = None) -> Run:
    """A run from a CSV/TSV/JSONL/Parquet file (see the module docstring);
    ``columns``: which column holds what (:mod:`irpref.io.columns`)."""
    path = str(path)
    fmt = table_format(path, columns)
    cols, lines, info = _read(path, fmt, "run", columns)
    query, doc, score, names = _finish(path, fmt, "run", cols, lines, info)
    tag = None
    if names is not None:
        distinct = pc.unique(names).to_pylist()
        if len(distinct) != 1:
            first = distinct[0]
            row = int(np.flatnonzero(pc.not_equal(names, first).to_numpy(
                zero_copy_only=False))[0])
            raise InputError(path, int(lines()[row]), f"the file holds {len(distinct)} runs"
                             f" ({first!r}, {names[row].as_py()!r}, ...): one run per file")
        tag = distinct[0]
    run = Run(name or (tag if use_tag else None) or run_name_from_path(_stem(path)),
              query, doc, score, source=path, tag=tag)
    if check_duplicates:
        check_unique_pairs(query, doc, path, partial(row_line, path, None),
                           what="retrieved twice")
    return run


def _stem(path: str) -> str:
    lower = path.lower()
    for suffix in (".gz", *_SUFFIXES):
        if lower.endswith(suffix):
            path, lower = path[: -len(suffix)], lower[: -len(suffix)]
    return path


def row_lines(path: str) -> np.ndarray:
    """Line (row for Parquet) of each data row of a table file."""
    fmt = table_format(path)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return np.arange(1, pq.ParquetFile(path).metadata.num_rows + 1, dtype=np.int64)
    data = read_bytes(path)
    text = _decode(data, path)
    if fmt == "jsonl":
        return np.asarray([i for i, ln in enumerate(text.split("\n"), 1) if ln.strip()],
                          np.int64)
    rows = _csv_rows(text, "," if fmt == "csv" else "\t", path)
    return np.asarray([s for s, _ in rows][1:], np.int64)


def row_line(path: str, raw: bytes | None, row: int) -> int | None:
    """The line of data row ``row`` (0-based) of a file, if known: a table
    file's (:func:`row_lines`), else counted in the TREC file's bytes ``raw``."""
    if table_format(path):
        try:
            numbers = row_lines(path)
        except InputError:
            return None
    elif raw is not None:
        numbers = line_numbers(raw)
    else:
        return None
    return int(numbers[row]) if row < len(numbers) else None
