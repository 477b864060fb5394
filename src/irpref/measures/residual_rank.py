"""Residual bounds of the rank-based measures (the rules their records declare).

For one run and query the residual interval of a measure is its smallest and
largest value over every assignment of grades ``0 .. T`` (``T``: the highest
grade of the qrels, :func:`irpref.bounds.top_grade`) to the unjudged
documents the run retrieved, the number of relevant documents (the ideal
ranking) counting those made relevant (:mod:`irpref.bounds`). Measures that
never fall as a document gains a grade declare ``bounds="monotone"`` in their
record; the others declare a rule from this module, whose docstring proves it.

Two facts carry most proofs here. (1) A binary measure (relevant: grade >=
``rel``) only sees whether each unjudged document reaches ``rel``: grades
``{0, T}`` give every value (none when ``T < rel``). (2) *Exchange*: once the
number j of unjudged documents made relevant is fixed, R (and the ideal
ranking) is fixed, and moving relevance from a lower unjudged document to a
higher one never lowers the measure (for AP, R@k, F1, Rprec, DCG, BinG; under
``ties="expected"`` the value depends on how many members of a tie group are
relevant, and a higher group precedes a lower one in every ordering). So for
each j the top j unjudged documents give the largest value and the bottom j
the smallest; a vectorised scan over the (segment, j) pairs, j = 0 .. u (u
unjudged documents in the segment), takes the extremes. Every rule runs on
all runs x queries at once.
"""

from __future__ import annotations

import weakref

import numpy as np

from irpref.bounds import assign, top_grade, unjudged_items
from irpref.judged import JudgedRankings
from irpref.measures.base import Measure
from irpref.measures.residual_ideal import largest_ratio

__all__ = [
    "Unjudged",
    "ap_bounds",
    "binary_scan",
    "f1_bounds",
    "gain_ratio_bounds",
    "graded_rbp_bounds",
    "holds_value",
    "unjudged_of",
    "position_weights",
    "recall_bounds",
    "rprec_bounds",
    "unchanged",
]


def holds_value(rule):
    """Mark a rule whose interval contains the plain value by construction (the
    plain value is the all-non-relevant assignment): :func:`irpref.bounds.
    residual_bounds` widens the interval by the value computed by the kernel, so
    rounding in the rule's own sums never leaves the value outside it."""
    rule.holds_value = True
    return rule


_UNJUDGED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def unjudged_of(judged: JudgedRankings, level: int = 1) -> Unjudged:
    """:class:`Unjudged` of ``judged`` at ``level``, shared by every measure
    computed on the same judged rankings (kept while they live)."""
    per_level = _UNJUDGED.setdefault(judged, {})
    if level not in per_level:
        per_level[level] = Unjudged(judged, level)
    return per_level[level]


