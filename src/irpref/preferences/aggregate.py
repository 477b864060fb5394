"""From pairwise preferences to system orderings.

- **Win rate** (Diaz & Ferraro 2022, §5.4 Eq. 7): for one query,
  ``W_q(π) = Σ_{π'} Δ_q(π, π')``, the run's row sum of the preference matrix;
  its mean over queries orders the runs directly.
- **Per-query orderings**: the runs of each query sorted by ``W_q`` (equal
  win rates tie).
- **MC4** (Dwork, Kumar, Naor & Sivakumar 2001, "Rank aggregation methods for
  the Web", §4.3): a Markov chain on runs; from run ``i`` pick a run ``j``
  uniformly (``1/R``) and move there if a majority of the per-query orderings
  that order the two put ``j`` above ``i`` (strictly more queries rank ``j``
  above ``i`` than ``i`` above ``j``), else stay. Runs are ordered by the
  stationary distribution. With ``teleport = t > 0`` the chain jumps to a
  uniform run with probability ``t`` (``(1-t) P + t/R``), which makes it
  ergodic and the ordering unique (default 0.05); ``teleport=0`` is the plain
  chain, whose limit is taken from the uniform start (transient runs then get
  0 and tie).
- **Borda count** over the per-query orderings: a run scores, per query, the
  number of runs below it plus half the number tied with it.
- **Kendall's τ** (τ-b, ties allowed) between two orderings or score vectors.

Queries a run lacks (``irpref.compare(..., missing="skip")``) are NaN in the
matrices: a pair is compared only on the queries both runs have, a run's win
rate on a query it lacks is NaN and its mean win rate is over the queries it
has; per-query orderings (MC4, Borda) order the runs present on the query.

The reference implementation (pref_eval, ``aggregation/rank_aggregation.py``)
breaks ties in win rate by run name and runs 10 power iterations without
normalisation; irpref keeps ties as ties, iterates to the limit and orders
equal scores by input order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "borda",
    "kendall_tau",
    "matrices_from_tidy",
    "mc4",
    "ordering",
    "system_orderings",
    "win_rate_orderings",
    "win_rates",
]


def win_rates(matrices: np.ndarray) -> np.ndarray:
    """(Q, R) per-query win rates ``Σ_b Δ_q(a, b)`` of (Q, R, R) preference matrices (Eq. 7);
    NaN entries (a pair one run of which lacks the query) are left out, and a run
    with no entry on a query (it lacks it) has a NaN win rate there."""
    m = np.asarray(matrices, dtype=np.float64)
    if m.ndim != 3 or m.shape[1] != m.shape[2]:
        raise ValueError(f"expected (Q, R, R) matrices, got shape {m.shape}")
    gaps = np.isnan(m)
    if not gaps.any():
        return m.sum(axis=2)
    return np.where(gaps.all(axis=2), np.nan, np.where(gaps, 0.0, m).sum(axis=2))


def borda(scores: np.ndarray) -> np.ndarray:
    """(R,) Borda points over per-query orderings by ``scores`` (Q, R), higher better.

    Per query a run gets the number of runs with a lower score plus half the
    number of other runs with an equal score; a NaN score (the run lacks the
    query) gets nothing and counts for nobody.
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 2:
        raise ValueError(f"expected (Q, R) scores, got shape {s.shape}")
    if s.size == 0:
        return np.zeros(s.shape[1])
    gaps = np.isnan(s)
    if not gaps.any():
        return (_scipy_stats().rankdata(s, axis=1, method="average") - 1.0).sum(axis=0)
    lower = (s[:, None, :] < s[:, :, None]).sum(axis=2)  # NaN compares False
    equal = (s[:, None, :] == s[:, :, None]).sum(axis=2) - 1
    return np.where(gaps, 0.0, lower + 0.5 * equal).sum(axis=0)


def majority(scores: np.ndarray) -> np.ndarray:
    """(R, R) number of queries ranking column j above row i minus the reverse."""
    s = np.asarray(scores, dtype=np.float64)
    above = (s[:, None, :] > s[:, :, None]).sum(axis=0)
    return above - above.T


def mc4(scores: np.ndarray, *, teleport: float = 0.05) -> np.ndarray:
    """(R,) MC4 stationary probabilities (Dwork et al. 2001) of per-query
    orderings by ``scores`` (Q, R), higher better; larger probability ranks higher."""
    if not 0.0 <= teleport < 1.0:
        raise ValueError(f"teleport must lie in [0, 1), not {teleport}")
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 2:
        raise ValueError(f"expected (Q, R) scores, got shape {s.shape}")
    r = s.shape[1]
    if r == 0:
        return np.zeros(0)
    move = (majority(s) > 0).astype(np.float64) / r
    np.fill_diagonal(move, 0.0)
    np.fill_diagonal(move, 1.0 - move.sum(axis=1))
    chain = (1.0 - teleport) * move + teleport / r
    # limit of the uniform start: square the chain until it stops changing
    power = chain
    for _ in range(64):
        nxt = power @ power
        # rounding drifts the row sums as (1 + eps)^(2^k): keep the rows stochastic
        nxt /= nxt.sum(axis=1, keepdims=True)
        if np.abs(nxt - power).max() < 1e-15:
            power = nxt
            break
        power = nxt
    pi = np.full(r, 1.0 / r) @ power
    return pi / pi.sum()


