"""Residual bounds of trec_eval's gain-based measures
(:mod:`irpref.measures.trec_gain`): gRBP exact (:func:`graded_rbp_bounds`);
nDCGRel, RnDCG and G guaranteed outer bounds.

nDCGRel, RnDCG and G read DCG (or G's cost) against an ideal ranking at ranks
that move with the assignment (every relevant document's rank, the ideal's
level boundaries, the ideal gains inside G's discount), so the exchange
argument of :mod:`irpref.measures.rank_bounds` does not hold and no exact
rule is known. Each rule below bounds every term of the measure between two
assignment-free values and the number of terms by its range, which gives an
interval that holds every outcome (the brute-force property tests check it).

Shared facts (T: the top grade, u: the unjudged documents of the segment, L0
and IDCG0: the judged ideal ranking, grades >= 1 descending). Any assignment
inserts at most u grades <= T into the ideal, so position by position
    ideal0 <= ideal' <= idealT = (T x u, then ideal0),
hence IDCG0(c) <= IDCG'(c) <= IDCG_up(c) = T D(min(c, u)) + IDCG0(max(0, c - u))
(D(n) = sum_{i<n} 1/log2(i + 2); the shifted judged gains are discounted no
less than at their own position), and, with gains retrieved above rank i,
DCG0(i) <= DCG'(i) <= DCGmax(i) = DCG0(i) + T x (discounts of the unjudged
documents down to i).
"""

from __future__ import annotations

import numpy as np

from irpref.judging.judged import JudgedRankings
from irpref.measures.arithmetic import (
    divide,
    exact_cumsum,
    power_table,
    segment_last,
    within_segment_cumsum,
)
from irpref.measures.base import Measure
from irpref.measures.unjudged_scan import holds_value, position_weights, unjudged_of

__all__ = ["OUTER_NOTE", "g_bounds", "graded_rbp_bounds", "ndcg_rel_bounds", "r_ndcg_bounds"]

OUTER_NOTE = ("every term bounded alone between the judged ideal and the ideal with "
              "every unjudged document at the top grade (no exact rule known: the ranks read "
              "move with the assignment)")


class _Frame:
    """Per-item and per-segment pieces every rule reads (one pass each)."""

    def __init__(self, judged: JudgedRankings) -> None:
        self.judged = judged
        u = unjudged_of(judged, 1)  # empty when the top grade is 0: nothing changes
        self.top = float(max(u.top, 0))
        self.u = u.count  # (S,) unjudged documents that can gain a grade
        self.unjudged = u.index
        q = judged.query_of_item
        self.seg_q = np.tile(np.arange(judged.n_queries), judged.n_runs)
        offsets, grades = judged.ideal_grades(1)
        self.l0 = np.diff(offsets)  # (Q,) judged documents with a grade >= 1
        n = int(max(judged.n_retrieved.max(initial=0), 1)) + int(self.l0.max(initial=0)) + 2
        self.disc = 1.0 / np.log2(np.arange(n) + 2.0)
        self.dcum = np.concatenate(([0.0], np.cumsum(self.disc)))  # D(n)
        rank0 = np.arange(len(grades)) - offsets[:-1][np.repeat(np.arange(judged.n_queries),
                                                               self.l0)]
        # flat prefixes with a 0 before every query: entry offsets[q] + q + c
        self.istart = offsets[:-1] + np.arange(judged.n_queries)
        self.idcg0 = _prefixed(grades * self.disc[rank0], offsets)
        self.ip0 = _prefixed(grades.astype(np.float64), offsets)  # undiscounted
        gain = np.where(judged.grade > 0, judged.grade, 0).astype(np.float64)
        self.gain = gain
        self.dcg0 = exact_cumsum(gain * self.disc[judged.rank], judged.offsets)  # inclusive
        extra = np.zeros(judged.n_items)
        extra[u.index] = self.top * self.disc[judged.rank[u.index]]
        self.dcgmax = self.dcg0 + within_segment_cumsum(judged, extra)
        self.item_q = q

    def end(self, per_item: np.ndarray) -> np.ndarray:
        """(S,) the last item's value of every segment (0 where empty)."""
        return segment_last(per_item, self.judged.offsets)

    def idcg0_at(self, q: np.ndarray, c: np.ndarray) -> np.ndarray:
        """IDCG0 of the first c ideal positions (c clipped to L0)."""
        return self.idcg0[self.istart[q] + np.clip(c, 0, self.l0[q])]

    def idcg_up(self, q: np.ndarray, s: np.ndarray, c: np.ndarray) -> np.ndarray:
        """IDCG_up(c) >= IDCG'(c) for every assignment (module docstring)."""
        u = self.u[s]
        return self.top * self.dcum[np.minimum(c, u)] + self.idcg0_at(q, c - u)

    def shape(self, values: np.ndarray) -> np.ndarray:
        return values.reshape(self.judged.n_runs, self.judged.n_queries)

    def outside(self, lower: np.ndarray, upper: np.ndarray, m: Measure
                ) -> tuple[np.ndarray, np.ndarray]:
        """Segments with nothing to assign keep the plain value."""
        v = m.compute(self.judged)
        none = self.shape(self.u == 0)
        return (np.where(none, v, self.shape(lower)), np.where(none, v, self.shape(upper)))


