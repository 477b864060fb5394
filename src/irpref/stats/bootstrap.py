"""Seeded bootstrap confidence intervals of mean per-query values (Efron & Tibshirani 1993)."""

from __future__ import annotations

import numpy as np

from irpref import progress
from irpref.stats.seeds import SeedLike, generator

__all__ = ["BOOTSTRAP_CHUNK", "bootstrap_ci"]

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
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if samples < 1:
        raise ValueError(f"bootstrap samples must be >= 1, got {samples}")
    d = np.asarray(d, dtype=np.float64)
    nq = d.shape[-1]
    rows = int(np.prod(d.shape[:-1], dtype=np.int64))
    rng = generator(seed)
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
