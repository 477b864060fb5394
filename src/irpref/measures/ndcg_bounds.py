"""Residual bounds of the gain ratios over an ideal ranking (nDCG@k, NCG@k),
exact: :func:`gain_ratio_bounds`, whose largest value over every assignment of
grades to the unjudged documents comes from :func:`largest_ratio`.

Write an assignment as its grades a_1 >= a_2 >= ... on the unjudged documents
in the order of their weights w_1 >= w_2 >= ... (the discount of each one's
rank, 0 beyond the cut-off; a larger grade on a larger weight never lowers
the numerator and leaves the ideal unchanged, so sorted assignments suffice).
With c_h = #{l : a_l >= h} (c_1 >= c_2 >= ... >= c_T) and Dg_h = gain(h) -
gain(h - 1), both sides split by grade layer:

    N(c) = N0 + sum_h Dg_h W(c_h),          W(c) = w_1 + ... + w_c,
    I(c) = sum_h Dg_h D(J_h + c_h),         D(n) = d_1 + ... + d_min(n, k),

J_h being the judged documents of grade >= h: the ideal ranking's p-th gain
is at least gain(h) exactly when p <= J_h + c_h. The ratio N / I is maximised
by Dinkelbach's method (Dinkelbach, Management Science 13(7) 1967): for
lambda, maximise N(c) - lambda I(c), whose terms separate by layer,
phi_h(c) = W(c) - lambda D(J_h + c); since J_h falls with h and d does not
increase, phi_h - phi_h' (h < h') never decreases in c, so the largest
maximiser of each layer already satisfies c_1 >= ... >= c_T (Topkis, 1978);
then lambda <- N / I until it stops rising. Each round is one pass over the
(segment, c) pairs per layer, for all segments at once.
"""

from __future__ import annotations

import numpy as np

from irpref.judging.judged import JudgedRankings
from irpref.measures.arithmetic import divide
from irpref.measures.base import Measure
from irpref.measures.unjudged_scan import Unjudged, holds_value, position_weights, unjudged_of
from irpref.runtime.native import native

__all__ = ["gain_ratio_bounds", "largest_ratio"]


