"""Residual bounds of the rest of trec_eval (:mod:`irpref.measures.trec`), and
the interpolated precision curve its IPrec kernels and rules both read
(:func:`iprec`).

The residual interval of a measure (:mod:`irpref.measures.bounds`) ranges over every
assignment of grades ``0 .. top`` to the ``u`` unjudged documents a run
retrieved. Every measure here is *binary* (a document counts when its grade is
at least ``rel``), so an assignment matters only through the set of unjudged
documents it makes relevant, and through its size ``j`` (each one made relevant
adds one to R). The exact rules below share one scan
(:func:`~irpref.measures.unjudged_scan.scan_bounds`): for every ``j = 0 .. u``
the value of the *top-j* assignment (the first j unjudged documents in rank
order relevant) and of the *bottom-j* one (the last j), each an O(1) update of
the previous, over all runs x queries at once with cumulative sums; the
interval is the smallest and the largest of these. A rule proves, for its
measure, that for a fixed ``j`` no assignment lies outside [value(top-j),
value(bottom-j)] (an *exchange argument*: turning a relevant document into a
non-relevant one ranked above it never lowers the value); for order-free
measures every j-set gives the same value. No document can become relevant when
``top < rel``: then only ``j = 0``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from irpref.judging.judged import JudgedRankings
from irpref.measures.arithmetic import (
    divide,
    lround,
    suffix_max,
    trec_relevant,
    within_segment_cumsum,
)
from irpref.measures.base import TREC_RECALLS, Measure
from irpref.measures.bounds import assign, top_grade
from irpref.measures.unjudged_scan import Candidates, Pair, candidates, scan_bounds

__all__ = [
    "JUDGED_ONLY_NOTE",
    "OUTER_NOTE",
    "ap_sums",
    "bpref_bounds",
    "count_bounds",
    "gmap_bounds",
    "infap_bounds",
    "iprec",
    "iprec_average_bounds",
    "iprec_bounds",
    "nonrel_bounds",
    "relp_bounds",
    "rprec_mult_bounds",
    "yaap_bounds",
]

JUDGED_ONLY_NOTE = (
    "judged-only: an assignment judges every retrieved document, so the plain value "
    "(which skips unjudged ones) need not lie in [lower, upper]"
)

OUTER_NOTE = JUDGED_ONLY_NOTE + "; an outer bound"


def _per_seg_r(judged: JudgedRankings, rel: int) -> np.ndarray:
    """(S,) R of each segment's query."""
    return np.tile(judged.num_rel(rel), judged.n_runs).astype(np.float64)


# ---- order-free measures of (ret, rel ret, R) -----------------------------------
def count_bounds(judged: JudgedRankings, m: Measure) -> Pair:
    """Rule of the set measures, ``formula(ret, rr, R, m, judged)`` (the
    kernel's own arithmetic, ``m.family.kernel.formula``, on arrays).

    Proof: the retrieved set is fixed and only the number j of unjudged
    documents made relevant counts (rr = rr0 + j, R = R0 + j): the exact
    interval is the extremes of the formula over j = 0 .. u, a scan."""
    formula = m.family.kernel.formula
    rel = m.rel(judged)
    c = candidates(judged, rel)
    ret = judged.n_retrieved.astype(np.float64)
    r0 = _per_seg_r(judged, rel)
    rr0 = np.bincount(judged.segment, weights=trec_relevant(judged, rel).astype(np.float64),
                      minlength=judged.n_segments)
    base = formula(ret, rr0, r0, m, judged)
    s, j = c.seg, c.j.astype(np.float64)
    vals = formula(ret[s], rr0[s] + j, r0[s] + j, m, judged)
    return scan_bounds(judged, c, base, vals, vals)


