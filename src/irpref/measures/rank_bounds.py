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
the smallest; a vectorised scan over j = 0 .. u (u unjudged documents in the
segment; j >= 1 read off the j-th unjudged item, :class:`Unjudged`) takes the
extremes. Every rule runs on all runs x queries at once.
"""

from __future__ import annotations

import weakref
from functools import cached_property

import numpy as np

from irpref.bounds import assign, top_grade, unjudged_items
from irpref.judged import JudgedRankings
from irpref.kernels import c_kernels
from irpref.measures.base import Measure

__all__ = [
    "Unjudged",
    "ap_bounds",
    "binary_scan",
    "f1_bounds",
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
    """The unjudged retrieved items of every segment in rank order (none when no
    grade up to ``T`` reaches ``level``, so no assignment changes a binary
    measure).

    The scan over j = 0 .. u_s (u_s unjudged items in segment s) needs no
    (segment, j) pairs: j = 0 is one value per segment, and j >= 1 is the
    unjudged item ``nth = j - 1`` of the segment, so every per-j quantity is a
    per-item array (:meth:`head`, :meth:`tail`, :attr:`item_j`) and the extremes
    combine the two (:meth:`extreme`). The pair arrays (:attr:`pair_segment`,
    :attr:`j`, :meth:`first`, :meth:`last`, :meth:`per_segment`) remain
    for rules written over pairs."""

    def __init__(self, judged: JudgedRankings, level: int = 1) -> None:
        self.shape = (judged.n_runs, judged.n_queries)
        self.top = top_grade(judged)
        idx = unjudged_items(judged)
        if self.top < level:
            idx = idx[:0]
        self.index = idx
        self.offsets = np.searchsorted(idx, judged.offsets).astype(np.int64)
        self.count = np.diff(self.offsets)
        n_s = judged.n_segments
        self.segment = np.repeat(np.arange(n_s, dtype=np.int64), self.count)
        self.nth = np.arange(len(idx), dtype=np.int64)
        self.nth -= self.offsets[:-1][self.segment]
        self.rank = judged.rank_of(idx, self.segment)
        self.nonempty = np.flatnonzero(self.count)
        self.longest = int(judged.n_retrieved.max(initial=0))  # no rank reaches it

    # ---- per item: the top j = nth + 1, the bottom j = u_s - nth ---------------
    @cached_property
    def item_j(self) -> np.ndarray:
        """(items,) int64: the top j = nth + 1 items end at this one."""
        return self.nth + 1

    @cached_property
    def item_j_bottom(self) -> np.ndarray:
        """(items,) int64: the bottom j = u_s - nth items start at this one."""
        out = np.repeat(self.count, self.count)
        out -= self.nth
        return out

    def _prefix(self, w: np.ndarray) -> np.ndarray:
        """Exclusive prefix sums of ``w`` over all items ((items + 1,), float64)."""
        out = np.empty(len(w) + 1)
        out[0] = 0.0
        np.cumsum(w, out=out[1:])
        return out

    def _at(self, c: np.ndarray, ends: np.ndarray, base, sign: float) -> np.ndarray:
        at = c[ends]
        if base is not None:
            at += sign * base
        return np.repeat(at, self.count)

    def head(self, w: np.ndarray, c: np.ndarray | None = None, base=None) -> np.ndarray:
        """(items,) sum of ``w`` over the top :attr:`item_j` unjudged items of the
        segment, plus ``base`` (S,) if given (a global cumulative sum less the
        segment's start: rounding of the order of 1e-16 x the largest sum, which
        the kernel's value bounds). ``c``: :meth:`_prefix` of ``w`` if known."""
        c = self._prefix(w) if c is None else c
        out = self._at(c, self.offsets[:-1], base, -1.0)
        np.subtract(c[1:], out, out=out)
        return out

    def tail(self, w: np.ndarray, c: np.ndarray | None = None, base=None) -> np.ndarray:
        """(items,) sum of ``w`` over the bottom :attr:`item_j_bottom` unjudged
        items of the segment (from this item down), plus ``base`` (S,) if given."""
        c = self._prefix(w) if c is None else c
        out = self._at(c, self.offsets[1:], base, 1.0)
        out -= c[:-1]
        return out

    def head_tail(self, w: np.ndarray, base=None) -> tuple[np.ndarray, np.ndarray]:
        """(:meth:`head`, :meth:`tail`) of ``w`` from one cumulative sum."""
        c = self._prefix(w)
        return self.head(w, c, base), self.tail(w, c, base)

    def leading(self, w: np.ndarray) -> tuple[Unjudged, np.ndarray]:
        """The unjudged items of each segment down to its last one with a weight
        ``w`` != 0 (a_s of them), and their weights. The others weigh nothing
        (e.g. beyond a cut-off): a scan where more weightless documents made
        relevant only add to a denominator reads the a_s items and, for the
        bottom j, the value at j = u_s - a_s (:func:`_linear_ratio`,
        :func:`irpref.measures.ndcg_bounds.gain_ratio_bounds`)."""
        pos = np.flatnonzero(w)
        if len(pos) == len(w):
            return self, w
        a = np.zeros(len(self.count), np.int64)
        if len(pos):
            seg = self.segment[pos]
            last = np.flatnonzero(np.append(seg[1:] != seg[:-1], True))
            a[seg[last]] = self.nth[pos[last]] + 1
        sub, sel = self._first(a)
        return sub, w[sel]

    def ranked_before(self, k: int | None) -> Unjudged:
        """The unjudged items of rank < ``k`` (all when ``k`` is None): the
        items weighing anything at cut-off k, ties docid/input (:meth:`leading`)."""
        a = self.count_before(k)
        return self if a is self.count or np.array_equal(a, self.count) else self._first(a)[0]

    def count_before(self, k: int | None) -> np.ndarray:
        """(S,) unjudged items of rank < ``k`` in each segment (all: ``k`` None)."""
        if k is None or k >= self.longest:
            return self.count
        return np.bincount(self.segment[self.rank < k], minlength=len(self.count))

    def _first(self, a: np.ndarray) -> tuple[Unjudged, np.ndarray]:
        """The first ``a[s]`` unjudged items of every segment, and their positions."""
        sel = np.flatnonzero(self.nth < np.repeat(a, self.count))
        sub = object.__new__(Unjudged)
        sub.shape, sub.top, sub.longest = self.shape, self.top, self.longest
        sub.index, sub.segment = self.index[sel], self.segment[sel]
        sub.nth, sub.rank = self.nth[sel], self.rank[sel]
        sub.count = a
        sub.offsets = np.zeros(len(a) + 1, np.int64)
        np.cumsum(a, out=sub.offsets[1:])
        sub.nonempty = np.flatnonzero(a)
        return sub, sel

    def extreme(self, at0: np.ndarray, values: np.ndarray, how: str) -> np.ndarray:
        """(R, Q) max or min over j of each segment: ``at0`` (S,) its value at
        j = 0, ``values`` (items,) at j = nth + 1 (NaN propagates)."""
        f = np.maximum if how == "max" else np.minimum
        out = np.array(at0, np.float64).reshape(-1)
        if len(values):
            ne = self.nonempty
            out[ne] = f(out[ne], f.reduceat(values, self.offsets[:-1][ne]))
        return out.reshape(self.shape)

    # ---- the (segment, j) pairs, j = 0 .. u_s ------------------------------------
    @cached_property
    def pair_offsets(self) -> np.ndarray:
        out = np.zeros(len(self.count) + 1, np.int64)
        np.cumsum(self.count + 1, out=out[1:])
        return out

    @cached_property
    def pair_segment(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.count), dtype=np.int64), self.count + 1)

    @cached_property
    def j(self) -> np.ndarray:
        """(pairs,) j of each pair."""
        return np.arange(self.pair_offsets[-1], dtype=np.int64) - self.pair_offsets[:-1][
            self.pair_segment]

    @property
    def pair_query(self) -> np.ndarray:
        return self.pair_segment % self.shape[1]

    def first(self, w: np.ndarray) -> np.ndarray:
        """(pairs,) sum of ``w`` over the first j unjudged items of the segment."""
        c = self._prefix(w)
        p = np.arange(self.pair_offsets[-1], dtype=np.int64) - self.pair_segment
        return c[p] - c[self.offsets[:-1]][self.pair_segment]

    def last(self, w: np.ndarray) -> np.ndarray:
        """(pairs,) sum of ``w`` over the last j unjudged items of the segment."""
        c = self._prefix(w)
        end = self.offsets[1:][self.pair_segment]
        return c[end] - c[end - self.j]

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
                     table: np.ndarray, rank: np.ndarray | None = None) -> np.ndarray:
    """What a unit of relevance (gain 1) at each item of ``index`` adds:
    ``table[rank]`` within the cut-off, 0 beyond; under ``ties="expected"`` the
    mean of ``table`` over the positions of the item's tie group within the
    cut-off (each position holds the item with probability 1/size: McSherry &
    Najork 2008, section 2.1). Non-increasing along a ranking when ``table`` is.
    ``rank``: the items' ranks when known already (else read from ``judged``)."""
    k = m.cutoff
    if judged.ties != "expected":
        rank = judged.rank[index] if rank is None else rank
        w = table.astype(np.float64, copy=False)[rank]
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
    items = judged.items_with_grade(m.rel(judged))
    w = position_weights(judged, m, items.index, _ones(judged), items.rank)
    return np.bincount(items.segment, weights=w, minlength=judged.n_segments).astype(
        np.float64, copy=False)  # (an empty bincount is int64)


@holds_value
def unchanged(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
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
    the bottom j start with all the others (:meth:`Unjudged.leading`).

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
    at0 = _div(h, den0)
    if judged.ties != "expected":
        a = u.count_before(m.cutoff)
        low = np.minimum(at0, _div(h, den0 + (u.count - a)))
        return low.reshape(u.shape), np.where(a > 0, _div(h + a, den0 + a), at0).reshape(u.shape)
    lead, w = u.leading(position_weights(judged, m, u.index, _ones(judged), u.rank))
    low0 = np.minimum(at0, _div(h, den0 + (u.count - lead.count)))
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
    (``irpref._kernels.ap_bounds``, when built) runs both scans per segment in
    one pass each, to the same values up to rounding. Under ties="expected" AP
    is not linear: :func:`binary_scan` (exact, slower)."""
    if judged.ties == "expected":
        return binary_scan(judged, m)
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
    at0 = _div(s0, r0)
    if not len(u.index):
        return at0.reshape(u.shape), at0.reshape(u.shape)
    kernels = c_kernels()
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
