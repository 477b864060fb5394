"""The all-pairs engine: every preference for every run pair of every query.

Preferences read one thing: the sorted positions of the relevant items of
each run, per *population* of users (the query's relevant items; for graded
RPP the items of grade >= λ; for subtopic RPP the items of one subtopic).
:class:`Populations` holds them flat, sorted by (population, run, level),
with populations ordered by ``L``, their largest number of retrieved relevant
items, so that a contiguous block of populations is a dense
``(G, R, L)`` array with little padding.

- sgnLP / sgnLR: one ``np.lexsort`` per block gives every run's exact rank
  under the total order; a pair's preference is the sign of the rank
  difference (O(R log R · L) per query, not O(R² L)).
- rrLP: the deciding level of a pair is the minimum of the longest common
  prefixes between neighbours in that sorted order (O(R²) per query).
- RPP variants: ``sgn(f_b - f_a)`` for all pairs ``a < b`` and levels, one
  (G·P, L) x (L, V) matrix product for all weightings at once.

No Python loop runs per query or per pair: blocks hold as many populations
as a memory budget allows.

Conventions (those of pref_eval, the authors' implementation, on binary
judgments): a run lacking a query retrieved nothing for it; unretrieved
relevant items tie with each other and lose to retrieved ones; queries with
no relevant item get no value (pref_eval drops them from its qrels), so means
are over the queries with at least one relevant item.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from irpref.condense import condensed
from irpref.io.subtopics import SubtopicQrels
from irpref.judged import JudgedRankings, LayoutError, matching_rows
from irpref.params import check_rel
from irpref.preferences.lexicographic import (
    SENTINEL,
    lexicographic_ranks,
    pairwise_from_ranks,
    rr_lp_matrix,
)
from irpref.preferences.registry import Preference, parse_preferences
from irpref.preferences.rpp import level_weights, rpp_chunk

__all__ = [
    "Comparison",
    "Populations",
    "binary_populations",
    "graded_populations",
    "preference_matrices",
    "subtopic_populations",
]

BUDGET = 1 << 22  # float64 elements per block of the R² x L array (32 MB)


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


def graded_populations(judged: JudgedRankings, rel: int) -> Populations:
    """One population per query and grade λ >= rel present in its qrels:
    the items of grade >= λ (RPP Eq. 5)."""
    keep = judged.qrels_grade >= rel
    qq = judged.qrels_query[keep]
    gg = judged.qrels_grade[keep].astype(np.int64) - rel
    span = int(gg.max(initial=0)) + 1
    keys, cnt = np.unique(qq * span + gg, return_counts=True)
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


# ---------------------------------------------------------------- engine


@dataclass(eq=False)
class Comparison:
    """Per-query preference matrices of every preference.

    ``values[text]`` is (Q_p, R, R), antisymmetric: entry ``[q, a, b]`` is the
    preference of run ``a`` over run ``b`` on query ``queries[text][q]``.
    """

    runs: list[str]
    preferences: list[Preference]
    queries: dict[str, np.ndarray] = field(default_factory=dict)
    values: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return [str(p) for p in self.preferences]

    def mean(self, name: str) -> np.ndarray:
        """(R, R) mean preference over the queries of ``name``."""
        v = self.values[name]
        r = len(self.runs)
        out = np.zeros((r, r))
        if len(v):
            a, b = np.triu_indices(r, 1)
            upper = np.ascontiguousarray(v[:, a, b].T).mean(axis=1)  # as mean_preferences
            out[a, b] = upper
            out[b, a] = -upper
        return out

    def tidy(self) -> pd.DataFrame:
        """Long table (run_a, run_b, query, measure, value), pairs ``a < b`` in
        input order, one row per query (categorical key columns)."""
        r = len(self.runs)
        a, b = np.triu_indices(r, 1)
        all_q = sorted(set().union(*(set(q) for q in self.queries.values())))
        q_index = pd.Index(all_q)
        parts = {k: [] for k in ("a", "b", "q", "m", "v")}
        for mi, name in enumerate(self.names):
            qs = q_index.get_indexer(self.queries[name])
            nq = len(qs)
            vals = self.values[name][:, a, b].T  # (P, Q)
            parts["a"].append(np.repeat(a, nq))
            parts["b"].append(np.repeat(b, nq))
            parts["q"].append(np.tile(qs, len(a)))
            parts["m"].append(np.full(len(a) * nq, mi))
            parts["v"].append(vals.ravel())
        cat = pd.Categorical.from_codes
        runs = list(self.runs)

        def join(key: str) -> np.ndarray:
            return np.concatenate(parts[key]) if parts[key] else np.zeros(0, np.int64)

        return pd.DataFrame(
            {
                "run_a": cat(join("a"), categories=runs),
                "run_b": cat(join("b"), categories=runs),
                "query": cat(join("q"), categories=all_q),
                "measure": cat(join("m"), categories=self.names),
                "value": join("v").astype(np.float64),
            }
        )

    def tidy_means(self) -> pd.DataFrame:
        """Means over queries as a long table: run_a, run_b, measure, value (no query)."""
        r = len(self.runs)
        a, b = np.triu_indices(r, 1)
        frames = [
            pd.DataFrame(
                {
                    "run_a": np.asarray(self.runs, dtype=object)[a],
                    "run_b": np.asarray(self.runs, dtype=object)[b],
                    "measure": name,
                    "value": self.mean(name)[a, b],
                }
            )
            for name in self.names
        ]
        return pd.concat(frames, ignore_index=True)


def _to_matrices(upper: np.ndarray, r: int) -> np.ndarray:
    """(Q, P) values of pairs a < b -> (Q, R, R) antisymmetric matrices."""
    a, b = np.triu_indices(r, 1)
    out = np.zeros((upper.shape[0], r, r))
    out[:, a, b] = upper
    out[:, b, a] = -upper
    return out


def _serial(func, pops, blocks, *args) -> list:
    """The population blocks one after the other (``map_blocks`` of
    :func:`preference_matrices`; :mod:`irpref.distributed` runs them as tasks)."""
    return [func(pops, g0, g1, *args) for g0, g1 in blocks]


def _lexicographic_block(pops: Populations, g0: int, g1: int,
                         wanted: set[tuple[str, str]]) -> dict[tuple[str, str], np.ndarray]:
    """The matrices of the wanted (order, value) pairs of one block: one total
    order of the runs per population and ``order`` (``precision``: from the top,
    ``recall``: from the bottom); ``value`` ``sign`` (the sign of the rank
    difference) or ``rr`` (the reciprocal-rank difference at the deciding level)."""
    pos = pops.dense(g0, g1)
    count = pops.count[g0:g1]
    out = {}
    for order in sorted({o for o, _ in wanted}):
        rank, ordering, lcp = lexicographic_ranks(pos, count, order)
        if (order, "sign") in wanted:
            out[order, "sign"] = pairwise_from_ranks(rank)
        if (order, "rr") in wanted:
            out[order, "rr"] = rr_lp_matrix(pos, ordering, lcp)
    return out


def _lexicographic(pops: Populations, wanted: set[tuple[str, str]],
                   map_blocks=_serial) -> dict[tuple[str, str], np.ndarray]:
    """The (Q_p, R, R) matrices of the lexicographic preferences (sgnLP, rrLP,
    sgnLR: their records' ``order`` and ``value``) of binary populations."""
    r = pops.n_runs
    out = {k: np.zeros((pops.n_pops, r, r)) for k in wanted}
    blocks = list(pops.blocks(pops.depth * r, BUDGET // 2))
    for (g0, g1), mats in zip(blocks, map_blocks(_lexicographic_block, pops, blocks, wanted)):
        for k, v in mats.items():
            out[k][g0:g1] = v
    return out


def _rpp_block(pops: Populations, g0: int, g1: int, w: np.ndarray,
               scale: np.ndarray) -> np.ndarray:
    return rpp_chunk(pops.dense(g0, g1), w) * scale[g0:g1, None, :]


def _rpp(pops: Populations, weightings: Sequence[str], n_queries: int,
         map_blocks=_serial) -> np.ndarray:
    """(Q, P, V) RPP of every pair a < b for each weighting, mixed over populations."""
    r = pops.n_runs
    n_pairs = r * (r - 1) // 2
    max_level = int(max(pops.depth.max(initial=0), pops.m.max(initial=0), 1))
    w = np.column_stack([level_weights(max_level, p) for p in weightings])
    cum = np.vstack((np.zeros(len(weightings)), np.cumsum(w, axis=0)))
    norm = cum[pops.m.astype(np.int64)]  # (G, V): Σ_{i <= m_g} w_i
    scale = np.zeros_like(norm)
    np.divide(pops.weight[:, None], norm, out=scale, where=norm > 0)
    out = np.zeros((n_queries, n_pairs, len(weightings)))
    if n_pairs == 0:
        return out
    blocks = list(pops.blocks(pops.depth * n_pairs))
    for (g0, g1), s in zip(blocks, map_blocks(_rpp_block, pops, blocks, w, scale)):
        q = pops.query[g0:g1]  # summed in block order, as one process does
        if len(np.unique(q)) == len(q):
            out[q] += s
        else:
            np.add.at(out, q, s)
    return out


def preference_matrices(
    judged: JudgedRankings,
    preferences: str | Preference | Sequence[str | Preference],
    *,
    subtopics: SubtopicQrels | None = None,
    map_blocks=None,
) -> Comparison:
    """All preferences for all run pairs and queries of ``judged``.

    Relevance is ``grade >= rel`` with ``rel`` the preference's parameter or
    ``judged.rel``; a preference with ``judged_only=true`` compares the
    condensed lists (:func:`irpref.condense.condensed`, unjudged documents removed; Sakai
    2007). ``subtopics`` (ndeval-format judgments) is needed by
    ``ST-RPP`` only. ``map_blocks(func, pops, blocks, *args)`` returns
    ``[func(pops, g0, g1, *args) for g0, g1 in blocks]`` in order (default: in
    this process; :mod:`irpref.distributed` runs the blocks on Dask).
    """
    map_blocks = map_blocks or _serial
    prefs = parse_preferences(preferences)
    if judged.ties == "expected":
        raise ValueError("preferences compare one ranking per run: use ties='docid' or 'input'")
    if judged.n_runs == 0:
        raise ValueError("compare needs at least one run")
    if judged.compact:
        for p in prefs:
            if not p.family.compact:
                raise LayoutError(f"{p} needs every retrieved item; these judged rankings "
                                  "are compact: judge with layout='full'")
    for p in prefs:
        check_rel(p.rel(judged.rel), f"{p}: rel")
    if any(p.judged_only for p in prefs) and not isinstance(judged, JudgedRankings):
        raise ValueError("judged_only=true needs judged rankings with every judged item "
                         "(not only the relevant ones): compare without Dask")
    comp = Comparison(runs=list(judged.run_names), preferences=prefs)
    r = judged.n_runs
    # group the work by population set (judged_only: of the condensed lists)
    Job = tuple[str, int, bool]
    jobs: dict[Job, list[Preference]] = {}
    for p in prefs:
        jobs.setdefault((p.family.population_of(p), p.rel(judged.rel), p.judged_only),
                        []).append(p)
    cache: dict[Job, Populations] = {}

    def populations(kind: str, rel: int, judged_only: bool) -> Populations:
        key = (kind, rel, judged_only)
        source = condensed(judged) if judged_only else judged
        if key not in cache:
            if kind == "binary":
                cache[key] = binary_populations(source, rel)
            elif kind == "graded":
                pops = graded_populations(source, rel)
                if pops.n_pops == len(np.unique(pops.query)):  # one grade per query
                    pops = populations("binary", rel, judged_only)
                cache[key] = pops
            else:
                if subtopics is None:
                    needs = ", ".join(str(p) for p in prefs if p.family.needs_subtopics)
                    raise ValueError(f"{needs} needs subtopic judgments (ndeval format): "
                                     "pass subtopics=... (CLI: --subtopics FILE)")
                cache[key] = subtopic_populations(source, subtopics, rel)
        return cache[key]

    todo = list(jobs)
    for job, plist in jobs.items():
        todo.remove(job)
        pops = populations(*job)
        for key in [k for k in cache if k not in todo]:  # not needed again: free it
            del cache[key]
        kept = np.unique(pops.query)  # queries with a relevant item, sorted
        local = np.searchsorted(kept, pops.query)
        lex = [p for p in plist if p.family.engine == "lexicographic"]
        if lex:
            mats = _lexicographic(pops, {(p.family.order, p.family.value) for p in lex},
                                  map_blocks)
            for p in lex:  # binary populations: one per query
                res = np.zeros((len(kept), r, r))
                res[local] = mats[p.family.order, p.family.value]
                comp.values[str(p)] = res
                comp.queries[str(p)] = judged.queries[kept]
        rpps = [p for p in plist if p.family.engine == "rpp"]
        if rpps:
            weightings = sorted({p.get("p") for p in rpps})
            shifted = Populations(
                pops.n_runs, local, pops.m, pops.weight, pops.count, pops.item_offsets,
                pops.run, pops.level, pops.position,
            )
            upper = _rpp(shifted, weightings, len(kept), map_blocks)
            for p in rpps:
                v = weightings.index(p.get("p"))
                comp.values[str(p)] = _to_matrices(upper[:, :, v], r)
                comp.queries[str(p)] = judged.queries[kept]
    return comp
