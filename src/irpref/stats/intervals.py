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
  Fouladi 1997).
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
    root of cdf_nct(t; n - 1, lambda) = level, for every pair at once, to 1e-12 relative."""
    from scipy import stats

    t = np.asarray(t, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    df = n - 1
    ok = np.isfinite(t) & (n >= 2)
    tt, dd = np.where(ok, t, 0.0), np.where(ok, df, 1.0)
    tail = (1.0 - confidence) / 2.0
    bounds = []
    for level in (1.0 - tail, tail):  # cdf(t; lambda) falls as lambda grows

        def f(lam, idx, level=level):
            cdf = stats.nct.cdf(tt[idx], dd[idx], lam)
            # SciPy's noncentral t gives NaN far in a tail: there the cdf is 1 (lambda
            # well below t) or 0 (well above), which keeps f monotone for the search
            return np.where(np.isnan(cdf), (lam < tt[idx]).astype(np.float64), cdf) - level

        # bracket around the normal approximation lambda ~ t - z sqrt(1 + t^2 / 2 df),
        # widened until it holds the root (f falls from > 0 to < 0)
        spread = np.sqrt(1.0 + tt * tt / (2.0 * dd))
        guess = tt - stats.norm.ppf(level) * spread
        lo, hi = guess - spread, guess + spread
        every = np.arange(len(tt))
        for _ in range(60):
            low_short, high_short = f(lo, every) <= 0, f(hi, every) >= 0
            if not (low_short.any() or high_short.any()):
                break
            lo = np.where(low_short, lo - 2.0 * spread, lo)
            hi = np.where(high_short, hi + 2.0 * spread, hi)
            spread = np.where(low_short | high_short, 2.0 * spread, spread)
        bounds.append(_falling_root(f, lo, hi))
    with np.errstate(invalid="ignore", divide="ignore"):
        root = np.sqrt(n)
        low, high = bounds[0] / root, bounds[1] / root
    return np.where(ok, low, np.nan), np.where(ok, high, np.nan)


def _falling_root(f, lo: np.ndarray, hi: np.ndarray, tol: float = 1e-12,
                  max_iter: int = 200) -> np.ndarray:
    """The roots of an elementwise decreasing ``f(x, idx)`` (the values at the elements
    ``idx``) with f(lo) > 0 > f(hi), each bracket narrowed below ``tol`` (1 + |x|) by
    the Illinois method: regula falsi that halves the value kept at an end retained
    twice in a row, and a bisection every third step, so it converges fast, surely,
    and never leaves the bracket. Only the elements not yet converged are evaluated."""
    lo, hi = lo.astype(np.float64), hi.astype(np.float64)
    every = np.arange(len(lo))
    f_lo, f_hi = f(lo, every), f(hi, every)
    x = (lo + hi) / 2.0
    moved = np.zeros(len(lo), np.int8)  # the end that moved last: -1 low, +1 high
    active = every
    for step in range(max_iter):
        a = active
        with np.errstate(invalid="ignore", divide="ignore"):
            xa = hi[a] - f_hi[a] * (hi[a] - lo[a]) / (f_hi[a] - f_lo[a])
        # every third step bisects: a flat stretch of f cannot stall the bracket
        mid = (lo[a] + hi[a]) / 2.0
        xa = np.where((xa > lo[a]) & (xa < hi[a]) & (step % 3 != 2), xa, mid)
        fx = f(xa, a)
        up = fx > 0  # the root lies above x: x becomes the low end
        f_hi[a] = np.where(up & (moved[a] == -1), f_hi[a] / 2.0, f_hi[a])  # kept twice
        f_lo[a] = np.where(~up & (moved[a] == 1), f_lo[a] / 2.0, f_lo[a])
        lo[a], f_lo[a] = np.where(up, xa, lo[a]), np.where(up, fx, f_lo[a])
        hi[a], f_hi[a] = np.where(up, hi[a], xa), np.where(up, f_hi[a], fx)
        moved[a] = np.where(up, -1, 1)
        x[a] = xa
        done = (hi[a] - lo[a] <= tol * (1.0 + np.abs(xa))) | (fx == 0)
        active = a[~done]
        if not len(active):
            break
    return x
