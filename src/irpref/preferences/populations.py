"""Populations of users: the sorted positions of the relevant items each run retrieved.

Preferences read one thing: the sorted positions of the relevant items of
each run, per *population* of users (the query's relevant items; for graded
RPP the items of grade >= λ; for subtopic RPP the items of one subtopic).
:class:`Populations` holds them flat, sorted by (population, run, level),
with populations ordered by ``L``, their largest number of retrieved relevant
items, so that a contiguous block of populations is a dense
``(G, R, L)`` array with little padding.

Conventions (those of pref_eval, the authors' implementation, on binary
judgments): a run lacking a query retrieved nothing for it; unretrieved
relevant items tie with each other and lose to retrieved ones; queries with
no relevant item get no population (pref_eval drops them from its qrels).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irpref.io.subtopics import SubtopicQrels
from irpref.judging.judged import JudgedRankings, matching_rows
from irpref.preferences.lexicographic import SENTINEL

__all__ = [
    "BUDGET",
    "Populations",
    "binary_populations",
    "graded_populations",
    "subtopic_populations",
]

BUDGET = 1 << 22
"""Elements (float64) per block of the kernels' working arrays (32 MB)."""


@dataclass(frozen=True, eq=False)
class Populations:
    """Sorted relevant positions per (population, run), populations ordered by L."""

    n_runs: int
    query: np.ndarray  # (G,) query index of each population
    m: np.ndarray  # (G,) relevant items of the population (retrieved or not)
    weight: np.ndarray  # (G,) p(g) within its query
    count: np.ndarray  # (G, R) relevant items retrieved
    item_offsets: np.ndarray  # (G+1,) items of population g at [off[g], off[g+1])
    run: np.ndarray  # per item, sorted by (population, run, level)
    level: np.ndarray  # per item, 0-based recall level
    position: np.ndarray  # per item, 1-based rank (float64)

    @property
    def n_pops(self) -> int:
        return len(self.query)

    @property
    def depth(self) -> np.ndarray:
        """(G,) L: the largest number of relevant items a run retrieved."""
        return self.count.max(axis=1, initial=0)

    def dense(self, g0: int, g1: int, width: int | None = None) -> np.ndarray:
        """(g1-g0, R, L) positions of populations [g0, g1), :data:`SENTINEL` padded."""
        width = int(self.depth[g0:g1].max(initial=0)) if width is None else width
        out = np.full((g1 - g0, self.n_runs, max(width, 1)), SENTINEL)
        s0, s1 = self.item_offsets[g0], self.item_offsets[g1]
        pop = np.repeat(np.arange(g1 - g0), np.diff(self.item_offsets[g0 : g1 + 1]))
        out[pop, self.run[s0:s1], self.level[s0:s1]] = self.position[s0:s1]
        return out

    def blocks(self, per_pop: np.ndarray, budget: int = BUDGET) -> Iterator[tuple[int, int]]:
        """Contiguous [g0, g1) blocks whose cost ``n_pops * max(per_pop)`` fits ``budget``."""
        g0, n = 0, self.n_pops
        while g0 < n:
            # per_pop is nondecreasing (populations sorted by L): largest block that fits
            size = np.arange(1, n - g0 + 1)
            fits = size * np.maximum(per_pop[g0:], 1) <= budget
            g1 = g0 + max(int(np.argmin(fits)) if not fits.all() else n - g0, 1)
            yield g0, g1
            g0 = g1


def _finish(
    n_runs: int,
    pop: np.ndarray,
    run: np.ndarray,
    position: np.ndarray,
    pop_query: np.ndarray,
    pop_m: np.ndarray,
) -> Populations:
    """Sort items by (population ordered by L, run, rank) and compute p(g) ∝ m_g."""
    n_pops = len(pop_query)
    # (temporaries made in place and dropped early: these arrays have one
    # entry per relevant item and population, the largest of compare)
    key = pop * n_runs
    key += run
    count = np.bincount(key, minlength=n_pops * n_runs).reshape(n_pops, n_runs)
    depth = count.max(axis=1, initial=0)
    perm = np.lexsort((pop_query, depth))  # by L, then query
    new_id = np.empty(n_pops, np.int64)
    new_id[perm] = np.arange(n_pops)
    np.take(new_id, pop, out=key)
    key *= n_runs
    key += run
    order = np.argsort(key, kind="stable")  # items arrive in rank order per segment
    count = count[perm]
    starts = np.zeros(n_pops * n_runs + 1, np.int64)
    np.cumsum(count.ravel(), out=starts[1:])
    level = np.arange(len(key), dtype=np.int64)
    level -= starts[key[order]]
    del key
    item_offsets = starts[:: n_runs].copy()
    query = pop_query[perm]
    m = pop_m[perm]
    totals = np.bincount(query, weights=m, minlength=int(query.max(initial=-1)) + 1)
    weight = m / totals[query] if n_pops else np.zeros(0)
    return Populations(
        n_runs=n_runs,
        query=query,
        m=m,
        weight=weight,
        count=count,
        item_offsets=item_offsets,
        run=run[order],
        level=level,
        position=position[order],
    )


