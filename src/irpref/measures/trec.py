"""The rest of trec_eval 10.0's measures, bit-exact, as vectorised kernels:
judged-only (Bpref, infAP), AP variants, interpolated precision, set and
cut-off measures (the gain-based ones are in :mod:`irpref.measures.trec_gain`,
nDCG in :mod:`irpref.measures.ndcg`), each with its tie-aware kernel where one
exists (at the end of the module); their bounds rules are in
:mod:`irpref.measures.trec_bounds`.

Every family names the trec_eval source file it follows (``m_<name>.c`` in
usnistgov/trec_eval) and reproduces its arithmetic, including the order in
which floating-point sums are taken, so that per-query values are identical
to trec_eval's, not merely close. Conventions (form_res_rels.c): a retrieved
document absent from the qrels is *not in the pool* (``NONPOOL``), a negative
qrels grade is *in the pool but unjudged*; judged-only measures (Bpref,
infAP, ...) skip both, every other measure treats them as non-relevant. An
item is relevant when ``0 <= rel <= grade``.
"""

from __future__ import annotations

import numpy as np

from irpref.judging.judged import NONPOOL, JudgedRankings
from irpref.measures.arithmetic import (
    divide,
    geometric_mean,
    trec_relevant,
    within_cutoff,
    within_segment_cumsum,
)
from irpref.measures.base import (
    REL,
    TREC_CUTS,
    TREC_MULTS,
    TREC_RECALLS,
    Measure,
    Param,
    TrecName,
    attach_kernel,
    register,
    trec_number,
)
from irpref.measures.ties import expected_marked, expected_rel_ret, tie_groups
from irpref.measures.trec_bounds import (
    JUDGED_ONLY_NOTE,
    OUTER_NOTE,
    bpref_bounds,
    count_bounds,
    gmap_bounds,
    infap_bounds,
    iprec,
    iprec_average_bounds,
    iprec_bounds,
    nonrel_bounds,
    relp_bounds,
    rprec_mult_bounds,
    yaap_bounds,
)

__all__ = ["checked_rel", "iprec_average", "trec_num_rel"]

INFAP_EPSILON = 1e-5
"""trec_eval's smoothing constant of infAP (trec_eval.h)."""


# ---- helpers ------------------------------------------------------------------
def checked_rel(judged: JudgedRankings, m: Measure) -> int:
    """The measure's relevance level, refused below 0 (trec_eval counts a grade
    >= 0 and >= the level as relevant)."""
    rel = m.rel(judged)
    if rel < 0:
        raise ValueError(f"{m}: the relevance level must be >= 0, not {rel}")
    return rel


def trec_num_rel(judged: JudgedRankings, rel: int) -> np.ndarray:
    """(Q,) judged documents with grade >= max(rel, 0) (form_res_rels.c)."""
    return judged.num_rel(max(rel, 0))


def _num_judged_nonrel(judged: JudgedRankings, rel: int) -> np.ndarray:
    """(Q,) judged documents with 0 <= grade < rel."""
    g = judged.qrels_grade
    keep = (g >= 0) & (g < rel)
    return np.bincount(judged.qrels_query[keep], minlength=judged.n_queries)