def largest_ratio(w: np.ndarray, count: np.ndarray, seg_query: np.ndarray, n0: np.ndarray,
                  layer_gain: np.ndarray, judged_at_least: np.ndarray, dcum: np.ndarray,
                  start: np.ndarray | None = None, rounds: int = 100) -> np.ndarray:
    """(S,) max over assignments of N / I (0 where I is 0 for every one).

    w: the unjudged documents' weights, segment by segment, non-increasing
    within each (``count[s]`` of segment s); seg_query: (S,) query of each
    segment; n0: (S,) the judged numerator; layer_gain: (T,) Dg_1 .. Dg_T;
    judged_at_least: (Q, T) J_1 .. J_T; dcum: D(0 .. n), constant from the
    cut-off on, long enough for every J_h + count; start: (S,) the ratio of
    some assignment (Dinkelbach starts there; 0 by default).

    Only c up to the number of positive weights is scanned: beyond, W stops
    growing while D does not fall, so no larger c does better. (The C kernel
    ``irpref._native.kernels.gain_ratio_bounds`` runs the same rounds per segment.)"""
    n_s = len(count)
    item_seg = np.repeat(np.arange(n_s), count)
    within = np.arange(len(w)) - np.repeat(np.cumsum(count) - count, count)
    positive = w > 0
    reach = np.bincount(item_seg[positive], minlength=n_s)  # a prefix of each segment
    offsets = np.zeros(n_s + 1, np.int64)
    np.cumsum(reach + 1, out=offsets[1:])
    pair_seg = np.repeat(np.arange(n_s), reach + 1)
    c = np.arange(offsets[-1]) - offsets[:-1][pair_seg]
    flat = np.zeros(offsets[-1])
    flat[offsets[:-1][item_seg[positive]] + within[positive] + 1] = w[positive]
    total = np.cumsum(flat)
    big_w = total - total[offsets[:-1]][pair_seg]  # W(c) of each pair
    q = seg_query[pair_seg]
    ideal = [dcum[judged_at_least[:, h][q] + c] for h in range(len(layer_gain))]
    best = np.zeros(n_s) if start is None else np.asarray(start, np.float64).copy()
    active = np.arange(n_s)  # segments whose ratio may still rise
    local = pair_seg  # each pair's position in ``active``
    first = offsets[:-1]  # where each active segment's pairs start
    if start is not None:
        # F(lambda) = max_c N(c) - lambda I(c) = N0 + sum_h Dg_h max_c phi_h(c):
        # where it is <= 0 no assignment beats the start, already the largest
        lam = best[pair_seg]
        f = n0.astype(np.float64).copy()
        for h, dg in enumerate(layer_gain):
            f += dg * np.maximum.reduceat(big_w - lam * ideal[h], first)
        active = np.flatnonzero(f > 0)
        keep = np.isin(pair_seg, active) if len(active) < n_s else np.ones(len(c), bool)
        sizes = (reach + 1)[active]
        first = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
        local = np.repeat(np.arange(len(active)), sizes)
        c, big_w = c[keep], big_w[keep]
        ideal = [x[keep] for x in ideal]
    for _ in range(rounds):
        if not len(active):
            break
        lam = best[active]
        lam_pair = lam[local]
        ends = np.append(first[1:], len(local))
        num = n0[active].astype(np.float64)
        den = np.zeros(len(active))
        phi = np.empty(len(local))
        for h, dg in enumerate(layer_gain):
            np.multiply(lam_pair, ideal[h], out=phi)
            np.subtract(big_w, phi, out=phi)
            top = np.maximum.reduceat(phi, first)
            hits = np.flatnonzero(phi == top[local])
            pick = hits[np.searchsorted(hits, ends) - 1]  # the largest maximiser
            num += dg * big_w[pick]
            den += dg * ideal[h][pick]
        ratio = divide(num, den)
        rising = ratio > lam
        if not rising.any():
            break
        best[active[rising]] = ratio[rising]
        keep = rising[local]
        active = active[rising]
        sizes = np.diff(np.append(first, len(local)))[rising]
        first = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
        local = np.repeat(np.arange(len(active)), sizes)
        c, big_w = c[keep], big_w[keep]
        ideal = [x[keep] for x in ideal]
    return best


