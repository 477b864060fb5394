"""The classical rank measures of binary relevance (grade >= ``rel``): NumRet,
NumRel, NumRelRet, P, R, F1, AP, RR, Success, Rprec, RBP, exactly as trec_eval
10.0 computes them, each with its tie-aware (``ties="expected"``) kernel at
the end of the module; their bounds rules are in
:mod:`irpref.measures.rank_bounds`.

Each kernel maps :class:`~irpref.judging.judged.JudgedRankings` to an (R, Q) array
of per-query values, vectorised over every run and query at once. The
trec_eval source file a measure follows is named in its ``source``.
Conventions shared with trec_eval: an item is relevant when its grade is
``>= rel``; a query with no relevant document scores 0; precision at k
divides by k even when fewer than k items were retrieved.
"""

from __future__ import annotations

import numpy as np

from irpref.judging.judged import JudgedRankings
from irpref.measures.arithmetic import divide, power_table, segment_scan
from irpref.measures.base import (
    REL,
    TREC_CUTS,
    Alias,
    Measure,
    Param,
    TrecName,
    attach_kernel,
    register,
)
from irpref.measures.rank_bounds import (
    ap_bounds,
    f1_bounds,
    recall_bounds,
    rprec_bounds,
    unchanged_bounds,
)
from irpref.measures.ties import (
    expected_rel_ret,
    first_irrelevant_fraction,
    first_relevant_group,
    tie_groups,
)


