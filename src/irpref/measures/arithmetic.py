"""The arithmetic every kernel and bounds rule shares, defined once.

Items lie flat, run x query segment after segment (``offsets[s]:offsets[s+1]``,
:class:`~irpref.judging.judged.JudgedRankings`); the functions here divide, cut and
sum within those segments:

- :func:`divide`, the guarded division: 0 where the denominator is not
  positive (a query without relevant documents scores 0, as in trec_eval);
- :func:`within_cutoff`, :func:`within_segment_cumsum`, :func:`segment_last`,
  :func:`for_every_run`;
- :func:`segment_scan` and :func:`log2_table`: AP's sums, DCG, RR and counts of
  relevant items in one C pass over the items (``irpref._native.kernels``; None when
  the C kernels are off, and the caller's NumPy code gives the same values);
- trec_eval's arithmetic, reproduced exactly: :func:`exact_cumsum` (sums in C
  loop order), :func:`power_table` (p^i multiplied out rank by rank), C
  :func:`lround`, its :func:`geometric_mean` with a floor, an exact
  :func:`suffix_max`, and its relevance (:func:`trec_relevant`: judged and
  at least ``rel``). Per-query values computed with these are identical to
  trec_eval's, not merely close;
- the mean over queries, correctly rounded (:func:`exact_mean`,
  :func:`exact_means`, :func:`mean_aggregate`): the same values in any order
  give the same bits, so equal means print and rank as equal.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from irpref.judging.judged import JudgedRankings
from irpref.runtime.native import native

if TYPE_CHECKING:
    from irpref.measures.base import Measure

__all__ = [
    "MIN_GEO_MEAN",
    "divide",
    "exact_cumsum",
    "exact_mean",
    "exact_means",
    "exact_nanmean",
    "for_every_run",
    "geometric_mean",
    "log2_table",
    "lround",
    "mean_aggregate",
    "power_table",
    "segment_last",
    "segment_scan",
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


SCANS = {"ap": 0, "dcg": 1, "rr": 2, "count": 3}
"""What :func:`segment_scan` computes per segment (the kinds of
``irpref._native.kernels.segment_scan``)."""


def segment_scan(judged: JudgedRankings, kind: str, rel: int = 1,
                 cutoff: int | None = None) -> np.ndarray | None:
    """(R, Q) per run and query, from one C pass over the items in rank order,
    or None when the C kernels are off:

    - ``ap``: sum of ``h / (rank + 1)`` over the relevant items (grade >= ``rel``)
      within the cut-off, ``h`` the relevant items up to this one;
    - ``dcg``: sum of ``grade / log2(rank + 2)`` over the items of grade >= 1 within
      the cut-off (linear gain);
    - ``rr``: ``1 / (rank + 1)`` of the first relevant item, 0 if beyond the cut-off;
    - ``count``: the relevant items within the cut-off (int64).

    Each sum is added left to right from 0, as the NumPy kernels' ``np.bincount``
    adds, so the values are theirs bit for bit; no per-item array is made.
    """
    kernels = native("kernels")
    if kernels is None:
        return None
    table = np.zeros(0)
    if kind == "dcg":
        deepest = int(judged.n_retrieved.max(initial=0))
        table = log2_table(deepest if cutoff is None else min(cutoff, deepest))
    out = np.empty(judged.n_segments, np.int64 if kind == "count" else np.float64)
    rank = judged.item_rank
    if rank is not None and rank.dtype not in (np.int32, np.int64):
        rank = rank.astype(np.int64)
    kernels.segment_scan(np.ascontiguousarray(judged.offsets, np.int64),
                         None if rank is None else np.ascontiguousarray(rank),
                         np.ascontiguousarray(judged.grade, np.int32), int(rel),
                         -1 if cutoff is None else int(cutoff), SCANS[kind], table, out)
    return out.reshape(judged.n_runs, judged.n_queries)


def log2_table(n: int) -> np.ndarray:
    """``log2(r + 2.0)`` for r = 0 .. n - 1: the discounts NumPy's ``log2`` gives
    each rank (the same function, so the C sums match the NumPy kernels')."""
    return np.log2(np.arange(max(int(n), 0), dtype=np.float64) + 2.0)


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


def exact_mean(values) -> float:
    """The arithmetic mean, correctly rounded: ``math.fsum`` (Shewchuk 1997: the exact
    sum, rounded once) divided by the count. It depends on the values only, not on
    their order (``np.mean``'s pairwise sum does: 199/540 as 0.36851851851851863 or
    0.3685185185185186). NaN when a value is NaN or there is none; an infinite value
    or an overflowing sum as ``np.mean`` gives it."""
    values = np.asarray(values, dtype=np.float64).ravel()
    if not len(values):
        return float("nan")
    if not np.isfinite(values).all():
        return float(np.mean(values))
    try:
        return math.fsum(values.tolist()) / len(values)
    except OverflowError:
        return float(np.mean(values))


def exact_nanmean(values) -> float:
    """:func:`exact_mean` of the values that are not NaN (NaN when none is)."""
    values = np.asarray(values, dtype=np.float64).ravel()
    return exact_mean(values[~np.isnan(values)])


def exact_means(values: np.ndarray) -> np.ndarray:
    """:func:`exact_nanmean` of every row of a 2-D array (NaN: a missing value)."""
    values = np.asarray(values, dtype=np.float64)
    return np.array([exact_nanmean(row) for row in values], dtype=np.float64).reshape(
        values.shape[:-1])


def mean_aggregate(aggregate):
    """A record's aggregate with the arithmetic mean made exact: ``None`` and
    ``np.mean`` -> :func:`exact_mean`, ``np.nanmean`` -> :func:`exact_nanmean`; any
    other (trec_eval's :func:`geometric_mean`, a sum) as it is."""
    if aggregate is None or aggregate is np.mean:
        return exact_mean
    if aggregate is np.nanmean:
        return exact_nanmean
    return aggregate


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
