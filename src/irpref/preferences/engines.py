"""The preference kernels on any run pairs: a per-run state built once, values by blocks.

Every preference of a run pair on a query reads the sorted positions of the
relevant items of the two runs (:mod:`irpref.preferences.populations`). The
state below is built once per population block, O(R L) per population (R
runs, L levels), and answers any set of pairs ``a < b`` in time and memory
proportional to the pairs asked: the R² x Q preferences are never held at once.

- :class:`LexicographicState` (sgnLP, sgnLR, rrLP). One ``np.lexsort`` per
  block gives every run's exact rank under the total order
  (:func:`~irpref.preferences.lexicographic.lexicographic_ranks`); a sign
  preference is ``sgn(rank_b - rank_a)``. rrLP's deciding level for runs at
  sorted places ``s < t`` is ``min(lcp[s:t])`` (longest common prefix of
  neighbours), answered in O(1) per pair by a sparse table of range minima
  (Bender & Farach-Colton 2000, "The LCA problem revisited", §3).
- :class:`RPPState` (the RPP variants). ``Σ_i w_i sgn(f_{b,i} - f_{a,i})``
  summed level by level from ``i = 1`` (a fixed order: a value does not
  depend on which other pairs, populations or weightings are computed with it),
  times ``p(g) / Σ_{i <= m_g} w_i``, then added over the populations of a
  query in population order (Diaz & Ferraro 2022, Eq. 4-6). The level loop
  runs in the optional C kernel ``irpref._native.prefs`` (same doubles as the NumPy
  loop, :func:`level_sums`; ``IRPREF_KERNELS=numpy`` forces NumPy).

Values come as ``(P, Q)`` arrays (pair-major, contiguous), over the query
columns asked for (``cols``, ascending indices of the job's queries).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from irpref.preferences.lexicographic import SENTINEL, lexicographic_ranks
from irpref.preferences.populations import Populations
from irpref.preferences.rpp import level_weights
from irpref.runtime.native import native

__all__ = ["LexicographicState", "RPPState", "column_map"]

EXACT32 = 1 << 24
"""Positions below this are exact in float32 (as is :data:`SENTINEL`, a power of 2)."""

PAST = np.iinfo(np.int32).max
"""RPP's int32 position of an unretrieved relevant item (after every rank)."""


def column_map(n_cols: int, cols: np.ndarray | None) -> tuple[np.ndarray, int]:
    """(where, n): ``where[c]`` is the output column of query column ``c`` (-1: not asked)."""
    if cols is None:
        return np.arange(n_cols), n_cols
    where = np.full(n_cols, -1, np.int64)
    where[cols] = np.arange(len(cols))
    return where, len(cols)


def _compact(pos: np.ndarray) -> np.ndarray:
    """Positions as float32 when that is exact (halves the state), else float64."""
    finite = pos[pos < SENTINEL]
    return pos.astype(np.float32) if finite.size == 0 or finite.max() < EXACT32 else pos


def _positions(pos: np.ndarray) -> np.ndarray:
    """(G, R, L) int32 positions, :data:`PAST` for :data:`SENTINEL` (RPP reads only
    their order)."""
    if (pos[pos < SENTINEL] >= PAST).any():  # pragma: no cover - 2^31 ranks in a list
        raise ValueError("a rank beyond 2^31 - 1")
    return np.where(pos < SENTINEL, pos, PAST).astype(np.int32)


