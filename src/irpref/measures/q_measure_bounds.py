"""Residual bounds of the Q-measure (:mod:`irpref.measures.q_measure`).

Write Q@k = (1/N) sum over relevant ranks r <= k of (C(r) + beta cg(r)) / d(r),
d(r) = r + beta cg*(r), N = min(R, k) (R without a cut-off). An assignment
gives the u unjudged documents a segment retrieved grades 0 .. T (T: the top
grade of the qrels); R' = R0 + j counts the j made relevant (grade >= rel).

Exact when T <= rel. Every document made relevant then has grade T = rel and
every judged relevant one too: all relevant gains equal g(T) =: g. For a
fixed j, R' and the ideal (R' gains g) are fixed, so d is a fixed increasing
function of the rank, and the sum is sum over pairs x <= y of relevant ranks
within k of (1 + beta g) / d(y). Moving relevance from rank b up to a free
rank a < b changes it by (1 + beta g) [(A + 1)(1/d(a) - 1/d(b)) + sum over
relevant x in (a, b) of (1/d(x) - 1/d(b))] >= 0 (A: relevant above a; a move
from beyond k only adds terms): the exchange argument, so for each j the top
j unjudged documents give the largest value and the bottom j the smallest,
and a scan over every j takes the extremes (:func:`_binary_scan`, one pass
per j without building the assignments; under expected ties, where a higher
tie group precedes a lower one in every ordering,
:func:`~irpref.measures.unjudged_scan.binary_scan_bounds`).

An outer bound when T > rel: an intermediate grade lowers a document's gain
but also the ideal's, so neither the extremes nor the grades {0, T} alone are
known to give them. Every assignment satisfies, position by position,

- C'(r) >= C0(r), cg'(r) >= cg0(r) (gains are positive) and cg*'(r) <=
  cg*T(r), the ideal with every unjudged document at T (the assignment's
  ideal gains, sorted, lie under those of the larger multiset);
- C'(r) <= C0(r) + U(r), cg'(r) <= cg0(r) + g(T) U(r) (U(r): unjudged
  documents above r) and cg*'(r) >= cg*0(r), the judged ideal's;
- BR'(r) <= 1 (C' <= r and cg' <= cg*').

Lower: every judged relevant term is at least its value against cg*T, every
other term at least 0, and N' <= min(R0 + u, k): Q' >= the value of the
ranking as judged against the qrels with every unjudged document at T (the
kernel itself on such qrels, :func:`~irpref.measures.bounds.assign` with the grades of
the ranking kept; under expected ties the expectation of that bound).
Upper: with A the sum over judged relevant ranks r <= k of min(1, BR_up(r))
(BR_up from the second line), and x <= u_in assigned relevant within k (each
term <= 1), Q' <= (A + x) / min(R0 + x, k) (N' is not smaller with more
relevant documents beyond k), non-decreasing in x as A <= min(R0, k): the
largest at x = u_in. Under expected ties A counts the judged relevant
documents, u_in the unjudged ones, whose tie group starts above k (each term
<= 1 in every ordering). A segment without an unjudged document keeps its
value.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from irpref.judging.judged import JudgedRankings
from irpref.measures.arithmetic import divide, within_segment_cumsum
from irpref.measures.base import Measure
from irpref.measures.bounds import assign, top_grade
from irpref.measures.gains import gains, ideal_gain_prefix
from irpref.measures.unjudged_scan import Pair, binary_scan_bounds, holds_value, unjudged_of

__all__ = ["OUTER_NOTE", "q_bounds"]

OUTER_NOTE = ("exact when the top grade is the relevance level (every assignment binary: a "
              "scan over j); with higher grades each term is bounded alone (an intermediate "
              "grade moves the ideal)")


@holds_value
def q_bounds(judged: JudgedRankings, m: Measure) -> Pair:
    """Q's residual interval: exact by a scan over j when T <= rel, else the outer
    bounds of the module docstring (which proves both)."""
    rel, top = m.rel(judged), top_grade(judged)
    if top <= rel:
        if judged.ties == "expected":
            return binary_scan_bounds(judged, m)
        return _binary_scan(judged, m, top)
    shape = (judged.n_runs, judged.n_queries)
    plain = m.compute(judged)
    u = unjudged_of(judged, rel)
    # lower: the ranking as judged, against the qrels of the all-T assignment
    at_top = dataclasses.replace(assign(judged, top), grade=judged.grade)
    lower = m.compute(at_top).reshape(shape)
    upper = _upper(judged, m, u.index, top)
    none = (u.count == 0).reshape(shape)
    return np.where(none, plain, lower), np.where(none, plain, upper)


def _binary_scan(judged: JudgedRankings, m: Measure, top: int) -> Pair:
    """The scan over j of :func:`~irpref.measures.unjudged_scan.binary_scan_bounds`
    when every relevant gain is g = gain(T) (ties docid, input), without building
    the assignments: with the top j (bottom j) unjudged documents relevant, Q =
    (1 + beta g) / N sum over relevant r <= k of C(r) / (r + beta g min(r, R0 + j)).
    One pass over the items of the segments with at least j unjudged ones, per j
    (segments laid out by decreasing count, so those items come first)."""
    rel, kind, beta = m.rel(judged), m.get("gain"), float(m.get("beta"))
    scale = beta * float(gains(np.array([top]), kind)[0])
    shape = (judged.n_runs, judged.n_queries)
    plain = m.compute(judged).reshape(-1)
    lower, upper = plain.copy(), plain.copy()
    u = unjudged_of(judged, rel)
    if not len(u.index):
        return lower.reshape(shape), upper.reshape(shape)
    # segments by decreasing unjudged count: the items of the first a segments lead
    order = np.argsort(-u.count, kind="stable")
    sizes = np.diff(judged.offsets)[order]
    local = np.repeat(np.arange(len(order)), sizes)  # the segment's place in ``order``
    start = np.concatenate(([0], np.cumsum(sizes)))
    item = np.arange(start[-1]) - start[:-1][local] + judged.offsets[:-1][order][local]
    nth = np.full(judged.n_items, -1, np.int64)
    nth[u.index] = u.nth
    nth, count = nth[item], u.count[order][local]
    rank1 = judged.rank[item] + 1.0
    judged_rel = (judged.grade >= rel)[item]
    inside = rank1 <= m.cutoff if m.cutoff is not None else np.ones(len(item), bool)
    r0 = np.tile(judged.num_rel(rel), judged.n_runs)[order].astype(np.float64)
    active_segments = np.searchsorted(-u.count[order], -np.arange(1, u.count.max() + 1),
                                      side="right")  # segments with >= j unjudged
    for j, a in enumerate(active_segments, start=1):
        n = start[a]
        big_r = r0[:a] + j
        norm = np.minimum(big_r, m.cutoff) if m.cutoff is not None else big_r
        den = rank1[:n] + scale * np.minimum(rank1[:n], big_r[local[:n]])
        for pick, keep, f in ((nth[:n] < j, upper, np.fmax),
                              (nth[:n] >= count[:n] - j, lower, np.fmin)):
            relevant = judged_rel[:n] | ((nth[:n] >= 0) & pick)
            hits = np.cumsum(relevant)
            hits -= np.concatenate(([0], hits))[start[:a]][local[:n]]
            total = np.bincount(local[:n], weights=np.where(relevant & inside[:n],
                                                            hits / den, 0.0), minlength=a)
            seg = order[:a]
            keep[seg] = f(keep[seg], (1.0 + scale) * total / norm)
    return lower.reshape(shape), upper.reshape(shape)


def _upper(judged: JudgedRankings, m: Measure, unjudged: np.ndarray, top: int) -> np.ndarray:
    """(R, Q) the upper bound (A + u_in) / min(R0 + u_in, k) of the module docstring."""
    rel, kind, beta = m.rel(judged), m.get("gain"), float(m.get("beta"))
    k = m.cutoff
    is_rel = judged.grade >= rel
    is_unj = np.zeros(judged.n_items, bool)
    is_unj[unjudged] = True
    if judged.ties == "expected":  # the largest counts over the orderings
        first, _ = judged.tie_group(np.arange(judged.n_items))
        inside = first < k if k is not None else np.ones(judged.n_items, bool)
        term = np.ones(judged.n_items)
    else:
        inside = judged.rank < k if k is not None else np.ones(judged.n_items, bool)
        gain = np.where(is_rel, gains(np.maximum(judged.grade, 0), kind), 0.0)
        above = within_segment_cumsum(judged, is_unj).astype(np.float64)
        count = within_segment_cumsum(judged, is_rel) + above
        cum_gain = within_segment_cumsum(judged, gain) + float(gains(np.array([top]), kind)[0]
                                                               ) * above
        offsets, prefix = ideal_gain_prefix(judged, rel, kind)
        q = judged.query_of_item
        ideal = prefix[offsets[:-1][q] + q + np.minimum(judged.rank + 1, np.diff(offsets)[q])]
        term = np.minimum(1.0, (count + beta * cum_gain) / (judged.rank + 1.0 + beta * ideal))
    a = np.bincount(judged.segment, weights=np.where(is_rel & inside, term, 0.0),
                    minlength=judged.n_segments)
    u_in = np.bincount(judged.segment, weights=(is_unj & inside).astype(np.float64),
                       minlength=judged.n_segments)
    big_r = np.tile(judged.num_rel(rel), judged.n_runs) + u_in
    if k is not None:
        big_r = np.minimum(big_r, k)
    return np.minimum(1.0, divide(a + u_in, big_r)).reshape(judged.n_runs, judged.n_queries)