def _counts(judged: JudgedRankings, rel: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(R, Q) num_ret, num_rel_ret and (Q,) num_rel."""
    return (
        judged.num_ret,
        judged.segment_count(trec_relevant(judged, rel)),
        trec_num_rel(judged, rel),
    )


def _utility_text(a: float, b: float, c: float, d: float) -> str:
    """trec_eval's ``utility.a,b,c,d`` as irpref text."""
    n = trec_number
    return f"Utility(a={n(a)},b={n(b)},c={n(c)},d={n(d)})"


# ---- judged-only measures -----------------------------------------------------
def _bpref(judged: JudgedRankings, m: Measure) -> np.ndarray:
    rel = checked_rel(judged, m)
    g = judged.grade
    is_rel = trec_relevant(judged, rel)
    is_nonrel = (g >= 0) & (g < rel)
    nonrel_before = within_segment_cumsum(judged, is_nonrel)
    big_r = trec_num_rel(judged, rel)[judged.query_of_item]
    n_nonrel = _num_judged_nonrel(judged, rel)[judged.query_of_item]
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.minimum(nonrel_before, big_r) / np.minimum(n_nonrel, big_r)
    contrib = np.where(nonrel_before > 0, 1.0 - frac, 1.0)
    total = judged.segment_sum(np.where(is_rel, contrib, 0.0))
    return divide(total, trec_num_rel(judged, rel)[None, :])


JUDGED_ONLY_TIES = ("a ratio of position-dependent counts of judged documents: no one-pass "
                    "closed form known (McSherry & Najork 2008 give none)")
IPREC_TIES = ("a maximum over ranks of the precision curve: not a sum of per-position terms, "
              "no closed form known")


@register(
    "Bpref",
    ties_note=JUDGED_ONLY_TIES,
    compact=True,
    examples=("Bpref", "Bpref(rel=2)"),
    range="[0, 1]",
    trec=(TrecName("bpref", "Bpref"),),
    ir_measures="Bpref",
    formula="Bpref = 1/R sum over judged relevant retrieved r of "
    "(1 - min(#judged non-relevant above r, R) / min(N, R)), N = judged non-relevant",
    source="Buckley & Voorhees, SIGIR 2004, section 4; trec_eval m_bpref.c",
    params=REL, cutoff="none",
    bounds=bpref_bounds, bounds_exact=False, bounds_note=OUTER_NOTE,
)
def bpref(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """Binary preference; unjudged and unpooled documents are skipped."""
    return _bpref(judged, m)


@register(
    "GMBpref",
    ties_note=JUDGED_ONLY_TIES,
    compact=True,
    examples=("GMBpref",),
    range="[0, 1]",
    trec=(TrecName("gm_bpref", "GMBpref", average="gm", per_query=False),),
    formula="Bpref per query; aggregate exp(mean log max(Bpref, 1e-5))",
    source="trec_eval m_gm_bpref.c, meas_avg.c (te_calc_avg_meas_s_gm)",
    params=REL, cutoff="none",
    bounds=bpref_bounds, bounds_exact=False, bounds_note=OUTER_NOTE,
    aggregate=geometric_mean,
)
def gm_bpref(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """Bpref, averaged with the floored geometric mean."""
    return _bpref(judged, m)


@register(
    "infAP",
    ties_note=JUDGED_ONLY_TIES,
    compact=True,
    examples=("infAP", "infAP(rel=2)"),
    range="[0, 1]",
    trec=(TrecName("infAP", "infAP"),),
    ir_measures="infAP",
    formula="infAP = 1/R sum over judged relevant retrieved at rank k of "
    "1/k + (k-1)/k * (|d+ + d- + u above| / (k-1)) * (|d+ above| + eps) / "
    "(|d+ above| + |d- above| + 2 eps); d+/d-: judged (non-)relevant, u: pooled unjudged, "
    "eps = 1e-5",
    source="Yilmaz & Aslam, CIKM 2006, section 3; trec_eval m_infap.c",
    params=REL, cutoff="none",
    bounds=infap_bounds, bounds_exact=False, bounds_note=OUTER_NOTE,
)
def inferred_ap(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """Inferred AP; documents outside the pool are skipped."""
    rel = checked_rel(judged, m)
    g = judged.grade
    is_rel = trec_relevant(judged, rel)
    is_nonrel = (g >= 0) & (g < rel)
    is_unj = (g < 0) & (g != NONPOOL)
    rel_so_far = within_segment_cumsum(judged, is_rel)
    nonrel_so_far = within_segment_cumsum(judged, is_nonrel)
    unj_so_far = within_segment_cumsum(judged, is_unj)
    fj = judged.rank.astype(np.float64)
    safe = np.where(fj > 0, fj, 1.0)
    above = (rel_so_far - 1 + nonrel_so_far + unj_so_far).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (safe + 1.0) + (safe / (safe + 1.0)) * (above / safe) * (
            (rel_so_far - 1 + INFAP_EPSILON)
            / (rel_so_far - 1 + nonrel_so_far + 2 * INFAP_EPSILON)
        )
    term = np.where(fj == 0, 1.0, term)
    total = judged.segment_sum(np.where(is_rel, term, 0.0))
    return divide(total, trec_num_rel(judged, rel)[None, :])


# ---- AP variants --------------------------------------------------------------
def _ap_sum(judged: JudgedRankings, rel: int) -> np.ndarray:
    is_rel = trec_relevant(judged, rel)
    hits = within_segment_cumsum(judged, is_rel)
    return judged.segment_sum(np.where(is_rel, hits / (judged.rank + 1.0), 0.0))


@register(
    "GMAP",
    ties_note="not done yet: its per-query value is AP, whose expected kernel would serve",
    compact=True,
    examples=("GMAP",),
    range="[0, 1]",
    trec=(TrecName("gm_map", "GMAP", average="gm", per_query=False),),
    formula="AP per query; aggregate exp(mean log max(AP, 1e-5)) (missing queries count "
    "as 1e-5 with trec_eval -c)",
    source="Robertson, SIGIR 2006 (GMAP); trec_eval m_gm_map.c, meas_avg.c",
    params=REL,
    cutoff="none",
    bounds=gmap_bounds,
    aggregate=geometric_mean,
)
def gm_map(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """Average precision, averaged with the floored geometric mean."""
    rel = checked_rel(judged, m)
    return divide(_ap_sum(judged, rel), trec_num_rel(judged, rel)[None, :])


@register(
    "YAAP",
    ties_note="a logarithm of the AP sum: not linear in the orderings of a tie group, no "
    "closed form known",
    compact=True,
    examples=("YAAP",),
    range="(-inf, inf)",
    trec=(TrecName("yaap", "YAAP"),),
    formula="YAAP = log((1 + S) / (1 + R - S)), S = sum over relevant retrieved of P@rank",
    source="Robertson, ECIR 2012 ('On smoothing average precision'); trec_eval m_yaap.c",
    params=REL,
    cutoff="none",
    bounds=yaap_bounds,
)
def yaap(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """Yet another average precision (a logit of AP)."""
    rel = checked_rel(judged, m)
    s = _ap_sum(judged, rel)
    return np.log((1.0 + s) / (1.0 + trec_num_rel(judged, rel)[None, :].astype(np.float64) - s))


# ---- interpolated precision ---------------------------------------------------
@register(
    "IPrec",
    ties_note=IPREC_TIES,
    compact=True,
    examples=("IPrec(recall=0.0)", "IPrec(recall=0.5)", "IPrec(recall=1.0)"),
    at_param="recall",
    range="[0, 1]",
    trec=(TrecName("iprec_at_recall", "IPrec(recall={x})", "cut_double", TREC_RECALLS),),
    ir_measures="IPrec",
    notes="ir_measures writes IPrec@0.2 for IPrec(recall=0.2)",
    formula="IPrec(recall=x) = max of P@k over ranks k at or below the rank of the c-th relevant "
    "document, c = lround(x R) (the first if c = 0); 0 if fewer than c relevant retrieved",
    source="trec_eval m_iprec_at_recall.c (v10: lround(x R)); standard 11-point interpolation",
    params={**REL, "recall": Param(float, None, "recall level", range="[0, 1]",
                                      required=True)},
    cutoff="none",
    bounds=iprec_bounds, bounds_exact=False, bounds_note="exact at recall=0.0; an outer bound "
    "otherwise (the curve's maximum below a rank that moves with R)",
)
def interpolated_precision(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """Interpolated precision at a recall level."""
    recall = m.get("recall")
    if recall is None:
        raise ValueError("IPrec needs a recall level, e.g. IPrec(recall=0.5)")
    return iprec(judged, checked_rel(judged, m), float(recall))


ELEVEN_POINTS = TREC_RECALLS  # trec_eval's 11 recall levels


def iprec_average(judged: JudgedRankings, rel: int, points) -> np.ndarray:
    """Mean of IPrec over ``points``, summed from the highest point down (m_11pt_avg.c)."""
    total = np.zeros((judged.n_runs, judged.n_queries))
    for x in sorted(points, reverse=True):
        total = total + iprec(judged, rel, x)
    return total / len(points)


@register(
    "IPrecAvg",
    ties_note=IPREC_TIES,
    compact=True,
    examples=("IPrecAvg",),
    range="[0, 1]",
    trec=(TrecName("11pt_avg", "IPrecAvg", "p_double", TREC_RECALLS, computed=True),),
    formula="11-point average: mean of IPrec(recall=x) for x = 0.0, 0.1, ..., 1.0",
    source="trec_eval m_11pt_avg.c",
    params=REL,
    cutoff="none",
    bounds=iprec_average_bounds, bounds_exact=False,
    bounds_note="the mean of the 11 IPrec bounds: an outer bound",
)
def eleven_point_average(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """Interpolated precision averaged over the 11 standard recall points."""
    return iprec_average(judged, checked_rel(judged, m), ELEVEN_POINTS)


@register(
    "RprecMult",
    ties_note="not done yet: linear in per-position relevance, it would follow Rprec's kernel",
    compact=True,
    examples=("RprecMult", "RprecMult(mult=2.0)"),
    range="[0, 1]",
    trec=(TrecName("Rprec_mult", "RprecMult(mult={x})", "cut_double", TREC_MULTS),),
    formula="RprecMult(mult=x) = |relevant in top c| / c, c = floor(x R + 0.9) (0 if c = 0)",
    source="trec_eval m_Rprec_mult.c",
    params={**REL, "mult": Param(float, 1.0, "multiple of R", range="(0, inf)")},
    cutoff="none",
    bounds=rprec_mult_bounds,
)
def rprec_mult(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """Precision at a multiple of R."""
    rel = checked_rel(judged, m)
    r = trec_num_rel(judged, rel).astype(np.float64)
    c = (float(m.get("mult")) * r + 0.9).astype(np.int64)
    inside = trec_relevant(judged, rel) & (judged.rank < c[judged.query_of_item])
    return divide(judged.segment_count(inside), c[None, :].astype(np.float64))


# ---- set measures -------------------------------------------------------------
_SET = "trec_eval m_set_{}.c (ranking ignored: the retrieved set after the depth cut-off)"


def _from_counts(formula):
    """The kernel of a set measure ``formula(ret, rr, R, m, judged)`` (its rule,
    :func:`~irpref.measures.trec_bounds.count_bounds`, reads the formula too)."""

    def kernel(judged: JudgedRankings, m: Measure) -> np.ndarray:
        ret, rr, r = _counts(judged, checked_rel(judged, m))
        return formula(ret, rr, r[None, :], m, judged)

    kernel.formula, kernel.__doc__ = formula, formula.__doc__
    return kernel


@register(
    "SetP",
    compact=True,
    compact_expected=True,
    order_free=True,
    examples=("SetP",),
    range="[0, 1]",
    trec=(TrecName("set_P", "SetP"),),
    ir_measures="SetP",
    formula="SetP = |relevant retrieved| / |retrieved|",
    source=_SET.format("P"),
    params=REL,
    cutoff="none", bounds=count_bounds,
)
@_from_counts
def set_precision(ret, rr, r, m: Measure, judged: JudgedRankings) -> np.ndarray:
    """Precision of the retrieved set."""
    return divide(rr, ret)


@register(
    "SetR",
    compact=True,
    compact_expected=True,
    order_free=True,
    examples=("SetR",),
    range="[0, 1]",
    trec=(TrecName("set_recall", "SetR"),),
    ir_measures="SetR",
    formula="SetR = |relevant retrieved| / R",
    source=_SET.format("recall"),
    params=REL,
    cutoff="none", bounds=count_bounds,
)
@_from_counts
def set_recall(ret, rr, r, m: Measure, judged: JudgedRankings) -> np.ndarray:
    """Recall of the retrieved set."""
    return divide(rr, r)


@register(
    "SetRelP",
    compact=True,
    compact_expected=True,
    order_free=True,
    examples=("SetRelP",),
    range="[0, 1]",
    trec=(TrecName("set_relative_P", "SetRelP"),),
    ir_measures="SetP(relative=True)",
    formula="SetRelP = |relevant retrieved| / min(|retrieved|, R)",
    source=_SET.format("rel_P"),
    params=REL,
    cutoff="none", bounds=count_bounds,
)
@_from_counts
def set_relative_precision(ret, rr, r, m: Measure, judged: JudgedRankings) -> np.ndarray:
    """Set precision relative to the best possible for a set of that size."""
    return divide(rr, np.minimum(ret, r))


@register(
    "SetAP",
    compact=True,
    compact_expected=True,
    order_free=True,
    examples=("SetAP",),
    range="[0, 1]",
    trec=(TrecName("set_map", "SetAP"),),
    ir_measures="SetAP",
    formula="SetAP = |relevant retrieved|^2 / (|retrieved| R)  (= SetP * SetR)",
    source=_SET.format("map"),
    params=REL,
    cutoff="none", bounds=count_bounds,
)
@_from_counts
def set_map(ret, rr, r, m: Measure, judged: JudgedRankings) -> np.ndarray:
    """Unranked average precision of the retrieved set."""
    rr = rr.astype(np.float64)
    return divide(rr * rr, ret.astype(np.float64) * r.astype(np.float64))


@register(
    "SetF",
    compact=True,
    compact_expected=True,
    order_free=True,
    examples=("SetF", "SetF(beta=0.5)"),
    range="[0, 1]",
    trec=(TrecName("set_F", "SetF", "p_double", (1.0,),
                   build=lambda x: f"SetF(beta={trec_number(x)})"),),
    ir_measures="SetF",
    formula="SetF(beta=x) = (x + 1) P R / (x P + R), P = SetP, R = SetR (0 if nothing relevant "
    "retrieved)",
    source="van Rijsbergen 1979 (E measure); " + _SET.format("F"),
    params={**REL, "beta": Param(float, 1.0, "relative importance of recall (trec_eval's x)",
                                    range="[0, inf)")},
    cutoff="none", bounds=count_bounds,
)
@_from_counts
def set_f(ret, rr, r, m: Measure, judged: JudgedRankings) -> np.ndarray:
    """F measure of the retrieved set."""
    x = float(m.get("beta"))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = rr / ret
        rec = rr / r
        f = (x + 1.0) * p * rec / (x * p + rec)
    return np.where(rr > 0, f, 0.0)


@register(
    "Utility",
    compact=True,
    compact_expected=True,
    order_free=True,
    examples=("Utility", "Utility(a=2.0,b=-0.5,c=1.0,d=0.1)"),
    range="(-inf, inf)",
    trec=(TrecName("utility", "Utility", "p_double", (1.0, -1.0, 0.0, 0.0), build=_utility_text),),
    formula="Utility = a |rel ret| + b |nonrel ret| + c |rel not ret| + d |nonrel not ret| "
    "(|nonrel not ret| uses the corpus size, 0 if unknown)",
    source="trec_eval m_utility.c",
    params={
        **REL,
        "a": Param(float, 1.0, "worth of a relevant retrieved document"),
        "b": Param(float, -1.0, "worth of a non-relevant retrieved document"),
        "c": Param(float, 0.0, "worth of a relevant document not retrieved"),
        "d": Param(float, 0.0, "worth of a non-relevant document not retrieved"),
    },
    cutoff="none", bounds=count_bounds,
)
@_from_counts
def utility(ret, rr, r, m: Measure, judged: JudgedRankings) -> np.ndarray:
    """Linear set utility of the contingency table."""
    a, b, c, d = (float(m.get(k)) for k in "abcd")
    n = float(judged.corpus_size or 0)
    ret = ret.astype(np.float64)
    rr = rr.astype(np.float64)
    r = r.astype(np.float64)
    return a * rr + b * (ret - rr) + c * (r - rr) + d * (n + rr - ret - r)


@register(
    "NumNonRelJudgedRet",
    compact=True,
    compact_expected=True,
    order_free=True,
    examples=("NumNonRelJudgedRet",),
    range="[0, inf)",
    trec=(TrecName("num_nonrel_judged_ret", "NumNonRelJudgedRet", value="long", average="sum"),),
    orientation="none",
    formula="number of retrieved documents judged with 0 <= grade < rel",
    source="trec_eval m_num_nonrel_judged_ret.c",
    params=REL,
    cutoff="none",
    kind="count",
    aggregate=np.sum,
    bounds=nonrel_bounds, bounds_note=JUDGED_ONLY_NOTE,
)
def num_nonrel_judged_ret(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """Judged non-relevant documents retrieved."""
    rel = checked_rel(judged, m)
    return judged.segment_count((judged.grade >= 0) & (judged.grade < rel))


@register(
    "NumQ",
    compact=True,
    compact_expected=True,
    order_free=True,
    examples=("NumQ",),
    range="[0, inf)",
    trec=(TrecName("num_q", "NumQ", value="long", average="count", per_query=False),),
    ir_measures="NumQ",
    orientation="none",
    formula="1 for every evaluated query (summed: the number of queries)",
    source="trec_eval m_num_q.c",
    cutoff="none",
    kind="count",
    aggregate=np.sum,
    bounds="monotone", bounds_note="constant (1 per query)",
)
def num_q(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """One per query."""
    return np.ones((judged.n_runs, judged.n_queries))


# ---- cut-off measures ---------------------------------------------------------
@register(
    "RelP",
    compact=True,
    compact_expected=True,
    examples=("RelP@3",),
    range="[0, 1]",
    trec=(TrecName("relative_P", "RelP@{k}", "cut_long", TREC_CUTS),),
    formula="RelP@k = |relevant in top k| / min(k, R)  (0 if R = 0)",
    source="trec_eval m_rel_P.c (relative_P)",
    params=REL,
    cutoff="required", bounds=relp_bounds,
)
def relative_precision(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """Precision at k relative to the best possible: P@k up to R, recall after."""
    rel = checked_rel(judged, m)
    r = trec_num_rel(judged, rel)
    hits = judged.segment_count(trec_relevant(judged, rel) & within_cutoff(judged, m))
    return divide(hits, np.minimum(m.cutoff, r)[None, :])


@register(
    "Unj",
    examples=("Unj@3",),
    range="[0, 1]",
    trec=(TrecName("unj", "Unj@{k}", "cut_long", (5, 10, 20)),),
    orientation="none",
    formula="Unj@k = |retrieved in top k not judged (absent from the qrels or negative "
    "grade)| / k",
    source="trec_eval m_unjudged.c (unj)",
    cutoff="required",
    bounds=None, bounds_note="describes the judging, not relevance: every assignment judges "
    "the unjudged documents (Unj@k 0); no residual bound",
)
def unjudged(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """Fraction of the top k without a judgement (a red-flag measure)."""
    return judged.segment_count((judged.grade < 0) & within_cutoff(judged, m)) / m.cutoff


# kernels whose per-item terms vanish on items the qrels do not mention read the
# compact layout; Unj (unjudged items count) needs the full (gain-based: trec_gain.py)


# ---- the ties="expected" kernels (McSherry & Najork 2008, section 2.1: linear in
# per-position indicators); the set measures are order-free (their records say so)
@attach_kernel("RelP")
def expected_relative_precision(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[RelP@k] = (R_c + (k - t_c) r_c / n_c) / min(k, R) (McSherry & Najork 2008, 2.1)."""
    num_rel = judged.num_rel(m.rel(judged))
    return divide(expected_rel_ret(judged, m), np.minimum(m.cutoff, num_rel)[None, :])


@attach_kernel("Unj")
def expected_unjudged(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[Unj@k]: the argument of McSherry & Najork 2008, 2.1, for unjudged items."""
    return expected_marked(judged, tie_groups(judged, "unjudged"), m.cutoff) / m.cutoff