# ---- graded gains over an ideal ranking (nDCG, NCG) ------------------------------
@holds_value
def gain_ratio_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """nDCG@k and NCG@k: (N0 + assigned gain x weight) / ideal(assignment).

    Lower, exact: as a function of one document's gain x (others fixed) the value
    is linear / convex (the ideal is a maximum over orderings of linear functions
    of x), so it is quasi-concave and its minimum over [0, gain(T)] is at an end:
    some minimizing assignment uses grades {0, T} only. With j documents at T the
    ideal is fixed and the bottom j give the least gain x weight (weights
    non-increasing down the ranking): a scan over j of bottom-j at T.

    Upper, exact: the largest ratio over every assignment (:func:`largest_ratio`,
    by grade layers and Dinkelbach's method, started from the best top j at T).
    NCG under ties docid/input reaches it with every unjudged document within
    the cut-off at T ((a + x) / I(x) with I' <= 1 and I >= a + x only grows;
    one beyond the cut-off only raises the ideal). Custom gains (``gains=``): no
    bound (NaN): they need not grow with the grade."""
    shape = (judged.n_runs, judged.n_queries)
    if "gains" in m.family.params and m.get("gains") is not None:
        nan = np.full(shape, np.nan)
        return nan, nan
    if m.name == "NCG":
        def table(n: int) -> np.ndarray:
            return np.ones(n)

        def gain_of(g: np.ndarray) -> np.ndarray:
            return np.asarray(g, np.float64)
    else:
        def table(n: int) -> np.ndarray:
            return 1.0 / np.log2(np.arange(n) + 2.0)

        def gain_of(g: np.ndarray) -> np.ndarray:
            g = np.asarray(g, np.float64)
            return np.exp2(g) - 1.0 if m.get("gain") == "exp" else g
    u = unjudged_of(judged, 1)
    n_tab = table(int(judged.n_retrieved.max(initial=0)) + 1)
    pos = judged.items_with_grade(1)
    w_pos = position_weights(judged, m, pos.index, n_tab, pos.rank)
    w_pos *= gain_of(judged.grade[pos.index])
    n0 = np.bincount(pos.segment, weights=w_pos, minlength=judged.n_segments)
    g_top = float(gain_of(np.array([u.top]))[0]) if u.top >= 1 else 0.0
    n0 = n0.astype(np.float64)
    layer_gain, at_least, dcum = _layers(judged, m, u, table, gain_of)
    seg_query = np.arange(judged.n_segments) % judged.n_queries
    kernels = native("kernels")
    if kernels is not None:  # both bounds, one pass per segment in C
        lead, w = _weighted(judged, m, u, n_tab)
        lower, upper = np.empty(judged.n_segments), np.empty(judged.n_segments)
        kernels.gain_ratio_bounds(
            np.ascontiguousarray(w, np.float64), np.ascontiguousarray(lead.count, np.int64),
            np.ascontiguousarray(u.count, np.int64), seg_query, n0, layer_gain, at_least, dcum,
            g_top, lower, upper)
        return lower.reshape(shape), upper.reshape(shape)

    def ideal(seg: np.ndarray, j: np.ndarray) -> np.ndarray:
        """The ideal of each segment's query with j more documents at the top grade."""
        return dcum[at_least[seg_query[seg]] + np.asarray(j)[:, None]] @ layer_gain

    segments = np.arange(judged.n_segments)
    at0 = divide(n0, ideal(segments, np.zeros(judged.n_segments, np.int64)))
    if not len(u.index):
        return at0.reshape(shape), at0.reshape(shape)
    lead, w = _weighted(judged, m, u, n_tab)
    low0 = np.minimum(at0, divide(n0, ideal(segments, u.count - lead.count)))
    if not len(lead.index):
        return low0.reshape(shape), at0.reshape(shape)
    reach, low = lead.head_tail(w * g_top, n0)
    # the bottom j = u_s - nth of the segment start at the item; the top j end there
    bottom_j = np.repeat(u.count, lead.count) - lead.nth
    lower = lead.extreme(low0, divide(low, ideal(lead.segment, bottom_j)), "min")
    top_j = lead.extreme(at0, divide(reach, ideal(lead.segment, lead.item_j)), "max")
    if m.name == "NCG" and judged.ties != "expected":
        return lower, top_j
    upper = largest_ratio(w, lead.count, seg_query, n0, layer_gain, at_least, dcum,
                          top_j.ravel())
    return lower, upper.reshape(shape)


def _weighted(judged: JudgedRankings, m: Measure, u: Unjudged, n_tab: np.ndarray
              ) -> tuple[Unjudged, np.ndarray]:
    """The unjudged items with a weight (a prefix of each segment's) and their
    weights; the others only raise the ideal."""
    if judged.ties != "expected":
        lead = u.ranked_before(m.cutoff)
        return lead, position_weights(judged, m, lead.index, n_tab, lead.rank)
    return u.leading(position_weights(judged, m, u.index, n_tab, u.rank))


def _layers(judged: JudgedRankings, m: Measure, u: Unjudged, table, gain_of
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dg_1 .. Dg_T, J_h per query (Q, T) and D(0 .. n) cut at the cut-off: the
    ideal with j more documents of grade >= h reads sum_h Dg_h D(J_h + j)."""
    top = max(u.top, 1)
    layer_gain = np.diff(gain_of(np.arange(top + 1)))
    qg, qq = judged.qrels_grade, judged.qrels_query
    at_least = np.stack([np.bincount(qq[qg >= h], minlength=judged.n_queries)
                         for h in range(1, top + 1)], axis=1).astype(np.int64)
    d = table(int(at_least.max(initial=0)) + int(u.count.max(initial=0)) + 1)
    if m.cutoff is not None:
        d[m.cutoff:] = 0.0
    return layer_gain, at_least, np.concatenate(([0.0], np.cumsum(d)))
