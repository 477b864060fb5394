"""Closed-form intervals: the t interval of a mean difference, the exact CI of a win share.

- t interval (Student): mean +- t_{(1 + c) / 2, n - 1} sd / sqrt(n), the
  margin of error of Sakai, *Laboratory Experiments in Information
  Retrieval* (2018), Sec. 2.3; NaN for fewer than 2 values.
- Clopper-Pearson interval of a binomial proportion w / (w + l): the
  Beta(w, l + 1) and Beta(w + 1, l) quantiles at (1 - c) / 2 and (1 + c) / 2.
- Exact interval of the paired standardized mean difference d = mean / sd:
  t = d sqrt(n) follows a noncentral t with n - 1 degrees of freedom and
  noncentrality delta sqrt(n); the bounds are the noncentralities whose
  distribution puts t at its (1 + c) / 2 and (1 - c) / 2 quantiles, over
  sqrt(n) (inverting the noncentral t; Cumming & Finch 2001; Steiger &
  Fouladi 1997); the roots by :mod:`irpref.stats.noncentral`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["smd_interval", "t_interval", "win_share_interval"]


def t_interval(
    d: np.ndarray, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(low, high, margin of error) of the mean along the last axis (NaN ignored)."""
    from scipy import stats

    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    d = np.asarray(d, dtype=np.float64)
    valid = ~np.isnan(d)
    n = valid.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(valid, d, 0.0).sum(-1) / n
        dev = np.where(valid, d - mean[..., None], 0.0)
        sd = np.sqrt((dev * dev).sum(-1) / (n - 1))
        crit = stats.t.ppf(0.5 + confidence / 2.0, np.where(n >= 2, n - 1, np.nan))
        margin = crit * sd / np.sqrt(n)
    return mean - margin, mean + margin, margin


def win_share_interval(
    wins: np.ndarray, losses: np.ndarray, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson (exact) interval of wins / (wins + losses); NaN when there are none."""
    from scipy import stats

    w = np.asarray(wins, dtype=np.float64)
    lo_n = np.asarray(losses, dtype=np.float64)
    tail = (1.0 - confidence) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(w > 0, stats.beta.ppf(tail, w, lo_n + 1), 0.0)
        high = np.where(lo_n > 0, stats.beta.ppf(1.0 - tail, w + 1, lo_n), 1.0)
    none = ~((w + lo_n) > 0)
    return np.where(none, np.nan, low), np.where(none, np.nan, high)


def smd_interval(
    t: np.ndarray, n: np.ndarray, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Exact interval of the standardized mean difference t / sqrt(n): each bound is the
    root lambda of cdf_nct(t; n - 1, lambda) = level over sqrt(n), for every pair at once
    (:func:`irpref.stats.noncentral.noncentrality`: safeguarded Newton steps on the exact
    noncentral t CDF). NaN where t is not finite or n < 2."""
    from irpref.stats.noncentral import noncentrality

    t = np.asarray(t, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    ok = np.isfinite(t) & (n >= 2)
    tt, dd = np.where(ok, t, np.nan), np.where(ok, n - 1.0, 1.0)
    tail = (1.0 - confidence) / 2.0
    # cdf(t; lambda) falls as lambda grows: the low bound leaves 1 - tail below t
    low, high = noncentrality(tt, dd, 1.0 - tail), noncentrality(tt, dd, tail)
    with np.errstate(invalid="ignore", divide="ignore"):
        root = np.sqrt(n)
        low, high = low / root, high / root
    return np.where(ok, low, np.nan), np.where(ok, high, np.nan)
