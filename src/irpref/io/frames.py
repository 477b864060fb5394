"""Qrels and runs from pandas DataFrames and nested dicts.

Accepts the shapes other tools use, so their users switch in one line:

- dicts ``{qid: {docid: grade}}`` / ``{qid: {docid: score}}`` (pytrec_eval, ranx);
- DataFrames with columns ``query_id, doc_id, relevance`` / ``query_id, doc_id,
  score`` (ir_measures) or ``q_id, doc_id, score`` (ranx) or ``qid, docno, ...``
  (trec_eval names); ``run`` / ``name`` columns split a frame into runs;
- ranx ``Qrels`` / ``Run`` objects (read through their ``to_dict()``);
- paths to TREC files or CSV/TSV/JSONL/Parquet tables (:mod:`irpref.io.tables`);
  already-read :class:`Qrels` / :class:`Run` objects.

Bad values are refused with :class:`irpref.errors.InputError` naming the row
(0-based position in the frame): grades must be integers within
``[-GRADE_MAX, GRADE_MAX]``, scores numbers (NaN refused).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from irpref.errors import InputError
from irpref.io.columns import NAMES, Columns, check_columns, find_column
from irpref.io.lines import check_unique_pairs
from irpref.io.records import GRADE_MAX, Qrels, Run
from irpref.io.trec import read_qrels, read_run, read_runs

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["as_qrels", "as_runs", "qrels_from_frame", "run_from_frame"]


def _column(frame: pd.DataFrame, role: str, what: str, columns: Columns | None = None) -> str:
    """The column of ``frame`` holding ``role`` (the mapped name, else one of
    the role's fixed names, exactly as written: the column names of table
    files, :mod:`irpref.io.columns`)."""
    found = find_column(frame.columns, role, columns, "<DataFrame>", line=None,
                        case_sensitive=True)
    if found is not None:
        return found
    raise InputError(
        "<DataFrame>", None, f"{what}: no column named one of {', '.join(NAMES[role])} "
        f"(columns: {', '.join(map(str, frame.columns))}); or name it with "
        f"columns={{{role!r}: NAME}}"
    )


def _strings(values) -> pa.Array:
    return pa.array(np.asarray(values).astype(str), type=pa.string())


def qrels_from_frame(frame: pd.DataFrame, source: str = "<DataFrame>", *,
                     columns: Columns | None = None) -> Qrels:
    import pandas as pd

    q = _column(frame, "query", "qrels", columns)
    d = _column(frame, "doc", "qrels", columns)
    g = _column(frame, "grade", "qrels", columns)
    grade = pd.to_numeric(frame[g], errors="coerce")
    bad = grade.isna() | (grade != np.floor(grade))
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(source, None, f"row {i}: grade {frame[g].iloc[i]!r} is not an integer")
    big = grade.abs() > GRADE_MAX
    if big.any():
        i = int(np.flatnonzero(big.to_numpy())[0])
        raise InputError(
            source,
            None,
            f"row {i}: grade {int(grade.iloc[i])} is out of range:"
            f" grades lie in [-{GRADE_MAX}, {GRADE_MAX}]",
        )
    qrels = Qrels(_strings(frame[q]), _strings(frame[d]), grade.to_numpy(np.int64), source)
    check_unique_pairs(qrels.query, qrels.doc, source, what="judged twice")
    return qrels


def run_from_frame(frame: pd.DataFrame, name: str, source: str = "<DataFrame>", *,
                   columns: Columns | None = None) -> Run:
    import pandas as pd

    q = _column(frame, "query", f"run {name}", columns)
    d = _column(frame, "doc", f"run {name}", columns)
    s = _column(frame, "score", f"run {name}", columns)
    score = pd.to_numeric(frame[s], errors="coerce").to_numpy(np.float64)
    if np.isnan(score).any():
        i = int(np.flatnonzero(np.isnan(score))[0])
        raise InputError(
            source, None, f"run {name}: row {i}: score {frame[s].iloc[i]!r} is not a number"
        )
    # a document retrieved twice for one query is refused by intern()
    return Run(name, _strings(frame[q]), _strings(frame[d]), score, source)


def _from_nested(nested: Mapping, value_name: str) -> pd.DataFrame:
    import pandas as pd

    q, d, v = [], [], []
    for qid, docs in nested.items():
        if not isinstance(docs, Mapping):
            raise InputError(
                "<dict>",
                None,
                f"expected {{qid: {{docid: {value_name}}}}}; "
                f"query {qid!r} maps to {type(docs).__name__}",
            )
        q.extend([qid] * len(docs))
        d.extend(docs.keys())
        v.extend(docs.values())
    return pd.DataFrame({"query_id": q, "doc_id": d, value_name: v})


def as_qrels(qrels, *, columns: Columns | None = None) -> Qrels:
    """Qrels from a path, DataFrame, ``{qid: {docid: grade}}`` dict or Qrels;
    ``columns`` names the columns of a table or DataFrame (:mod:`irpref.io.columns`)."""
    import pandas as pd

    columns = check_columns(columns, "columns")
    if isinstance(qrels, Qrels):
        return qrels
    if isinstance(qrels, (str, os.PathLike)):
        return read_qrels(qrels, columns=columns)
    if isinstance(qrels, pd.DataFrame):
        return qrels_from_frame(qrels, columns=columns)
    if _is_ranx(qrels, "Qrels"):
        return qrels_from_frame(_from_nested(qrels.to_dict(), "relevance"), "<ranx Qrels>")
    if isinstance(qrels, Mapping):
        return qrels_from_frame(_from_nested(qrels, "relevance"), "<dict>")
    raise TypeError(f"cannot read qrels from a {type(qrels).__name__}")


def _is_ranx(obj, kind: str) -> bool:
    """A ranx ``Qrels`` / ``Run`` (checked by type name: ranx stays optional)."""
    cls = type(obj)
    return cls.__name__ == kind and cls.__module__.split(".")[0] == "ranx"


def _is_nested_run(obj) -> bool:
    if not isinstance(obj, Mapping) or not obj:
        return False
    first = next(iter(obj.values()))
    return isinstance(first, Mapping) and not any(isinstance(v, Mapping) for v in first.values())


def as_runs(runs, *, use_tag: bool = False, columns: Columns | None = None) -> list[Run]:
    """Runs from paths, DataFrames, dicts or Run objects.

    ``runs`` may be one run or a collection: a list of paths/Run objects, a
    ``{name: run}`` mapping (each run a path, DataFrame or nested dict), or a
    DataFrame with a ``run``/``name`` column (or the ``run`` column of
    ``columns``, which names the columns of tables and DataFrames,
    :mod:`irpref.io.columns`).
    """
    import pandas as pd

    columns = check_columns(columns, "columns")
    if isinstance(runs, Run):
        return [runs]
    if _is_ranx(runs, "Run"):
        name = getattr(runs, "name", None) or "run"
        return [run_from_frame(_from_nested(runs.to_dict(), "score"), str(name), "<ranx Run>")]
    if isinstance(runs, (str, os.PathLike)):
        return [read_run(runs, use_tag=use_tag, check_duplicates=False, columns=columns)]
    if isinstance(runs, pd.DataFrame):
        if columns and "run" in columns:
            col = _column(runs, "run", "runs", columns)
        else:
            col = next((c for c in ("run", "name", "run_id", "system") if c in runs.columns),
                       None)
        if col is None:
            return [run_from_frame(runs, "run", columns=columns)]
        return [run_from_frame(group, str(name), columns=columns)
                for name, group in runs.groupby(col, sort=False)]
    if isinstance(runs, Mapping):
        if _is_nested_run(runs):
            return [run_from_frame(_from_nested(runs, "score"), "run", "<dict>")]
        out = []
        for name, run in runs.items():
            if _is_ranx(run, "Run"):
                nested = _from_nested(run.to_dict(), "score")
                out.append(run_from_frame(nested, str(name), "<ranx Run>"))
            elif isinstance(run, Mapping):
                out.append(run_from_frame(_from_nested(run, "score"), str(name), "<dict>"))
            elif isinstance(run, pd.DataFrame):
                out.append(run_from_frame(run, str(name), columns=columns))
            elif isinstance(run, (str, os.PathLike)):
                out.append(read_run(run, name=str(name), check_duplicates=False,
                                    columns=columns))
            elif isinstance(run, Run):
                out.append(Run(str(name), run.query, run.doc, run.score, run.source, run.tag))
            else:
                raise TypeError(f"run {name!r}: cannot read a {type(run).__name__}")
        return out
    if isinstance(runs, Iterable):
        runs = list(runs)
        if len(runs) > 1 and all(isinstance(r, (str, os.PathLike)) for r in runs):
            # files read in parallel; intern() refuses repeated documents
            return read_runs(runs, use_tag=use_tag, check_duplicates=False, columns=columns)
        out = []
        for run in runs:
            out.extend(as_runs(run, use_tag=use_tag, columns=columns))
        return out
    raise TypeError(f"cannot read runs from a {type(runs).__name__}")