def ordering(values: np.ndarray, names: Sequence[str]) -> list[str]:
    """Names sorted by ``values`` descending; equal values keep input order."""
    v = np.asarray(values, dtype=np.float64)
    return [names[i] for i in np.argsort(-v, kind="stable")]


def kendall_tau(a, b) -> float:
    """Kendall's τ-b between two orderings (sequences of names, best first)
    or two score mappings {name: score} / Series (higher better)."""
    sa, sb = _as_scores(a), _as_scores(b)
    if set(sa) != set(sb):
        raise ValueError("the two orderings rank different runs")
    names = list(sa)
    if len(names) < 2:
        raise ValueError("Kendall's tau needs at least two runs")
    tau = _scipy_stats().kendalltau([sa[n] for n in names], [sb[n] for n in names]).statistic
    return float(tau)


def _as_scores(obj) -> dict[str, float]:
    if isinstance(obj, pd.Series):
        return {str(k): float(v) for k, v in obj.items()}
    if isinstance(obj, Mapping):
        return {str(k): float(v) for k, v in obj.items()}
    names = [str(x) for x in obj]
    if len(set(names)) != len(names):
        raise ValueError("an ordering lists a run twice")
    return {n: float(len(names) - i) for i, n in enumerate(names)}


def matrices_from_tidy(
    results: pd.DataFrame, measure: str | None = None
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(runs, queries, (Q, R, R) matrices) of one measure of a :func:`irpref.compare` table.

    Pairs given in one orientation are mirrored; a pair without a row on a
    query (one of its runs lacks it: ``compare(..., missing="skip")``) is NaN,
    as is the diagonal of a run with no row on that query.
    """
    table = results[results["query"].notna()]  # null query: a mean row, not a query
    if measure is not None:
        table = table[table["measure"] == str(measure)]
    elif "measure" in table and table["measure"].nunique() > 1:
        raise ValueError("the table holds several measures: pick one")
    if table.empty:
        raise ValueError(f"no per-query rows for measure {measure!r}")
    a_col = table["run_a"].to_numpy(object)
    b_col = table["run_b"].to_numpy(object)
    runs = [str(x) for x in pd.unique(np.concatenate([a_col, b_col]))]
    queries = pd.unique(table["query"].to_numpy(object))
    index = pd.Index(runs)
    a, b = index.get_indexer(a_col.astype(str)), index.get_indexer(b_col.astype(str))
    q = pd.Index(queries).get_indexer(table["query"].to_numpy(object))
    v = table["value"].to_numpy(np.float64)
    out = np.full((len(queries), len(runs), len(runs)), np.nan)
    seen = np.zeros((len(queries), len(runs)), dtype=bool)
    seen[q, a] = seen[q, b] = True
    qq, rr = np.nonzero(seen)
    out[qq, rr, rr] = 0.0
    out[q, a, b] = v
    out[q, b, a] = -v
    return runs, np.asarray(queries, dtype=object), out


def orderings_of(
    matrices: np.ndarray, runs: Sequence[str], *, teleport: float = 0.05
) -> pd.DataFrame:
    """Win rate, MC4 and Borda scores and ranks of (Q, R, R) matrices."""
    return win_rate_orderings(win_rates(matrices), runs, teleport=teleport)


def win_rate_orderings(
    w: np.ndarray, runs: Sequence[str], *, teleport: float = 0.05
) -> pd.DataFrame:
    """Win rate, MC4 and Borda scores and ranks from (Q, R) per-query win rates
    (:func:`win_rates`; :meth:`irpref.preferences.Comparison.win_rates` computes them
    by blocks of runs, without the (Q, R, R) matrices): columns method, rank, run, score."""
    if np.isnan(w).any():  # runs lacking queries: each mean over the queries it has
        with np.errstate(invalid="ignore"):
            mean = np.nanmean(w, axis=0) if len(w) else np.zeros(len(runs))
    else:
        mean = w.mean(axis=0) if len(w) else np.zeros(len(runs))
    scores = {
        "win_rate": mean,
        "mc4": mc4(w, teleport=teleport),
        "borda": borda(w),
    }
    frames = []
    for method, values in scores.items():
        order = np.argsort(-values, kind="stable")
        frames.append(
            pd.DataFrame(
                {
                    "method": method,
                    "rank": np.arange(1, len(runs) + 1),
                    "run": np.asarray(runs, dtype=object)[order],
                    "score": values[order],
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def system_orderings(
    results: pd.DataFrame, measure: str | None = None, *, teleport: float = 0.05
) -> pd.DataFrame:
    """Orderings of the runs per measure (and per ``method``: ``win_rate`` = mean
    win rate of Eq. 7, ``mc4``, ``borda``): columns measure, method, rank, run, score."""
    names = [measure] if measure is not None else list(
        pd.unique(results.loc[results["query"].notna(), "measure"].astype(str))
    )
    frames = []
    for name in names:
        runs, _, mats = matrices_from_tidy(results, name)
        df = orderings_of(mats, runs, teleport=teleport)
        df.insert(0, "measure", name)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def _scipy_stats():
    """scipy.stats, imported on first use (it costs ~0.5 s at start-up)."""
    from scipy import stats

    return stats
