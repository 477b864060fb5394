"""nDCG and NCG: graded gain against the ideal ranking, as trec_eval 10.0
computes nDCG (Jarvelin & Kekalainen 2002), each with its tie-aware
(``ties="expected"``) kernel; their bounds rule is
:func:`irpref.measures.ndcg_bounds.gain_ratio_bounds`.

The gain of a grade g > 0 is g (``gain=linear``, trec_eval) or 2^g - 1
(``gain=exp``, Burges et al. 2005); grades <= 0 gain nothing, and
``gains=1:3;2:9`` sets the gain of listed grades (:class:`Gains`, trec_eval's
``-m ndcg.1=3,2=9``). The ideal ranking sorts the judged documents by gain; a
query whose ideal gains nothing scores 0. :func:`expected_dcg` (the mean gain
of each tie group on its positions, McSherry & Najork 2008, section 2.6) serves
trec_eval's DCG too (:mod:`irpref.measures.trec_gain`).
"""

from __future__ import annotations

import numpy as np

from irpref.judged import JudgedRankings
from irpref.measures.arithmetic import divide
from irpref.measures.base import (
    TREC_CUTS,
    Alias,
    Measure,
    Param,
    TrecName,
    attach_kernel,
    register,
)
from irpref.measures.ndcg_bounds import gain_ratio_bounds
from irpref.measures.ties import TieGroups, tie_groups

__all__ = ["GAIN", "Gains", "custom_ideal_dcg", "expected_dcg", "gains", "ideal_cg", "ideal_dcg"]


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
    # items with grade > 0 only (the others add 0.0), summed in item order
    items = judged.items_with_grade(1)
    rank, seg = items.rank, items.segment
    gain = gains(judged.grade[items.index], m.get("gain"))
    if m.cutoff is not None:
        keep = rank < m.cutoff
        rank, seg, gain = rank[keep], seg[keep], gain[keep]
    dcg = np.bincount(seg, weights=gain / np.log2(rank + 2.0), minlength=judged.n_segments)
    dcg = dcg.reshape(judged.n_runs, judged.n_queries)
    return divide(dcg, ideal_dcg(judged, m.cutoff, m.get("gain"))[None, :])


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
def ideal_cg(judged: JudgedRankings, cutoff: int | None) -> np.ndarray:
    """(Q,) cumulative gain of the ideal ranking within the cut-off: the top k
    positive grades of the qrels, summed."""
    offsets, grades = judged.ideal_grades(1)
    q = np.repeat(np.arange(judged.n_queries), np.diff(offsets))
    rank0 = np.arange(len(grades)) - offsets[:-1][q]
    keep = rank0 < cutoff if cutoff is not None else np.ones(len(grades), bool)
    return np.bincount(q[keep], weights=grades[keep].astype(np.float64),
                       minlength=judged.n_queries)


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