@register(
    "NumRet",
    bounds=unchanged_bounds,
    compact=True,
    compact_expected=True,
    order_free=True,
    examples=("NumRet", "NumRet@3"),
    range="[0, inf)",
    trec=(TrecName("num_ret", "NumRet", value="long", average="sum"),),
    ir_measures="NumRet",
    orientation="none",
    formula="number of retrieved documents (after the depth cut-off), within the cut-off",
    source="trec_eval m_num_ret.c",
    kind="count",
    aggregate=np.sum,
)
def num_ret(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """Documents the run retrieved for the query (min(count, k) with a cut-off);
    the aggregate is the sum over queries, as trec_eval's num_ret."""
    n = judged.num_ret
    return np.minimum(n, m.cutoff) if m.cutoff is not None else n


@register(
    "NumRel",
    bounds="monotone",
    compact=True,
    compact_expected=True,
    order_free=True,
    examples=("NumRel", "NumRel(rel=2)"),
    range="[0, inf)",
    trec=(TrecName("num_rel", "NumRel", value="long", average="sum"),),
    ir_measures="NumRel",
    orientation="none",
    formula="number of judged documents with grade >= rel",
    source="trec_eval m_num_rel.c",
    params=REL,
    cutoff="none",
    kind="count",
    aggregate=np.sum,
)
def num_rel(judged: JudgedRankings, m: Measure) -> np.ndarray:
    return np.broadcast_to(judged.num_rel(m.rel(judged)), (judged.n_runs, judged.n_queries))


@register(
    "NumRelRet",
    bounds="monotone",
    compact=True,
    compact_expected=True,
    examples=("NumRelRet", "NumRelRet@2", "NumRelRet(rel=2)@5"),
    range="[0, inf)",
    trec=(TrecName("num_rel_ret", "NumRelRet", value="long", average="sum"),),
    ir_measures="NumRet(rel=...)",
    aliases=(
        Alias("hits", "ranx", note="ranx's hits@k (relevant documents in the top k) is averaged "
              "over queries; irpref's NumRelRet is summed over queries, as trec_eval's "
              "num_rel_ret"),
    ),
    formula="number of relevant documents retrieved (within the cut-off)",
    source="trec_eval m_num_rel_ret.c",
    params=REL,
    kind="count",
    aggregate=np.sum,
)
def num_rel_ret(judged: JudgedRankings, m: Measure) -> np.ndarray:
    counts = segment_scan(judged, "count", m.rel(judged), m.cutoff)
    if counts is not None:  # one C pass over the items
        return counts
    items = judged.items_with_grade(m.rel(judged))
    if m.cutoff is None:
        counts = np.diff(items.offsets)
    else:
        counts = np.bincount(items.segment[items.rank < m.cutoff], minlength=judged.n_segments)
    return counts.reshape(judged.n_runs, judged.n_queries)


@register(
    "P",
    bounds="monotone",
    compact=True,
    compact_expected=True,
    examples=("P@1", "P@3", "P(rel=2)@5"),
    range="[0, 1]",
    trec=(TrecName("P", "P@{k}", "cut_long", TREC_CUTS),),
    ir_measures="P",
    aliases=(Alias("precision", "ranx"),),
    formula="P@k = |relevant in top k| / k",
    source="trec_eval m_P.c",
    params=REL,
    cutoff="required",
)
def precision(judged: JudgedRankings, m: Measure) -> np.ndarray:
    return num_rel_ret(judged, m) / m.cutoff


@register(
    "R",
    bounds=recall_bounds,
    compact=True,
    compact_expected=True,
    examples=("R", "R@2", "R(rel=2)@10"),
    range="[0, 1]",
    trec=(TrecName("recall", "R@{k}", "cut_long", TREC_CUTS),),
    ir_measures="R",
    aliases=(Alias("recall", "ranx (recall@k), trec_eval (recall.k)"),),
    notes="R@k is recall at k (ir_measures R@k = trec_eval recall.k = ranx recall@k), "
    "not R-precision (Rprec)",
    formula="R@k = |relevant in top k| / |relevant|  (0 when no relevant document)",
    source="trec_eval m_recall.c",
    params=REL,
)
def recall(judged: JudgedRankings, m: Measure) -> np.ndarray:
    return divide(num_rel_ret(judged, m), judged.num_rel(m.rel(judged))[None, :])


def _f1_cutoff(judged: JudgedRankings, m: Measure) -> np.ndarray:
    return judged.num_ret if m.cutoff is None else np.full(judged.num_ret.shape, m.cutoff)


@register(
    "F1",
    bounds=f1_bounds,
    compact=True,  # counts only
    compact_expected=True,
    examples=("F1", "F1@3"),
    range="[0, 1]",
    aliases=(Alias("f1", "ranx"),),
    formula="F1@k = 2 P@k R@k / (P@k + R@k) = 2 |relevant in top k| / (k + |relevant|); "
    "without a cut-off k = number retrieved (set F1, trec_eval set_F with beta=1)",
    source="McSherry & Najork 2008, section 2.3; trec_eval m_set_F.c",
    params=REL,
)
def f1(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """F1@k = 2 rel_ret / (k + num_rel) (McSherry & Najork 2008, 2.3); 0 when undefined."""
    den = _f1_cutoff(judged, m) + judged.num_rel(m.rel(judged))[None, :]
    return divide(2.0 * num_rel_ret(judged, m), den)


@register(
    "AP",
    bounds=ap_bounds,
    compact=True,
    compact_expected=True,
    examples=("AP", "AP@3", "AP(rel=2)"),
    range="[0, 1]",
    trec=(TrecName("map", "AP"), TrecName("map_cut", "AP@{k}", "cut_long", TREC_CUTS)),
    ir_measures="AP",
    aliases=(Alias("map", "trec_eval, ranx, PyTerrier, pytrec_eval"),
             Alias("MAP", "common usage")),
    formula="AP = sum over relevant retrieved d within the cut-off of P@rank(d), "
    "divided by |relevant|",
    source="trec_eval m_map.c, m_map_cut.c",
    params=REL,
)
def average_precision(judged: JudgedRankings, m: Measure) -> np.ndarray:
    sums = segment_scan(judged, "ap", m.rel(judged), m.cutoff)  # one C pass, or
    if sums is not None:
        return divide(sums, judged.num_rel(m.rel(judged))[None, :])
    # on the relevant items only: hits = 1 + their position among the
    # segment's relevant items; summed in item order, as over all items
    items = judged.items_with_grade(m.rel(judged))
    hits = items.nth + 1
    prec = hits / (items.rank + 1.0)
    seg = items.segment
    if m.cutoff is not None:
        keep = items.rank < m.cutoff
        prec, seg = prec[keep], seg[keep]
    sums = np.bincount(seg, weights=prec, minlength=judged.n_segments)
    sums = sums.reshape(judged.n_runs, judged.n_queries)
    return divide(sums, judged.num_rel(m.rel(judged))[None, :])


@register(
    "RR",
    bounds="monotone",
    compact=True,
    compact_expected=True,
    examples=("RR", "RR@2", "RR(rel=2)"),
    range="[0, 1]",
    trec=(TrecName("recip_rank", "RR"),),
    ir_measures="RR",
    aliases=(Alias("mrr", "ranx"), Alias("MRR", "common usage"),
             Alias("recip_rank", "trec_eval, PyTerrier, pytrec_eval")),
    formula="RR = 1 / rank of the first relevant document (0 if none within the cut-off)",
    source="trec_eval m_recip_rank.c",
    params=REL,
)
def reciprocal_rank(judged: JudgedRankings, m: Measure) -> np.ndarray:
    values = segment_scan(judged, "rr", m.rel(judged), m.cutoff)
    if values is not None:  # one C pass over the items
        return values
    items = judged.items_with_grade(m.rel(judged))
    has = np.flatnonzero(np.diff(items.offsets) > 0)
    rank = items.rank[items.offsets[has]]  # of the first relevant item
    if m.cutoff is not None:
        has, rank = has[rank < m.cutoff], rank[rank < m.cutoff]
    out = np.zeros(judged.n_segments)
    out[has] = 1.0 / (rank + 1.0)
    return out.reshape(judged.n_runs, judged.n_queries)


@register(
    "Success",
    bounds="monotone",
    compact=True,
    compact_expected=True,
    examples=("Success@1", "Success(rel=2)@3"),
    range="[0, 1]",
    trec=(TrecName("success", "Success@{k}", "cut_long", (1, 5, 10)),),
    ir_measures="Success",
    aliases=(Alias("hit_rate", "ranx"), Alias("success", "trec_eval (success.k)")),
    notes="ranx calls it hit_rate@k; ranx's hits@k is NumRelRet@k",
    formula="Success@k = 1 if a relevant document is in the top k, else 0",
    source="trec_eval m_success.c",
    params=REL,
    cutoff="required",
)
def success(judged: JudgedRankings, m: Measure) -> np.ndarray:
    return (num_rel_ret(judged, m) > 0).astype(np.float64)


@register(
    "Rprec",
    bounds=rprec_bounds,
    compact=True,
    compact_expected=True,
    examples=("Rprec", "Rprec(rel=2)"),
    range="[0, 1]",
    trec=(TrecName("Rprec", "Rprec"),),
    ir_measures="Rprec",
    aliases=(Alias("r-precision", "ranx"), Alias("r_precision", "common usage")),
    formula="Rprec = |relevant in top R| / R, R = |relevant|",
    source="trec_eval m_Rprec.c",
    params=REL,
    cutoff="none",
)
def r_precision(judged: JudgedRankings, m: Measure) -> np.ndarray:
    r = judged.num_rel(m.rel(judged))
    items = judged.items_with_grade(m.rel(judged))
    inside = items.rank < r[items.segment % judged.n_queries]
    counts = np.bincount(items.segment[inside], minlength=judged.n_segments)
    return divide(counts.reshape(judged.n_runs, judged.n_queries), r[None, :])


@register(
    "RBP",
    bounds="monotone",
    compact=True,
    compact_expected=True,
    examples=("RBP", "RBP(p=0.5)", "RBP(p=0.95,rel=2)@4"),
    range="[0, 1]",
    ir_measures="RBP(rel=...)",
    notes="binary gain (grade >= rel); ir_measures' RBP without rel= and trec_eval's rbp "
    "use graded gains: that is gRBP",
    formula="RBP(p) = (1 - p) * sum_i [d_i relevant] p^(i-1)  (binary gain; graded: gRBP)",
    source="Moffat & Zobel, TOIS 2008, section 4; summed as trec_eval m_rbp.c",
    params={**REL, "p": Param(float, 0.8, "persistence", range="(0, 1)")},
    trec_eval="rbp.p=P on binary qrels (trec_eval's rbp is gRBP)",
)
def rank_biased_precision(judged: JudgedRankings, m: Measure) -> np.ndarray:
    p = m.get("p")
    items = judged.items_with_grade(m.rel(judged))
    rank, seg = items.rank, items.segment
    if m.cutoff is not None:
        rank, seg = rank[rank < m.cutoff], seg[rank < m.cutoff]
    weights = power_table(p, judged)[rank]
    sums = np.bincount(seg, weights=weights, minlength=judged.n_segments)
    return (1.0 - p) * sums.reshape(judged.n_runs, judged.n_queries)


# every kernel above reads ranks, grades, counts and relevant items only


# ---- the ties="expected" kernels of the families above -----------------------
# exact means over the orderings of tied items (McSherry & Najork 2008, section 2;
# irpref.measures.ties explains the formulas and holds the groups)

@attach_kernel("NumRelRet")
def expected_num_rel_ret(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[NumRelRet@k] = R_c + (k - t_c) r_c / n_c (McSherry & Najork 2008, 2.1)."""
    return expected_rel_ret(judged, m)


@attach_kernel("P")
def expected_precision(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[P@k] = (R_c + (k - t_c) r_c / n_c) / k (McSherry & Najork 2008, 2.1)."""
    return expected_rel_ret(judged, m) / m.cutoff


@attach_kernel("R")
def expected_recall(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[R@k] = (R_c + (k - t_c) r_c / n_c) / |relevant| (McSherry & Najork 2008, 2.2)."""
    return divide(expected_rel_ret(judged, m), judged.num_rel(m.rel(judged))[None, :])


@attach_kernel("F1")
def expected_f1(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[F1@k] = 2 (R_c + (k - t_c) r_c/n_c) / (k + |relevant|) (McSherry & Najork 2008, 2.3)."""
    den = _f1_cutoff(judged, m) + judged.num_rel(m.rel(judged))[None, :]
    return divide(2.0 * expected_rel_ret(judged, m), den)


@attach_kernel("AP")
def expected_average_precision(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[AP@k] = sum_{j<=k} (r_i/n_i) (R_i + (j - t_i - 1)(r_i - 1)/(n_i - 1) + 1) / j,
    divided by |relevant| (McSherry & Najork 2008, section 2.4)."""
    g = tie_groups(judged, m.rel(judged))  # groups without a relevant item add nothing
    gi, j = g.expand(m.cutoff)
    r, n = g.count[gi].astype(np.float64), g.size[gi].astype(np.float64)
    others = divide(r - 1.0, n - 1.0)  # (r_i - 1)/(n_i - 1); unused when n_i = 1
    slots = j - g.start_rank[gi] - 1.0  # j - t_i - 1
    contrib = r / n * (g.before[gi] + slots * others + 1.0) / j
    return divide(g.segment_sum(gi, contrib), judged.num_rel(m.rel(judged))[None, :])


@attach_kernel("RR")
def expected_reciprocal_rank(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[RR@k] = sum_{j=t_i+1}^{min(t_i+n_i, k)} P(first relevant at j) / j over the first
    group V_i holding a relevant item, P(first at t_i+x) = f(x-1, r_i, n_i) r_i/(n_i-x+1)
    (McSherry & Najork 2008, section 2.5)."""
    g = tie_groups(judged, m.rel(judged))
    idx = first_relevant_group(g, m.cutoff)
    t = g.start_rank[idx].astype(np.float64)
    r = g.count[idx].astype(np.float64)
    n = g.size[idx].astype(np.float64)
    # positions x = 1..L; the first relevant item cannot lie beyond n - r + 1
    last = np.minimum(g.size[idx], g.size[idx] - g.count[idx] + 1)
    if m.cutoff is not None:
        last = np.minimum(last, m.cutoff - g.start_rank[idx])
    order = np.argsort(-last, kind="stable")
    t, r, n, last = t[order], r[order], n[order], last[order]
    neg_last = -last
    value = np.zeros(len(idx))
    none_yet = np.ones(len(idx))  # f(x-1, r, n)
    for x in range(1, int(last[0]) + 1 if len(idx) else 1):
        a = slice(0, int(np.searchsorted(neg_last, -x, side="right")))  # last >= x
        left = n[a] - x + 1.0  # items not yet placed
        value[a] += none_yet[a] * r[a] / left / (t[a] + x)
        none_yet[a] *= (left - r[a]) / left
    out = np.zeros(judged.n_segments)
    out[g.segment[idx][order]] = value
    return out.reshape(judged.n_runs, judged.n_queries)


@attach_kernel("Success")
def expected_success(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[Success@k] = 1 - P(no relevant item in the top k); with V_c the group
    holding rank k, that probability is [R_c = 0] f(k - t_c, r_c, n_c) (the
    argument of McSherry & Najork 2008, section 2.5)."""
    g = tie_groups(judged, m.rel(judged))
    idx = first_relevant_group(g, m.cutoff)
    inside = np.minimum(g.size[idx], m.cutoff - g.start_rank[idx])
    miss = first_irrelevant_fraction(inside, g.count[idx], g.size[idx])
    out = np.zeros(judged.n_segments)
    out[g.segment[idx]] = 1.0 - miss
    return out.reshape(judged.n_runs, judged.n_queries)


@attach_kernel("Rprec")
def expected_r_precision(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[Rprec] = E[P@R] with R = |relevant| (McSherry & Najork 2008, 2.1, k = R)."""
    num_rel = judged.num_rel(m.rel(judged))
    return divide(expected_rel_ret(judged, m, num_rel), num_rel[None, :])


@attach_kernel("RBP")
def expected_rbp(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[RBP(p)] = (1 - p) sum_j (r_i/n_i) p^(j-1): RBP is linear in per-position
    relevance (Moffat & Zobel 2008; McSherry & Najork 2008, the argument of 2.6)."""
    p = m.get("p")
    g = tie_groups(judged, m.rel(judged))
    gi, j = g.expand(m.cutoff)
    weights = (1.0 - p) * np.power(p, j - 1.0) * g.count[gi] / g.size[gi]
    return g.segment_sum(gi, weights)


