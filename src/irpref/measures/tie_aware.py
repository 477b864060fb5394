"""Tie-aware measures: the exact mean over all orderings of tied scores.

McSherry & Najork, "Computing Information Retrieval Performance Measures
Efficiently in the Presence of Tied Scores" (ECIR 2008), section 2. A ranking
with tied scores is a sequence of tie groups V_1..V_m; group i holds n_i items,
r_i of them relevant, starts after rank t_i and follows R_i relevant items.
Every ordering of the items inside each group is equally likely; each kernel
here returns the *exact* expectation of its measure over those orderings, in
one vectorised pass over all runs and queries (no enumeration):

- position j of group i is relevant with probability r_i / n_i, so measures
  linear in per-position relevance or gain (P, R, F1, NumRelRet, Rprec, RBP,
  nDCG) replace rel(v_j) (or the gain) by the group's mean (sections 2.1-2.3, 2.6);
- AP: position j contributes (r_i/n_i) (R_i + (j-t_i-1)(r_i-1)/(n_i-1) + 1) / j
  (section 2.4);
- RR: within the first group holding a relevant item, the first relevant item
  sits at t_i + x with probability f(x-1, r_i, n_i) r_i / (n_i - x + 1), where
  f(x, r, n) = prod_{y<=x} (1 - r/(n-y+1)) is the fraction of orderings whose
  first x items are non-relevant (section 2.5);
- Success@k = 1 - P(no relevant item in the top k) = 1 - f(k - t_c, r_c, n_c)
  when no relevant item precedes the group V_c holding rank k (an extension by
  the same argument as section 2.5).

Conventions are those of :mod:`irpref.measures.classic` (trec_eval): relevant
means grade >= rel, nDCG gains are the grades (grades <= 0 gain nothing), a
query without relevant documents scores 0, P@k divides by k. Tie groups are
those of :attr:`~irpref.judged.JudgedRankings.tie_offsets`: the depth cut-off
(trec_eval -M) is applied by :func:`~irpref.judged.judge` to the canonical
docid order, so when it splits a tie group only the kept items are averaged
over. Relevant documents that were never retrieved count in the denominators
(R, AP, Rprec, nDCG's ideal) exactly as in the tie-oblivious measures.

Also covered: Success, Rprec (k = |relevant|), RBP, NumRelRet, and from
:mod:`irpref.measures.trec_extra` DCG, RelP, Unj (all linear in per-position
indicators) and the order-free set measures (SetP, SetR, SetRelP, SetAP, SetF,
Utility, NumNonRelJudgedRet, NumQ, IDCG), whose value no ordering changes.
This module also registers the family ``F1`` (both tie policies).

Families left without an ``expected`` kernel raise a ValueError under
``ties="expected"``. Some are not sums of per-position terms and have no
one-pass formula in the paper: IPrec/IPrecAvg (a maximum over ranks), YAAP and
GMBpref (logarithms), infAP, Bpref, BinG, G, nDCGRel, RnDCG (ratios of
position-dependent counts). RBPResid and RprecMult are linear and would
follow the RBP/Rprec kernels, but are not done yet; the recall-level family
(RL, in another module) is likewise left to its module.
"""

from __future__ import annotations

import weakref
from functools import cached_property

import numpy as np

import irpref.measures.trec_gain  # noqa: F401  (registers DCG, gRBP before attaching)
from irpref.judged import JudgedRankings
from irpref.measures.base import (
    REGISTRY,
    Alias,
    Measure,
    attach_kernel,
    declare_compact,
    register,
)
from irpref.measures.classic import REL, _discount, _safe_div, gains, ideal_dcg, num_rel_ret
from irpref.measures.trec_extra import _max_grade

__all__ = ["TieGroups", "first_irrelevant_fraction", "tie_groups"]


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


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def tie_groups(judged: JudgedRankings, rel: int | str | None = None) -> TieGroups:
    """The (cached) groups holding a relevant item (``grade >= rel``); with
    ``rel=None`` an item of positive gain (weights: the grades); with
    ``rel="unjudged"`` an item without a judgement (grade < 0)."""
    per = _CACHE.setdefault(judged, {})
    if rel not in per:
        if rel is None:  # positive gain = grade >= 1
            marked = judged.items_with_grade(1).index
            per[rel] = TieGroups(judged, marked, judged.grade[marked].astype(np.int64))
        elif rel == "unjudged":
            per[rel] = TieGroups(judged, np.flatnonzero(judged.grade < 0))
        else:
            per[rel] = TieGroups(judged, judged.items_with_grade(rel).index)
    return per[rel]


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


