"""Agreement between the system orderings two sets of qrels induce.

Scores are oriented so that larger is better (``sign * mean``, the sign from
the measure's record: ASL, lower is better, is ordered ascending). All
statistics are array code over the R x R run pairs (no loop per pair).

- **Kendall's tau-b**: ``sum_{i<j} sgn(x_i - x_j) sgn(y_i - y_j) /
  sqrt((n0 - n1)(n0 - n2))``, n0 = R(R-1)/2, n1 / n2 pairs tied in x / y
  (``scipy.stats.kendalltau``'s default); NaN when either side ties every pair.
- **tau_AP** (Yilmaz, Aslam & Robertson, "A new rank correlation coefficient
  for information retrieval", SIGIR 2008, Eq. 3): with a reference ordering T
  and an estimated ordering E of R systems,
  ``tau_AP = 2 / (R - 1) * sum_{i=2}^{R} C(i) / (i - 1) - 1`` where C(i) counts
  the systems above rank i in E that T also ranks above the system at rank i.
  It is asymmetric: errors near the top of E weigh more.
  *Ties* (the paper assumes none): tau_AP of tied orderings is the mean of
  tau_AP over every way of breaking the ties, in T and in E, uniformly at
  random. Exactly: a pair tied in T counts 1/2 in C(i); a system x in a group
  of g systems tied in E, below s systems, sits at each of the ranks
  s+1 .. s+g with probability 1/g, with each other member of its group above
  it with probability (k - 1)/(g - 1) at rank s + k. Without ties this is the
  paper's formula.
- **Top-k overlap**: S = the runs with fewer than k runs strictly better (a
  tie at the cut keeps every tied run); ``|S_A & S_B| / max(|S_A|, |S_B|)``,
  which is ``|S_A & S_B| / k`` without ties at the cut.
- **Swaps**: the run pairs ordered strictly one way under A and strictly the
  other way under B (a pair tied under one side is not a swap).
"""

from __future__ import annotations

import numpy as np

__all__ = ["swapped_pairs", "tau_ap", "tau_b", "top_overlap"]


def _sgn_upper(x: np.ndarray) -> np.ndarray:
    i, j = np.triu_indices(len(x), 1)
    return np.sign(x[i] - x[j])


def tau_b(x, y) -> float:
    """Kendall's tau-b of two score vectors (same systems, same order)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(x) != len(y):
        raise ValueError("tau_b: the two score vectors have different lengths")
    sx, sy = _sgn_upper(x), _sgn_upper(y)
    n0 = len(sx)
    denom = np.sqrt(float(np.count_nonzero(sx)) * float(np.count_nonzero(sy)))
    if n0 == 0 or denom == 0:
        return float("nan")
    return float((sx * sy).sum() / denom)


def tau_ap(reference, estimate) -> float:
    """tau_AP of the ordering by ``estimate`` against the ordering by ``reference``
    as the truth (scores, larger is better); ties averaged over every tie-break
    (module docstring). NaN for fewer than 2 systems."""
    t_scores = np.asarray(reference, dtype=np.float64)
    e_scores = np.asarray(estimate, dtype=np.float64)
    if len(t_scores) != len(e_scores):
        raise ValueError("tau_ap: the two score vectors have different lengths")
    r = len(t_scores)
    if r < 2:
        return float("nan")
    # t[y, x]: probability that the reference puts y above x
    t = (t_scores[:, None] > t_scores[None, :]) + 0.5 * (t_scores[:, None] == t_scores[None, :])
    np.fill_diagonal(t, 0.0)
    above = e_scores[:, None] > e_scores[None, :]
    same = e_scores[:, None] == e_scores[None, :]
    np.fill_diagonal(same, False)
    s = above.sum(axis=0).astype(np.float64)  # systems strictly above x in E
    g = same.sum(axis=0) + 1  # size of x's tie group in E
    a = (t * above).sum(axis=0)  # reference-correct among those strictly above
    b = (t * same).sum(axis=0)  # reference-correct among the rest of its group
    k = np.arange(1, int(g.max()) + 1, dtype=np.float64)[None, :]
    before = s[:, None] + k - 1.0  # systems above x when it sits at rank s + k
    valid = (k <= g[:, None]) & (before >= 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.where(valid, 1.0 / before, 0.0)
        share = np.where(g[:, None] > 1, (k - 1.0) / np.maximum(g[:, None] - 1, 1), 0.0)
    expected = (a * inv.sum(axis=1) + b * (share * inv).sum(axis=1)) / g
    return float(2.0 / (r - 1) * expected.sum() - 1.0)


def top_overlap(x, y, k: int) -> float:
    """Overlap of the top ``k`` runs under two score vectors (ties at the cut kept)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(x) == 0:
        return float("nan")
    top_x = (x[None, :] > x[:, None]).sum(axis=1) < k
    top_y = (y[None, :] > y[:, None]).sum(axis=1) < k
    return float((top_x & top_y).sum() / max(top_x.sum(), top_y.sum()))


def swapped_pairs(x, y) -> tuple[np.ndarray, np.ndarray]:
    """Indices (i, j) of the pairs with x_i > x_j and y_i < y_j: i is better under x."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    i, j = np.triu_indices(len(x), 1)
    sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    swap = sx * sy < 0
    i, j, first = i[swap], j[swap], sx[swap] > 0
    return np.where(first, i, j), np.where(first, j, i)