class Unjudged:
    """The unjudged retrieved items of every segment in rank order, and the pairs
    (segment s, j) for j = 0 .. u_s (u_s of them; none when no grade up to
    ``T`` reaches ``level``, so no assignment changes a binary measure)."""

    def __init__(self, judged: JudgedRankings, level: int = 1) -> None:
        self.shape = (judged.n_runs, judged.n_queries)
        self.top = top_grade(judged)
        idx = unjudged_items(judged)
        if self.top < level:
            idx = idx[:0]
        self.index = idx
        self.segment = judged.segment[idx]
        self.offsets = np.searchsorted(idx, judged.offsets).astype(np.int64)
        self.count = np.diff(self.offsets)
        n_pairs = self.count + 1
        self.pair_offsets = np.zeros(judged.n_segments + 1, np.int64)
        np.cumsum(n_pairs, out=self.pair_offsets[1:])
        self.pair_segment = np.repeat(np.arange(judged.n_segments, dtype=np.int64), n_pairs)
        self.j = np.arange(self.pair_offsets[-1], dtype=np.int64) - self.pair_offsets[:-1][
            self.pair_segment]
        self.nth = np.arange(len(idx), dtype=np.int64) - self.offsets[:-1][self.segment]

    @property
    def pair_query(self) -> np.ndarray:
        return self.pair_segment % self.shape[1]

    def first(self, w: np.ndarray) -> np.ndarray:
        """(pairs,) sum of ``w`` over the first j unjudged items of the segment (a
        global cumulative sum less the segment's start: rounding of the order of
        1e-16 x the largest sum, which the kernel's own value then bounds)."""
        vals = np.zeros(len(self.j))
        vals[self.pair_offsets[:-1][self.segment] + self.nth + 1] = w
        total = np.cumsum(vals)
        return total - total[self.pair_offsets[:-1]][self.pair_segment]

    def last(self, w: np.ndarray) -> np.ndarray:
        """(pairs,) sum of ``w`` over the last j unjudged items of the segment."""
        first = self.first(w)
        u = self.count[self.pair_segment]
        start = self.pair_offsets[:-1][self.pair_segment]
        return first[start + u] - first[start + u - self.j]

    def per_segment(self, values: np.ndarray, how: str) -> np.ndarray:
        """(R, Q) max or min of pair ``values`` over each segment's pairs."""
        f = np.maximum if how == "max" else np.minimum
        out = f.reduceat(values, self.pair_offsets[:-1]) if len(values) else values
        return out.reshape(self.shape)


def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(np.broadcast_shapes(np.shape(num), np.shape(den)))
    np.divide(num, den, out=out, where=np.broadcast_to(den, out.shape) > 0)
    return out


def position_weights(judged: JudgedRankings, m: Measure, index: np.ndarray,
                     table: np.ndarray) -> np.ndarray:
    """What a unit of relevance (gain 1) at each item of ``index`` adds:
    ``table[rank]`` within the cut-off, 0 beyond; under ``ties="expected"`` the
    mean of ``table`` over the positions of the item's tie group within the
    cut-off (each position holds the item with probability 1/size: McSherry &
    Najork 2008, section 2.1). Non-increasing along a ranking when ``table`` is."""
    k = m.cutoff
    if judged.ties != "expected":
        rank = judged.rank[index]
        w = table[rank].astype(np.float64)
        if k is not None:
            w[rank >= k] = 0.0
        return w
    first, size = judged.tie_group(index)
    end = first + size
    if k is not None:
        first, end = np.minimum(first, k), np.minimum(end, k)
    cum = np.concatenate(([0.0], np.cumsum(table, dtype=np.float64)))
    return (cum[end] - cum[first]) / size


def _ones(judged: JudgedRankings) -> np.ndarray:
    return np.ones(int(judged.n_retrieved.max(initial=0)) + 1)


