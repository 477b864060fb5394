"""Significance tests over run pairs: paired tests, randomized Tukey HSD, corrections.

Every test reads one representation, :class:`Pairwise`: for one measure, the
per-query comparison of every run pair as a (Q, R, R) antisymmetric matrix
``D[q, a, b]`` (for a metric, ``x[a, q] - x[b, q]``; for a preference, the
preference of run ``a`` over run ``b`` on query ``q``). Tests run on all
R (R - 1) / 2 pairs ``a < b`` at once: array code over a (P, Q) table of
per-query values, no Python loop per pair.

- Student's paired t test (two-sided) on metric differences and on
  real-valued preferences (rrLP, RPP: is the mean preference 0?).
  Smucker, Allan & Carterette, CIKM 2007; lexiprecision paper (Diaz, SIGIR
  2023), Sec. 4.2.
- Exact binomial sign test for sign preferences (sgnLP, sgnLR): wins against
  losses, ties dropped. Lexiprecision Sec. 4.2; lexirecall (Diaz, Mitra et
  al. 2023), Sec. 6 (discriminative power).
- Wilcoxon signed-rank test (zeros dropped, average ranks for ties).
- Randomized Tukey HSD (Carterette, TOIS 2012): within each query, permute
  which run produced which values; the statistic is the maximum over pairs of
  |mean over queries| of the permuted matrix; the p-value of a pair is the
  fraction of permutations whose maximum reaches the pair's observed |mean|.
  Lexiprecision Table 3(a); RPP (Diaz & Ferraro 2022), Table 3.
- Holm-Bonferroni (default), Bonferroni, Benjamini-Hochberg over all pairs.
  Lexirecall Sec. 6 ("the conservative Holm-Bonferroni method").
- Effect sizes (mean / sd of per-query values; win proportion for sign
  tests) and seeded percentile-bootstrap confidence intervals of the mean.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from irpref.threads import COMPUTE_CAP, worker_count

__all__ = [
    "CORRECTIONS",
    "TESTS",
    "Pairwise",
    "adjust_pvalues",
    "against_baseline",
    "as_pairwise",
    "bootstrap_ci",
    "hsd_permutations",
    "pair_tests",
    "paired_t",
    "preference_kind",
    "sign_test",
    "significance",
    "tukey_hsd",
    "wilcoxon",
]

TESTS = ("paired", "t", "sign", "wilcoxon", "hsd")
"""``paired`` picks ``t`` for metrics and real preferences, ``sign`` for sign preferences."""

CORRECTIONS = ("holm", "bonferroni", "bh", "none")
"""Multiple-comparison corrections over all run pairs of one measure and test."""

KINDS = ("metric", "real", "sign")

SeedLike = int | np.random.Generator | np.random.SeedSequence | None


def _sps():
    """scipy.stats, imported on first use (it costs ~1 s at start-up)."""
    from scipy import stats

    return stats


# --------------------------------------------------------------------------- data


@dataclass(frozen=True, eq=False)
class Pairwise:
    """Per-query pairwise values of one measure over R runs and Q queries.

    kind ``metric``: ``scores`` (R, Q) per-query values, NaN where a run lacks
    a query; the matrix is ``scores[a] - scores[b]``. Kinds ``real`` and
    ``sign``: ``matrix`` (Q, R, R) preferences of row run over column run
    (antisymmetric, NaN where missing; ``sign`` values are in {-1, 0, 1}).
    """

    measure: str
    kind: str
    runs: np.ndarray  # (R,) object
    queries: np.ndarray  # (Q,) object
    scores: np.ndarray | None = None  # (R, Q), kind "metric"
    matrix_: np.ndarray | None = None  # (Q, R, R), kinds "real" / "sign"

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if self.kind == "metric" and self.scores is None:
            raise ValueError("a metric Pairwise needs scores (R, Q)")
        if self.kind != "metric" and self.matrix_ is None:
            raise ValueError(f"a {self.kind} Pairwise needs a matrix (Q, R, R)")
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
        """From an ``irpref.compare_matrices`` result (its (Q, R, R) matrix of ``measure``)."""
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
        a, b = self.pairs
        if self.kind == "metric":
            return self.scores[a] - self.scores[b]
        return np.ascontiguousarray(self.matrix_[:, a, b].T)

    @property
    def matrix(self) -> np.ndarray:
        """(Q, R, R) per-query pairwise matrix (for a metric, its differences)."""
        if self.matrix_ is not None:
            return self.matrix_
        return (self.scores[:, None, :] - self.scores[None, :, :]).transpose(2, 0, 1)

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
        from irpref.preferences.registry import preference_kind as registry_kind

        return registry_kind(measure)
    except (ImportError, ValueError, TypeError):
        pass
    if values is not None:
        finite = np.asarray(values, dtype=np.float64)
        finite = finite[~np.isnan(finite)]
        if np.isin(finite, (-1.0, 0.0, 1.0)).all():
            return "sign"
    return "real"


# ---------------------------------------------------------------- paired tests


def paired_t(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two-sided one-sample t test of mean 0 along the last axis (NaN ignored).

    t = mean(d) / (sd(d) / sqrt(n)), sd with n - 1 degrees of freedom; on
    differences this is Student's paired t test (``scipy.stats.ttest_rel``).
    Returns (t, p, n). All-zero differences give t = 0, p = 1 (scipy: NaN);
    fewer than 2 values give NaN.
    """
    d = np.asarray(d, dtype=np.float64)
    valid = ~np.isnan(d)
    n = valid.sum(-1)
    x = np.where(valid, d, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = x.sum(-1) / n
        dev = np.where(valid, d - mean[..., None], 0.0)
        sd = np.sqrt((dev * dev).sum(-1) / (n - 1))
        t = mean / (sd / np.sqrt(n))
        p = 2.0 * _sps().t.sf(np.abs(t), n - 1)
    zero = (sd == 0) & (mean == 0)
    t = np.where(zero, 0.0, t)
    p = np.where(zero, 1.0, p)
    t = np.where(n < 2, np.nan, t)
    p = np.where(n < 2, np.nan, p)
    return t, p, n


def sign_test(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Exact two-sided binomial sign test along the last axis: wins vs losses, ties dropped.

    p = min(1, 2 P(X <= min(w, l))), X ~ Binomial(w + l, 1/2), as
    ``scipy.stats.binomtest(w, w + l)``; p = 1 when w + l = 0.
    Returns (wins, losses, ties, p).
    """
    d = np.asarray(d, dtype=np.float64)
    wins = (d > 0).sum(-1)
    losses = (d < 0).sum(-1)
    ties = (d == 0).sum(-1)
    n = wins + losses
    p = np.minimum(1.0, 2.0 * _sps().binom.cdf(np.minimum(wins, losses), n, 0.5))
    p = np.where(n == 0, 1.0, p)
    return wins, losses, ties, p


def wilcoxon(d: np.ndarray, method: str = "auto") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two-sided Wilcoxon signed-rank test along the last axis (Wilcoxon 1945).

    Zeros are dropped (``zero_method="wilcox"``), tied |d| get average ranks;
    W+ = sum of ranks of positive d. ``exact``: the null distribution of W+
    (all 2^n sign assignments), p = min(1, 2 min(P(W+ <= w), P(W+ >= w)));
    ``asymptotic``: z = (W+ - n(n+1)/4) / sqrt(n(n+1)(2n+1)/24 - sum(t^3 - t)/48),
    no continuity correction; ``auto``: exact for a pair with n <= 50 and no
    zeros or ties, else asymptotic (scipy decides once per call and uses a
    random permutation test for small tied samples). Returns
    (min(W+, W-), p, n); n = 0 gives p = 1.
    """
    if method not in ("auto", "exact", "asymptotic"):
        raise ValueError(f"method must be auto, exact or asymptotic, not {method!r}")
    d = np.asarray(d, dtype=np.float64)
    shape = d.shape[:-1]
    d = d.reshape(-1, d.shape[-1])
    valid = ~np.isnan(d) & (d != 0)
    zeros = (d == 0).any(-1)
    n = valid.sum(-1)
    a = np.where(valid, np.abs(d), np.inf)
    ranks = _sps().rankdata(a, axis=-1)  # +inf sorts last: finite ranks are exact
    r_plus = np.where(valid & (d > 0), ranks, 0.0).sum(-1)
    r_minus = np.where(valid & (d < 0), ranks, 0.0).sum(-1)
    tie_term, has_ties = _tie_sums(a)
    mean = n * (n + 1) / 4.0
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt((n * (n + 1) * (2 * n + 1) - tie_term / 2.0) / 24.0)
        z = (r_plus - mean) / se
        p = 2.0 * _sps().norm.sf(np.abs(z))
    if method == "exact":
        exact = n > 0
    elif method == "auto":
        exact = (n > 0) & (n <= 50) & ~has_ties & ~zeros
    else:
        exact = np.zeros(len(n), bool)
    if exact.any():
        p[exact] = _wilcoxon_exact_p(r_plus[exact], n[exact])
    p = np.where(n == 0, 1.0, np.minimum(p, 1.0))
    stat = np.minimum(r_plus, r_minus)
    return stat.reshape(shape), p.reshape(shape), n.reshape(shape)


def _tie_sums(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: sum of t^3 - t over groups of equal finite values, and whether any tie."""
    s = np.sort(a, axis=-1)
    rows, cols = s.shape
    new = np.ones(s.shape, bool)
    new[:, 1:] = s[:, 1:] != s[:, :-1]
    group = np.cumsum(new.ravel()) - 1
    size = np.bincount(group)
    first = np.flatnonzero(new.ravel())
    finite = np.isfinite(s.ravel()[first])
    row_of = first // cols
    t = size.astype(np.float64)
    term = np.bincount(row_of, weights=np.where(finite, t**3 - t, 0.0), minlength=rows)
    tied = np.bincount(row_of, weights=(finite & (size > 1)), minlength=rows) > 0
    return term, tied


def _wilcoxon_exact_p(w: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Two-sided exact p of W+ = w for sample sizes n (one table for all n)."""
    top = int(n.max())
    m = top * (top + 1) // 2
    counts = np.zeros((top + 1, m + 1))
    row = np.zeros(m + 1)
    row[0] = 1.0
    counts[0] = row
    for i in range(1, top + 1):  # subsets of {1..i} by their sum: loop over n, not pairs
        row = row.copy()
        row[i:] += counts[i - 1][: m + 1 - i]
        counts[i] = row
    cdf = np.cumsum(counts / np.exp2(np.arange(top + 1))[:, None], axis=1)
    lo = np.ceil(w).astype(int)  # conservative for non-integral w (ties), as scipy
    hi = np.floor(w).astype(int)
    p_le = cdf[n, lo]
    p_ge = 1.0 - np.where(hi > 0, cdf[n, np.maximum(hi - 1, 0)], 0.0)
    return np.minimum(1.0, 2.0 * np.minimum(p_le, p_ge))


# ------------------------------------------------------------------ corrections


def adjust_pvalues(p: np.ndarray, method: str = "holm") -> np.ndarray:
    """Adjust p-values for multiple comparisons; NaN stays NaN and does not count in m.

    - ``bonferroni``: min(1, m p).
    - ``holm`` (Holm 1979): p_(i) -> max_{j <= i} min(1, (m - j + 1) p_(j)).
    - ``bh`` (Benjamini & Hochberg 1995): p_(i) -> min_{j >= i} min(1, m p_(j) / j).
    - ``none``: unchanged.
    """
    if method not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, not {method!r}")
    p = np.asarray(p, dtype=np.float64)
    out = p.copy()
    if method == "none":
        return out
    ok = ~np.isnan(p)
    q = p[ok]
    m = len(q)
    if m == 0:
        return out
    if method == "bonferroni":
        out[ok] = np.minimum(1.0, m * q)
        return out
    order = np.argsort(q, kind="stable")
    s = q[order]
    j = np.arange(1, m + 1)
    if method == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (m - j + 1) * s))
    else:
        adj = np.minimum.accumulate(np.minimum(1.0, s * (m / j))[::-1])[::-1]
    res = np.empty(m)
    res[order] = adj
    out[ok] = res
    return out


# ------------------------------------------------------------ randomized HSD


def hsd_permutations(
    rng: np.random.Generator, permutations: int, n_queries: int, n_runs: int, batch: int
) -> Iterator[np.ndarray]:
    """Batches (B, Q, R) of independent uniform permutations of the runs, one per query.

    The stream does not depend on ``batch``: permuting the rows one after the
    other draws the same numbers in any batching.
    """
    from irpref import progress

    dtype = np.int16 if n_runs < 2**15 else np.int32
    base = np.arange(n_runs, dtype=dtype)
    kernels = _kernels()
    fast = kernels is not None and _c_permute_ok(rng, kernels)
    done = 0
    with progress.task(permutations, "randomized HSD", "perm") as bar:
        while done < permutations:
            b = min(batch, permutations - done)
            if fast:
                perm = np.empty((b, n_queries, n_runs), dtype)
                with rng.bit_generator.lock:
                    kernels.permute(rng.bit_generator.capsule, perm, n_runs)
            else:
                perm = rng.permuted(np.broadcast_to(base, (b, n_queries, n_runs)), axis=-1)
            yield perm
            done += b
            bar.update(b)


# ----------------------------------------------------- optional C kernels

KERNELS_ENV = "IRPREF_KERNELS"
"""``numpy`` forces the NumPy kernels, ``c`` requires the C ones; unset or empty: C if built."""

_PERMUTE_OK: dict[type, bool] = {}


def _kernels():
    """The C module ``irpref._kernels``, or None (not built, or ``IRPREF_KERNELS=numpy``).

    Both paths give the same maxima bit for bit (same permutations, same
    summation order and dtype); the C one runs the gather-accumulate-max loop
    per permutation without temporaries, with the GIL released.
    """
    choice = os.environ.get(KERNELS_ENV, "").strip().lower()
    if choice not in ("", "c", "numpy"):
        from irpref.errors import UsageError

        raise UsageError(f"{KERNELS_ENV} must be 'c' or 'numpy', got {choice!r}")
    if choice == "numpy":
        return None
    try:
        from irpref import _kernels as kernels
    except ImportError:
        if choice == "c":
            raise ImportError(f"{KERNELS_ENV}=c but the C extension irpref._kernels is not "
                              "built (reinstall irpref with a C compiler)") from None
        return None
    return kernels


def _c_permute_ok(rng: np.random.Generator, kernels) -> bool:
    """Whether the C shuffle reproduces ``rng.permuted`` for this bit generator type.

    Checked once per type on two clones of the generator's state (the C
    shuffle follows NumPy's algorithm; a NumPy that changed it, or a bit
    generator without the standard capsule, falls back to ``permuted``).
    """
    if type(rng) is not np.random.Generator:
        return False
    kind = type(rng.bit_generator)
    ok = _PERMUTE_OK.get(kind)
    if ok is None:
        try:
            state = rng.bit_generator.state
            ours, theirs = kind(), kind()
            ours.state = state
            theirs.state = state
            for dtype in (np.int16, np.int32):
                shape = (2, 3, 37)
                want = np.random.Generator(theirs).permuted(
                    np.broadcast_to(np.arange(37, dtype=dtype), shape), axis=-1)
                got = np.empty(shape, dtype)
                kernels.permute(ours.capsule, got, 37)
                ok = bool(np.array_equal(got, want)) and _same(ours.state, theirs.state)
                if not ok:
                    break
        except Exception:  # no capsule / state, or anything unexpected: use NumPy
            ok = False
        _PERMUTE_OK[kind] = ok
    return ok


def tukey_hsd(
    pairwise: Pairwise,
    permutations: int = 10_000,
    seed: SeedLike = None,
    *,
    batch: int | None = None,
    exploit_order: bool = True,
    strict: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Randomized Tukey HSD (Carterette, TOIS 2012, Sec. 4): p-values of all pairs a < b.

    Each permutation shuffles, independently within every query, which run
    produced which values: for a preference matrix, the rows and columns of
    that query's R x R matrix together. Statistic: max over pairs of
    |mean_q D*[q, a, b]|; p(a, b) = #{permutations: max >= |mean_q D[q, a, b]|} / B.
    Queries some run lacks are dropped (HSD needs every run on every query).
    Returns (p, observed |mean| per pair).

    ``strict=True`` counts only maxima strictly above the observed value. It
    differs only for discrete statistics (sign preferences, where maxima
    often equal an observed value) and is anti-conservative there; it is what
    reproduces the lexiprecision paper's HSD column for sgnLP (Table 3(a)).

    Work per permutation: for a metric the maximum is the range of the
    permuted run means, O(Q R); a sign preference that orders each query's
    runs (sgnLP, sgnLR: D[q, a, b] = sgn(k[q, a] - k[q, b])) permutes the keys
    k and compares them, O(Q R^2) on int8; any other matrix is gathered,
    O(Q R^2 / 2). ``exploit_order=False`` forces the generic gather (same result).

    The permutations and these loops run in the optional C extension
    ``irpref._kernels`` when it is built (``IRPREF_KERNELS=numpy`` forces the
    NumPy kernels): same permutation stream, same summation order and dtype,
    so the same maxima bit for bit and the same p-values for a seed.
    """
    if permutations < 1:
        raise ValueError(f"permutations must be >= 1, got {permutations}")
    rng = _generator(seed)
    complete = _complete_queries(pairwise)
    nq = int(complete.sum())
    a, b = pairwise.pairs
    if nq == 0:
        return np.full(len(a), np.nan), np.full(len(a), np.nan)
    if pairwise.kind == "metric":
        x = np.ascontiguousarray(pairwise.scores[:, complete].T)  # (Q, R)
        means = x.mean(0)
        observed = np.abs(means[a] - means[b])
        tol = 1e-9 * max(1.0, float(np.abs(x).max()))
        maxima = _hsd_metric_maxima(x, rng, permutations, batch)
    else:
        m = pairwise.matrix_[complete]
        sign = pairwise.kind == "sign"
        observed = np.abs(m.sum(0)[a, b]) / nq
        keys = _order_keys(m) if sign and exploit_order else None
        if keys is not None:
            maxima = _hsd_order_maxima(keys, rng, permutations, batch)
        else:
            maxima = _hsd_matrix_maxima(m, sign, rng, permutations, batch, a, b)
        maxima = maxima / nq
        tol = (0.5 if sign else 1e-9 * max(1.0, float(np.abs(m).max())) * nq) / nq
    srt = np.sort(maxima)
    if strict:
        reached = len(srt) - np.searchsorted(srt, observed + tol, side="right")
    else:
        reached = len(srt) - np.searchsorted(srt, observed - tol, side="left")
    return reached / len(srt), observed


def _hsd_metric_maxima(
    x: np.ndarray, rng: np.random.Generator, permutations: int, batch: int | None
) -> np.ndarray:
    """Range of the permuted run means (Q, R) -> one maximum per permutation."""
    nq, r = x.shape
    kernels = _kernels()
    if kernels is not None:
        xc = np.ascontiguousarray(x, dtype=np.float64)

        def maxima(perm: np.ndarray) -> np.ndarray:
            out = np.empty(len(perm))
            kernels.metric_maxima(xc, perm, nq, r, out)
            return out

        batch = batch or max(1, 2**19 // (nq * r))
        return np.concatenate(_map_batches(maxima, hsd_permutations(rng, permutations, nq, r,
                                                                    batch)))
    batch = batch or max(1, 2**20 // (nq * r))
    qi = np.arange(nq)[None, :, None]
    return np.concatenate(_map_batches(
        lambda perm: np.ptp(x[qi, perm].mean(1), axis=-1),
        hsd_permutations(rng, permutations, nq, r, batch),
    ))


def _hsd_matrix_maxima(
    m: np.ndarray, sign: bool, rng: np.random.Generator, permutations: int,
    batch: int | None, a: np.ndarray, b: np.ndarray,
) -> np.ndarray:
    """max over pairs of |sum_q m[q, pi_q(a), pi_q(b)]| per permutation (gather).

    Per batch of B permutations, one pass per query q: the flat index
    ``pi(i) R + pi(j)`` of the permuted R x R matrix (one broadcast add), one
    ``take`` from that query's matrix (R^2 values, cache resident), one add
    into the (B, R, R) sum. The sums run over queries in order 0..Q-1, as the
    reference gather does; the whole matrix is summed (its antisymmetry
    makes the maximum over all cells the maximum over pairs a < b).
    """
    nq, r, _ = m.shape
    table = m.reshape(nq, r * r).astype(np.int8 if sign else np.float64)
    acc_type = np.int32 if sign else np.float64
    kernels = _kernels()
    if kernels is not None and (sign or np.isfinite(table).all()):
        # an exactly antisymmetric table gives acc[j, i] == -acc[i, j] bit for bit (IEEE
        # negation is exact) and a zero diagonal: the cells i < j hold the maximum
        half = bool(np.array_equal(m, -m.transpose(0, 2, 1)))

        def c_maxima(perm: np.ndarray) -> np.ndarray:
            out = np.empty(len(perm))
            kernels.matrix_maxima(table, perm, nq, r, half, out)
            return out

        batch = batch or 32  # the C kernel sums up to 32 permutations per pass over a query
        return np.concatenate(_map_batches(c_maxima, hsd_permutations(rng, permutations, nq, r,
                                                                      batch)))
    batch = batch or max(1, 2**17 // (r * r))

    def maxima(perm: np.ndarray) -> np.ndarray:
        p = perm.astype(np.intp)
        pr = p * r
        size = (len(p), r, r)
        acc = np.zeros(size, acc_type)
        part = np.empty(size, table.dtype)
        idx = np.empty(size, np.intp)
        for q in range(nq):
            np.add(pr[:, q, :, None], p[:, q, None, :], out=idx)
            np.take(table[q], idx, out=part)
            acc += part
        return np.abs(acc).max((1, 2))

    return np.concatenate(_map_batches(maxima, hsd_permutations(rng, permutations, nq, r, batch)))


def _map_batches(fn, batches: Iterator[np.ndarray]) -> list[np.ndarray]:
    """``[fn(x) for x in batches]`` on a few threads, in order (NumPy releases the GIL).

    Batches are drawn in order from one generator in this thread, so the
    permutation stream, and every result, is that of a plain loop.
    """
    workers = _threads()
    if workers == 1:
        return [fn(x) for x in batches]
    from concurrent.futures import ThreadPoolExecutor

    out, pending = [], []
    with ThreadPoolExecutor(workers) as pool:
        for x in batches:
            pending.append(pool.submit(fn, x))
            if len(pending) > 2 * workers:
                out.append(pending.pop(0).result())
        out.extend(f.result() for f in pending)
    return out


def _threads() -> int:
    """Threads for HSD batches: the one thread policy (:mod:`irpref.threads`), at most 8."""
    return worker_count(COMPUTE_CAP)


def _order_keys(m: np.ndarray) -> np.ndarray | None:
    """Per-query keys k with m[q, a, b] = sgn(k[q, a] - k[q, b]), or None if m is no order.

    A sign matrix comes from a total preorder exactly when it equals the sign
    of differences of its row sums (Copeland scores); keys are min-ranks 0..R-1.
    """
    w = m.sum(2)
    if not np.array_equal(np.sign(w[:, :, None] - w[:, None, :]), m):
        return None
    q, r = w.shape
    flat = (w + np.arange(q)[:, None] * (4 * r)).ravel()
    ranks = np.searchsorted(np.sort(flat), flat) - np.repeat(np.arange(q) * r, r)
    return ranks.reshape(q, r).astype(np.int8 if r <= 127 else np.int16)


def _hsd_order_maxima(
    keys: np.ndarray, rng: np.random.Generator, permutations: int, batch: int | None
) -> np.ndarray:
    """max over pairs of |sum_q sgn(k[q, pi_q(a)] - k[q, pi_q(b)])| per permutation."""
    nq, r = keys.shape
    kernels = _kernels()
    if kernels is not None:
        kc = np.ascontiguousarray(keys)

        def c_maxima(perm: np.ndarray) -> np.ndarray:
            out = np.empty(len(perm))
            kernels.order_maxima(kc, perm, nq, r, out)
            return out

        batch = batch or 16
        return np.concatenate(_map_batches(c_maxima, hsd_permutations(rng, permutations, nq, r,
                                                                      batch)))
    acc = np.int16 if nq < 2**15 else np.int32
    batch = batch or max(1, 2**22 // (nq * r * r))
    qi = np.arange(nq)[None, :, None]

    def maxima(perm: np.ndarray) -> np.ndarray:
        y = keys[qi, perm]
        d = np.subtract(y[..., :, None], y[..., None, :], dtype=keys.dtype)
        np.sign(d, out=d)
        return np.abs(d.sum(1, dtype=acc)).max((-1, -2))

    batches = hsd_permutations(rng, permutations, nq, r, batch)
    return np.concatenate(_map_batches(maxima, batches)).astype(np.float64)


def _same(x, y) -> bool:
    """Equality of bit generator states (dicts of ints and arrays)."""
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(_same(x[k], y[k]) for k in x)
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return bool(np.array_equal(x, y))
    return bool(x == y)


def _complete_queries(pairwise: Pairwise) -> np.ndarray:
    if pairwise.kind == "metric":
        return ~np.isnan(pairwise.scores).any(0)
    return ~np.isnan(pairwise.matrix_).any((1, 2))


# ------------------------------------------------------------------- bootstrap


BOOTSTRAP_CHUNK = 2**22  # values per chunk of draws / quantiles (progress steps)


def bootstrap_ci(
    d: np.ndarray, samples: int = 1000, confidence: float = 0.95, seed: SeedLike = None
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap CI of the mean along the last axis (Efron & Tibshirani 1993).

    One set of ``samples`` resamples of the Q queries (with replacement) is
    shared by all rows, as multinomial counts C (B, Q): mean* = (d C^T) / n,
    one matrix product for all pairs. NaN (missing) values are left out of
    both sums. Returns (low, high) at ``confidence``.

    A progress bar (``irpref.progress``) follows the draws and the quantiles.
    The work is split the same way whether or not a bar is drawn: the
    resamples are drawn in order from one stream (chunks of the same
    ``multinomial`` stream are the one-shot draw), the means stay ONE matrix
    product (a chunked BLAS product may round differently) and the quantiles
    are taken row by row, so a seed gives bit-identical intervals either way.
    """
    from irpref import progress

    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if samples < 1:
        raise ValueError(f"bootstrap samples must be >= 1, got {samples}")
    d = np.asarray(d, dtype=np.float64)
    nq = d.shape[-1]
    rows = int(np.prod(d.shape[:-1], dtype=np.int64))
    rng = _generator(seed)
    p = np.full(nq, 1.0 / nq)
    step = max(1, BOOTSTRAP_CHUNK // max(nq, 1))
    with progress.task(samples + rows, "bootstrap CI", "step") as bar:
        parts = []
        for start in range(0, samples, step):
            parts.append(rng.multinomial(nq, p, size=min(step, samples - start)))
            bar.update(parts[-1].shape[0])
        counts = np.concatenate(parts).astype(np.float64)
        valid = ~np.isnan(d)
        tail = (1.0 - confidence) / 2.0
        with np.errstate(invalid="ignore", divide="ignore"):
            means = (np.where(valid, d, 0.0) @ counts.T) / (valid.astype(np.float64) @ counts.T)
            quantile = np.nanquantile if np.isnan(means).any() else np.quantile
            flat = means.reshape(rows, samples)
            low, high = np.empty(rows), np.empty(rows)
            chunk = max(1, BOOTSTRAP_CHUNK // 4 // samples)
            for start in range(0, rows, chunk):
                part = slice(start, start + chunk)
                low[part], high[part] = quantile(flat[part], [tail, 1.0 - tail], axis=-1)
                bar.update(low[part].shape[0])
    if d.ndim == 1:
        return low[0], high[0]
    return low.reshape(d.shape[:-1]), high.reshape(d.shape[:-1])


def _generator(seed: SeedLike) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


# ------------------------------------------------------------------ one table


COLUMNS = [
    "measure", "test", "run_a", "run_b", "n", "mean", "effect", "wins", "losses", "ties",
    "statistic", "p", "p_adjusted", "ci_low", "ci_high",
]


def pair_tests(
    pairwise: Pairwise,
    test: str = "paired",
    *,
    correction: str = "holm",
    permutations: int = 10_000,
    seed: SeedLike = None,
    bootstrap: int = 1000,
    confidence: float = 0.95,
    wilcoxon_method: str = "auto",
    strict: bool = False,
) -> pd.DataFrame:
    """One row per run pair a < b: the test's statistic, raw and adjusted p, effect sizes.

    Columns: ``mean`` (mean per-query difference a - b, or mean preference of
    a over b), ``effect`` (mean / sd for t, wilcoxon, hsd; win proportion
    wins / (wins + losses) for sign), ``wins``/``losses``/``ties`` (queries
    where the value is > 0, < 0, = 0), ``statistic`` (t; wins; min(W+, W-);
    |mean| for hsd), ``p``, ``p_adjusted`` (``correction`` over all pairs;
    HSD p-values are already family-wise and are not adjusted again),
    ``ci_low``/``ci_high`` (bootstrap CI of ``mean``; NaN when
    ``bootstrap=0``).
    """
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, not {test!r}")
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, not {correction!r}")
    if test == "paired":
        test = pairwise.test_for_paired
    d = pairwise.values
    a, b = pairwise.pairs
    valid = ~np.isnan(d)
    n = valid.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(valid, d, 0.0).sum(-1) / n
        dev = np.where(valid, d - mean[:, None], 0.0)
        sd = np.sqrt((dev * dev).sum(-1) / (n - 1))
        effect = np.where(sd > 0, mean / sd, np.where(mean == 0, 0.0, np.sign(mean) * np.inf))
    wins, losses, ties, p_sign = sign_test(d)
    if test == "t":
        statistic, p, _ = paired_t(d)
    elif test == "sign":
        statistic, p = wins.astype(np.float64), p_sign
        with np.errstate(invalid="ignore", divide="ignore"):
            effect = wins / (wins + losses)
    elif test == "wilcoxon":
        statistic, p, _ = wilcoxon(d, wilcoxon_method)
    else:
        p, statistic = tukey_hsd(pairwise, permutations, seed, strict=strict)
    p_adj = p.copy() if test == "hsd" else adjust_pvalues(p, correction)
    if bootstrap:
        low, high = bootstrap_ci(d, bootstrap, confidence, _reseed(seed, "bootstrap"))
    else:
        low = high = np.full(len(a), np.nan)
    return pd.DataFrame({
        "measure": pairwise.measure, "test": test,
        "run_a": pairwise.runs[a], "run_b": pairwise.runs[b], "n": n,
        "mean": mean, "effect": effect, "wins": wins, "losses": losses, "ties": ties,
        "statistic": np.asarray(statistic, dtype=np.float64), "p": p, "p_adjusted": p_adj,
        "ci_low": low, "ci_high": high,
    }, columns=COLUMNS)


def _reseed(seed: SeedLike, purpose: str) -> SeedLike:
    """A stream for ``purpose`` derived from an integer seed (generators are shared)."""
    if seed is None or isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return np.random.SeedSequence(seed.entropy, spawn_key=(zlib.crc32(purpose.encode()),))
    return np.random.SeedSequence([int(seed), zlib.crc32(purpose.encode())])


def _is_comparison(obj) -> bool:
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


def significance(
    tables: pd.DataFrame | Pairwise | Sequence[pd.DataFrame | Pairwise],
    test: str | Sequence[str] = "paired",
    *,
    correction: str = "holm",
    permutations: int = 10_000,
    seed: int | None = None,
    bootstrap: int = 1000,
    confidence: float = 0.95,
    kinds: dict[str, str] | None = None,
    wilcoxon_method: str = "auto",
    strict: bool = False,
    baseline: str | None = None,
) -> pd.DataFrame:
    """Test every run pair of every measure in tidy tables; one row per (measure, test, pair).

    tables:       tidy metric tables (run, query, measure, value) from
                  :func:`irpref.evaluate`, preference tables (run_a, run_b,
                  query, measure, value) from ``irpref.compare``, results of
                  ``irpref.compare_matrices``, or :class:`Pairwise` objects;
                  several may be given.
    test:         ``paired`` (t for metrics and real preferences, sign for
                  sign preferences), ``t``, ``sign``, ``wilcoxon``, ``hsd``
                  (randomized Tukey HSD), or a list of them.
    correction:   ``holm`` (default), ``bonferroni``, ``bh`` or ``none``, over
                  all run pairs of one measure and test (not applied to hsd).
    permutations: HSD permutations; ``seed``: HSD and bootstrap seed (every
                  measure uses the same permutations: results do not depend
                  on which other measures are tested).
    bootstrap:    bootstrap resamples for the CI of the mean (0: none).
    strict:       HSD counts only permuted maxima strictly above the observed
                  value (see :func:`tukey_hsd`).
    baseline:     keep only the pairs (run, ``baseline``), oriented so that
                  ``mean`` = run - baseline, with ``correction`` over those R - 1
                  comparisons (see :func:`against_baseline`).

    See :func:`pair_tests` for the columns; :func:`irpref.discriminative_power`
    summarizes the result.
    """
    tests = [test] if isinstance(test, str) else list(test)
    if not tests:
        raise ValueError("no test given")
    for t in tests:
        if t not in TESTS:
            raise ValueError(f"test must be one of {', '.join(TESTS)}, not {t!r}")
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    if isinstance(tables, (pd.DataFrame, Pairwise)) or _is_comparison(tables):
        tables = [tables]
    pairwise: list[Pairwise] = []
    for t in tables:
        if isinstance(t, Pairwise):
            pairwise.append(t)
        elif _is_comparison(t):
            pairwise.extend(Pairwise.from_comparison(t, name) for name in t.values)
        else:
            pairwise.extend(as_pairwise(t, kinds))
    out = []
    for pw in pairwise:
        done = set()
        for t in tests:
            resolved = pw.test_for_paired if t == "paired" else t
            if resolved in done:
                continue
            done.add(resolved)
            out.append(pair_tests(
                pw, resolved, correction=correction, permutations=permutations,
                seed=_reseed(seed, "hsd"), bootstrap=bootstrap, confidence=confidence,
                wilcoxon_method=wilcoxon_method, strict=strict,
            ))
    frame = pd.concat(out, ignore_index=True)
    if baseline is not None:
        frame = against_baseline(frame, baseline, correction)
    frame.attrs.update(correction=correction, permutations=permutations, seed=seed,
                       baseline=baseline)
    return frame


def against_baseline(frame: pd.DataFrame, baseline: str, correction: str = "holm") -> pd.DataFrame:
    """The rows of a :func:`significance` table that test a run against ``baseline``.

    Each kept row is oriented as (run_a = run, run_b = ``baseline``), so ``mean``
    is run - baseline (positive: the run is better on a higher-is-better
    measure). Flipping a pair negates ``mean``, ``effect`` (t/wilcoxon/hsd),
    the t statistic and the CI, swaps wins and losses and turns the sign
    test's win proportion w into 1 - w; two-sided p-values are unchanged.
    ``p_adjusted`` is recomputed with ``correction`` over the R - 1 baseline
    comparisons of each (measure, test) (randomized HSD p-values are already
    family-wise over all pairs and are kept). Raises ``UsageError`` naming the
    runs when ``baseline`` is not one of them.
    """
    from irpref.errors import UsageError

    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, not {correction!r}")
    runs = pd.unique(pd.concat([frame["run_a"], frame["run_b"]]).astype(object))
    if baseline not in set(runs):
        raise UsageError(f"--baseline {baseline!r} is not one of the runs: "
                         + ", ".join(map(str, runs)))
    keep = (frame["run_a"] == baseline) | (frame["run_b"] == baseline)
    out = frame[keep].reset_index(drop=True).copy()
    flip = (out["run_a"] == baseline).to_numpy()
    a, b = out["run_a"].to_numpy(object).copy(), out["run_b"].to_numpy(object).copy()
    out["run_a"], out["run_b"] = np.where(flip, b, a), np.where(flip, a, b)
    wins, losses = out["wins"].to_numpy().copy(), out["losses"].to_numpy().copy()
    out["wins"], out["losses"] = np.where(flip, losses, wins), np.where(flip, wins, losses)
    test = out["test"].to_numpy(object)
    sign = test == "sign"
    mean, effect = out["mean"].to_numpy(np.float64), out["effect"].to_numpy(np.float64)
    out["mean"] = np.where(flip, -mean, mean)
    out["effect"] = np.where(flip, np.where(sign, 1.0 - effect, -effect), effect)
    stat = out["statistic"].to_numpy(np.float64)
    stat = np.where(flip & (test == "t"), -stat, stat)
    out["statistic"] = np.where(flip & sign, out["wins"].to_numpy(np.float64), stat)
    low, high = out["ci_low"].to_numpy(np.float64), out["ci_high"].to_numpy(np.float64)
    out["ci_low"], out["ci_high"] = np.where(flip, -high, low), np.where(flip, -low, high)
    for _, idx in out.groupby(["measure", "test"], sort=False).groups.items():
        idx = np.asarray(idx)
        if out.at[idx[0], "test"] != "hsd":
            out.loc[idx, "p_adjusted"] = adjust_pvalues(out.loc[idx, "p"].to_numpy(np.float64),
                                                        correction)
    return out
