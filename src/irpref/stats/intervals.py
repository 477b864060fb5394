"""Closed-form intervals: the t interval of a mean difference, the exact CI of a win share.

- t interval (Student): mean +- t_{(1 + c) / 2, n - 1} sd / sqrt(n), the
  margin of error of Sakai, *Laboratory Experiments in Information
  Retrieval* (2018), Sec. 2.3; NaN for fewer than 2 values.
- Clopper-Pearson interval of a binomial proportion w / (w + l): the
  Beta(w, l + 1) and Beta(w + 1, l) quantiles at (1 - c) / 2 and (1 + c) / 2.
"""

from __future__ import annotations

import numpy as np

__all__ = ["t_interval", "win_share_interval"]


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
