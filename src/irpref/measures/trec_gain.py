"""trec_eval 10.0's gain-based measures, bit-exact: DCG, IDCG, nDCGRel, RnDCG,
BinG, G, and graded rank-biased precision with its residual (gRBP, RBPResid),
with their tie-aware kernels where one exists (at the end of the module);
their bounds rules are in :mod:`irpref.measures.trec_gain_bounds` (BinG's is
the generic :func:`~irpref.measures.unjudged_scan.binary_scan_bounds`).

Conventions as in :mod:`irpref.measures.trec`: gain = grade when positive,
0 otherwise; per-query values identical to trec_eval's, sums taken in its order.
"""

from __future__ import annotations

import numpy as np

from irpref.judging.judged import JudgedRankings
from irpref.measures.arithmetic import (
    divide,
    exact_cumsum,
    for_every_run,
    power_table,
    segment_last,
    trec_relevant,
    within_cutoff,
    within_segment_cumsum,
)
from irpref.measures.base import (
    REL,
    Alias,
    Measure,
    Param,
    TrecName,
    attach_kernel,
    register,
    trec_number,
)
from irpref.measures.gains import ideal_dcg
from irpref.measures.ndcg import expected_dcg
from irpref.measures.ties import tie_groups
from irpref.measures.trec import checked_rel, trec_num_rel
from irpref.measures.trec_gain_bounds import (
    OUTER_NOTE,
    g_bounds,
    graded_rbp_bounds,
    ndcg_rel_bounds,
    r_ndcg_bounds,
)
from irpref.measures.unjudged_scan import binary_scan_bounds

__all__: list[str] = []


def _grbp_text(p: float = 0.9) -> str:
    """trec_eval's ``rbp.p`` (graded, p = 0.9 by default) as irpref text."""
    return f"gRBP(p={trec_number(p)})"


BURGES = (
    "ranx's dcg_burges (unnormalised DCG with exponential gains 2^grade - 1) has no "
    "irpref form; irpref's DCG uses gain = grade (trec_eval). nDCG(gain=exp) is ranx's "
    "ndcg_burges"
)


RATIO_TIES = ("a ratio read at ranks that move with the ordering: no one-pass closed form "
              "known (McSherry & Najork 2008 give none)")


# ---- gain-based measures ------------------------------------------------------

