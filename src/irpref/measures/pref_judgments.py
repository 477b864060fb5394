"""Runs joined with preference judgments: trec_eval's preference counts.

For every run, query and judgment group (JG) this module counts the
preferences ``A > B`` of the JG the ranking fulfils, the way trec_eval's
form_prefs_counts.c does, vectorized over all queries, JGs and preferences:

- the judged documents of a query get *docid ranks*: those the run retrieved
  (after the depth cut) 0, 1, ... in ranking order, then the others in
  document-id (byte) order. The ranking breaks ties of score by ascending
  document id here (form_prefs_counts.c), not descending as for relevance
  qrels (form_res_rels.c);
- a JG with one judgment subgroup (JSG) prefers every document to every
  document of a lower level; a JG with several JSGs prefers within each JSG,
  and the union is closed transitively (a contradiction is refused, naming a
  line: trec_eval aborts);
- a preference ``A > B`` with docid ranks a, b is *fulfilled* when ``a < b``
  and A was retrieved. Counted per JG: ``ful_ret``/``poss_ret`` (both
  retrieved), ``ful_imp``/``poss_imp`` (exactly one retrieved: fulfilled when
  it is A), ``notoccur`` (neither retrieved; never fulfilled);
- ``num_rel``/``num_nonrel`` (with their retrieved parts) count the JG's
  documents of level > 0 and = 0 (a JG with several JSGs counts a document
  by its level in the last JSG naming it, and leaves out negative levels);
- per document pair, over all JGs: how many prefer each side (prefs_pair).

Everything run-independent (the preference pairs, their closure:
:mod:`irpref.measures.pref_pairs`) is built once per judgment set; each run
adds its docid ranks and a few bincounts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irpref.io.records import Run
from irpref.measures.arithmetic import exact_cumsum
from irpref.measures.pref_pairs import KEY_SHIFT, PrefPairs, dense_codes, run_starts

__all__ = ["JudgedPreferences", "judge_preferences"]


# ---- per run ---------------------------------------------------------------------
COUNTS = ("ful_ret", "poss_ret", "ful_imp", "poss_imp", "notoccur", "num_rel",
          "num_rel_ret", "num_nonrel", "num_nonrel_ret")


@dataclass(frozen=True)
class JudgedPreferences:
    """Preference counts of every run, query and JG (see the module text)."""

    pairs: PrefPairs
    run_names: list[str]
    present: np.ndarray  # (R, Q) the run retrieved something for the query
    groups: dict[str, np.ndarray]  # name in COUNTS -> (R, G) int64
    rnonrel: dict[str, np.ndarray]  # "ful", "poss", "ful_ret", "poss_ret" -> (R, G)
    pair_stats: dict[str, np.ndarray]  # sums and counts over document pairs, (R, Q)

    @property
    def queries(self) -> np.ndarray:
        return self.pairs.queries

    @property
    def n_queries(self) -> int:
        return len(self.pairs.queries)


def _docid_ranks(pairs: PrefPairs, run: Run, depth: int | None) -> tuple[np.ndarray, np.ndarray,
                                                                          np.ndarray]:
    """(J,) docid rank of each judged document, (Q,) number retrieved, (Q,) present."""
    import pandas as pd

    n_q = len(pairs.queries)
    qi = pc.index_in(run.query, value_set=pa.array(pairs.queries.tolist(), pa.string()))
    qi = qi.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    keep = qi >= 0
    present = np.bincount(qi[keep], minlength=n_q) > 0
    docs = np.asarray(run.doc.to_pylist(), dtype=object)[keep]
    q, score = qi[keep], np.asarray(run.score, np.float64)[keep]
    d_code, d_uniq = (dense_codes(docs) if len(docs)
                      else (np.zeros(0, np.int64), np.zeros(0, object)))
    order = np.lexsort((d_code, -score, q))  # score descending, then document id ascending
    q_sorted = q[order]
    start = np.searchsorted(q_sorted, q_sorted, side="left")
    pos = np.arange(len(order)) - start
    cut = pos < depth if depth is not None else np.ones(len(order), bool)
    ret_q, ret_doc, ret_pos = q_sorted[cut], docs[order][cut], pos[cut]
    # judged documents the run retrieved: join on (query, document id)
    judged_q = np.repeat(np.arange(n_q), np.diff(pairs.judged_offsets))
    jkey = pd.MultiIndex.from_arrays([judged_q, pairs.judged_doc])
    hit = jkey.get_indexer(pd.MultiIndex.from_arrays([ret_q, ret_doc]))
    found = hit >= 0
    ret_at = np.full(len(judged_q), -1, np.int64)
    ret_at[hit[found]] = ret_pos[found]
    retrieved = ret_at >= 0
    key = np.where(retrieved, ret_at, KEY_SHIFT + np.arange(len(judged_q)))
    rank_order = np.lexsort((key, judged_q))
    drank = np.empty(len(judged_q), np.int64)
    drank[rank_order] = np.arange(len(judged_q)) - pairs.judged_offsets[judged_q[rank_order]]
    njr = np.bincount(judged_q[retrieved], minlength=n_q)
    return drank, njr, present


def judge_preferences(pairs: PrefPairs, runs: Sequence[Run], depth: int | None = None
                      ) -> JudgedPreferences:
    """The preference counts of every run in ``runs`` (depth: trec_eval -M)."""
    groups = {name: [] for name in COUNTS}
    rnonrel = {name: [] for name in ("ful", "poss", "ful_ret", "poss_ret")}
    stats: dict[str, list[np.ndarray]] = {}
    present = []
    for run in runs:
        drank, njr, here = _docid_ranks(pairs, run, depth)
        present.append(here)
        ec = _ec_tables(pairs, drank, njr)
        counts = _group_counts(pairs, drank, njr, ec)
        for name in COUNTS:
            groups[name].append(counts[name])
        for name, value in _rnonrel(pairs, drank, njr, counts, ec).items():
            rnonrel[name].append(value)
        for name, value in _pair_stats(pairs, drank, njr, counts).items():
            stats.setdefault(name, []).append(value)
    return JudgedPreferences(
        pairs, [run.name for run in runs], np.array(present).reshape(len(runs), -1),
        {k: np.array(v).reshape(len(runs), -1) for k, v in groups.items()},
        {k: np.array(v).reshape(len(runs), -1) for k, v in rnonrel.items()},
        {k: np.array(v).reshape(len(runs), -1) for k, v in stats.items()},
    )


@dataclass(frozen=True)
class _ECTables:
    """One run's view of the EC JGs: per (JG, class) the members ``n`` and
    those retrieved ``m`` (G, K), and per retrieved member the members of
    higher classes retrieved before it (``before``, over ``members``)."""

    n: np.ndarray
    m: np.ndarray
    members: np.ndarray  # indices into the member table: retrieved members of EC JGs
    before: np.ndarray


def _ec_tables(pairs: PrefPairs, drank: np.ndarray, njr: np.ndarray) -> _ECTables:
    n_g, k = pairs.n_groups, max(int(pairs.group_ecs.max(initial=0)), 1)
    mg, ec = pairs.member_group, pairs.member_ec
    mr = drank[pairs.member_doc]
    is_ec = ec >= 0
    m_in = mr < njr[pairs.group_query][mg]
    key = mg[is_ec] * k + ec[is_ec]
    n = np.bincount(key, minlength=n_g * k).reshape(n_g, k)
    m = np.bincount(mg[is_ec & m_in] * k + ec[is_ec & m_in], minlength=n_g * k).reshape(n_g, k)
    # retrieved members in ranking order: the higher-class members ranked before each
    idx = np.flatnonzero(is_ec & m_in)
    idx = idx[np.lexsort((mr[idx], mg[idx]))]
    g, e = mg[idx], ec[idx]
    start, _ = run_starts(g)
    before = np.zeros(len(idx), np.int64)
    for c in range(k - 1):  # one pass per class (a handful for graded qrels), all JGs at once
        seen = np.cumsum(e == c)
        earlier = seen - (e == c) - (seen[start] - (e[start] == c))
        before += np.where(e > c, earlier, 0)
    return _ECTables(n, m, idx, before)


def _pairs_between(x: np.ndarray, y: np.ndarray, upto: np.ndarray | None = None) -> np.ndarray:
    """(G,) sum over classes c < c' of x[g, c] y[g, c'] (c' below ``upto[g]`` if given)."""
    higher = np.cumsum(x, axis=1) - x  # classes above c
    if upto is not None:
        y = np.where(np.arange(y.shape[1])[None, :] < upto[:, None], y, 0)
    return (higher * y).sum(axis=1)


def _group_counts(pairs: PrefPairs, drank: np.ndarray, njr: np.ndarray,
                  ec: _ECTables) -> dict[str, np.ndarray]:
    n_g = pairs.n_groups
    limit = njr[pairs.group_query]
    pa_pair = pairs.group_ecs[pairs.pair_group] == 0  # EC JGs: from their classes below
    pg = pairs.pair_group[pa_pair]
    ra, rb = drank[pairs.pair_a[pa_pair]], drank[pairs.pair_b[pa_pair]]
    lim = limit[pg]
    a_in, b_in = ra < lim, rb < lim

    def count(mask: np.ndarray, group: np.ndarray = pg) -> np.ndarray:
        return np.bincount(group[mask], minlength=n_g).astype(np.int64)

    u = ec.n - ec.m
    out = {
        "ful_ret": count(a_in & b_in & (ra < rb))
        + np.bincount(pairs.member_group[ec.members], weights=ec.before,
                      minlength=n_g).astype(np.int64),
        "poss_ret": count(a_in & b_in) + _pairs_between(ec.m, ec.m),
        "ful_imp": count(a_in & ~b_in) + _pairs_between(ec.m, u),
        "notoccur": count(~a_in & ~b_in) + _pairs_between(u, u),
    }
    out["poss_imp"] = out["ful_imp"] + count(~a_in & b_in) + _pairs_between(u, ec.m)
    mg = pairs.member_group
    m_in = drank[pairs.member_doc] < limit[mg]
    ec_group = pairs.member_ec >= 0
    rel = pairs.member_class == 1
    nonrel = np.where(ec_group, pairs.member_class != 1, pairs.member_class == 0)
    out["num_rel"] = count(rel, mg)
    out["num_rel_ret"] = count(rel & m_in, mg)
    out["num_nonrel"] = count(nonrel, mg)
    out["num_nonrel_ret"] = count(nonrel & m_in, mg)
    return out


def _ratio(ful: np.ndarray, poss: np.ndarray) -> np.ndarray:
    """ful / poss as C computes it (0/0 is NaN)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return ful.astype(np.float64) / poss.astype(np.float64)


def _rank_within(group: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Order sorting (group, key), and each element's position within its group."""
    order = np.lexsort((key, group))
    pos = np.empty(len(group), np.int64)
    start, _ = run_starts(group[order])
    pos[order] = np.arange(len(group)) - start
    return order, pos


def _rnonrel(pairs: PrefPairs, drank: np.ndarray, njr: np.ndarray,
             c: dict[str, np.ndarray], ec_tables: _ECTables) -> dict[str, np.ndarray]:
    """Fulfilled and possible preferences of each JG with its nonrelevant
    documents cut to R (m_prefs_avgjg_Rnonrel.c; ``_ret``: among the retrieved,
    m_prefs_avgjg_Rnonrel_ret.c): when N > R only the first R nonrelevant
    documents in docid-rank order take part, else R (R - N) fulfilled
    preferences are added per retrieved relevant document."""
    out = {}
    for ret in (False, True):
        r = c["num_rel_ret"] if ret else c["num_rel"]
        n = c["num_nonrel_ret"] if ret else c["num_nonrel"]
        if ret:
            ful = c["ful_ret"] + c["num_rel_ret"] * (r - n)
            poss = c["poss_ret"] + c["num_rel"] * (r - n)
        else:
            ful = c["ful_ret"] + c["ful_imp"] + c["num_rel_ret"] * (r - n)
            poss = c["poss_ret"] + c["poss_imp"] + c["notoccur"] + c["num_rel"] * (r - n)
        cut = r < n
        if cut.any():
            f2, p2 = _recalculate(pairs, drank, njr, r, ret, ec_tables)
            ful, poss = np.where(cut, f2, ful), np.where(cut, p2, poss)
        suffix = "_ret" if ret else ""
        out["ful" + suffix], out["poss" + suffix] = ful, poss
    return out


def _recalculate(pairs: PrefPairs, drank: np.ndarray, njr: np.ndarray, r: np.ndarray,
                 ret: bool, tables: _ECTables) -> tuple[np.ndarray, np.ndarray]:
    """The counts of the JGs where N > R, recomputed with R nonrelevant documents."""
    n_g = pairs.n_groups
    lim = njr[pairs.group_query]
    pg = pairs.pair_group
    ra, rb = drank[pairs.pair_a], drank[pairs.pair_b]
    in_a, in_b = ra < lim[pg], rb < lim[pg]
    ec = pairs.group_ecs > 0
    # ---- JGs of equivalence classes: the lowest EC is cut to its first R documents
    mg, mdoc = pairs.member_group, pairs.member_doc
    mr = drank[mdoc]
    m_in = mr < lim[mg]
    last = (pairs.member_ec >= 0) & (pairs.member_ec == pairs.group_ecs[mg] - 1)
    _, pos = _rank_within(np.where(last, mg, -1), mr)
    new = last & (pos < r[mg]) & (m_in if ret else True)
    new_key = np.sort(mg[new] * KEY_SHIFT + mr[new])
    lo_g = np.searchsorted(new_key, mg * KEY_SHIFT, side="left")
    upto = np.searchsorted(new_key, mg * KEY_SHIFT + mr, side="right")
    n_new = np.bincount(mg[new], minlength=n_g)
    greater = n_new[mg] - (upto - lo_g)  # new documents ranked after the member
    x_ok = m_in if ret else np.ones(len(mg), bool)
    x_ful = m_in & x_ok
    ful2 = np.bincount(mg[x_ful], weights=greater[x_ful], minlength=n_g)
    tot2 = np.bincount(mg[x_ok], minlength=n_g) * n_new
    # the preferences between classes above the lowest: from the class tables
    upto = pairs.group_ecs - 1
    b_upper = pairs.member_ec[tables.members] < upto[mg[tables.members]]
    conc = np.bincount(mg[tables.members][b_upper], weights=tables.before[b_upper],
                       minlength=n_g).astype(np.int64)
    u = tables.n - tables.m
    if ret:
        ful1, tot1 = conc, _pairs_between(tables.m, tables.m, upto)
    else:
        ful1 = conc + _pairs_between(tables.m, u, upto)
        tot1 = _pairs_between(tables.n, tables.n, upto)
    ec_ful, ec_poss = ful1 + ful2.astype(np.int64), tot1 + tot2
    # ---- JGs with a preference array: nonrelevant documents after the (R+1)-th
    # nonrelevant one (in docid-rank order; among the retrieved for _ret) drop out
    zero = (pairs.member_class == 0) & (pairs.member_ec < 0) & (m_in if ret else True)
    _, zpos = _rank_within(np.where(zero, mg, -1), mr)
    first_out = np.full(n_g, KEY_SHIFT)
    pick = zero & (zpos == pairs_num_rel(pairs, drank, njr)[mg])
    first_out[mg[pick]] = mr[pick]
    dropped = np.zeros(len(drank), bool)  # per (group, doc): via member table
    out_member = zero & (mr >= first_out[mg])
    key_out = np.sort(mg[out_member] * KEY_SHIFT + mdoc[out_member])
    a_out = np.isin(pg * KEY_SHIFT + pairs.pair_a, key_out)
    b_out = np.isin(pg * KEY_SHIFT + pairs.pair_b, key_out)
    del dropped
    kept = ~ec[pg] & ~a_out & ~b_out & ((in_a & in_b) if ret else True)
    pa_ful = np.bincount(pg[kept & in_a & (ra < rb)], minlength=n_g)
    pa_poss = np.bincount(pg[kept], minlength=n_g)
    return np.where(ec, ec_ful, pa_ful), np.where(ec, ec_poss, pa_poss)


def pairs_num_rel(pairs: PrefPairs, drank: np.ndarray, njr: np.ndarray) -> np.ndarray:
    """(G,) the number of relevant documents of each JG (its R, all of them:
    the PA cut of m_prefs_avgjg_Rnonrel*.c counts ``jg->num_rel`` even for _ret)."""
    rel = pairs.member_class == 1
    return np.bincount(pairs.member_group[rel], minlength=pairs.n_groups)


def _pair_stats(pairs: PrefPairs, drank: np.ndarray, njr: np.ndarray,
                counts: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per query, over document pairs with a preference in some JG: the share
    of the JGs' preferences the ranking fulfils, summed in trec_eval's order
    (both retrieved first, then one retrieved; by docid rank), and the
    number of pairs (all, with one retrieved or both, with both retrieved).

    In a query with one JG every pair is preferred once (its share is 0 or 1,
    and sums of those are exact in any order: the JG's counts give them);
    only queries with several JGs merge the pairs the JGs share and add their
    shares in trec_eval's order."""
    n_q = len(pairs.queries)
    alone = np.bincount(pairs.group_query, minlength=n_q)[pairs.group_query] == 1
    gq = pairs.group_query[alone]

    def per_query(values: np.ndarray) -> np.ndarray:
        return np.bincount(gq, weights=values[alone], minlength=n_q)

    c = counts
    out = {
        "sum_ret": per_query(c["ful_ret"]),
        "sum_imp": per_query(c["ful_ret"] + c["ful_imp"]),
        "n_ret": per_query(c["poss_ret"]).astype(np.int64),
        "n_imp": per_query(c["poss_ret"] + c["poss_imp"]).astype(np.int64),
        "n_all": per_query(c["poss_ret"] + c["poss_imp"] + c["notoccur"]).astype(np.int64),
    }
    several = ~alone[pairs.pair_group]
    if several.any():
        q = pairs.group_query[pairs.pair_group[several]]
        ra, rb = drank[pairs.pair_a[several]], drank[pairs.pair_b[several]]
        merged = _merged_pair_stats(pairs, q, np.minimum(ra, rb), np.maximum(ra, rb),
                                    ra < rb, njr)
        for name, value in merged.items():
            out[name] = out[name] + value
    return out


def _merged_pair_stats(pairs: PrefPairs, q: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                       fwd: np.ndarray, njr: np.ndarray) -> dict[str, np.ndarray]:
    n_q = len(pairs.queries)
    base = pairs.judged_offsets[q]
    width = np.int64(max(int(pairs.judged_offsets[-1]), 1))
    key = (base + lo) * width + (base + hi)
    uniq, inv = np.unique(key, return_inverse=True)
    total = np.bincount(inv, minlength=len(uniq))
    forward = np.bincount(inv, weights=fwd, minlength=len(uniq))
    first = np.zeros(len(uniq), np.int64)
    first[inv] = np.arange(len(inv))
    uq, ulo, uhi = q[first], lo[first], hi[first]
    lim = njr[uq]
    both = uhi < lim
    some = ulo < lim
    frac = forward / total
    order = np.lexsort((uhi, ulo, ~both, uq))
    order = order[some[order]]
    counts = np.bincount(uq[order], minlength=n_q)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    sums = exact_cumsum(frac[order], offsets) if len(order) else np.zeros(1)
    n_ret = np.bincount(uq[both], minlength=n_q)
    sum_imp = np.where(counts > 0, sums[np.maximum(offsets[1:] - 1, 0)], 0.0)
    sum_ret = np.where(n_ret > 0, sums[np.maximum(offsets[:-1] + n_ret - 1, 0)], 0.0)
    return {"sum_imp": sum_imp, "sum_ret": sum_ret, "n_ret": n_ret, "n_imp": counts,
            "n_all": np.bincount(uq, minlength=n_q)}
