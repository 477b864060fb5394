"""The values input produces: :class:`Qrels`, :class:`Run`, and the error
naming a bad input file, :class:`TrecFormatError`.

Every reader (:mod:`irpref.io.trec` for TREC files, :mod:`irpref.io.tables`
for CSV/TSV/JSONL/Parquet tables, :mod:`irpref.io.frames` for DataFrames and
dicts) returns these.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa

from irpref.errors import InputError

__all__ = ["GRADE_MAX", "PathLike", "Qrels", "Run", "TrecFormatError", "run_name_from_path"]

PathLike = str | os.PathLike

GRADE_MAX = 2**31 - 1
"""Largest |grade| accepted: grades are judged as 32-bit integers (one value,
-2**31, is reserved for "not in the qrels"), so a larger grade is refused
rather than wrapped."""


class TrecFormatError(InputError):
    """A TREC file that cannot be read: names the file, the line and the problem.

    An ``InputError`` (so a ``ValueError``); the CLI prints it as one line and
    exits 1.

    Parameters
    ----------
    path : str
        The file.
    line : int or None
        The 1-based line, or None for a problem of the whole file.
    problem : str
        What is wrong.
    text : str, optional
        The offending line.

    Examples
    --------
    >>> import irpref
    >>> err = irpref.TrecFormatError("runs/bm25.txt", 3, "score 'n/a' is not a number",
    ...                              "q1 Q0 d9 1 n/a bm25")
    >>> print(err)
    runs/bm25.txt:3: score 'n/a' is not a number: 'q1 Q0 d9 1 n/a bm25'
    >>> isinstance(err, ValueError)
    True
    """


@dataclass(frozen=True)
class Qrels:
    """Relevance judgments: one row per judged (query, document).

    Made by `read_qrels` (or from a DataFrame or dict by any entry point).
    Negative grades mark pooled but unjudged documents, as in trec_eval.

    Parameters
    ----------
    query : pyarrow.Array
        Query id of each row (strings).
    doc : pyarrow.Array
        Document id of each row (strings).
    grade : numpy.ndarray
        Integer grade of each row.
    source : str, default "<qrels>"
        Where the rows came from (a path), named in errors.

    Examples
    --------
    >>> import numpy as np
    >>> import pyarrow as pa
    >>> import irpref
    >>> qrels = irpref.Qrels(pa.array(["q1", "q1"]), pa.array(["d1", "d2"]), np.array([1, 0]))
    >>> qrels.source, len(qrels.doc)
    ('<qrels>', 2)
    """

    query: pa.Array  # string
    doc: pa.Array  # string
    grade: np.ndarray  # int64
    source: str = "<qrels>"

    def __len__(self) -> int:
        return len(self.grade)


@dataclass(frozen=True)
class Run:
    """A run: one row per retrieved (query, document, score), in file order.

    Made by `read_run` (or from a DataFrame or dict by any entry point).

    Parameters
    ----------
    name : str
        The run's name.
    query : pyarrow.Array
        Query id of each row (strings).
    doc : pyarrow.Array
        Document id of each row (strings).
    score : numpy.ndarray
        Score of each row (float64).
    source : str, default "<run>"
        Where the rows came from (a path), named in errors.
    tag : str, optional
        The tag column's value.

    Examples
    --------
    >>> import numpy as np
    >>> import pyarrow as pa
    >>> import irpref
    >>> run = irpref.Run("bm25", pa.array(["q1", "q1"]), pa.array(["d1", "d2"]),
    ...                  np.array([2.0, 1.0]))
    >>> run.name, run.score.tolist()
    ('bm25', [2.0, 1.0])
    """

    name: str
    query: pa.Array  # string
    doc: pa.Array  # string
    score: np.ndarray  # float64
    source: str = "<run>"
    tag: str | None = field(default=None)

    def __len__(self) -> int:
        return len(self.score)


_RUN_SUFFIXES = (".gz", ".txt", ".run", ".trec", ".tsv")


def run_name_from_path(path: PathLike) -> str:
    """Run name: file name without directory, ``input.`` prefix and TREC suffixes."""
    name = Path(path).name
    changed = True
    while changed:
        changed = False
        for suffix in _RUN_SUFFIXES:
            if name.endswith(suffix) and len(name) > len(suffix):
                name, changed = name[: -len(suffix)], True
    if name.startswith("input.") and len(name) > len("input."):
        name = name[len("input.") :]
    return name