@register(
    "DCG",
    bounds="monotone",
    compact=True,
    compact_expected=True,
    examples=("DCG", "DCG@3"),
    range="[0, inf)",
    trec=(TrecName("dcg", "DCG", "p_pair"),),
    aliases=(Alias("dcg_burges", "ranx", refusal=BURGES),),
    formula="DCG@k = sum_{i<=k} g(d_i) / log2(i + 1), gain g = grade (grades <= 0 gain nothing)",
    source="Jarvelin & Kekalainen, TOIS 2002; trec_eval m_ndcg.c (dcg)",
)
def dcg(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """Discounted cumulative gain (unnormalised)."""
    gain = _gain(judged)
    gain[~within_cutoff(judged, m)] = 0.0
    return judged.segment_sum(gain / np.log2(judged.rank + 2.0))


@register(
    "IDCG",
    bounds="monotone",
    compact=True,
    compact_expected=True,
    order_free=True,
    examples=("IDCG", "IDCG@3"),
    orientation="none",
    range="[0, inf)",
    trec=(TrecName("ideal_dcg", "IDCG", "p_pair"),),
    formula="IDCG@k = DCG@k of the judged documents sorted by decreasing grade",
    source="Jarvelin & Kekalainen, TOIS 2002; trec_eval m_ndcg.c (ideal_dcg)",
)
def idcg(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """Ideal DCG of each query (the same for every run)."""
    return for_every_run(judged, ideal_dcg(judged, m.cutoff))


def _ideal(judged: JudgedRankings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ideal ranking of every query: offsets, grades (> 0, descending) and the
    inclusive DCG prefix (summed position by position, m_ndcg.c)."""
    offsets, grades = judged.ideal_grades(1)
    q = np.repeat(np.arange(judged.n_queries), np.diff(offsets))
    rank0 = np.arange(len(grades)) - offsets[:-1][q]
    prefix = exact_cumsum(grades / np.log2(rank0 + 2.0), offsets)
    return offsets, grades, prefix


def _gain(judged: JudgedRankings) -> np.ndarray:
    """Default trec_eval gain per item: the grade if positive, else 0."""
    return np.where(judged.grade > 0, judged.grade, 0).astype(np.float64)


def _item_dcg(judged: JudgedRankings) -> tuple[np.ndarray, np.ndarray]:
    """Per item: default gain and the DCG of the ranking down to it (inclusive)."""
    gain = _gain(judged)
    return gain, exact_cumsum(gain / np.log2(judged.rank + 2.0), judged.offsets)


@register(
    "nDCGRel",
    ties_note=RATIO_TIES,
    bounds=ndcg_rel_bounds, bounds_exact=False,
    bounds_note=OUTER_NOTE,
    examples=("nDCGRel",),
    range="[0, inf)",
    trec=(TrecName("ndcg_rel", "nDCGRel", "p_pair"),),
    formula="mean over the R+ ideal positions (grade > 0) of nDCG at the rank of each retrieved "
    "document with gain > 0; unretrieved ones count nDCG at the end of the ranking",
    source="trec_eval m_ndcg_rel.c (ndcg_rel)",
    cutoff="none",
)
def ndcg_rel(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """nDCG averaged over the relevant documents."""
    gain, rdcg = _item_dcg(judged)
    offsets, _, iprefix = _ideal(judged)
    n_ideal = np.diff(offsets)
    idcg_end = segment_last(iprefix, offsets)
    pos = gain > 0  # a positive grade: the query has an ideal ranking
    q = judged.query_of_item[pos]
    at = offsets[:-1][q] + np.minimum(judged.rank[pos], n_ideal[q] - 1)
    ratio = np.zeros(judged.n_items)
    ratio[pos] = rdcg[pos] / iprefix[at]
    total = judged.segment_sum(ratio)
    missing = (n_ideal[None, :] - judged.segment_count(pos)).astype(np.float64)
    rdcg_end = segment_last(rdcg, judged.offsets).reshape(judged.n_runs, judged.n_queries)
    has = np.broadcast_to(idcg_end > 0, total.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        total = np.where(has, total + missing * rdcg_end / idcg_end[None, :], total)
        out = total / n_ideal[None, :]
    return np.where(has & (total > 0), out, 0.0)


@register(
    "RnDCG",
    ties_note=RATIO_TIES,
    bounds=r_ndcg_bounds, bounds_exact=False,
    bounds_note=OUTER_NOTE,
    examples=("RnDCG",),
    range="[0, inf)",
    trec=(TrecName("Rndcg", "RnDCG", "p_pair"),),
    formula="mean of nDCG at the ranks where each ideal gain level ends (plus at the end of the "
    "ranking if it is at least 2 longer than the ideal one); 0 if R = 0",
    source="trec_eval m_Rndcg.c (Rndcg)",
    params=REL,
    cutoff="none",
)
def r_ndcg(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """nDCG averaged at the R-level boundaries of the ideal ranking."""
    rel = checked_rel(judged, m)
    _, rdcg = _item_dcg(judged)
    offsets, grades, iprefix = _ideal(judged)
    n_ideal = np.diff(offsets)
    # boundary b (1..L): the ideal gain at rank b+1 differs from the one at rank b
    q_of = np.repeat(np.arange(judged.n_queries), n_ideal)
    pos_in = np.arange(len(grades)) - offsets[:-1][q_of]
    boundary = np.flatnonzero(np.append(grades[1:], 0) != grades)
    boundary = np.union1d(boundary, offsets[1:][n_ideal > 0] - 1)
    bq, b, idcg_b = q_of[boundary], pos_in[boundary] + 1, iprefix[boundary]
    n_ret = np.diff(judged.offsets)
    segs = (np.arange(judged.n_runs)[:, None] * judged.n_queries + bq[None, :]).ravel()
    upto = np.minimum(np.tile(b, judged.n_runs), n_ret[segs])
    r_at = np.zeros(len(segs))
    r_at[upto > 0] = rdcg[judged.offsets[segs][upto > 0] + upto[upto > 0] - 1]
    total = np.bincount(segs, weights=r_at / np.tile(idcg_b, judged.n_runs),
                        minlength=judged.n_segments)
    count = np.bincount(segs, minlength=judged.n_segments).astype(np.float64)
    idcg_end = np.tile(segment_last(iprefix, offsets), judged.n_runs)
    extra = (n_ret >= np.tile(n_ideal, judged.n_runs) + 2) & (idcg_end > 0)
    rdcg_end = segment_last(rdcg, judged.offsets)
    total[extra] = total[extra] + rdcg_end[extra] / idcg_end[extra]
    count[extra] += 1
    out = divide(total, count)
    out[np.tile(trec_num_rel(judged, rel), judged.n_runs) == 0] = 0.0
    return out.reshape(judged.n_runs, judged.n_queries)


@register(
    "BinG",
    ties_note=RATIO_TIES,
    bounds=binary_scan_bounds,
    compact=True,
    examples=("BinG",),
    range="[0, 1]",
    trec=(TrecName("binG", "BinG"),),
    formula="BinG = 1/R sum over relevant retrieved d of 1 / log2(2 + #non-relevant above d)",
    source="trec_eval m_binG.c (binG, experimental, Buckley 2008)",
    params=REL,
    cutoff="none",
)
def bin_g(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """Binary G."""
    rel = checked_rel(judged, m)
    is_rel = trec_relevant(judged, rel)
    hits = within_segment_cumsum(judged, is_rel)
    with np.errstate(divide="ignore"):
        term = 1.0 / np.log2((3 + judged.rank - hits).astype(np.float64))
    total = judged.segment_sum(np.where(is_rel, term, 0.0))
    return divide(total, trec_num_rel(judged, rel)[None, :])


@register(
    "G",
    ties_note=RATIO_TIES,
    bounds=g_bounds, bounds_exact=False,
    bounds_note=OUTER_NOTE,
    compact=True,
    examples=("G",),
    range="[0, inf)",
    trec=(TrecName("G", "G", "p_pair"),),
    formula="G = sum_i g_i / log2(2 + C_i - S_i) / sum of ideal gains; S_i = gain retrieved in "
    "the top i, C_i = sum_{j<=i} max(ideal gain at j, 1); g = grade",
    source="trec_eval m_G.c (experimental, Buckley 2008)",
    cutoff="none",
)
def g_measure(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """Normalised gain G."""
    gain = np.where(judged.grade > 0, judged.grade, 0).astype(np.int64)
    got = within_segment_cumsum(judged, gain)  # S_i, gain retrieved down to rank i
    offsets, grades = judged.ideal_grades(1)
    n_ideal = np.diff(offsets)
    ipre = np.concatenate(([0], np.cumsum(grades.astype(np.int64))))
    q = judged.query_of_item
    li = n_ideal[q]
    i = judged.rank
    # C_i: ideal gains down to rank i while they last, then 1 per rank
    ideal_part = ipre[offsets[:-1][q] + np.minimum(i + 1, li)] - ipre[offsets[:-1][q]]
    cost = ideal_part + np.maximum(0, i + 1 - li)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = gain / np.log2((2 + cost - got).astype(np.float64))
    total = judged.segment_sum(np.where(gain != 0, term, 0.0))
    ideal_total = np.bincount(
        np.repeat(np.arange(judged.n_queries), n_ideal), weights=grades.astype(np.float64),
        minlength=judged.n_queries,
    )
    return divide(total, ideal_total[None, :])


# ---- rank-biased precision, trec_eval style -----------------------------------
@register(
    "gRBP",
    bounds=graded_rbp_bounds,
    compact=True,
    compact_expected=True,
    examples=("gRBP", "gRBP(p=0.5)@4"),
    range="[0, 1]",
    trec=(TrecName("rbp", "gRBP", "p_pair", build=_grbp_text),),
    aliases=(
        Alias("rbp", "trec_eval, pytrec_eval",
              note="'rbp' is trec_eval's graded rbp (gain = grade / top grade, p = 0.9 by "
              "default), which irpref calls gRBP; irpref's RBP(p=...) is binary (grade >= rel)"),
    ),
    formula="gRBP(p) = (1 - p) sum_i g(d_i) p^(i-1), g = grade / (highest grade of the query, "
    "if above 1)",
    source="Moffat & Zobel, TOIS 2008; trec_eval m_rbp.c (rbp, gains scaled to [0, 1])",
    params={"p": Param(float, 0.9, "persistence", range="(0, 1)")},
)
def graded_rbp(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """Graded rank-biased precision exactly as trec_eval's ``rbp``."""
    p = float(m.get("p"))
    top = np.maximum(judged.max_grade(), 1).astype(np.float64)
    g = np.where(judged.grade > 0, judged.grade, 0) / top[judged.query_of_item]
    g[~within_cutoff(judged, m)] = 0.0
    return (1.0 - p) * judged.segment_sum(g * power_table(p, judged)[judged.rank])


@register(
    "RBPResid",
    ties_note="not done yet: linear in per-position judgement, it would follow RBP's kernel",
    bounds_note="describes the judging (the weight of unjudged documents), not "
    "relevance; it is the width of RBP's interval plus p^n for the documents never "
    "retrieved",
    examples=("RBPResid",),
    range="[0, 1]",
    trec=(TrecName("rbp_resid", "RBPResid", "p_pair",
                   build=lambda p=0.9: f"RBPResid(p={trec_number(p)})"),),
    orientation="none",
    formula="RBPResid(p) = p^n + (1 - p) sum over unjudged d_i of p^(i-1), n = |retrieved| "
    "(0 if every retrieved document is judged)",
    source="Moffat & Zobel, TOIS 2008, section 5 (residuals); trec_eval m_rbp_resid.c",
    params={"p": Param(float, 0.9, "persistence", range="(0, 1)")},
    cutoff="none",
)
def rbp_residual(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """The RBP residual: the weight that unjudged and unretrieved documents could add."""
    p = float(m.get("p"))
    table = power_table(p, judged)
    unj = judged.grade < 0
    s = judged.segment_sum(np.where(unj, table[judged.rank], 0.0))
    tail = table[judged.num_ret]
    return np.where(judged.segment_count(unj) > 0, tail + (1.0 - p) * s, 0.0)


# kernels whose per-item terms vanish on items the qrels do not mention (so the
# compact layout, which drops those, gives the same sums); RBPResid (unjudged
# items count), nDCGRel and RnDCG (DCG read at arbitrary ranks) need the full layout


# ---- the ties="expected" kernels (McSherry & Najork 2008, section 2.6: linear in
# per-position gain)
attach_kernel("DCG")(expected_dcg)


@attach_kernel("gRBP")
def expected_graded_rbp(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[gRBP(p)] = (1 - p) sum_i (mean gain of V_i) sum_{j in V_i} p^(j-1) / top grade:
    linear in per-position gain, as RBP (McSherry & Najork 2008, the argument of 2.6)."""
    p = float(m.get("p"))
    g = tie_groups(judged, None)  # groups with a positive gain; weight: their total gain
    gi, j = g.expand(m.cutoff)
    top = np.maximum(judged.max_grade(), 1).astype(np.float64)
    return (1.0 - p) * g.segment_sum(gi, g.weight[gi] / g.size[gi] * np.power(p, j - 1.0)) / top
