"""Residual bounds of the rank-based measures (the rules their records declare).

For one run and query the residual interval of a measure is its smallest and
largest value over every assignment of grades ``0 .. T`` (``T``: the highest
grade of the qrels, :func:`irpref.measures.bounds.top_grade`) to the unjudged
documents the run retrieved, the number of relevant documents (the ideal
ranking) counting those made relevant (:mod:`irpref.measures.bounds`). Measures that
never fall as a document gains a grade declare ``bounds="monotone"`` in their
record; the others declare a rule from this module, whose docstring proves it.

Two facts carry the proofs here. (1) A binary measure (relevant: grade >=
``rel``) only sees whether each unjudged document reaches ``rel``: grades
``{0, T}`` give every value (none when ``T < rel``). (2) *Exchange* (for AP,
R@k, F1, Rprec; under ``ties="expected"`` the value depends on how many
members of a tie group are relevant, and a higher group precedes a lower one
in every ordering): for each j the top j unjudged documents give the largest
value and the bottom j the smallest, and a scan over j takes the extremes
(:mod:`irpref.measures.unjudged_scan`). Every rule runs on all runs x queries
at once.
"""

from __future__ import annotations

import numpy as np

from irpref.judging.judged import JudgedRankings
from irpref.measures.arithmetic import divide
from irpref.measures.base import Measure
from irpref.measures.unjudged_scan import (
    binary_scan_bounds,
    holds_value,
    position_weights,
    unjudged_of,
)
from irpref.runtime.native import native

__all__ = ["ap_bounds", "f1_bounds", "recall_bounds", "rprec_bounds", "unchanged_bounds"]


def _ones(judged: JudgedRankings) -> np.ndarray:
    return np.ones(int(judged.n_retrieved.max(initial=0)) + 1)


