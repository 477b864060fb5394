"""The kit every bounds rule builds on: the unjudged documents of each ranking
and the scans over them.

A rule (``<family>_bounds.py``) bounds a measure over every assignment of
grades ``0 .. T`` (``T``: the top grade of the qrels,
:func:`irpref.measures.bounds.top_grade`) to the unjudged documents a run retrieved
(:mod:`irpref.measures.bounds`). Most rules rest on an *exchange* argument: with j
unjudged documents made relevant the denominator is fixed, and relevance
moved from a lower unjudged document to a higher one never lowers the value,
so the top j and the bottom j unjudged documents give the extremes for that
j, and a scan over j = 0 .. u (u unjudged documents in the segment) takes
them, on all runs x queries at once:

- :class:`Unjudged` (:func:`unjudged_of`, cached per judged rankings and
  level; empty when no grade up to T reaches the level): j >= 1 read off the
  j-th unjudged item, sums over the top j (:meth:`Unjudged.head`) and the
  bottom j (:meth:`Unjudged.tail`), extremes per segment
  (:meth:`Unjudged.extreme`); the rank, nDCG and gain-ratio rules;
- :class:`Candidates` (:func:`candidates`, with ``movable``) and
  :func:`scan_bounds`, the extremes of per-candidate values: the trec_eval
  and position (recall-level, search-length) rules;
- :func:`position_weights`, the weight of a unit of relevance at an item
  (its tie group's mean under ``ties="expected"``);
- :func:`binary_scan_bounds`, the exact rule of any binary measure for which
  the exchange holds, by one evaluation per j (slower);
- :func:`holds_value`, the mark of a rule whose interval holds the plain value.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from irpref.judging.judged import JudgedRankings
from irpref.measures.base import Measure
from irpref.measures.bounds import assign, top_grade, unjudged_items

__all__ = [
    "Candidates",
    "Pair",
    "Unjudged",
    "binary_scan_bounds",
    "candidates",
    "holds_value",
    "position_weights",
    "scan_bounds",
    "seg_reduce",
    "unjudged_of",
]

Pair = tuple[np.ndarray, np.ndarray]
"""(lower, upper), each (R, Q): what every rule returns."""


def holds_value(rule):
    """Mark a rule whose interval contains the plain value by construction (the
    plain value is the all-non-relevant assignment): :func:`irpref.measures.bounds.
    residual_bounds` widens the interval by the value computed by the kernel, so
    rounding in the rule's own sums never leaves the value outside it."""
    rule.holds_value = True
    return rule


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


def unjudged_of(judged: JudgedRankings, level: int = 1) -> Unjudged:
    """:class:`Unjudged` of ``judged`` at ``level``, shared by every measure
    computed on the same judged rankings (kept with them)."""
    return judged.derived(("unjudged", level), lambda: Unjudged(judged, level))


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
        bottom j, the value at j = u_s - a_s (R@k and F1@k under expected ties,
        :mod:`irpref.measures.rank_bounds`; :func:`irpref.measures.ndcg_bounds.
        gain_ratio_bounds`)."""
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


@dataclass(frozen=True)
class Candidates:
    """The unjudged items of every segment, in rank order (flat).

    ``index`` item indices; ``seg`` segment; ``nth`` 0-based place among the
    segment's unjudged items; ``count`` (S,) unjudged items per segment;
    ``movable`` whether an assignment can make one relevant (top >= rel)."""

    index: np.ndarray
    seg: np.ndarray
    nth: np.ndarray
    count: np.ndarray
    movable: bool

    @property
    def j(self) -> np.ndarray:
        """The number of relevant documents made by the top-j assignment ending here."""
        return self.nth + 1

    @property
    def j_bottom(self) -> np.ndarray:
        """The j of the bottom-j assignment starting here."""
        return self.count[self.seg] - self.nth

    def prefix(self, values: np.ndarray) -> np.ndarray:
        """Inclusive sum of ``values`` (per candidate) over the segment's earlier candidates."""
        total = np.cumsum(values, dtype=np.float64)
        start = np.concatenate(([0.0], total))[(np.arange(len(values)) - self.nth)]
        return total - start

    def suffix(self, values: np.ndarray) -> np.ndarray:
        """Inclusive sum of ``values`` over the segment's later candidates."""
        values = np.asarray(values, dtype=np.float64)
        seg_total = np.bincount(self.seg, weights=values, minlength=len(self.count))
        return seg_total[self.seg] - self.prefix(values) + values


def candidates(judged: JudgedRankings, rel: int) -> Candidates:
    """:class:`Candidates` of ``judged`` for relevance level ``rel``."""
    idx = unjudged_items(judged)
    seg = judged.segment[idx]
    count = np.bincount(seg, minlength=judged.n_segments)
    first = np.cumsum(count) - count
    nth = np.arange(len(idx), dtype=np.int64) - first[seg]
    return Candidates(idx, seg, nth, count, top_grade(judged) >= rel)


def seg_reduce(ufunc, init: np.ndarray, seg: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``init`` (S,) combined by ``ufunc`` (np.fmin, np.fmax) with ``values``
    grouped by ``seg`` (ascending)."""
    out = np.array(init, dtype=np.float64, copy=True)
    if len(values):
        starts = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
        red = ufunc.reduceat(values, starts)
        where = seg[starts]
        out[where] = ufunc(out[where], red)
    return out


def scan_bounds(judged: JudgedRankings, c: Candidates, base: np.ndarray,
                top: np.ndarray, bottom: np.ndarray) -> Pair:
    """(lower, upper), each (R, Q): the extremes of ``base`` (S,) (the value at
    j = 0) and the per-candidate values ``top`` (top-j, j = nth + 1) and
    ``bottom`` (bottom-j, j = count - nth); only ``base`` when nothing can
    become relevant. NaN values (undefined) are skipped, as by
    :func:`irpref.measures.bounds.enumerate_bounds`."""
    base = np.asarray(base, dtype=np.float64).reshape(-1)
    shape = (judged.n_runs, judged.n_queries)
    if not c.movable or not len(c.index):
        return base.reshape(shape).copy(), base.reshape(shape).copy()
    seg = c.seg
    lower = seg_reduce(np.fmin, seg_reduce(np.fmin, base, seg, top), seg, bottom)
    upper = seg_reduce(np.fmax, seg_reduce(np.fmax, base, seg, top), seg, bottom)
    return lower.reshape(shape), upper.reshape(shape)


def binary_scan_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
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
