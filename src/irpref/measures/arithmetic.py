"""trec_eval's arithmetic, reproduced exactly: sums in C loop order, C ``lround``,
its geometric mean with a floor, and an exact suffix maximum. Per-query values
computed with these are identical to trec_eval's, not merely close.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MIN_GEO_MEAN", "exact_cumsum", "geometric_mean", "lround", "suffix_max"]

MIN_GEO_MEAN = 1e-5
"""trec_eval's floor for geometric means (trec_eval.h)."""
def geometric_mean(values: np.ndarray) -> float:
    """exp(mean(log(max(v, 1e-5)))), the log-sum taken in order (meas_avg.c)."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) == 0:
        return float("nan")
    logs = np.log(np.maximum(values, MIN_GEO_MEAN))
    return float(np.exp(np.add.accumulate(logs)[-1] / len(values)))


def lround(x: np.ndarray) -> np.ndarray:
    """C ``lround`` for x >= 0: round half away from zero (not numpy's half-even)."""
    x = np.asarray(x, dtype=np.float64)
    f = np.floor(x)
    return (f + (x - f >= 0.5)).astype(np.int64)


def exact_cumsum(values: np.ndarray, offsets: np.ndarray, max_cells: int = 1 << 22) -> np.ndarray:
    """Inclusive cumulative sum restarting at every segment ``offsets[s]:offsets[s+1]``,
    added strictly left to right within each segment (as a C loop does).

    A global cumsum minus the segment's start would be off by rounding; here
    segments are laid out as rows of padded 2-D blocks (grouped by length, so
    padding stays small) and accumulated along the rows.
    """
    values = np.asarray(values, dtype=np.float64)
    out = np.empty(len(values))
    lengths = np.diff(offsets)
    order = np.argsort(lengths, kind="stable")
    order = order[lengths[order] > 0]
    start = 0
    while start < len(order):
        width = int(lengths[order[min(len(order) - 1, start)]])
        rows = max(1, max_cells // max(width, 1))
        chunk = order[start : start + rows]
        width = int(lengths[chunk].max())
        n = len(chunk)
        seg_len = lengths[chunk]
        row = np.repeat(np.arange(n), seg_len)
        col = np.arange(int(seg_len.sum())) - np.repeat(np.cumsum(seg_len) - seg_len, seg_len)
        src = np.repeat(offsets[chunk], seg_len) + col
        block = np.zeros((n, width))
        block[row, col] = values[src]
        np.add.accumulate(block, axis=1, out=block)
        out[src] = block[row, col]
        start += n
    return out


def suffix_max(values: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Maximum of ``values[j]`` over j >= i with ``group[j] == group[i]``
    (``group`` nondecreasing), exactly: values are replaced by their ranks."""
    if len(values) == 0:
        return np.empty(0)
    uniq, code = np.unique(values, return_inverse=True)
    # scan from the end, where groups appear in decreasing order: flip the group key
    rev = (group.max() - group[::-1]).astype(np.int64) * (len(uniq) + 1) + code[::-1]
    best = np.maximum.accumulate(rev)[::-1]
    return uniq[best % (len(uniq) + 1)]
