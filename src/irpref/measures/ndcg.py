"""nDCG and NCG: graded gain against the ideal ranking, as trec_eval 10.0
computes nDCG (Jarvelin & Kekalainen 2002), each with its tie-aware
(``ties="expected"``) kernel; their bounds rule is
:func:`irpref.measures.ndcg_bounds.gain_ratio_bounds`.

Gains and ideals are those of :mod:`irpref.measures.gains`; a query whose
ideal gains nothing scores 0. :func:`expected_dcg` (the mean gain
of each tie group on its positions, McSherry & Najork 2008, section 2.6) serves
trec_eval's DCG too (:mod:`irpref.measures.trec_gain`).
"""

from __future__ import annotations

import numpy as np

from irpref.judging.judged import JudgedRankings
from irpref.measures.arithmetic import divide, segment_scan
from irpref.measures.base import (
    TREC_CUTS,
    Alias,
    Measure,
    TrecName,
    attach_kernel,
    register,
)
from irpref.measures.gains import GAIN, custom_ideal_dcg, gains, ideal_cg, ideal_dcg
from irpref.measures.ndcg_bounds import gain_ratio_bounds
from irpref.measures.ties import TieGroups, tie_groups

__all__ = ["expected_dcg"]


def _discount(rank0: np.ndarray) -> np.ndarray:
    return 1.0 / np.log2(rank0 + 2.0)


@register(
    "nDCG",
    bounds=gain_ratio_bounds,
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
        return divide(dcg, ideal[None, :])
    ideal = ideal_dcg(judged, m.cutoff, m.get("gain"))
    dcg = segment_scan(judged, "dcg", 1, m.cutoff) if m.get("gain") == "linear" else None
    if dcg is not None:  # one C pass over the items
        return divide(dcg, ideal[None, :])
    # items with grade > 0 only (the others add 0.0), summed in item order
    items = judged.items_with_grade(1)
    rank, seg = items.rank, items.segment
    gain = gains(judged.grade[items.index], m.get("gain"))
    if m.cutoff is not None:
        keep = rank < m.cutoff
        rank, seg, gain = rank[keep], seg[keep], gain[keep]
    dcg = np.bincount(seg, weights=gain / np.log2(rank + 2.0), minlength=judged.n_segments)
    dcg = dcg.reshape(judged.n_runs, judged.n_queries)
    return divide(dcg, ideal[None, :])


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
    return divide(expected_dcg(judged, m), ideal[None, :])


# ---- NCG: nDCG without the discount -------------------------------------------


@register(
    "NCG",
    bounds=gain_ratio_bounds,
    bounds_note="the upper bound by grade layers and Dinkelbach's method",
    compact=True,  # ranks and grades of the positive items only
    compact_expected=True,  # TieGroups: either layout
    examples=("NCG", "NCG@3"),
    range="[0, 1]",
    formula="NCG@k = CG@k / ideal CG@k, CG@k = sum_{i<=k} g(d_i), gain g = grade (grades "
    "<= 0 gain nothing); the ideal ranks the qrels by grade; 0 when no grade is positive",
    source="Jarvelin & Kekalainen, Cumulated gain-based evaluation of IR techniques, "
    "TOIS 2002, section 2.1 (CG) and 2.3 (normalised by the ideal vector)",
    notes="nDCG without the discount; no counterpart in trec_eval, ir_measures or ranx",
    description="Share of the ideal top-k gain the top k collects, order within the top k "
    "ignored. Tie policies: docid, input, expected (exact: linear in the ranking).",
)
def ncg(judged: JudgedRankings, m: Measure) -> np.ndarray:
    items = judged.items_with_grade(1)
    seg, gain = items.segment, judged.grade[items.index].astype(np.float64)
    if m.cutoff is not None:
        keep = items.rank < m.cutoff
        seg, gain = seg[keep], gain[keep]
    cg = np.bincount(seg, weights=gain, minlength=judged.n_segments)
    return divide(cg.reshape(judged.n_runs, judged.n_queries),
                  ideal_cg(judged, m.cutoff)[None, :])


@attach_kernel("NCG")
def expected_ncg(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[CG@k] / ideal CG@k: every position j <= k of a tie group holding positive
    grades receives the group's mean gain w_c / n_c (McSherry & Najork 2008, 2.1)."""
    g = tie_groups(judged)
    gi, _ = g.expand(m.cutoff)
    return divide(g.segment_sum(gi, g.weight[gi] / g.size[gi]),
                  ideal_cg(judged, m.cutoff)[None, :])