def nonrel_bounds(judged: JudgedRankings, m: Measure) -> Pair:
    """NumNonRelJudgedRet: after an assignment making j of the u unjudged
    documents relevant, the other u - j are judged non-relevant: the value is
    n0 + u - j, exact over j = 0 .. u (j = 0 only when nothing can become
    relevant)."""
    rel = m.rel(judged)
    c = candidates(judged, rel)
    g = judged.grade
    n0 = judged.segment_count((g >= 0) & (g < rel)).astype(np.float64)
    u = c.count.reshape(n0.shape).astype(np.float64)
    return (n0 if c.movable else n0 + u), n0 + u


# ---- cut-off measures ----------------------------------------------------------
def _inclusion(judged: JudgedRankings, k: int) -> np.ndarray:
    """Per item, the probability it lies in the top k: 0/1 (docid, input) or,
    ties="expected", the share of its tie group above k (McSherry & Najork 2008)."""
    if judged.ties != "expected":
        return (judged.rank < k).astype(np.float64)
    first, size = judged.tie_group(np.arange(judged.n_items))
    return np.clip(k - first, 0, size) / size


def relp_bounds(judged: JudgedRankings, m: Measure) -> Pair:
    """RelP@k = hits@k / min(k, R), every tie policy.

    Proof: for a fixed j the denominator is fixed and the (expected) number of
    hits is the sum of each relevant item's chance w to lie in the top k, a
    value non-increasing in rank order (1/0, or a tie group's share): the j
    unjudged items of largest w are the first j, of smallest the last j.
    Scan over j."""
    rel, k = m.rel(judged), int(m.cutoff)
    c = candidates(judged, rel)
    w = _inclusion(judged, k)
    hits0 = np.bincount(judged.segment, weights=w * trec_relevant(judged, rel),
                        minlength=judged.n_segments)
    r0 = _per_seg_r(judged, rel)
    base = divide(hits0, np.minimum(k, r0))
    wc = w[c.index]
    s = c.seg
    top = (hits0[s] + c.prefix(wc)) / np.minimum(k, r0[s] + c.j)
    bottom = (hits0[s] + c.suffix(wc)) / np.minimum(k, r0[s] + c.j_bottom)
    return scan_bounds(judged, c, base, top, bottom)


def _at_cut(judged: JudgedRankings, cum: np.ndarray, seg: np.ndarray,
            cut: np.ndarray) -> np.ndarray:
    """Per (seg, cut) pair, the inclusive within-segment cumulative ``cum`` at
    rank ``cut - 1`` (0 for cut 0; the segment's total beyond its end)."""
    n = judged.n_retrieved[seg]
    k = np.minimum(cut, n)
    idx = judged.offsets[:-1][seg] + k - 1
    return np.where(k > 0, cum[np.maximum(idx, 0)] if len(cum) else 0.0, 0.0)


def rprec_mult_bounds(judged: JudgedRankings, m: Measure) -> Pair:
    """RprecMult(mult=x) = hits in the top c / c, c = floor(x R + 0.9).

    Proof: for a fixed j, c = c(R0 + j) is fixed and the value grows with the
    hits in the top c: the top-j assignment puts min(j, u_c) of the new
    relevant documents there (u_c: unjudged in the top c), the bottom-j one
    max(0, j - (u - u_c)), the most and the fewest possible. Scan over j."""
    rel = m.rel(judged)
    mult = float(m.get("mult"))
    c = candidates(judged, rel)
    crel = within_segment_cumsum(judged, trec_relevant(judged, rel))
    cunj = within_segment_cumsum(judged, judged.grade < 0)
    r0 = _per_seg_r(judged, rel)
    segs = np.arange(judged.n_segments)
    cut0 = (mult * r0 + 0.9).astype(np.int64)
    base = divide(_at_cut(judged, crel, segs, cut0), cut0.astype(np.float64))
    s, j, jb = c.seg, c.j, c.j_bottom
    u = c.count[s]

    def value(jj: np.ndarray, best: bool) -> np.ndarray:
        cut = (mult * (r0[s] + jj) + 0.9).astype(np.int64)
        uc = _at_cut(judged, cunj, s, cut)
        new = np.minimum(jj, uc) if best else np.maximum(0, jj - (u - uc))
        return divide(_at_cut(judged, crel, s, cut) + new, cut.astype(np.float64))

    return scan_bounds(judged, c, base, value(j, True), value(jb, False))


