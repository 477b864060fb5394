"""Classical measures, exactly as trec_eval 10.0 computes them.

Each kernel maps :class:`~irpref.judged.JudgedRankings` to an (R, Q) array
of per-query values, vectorised over every run and query at once. The
trec_eval source file a measure follows is named in its ``source``.
Conventions shared with trec_eval: an item is relevant when its grade is
``>= rel``; a query with no relevant document scores 0; precision at k
divides by k even when fewer than k items were retrieved.
"""

from __future__ import annotations

import numpy as np

import irpref.measures.ndcg_bounds as residual_ideal
import irpref.measures.rank_bounds as residual_rank
from irpref.judged import JudgedRankings
from irpref.measures.base import (
    TREC_CUTS,
    Alias,
    Measure,
    Param,
    TrecName,
    attach_kernel,
    register,
    rel_param,
)
from irpref.measures.ties import (
    TieGroups,
    expected_rel_ret,
    first_irrelevant_fraction,
    first_relevant_group,
    tie_groups,
)

REL = {"rel": rel_param()}


def within_segment_cumsum(judged: JudgedRankings, values: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum of ``values`` restarting at every segment."""
    total = np.cumsum(values, dtype=np.float64 if values.dtype.kind == "f" else np.int64)
    before = np.concatenate(([0], total))[judged.offsets[:-1]]
    return total - before[judged.segment]


def cut(judged: JudgedRankings, measure: Measure) -> np.ndarray:
    """Boolean per item: rank within the measure's cut-off (all if none)."""
    if measure.cutoff is None:
        return np.ones(judged.n_items, bool)
    return judged.rank < measure.cutoff


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    den = np.broadcast_to(den, np.broadcast_shapes(np.shape(num), np.shape(den)))
    out = np.zeros(np.broadcast_shapes(np.shape(num), np.shape(den)))
    np.divide(num, den, out=out, where=den > 0)
    return out


@register(
    "NumRet",
    bounds=residual_rank.unchanged,
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
    bounds=residual_rank.recall_bounds,
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
    return _safe_div(num_rel_ret(judged, m), judged.num_rel(m.rel(judged))[None, :])


@register(
    "AP",
    bounds=residual_rank.ap_bounds,
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
    return _safe_div(sums, judged.num_rel(m.rel(judged))[None, :])


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
    items = judged.items_with_grade(m.rel(judged))
    has = np.flatnonzero(np.diff(items.offsets) > 0)
    rank = items.rank[items.offsets[has]]  # of the first relevant item
    if m.cutoff is not None:
        has, rank = has[rank < m.cutoff], rank[rank < m.cutoff]
    out = np.zeros(judged.n_segments)
    out[has] = 1.0 / (rank + 1.0)
    return out.reshape(judged.n_runs, judged.n_queries)


def _discount(rank0: np.ndarray) -> np.ndarray:
    return 1.0 / np.log2(rank0 + 2.0)


class Gains:
    """Custom gains of some grades, as trec_eval's ``-m ndcg.1=3,2=9``
    (m_ndcg.c, gain_init.c): a listed grade gains its value (zero and
    negative gains allowed, grade 0 may gain), every other grade keeps its
    default gain (the ``gain`` kind). Text form ``LEVEL:GAIN;LEVEL:GAIN``,
    e.g. ``nDCG(gains=1:3;2:9;4:4.5)``, printed sorted by grade."""

    expected = ("LEVEL:GAIN pairs separated by ';', each grade >= 0 at most once, finite gains "
                "(e.g. 1:3;2:9.5)")
    __slots__ = ("pairs",)

    def __init__(self, text: str | dict[int, float] | Gains) -> None:
        if isinstance(text, Gains):
            pairs = dict(text.pairs)
        elif isinstance(text, dict):
            pairs = {int(k): float(v) for k, v in text.items()}
        else:
            pairs = {}
            for item in str(text).split(";"):
                level, colon, value = item.partition(":")
                level, value = level.strip(), value.strip()
                if not colon or not level.isdigit() or not level.isascii():
                    raise ValueError(item)
                if int(level) in pairs:
                    raise ValueError(f"grade {level} twice")
                pairs[int(level)] = float(value)
        if not pairs or any(k < 0 or not np.isfinite(v) for k, v in pairs.items()):
            raise ValueError(text)
        self.pairs: tuple[tuple[int, float], ...] = tuple(sorted(pairs.items()))

    def __str__(self) -> str:
        return ";".join(f"{k}:{int(v) if float(v).is_integer() else repr(v)}"
                        for k, v in self.pairs)

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Gains) and self.pairs == other.pairs

    def __hash__(self) -> int:
        return hash(self.pairs)

    def of(self, grades: np.ndarray, kind: str = "linear") -> np.ndarray:
        """Gain of each grade (negative grades, i.e. unjudged, gain 0)."""
        grades = np.asarray(grades)
        out = np.where(grades > 0, gains(np.maximum(grades, 0), kind), 0.0)
        for level, value in self.pairs:
            out[grades == level] = value
        return out


GAIN = {
    "gain": Param(
        str,
        "linear",
        "gain of a grade g > 0: linear (g: trec_eval, Jarvelin & Kekalainen 2002) or exp "
        "(2^g - 1: Burges et al. 2005, ranx's ndcg_burges)",
        ("linear", "exp"),
    ),
    "gains": Param(
        Gains,
        None,
        "custom gains of listed grades, LEVEL:GAIN;... (trec_eval -m ndcg.1=3,2=9): other "
        "grades keep the gain kind's; the ideal ranks the judged grades by gain",
    ),
}


def gains(grades: np.ndarray, kind: str = "linear") -> np.ndarray:
    """Gains of positive grades: ``g`` (linear) or ``2^g - 1`` (exp)."""
    g = np.asarray(grades).astype(np.float64)
    return np.exp2(g) - 1.0 if kind == "exp" else g


def custom_ideal_dcg(judged: JudgedRankings, cutoff: int | None, custom: Gains,
                     kind: str = "linear") -> np.ndarray:
    """(Q,) ideal DCG under custom gains (trec_eval m_ndcg.c with gain_init.c):
    every judged qrels document (grade >= 0) sorted by decreasing gain, summed
    rank by rank while the gain is positive (a gain <= 0 ends the ideal)."""
    keep = judged.qrels_grade >= 0
    q = judged.qrels_query[keep]
    g = custom.of(judged.qrels_grade[keep], kind)
    order = np.lexsort((-g, q))
    q, g = q[order], g[order]
    offsets = np.zeros(judged.n_queries + 1, np.int64)
    np.cumsum(np.bincount(q, minlength=judged.n_queries), out=offsets[1:])
    rank0 = np.arange(len(g)) - offsets[:-1][q]
    # the ideal stops at the first gain <= 0 of its query (sorted descending)
    take = g > 0
    if cutoff is not None:
        take &= rank0 < cutoff
    return np.bincount(q[take], weights=g[take] / np.log2(rank0[take] + 2.0),
                       minlength=judged.n_queries)


def ideal_dcg(judged: JudgedRankings, cutoff: int | None, gain: str = "linear") -> np.ndarray:
    """(Q,) DCG of the ideal ranking: every judged grade > 0, sorted descending.

    Summed rank by rank as trec_eval does (m_ndcg_cut.c), so the value is
    bit-identical to trec_eval's ``ideal_dcg``; ``gain="exp"`` uses 2^g - 1.
    """
    offsets, grades = judged.ideal_grades(1)
    q = np.repeat(np.arange(judged.n_queries), np.diff(offsets))
    rank0 = np.arange(len(grades)) - offsets[:-1][q]
    keep = rank0 < cutoff if cutoff is not None else np.ones(len(grades), bool)
    return np.bincount(
        q[keep], weights=gains(grades[keep], gain) / np.log2(rank0[keep] + 2.0),
        minlength=judged.n_queries,
    )


@register(
    "nDCG",
    bounds=residual_ideal.gain_ratio_bounds,
    bounds_note="the upper bound by grade layers and Dinkelbach's method; no bound with "
    "gains= (custom gains need not grow with the grade)",
    compact=True,
    compact_expected=True,
    examples=("nDCG", "nDCG@3", "nDCG(gain=exp)@5"),
    param_spellings={"dcg": ("gain", {"log2": "linear", "exp-log2": "exp"})},  # ir_measures
    range="[0, 1]",
    trec=(TrecName("ndcg", "nDCG", "p_pair"),
          TrecName("ndcg_cut", "nDCG@{k}", "cut_long", TREC_CUTS)),
    ir_measures="nDCG",
    follows=("ranx",),  # ndcg and ndcg_burges (gain=exp): tests/test_tool_definitions.py
    aliases=(Alias("ndcg_burges", "ranx", preset="gain=exp"),),
    notes="gain = grade, discount log2(i+1), ideal from the qrels (trec_eval, ranx ndcg, "
    "ir_measures nDCG); gain=exp is ranx's ndcg_burges; ranx breaks score ties "
    "differently, so its means can differ",
    formula="nDCG@k = sum_{i<=k} g(d_i)/log2(i+1) / the same for the qrels sorted by grade; "
    "gain g = grade (gain=exp: 2^grade - 1); grades <= 0 gain nothing; gains=1:3;2:9 sets "
    "the gain of listed grades (trec_eval ndcg.1=3,2=9)",
    source="trec_eval m_ndcg.c, m_ndcg_cut.c, gain_init.c (Jarvelin & Kekalainen 2002); gain=exp: "
    "Burges et al., ICML 2005, section 4",
    params=GAIN,
)
def ndcg(judged: JudgedRankings, m: Measure) -> np.ndarray:
    custom = m.get("gains")
    if custom is not None:  # every judged item may gain (grade 0 too), in item order
        items = judged.items_with_grade(0)
        gain = custom.of(judged.grade[items.index], m.get("gain"))
        rank, seg = items.rank, items.segment
        keep = gain != 0
        if m.cutoff is not None:
            keep &= rank < m.cutoff
        dcg = np.bincount(seg[keep], weights=gain[keep] / np.log2(rank[keep] + 2.0),
                          minlength=judged.n_segments).reshape(judged.n_runs, judged.n_queries)
        ideal = custom_ideal_dcg(judged, m.cutoff, custom, m.get("gain"))
        return _safe_div(dcg, ideal[None, :])
    # items with grade > 0 only (the others add 0.0), summed in item order
    items = judged.items_with_grade(1)
    rank, seg = items.rank, items.segment
    gain = gains(judged.grade[items.index], m.get("gain"))
    if m.cutoff is not None:
        keep = rank < m.cutoff
        rank, seg, gain = rank[keep], seg[keep], gain[keep]
    dcg = np.bincount(seg, weights=gain / np.log2(rank + 2.0), minlength=judged.n_segments)
    dcg = dcg.reshape(judged.n_runs, judged.n_queries)
    return _safe_div(dcg, ideal_dcg(judged, m.cutoff, m.get("gain"))[None, :])


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
    bounds=residual_rank.rprec_bounds,
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
    return _safe_div(counts.reshape(judged.n_runs, judged.n_queries), r[None, :])


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


def power_table(p: float, judged: JudgedRankings) -> np.ndarray:
    """``p**i`` for every rank i (plus one), multiplied out one rank at a time
    as trec_eval's m_rbp.c does, so RBP sums are bit-identical."""
    n = int(judged.n_retrieved.max(initial=0)) + 1
    table = np.full(n, float(p))
    table[0] = 1.0
    return np.multiply.accumulate(table)


# every kernel above reads ranks, grades, counts and relevant items only


# ---- the ties="expected" kernels of the families above -----------------------
# exact means over the orderings of tied items (McSherry & Najork 2008, section 2;
# irpref.measures.tie_aware explains the formulas, irpref.measures.ties the groups)

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
    return _safe_div(expected_rel_ret(judged, m), judged.num_rel(m.rel(judged))[None, :])


@attach_kernel("AP")
def expected_average_precision(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[AP@k] = sum_{j<=k} (r_i/n_i) (R_i + (j - t_i - 1)(r_i - 1)/(n_i - 1) + 1) / j,
    divided by |relevant| (McSherry & Najork 2008, section 2.4)."""
    g = tie_groups(judged, m.rel(judged))  # groups without a relevant item add nothing
    gi, j = g.expand(m.cutoff)
    r, n = g.count[gi].astype(np.float64), g.size[gi].astype(np.float64)
    others = _safe_div(r - 1.0, n - 1.0)  # (r_i - 1)/(n_i - 1); unused when n_i = 1
    slots = j - g.start_rank[gi] - 1.0  # j - t_i - 1
    contrib = r / n * (g.before[gi] + slots * others + 1.0) / j
    return _safe_div(g.segment_sum(gi, contrib), judged.num_rel(m.rel(judged))[None, :])


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
    return _safe_div(expected_rel_ret(judged, m, num_rel), num_rel[None, :])


@attach_kernel("RBP")
def expected_rbp(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[RBP(p)] = (1 - p) sum_j (r_i/n_i) p^(j-1): RBP is linear in per-position
    relevance (Moffat & Zobel 2008; McSherry & Najork 2008, the argument of 2.6)."""
    p = m.get("p")
    g = tie_groups(judged, m.rel(judged))
    gi, j = g.expand(m.cutoff)
    weights = (1.0 - p) * np.power(p, j - 1.0) * g.count[gi] / g.size[gi]
    return g.segment_sum(gi, weights)


def expected_dcg(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """(R, Q) E[DCG@k] = sum_i (mean gain of V_i) sum_{j in V_i, j<=k} 1/log2(j+1)
    (McSherry & Najork 2008, section 2.6); gain = grade (grades <= 0 gain nothing),
    or 2^grade - 1 with ``gain=exp``."""
    kind = m.get("gain") if "gain" in m.family.params else "linear"
    custom = m.get("gains") if "gains" in m.family.params else None
    if custom is not None:  # trec_eval's custom gains: any judged grade may gain
        judged_items = judged.items_with_grade(0).index
        weight = custom.of(judged.grade[judged_items], kind)
        g = TieGroups(judged, judged_items[weight != 0], weight[weight != 0])
    elif kind == "linear":
        g = tie_groups(judged, None)  # groups with a positive gain; weight: their total gain
    else:
        marked = judged.items_with_grade(1).index
        g = TieGroups(judged, marked, gains(judged.grade[marked], kind))
    gi, j = g.expand(m.cutoff)
    return g.segment_sum(gi, g.weight[gi] / g.size[gi] * _discount(j - 1.0))


@attach_kernel("nDCG")
def expected_ndcg(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[nDCG@k] = E[DCG@k] / DCG@k of the ideal ranking (McSherry & Najork 2008, 2.6)."""
    custom = m.get("gains")
    ideal = (ideal_dcg(judged, m.cutoff, m.get("gain")) if custom is None
             else custom_ideal_dcg(judged, m.cutoff, custom, m.get("gain")))
    return _safe_div(expected_dcg(judged, m), ideal[None, :])
