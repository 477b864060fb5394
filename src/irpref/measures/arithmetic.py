"""The arithmetic every kernel and bounds rule shares, defined once.

Items lie flat, run x query segment after segment (``offsets[s]:offsets[s+1]``,
:class:`~irpref.judged.JudgedRankings`); the functions here divide, cut and
sum within those segments:

- :func:`divide`, the guarded division: 0 where the denominator is not
  positive (a query without relevant documents scores 0, as in trec_eval);
- :func:`within_cutoff`, :func:`within_segment_cumsum`, :func:`segment_last`,
  :func:`for_every_run`;
- trec_eval's arithmetic, reproduced exactly: :func:`exact_cumsum` (sums in C
  loop order), :func:`power_table` (p^i multiplied out rank by rank), C
  :func:`lround`, its :func:`geometric_mean` with a floor, an exact
  :func:`suffix_max`, and its relevance (:func:`trec_relevant`: judged and
  at least ``rel``). Per-query values computed with these are identical to
  trec_eval's, not merely close.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from irpref.judged import JudgedRankings

if TYPE_CHECKING:
    from irpref.measures.base import Measure

__all__ = [
    "MIN_GEO_MEAN",
    "divide",
    "exact_cumsum",
    "for_every_run",
    "geometric_mean",
    "lround",
    "power_table",
    "segment_last",
    "suffix_max",
    "trec_relevant",
    "within_cutoff",
    "within_segment_cumsum",
]


def divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` (broadcast), 0 where ``den`` is not positive (or NaN)."""
    shape = np.broadcast_shapes(np.shape(num), np.shape(den))
    out = np.zeros(shape)
    np.divide(num, den, out=out, where=np.broadcast_to(den, shape) > 0)
    return out


def within_cutoff(judged: JudgedRankings, measure: Measure) -> np.ndarray:
    """Boolean per item: rank within the measure's cut-off (all if none)."""
    if measure.cutoff is None:
        return np.ones(judged.n_items, bool)
    return judged.rank < measure.cutoff


def within_segment_cumsum(judged: JudgedRankings, values: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum of ``values`` (per item) restarting at every segment."""
    total = np.cumsum(values, dtype=np.float64 if values.dtype.kind == "f" else np.int64)
    before = np.concatenate(([0], total))[judged.offsets[:-1]]
    return total - before[judged.segment]


def segment_last(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The last value of every segment ``offsets[s]:offsets[s+1]`` (0 where empty)."""
    out = np.zeros(len(offsets) - 1)
    nonempty = np.diff(offsets) > 0
    out[nonempty] = values[offsets[1:][nonempty] - 1]
    return out


def for_every_run(judged: JudgedRankings, values: np.ndarray) -> np.ndarray:
    """A (Q,) per-query array as (R, Q), the same for every run (a view)."""
    return np.broadcast_to(values, (judged.n_runs, judged.n_queries))


# ---- trec_eval's arithmetic ------------------------------------------------------
def trec_relevant(judged: JudgedRankings, rel: int) -> np.ndarray:
    """Relevant items as trec_eval sees them (form_res_rels.c): a judged grade
    (>= 0) at least ``rel``."""
    return (judged.grade >= 0) & (judged.grade >= rel)


def power_table(p: float, judged: JudgedRankings) -> np.ndarray:
    """``p**i`` for every rank i (plus one), multiplied out one rank at a time
    as trec_eval's m_rbp.c does, so RBP sums are bit-identical."""
    n = int(judged.n_retrieved.max(initial=0)) + 1
    table = np.full(n, float(p))
    table[0] = 1.0
    return np.multiply.accumulate(table)


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