def _relevant_retrieved(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """(S,) relevant items within the cut-off (expected number under expected ties)."""
    level = m.rel(judged)
    idx = judged.items_with_grade(level).index
    w = position_weights(judged, m, idx, _ones(judged))
    return np.bincount(judged.segment[idx], weights=w, minlength=judged.n_segments)


@holds_value
def unchanged(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """No assignment of grades changes the value (NumRet counts documents, not grades)."""
    v = m.compute(judged)
    return v, v


@holds_value
def recall_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """R@k = (H + a_j) / (R0 + j): with j unjudged documents made relevant, a_j of
    them within the cut-off. For a fixed j the denominator is fixed and a_j is
    largest for the top j, smallest for the bottom j (exchange); every j is
    scanned. Exact (ties="expected": a_j is the expected count, linear in the
    group memberships)."""
    return _linear_ratio(judged, m, lambda u: judged.num_rel(m.rel(judged))[u.pair_query] + u.j)


@holds_value
def f1_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """F1@k = 2 (H + a_j) / (k + R0 + j) (k: the cut-off, or the number
    retrieved): for a fixed j the denominator is fixed, so top j / bottom j
    give the extremes (exchange) and every j is scanned. Exact."""
    def den(u: Unjudged) -> np.ndarray:
        k = judged.n_retrieved if m.cutoff is None else np.full(judged.n_segments, m.cutoff)
        return k[u.pair_segment] + judged.num_rel(m.rel(judged))[u.pair_query] + u.j
    lo, hi = _linear_ratio(judged, m, den)
    return 2.0 * lo, 2.0 * hi


def _linear_ratio(judged: JudgedRankings, m: Measure, den) -> tuple[np.ndarray, np.ndarray]:
    u = unjudged_of(judged, m.rel(judged))
    w = position_weights(judged, m, u.index, _ones(judged))
    h = _relevant_retrieved(judged, m)[u.pair_segment]
    d = den(u)
    return (u.per_segment(_div(h + u.last(w), d), "min"),
            u.per_segment(_div(h + u.first(w), d), "max"))


@holds_value
def ap_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """AP@k = S / (R0 + j), S = sum over relevant d within k of hits(d) / rank(d).
    For a fixed j, top j maximizes and bottom j minimizes S (exchange: a relevant
    document moved up raises its own precision and lowers no other), so the scan
    over j is exact. Making the t-th unjudged item p relevant (the t - 1 above it
    already are) adds [p < k] (J(p) + t) / p + sum over judged relevant i > p
    within k of 1/i (each gains a hit); from the bottom it adds [p < k] (J(p) + 1)
    / p + the same sum + sum over the deeper items already made relevant within k
    of 1/rank (J(p): judged relevant above p; ranks 1-based). Under
    ties="expected" AP is not linear: :func:`binary_scan` (exact, slower)."""
    if judged.ties == "expected":
        return binary_scan(judged, m)
    level = m.rel(judged)
    u = unjudged_of(judged, level)
    k = np.inf if m.cutoff is None else m.cutoff
    rel = judged.grade >= level
    rank = judged.rank
    inv = np.where(rank < k, 1.0 / (rank + 1.0), 0.0)
    hits = np.cumsum(rel) - np.repeat(np.concatenate(([0], np.cumsum(rel)))[judged.offsets[:-1]],
                                      np.diff(judged.offsets))  # inclusive, within segment
    s0 = judged.segment_sum(np.where(rel, hits * inv, 0.0)).ravel()
    rel_inv = np.cumsum(np.where(rel, inv, 0.0))
    rel_inv -= np.concatenate(([0.0], rel_inv))[judged.offsets[:-1]][judged.segment]
    seg_total = np.zeros(judged.n_segments)
    nonempty = np.diff(judged.offsets) > 0
    seg_total[nonempty] = rel_inv[judged.offsets[1:][nonempty] - 1]
    i = u.index
    tail = seg_total[u.segment] - rel_inv[i]  # judged relevant below i, within k
    above = hits[i]  # judged relevant above i (i itself is not relevant)
    u_inv = inv[i]
    deeper = u.last(u_inv)  # per pair; per item: the unjudged below it
    start = u.pair_offsets[:-1][u.segment]
    below = deeper[start + u.count[u.segment] - u.nth - 1]
    add_top = u_inv * (above + u.nth + 1) + tail
    add_bottom = u_inv * (above + 1) + tail + below
    den = judged.num_rel(level)[u.pair_query] + u.j
    base = s0[u.pair_segment]
    return (u.per_segment(_div(base + u.last(add_bottom), den), "min"),
            u.per_segment(_div(base + u.first(add_top), den), "max"))


@holds_value
def rprec_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """Rprec = |relevant in the top K| / K with K = R0 + j: for a fixed j, K is
    fixed and top j / bottom j give the extremes (exchange). The top K then
    holds J(K) judged relevant items plus min(j, U(K)) (top j) or
    max(0, U(K) - (u - j)) (bottom j) assigned ones, U(K) the unjudged items
    in the top K. Exact; under ties="expected" :func:`binary_scan`."""
    if judged.ties == "expected":
        return binary_scan(judged, m)
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
    return (u.per_segment(_div(bottom.astype(np.float64), big_k), "min"),
            u.per_segment(_div(top.astype(np.float64), big_k), "max"))


def _prefix_count(judged: JudgedRankings, mask: np.ndarray) -> np.ndarray:
    """Flat counts: entry ``offsets[s] + s + x`` is the number of ``mask`` items
    among the first x items of segment s (x = 0 .. n_s)."""
    c = np.cumsum(mask, dtype=np.int64)
    start = np.concatenate(([0], c))[judged.offsets[:-1]]
    out = np.zeros(judged.n_items + judged.n_segments, np.int64)
    pos = np.arange(judged.n_items) + judged.segment + 1
    out[pos] = c - start[judged.segment]
    return out


def binary_scan(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """Exact bounds of a binary measure for which the exchange holds (AP, Rprec,
    BinG, any tie policy): for each j, the top j unjudged items of every segment
    made relevant (grade T) give the largest value with j, the bottom j the
    smallest. One evaluation per j up to the most unjudged items of a segment
    (segments with fewer keep all of theirs): exact, but its cost grows with that
    number (the fast rules avoid it where a closed scan is known)."""
    level = m.rel(judged)
    value = m.compute(judged)
    u = unjudged_of(judged, level)
    if not len(u.index):
        return value, value
    shape = value.shape
    lower, upper = value.copy(), value.copy()
    count = u.count[u.segment]
    for j in range(1, int(u.count.max()) + 1):
        top = np.where(u.nth < j, u.top, 0)
        bottom = np.where(u.nth >= count - j, u.top, 0)
        np.fmax(upper, m.compute(_assign_all(judged, u, top)).reshape(shape), out=upper)
        np.fmin(lower, m.compute(_assign_all(judged, u, bottom)).reshape(shape), out=lower)
    return lower, upper


def _assign_all(judged: JudgedRankings, u: Unjudged, grades: np.ndarray) -> JudgedRankings:
    """:func:`assign` with grades for every unjudged item (those of ``u`` get
    ``grades``, the others, left out of ``u`` because T < rel, keep 0)."""
    idx = unjudged_items(judged)
    full = np.zeros(len(idx), np.int32)
    full[np.searchsorted(idx, u.index)] = grades
    return assign(judged, full)


# ---- graded gains over an ideal ranking (nDCG, NCG) ------------------------------
def _ideal_with(judged: JudgedRankings, u: Unjudged, m: Measure, table: np.ndarray,
                gain_of, grade: int) -> np.ndarray:
    """(pairs,) ideal score of each pair's query with j extra documents of
    ``grade``: the judged grades >= 1 sorted descending, level by level, with
    the ``grade`` block j longer and the lower blocks j further down; each level L
    adds gain(L) x the table summed over its block within the cut-off."""
    qg = judged.qrels_grade
    keep = qg >= 1
    levels = np.unique(np.append(qg[keep], grade))[::-1]  # descending
    n_lv = len(levels)
    q = judged.qrels_query[keep]
    li = np.searchsorted(-levels, -qg[keep])
    counts = np.bincount(q * n_lv + li, minlength=judged.n_queries * n_lv).reshape(-1, n_lv)
    start = np.cumsum(counts, axis=1) - counts
    # the ideal depends on (query, j) only: one row per query and j up to its largest u
    n_q = judged.n_queries
    max_u = np.zeros(n_q, np.int64)
    np.maximum.at(max_u, u.pair_query, u.j)
    q_off = np.concatenate(([0], np.cumsum(max_u + 1)))
    rq = np.repeat(np.arange(n_q), max_u + 1)
    rj = np.arange(q_off[-1]) - q_off[:-1][rq]
    s = start[rq] + rj[:, None] * (levels < grade)[None, :]
    e = start[rq] + counts[rq] + rj[:, None] * (levels <= grade)[None, :]
    k = e.max(initial=0) if m.cutoff is None else m.cutoff
    size = int(max(e.max(initial=0), 0)) + 1
    tab = table(size)
    cum = np.concatenate(([0.0], np.cumsum(tab)))
    s, e = np.minimum(s, k), np.minimum(e, k)
    ideal = ((cum[e] - cum[s]) * gain_of(levels)[None, :]).sum(axis=1)
    return ideal[q_off[:-1][u.pair_query] + u.j]


@holds_value
def gain_ratio_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """nDCG@k and NCG@k: (N0 + assigned gain x weight) / ideal(assignment).

    Lower, exact: as a function of one document's gain x (others fixed) the value
    is linear / convex (the ideal is a maximum over orderings of linear functions
    of x), so it is quasi-concave and its minimum over [0, gain(T)] is at an end:
    some minimizing assignment uses grades {0, T} only. With j documents at T the
    ideal is fixed and the bottom j give the least gain x weight (weights
    non-increasing down the ranking): a scan over j of bottom-j at T.

    Upper, exact: the largest ratio over every assignment, by grade layers and
    Dinkelbach's method (:func:`irpref.measures.residual_ideal.largest_ratio`;
    the weights of the unjudged documents do not increase down the ranking).
    NCG under ties docid/input reaches it with every unjudged document within
    the cut-off at T ((a + x) / I(x) with I' <= 1 and I >= a + x only grows).
    Custom gains (``gains=``): no bound (NaN): they need not grow with the
    grade."""
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
    pos = judged.items_with_grade(1).index
    w_pos = position_weights(judged, m, pos, n_tab) * gain_of(judged.grade[pos])
    n0_seg = np.bincount(judged.segment[pos], weights=w_pos, minlength=judged.n_segments)
    n0 = n0_seg[u.pair_segment]
    w = position_weights(judged, m, u.index, n_tab)
    g_top = float(gain_of(np.array([u.top]))[0]) if u.top >= 1 else 0.0
    ideal_top = _ideal_with(judged, u, m, table, gain_of, max(u.top, 1))
    lower = u.per_segment(_div(n0 + g_top * u.last(w), ideal_top), "min")
    reach = n0 + g_top * u.first(w)
    if m.name == "NCG" and judged.ties != "expected":
        return lower, u.per_segment(_div(reach, ideal_top), "max")
    start = u.per_segment(_div(reach, ideal_top), "max").ravel()  # top j at T: reached
    return lower, _largest(judged, m, u, w, n0_seg, table, gain_of, start)


def _largest(judged: JudgedRankings, m: Measure, u: Unjudged, w: np.ndarray, n0: np.ndarray,
             table, gain_of, start: np.ndarray) -> np.ndarray:
    """(R, Q) the exact largest gain ratio (:func:`irpref.measures.residual_ideal.
    largest_ratio`, by grade layers and Dinkelbach's method)."""
    top = max(u.top, 1)
    levels = np.arange(top + 1)
    layer_gain = np.diff(gain_of(levels))
    qg, qq = judged.qrels_grade, judged.qrels_query
    at_least = np.stack([np.bincount(qq[qg >= h], minlength=judged.n_queries)
                         for h in range(1, top + 1)], axis=1)
    n = int(at_least.max(initial=0)) + int(u.count.max(initial=0)) + 1
    d = table(n)
    if m.cutoff is not None:
        d[m.cutoff:] = 0.0
    dcum = np.concatenate(([0.0], np.cumsum(d)))
    seg_query = np.arange(judged.n_segments) % judged.n_queries
    return largest_ratio(w, u.count, seg_query, n0, layer_gain, at_least, dcum,
                         start).reshape(judged.n_runs, judged.n_queries)


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
    n = int(judged.n_retrieved.max(initial=0)) + 1
    table = np.multiply.accumulate(np.concatenate(([1.0], np.full(n - 1, p))))
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