def _relevant_items(judged: JudgedRankings, rel: int) -> tuple[np.ndarray, ...]:
    mask = judged.grade >= rel
    seg = judged.segment[mask]
    return (
        seg % judged.n_queries,
        seg // judged.n_queries,
        (judged.rank[mask] + 1).astype(np.float64),
        judged.grade[mask].astype(np.int64),
    )


def binary_populations(judged: JudgedRankings, rel: int) -> Populations:
    """One population per query with a relevant item: grade >= rel (Eq. 4)."""
    m_q = judged.num_rel(rel)
    keep = np.flatnonzero(m_q > 0)
    pop_of_query = np.full(judged.n_queries, -1, np.int64)
    pop_of_query[keep] = np.arange(len(keep))
    q, r, pos, _ = _relevant_items(judged, rel)
    return _finish(judged.n_runs, pop_of_query[q], r, pos, keep, m_q[keep].astype(np.float64))


def _distinct_counts(keys: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_counts=True)`` for keys in [0, bound): by counting
    when the bound is not much larger than the keys (5 M qrels rows of 500,000
    users: 0.05 s where the hashing unique takes 2 s), else by ``np.unique``."""
    if bound <= 4 * len(keys) + 1024:
        counts = np.bincount(keys, minlength=bound)
        present = np.flatnonzero(counts)
        return present, counts[present]
    return np.unique(keys, return_counts=True)


def graded_populations(judged: JudgedRankings, rel: int) -> Populations:
    """One population per query and grade λ >= rel present in its qrels:
    the items of grade >= λ (RPP Eq. 5)."""
    keep = judged.qrels_grade >= rel
    qq = judged.qrels_query[keep]
    gg = judged.qrels_grade[keep].astype(np.int64) - rel
    span = int(gg.max(initial=0)) + 1
    keys, cnt = _distinct_counts(qq * span + gg, judged.n_queries * span)
    pop_query = keys // span
    # m_λ = number of items of grade >= λ: suffix sums within each query
    suffix = np.concatenate((np.cumsum(cnt[::-1])[::-1], [0]))
    first = np.searchsorted(pop_query, np.arange(judged.n_queries))
    nxt = np.searchsorted(pop_query, pop_query, side="right")
    pop_m = (suffix[np.arange(len(keys))] - suffix[nxt]).astype(np.float64)
    q, r, pos, grade = _relevant_items(judged, rel)
    c = np.searchsorted(keys, q * span + (grade - rel), side="right") - first[q]
    del grade
    idx = np.repeat(np.arange(len(q)), c)
    pop = np.arange(len(idx))
    pop -= np.repeat(np.cumsum(c) - c, c)  # position within the item's populations
    pop += first[q][idx]
    del q, c
    run, position = r[idx], pos[idx]
    del r, pos, idx
    return _finish(judged.n_runs, pop, run, position, pop_query, pop_m)


def subtopic_populations(judged: JudgedRankings, sub: SubtopicQrels, rel: int) -> Populations:
    """One population per (query, subtopic) with a relevant item, plus the
    background t* of items relevant to any subtopic (RPP Eq. 6, §5.3)."""
    q = pc.index_in(sub.query, value_set=pa.array(list(judged.queries), pa.string()))
    q = q.fill_null(-1).to_numpy().astype(np.int64)
    ok = (q >= 0) & (sub.grade >= rel)
    if judged.docs is not None:
        d = pc.index_in(sub.doc, value_set=judged.docs).fill_null(-1).to_numpy()
    else:  # pragma: no cover - judge() always records the documents
        raise ValueError("subtopic RPP needs the judged document ids")
    d = d.astype(np.int64)
    local = pc.dictionary_encode(sub.doc).indices.to_numpy().astype(np.int64)
    topic = pc.dictionary_encode(sub.subtopic)
    t_code = topic.indices.to_numpy().astype(np.int64) + 1  # 0 = background t*
    real = sub.has_subtopic
    n_local = int(local.max(initial=0)) + 1
    # background rows: distinct relevant (query, document), any subtopic
    bkey = np.unique(q[ok] * n_local + local[ok])
    bq, bl = bkey // n_local, bkey % n_local
    first_doc = np.full(n_local, -1, np.int64)
    first_doc[local[::-1]] = d[::-1]
    rows_q = np.concatenate((bq, q[ok & real]))
    rows_t = np.concatenate((np.zeros(len(bq), np.int64), t_code[ok & real]))
    rows_d = np.concatenate((first_doc[bl], d[ok & real]))
    n_t = len(topic.dictionary) + 1
    pkeys, row_pop, pop_m = np.unique(rows_q * n_t + rows_t, return_inverse=True,
                                      return_counts=True)
    pop_query = pkeys // n_t
    # join retrieved items with the rows on (query, document)
    known = rows_d >= 0
    n_docs = max(judged.n_docs, 1)
    rkey = rows_q[known] * n_docs + rows_d[known]
    rorder = np.argsort(rkey, kind="stable")
    rkey, rpop = rkey[rorder], row_pop[known][rorder]
    ikey = judged.query_of_item * n_docs + judged.doc
    idx, row = matching_rows(rkey, ikey)
    pop = rpop[row]
    run = judged.segment[idx] // judged.n_queries
    pos = (judged.rank[idx] + 1).astype(np.float64)
    return _finish(judged.n_runs, pop, run, pos, pop_query, pop_m.astype(np.float64))
