"""The exact largest value of a gain ratio (graded nDCG@k, NCG@k) over every
assignment of grades to the unjudged documents.

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

__all__ = ["largest_ratio"]


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
    growing while D does not fall, so no larger c does better."""
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
        ratio = np.zeros(len(active))
        np.divide(num, den, out=ratio, where=den > 0)
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