def _prefixed(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Inclusive per-query cumulative sums with a 0 before each query."""
    n_q = len(offsets) - 1
    out = np.zeros(len(values) + n_q)
    if len(values):
        q = np.repeat(np.arange(n_q), np.diff(offsets))
        out[np.arange(len(values)) + q + 1] = exact_cumsum(values, offsets)
    return out


def _segment_min(f: _Frame, index: np.ndarray, values: np.ndarray) -> np.ndarray:
    out = np.full(f.judged.n_segments, np.inf)
    np.minimum.at(out, f.judged.segment[index], values)
    return out


# ---- gRBP: exact --------------------------------------------------------------
@holds_value
def graded_rbp_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """gRBP = (1 - p) sum_i g_i w_i / D, w_i = p^(i-1) within the cut-off, D =
    max(1, highest grade of the query, assigned grades included: trec_eval's
    scaling). With D0 = max(1, judged highest grade) and S0 the judged sum:

    upper: grades up to D0 keep D = D0 and add g w; a top grade m > D0 gives
    (S0 / m + sum w) at best, less than with every unjudged at D0; so all
    unjudged at min(T, D0): (1 - p)(S0 + min(T, D0) W) / D0.
    lower: with no grade above D0 at least S0 / D0 (all 0); with highest assigned
    grade m > D0 at least (S0 + m w_min) / m (one document at m, the least
    weight w_min of any unjudged document, beyond the cut-off included), least at
    m = T: (1 - p) min(S0 / D0, S0 / T + w_min). Exact (expected ties: group-mean
    weights, the same argument)."""
    p = float(m.get("p"))
    table = power_table(p, judged)
    pos = judged.items_with_grade(1).index
    s0 = np.bincount(judged.segment[pos], minlength=judged.n_segments,
                     weights=position_weights(judged, m, pos, table) * judged.grade[pos])
    d0 = np.maximum(judged.max_grade(), 1).astype(np.float64)
    d0 = np.tile(d0, judged.n_runs)
    u = unjudged_of(judged, 1)
    w = position_weights(judged, m, u.index, table)
    total = np.bincount(u.segment, weights=w, minlength=judged.n_segments)
    w_min = np.full(judged.n_segments, np.inf)
    np.minimum.at(w_min, u.segment, w)
    top = float(u.top)
    upper = (1.0 - p) * (s0 + np.minimum(top, d0) * total) / d0
    lower = s0 / d0
    if top >= 1:
        lower = np.minimum(lower, np.where(top > d0, s0 / top + w_min, np.inf))
    shape = (judged.n_runs, judged.n_queries)
    return ((1.0 - p) * lower).reshape(shape), upper.reshape(shape)


# ---- nDCGRel, RnDCG, G: outer bounds -----------------------------------------
@holds_value
def ndcg_rel_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """nDCGRel = (1/L') [sum over retrieved d with gain > 0 of t_d + missing x t_end],
    t_d = DCG'(rank d) / IDCG'(min(rank d, L')), t_end = DCG'_end / IDCG'_end, L' =
    L0 + j (j documents made relevant; ``missing`` = judged relevant documents not
    retrieved, unchanged). Every t lies in [0, 1].

    Upper: a judged d has t_d <= min(1, DCGmax(d) / IDCG0(min(rank, L0))), an
    assigned one t <= 1, so nDCGRel <= (A + j) / (L0 + j) with A <= L0 the sum of
    the judged terms' bounds: increasing in j, largest at j = u.
    Lower (j >= 1; j = 0 is the plain value): t_d >= DCG0(d) / IDCG_up(min(rank,
    L0 + u)), an assigned document at rank r has t >= (DCG0(r) + 1/log2(r + 1)) /
    IDCG_up(min(r, L0 + u)) >= c (the least over the unjudged), so nDCGRel >= (B +
    j c) / (L0 + j), monotone in j: the least of j = 1 and j = u. Outer bounds."""
    f = _Frame(judged)
    seg = judged.segment
    pos = np.flatnonzero(f.gain > 0)
    ps, pq, c = seg[pos], f.item_q[pos], judged.rank[pos] + 1
    l0 = f.l0[f.seg_q].astype(np.float64)
    u = f.u.astype(np.float64)
    missing = l0 - np.bincount(ps, minlength=judged.n_segments)
    t_max = np.minimum(1.0, divide(f.dcgmax[pos], f.idcg0_at(pq, np.minimum(c, f.l0[pq]))))
    end_max = np.minimum(1.0, divide(f.end(f.dcgmax), f.idcg0_at(f.seg_q, f.l0[f.seg_q])))
    a = np.bincount(ps, weights=t_max, minlength=judged.n_segments) + missing * end_max
    upper = divide(a + u, l0 + u)
    reach = f.l0[f.seg_q] + f.u  # L0 + u
    t_min = divide(f.dcg0[pos], f.idcg_up(pq, ps, np.minimum(c, reach[ps])))
    end_min = divide(f.end(f.dcg0), f.idcg_up(f.seg_q, np.arange(judged.n_segments), reach))
    b = np.bincount(ps, weights=t_min, minlength=judged.n_segments) + missing * end_min
    ui = f.unjudged
    us, uc = seg[ui], judged.rank[ui] + 1
    cu = divide(f.dcg0[ui] + f.disc[uc - 1], f.idcg_up(f.item_q[ui], us, np.minimum(uc, reach[us])))
    c_min = np.where(f.u > 0, np.minimum(_segment_min(f, ui, cu), 1.0), 0.0)
    lower = np.minimum(divide(b + c_min, l0 + 1.0), divide(b + u * c_min, l0 + u))
    return f.outside(lower, upper, m)


@holds_value
def r_ndcg_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """RnDCG = the mean, over the ideal's level boundaries b' (1 .. L'; and the
    end when the ranking is 2 longer than the ideal), of DCG'(min(b', n)) /
    IDCG'(b'); 0 when no document reaches ``rel``. A mean lies between its least
    and largest term.

    Upper: every term <= DCGmax_end / IDCG0(1) and <= 1 (b' >= 1).
    Lower (the plain value covers the assignments that leave R = 0): b' lies in 1
    .. L0 + u, and a term at b' is >= g(b') = DCG0(min(b', n)) / IDCG_up(b'); the
    extra end term >= DCG0_end / IDCG_up(L0 + u). g falls between two judged
    relevant ranks (IDCG_up grows, DCG0 does not), so its least value is at b =
    L0 + u or just above a judged relevant document (b = its rank - 1, counting
    from 1). Outer bounds."""
    f = _Frame(judged)
    seg = judged.segment
    s_all = np.arange(judged.n_segments)
    reach = f.l0[f.seg_q] + f.u  # L0 + u
    first = f.idcg0_at(f.seg_q, np.ones(judged.n_segments, np.int64))
    upper = np.where(f.l0[f.seg_q] > 0, np.minimum(1.0, divide(f.end(f.dcgmax), first)), 1.0)
    n = judged.n_retrieved
    dcg_end = f.end(f.dcg0)
    at_reach = divide(_dcg_at(f, np.minimum(reach, n)), f.idcg_up(f.seg_q, s_all, reach))
    lower = np.minimum(at_reach, divide(dcg_end, f.idcg_up(f.seg_q, s_all, reach)))
    pos = np.flatnonzero(f.gain > 0)
    ps, b = seg[pos], judged.rank[pos]  # b = items above the relevant document
    keep = (b >= 1) & (b <= reach[ps])
    pos, ps, b = pos[keep], ps[keep], b[keep]
    g = divide(f.dcg0[pos - 1], f.idcg_up(f.item_q[pos], ps, b))  # DCG0 of the b items above
    lower = np.minimum(lower, _segment_min(f, pos, g))
    return f.outside(lower, upper, m)


def _dcg_at(f: _Frame, c: np.ndarray) -> np.ndarray:
    """(S,) DCG0 of the first c items of every segment (c <= its length)."""
    judged = f.judged
    out = np.zeros(judged.n_segments)
    has = c > 0
    out[has] = f.dcg0[judged.offsets[:-1][has] + c[has] - 1]
    return out


@holds_value
def g_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """G = sum_i g_i / log2(2 + C_i - S_i) / I (C_i: ideal gains, at least 1 each,
    over the first i positions; S_i: the gain retrieved there; I: the ideal's
    total). With A = the assigned gain (0 .. T u), I' = I0 + A, C0 <= C' <= CT
    (ideal0 <= ideal' <= idealT) and S0_i <= S'_i <= S0_i + T U_i (U_i: unjudged
    down to i), C' - S' >= 0:

    Upper: a judged term <= g / log2(2 + max(0, C0_i - S0_i - T U_i)), an
    assigned one <= a_i, so G <= (N_max + A) / (I0 + A), increasing in A (N_max
    <= I0): largest at A = T u.
    Lower (A >= 1; A = 0 is the plain value): a judged term >= g / log2(2 + CT_i -
    S0_i); an assigned one >= a_i / log2(1 + CT_i - S0_i) >= a_i c (the least over
    the unjudged), so G >= (N_min + c A) / (I0 + A), monotone in A: the least of
    A = 1 and A = T u. Outer bounds."""
    f = _Frame(judged)
    seg = judged.segment
    top = f.top
    cnt = judged.rank + 1
    q = f.item_q
    l0 = f.l0[q]
    s0 = within_segment_cumsum(judged, f.gain)
    unj = np.zeros(judged.n_items)
    unj[f.unjudged] = 1.0
    u_i = within_segment_cumsum(judged, unj)
    u = f.u[seg]

    def cost0(c: np.ndarray) -> np.ndarray:
        return f.ip0[f.istart[q] + np.minimum(c, l0)] + np.maximum(0, c - l0)

    cost_t = (top * np.minimum(cnt, u) + f.ip0[f.istart[q] + np.clip(cnt - u, 0, l0)]
              + np.maximum(0, cnt - u - l0))
    pos = f.gain > 0
    g = f.gain
    with np.errstate(divide="ignore", invalid="ignore"):
        n_max = np.where(pos, g / np.log2(2.0 + np.maximum(0.0, cost0(cnt) - s0 - top * u_i)), 0.0)
        n_min = np.where(pos, g / np.log2(2.0 + cost_t - s0), 0.0)
    i0 = f.ip0[f.istart + f.l0][f.seg_q]  # I0 per segment
    a_max = top * f.u
    upper = divide(judged.segment_sum(n_max).ravel() + a_max, i0 + a_max)
    ui = f.unjudged
    cu = 1.0 / np.log2(1.0 + np.maximum(1.0, cost_t[ui] - s0[ui]))
    c_min = np.where(f.u > 0, _segment_min(f, ui, cu), 0.0)
    nm = judged.segment_sum(n_min).ravel()
    lower = np.minimum(divide(nm + c_min, i0 + 1.0), divide(nm + c_min * a_max, i0 + a_max))
    return f.outside(lower, upper, m)
