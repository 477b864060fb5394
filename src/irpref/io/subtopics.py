"""Subtopic (diversity) judgments in ndeval format: ``topic subtopic docid grade``.

This is the format of the TREC Web track diversity qrels read by ``ndeval``:
one line per (topic, subtopic, document) with an integer grade. It looks
like TREC qrels (whose second column is an unused iteration number), but a
document appears once per subtopic, so :func:`irpref.io.read_qrels` refuses
it. A subtopic ``0`` (or ``Q0``) line carries a plain judgment, no subtopic.

:func:`collapse` gives the plain qrels used by every other measure: a
document's grade is its maximum over subtopics, as in the reference
implementation of RPP (pref_eval, ``util/trec_io.py``: "general relevance is
the max over subtopics").
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irpref.io.lines import (
    diagnose_qrels,
    line_numbers,
    normalise,
    parse_csv,
    parse_grades,
    read_bytes,
    strip_comments,
    unreadable,
)
from irpref.io.records import Qrels, TrecFormatError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SubtopicQrels", "as_subtopic_qrels", "collapse", "read_subtopic_qrels"]

NO_SUBTOPIC = ("0", "Q0")


@dataclass(frozen=True)
class SubtopicQrels:
    """Judgments per (query, subtopic, document)."""

    query: pa.Array  # string
    subtopic: pa.Array  # string ("0" / "Q0": no subtopic)
    doc: pa.Array  # string
    grade: np.ndarray  # int64
    source: str = "<subtopic qrels>"

    def __len__(self) -> int:
        return len(self.grade)

    @property
    def has_subtopic(self) -> np.ndarray:
        """Boolean per row: the row names a real subtopic (not 0 / Q0)."""
        return ~pc.is_in(self.subtopic, value_set=pa.array(NO_SUBTOPIC)).to_numpy(
            zero_copy_only=False
        )


def _diagnose(data: bytes, path: str) -> None:
    diagnose_qrels(data, path, "topic subtopic docid grade", "subtopic qrels", ids=(0, 1, 2))


def read_subtopic_qrels(path: str | os.PathLike) -> SubtopicQrels:
    """Read ndeval-format qrels ``topic subtopic docid grade`` (plain or ``.gz``)."""
    path = str(path)
    raw = read_bytes(path)
    data = normalise(strip_comments(raw))
    if not bytes(data).strip():
        raise TrecFormatError(path, None, "empty subtopic qrels file: no judgements")
    try:
        table = parse_csv(
            data,
            ["query", "subtopic", "doc", "grade"],
            {
                "query": pa.string(),
                "subtopic": pa.string(),
                "doc": pa.string(),
                "grade": pa.string(),
            },
        )
        grade = parse_grades(table["grade"])
        if grade is None:
            raise pa.ArrowInvalid("a grade is not a decimal integer in range")
    except pa.ArrowException as exc:
        _diagnose(raw, path)
        raise unreadable(path, exc) from None
    sub = SubtopicQrels(
        table["query"].combine_chunks(),
        table["subtopic"].combine_chunks(),
        table["doc"].combine_chunks(),
        grade,
        source=path,
    )
    _check_unique(sub, raw)
    return sub


def _check_unique(sub: SubtopicQrels, raw: bytes | None) -> None:
    """Raise if a (topic, subtopic, document) triple is judged twice."""
    import pandas as pd

    frame = pd.DataFrame(
        {
            "q": pc.dictionary_encode(sub.query).indices.to_numpy(),
            "s": pc.dictionary_encode(sub.subtopic).indices.to_numpy(),
            "d": pc.dictionary_encode(sub.doc).indices.to_numpy(),
        }
    )
    dup = frame.duplicated()
    if not dup.any():
        return
    row = int(np.flatnonzero(dup.to_numpy())[0])
    line = None
    if raw is not None:
        numbers = line_numbers(raw)
        line = int(numbers[row]) if row < len(numbers) else None
    raise TrecFormatError(
        sub.source,
        line,
        f"document {sub.doc[row].as_py()!r} judged twice for topic {sub.query[row].as_py()!r}"
        f" subtopic {sub.subtopic[row].as_py()!r}",
    )


_QUERY = ("query_id", "qid", "q_id", "query", "topic")
_SUBTOPIC = ("subtopic", "subtopic_id", "iteration", "iter", "intent")
_DOC = ("doc_id", "docid", "docno", "doc", "document")
_GRADE = ("relevance", "grade", "rel", "label", "judgment")


def _column(frame: pd.DataFrame, names: tuple[str, ...]) -> str:
    for name in names:
        if name in frame.columns:
            return name
    raise ValueError(
        f"subtopic qrels: no column named one of {', '.join(names)} "
        f"(columns: {', '.join(map(str, frame.columns))})"
    )


def as_subtopic_qrels(obj) -> SubtopicQrels:
    """Subtopic qrels from a path, a DataFrame (query, subtopic, doc, grade
    columns) or a :class:`SubtopicQrels`."""
    import pandas as pd

    if isinstance(obj, SubtopicQrels):
        return obj
    if isinstance(obj, (str, os.PathLike)):
        return read_subtopic_qrels(obj)
    if isinstance(obj, pd.DataFrame):
        cols = [_column(obj, names) for names in (_QUERY, _SUBTOPIC, _DOC, _GRADE)]
        grade = pd.to_numeric(obj[cols[3]], errors="coerce")
        bad = grade.isna() | (grade != np.floor(grade))
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            raise ValueError(f"subtopic qrels: row {i}: grade {obj[cols[3]].iloc[i]!r} "
                             "is not an integer")
        strings = [pa.array(np.asarray(obj[c]).astype(str), type=pa.string()) for c in cols[:3]]
        sub = SubtopicQrels(*strings, grade.to_numpy(np.int64), source="<DataFrame>")
        _check_unique(sub, None)
        return sub
    if isinstance(obj, Mapping):
        raise ValueError("subtopic judgments cannot come from a {qid: {docid: grade}} dict "
                         "(it has no subtopic): pass an ndeval-format path or a DataFrame")
    raise TypeError(f"cannot read subtopic qrels from a {type(obj).__name__}")


def collapse(sub: SubtopicQrels) -> Qrels:
    """Plain qrels: one row per (query, document), its maximum grade over subtopics."""
    table = pa.table({"query": sub.query, "doc": sub.doc, "grade": pa.array(sub.grade)})
    grouped = table.group_by(["query", "doc"], use_threads=False).aggregate(
        [("grade", "max")]
    )
    return Qrels(
        grouped["query"].combine_chunks(),
        grouped["doc"].combine_chunks(),
        grouped["grade_max"].to_numpy(),
        source=sub.source,
    )
