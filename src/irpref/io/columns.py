"""Which column of a table holds what: the fixed names, and one mapping that overrides them.

Tables (CSV/TSV/JSONL/Parquet files, DataFrames) name their columns. By
default a column is found by one of the names of :data:`NAMES`
(case-insensitive in files, exact in DataFrames). Recommendation data sets
use their own names (``user_id``, ``item_id``, ``rating``): one mapping
``{role: column}`` names them, on the CLI as ``--columns
query=user_id,doc=item_id,grade=rating`` and in Python as
``columns={"query": "user_id", ...}`` (the readers, :func:`irpref.evaluate`,
:func:`irpref.evaluate.judge_inputs`). A mapped column must exist, by its
exact name; a role left out is found by its fixed names. TREC files have no
column names and are read as always.

The roles: ``query`` (the query or user), ``doc`` (the document or item),
``score`` (runs), ``grade`` (qrels), ``run`` (a run name column: one run per
file; in a DataFrame, one run per value).
"""

from __future__ import annotations

from collections.abc import Mapping

from irpref.errors import InputError
from irpref.params import ROLES, check_columns

__all__ = ["NAMES", "ROLES", "Columns", "check_columns", "find_column"]

NAMES: dict[str, tuple[str, ...]] = {
    "query": ("query_id", "qid", "q_id", "query", "topic"),
    "doc": ("doc_id", "docid", "docno", "doc", "document"),
    "score": ("score", "sim", "similarity"),
    "grade": ("relevance", "grade", "rel", "label", "judgment"),
    "run": ("run", "name", "run_id", "system", "tag"),
}
"""The fixed names of each role's column, in order of preference."""


Columns = Mapping[str, str]
"""A mapping ``{role: column name}`` (roles of :data:`ROLES`)."""


def find_column(columns, role: str, mapping: Columns | None, source: str, *,
                line: int | None = 1, case_sensitive: bool = False) -> str | None:
    """The column of ``columns`` holding ``role``: the mapped name, which must
    exist exactly (else an :class:`~irpref.errors.InputError` naming
    ``source``, at ``line``, and the column), else the first of the role's
    fixed names present (case-insensitive unless ``case_sensitive``), else
    None (the caller says what it expected)."""
    columns = list(columns)
    if mapping and role in mapping:
        name = mapping[role]
        if name in columns:
            return name
        raise InputError(source, line, f"no column {name!r} (the {role} column named by "
                         f"--columns {role}={name}); columns: {', '.join(map(str, columns))}")
    if case_sensitive:
        return next((n for n in NAMES[role] if n in columns), None)
    lower = {str(c).lower(): c for c in columns}
    return next((lower[n] for n in NAMES[role] if n in lower), None)
