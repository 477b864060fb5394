"""The kit every tie-aware kernel builds on: tie groups and the exact
expectations over their orderings.

McSherry & Najork, "Computing Information Retrieval Performance Measures
Efficiently in the Presence of Tied Scores" (ECIR 2008), section 2. A ranking
with tied scores is a sequence of tie groups V_1..V_m; group i holds n_i items,
r_i of them marked (relevant, or of positive gain), starts after rank t_i and
follows R_i marked items. Every ordering of the items inside each group is
equally likely; each ``ties="expected"`` kernel returns the *exact*
expectation of its measure over those orderings, in one vectorised pass over
all runs and queries (no enumeration):

- position j of group i is relevant with probability r_i / n_i, so measures
  linear in per-position relevance or gain (P, R, F1, NumRelRet, Rprec, RBP,
  nDCG, NCG, DCG, gRBP, RelP, Unj, Judged) replace rel(v_j) (or the gain) by
  the group's mean (sections 2.1-2.3, 2.6; :func:`expected_marked`);
- AP: position j contributes (r_i/n_i) (R_i + (j-t_i-1)(r_i-1)/(n_i-1) + 1) / j
  (section 2.4);
- RR: within the first group holding a relevant item, the first relevant item
  sits at t_i + x with probability f(x-1, r_i, n_i) r_i / (n_i - x + 1), where
  f(x, r, n) = prod_{y<=x} (1 - r/(n-y+1)) is the fraction of orderings whose
  first x items are non-relevant (section 2.5; :func:`first_irrelevant_fraction`);
- Success@k = 1 - P(no relevant item in the top k) = 1 - f(k - t_c, r_c, n_c)
  when no relevant item precedes the group V_c holding rank k (an extension by
  the same argument as section 2.5).

Conventions are trec_eval's: relevant means grade >= rel, nDCG gains are the
grades (grades <= 0 gain nothing), a query without relevant documents scores
0, P@k divides by k. Tie groups are those of
:attr:`~irpref.judging.judged.JudgedRankings.tie_offsets`: the depth cut-off (trec_eval
-M) is applied by :func:`~irpref.judging.judged.judge` to the canonical docid order, so
when it splits a tie group only the kept items are averaged over. Relevant
documents that were never retrieved count in the denominators (R, AP, Rprec,
nDCG's ideal) exactly as in the tie-oblivious measures.

Each kernel lives beside its family's record (``@attach_kernel`` at the end of
``rank.py``, ``ndcg.py``, ``trec.py``, ``trec_gain.py``, ``err.py``, ...); the
order-free families (``order_free=True``: the set measures, NumNonRelJudgedRet,
NumQ, IDCG) are their own expectation. A family without an ``expected``
kernel refuses ``ties="expected"`` and says why in its record
(``ties_note``).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from irpref.judging.judged import JudgedRankings
from irpref.measures.base import Measure

__all__ = [
    "TieGroups",
    "expected_marked",
    "expected_rel_ret",
    "first_irrelevant_fraction",
    "first_relevant_group",
    "tie_groups",
]


class TieGroups:
    """The tie groups of ``judged`` that hold at least one *marked* item.

    Marked items are the relevant ones (``grade >= rel``) or, for nDCG, those
    with a positive gain; a kernel whose terms vanish in every other group
    visits only these. Arrays, one entry per such group in item order:
    ``size`` n_i, ``segment``, ``start_rank`` t_i (0-based), ``count`` r_i
    (marked items in the group), ``before`` R_i (marked items earlier in the
    segment), ``weight`` (sum of the marked items' weights, if given).
    ``marked`` holds the marked items' indices. Computed from each marked
    item's segment, rank and tie group (:meth:`JudgedRankings.tie_group`), so
    both layouts give the same groups.
    """

    def __init__(
        self, judged: JudgedRankings, marked: np.ndarray, weight: np.ndarray | None = None
    ) -> None:
        self.judged = judged
        self.marked = marked  # item indices, ascending
        self._weight = weight  # per marked item, or None

    @cached_property
    def _groups(self) -> dict[str, np.ndarray | None]:
        judged, idx = self.judged, self.marked
        seg = judged.segment[idx]
        first_rank, size = judged.tie_group(idx)
        new = np.ones(len(idx), bool)
        new[1:] = (seg[1:] != seg[:-1]) | (first_rank[1:] != first_rank[:-1])
        first = np.flatnonzero(new)
        segment = seg[first]
        return {
            "size": size[first],
            "count": np.diff(np.append(first, len(idx))),
            "segment": segment,
            "start_rank": first_rank[first],
            "before": first - np.searchsorted(idx, judged.offsets[segment]),
            "weight": None if self._weight is None else np.add.reduceat(self._weight, first),
        }

    size = property(lambda self: self._groups["size"])
    count = property(lambda self: self._groups["count"])
    segment = property(lambda self: self._groups["segment"])
    start_rank = property(lambda self: self._groups["start_rank"])
    before = property(lambda self: self._groups["before"])
    weight = property(lambda self: self._groups["weight"])

    def expand(self, cutoff: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Every position of the groups: (group index, 1-based rank j), j <= ``cutoff``."""
        sizes = self.size
        if cutoff is not None:
            sizes = np.clip(cutoff - self.start_rank, 0, sizes)
        gi = np.repeat(np.arange(len(sizes)), sizes)
        first = np.zeros(len(sizes), np.int64)
        np.cumsum(sizes[:-1], out=first[1:])
        pos = np.arange(len(gi), dtype=np.int64) - first[gi]
        return gi, self.start_rank[gi] + pos + 1

    def segment_sum(self, gi: np.ndarray, values: np.ndarray) -> np.ndarray:
        """(R, Q) sum of ``values`` given per position of the groups ``gi``."""
        judged = self.judged
        sums = np.bincount(self.segment[gi], weights=values, minlength=judged.n_segments)
        return sums.reshape(judged.n_runs, judged.n_queries)


def tie_groups(judged: JudgedRankings, rel: int | str | None = None) -> TieGroups:
    """The groups holding a relevant item (``grade >= rel``); with ``rel=None``
    an item of positive gain (weights: the grades); with ``rel="unjudged"`` an
    item without a judgement (grade < 0). Computed once per judged rankings."""

    def groups() -> TieGroups:
        if rel is None:  # positive gain = grade >= 1
            marked = judged.items_with_grade(1).index
            return TieGroups(judged, marked, judged.grade[marked].astype(np.int64))
        if rel == "unjudged":
            return TieGroups(judged, np.flatnonzero(judged.grade < 0))
        return TieGroups(judged, judged.items_with_grade(rel).index)

    return judged.derived(("tie_groups", rel), groups)


def first_irrelevant_fraction(x: np.ndarray, r: np.ndarray, n: np.ndarray) -> np.ndarray:
    """f(x, r, n): the fraction of orderings of n items, r relevant, whose first x
    items are all non-relevant (McSherry & Najork 2008, section 2.5).

    f(0, r, n) = 1 and f(x, r, n) = (1 - r/(n-x+1)) f(x-1, r, n), i.e.
    C(n-x, r) / C(n, r); evaluated as a product of min(x, r) factors
    (prod_{j<r} (n-x-j)/(n-j) when r <= x, else prod_{y<x} (n-r-y)/(n-y)),
    vectorised over the arrays (one loop step per factor, not per element).
    """
    x, r, n = np.broadcast_arrays(*(np.asarray(a, np.int64) for a in (x, r, n)))
    shape = x.shape
    x, r, n = x.ravel(), r.ravel(), n.ravel()
    steps = np.minimum(x, r)
    order = np.argsort(-steps, kind="stable")  # longest products first
    neg_steps = -steps[order]
    top = n[order].astype(np.float64)
    fixed = np.where(r <= x, x, r)[order].astype(np.float64)  # the subtrahend that stays
    acc = np.ones(len(x))
    for j in range(int(-neg_steps[0]) if len(x) else 0):
        a = slice(0, int(np.searchsorted(neg_steps, -j, side="left")))  # steps > j
        acc[a] *= (top[a] - fixed[a] - j) / (top[a] - j)
    out = np.empty(len(x))
    out[order] = acc
    return out.reshape(shape)


def expected_marked(
    judged: JudgedRankings, g: TieGroups, cutoff: np.ndarray | int | None
) -> np.ndarray:
    """(R, Q) expected number of marked items in the top k: R_c + (k - t_c) r_c / n_c,
    V_c the group holding rank k (McSherry & Najork 2008, section 2.1); when V_c
    holds no marked item that is the number of marked items above rank k.

    ``cutoff`` may be a (Q,) array of per-query cut-offs (None: everything).
    """
    length = judged.n_retrieved
    if cutoff is not None:
        per_seg = np.tile(cutoff, judged.n_runs) if np.ndim(cutoff) else cutoff
        length = np.minimum(length, per_seg)
    seg = np.flatnonzero(length > 0)
    k = length[seg].astype(np.int64)
    # (segment, rank) of the marked items and (segment, first rank) of their
    # groups as one ascending key each
    width = np.int64(judged.n_retrieved.max(initial=0)) + 1
    m_seg = judged.segment[g.marked]
    m_key = m_seg * width + judged.rank_of(g.marked, m_seg)
    g_key = g.segment * width + g.start_rank
    last = seg * width + (k - 1)  # rank k, 0-based k - 1
    above = np.searchsorted(m_key, last, side="right") - np.searchsorted(m_key, seg * width)
    c = np.searchsorted(g_key, last, side="right") - 1  # the last marked group from rank k up
    hit = c >= 0
    hit[hit] = (g.segment[c[hit]] == seg[hit]) & (
        g.start_rank[c[hit]] + g.size[c[hit]] > k[hit] - 1
    )
    out = np.zeros(judged.n_segments)
    out[seg] = above
    c, s, kk = c[hit], seg[hit], k[hit]
    out[s] = g.before[c] + (kk - g.start_rank[c]) * g.count[c] / g.size[c]
    return out.reshape(judged.n_runs, judged.n_queries)


def expected_rel_ret(
    judged: JudgedRankings, m: Measure, cutoff: np.ndarray | int | None = None
) -> np.ndarray:
    """(R, Q) expected number of relevant items within the cut-off (default: the
    measure's; a (Q,) array gives per-query cut-offs)."""
    cutoff = m.cutoff if cutoff is None else cutoff
    return expected_marked(judged, tie_groups(judged, m.rel(judged)), cutoff)


def first_relevant_group(g: TieGroups, cutoff: np.ndarray | int | None) -> np.ndarray:
    """Index of the first group with a relevant item in each segment, if it starts
    within the cut-off."""
    first = np.ones(len(g.segment), bool)
    first[1:] = g.segment[1:] != g.segment[:-1]
    idx = np.flatnonzero(first)
    if cutoff is not None:
        k = cutoff if np.ndim(cutoff) == 0 else cutoff[g.segment[idx]]
        idx = idx[g.start_rank[idx] < k]
    return idx