# ---- average precision ------------------------------------------------------
def ap_sums(judged: JudgedRankings, rel: int, c: Candidates
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(S0, S_top, S_bottom): the AP sum S = sum over relevant r of hits(r)/r
    with no unjudged relevant (S,), and per candidate with the top-j / bottom-j
    unjudged relevant.

    Adding the unjudged item at rank p (1-based) to a relevant set adds its
    own term (relevant above + 1)/p and 1/r for every relevant item below it
    at rank r: with the first j-1 unjudged already relevant, (h(p) + j)/p + T(p);
    with the last j-1, (h(p) + 1)/p + T(p) + U(p) (h: judged relevant above,
    T, U: sum of 1/r over the judged relevant / unjudged items below)."""
    is_rel = trec_relevant(judged, rel)
    inv = 1.0 / (judged.rank + 1.0)
    hits = within_segment_cumsum(judged, is_rel)
    s0 = np.bincount(judged.segment, weights=np.where(is_rel, hits * inv, 0.0),
                     minlength=judged.n_segments)
    rel_inv = within_segment_cumsum(judged, np.where(is_rel, inv, 0.0))
    total = np.bincount(judged.segment, weights=np.where(is_rel, inv, 0.0),
                        minlength=judged.n_segments)
    i, s = c.index, c.seg
    t_below = total[s] - rel_inv[i]
    p_inv = inv[i]
    d_top = (hits[i] + c.j) * p_inv + t_below
    d_bot = (hits[i] + 1.0) * p_inv + t_below + (c.suffix(p_inv) - p_inv)
    return s0, s0[s] + c.prefix(d_top), s0[s] + c.suffix(d_bot)


def _ap_sum_bounds(judged: JudgedRankings, m: Measure,
                   value: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Pair:
    """Bounds of a measure ``value(S, R)`` of the AP sum S, non-decreasing in S
    for a fixed R.

    Proof: S = sum over pairs of relevant items (a above or at b) of 1/b, so
    moving a relevant item from rank b up to a < b changes S by
    (1/a - 1/b)(1 + relevant above a) + sum over relevant x between of
    (1/x - 1/b) >= 0; for a fixed j (fixed R) the top-j assignment has the
    largest S, the bottom-j one the smallest. Scan over j (:func:`ap_sums`)."""
    rel = m.rel(judged)
    c = candidates(judged, rel)
    r0 = _per_seg_r(judged, rel)
    s0, top, bot = ap_sums(judged, rel, c)
    s = c.seg
    return scan_bounds(judged, c, value(s0, r0), value(top, r0[s] + c.j),
                       value(bot, r0[s] + c.j_bottom))


def gmap_bounds(judged: JudgedRankings, m: Measure) -> Pair:
    """GMAP's per-query AP = S / R, non-decreasing in the AP sum S for a fixed
    R: exact by the scan of :func:`_ap_sum_bounds` (the exchange argument there)."""
    return _ap_sum_bounds(judged, m, divide)


def yaap_bounds(judged: JudgedRankings, m: Measure) -> Pair:
    """YAAP = log((1 + S) / (1 + R - S)), non-decreasing in the AP sum S for a
    fixed R: exact by the scan of :func:`_ap_sum_bounds` (the exchange argument
    there)."""
    return _ap_sum_bounds(judged, m, lambda s, r: np.log((1.0 + s) / (1.0 + r - s)))


# ---- outer bounds ------------------------------------------------------------
def _movable_count(judged: JudgedRankings, c: Candidates) -> np.ndarray:
    return c.count.astype(np.float64) if c.movable else np.zeros(judged.n_segments)


def _judged_only_start(judged: JudgedRankings, m: Measure):
    """What both judged-only outer bounds start from: the level, the judged
    relevant items, per segment the unjudged items u that may become relevant
    and R0, and the upper bound (rr0 + u) / (R0 + u) (every term at most 1)."""
    rel = m.rel(judged)
    u = _movable_count(judged, candidates(judged, rel))
    is_rel = trec_relevant(judged, rel)
    rr0 = np.bincount(judged.segment, weights=is_rel.astype(np.float64),
                      minlength=judged.n_segments)
    r0 = _per_seg_r(judged, rel)
    return rel, is_rel, u, r0, divide(rr0 + u, r0 + u)


def bpref_bounds(judged: JudgedRankings, m: Measure) -> Pair:
    """Outer bound of Bpref = (1/R) sum over relevant r of
    (1 - min(n_r, R) / min(N, R)).

    Every term is in [0, 1], and after an assignment making j relevant the sum
    runs over rr0 + j items and R = R0 + j: upper = (rr0 + u) / (R0 + u).
    Lower: a judged relevant item keeps a term >= 1 - n_r / min(N0, R0), with
    n_r at most its judged non-relevant plus unjudged items above (N >= N0,
    R >= R0), over R <= R0 + u. The exact extremes move R and N together and
    are not worked out (an outer bound)."""
    rel, is_rel, u, r0, upper = _judged_only_start(judged, m)
    shape = (judged.n_runs, judged.n_queries)
    g = judged.qrels_grade
    keep = (g >= 0) & (g < rel)
    n0 = np.tile(np.bincount(judged.qrels_query[keep], minlength=judged.n_queries),
                 judged.n_runs).astype(np.float64)
    above = within_segment_cumsum(judged, ~is_rel) - (~is_rel)
    den = np.minimum(n0, r0)[judged.segment]
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(above == 0, 1.0, np.maximum(0.0, 1.0 - above / den))
    term = np.where(np.isfinite(term), term, 0.0)
    total = np.bincount(judged.segment, weights=np.where(is_rel, term, 0.0),
                        minlength=judged.n_segments)
    lower = divide(total, r0 + u)
    return lower.reshape(shape), upper.reshape(shape)


def infap_bounds(judged: JudgedRankings, m: Measure) -> Pair:
    """Outer bound of infAP = (1/R) sum over relevant k of
    1/k + (k-1)/k (|above| / (k-1)) (d+ + eps) / (d+ + d- + 2 eps).

    Each term lies in [1/k, 1]: upper = (rr0 + u) / (R0 + u); lower = the
    judged relevant items' 1/k over R0 + u. The exact extremes are not worked
    out (an outer bound)."""
    rel, is_rel, u, r0, upper = _judged_only_start(judged, m)
    shape = (judged.n_runs, judged.n_queries)
    inv = np.bincount(judged.segment, weights=np.where(is_rel, 1.0 / (judged.rank + 1.0), 0.0),
                      minlength=judged.n_segments)
    return divide(inv, r0 + u).reshape(shape), upper.reshape(shape)


def iprec(judged: JudgedRankings, rel: int, recall: float, r: np.ndarray | None = None
           ) -> np.ndarray:
    """(R, Q) interpolated precision at ``recall`` (m_iprec_at_recall.c, v10 rounding);
    ``r`` (S,): the R of each segment's target (default: its query's)."""
    is_rel = trec_relevant(judged, rel)
    hits = within_segment_cumsum(judged, is_rel)
    idx = np.flatnonzero(is_rel)
    seg = judged.segment[idx]
    prec = hits[idx] / (judged.rank[idx] + 1.0)
    best = suffix_max(prec, seg)  # max precision at or below each relevant item
    n_rr = np.bincount(seg, minlength=judged.n_segments)
    first = np.zeros(judged.n_segments + 1, np.int64)
    np.cumsum(n_rr, out=first[1:])
    r = np.tile(judged.num_rel(max(rel, 0)), judged.n_runs) if r is None else r
    target = lround(recall * r.astype(np.float64))
    ok = (target <= n_rr) & (n_rr > 0)
    out = np.zeros(judged.n_segments)
    pick = first[:-1][ok] + np.maximum(target[ok], 1) - 1
    out[ok] = best[pick]
    return out.reshape(judged.n_runs, judged.n_queries)


def _iprec_interval(judged: JudgedRankings, rel: int, x: float,
                  c: Candidates, full: JudgedRankings | None) -> Pair:

    shape = (judged.n_runs, judged.n_queries)
    r0 = _per_seg_r(judged, rel)
    plain = iprec(judged, rel, x)
    if full is None:  # nothing can become relevant
        return plain, plain.copy()
    # upper: the all-relevant ranking's precision curve at or below its c0-th
    # relevant item, c0 = lround(x R0) <= c(j)
    upper = iprec(full, rel, x, r=r0).reshape(shape)
    # lower: 0 when j = 0 has fewer than c relevant retrieved (then so has every
    # j: c(j) - j never grows); else the plain curve at or below rank p*, the
    # c_max-th judged relevant item (or the last rank), c_max = lround(x (R0+u))
    is_rel = trec_relevant(judged, rel)
    hits = within_segment_cumsum(judged, is_rel)
    rr0 = np.bincount(judged.segment, weights=is_rel.astype(np.float64),
                      minlength=judged.n_segments)
    c0 = lround(x * r0)
    cmax = np.maximum(lround(x * (r0 + c.count)), 1)
    ok = (c0 <= rr0) & (rr0 > 0)
    prec = hits / (judged.rank + 1.0)
    n = judged.n_retrieved
    tail = np.where(n > 0, rr0 / np.maximum(n, 1), 0.0)
    # p*: rank of the cmax-th judged relevant item; items at or after it
    at_or_after = (hits >= cmax[judged.segment]) & (cmax[judged.segment] <= rr0[judged.segment])
    cand = np.where(is_rel & at_or_after, prec, 0.0)
    best = np.zeros(judged.n_segments)
    if judged.n_items:
        np.maximum.at(best, judged.segment, cand)
    lower = np.where(ok, np.maximum(best, tail), 0.0)
    return lower.reshape(shape), upper


def iprec_bounds(judged: JudgedRankings, m: Measure) -> Pair:
    """Outer bound of IPrec(recall=x) = max of P@r over ranks r at or below the
    c-th relevant item, c = lround(x R).

    Upper: an assignment's precision curve lies under the all-relevant one and
    its c(j)-th relevant item (c(j) >= c0 = lround(x R0)) at or below the
    all-relevant ranking's c0-th: the all-relevant curve's maximum from its
    c0-th relevant item on. Lower: 0 if the plain value fails the 'c relevant
    retrieved' test (the all-non-relevant assignment scores 0); else (then every
    j passes it: c(j) - j never grows) the
    plain curve (under every assignment's) from the c_max-th judged relevant
    item on, or P at the last rank. Exact at x = 0 (the maximum of a curve
    that only grows); an outer bound otherwise."""
    rel = m.rel(judged)
    c = candidates(judged, rel)
    full = assign(judged, top_grade(judged)) if c.movable and len(c.index) else None
    return _iprec_interval(judged, rel, float(m.get("recall")), c, full)


def iprec_average_bounds(judged: JudgedRankings, m: Measure) -> Pair:
    """Outer bound of IPrecAvg: the mean of the 11 IPrec outer bounds (a bound of
    each term bounds the mean)."""

    rel = m.rel(judged)
    c = candidates(judged, rel)
    full = assign(judged, top_grade(judged)) if c.movable and len(c.index) else None
    lo = np.zeros((judged.n_runs, judged.n_queries))
    hi = np.zeros_like(lo)
    for x in sorted(TREC_RECALLS, reverse=True):
        a, b = _iprec_interval(judged, rel, x, c, full)
        lo, hi = lo + a, hi + b
    return lo / len(TREC_RECALLS), hi / len(TREC_RECALLS)