# ---- families whose value does not depend on the order of tied items -------
# (trec_extra's set-based measures read no ranks: the set retrieved is tie-free)
ORDER_FREE = (
    "NumRet", "NumRel", "NumQ", "IDCG", "SetP", "SetR", "SetRelP", "SetAP", "SetF",
    "Utility", "NumNonRelJudgedRet",
)
for _name in ORDER_FREE:
    if _name in REGISTRY and REGISTRY[_name].expected is None:
        attach_kernel(_name)(REGISTRY[_name].kernel)


@attach_kernel("NumRelRet")
def expected_num_rel_ret(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[NumRelRet@k] = R_c + (k - t_c) r_c / n_c (McSherry & Najork 2008, 2.1)."""
    return expected_rel_ret(judged, m)


@attach_kernel("P")
def expected_precision(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[P@k] = (R_c + (k - t_c) r_c / n_c) / k (McSherry & Najork 2008, 2.1)."""
    return expected_rel_ret(judged, m) / m.cutoff


@attach_kernel("R")
def expected_recall(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[R@k] = (R_c + (k - t_c) r_c / n_c) / |relevant| (McSherry & Najork 2008, 2.2)."""
    return _safe_div(expected_rel_ret(judged, m), judged.num_rel(m.rel(judged))[None, :])


def _f1_cutoff(judged: JudgedRankings, m: Measure) -> np.ndarray:
    return judged.num_ret if m.cutoff is None else np.full(judged.num_ret.shape, m.cutoff)


@register(
    "F1",
    examples=("F1", "F1@3"),
    range="[0, 1]",
    aliases=(Alias("f1", "ranx"),),
    formula="F1@k = 2 P@k R@k / (P@k + R@k) = 2 |relevant in top k| / (k + |relevant|); "
    "without a cut-off k = number retrieved (set F1, trec_eval set_F with beta=1)",
    source="McSherry & Najork 2008, section 2.3; trec_eval m_set_F.c",
    params=REL,
)
def f1(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """F1@k = 2 rel_ret / (k + num_rel) (McSherry & Najork 2008, 2.3); 0 when undefined."""
    den = _f1_cutoff(judged, m) + judged.num_rel(m.rel(judged))[None, :]
    return _safe_div(2.0 * num_rel_ret(judged, m), den)


@attach_kernel("F1")
def expected_f1(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[F1@k] = 2 (R_c + (k - t_c) r_c/n_c) / (k + |relevant|) (McSherry & Najork 2008, 2.3)."""
    den = _f1_cutoff(judged, m) + judged.num_rel(m.rel(judged))[None, :]
    return _safe_div(2.0 * expected_rel_ret(judged, m), den)


@attach_kernel("AP")
def expected_average_precision(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[AP@k] = sum_{j<=k} (r_i/n_i) (R_i + (j - t_i - 1)(r_i - 1)/(n_i - 1) + 1) / j,
    divided by |relevant| (McSherry & Najork 2008, section 2.4)."""
    g = tie_groups(judged, m.rel(judged))  # groups without a relevant item add nothing
    gi, j = g.expand(m.cutoff)
    r, n = g.count[gi].astype(np.float64), g.size[gi].astype(np.float64)
    others = _safe_div(r - 1.0, n - 1.0)  # (r_i - 1)/(n_i - 1); unused when n_i = 1
    slots = j - g.start_rank[gi] - 1.0  # j - t_i - 1
    contrib = r / n * (g.before[gi] + slots * others + 1.0) / j
    return _safe_div(g.segment_sum(gi, contrib), judged.num_rel(m.rel(judged))[None, :])


def _first_relevant_group(g: TieGroups, cutoff: np.ndarray | int | None) -> np.ndarray:
    """Index of the first group with a relevant item in each segment, if it starts
    within the cut-off."""
    first = np.ones(len(g.segment), bool)
    first[1:] = g.segment[1:] != g.segment[:-1]
    idx = np.flatnonzero(first)
    if cutoff is not None:
        k = cutoff if np.ndim(cutoff) == 0 else cutoff[g.segment[idx]]
        idx = idx[g.start_rank[idx] < k]
    return idx


@attach_kernel("RR")
def expected_reciprocal_rank(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[RR@k] = sum_{j=t_i+1}^{min(t_i+n_i, k)} P(first relevant at j) / j over the first
    group V_i holding a relevant item, P(first at t_i+x) = f(x-1, r_i, n_i) r_i/(n_i-x+1)
    (McSherry & Najork 2008, section 2.5)."""
    g = tie_groups(judged, m.rel(judged))
    idx = _first_relevant_group(g, m.cutoff)
    t = g.start_rank[idx].astype(np.float64)
    r = g.count[idx].astype(np.float64)
    n = g.size[idx].astype(np.float64)
    # positions x = 1..L; the first relevant item cannot lie beyond n - r + 1
    last = np.minimum(g.size[idx], g.size[idx] - g.count[idx] + 1)
    if m.cutoff is not None:
        last = np.minimum(last, m.cutoff - g.start_rank[idx])
    order = np.argsort(-last, kind="stable")
    t, r, n, last = t[order], r[order], n[order], last[order]
    neg_last = -last
    value = np.zeros(len(idx))
    none_yet = np.ones(len(idx))  # f(x-1, r, n)
    for x in range(1, int(last[0]) + 1 if len(idx) else 1):
        a = slice(0, int(np.searchsorted(neg_last, -x, side="right")))  # last >= x
        left = n[a] - x + 1.0  # items not yet placed
        value[a] += none_yet[a] * r[a] / left / (t[a] + x)
        none_yet[a] *= (left - r[a]) / left
    out = np.zeros(judged.n_segments)
    out[g.segment[idx][order]] = value
    return out.reshape(judged.n_runs, judged.n_queries)


@attach_kernel("Success")
def expected_success(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[Success@k] = 1 - P(no relevant item in the top k); with V_c the group
    holding rank k, that probability is [R_c = 0] f(k - t_c, r_c, n_c) (the
    argument of McSherry & Najork 2008, section 2.5)."""
    g = tie_groups(judged, m.rel(judged))
    idx = _first_relevant_group(g, m.cutoff)
    inside = np.minimum(g.size[idx], m.cutoff - g.start_rank[idx])
    miss = first_irrelevant_fraction(inside, g.count[idx], g.size[idx])
    out = np.zeros(judged.n_segments)
    out[g.segment[idx]] = 1.0 - miss
    return out.reshape(judged.n_runs, judged.n_queries)


@attach_kernel("Rprec")
def expected_r_precision(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[Rprec] = E[P@R] with R = |relevant| (McSherry & Najork 2008, 2.1, k = R)."""
    num_rel = judged.num_rel(m.rel(judged))
    return _safe_div(expected_rel_ret(judged, m, num_rel), num_rel[None, :])


@attach_kernel("RBP")
def expected_rbp(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[RBP(p)] = (1 - p) sum_j (r_i/n_i) p^(j-1): RBP is linear in per-position
    relevance (Moffat & Zobel 2008; McSherry & Najork 2008, the argument of 2.6)."""
    p = m.get("p")
    g = tie_groups(judged, m.rel(judged))
    gi, j = g.expand(m.cutoff)
    weights = (1.0 - p) * np.power(p, j - 1.0) * g.count[gi] / g.size[gi]
    return g.segment_sum(gi, weights)


def expected_dcg(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """(R, Q) E[DCG@k] = sum_i (mean gain of V_i) sum_{j in V_i, j<=k} 1/log2(j+1)
    (McSherry & Najork 2008, section 2.6); gain = grade (grades <= 0 gain nothing),
    or 2^grade - 1 with ``gain=exp``."""
    kind = m.get("gain") if "gain" in m.family.params else "linear"
    if kind == "linear":
        g = tie_groups(judged, None)  # groups with a positive gain; weight: their total gain
    else:
        marked = judged.items_with_grade(1).index
        g = TieGroups(judged, marked, gains(judged.grade[marked], kind))
    gi, j = g.expand(m.cutoff)
    return g.segment_sum(gi, g.weight[gi] / g.size[gi] * _discount(j - 1.0))


@attach_kernel("nDCG")
def expected_ndcg(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[nDCG@k] = E[DCG@k] / DCG@k of the ideal ranking (McSherry & Najork 2008, 2.6)."""
    ideal = ideal_dcg(judged, m.cutoff, m.get("gain"))
    return _safe_div(expected_dcg(judged, m), ideal[None, :])


if "DCG" in REGISTRY:
    attach_kernel("DCG")(expected_dcg)


@attach_kernel("gRBP")
def expected_graded_rbp(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[gRBP(p)] = (1 - p) sum_i (mean gain of V_i) sum_{j in V_i} p^(j-1) / top grade:
    linear in per-position gain, as RBP (McSherry & Najork 2008, the argument of 2.6)."""
    p = float(m.get("p"))
    g = tie_groups(judged, None)  # groups with a positive gain; weight: their total gain
    gi, j = g.expand(m.cutoff)
    top = np.maximum(_max_grade(judged), 1).astype(np.float64)
    return (1.0 - p) * g.segment_sum(gi, g.weight[gi] / g.size[gi] * np.power(p, j - 1.0)) / top

if "RelP" in REGISTRY:

    @attach_kernel("RelP")
    def expected_relative_precision(judged: JudgedRankings, m: Measure) -> np.ndarray:
        """E[RelP@k] = (R_c + (k - t_c) r_c / n_c) / min(k, R) (McSherry & Najork 2008, 2.1)."""
        num_rel = judged.num_rel(m.rel(judged))
        return _safe_div(expected_rel_ret(judged, m), np.minimum(m.cutoff, num_rel)[None, :])


if "Unj" in REGISTRY:

    @attach_kernel("Unj")
    def expected_unjudged(judged: JudgedRankings, m: Measure) -> np.ndarray:
        """E[Unj@k]: the argument of McSherry & Najork 2008, 2.1, for unjudged items."""
        return expected_marked(judged, tie_groups(judged, "unjudged"), m.cutoff) / m.cutoff


# ---- NCG: one record, its two kernels and its layouts, all here -----------------
def ideal_cg(judged: JudgedRankings, cutoff: int | None) -> np.ndarray:
    """(Q,) cumulative gain of the ideal ranking within the cut-off: the top k
    positive grades of the qrels, summed."""
    offsets, grades = judged.ideal_grades(1)
    q = np.repeat(np.arange(judged.n_queries), np.diff(offsets))
    rank0 = np.arange(len(grades)) - offsets[:-1][q]
    keep = rank0 < cutoff if cutoff is not None else np.ones(len(grades), bool)
    return np.bincount(q[keep], weights=grades[keep].astype(np.float64),
                       minlength=judged.n_queries)


@register(
    "NCG",
    examples=("NCG", "NCG@3"),
    range="[0, 1]",
    formula="NCG@k = CG@k / ideal CG@k, CG@k = sum_{i<=k} g(d_i), gain g = grade (grades "
    "<= 0 gain nothing); the ideal ranks the qrels by grade; 0 when no grade is positive",
    source="Jarvelin & Kekalainen, Cumulated gain-based evaluation of IR techniques, "
    "TOIS 2002, section 2.1 (CG) and 2.3 (normalised by the ideal vector)",
    notes="nDCG without the discount; no counterpart in trec_eval, ir_measures or ranx",
    description="Share of the ideal top-k gain the top k collects, order within the top k "
    "ignored. Tie policies: docid, input, expected (exact: linear in the ranking).",
)
def ncg(judged: JudgedRankings, m: Measure) -> np.ndarray:
    items = judged.items_with_grade(1)
    seg, gain = items.segment, judged.grade[items.index].astype(np.float64)
    if m.cutoff is not None:
        keep = items.rank < m.cutoff
        seg, gain = seg[keep], gain[keep]
    cg = np.bincount(seg, weights=gain, minlength=judged.n_segments)
    return _safe_div(cg.reshape(judged.n_runs, judged.n_queries),
                     ideal_cg(judged, m.cutoff)[None, :])


@attach_kernel("NCG")
def expected_ncg(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[CG@k] / ideal CG@k: every position j <= k of a tie group holding positive
    grades receives the group's mean gain w_c / n_c (McSherry & Najork 2008, 2.1)."""
    g = tie_groups(judged)
    gi, _ = g.expand(m.cutoff)
    return _safe_div(g.segment_sum(gi, g.weight[gi] / g.size[gi]),
                     ideal_cg(judged, m.cutoff)[None, :])


declare_compact("NCG")  # ranks and grades of the positive items only
declare_compact("NCG", expected=True)  # TieGroups: either layout


# F1 reads counts only; the kernels above read tie groups through TieGroups and
# expected_marked, which work from each item's rank and tie group in either
# layout (not "unjudged": the compact layout does not keep unjudged items)
declare_compact("F1")
declare_compact(
    "NumRelRet", "P", "R", "F1", "AP", "RR", "Success", "Rprec", "RBP", "nDCG", "DCG",
    "gRBP", "RelP", expected=True,
)
declare_compact(*(n for n in ORDER_FREE if REGISTRY[n].compact), expected=True)
