"""Tie-aware measures: the exact mean over all orderings of tied scores.

McSherry & Najork, "Computing Information Retrieval Performance Measures
Efficiently in the Presence of Tied Scores" (ECIR 2008), section 2. A ranking
with tied scores is a sequence of tie groups V_1..V_m; group i holds n_i items,
r_i of them relevant, starts after rank t_i and follows R_i relevant items.
Every ordering of the items inside each group is equally likely; each kernel
here returns the *exact* expectation of its measure over those orderings, in
one vectorised pass over all runs and queries (no enumeration):

- position j of group i is relevant with probability r_i / n_i, so measures
  linear in per-position relevance or gain (P, R, F1, NumRelRet, Rprec, RBP,
  nDCG) replace rel(v_j) (or the gain) by the group's mean (sections 2.1-2.3, 2.6);
- AP: position j contributes (r_i/n_i) (R_i + (j-t_i-1)(r_i-1)/(n_i-1) + 1) / j
  (section 2.4);
- RR: within the first group holding a relevant item, the first relevant item
  sits at t_i + x with probability f(x-1, r_i, n_i) r_i / (n_i - x + 1), where
  f(x, r, n) = prod_{y<=x} (1 - r/(n-y+1)) is the fraction of orderings whose
  first x items are non-relevant (section 2.5);
- Success@k = 1 - P(no relevant item in the top k) = 1 - f(k - t_c, r_c, n_c)
  when no relevant item precedes the group V_c holding rank k (an extension by
  the same argument as section 2.5).

Conventions are those of :mod:`irpref.measures.rank` (trec_eval): relevant
means grade >= rel, nDCG gains are the grades (grades <= 0 gain nothing), a
query without relevant documents scores 0, P@k divides by k. Tie groups are
those of :attr:`~irpref.judged.JudgedRankings.tie_offsets`: the depth cut-off
(trec_eval -M) is applied by :func:`~irpref.judged.judge` to the canonical
docid order, so when it splits a tie group only the kept items are averaged
over. Relevant documents that were never retrieved count in the denominators
(R, AP, Rprec, nDCG's ideal) exactly as in the tie-oblivious measures.

Also covered: Success, Rprec (k = |relevant|), RBP, NumRelRet, DCG, RelP,
Unj (all linear in per-position indicators) and the order-free families
(records with ``order_free=True``: SetP, SetR, SetRelP, SetAP, SetF, Utility,
NumNonRelJudgedRet, NumQ, IDCG), whose value no ordering changes. Each
kernel lives beside its family's record (classic.py, trec_extra.py,
trec_gain.py, err.py, ...), built on the tie groups of
:mod:`irpref.measures.ties`; this module registers the families born with
both forms, ``F1`` and ``NCG``.

Families left without an ``expected`` kernel raise a ValueError under
``ties="expected"``. Some are not sums of per-position terms and have no
one-pass formula in the paper: IPrec/IPrecAvg (a maximum over ranks), YAAP and
GMBpref (logarithms), infAP, Bpref, BinG, G, nDCGRel, RnDCG (ratios of
position-dependent counts). RBPResid and RprecMult are linear and would
follow the RBP/Rprec kernels, but are not done yet; the recall-level family
(RL, in another module) is likewise left to its module.
"""

from __future__ import annotations

import numpy as np

import irpref.measures.ndcg_bounds as residual_ideal
import irpref.measures.rank_bounds as residual_rank
from irpref.judged import JudgedRankings
from irpref.measures.base import Alias, Measure, attach_kernel, register
from irpref.measures.rank import REL, _safe_div, num_rel_ret
from irpref.measures.ties import (  # noqa: F401  (re-exported: the tie machinery)
    _CACHE,
    TieGroups,
    expected_marked,
    expected_rel_ret,
    first_irrelevant_fraction,
    tie_groups,
)

__all__ = ["TieGroups", "first_irrelevant_fraction", "ideal_cg", "tie_groups"]


def _f1_cutoff(judged: JudgedRankings, m: Measure) -> np.ndarray:
    return judged.num_ret if m.cutoff is None else np.full(judged.num_ret.shape, m.cutoff)


@register(
    "F1",
    bounds=residual_rank.f1_bounds,
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
    return _safe_div(2.0 * num_rel_ret(judged, m), den)


@attach_kernel("F1")
def expected_f1(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[F1@k] = 2 (R_c + (k - t_c) r_c/n_c) / (k + |relevant|) (McSherry & Najork 2008, 2.3)."""
    den = _f1_cutoff(judged, m) + judged.num_rel(m.rel(judged))[None, :]
    return _safe_div(2.0 * expected_rel_ret(judged, m), den)


# ---- NCG: one record with its two kernels and its layouts, all here -------------
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
    bounds=residual_ideal.gain_ratio_bounds,
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
    return _safe_div(cg.reshape(judged.n_runs, judged.n_queries),
                     ideal_cg(judged, m.cutoff)[None, :])


@attach_kernel("NCG")
def expected_ncg(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[CG@k] / ideal CG@k: every position j <= k of a tie group holding positive
    grades receives the group's mean gain w_c / n_c (McSherry & Najork 2008, 2.1)."""
    g = tie_groups(judged)
    gi, _ = g.expand(m.cutoff)
    return _safe_div(g.segment_sum(gi, g.weight[gi] / g.size[gi]),
                     ideal_cg(judged, m.cutoff)[None, :])


