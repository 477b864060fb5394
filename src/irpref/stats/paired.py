"""Paired tests along the last axis of an array of per-query differences or preferences.

- Student's paired t test (two-sided) on metric differences and on
  real-valued preferences (rrLP, RPP: is the mean preference 0?).
  Smucker, Allan & Carterette, CIKM 2007; lexiprecision paper (Diaz, SIGIR
  2023), Sec. 4.2.
- Exact binomial sign test for sign preferences (sgnLP, sgnLR): wins against
  losses, ties dropped. Lexiprecision Sec. 4.2; lexirecall (Diaz, Mitra et
  al. 2023), Sec. 6 (discriminative power).
- Wilcoxon signed-rank test (zeros dropped, average ranks for ties).

A test that cannot be computed gives p = NaN, never a number: no paired query
at all (every test; ``scipy.stats.ttest_1samp`` and ``wilcoxon`` of an empty
sample give NaN, ``binomtest(0, 0)`` refuses), or fewer than 2 for the t test.
Paired queries that all tie (every difference 0; two of them for the t test)
give p = 1 in every test: the runs agree on every query, the only outcome of
the exact sign and signed-rank tests once ties are dropped
(``scipy.stats.wilcoxon``: 1; ``ttest_1samp``: NaN for 0 / 0). NaN p stays
out of a correction's family and is never significant.
"""

from __future__ import annotations

import numpy as np

__all__ = ["paired_t", "rank_biserial", "sign_test", "wilcoxon"]


def _sps():
    """scipy.stats, imported on first use (it costs ~1 s at start-up)."""
    from scipy import stats

    return stats



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
    ``scipy.stats.binomtest(w, w + l)``; p = 1 when every value ties (w + l = 0,
    ties > 0), NaN when there is no value (w + l + ties = 0: nothing to test).
    Returns (wins, losses, ties, p).
    """
    d = np.asarray(d, dtype=np.float64)
    wins = (d > 0).sum(-1)
    losses = (d < 0).sum(-1)
    ties = (d == 0).sum(-1)
    n = wins + losses
    p = np.minimum(1.0, 2.0 * _sps().binom.cdf(np.minimum(wins, losses), n, 0.5))
    p = np.where(n == 0, np.where(ties > 0, 1.0, np.nan), p)
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
    (min(W+, W-), p, n), n the nonzero values; every value 0 gives (0, 1, 0), as
    scipy; no value at all gives (NaN, NaN, 0), as scipy for an empty sample.
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
    empty = ~(~np.isnan(d)).any(-1)  # no value: the test cannot be computed
    p = np.where(empty, np.nan, np.where(n == 0, 1.0, np.minimum(p, 1.0)))
    stat = np.where(empty, np.nan, np.minimum(r_plus, r_minus))
    return stat.reshape(shape), p.reshape(shape), n.reshape(shape)


def rank_biserial(d: np.ndarray) -> np.ndarray:
    """Matched-pairs rank-biserial correlation along the last axis (Kerby 2014, the
    simple difference formula): r = (W+ - W-) / (W+ + W-), W+/W- the rank sums of the
    positive / negative values among the nonzero |d| (average ranks for ties; zeros
    dropped, as :func:`wilcoxon`). In [-1, 1]: 1 when every nonzero value is positive.
    0 when every value is 0; NaN when there is no value."""
    d = np.asarray(d, dtype=np.float64)
    shape = d.shape[:-1]
    d = d.reshape(-1, d.shape[-1])
    valid = ~np.isnan(d) & (d != 0)
    ranks = _sps().rankdata(np.where(valid, np.abs(d), np.inf), axis=-1)
    r_plus = np.where(valid & (d > 0), ranks, 0.0).sum(-1)
    r_minus = np.where(valid & (d < 0), ranks, 0.0).sum(-1)
    total = r_plus + r_minus
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(total > 0, (r_plus - r_minus) / total, 0.0)
    empty = ~(~np.isnan(d)).any(-1)
    return np.where(empty, np.nan, r).reshape(shape)


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
