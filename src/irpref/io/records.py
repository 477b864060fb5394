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
    """A TREC file that cannot be read: names the file, the line and the problem."""


@dataclass(frozen=True)
class Qrels:
    """Relevance judgements: one row per judged (query, document)."""

    query: pa.Array  # string
    doc: pa.Array  # string
    grade: np.ndarray  # int64
    source: str = "<qrels>"

    def __len__(self) -> int:
        return len(self.grade)


@dataclass(frozen=True)
class Run:
    """A ranked run: one row per retrieved (query, document, score), in file order."""

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

