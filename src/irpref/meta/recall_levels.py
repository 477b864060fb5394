"""Lexiprecision's recall-level analyses on real runs.

- :func:`suffix_agreement`: Table 1. Over comparisons with ``δRR_1 != 0``,
  the percent whose sign is predicted by the suffix ``p_{2:m}`` alone: by RR
  of the suffix (``δRR_2``, method ``RR``) and by sgnLP of the suffix
  (method ``sgnLP``); a tied predictor disagrees.
- :func:`recall_level_ties` (Fig. 5), :func:`recall_level_needed` (Fig. 6,
  ECDF of i*), :func:`tie_given_p1` (Fig. 3);
  :func:`recall_level_correlation` and :func:`recall_level_regression`:
  locality of δRR_i (Fig. 7a, 7b).

Every analysis reads only the positions of the relevant items, so a compact
judged file serves it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from irpref.errors import UsageError
from irpref.judging.judged import JudgedRankings
from irpref.meta.pairwise import (
    judged_for,
)

__all__ = [
    "level_comparisons",
    "recall_level_correlation",
    "recall_level_needed",
    "recall_level_regression",
    "recall_level_ties",
    "suffix_agreement",
    "tie_given_p1",
]


def _relevant_positions(judged: JudgedRankings, qidx: np.ndarray) -> np.ndarray:
    """(R, Q, M) sorted 1-based positions of the relevant items, inf-padded."""
    items = judged.items_with_grade(judged.rel)
    seg = items.segment
    r_of, q_of = seg // judged.n_queries, seg % judged.n_queries
    qpos = np.full(judged.n_queries, -1)
    qpos[qidx] = np.arange(qidx.size)
    keep = qpos[q_of] >= 0
    width = int(judged.num_rel()[qidx].max()) if qidx.size else 0
    out = np.full((judged.n_runs, qidx.size, max(width, 1)), np.inf)
    out[r_of[keep], qpos[q_of[keep]], items.nth[keep]] = items.rank[keep] + 1
    return out


def _lex_sign(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """sgnLP of position vectors (..., M): the first differing level decides."""
    diff = x != y
    first = np.argmax(diff, axis=-1)
    any_diff = diff.any(axis=-1)
    xi = np.take_along_axis(x, first[..., None], -1)[..., 0]
    yi = np.take_along_axis(y, first[..., None], -1)[..., 0]
    return np.where(any_diff, np.where(xi < yi, 1, -1), 0)


def suffix_agreement(
    qrels=None, runs=None, *, rel: int = 1, judged: JudgedRankings | None = None
) -> pd.DataFrame:
    """``method, percent_agree`` (lexiprecision Table 1): how often RR and
    sgnLP of the suffix ``p_{2:m}`` give the sign of the masked ``δRR_1``."""
    judged = judged_for(qrels, runs, judged, rel)
    qidx = np.flatnonzero(judged.num_rel() > 0)
    pos = _relevant_positions(judged, qidx)  # (R, Q, M)
    r = judged.n_runs
    a, b = np.triu_indices(r, 1)
    valid = judged.present[a][:, qidx] & judged.present[b][:, qidx]  # (P, Q)
    with np.errstate(divide="ignore"):
        rr = 1.0 / pos  # 0 for unretrieved
    target = np.sign(rr[a, :, 0] - rr[b, :, 0])
    pad = np.full(pos.shape[:2] + (1,), np.inf)
    suffix = np.concatenate([pos[:, :, 1:], pad], axis=2)
    rr2 = 1.0 / suffix[:, :, 0]
    pred_rr = np.sign(rr2[a] - rr2[b])
    pred_lp = _lex_sign(suffix[a], suffix[b])
    use = valid & (target != 0)
    n = int(use.sum())
    return pd.DataFrame({
        "method": ["RR", "sgnLP"],
        "percent_agree": [100.0 * float((pred_rr == target)[use].sum()) / n if n else np.nan,
                          100.0 * float((pred_lp == target)[use].sum()) / n if n else np.nan],
    })


# ------------------------------------------------------ recall-level analyses


def level_comparisons(judged: JudgedRankings):
    qidx = np.flatnonzero(judged.num_rel() > 0)
    pos = _relevant_positions(judged, qidx)
    a, b = np.triu_indices(judged.n_runs, 1)
    valid = judged.present[a][:, qidx] & judged.present[b][:, qidx]
    m = judged.num_rel()[qidx]
    return pos, a, b, valid, m


def recall_level_ties(
    qrels=None, runs=None, *, levels: int = 20, rel: int = 1,
    judged: JudgedRankings | None = None,
) -> pd.DataFrame:
    """``level, comparisons, percent_tied``: ties of δRR_i = 1/p_i - 1/p'_i per
    recall level i (lexiprecision Fig. 5), over the comparisons of queries with
    at least i relevant items (an unretrieved i-th item has 1/p_i = 0)."""
    if levels < 1:
        raise UsageError(f"levels={levels}: must be >= 1")
    pos, a, b, valid, m = level_comparisons(judged_for(qrels, runs, judged, rel))
    rows = []
    for i in range(min(levels, pos.shape[2])):
        use = valid & (m > i)[None, :]
        tied = pos[a, :, i] == pos[b, :, i]
        n = int(use.sum())
        rows.append({"level": i + 1, "comparisons": n,
                     "percent_tied": 100.0 * float(tied[use].sum()) / n if n else np.nan})
    return pd.DataFrame(rows)


def recall_level_needed(
    qrels=None, runs=None, *, rel: int = 1, judged: JudgedRankings | None = None
) -> pd.DataFrame:
    """``level, fraction``: ECDF of i*, the first recall level at which two
    rankings differ (lexiprecision Fig. 6), over the comparisons that differ
    at some level (sgnLP != 0)."""
    pos, a, b, valid, _ = level_comparisons(judged_for(qrels, runs, judged, rel))
    diff = pos[a] != pos[b]
    some = diff.any(axis=-1) & valid
    istar = np.argmax(diff, axis=-1)[some] + 1
    if istar.size == 0:
        return pd.DataFrame({"level": [], "fraction": []})
    counts = np.bincount(istar)[1:]
    return pd.DataFrame({"level": np.arange(1, counts.size + 1),
                         "fraction": np.cumsum(counts) / istar.size})


def tie_given_p1(
    qrels=None, runs=None, *, rel: int = 1, judged: JudgedRankings | None = None
) -> pd.DataFrame:
    """``p1, comparisons, probability``: empirical Pr(p'_1 = p_1 | p_1) over
    ordered (run, other run, query) comparisons (lexiprecision Fig. 3; the
    closed form for random rankings is :func:`irpref.meta.rr_tie_given_p1`).
    Rankings without a retrieved relevant item are left out as p_1."""
    pos, a, b, valid, _ = level_comparisons(judged_for(qrels, runs, judged, rel))
    p_a, p_b = pos[a, :, 0][valid], pos[b, :, 0][valid]
    p1 = np.concatenate([p_a, p_b])
    tied = np.concatenate([p_a == p_b, p_a == p_b])
    keep = np.isfinite(p1)
    p1, tied = p1[keep].astype(np.int64), tied[keep]
    if p1.size == 0:
        return pd.DataFrame({"p1": [], "comparisons": [], "probability": []})
    n = np.bincount(p1)
    t = np.bincount(p1, weights=tied)
    at = np.flatnonzero(n)
    return pd.DataFrame({"p1": at, "comparisons": n[at], "probability": t[at] / n[at]})


def _delta_rr(judged: JudgedRankings, levels: int):
    """(P, Q, levels) δRR_i = 1/p_i - 1/p'_i (unretrieved: 1/p = 0), the
    valid (P, Q) mask and the (Q,) relevant counts m."""
    pos, a, b, valid, m = level_comparisons(judged)
    if pos.shape[2] < levels:
        pad = np.full(pos.shape[:2] + (levels - pos.shape[2],), np.inf)
        pos = np.concatenate([pos, pad], axis=2)
    rr = 1.0 / pos[:, :, :levels]
    return rr[a] - rr[b], valid, m


def recall_level_correlation(
    qrels=None, runs=None, *, levels: int = 8, rel: int = 1,
    judged: JudgedRankings | None = None,
) -> pd.DataFrame:
    """``level_i, level_j, comparisons, pearson``: Pearson r between δRR_i and
    δRR_j over the (run pair, query) comparisons of queries with at least
    max(i, j) relevant items (lexiprecision section 5.3, Fig. 7a: locality of
    δRR_i; r falls as j - i grows)."""
    if int(levels) != levels or levels < 2:
        raise UsageError(f"levels={levels}: must be an integer >= 2")
    d, valid, m = _delta_rr(judged_for(qrels, runs, judged, rel), int(levels))
    rows = []
    for i in range(levels):
        for j in range(levels):
            use = valid & (m > max(i, j))[None, :]
            x, y = d[:, :, i][use], d[:, :, j][use]
            ok = x.size > 1 and np.std(x) > 0 and np.std(y) > 0
            rows.append({"level_i": i + 1, "level_j": j + 1, "comparisons": int(x.size),
                         "pearson": float(np.corrcoef(x, y)[0, 1]) if ok else np.nan})
    return pd.DataFrame(rows)


def recall_level_regression(
    qrels=None, runs=None, *, targets: Sequence[int] = (1, 2, 3, 4), predictors: int = 4,
    rel: int = 1, judged: JudgedRankings | None = None,
) -> pd.DataFrame:
    """``target, predictor, coefficient, r2, comparisons``: least-squares fit
    (with intercept) of δRR_i on δRR_{i+1}, ..., δRR_{i+k} (k = ``predictors``)
    over the comparisons of queries with at least i + k relevant items
    (lexiprecision Fig. 7b; ``predictor`` is the level i + j, ``r2`` the fit's
    R^2, repeated on the target's rows)."""
    targets = [int(t) for t in targets]
    if not targets or min(targets) < 1:
        raise UsageError(f"targets={targets}: every target level must be >= 1")
    if int(predictors) != predictors or predictors < 1:
        raise UsageError(f"predictors={predictors}: must be an integer >= 1")
    k = int(predictors)
    d, valid, m = _delta_rr(judged_for(qrels, runs, judged, rel), max(targets) + k)
    rows = []
    for t in targets:
        use = valid & (m >= t + k)[None, :]
        y = d[:, :, t - 1][use]
        x = d[:, :, t:t + k][use]  # (N, k)
        n = y.size
        if n <= k + 1:
            coef, r2 = np.full(k, np.nan), np.nan
        else:
            design = np.column_stack([np.ones(n), x])
            beta, *_ = np.linalg.lstsq(design, y, rcond=None)
            coef = beta[1:]
            ss_tot = float(((y - y.mean()) ** 2).sum())
            ss_res = float(((y - design @ beta) ** 2).sum())
            r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else np.nan
        for j in range(k):
            rows.append({"target": t, "predictor": t + j + 1, "coefficient": float(coef[j]),
                         "r2": r2, "comparisons": n})
    return pd.DataFrame(rows)
