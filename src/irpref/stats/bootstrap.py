"""Seeded paired bootstrap confidence intervals of mean per-query values.

Percentile and BCa (bias-corrected and accelerated) intervals, Efron &
Tibshirani, *An Introduction to the Bootstrap* (1993), ch. 13-14. The resamples
come from ONE stream per seed, drawn in a fixed order; only the arithmetic is
chunked, so the intervals do not depend on threads, chunk sizes or which other
rows are computed.
"""

from __future__ import annotations

import numpy as np

import irpref.runtime.progress as progress
from irpref.stats.seeds import SeedLike, generator

__all__ = ["BOOTSTRAP_CHUNK", "BOOTSTRAP_METHODS", "DEFAULT_BOOTSTRAP", "bootstrap_ci",
           "draw_counts"]

BOOTSTRAP_METHODS = ("percentile", "bca")

DEFAULT_BOOTSTRAP = 2000
"""Default bootstrap resamples: Efron & Tibshirani (1993, Sec. 19.3 and ch. 14)
advise about 1000 for a percentile interval and more for BCa, whose
acceleration and bias correction read the far tails of the resamples; 2000 keeps
the Monte Carlo error of a 95 % BCa endpoint well below its own sampling error
(Efron 1987; Carpenter & Bithell 2000 suggest 1000-2000)."""

BOOTSTRAP_CHUNK = 2**22  # values per chunk of draws / quantiles (progress steps)


def draw_counts(n_queries: int, samples: int, seed: SeedLike = None) -> np.ndarray:
    """(samples, n_queries) float64 multinomial counts: ``samples`` resamples of the
    queries with replacement, drawn in order from one stream (chunks of the same
    ``multinomial`` stream are the one-shot draw), with a progress bar."""
    if samples < 1:
        raise ValueError(f"bootstrap samples must be >= 1, got {samples}")
    rng = generator(seed)
    p = np.full(n_queries, 1.0 / max(n_queries, 1))
    step = max(1, BOOTSTRAP_CHUNK // max(n_queries, 1))
    parts = []
    with progress.task(samples, "bootstrap resamples", "step") as bar:
        for start in range(0, samples, step):
            parts.append(rng.multinomial(n_queries, p, size=min(step, samples - start)))
            bar.update(parts[-1].shape[0])
    return np.concatenate(parts).astype(np.float64)


def bootstrap_ci(
    d: np.ndarray, samples: int = DEFAULT_BOOTSTRAP, confidence: float = 0.95,
    seed: SeedLike = None,
    method: str = "percentile", *, counts: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap CI of the mean along the last axis (Efron & Tibshirani 1993).

    One set of ``samples`` resamples of the Q queries (with replacement) is
    shared by all rows, as multinomial counts C (B, Q): mean* = (d C^T) / n,
    one matrix product for all pairs. NaN (missing) values are left out of
    both sums. Returns (low, high) at ``confidence``. ``counts``: resamples
    already drawn by :func:`draw_counts` (blocks of rows then share them;
    ``samples`` and ``seed`` are not read).

    A progress bar (``irpref.runtime.progress``) follows the draws and the quantiles.
    The work is split the same way whether or not a bar is drawn: the
    resamples are drawn in order from one stream (chunks of the same
    ``multinomial`` stream are the one-shot draw), the means stay ONE matrix
    product (a chunked BLAS product may round differently) and the quantiles
    are taken row by row, so a seed gives bit-identical intervals either way.

    ``method="bca"``: the BCa interval of the same resamples, with bias
    correction z0 = Phi^-1(#{mean* < mean} / B) and acceleration
    a = sum(u^3) / (6 (sum u^2)^1.5), u_i = mean_(.) - mean_(-i) the jackknife
    deviations; the bounds are the order-statistic quantiles (linear
    interpolation, as ``numpy.quantile``) at Phi(z0 + (z0 + z) / (1 - a (z0 + z)))
    for z = Phi^-1(tail) and Phi^-1(1 - tail).
    """
    if method not in BOOTSTRAP_METHODS:
        raise ValueError(f"bootstrap method must be one of {', '.join(BOOTSTRAP_METHODS)}, "
                         f"not {method!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if samples < 1:
        raise ValueError(f"bootstrap samples must be >= 1, got {samples}")
    d = np.asarray(d, dtype=np.float64)
    nq = d.shape[-1]
    rows = int(np.prod(d.shape[:-1], dtype=np.int64))
    if counts is None:
        counts = draw_counts(nq, samples, seed)
    samples = counts.shape[0]
    with progress.task(rows, "bootstrap CI", "row") as bar:
        valid = ~np.isnan(d)
        tail = (1.0 - confidence) / 2.0
        with np.errstate(invalid="ignore", divide="ignore"):
            means = (np.where(valid, d, 0.0) @ counts.T) / (valid.astype(np.float64) @ counts.T)
            quantile = np.nanquantile if np.isnan(means).any() else np.quantile
            flat = means.reshape(rows, samples)
            low, high = np.empty(rows), np.empty(rows)
            levels = None
            if method == "bca":
                levels = _bca_levels(d.reshape(rows, nq), flat, tail)
            chunk = max(1, BOOTSTRAP_CHUNK // 4 // samples)
            for start in range(0, rows, chunk):
                part = slice(start, start + chunk)
                if levels is None:
                    low[part], high[part] = quantile(flat[part], [tail, 1.0 - tail], axis=-1)
                else:
                    low[part], high[part] = _row_quantiles(flat[part], levels[part])
                bar.update(low[part].shape[0])
    if d.ndim == 1:
        return low[0], high[0]
    return low.reshape(d.shape[:-1]), high.reshape(d.shape[:-1])


def _bca_levels(d: np.ndarray, means: np.ndarray, tail: float) -> np.ndarray:
    """(rows, 2) BCa quantile levels of the bootstrap means (NaN values of d left out)."""
    from scipy.special import ndtr, ndtri

    valid = ~np.isnan(d)
    n = valid.sum(-1)
    x = np.where(valid, d, 0.0)
    total = x.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / n
        ok = ~np.isnan(means)
        below = ((means < mean[:, None]) & ok).sum(-1) / ok.sum(-1)
        z0 = ndtri(below)
        jack = (total[:, None] - x) / (n - 1)[:, None]  # mean without query i
        u = np.where(valid, jack.mean(-1, where=valid, keepdims=True) - jack, 0.0)
        accel = (u**3).sum(-1) / (6.0 * ((u**2).sum(-1)) ** 1.5)
        accel = np.where(np.isfinite(accel), accel, 0.0)
        z = ndtri(np.array([tail, 1.0 - tail]))
        w = z0[:, None] + z[None, :]
        levels = ndtr(z0[:, None] + w / (1.0 - accel[:, None] * w))
    return levels


def _row_quantiles(values: np.ndarray, levels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-row quantiles at per-row levels (rows, 2), linear interpolation, NaN left out."""
    srt = np.sort(values, axis=-1)  # NaN last
    count = (~np.isnan(values)).sum(-1)
    out = np.full(levels.shape, np.nan)
    rows = np.arange(len(values))
    good = (count > 0) & np.isfinite(levels).all(-1)
    for k in range(levels.shape[1]):
        pos = levels[:, k] * (count - 1)
        lo = np.clip(np.floor(np.where(good, pos, 0)).astype(np.int64), 0, None)
        hi = np.minimum(lo + 1, np.maximum(count - 1, 0))
        frac = np.where(good, pos, 0) - lo
        a, b = srt[rows, lo], srt[rows, hi]
        out[:, k] = np.where(good, a + (b - a) * frac, np.nan)
    return out[:, 0], out[:, 1]
