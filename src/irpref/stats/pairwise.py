"""The representation every test reads: :class:`Pairwise`, per-query values of all run pairs.

For one measure, the per-query comparison of every run pair is a (Q, R, R)
antisymmetric matrix ``D[q, a, b]`` (for a metric, ``x[a, q] - x[b, q]``; for
a preference, the preference of run ``a`` over run ``b`` on query ``q``).
Tests run on all R (R - 1) / 2 pairs ``a < b`` at once: array code over a
(P, Q) table of per-query values, no Python loop per pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from irpref.measures import parse_measure
from irpref.measures.base import orientation_sign
from irpref.preferences.registry import preference_kind as registry_kind
from irpref.stats.anova import Anova, anova_two_way

__all__ = ["KINDS", "Pairwise", "as_pairwise", "preference_kind"]

KINDS = ("metric", "real", "sign")

# --------------------------------------------------------------------------- data


@dataclass(frozen=True, eq=False)
class Pairwise:
    """Per-query pairwise values of one measure over R runs and Q queries: what the tests read.

    Kind ``metric``: ``scores`` (R, Q) per-query values, NaN where a run lacks a
    query; the pair values are ``scores[a] - scores[b]``. Kinds ``real`` and
    ``sign``: a (Q, R, R) matrix of preferences of row run over column run
    (antisymmetric, NaN where missing; ``sign`` values in {-1, 0, 1}), or a
    ``source`` that computes them by blocks of pairs. Build one with the
    constructors ``from_metric`` (an `evaluate` table), ``from_preference``
    (a `compare` table), ``from_scores`` or ``from_matrix``.

    Parameters
    ----------
    measure : str
        The measure's name.
    kind : {"metric", "real", "sign"}
        What the values are.
    runs : numpy.ndarray
        (R,) run names.
    queries : numpy.ndarray
        (Q,) query ids.
    scores : numpy.ndarray, optional
        (R, Q) per-query values (kind ``metric``).
    matrix_ : numpy.ndarray, optional
        (Q, R, R) preferences (kinds ``real`` and ``sign``).
    orientation_ : {"higher", "lower", "none"}, optional
        Which direction is better; None: from the measure's record.
    source : object, optional
        Values by blocks of pairs: an object with ``pair_values(a, b)`` ((P, Q)
        values of the pairs (a[i], b[i])) and ``matrix()``.

    Raises
    ------
    ValueError
        An unknown kind, values missing for the kind, an unknown orientation or
        fewer than two runs.

    Examples
    --------
    >>> import numpy as np
    >>> import irpref
    >>> pw = irpref.Pairwise.from_scores(np.array([[0.5, 0.7, 0.2], [0.4, 0.9, 0.6]]),
    ...                                  runs=["bm25", "dense"], measure="AP")
    >>> pw.kind, list(pw.runs), pw.scores.shape
    ('metric', ['bm25', 'dense'], (2, 3))
    """

    measure: str
    kind: str
    runs: np.ndarray  # (R,) object
    queries: np.ndarray  # (Q,) object
    scores: np.ndarray | None = None  # (R, Q), kind "metric"
    matrix_: np.ndarray | None = None  # (Q, R, R), kinds "real" / "sign"
    orientation_: str | None = None  # "higher" / "lower" / "none"; None: from the record
    source: object | None = None  # kinds "real" / "sign": values by blocks of pairs

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if self.kind == "metric" and self.scores is None:
            raise ValueError("a metric Pairwise needs scores (R, Q)")
        if self.kind != "metric" and self.matrix_ is None and self.source is None:
            raise ValueError(f"a {self.kind} Pairwise needs a matrix (Q, R, R)")
        if self.orientation_ not in (None, "higher", "lower", "none"):
            raise ValueError(
                f"orientation must be higher, lower or none, not {self.orientation_!r}")
        if len(self.runs) < 2:
            raise ValueError(
                f"{self.measure}: significance needs at least 2 runs, got {len(self.runs)}"
            )

    # -- constructors -------------------------------------------------------
    @classmethod
    def from_scores(
        cls, scores: np.ndarray, runs: Sequence[str] | None = None,
        queries: Sequence[str] | None = None, measure: str = "",
    ) -> Pairwise:
        """From an (R, Q) array of per-query metric values (NaN: missing)."""
        scores = np.asarray(scores, dtype=np.float64)
        if scores.ndim != 2:
            raise ValueError(f"scores must be (runs, queries), got shape {scores.shape}")
        r, q = scores.shape
        return cls(measure, "metric", _names(runs, r, "run"), _names(queries, q, "q"),
                   scores=scores)

    @classmethod
    def from_matrix(
        cls, matrix: np.ndarray, kind: str = "real", runs: Sequence[str] | None = None,
        queries: Sequence[str] | None = None, measure: str = "",
    ) -> Pairwise:
        """From a (Q, R, R) array: ``matrix[q, a, b]`` = preference of a over b on q."""
        matrix = np.asarray(matrix, dtype=np.float64)
        if matrix.ndim != 3 or matrix.shape[1] != matrix.shape[2]:
            raise ValueError(f"matrix must be (queries, runs, runs), got shape {matrix.shape}")
        if kind == "sign":
            finite = matrix[~np.isnan(matrix)]
            if not np.isin(finite, (-1.0, 0.0, 1.0)).all():
                raise ValueError(f"{measure or 'matrix'}: a sign preference takes values -1, 0, 1")
        q, r, _ = matrix.shape
        return cls(measure, kind, _names(runs, r, "run"), _names(queries, q, "q"), matrix_=matrix)

    @classmethod
    def from_metric(cls, table: pd.DataFrame, measure: str | None = None) -> Pairwise:
        """From a tidy table (run, query, measure, value), e.g. :func:`irpref.evaluate`."""
        table = _one_measure(table, measure, ("run", "query", "value"))
        table = table[table["query"].notna()]  # null query: a mean row, not a query
        _check_unique(table, ["run", "query"])
        runs = pd.unique(table["run"])
        queries = np.sort(pd.unique(table["query"]).astype(object))
        r = pd.Index(runs).get_indexer(table["run"])
        q = pd.Index(queries).get_indexer(table["query"])
        scores = np.full((len(runs), len(queries)), np.nan)
        scores[r, q] = table["value"].to_numpy(np.float64)
        name = str(table["measure"].iloc[0]) if "measure" in table and len(table) else ""
        return cls(name, "metric", np.asarray(runs, dtype=object), queries, scores=scores)

    @classmethod
    def from_preference(
        cls, table: pd.DataFrame, measure: str | None = None, kind: str | None = None
    ) -> Pairwise:
        """From a tidy table (run_a, run_b, query, measure, value), e.g. ``irpref.compare``.

        A pair given in one orientation only is mirrored (preferences are
        antisymmetric). ``kind`` (``sign`` / ``real``) defaults to the
        preference registry's, else ``sign`` when every value is -1, 0 or 1.
        """
        table = _one_measure(table, measure, ("run_a", "run_b", "query", "value"))
        table = table[table["query"].notna()]  # null query: a mean row, not a query
        _check_unique(table, ["run_a", "run_b", "query"])
        name = str(table["measure"].iloc[0]) if "measure" in table and len(table) else ""
        a_col, b_col = table["run_a"].to_numpy(object), table["run_b"].to_numpy(object)
        runs = pd.unique(np.column_stack([a_col, b_col]).ravel())
        queries = np.sort(pd.unique(table["query"]).astype(object))
        a = pd.Index(runs).get_indexer(a_col)
        b = pd.Index(runs).get_indexer(b_col)
        q = pd.Index(queries).get_indexer(table["query"])
        v = table["value"].to_numpy(np.float64)
        matrix = np.full((len(queries), len(runs), len(runs)), np.nan)
        matrix[:, np.arange(len(runs)), np.arange(len(runs))] = 0.0
        matrix[q, b, a] = -v
        matrix[q, a, b] = v
        if kind is None:
            kind = preference_kind(name, v)
        return cls.from_matrix(matrix, kind, runs, queries, name)

    @classmethod
    def from_comparison(cls, comparison, measure: str) -> Pairwise:
        """From an ``irpref.compare_matrices`` result: its values of ``measure``,
        by blocks of pairs (its ``source``), else its (Q, R, R) matrix."""
        if hasattr(comparison, "source"):
            return cls(measure, preference_kind(measure), _names(comparison.runs, len(
                comparison.runs), "run"), _names(comparison.queries[measure], len(
                comparison.queries[measure]), "q"), source=comparison.source(measure))
        matrix = np.asarray(comparison.values[measure], dtype=np.float64)
        kind = preference_kind(measure, matrix)
        return cls.from_matrix(matrix, kind, list(comparison.runs),
                               list(comparison.queries[measure]), measure)

    # -- views --------------------------------------------------------------
    @property
    def n_runs(self) -> int:
        return len(self.runs)

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    @cached_property
    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Indices (a, b), a < b, of all R (R - 1) / 2 run pairs, row-major."""
        return np.triu_indices(self.n_runs, 1)

    @cached_property
    def values(self) -> np.ndarray:
        """(P, Q) per-query values of every pair a < b (NaN: missing)."""
        return self.pair_values(*self.pairs)

    def win_rates(self) -> np.ndarray:
        """(Q, R) per-query win rates of a preference, ``sum_b Delta_q(a, b)``
        (:func:`irpref.preferences.aggregate.win_rates`), from the ``source`` by blocks of pairs
        when it gives them, else from the matrix."""
        if self.matrix_ is None and hasattr(self.source, "win_rates"):
            return np.asarray(self.source.win_rates(), dtype=np.float64)
        from irpref.preferences.aggregate import win_rates

        return win_rates(self.matrix)

    @property
    def matrix(self) -> np.ndarray:
        """(Q, R, R) per-query pairwise matrix (for a metric, its differences; from a
        ``source``, built at each read: O(Q R²))."""
        if self.matrix_ is not None:
            return self.matrix_
        if self.source is not None:
            return np.asarray(self.source.matrix(), dtype=np.float64)
        return (self.scores[:, None, :] - self.scores[None, :, :]).transpose(2, 0, 1)

    def pair_values(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """(P, Q) per-query values of the pairs (a[i], b[i]), in any order (NaN: missing)."""
        a, b = np.asarray(a, dtype=np.intp), np.asarray(b, dtype=np.intp)
        if self.kind == "metric":
            return self.scores[a] - self.scores[b]
        if self.matrix_ is None:
            return self.source.pair_values(a, b)
        return np.ascontiguousarray(self.matrix_[:, a, b].T)

    @cached_property
    def orientation(self) -> str:
        """``higher`` / ``lower`` / ``none``: which sign of a value favours run_a.

        Read from the record: a metric's (``irpref.measures.parse_measure(name)
        .orientation``), a preference's (``irpref.preferences.registry.PrefFamily
        .orientation``; ``higher``: a positive value prefers run_a). A name no
        record knows (e.g. from :meth:`from_scores`) is taken as ``higher``;
        pass ``orientation_`` to say otherwise.
        """
        if self.orientation_ is not None:
            return self.orientation_
        try:
            if self.kind == "metric":
                return parse_measure(self.measure).orientation
            from irpref.preferences.registry import PREFERENCES, parse_preference

            return PREFERENCES[parse_preference(self.measure).name].orientation
        except (ValueError, KeyError):
            return "higher"

    @property
    def sign(self) -> int:
        """+1 (higher is better), -1 (lower is better), 0 (no better or worse)."""
        return orientation_sign(self.orientation)

    @cached_property
    def anova(self) -> Anova:
        """The two-way ANOVA without replication of a metric's (R, Q) scores, computed
        once (:func:`irpref.stats.anova.anova_two_way`; V_E behind ES_E and tukey)."""
        if self.kind != "metric":
            raise ValueError(f"{self.measure}: a preference has no per-run scores, no ANOVA")
        return anova_two_way(self.scores)

    @property
    def test_for_paired(self) -> str:
        """The test ``paired`` means for this measure: sign for sign preferences, else t."""
        return "sign" if self.kind == "sign" else "t"


def _names(names: Sequence[str] | None, n: int, prefix: str) -> np.ndarray:
    if names is None:
        return np.array([f"{prefix}{i}" for i in range(n)], dtype=object)
    names = np.asarray(list(names), dtype=object)
    if len(names) != n:
        raise ValueError(f"expected {n} {prefix} names, got {len(names)}")
    return names


def _one_measure(table: pd.DataFrame, measure: str | None, needed: tuple[str, ...]) -> pd.DataFrame:
    missing = [c for c in needed if c not in table.columns]
    if missing:
        raise ValueError(
            f"table lacks column(s) {', '.join(missing)} (has {', '.join(map(str, table.columns))})"
        )
    if "measure" in table.columns:
        names = ", ".join(map(str, pd.unique(table["measure"])))
        if measure is not None:
            table = table[table["measure"] == measure]
            if table.empty:
                raise ValueError(f"no rows for measure {measure!r} (have {names})")
        elif table["measure"].nunique() > 1:
            raise ValueError(f"table holds several measures ({names}): pick one")
    if table.empty:
        raise ValueError("empty table: nothing to test")
    return table


def _check_unique(table: pd.DataFrame, keys: list[str]) -> None:
    dup = table.duplicated(keys)
    if dup.any():
        row = table[dup].iloc[0]
        raise ValueError(f"duplicate rows for {', '.join(f'{k}={row[k]}' for k in keys)}")


def preference_kind(measure: str, values: np.ndarray | None = None) -> str:
    """``sign`` or ``real``: from the preference registry, else from the values."""
    try:
        return registry_kind(measure)
    except (ValueError, TypeError):
        pass
    if values is not None:
        finite = np.asarray(values, dtype=np.float64)
        finite = finite[~np.isnan(finite)]
        if np.isin(finite, (-1.0, 0.0, 1.0)).all():
            return "sign"
    return "real"


def is_comparison(obj) -> bool:
    """An ``irpref.compare_matrices`` result: per-measure (Q, R, R) matrices."""
    return all(hasattr(obj, k) for k in ("runs", "queries", "values", "preferences"))


def as_pairwise(table: pd.DataFrame, kinds: dict[str, str] | None = None) -> list[Pairwise]:
    """Split a tidy table into one :class:`Pairwise` per measure.

    A table with a ``run`` column holds metrics (:func:`irpref.evaluate`); one
    with ``run_a``/``run_b`` holds preferences (``irpref.compare``), whose kind
    comes from ``kinds``, the preference registry, or the values.
    """
    kinds = kinds or {}
    has_measure = "measure" in table.columns
    names = list(pd.unique(table["measure"])) if has_measure else [None]
    if "run_a" in table.columns and "run_b" in table.columns:
        return [Pairwise.from_preference(table, m, kinds.get(m)) for m in names]
    if "run" in table.columns:
        return [Pairwise.from_metric(table, m) for m in names]
    raise ValueError(
        "expected a tidy table with columns run, query, measure, value (metrics) or "
        "run_a, run_b, query, measure, value (preferences); got "
        + ", ".join(map(str, table.columns))
    )