class RangeMinima:
    """rrLP state of a population block: positions, sorted places and the sparse
    table ``table[k, g, s] = min(lcp[g, s : s + 2^k])``."""

    def __init__(self, cols: np.ndarray, pos: np.ndarray, order: np.ndarray,
                 lcp: np.ndarray) -> None:
        g, r, _ = pos.shape
        self.cols, self.pos = cols, _compact(pos)
        self.width = pos.shape[2]
        self.place = np.empty((g, r), np.int32)
        np.put_along_axis(self.place, order, np.arange(r, dtype=np.int32)[None, :], axis=1)
        n = max(r - 1, 1)
        levels = max(int(n).bit_length(), 1)
        big = np.iinfo(np.int32).max
        self.table = np.full((levels, g, n), big, np.int32)
        self.table[0, :, : r - 1] = lcp
        for k in range(1, levels):
            half = 1 << (k - 1)
            prev = self.table[k - 1]
            np.minimum(prev[:, : n - half], prev[:, half:], out=self.table[k, :, : n - half])
        self.log2 = np.zeros(n + 1, np.int64)
        self.log2[2:] = np.floor(np.log2(np.arange(2, n + 1))).astype(np.int64)

    def values(self, rows: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """(len(rows), P) rrLP of pairs ``a < b`` on populations ``rows`` of the block:
        ``1/p_{a,i*} - 1/p_{b,i*}`` (0 for an unretrieved item; 0 when equal)."""
        gi = rows[:, None]
        pa, pb = self.place[gi, a[None, :]], self.place[gi, b[None, :]]
        lo, hi = np.minimum(pa, pb), np.maximum(pa, pb)
        k = self.log2[hi - lo]
        istar = np.minimum(self.table[k, gi, lo], self.table[k, gi, hi - (1 << k)])
        del pa, pb, lo, hi, k
        valid = istar < self.width
        ic = np.minimum(istar, self.width - 1)
        xa = self.pos[gi, a[None, :], ic].astype(np.float64)
        xb = self.pos[gi, b[None, :], ic].astype(np.float64)
        with np.errstate(divide="ignore"):
            rra = np.where(xa < SENTINEL, 1.0 / xa, 0.0)
            rrb = np.where(xb < SENTINEL, 1.0 / xb, 0.0)
        return np.where(valid, rra - rrb, 0.0)


class LexicographicState:
    """sgnLP, sgnLR and rrLP (the wanted ``(order, value)`` of their records) of
    binary populations, one per query column ``cols[g]``."""

    def __init__(self, pops: Populations, wanted: set[tuple[str, str]], cols: np.ndarray,
                 n_cols: int, budget: int) -> None:
        r = pops.n_runs
        self.n_cols = n_cols
        orders = sorted({o for o, _ in wanted})
        self.ranks = {o: np.zeros((r, n_cols), np.int32) for o, v in wanted if v == "sign"}
        self.minima: dict[str, list[RangeMinima]] = {o: [] for o, v in wanted if v == "rr"}
        for g0, g1 in pops.blocks(pops.depth * r, budget // 2):
            pos = pops.dense(g0, g1)
            for order in orders:
                rank, ordering, lcp = lexicographic_ranks(pos, pops.count[g0:g1], order)
                if order in self.ranks:
                    self.ranks[order][:, cols[g0:g1]] = rank.T
                if order in self.minima:
                    self.minima[order].append(RangeMinima(cols[g0:g1], pos, ordering, lcp))

    def sign(self, order: str, a: np.ndarray, b: np.ndarray,
             cols: np.ndarray | None) -> np.ndarray:
        """(P, Q) ``sgn(rank_b - rank_a)``: +1 when run a comes first."""
        rank = self.ranks[order] if cols is None else self.ranks[order][:, cols]
        diff = rank[b].astype(np.int64)
        diff -= rank[a]
        return np.sign(diff).astype(np.float64)

    def rr(self, order: str, a: np.ndarray, b: np.ndarray,
           cols: np.ndarray | None) -> np.ndarray:
        """(P, Q) rrLP of pairs ``a < b``."""
        where, n_out = column_map(self.n_cols, cols)
        out = np.zeros((n_out, len(a)))
        for block in self.minima[order]:
            target = where[block.cols]
            rows = np.flatnonzero(target >= 0)
            if len(rows):
                out[target[rows]] = block.values(rows, a, b)
        return np.ascontiguousarray(out.T)


class RPPState:
    """The RPP weightings ``weightings`` (``p`` of their records) of populations
    whose query columns are ``cols``."""

    def __init__(self, pops: Populations, weightings: Sequence[str], cols: np.ndarray,
                 n_cols: int, budget: int) -> None:
        r = pops.n_runs
        self.n_cols, self.budget = n_cols, budget
        max_level = int(max(pops.depth.max(initial=0), pops.m.max(initial=0), 1))
        w = np.column_stack([level_weights(max_level, p) for p in weightings])
        cum = np.vstack((np.zeros(len(weightings)), np.cumsum(w, axis=0)))
        norm = cum[pops.m.astype(np.int64)]  # (G, V): Σ_{i <= m_g} w_i
        scale = np.zeros_like(norm)
        np.divide(pops.weight[:, None], norm, out=scale, where=norm > 0)
        self.weights, self.scale, self.cols = w, scale, cols
        self.blocks = [(g0, g1, _positions(pops.dense(g0, g1)))
                       for g0, g1 in pops.blocks(pops.depth * r, budget)]

    def values(self, a: np.ndarray, b: np.ndarray, cols: np.ndarray | None,
               which: Sequence[int] | None = None) -> np.ndarray:
        """(V, P, Q) RPP of pairs ``a < b`` for the weightings ``which`` (indices;
        default all), mixed over the populations of each query column."""
        where, n_out = column_map(self.n_cols, cols)
        which = list(range(self.weights.shape[1])) if which is None else list(which)
        weights, scale = self.weights[:, which], self.scale[:, which]
        out = np.zeros((n_out, len(a), len(which)))
        step = max(1, self.budget // max(len(a) * (len(which) + 3), 1))
        for g0, g1, pos in self.blocks:
            target = where[self.cols[g0:g1]]
            rows = np.flatnonzero(target >= 0)
            for s in range(0, len(rows), step):
                part = rows[s : s + step]
                sums = level_sums(pos[part], a, b, weights)
                sums *= scale[g0 + part, None, :]
                q = target[part]  # added in population order, as one process does
                if len(np.unique(q)) == len(q):
                    out[q] += sums
                else:
                    np.add.at(out, q, sums)
        return np.ascontiguousarray(out.transpose(2, 1, 0))


def level_sums(pos: np.ndarray, a: np.ndarray, b: np.ndarray,
               weights: np.ndarray) -> np.ndarray:
    """(G, P, V) ``Σ_i w_i sgn(f_{b,i} - f_{a,i})`` for pairs ``a < b``, added level
    by level from ``i = 1``: ``pos`` (G, R, L) int32 sorted positions, :data:`PAST`
    when unretrieved; ``weights`` (>= L, V) unnormalised p(i) of V weightings. The
    C kernel (``irpref._native.prefs``) and this NumPy loop give the same doubles."""
    g, r, lvl = pos.shape
    v = weights.shape[1]
    out = np.zeros((g, len(a), v))
    kernels = native("prefs")
    if kernels is not None:
        a, b = np.ascontiguousarray(a, np.int64), np.ascontiguousarray(b, np.int64)
        kernels.level_sums(pos, a, b, np.ascontiguousarray(weights), out, g, r, lvl, len(a),
                           len(weights), v)
        return out
    step = np.empty((g, len(a)))
    for i in range(lvl):
        level = pos[:, :, i]
        diff = np.take(level, b, axis=1)
        diff -= np.take(level, a, axis=1)
        np.sign(diff, out=step, casting="unsafe")
        for k in range(v):
            w = weights[i, k]
            if w == 1.0:
                out[:, :, k] += step
            else:
                out[:, :, k] += step * w
    return out