def _relevant_retrieved(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """(S,) relevant items within the cut-off (expected number under expected ties)."""
    items = judged.items_with_grade(m.rel(judged))
    w = position_weights(judged, m, items.index, _ones(judged), items.rank)
    return np.bincount(items.segment, weights=w, minlength=judged.n_segments).astype(
        np.float64, copy=False)  # (an empty bincount is int64)


@holds_value
def unchanged_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """No assignment of grades changes the value (NumRet counts documents, not grades)."""
    v = m.compute(judged)
    return v, v


@holds_value
def recall_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """R@k = (H + a_j) / (R0 + j): with j unjudged documents made relevant, a_j of
    them within the cut-off. For a fixed j the denominator is fixed and a_j is
    largest for the top j, smallest for the bottom j (exchange); the extremes
    over j are in closed form (:func:`_linear_ratio`). Exact (ties="expected":
    a_j is the expected count, linear in the group memberships: every j scanned)."""
    return _linear_ratio(judged, m, np.tile(judged.num_rel(m.rel(judged)), judged.n_runs))


@holds_value
def f1_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """F1@k = 2 (H + a_j) / (k + R0 + j) (k: the cut-off, or the number
    retrieved): for a fixed j the denominator is fixed, so top j / bottom j
    give the extremes (exchange) and every j is scanned. Exact."""
    k = judged.n_retrieved if m.cutoff is None else np.full(judged.n_segments, m.cutoff)
    lo, hi = _linear_ratio(judged, m, k + np.tile(judged.num_rel(m.rel(judged)), judged.n_runs))
    return 2.0 * lo, 2.0 * hi


def _linear_ratio(judged: JudgedRankings, m: Measure, den0: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) of (H + a_j) / (den0 + j) over j: a_j the weights of the
    bottom j / top j unjudged items (``den0``: (S,) the denominator at j = 0,
    H <= den0). Items of weight 0 (beyond the cut-off) only raise the
    denominator: the top j stop at the last item of weight > 0 (a of the u),
    the bottom j start with all the others
    (:meth:`~irpref.measures.unjudged_scan.Unjudged.leading`).

    Under ties docid/input every weight is 1 before the cut-off, so a_j = j for
    the top j <= a: (H + j) / (den0 + j) never falls as j grows (H <= den0), the
    upper bound is at j = a. The bottom j give H / (den0 + j) for j <= u - a,
    least at j = u - a, then (c + j) / (den0 + j) with c = H - (u - a) <= den0,
    which never falls, and its first value (H + 1) / (den0 + u - a + 1) is not
    below H / (den0 + u - a): the lower bound is at j = u - a (or 0). Under
    expected ties (fractional weights) every j is scanned."""
    u = unjudged_of(judged, m.rel(judged))
    h = _relevant_retrieved(judged, m)
    den0 = den0.astype(np.float64)
    at0 = divide(h, den0)
    if judged.ties != "expected":
        a = u.count_before(m.cutoff)
        low = np.minimum(at0, divide(h, den0 + (u.count - a)))
        return low.reshape(u.shape), np.where(a > 0, divide(h + a, den0 + a), at0).reshape(u.shape)
    lead, w = u.leading(position_weights(judged, m, u.index, _ones(judged), u.rank))
    low0 = np.minimum(at0, divide(h, den0 + (u.count - lead.count)))
    if not len(lead.index):
        return low0.reshape(u.shape), at0.reshape(u.shape)
    hi, lo = lead.head_tail(w, h)
    hi /= np.repeat(den0 + 1.0, lead.count) + lead.nth  # den0 + j >= 1
    lo /= np.repeat(den0 + u.count, lead.count) - lead.nth  # den0 + u - nth
    return lead.extreme(low0, lo, "min"), lead.extreme(at0, hi, "max")


@holds_value
def ap_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """AP@k = S / (R0 + j), S = sum over relevant d within k of hits(d) / rank(d).
    For a fixed j, top j maximizes and bottom j minimizes S (exchange: a relevant
    document moved up raises its own precision and lowers no other), so the scan
    over j is exact. Making the t-th unjudged item p relevant (the t - 1 above it
    already are) adds [p < k] (J(p) + t) / p + sum over judged relevant i > p
    within k of 1/i (each gains a hit); from the bottom it adds [p < k] (J(p) + 1)
    / p + the same sum + sum over the deeper items already made relevant within k
    of 1/rank (J(p): judged relevant above p; ranks 1-based). The C kernel
    (``irpref._native.kernels.ap_bounds``, when built) runs both scans per segment in
    one pass each, to the same values up to rounding. Under ties="expected" AP
    is not linear: :func:`~irpref.measures.unjudged_scan.binary_scan_bounds` (exact, slower)."""
    if judged.ties == "expected":
        return binary_scan_bounds(judged, m)
    level = m.rel(judged)
    u = unjudged_of(judged, level)
    k = np.inf if m.cutoff is None else m.cutoff
    # the judged relevant items alone (sparse): S0 and their 1/rank within k
    rel = judged.items_with_grade(level)
    inv_rel = np.zeros(len(rel.index))
    np.divide(1.0, rel.rank + 1.0, out=inv_rel, where=rel.rank < k)
    s0 = np.bincount(rel.segment, weights=(rel.nth + 1.0) * inv_rel,
                     minlength=judged.n_segments)
    r0 = np.tile(judged.num_rel(level), judged.n_runs).astype(np.float64)
    at0 = divide(s0, r0)
    if not len(u.index):
        return at0.reshape(u.shape), at0.reshape(u.shape)
    kernels = native("kernels")
    if kernels is not None:  # the same scans, one pass per segment in C
        lower, upper = np.empty(judged.n_segments), np.empty(judged.n_segments)
        kernels.ap_bounds(np.ascontiguousarray(rel.rank, np.int64),
                          np.ascontiguousarray(rel.offsets, np.int64),
                          np.ascontiguousarray(u.rank, np.int64),
                          np.ascontiguousarray(u.offsets, np.int64), r0,
                          -1 if m.cutoff is None else int(m.cutoff), lower, upper)
        return lower.reshape(u.shape), upper.reshape(u.shape)
    cum_rel = np.empty(len(inv_rel) + 1)
    cum_rel[0] = 0.0
    np.cumsum(inv_rel, out=cum_rel[1:])
    # judged relevant items before each unjudged one (the two are disjoint): the
    # unjudged items between consecutive relevant ones share the count
    gaps = np.diff(np.searchsorted(u.index, rel.index), prepend=0, append=len(u.index))
    before = np.repeat(np.arange(len(rel.index) + 1, dtype=np.int64), gaps)
    tail = np.repeat(cum_rel[rel.offsets[1:]], u.count)  # relevant below, within k
    tail -= cum_rel[before]
    above = before
    above -= np.repeat(rel.offsets[:-1], u.count)  # J(p), same segment
    if m.cutoff is None:
        u_inv = u.rank + 1.0
        np.reciprocal(u_inv, out=u_inv)
    else:
        u_inv = np.zeros(len(u.index))
        np.divide(1.0, u.rank + 1.0, out=u_inv, where=u.rank < k)
    # the top t-th: u_inv (J + t) + tail, t = nth + 1
    above += u.item_j
    add_top = np.multiply(above, u_inv)
    add_top += tail
    del above, tail
    hi = u.head(add_top, base=s0)
    hi /= np.repeat(r0 + 1.0, u.count) + u.nth
    # the bottom j from item t: each adds u_inv (J + 1) + tail + the deeper ones'
    # u_inv; summed from t down that is add_top less nth_t x the u_inv from t down
    lo = u.tail(add_top, base=s0)
    deeper = u.tail(u_inv)
    deeper *= u.nth
    lo -= deeper
    lo /= np.repeat(r0 + u.count, u.count) - u.nth  # R0 + j >= 1
    return u.extreme(at0, lo, "min"), u.extreme(at0, hi, "max")


@holds_value
def rprec_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """Rprec = |relevant in the top K| / K with K = R0 + j: for a fixed j, K is
    fixed and top j / bottom j give the extremes (exchange). The top K then
    holds J(K) judged relevant items plus min(j, U(K)) (top j) or
    max(0, U(K) - (u - j)) (bottom j) assigned ones, U(K) the unjudged items
    in the top K. Exact; under ties="expected"
    :func:`~irpref.measures.unjudged_scan.binary_scan_bounds`."""
    if judged.ties == "expected":
        return binary_scan_bounds(judged, m)
    level = m.rel(judged)
    u = unjudged_of(judged, level)
    n = judged.n_retrieved
    big_k = judged.num_rel(level)[u.pair_query] + u.j
    x = np.minimum(big_k, n[u.pair_segment])  # items of the segment in the top K
    rel_before = _prefix_count(judged, judged.grade >= level)
    unjudged = np.zeros(judged.n_items, bool)
    unjudged[u.index] = True
    unj_before = _prefix_count(judged, unjudged)
    at = judged.offsets[:-1][u.pair_segment] + u.pair_segment + x
    jk, uk = rel_before[at], unj_before[at]
    top = jk + np.minimum(u.j, uk)
    bottom = jk + np.maximum(0, uk - (u.count[u.pair_segment] - u.j))
    return (u.per_segment(divide(bottom.astype(np.float64), big_k), "min"),
            u.per_segment(divide(top.astype(np.float64), big_k), "max"))


def _prefix_count(judged: JudgedRankings, mask: np.ndarray) -> np.ndarray:
    """Flat counts: entry ``offsets[s] + s + x`` is the number of ``mask`` items
    among the first x items of segment s (x = 0 .. n_s)."""
    c = np.cumsum(mask, dtype=np.int64)
    start = np.concatenate(([0], c))[judged.offsets[:-1]]
    out = np.zeros(judged.n_items + judged.n_segments, np.int64)
    pos = np.arange(judged.n_items) + judged.segment + 1
    out[pos] = c - start[judged.segment]
    return out


