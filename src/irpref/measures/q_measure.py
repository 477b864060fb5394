"""NTCIR's Q-measure: average precision with graded relevance, by the blended
ratio (Sakai, New performance metrics based on multigrade relevance: their
application to question answering, NTCIR-4 2004; Sakai, On the reliability of
information retrieval metrics based on graded relevance, Information
Processing & Management 43, 2007; Sakai & Kando, Information Retrieval 11(5),
2008). ``Q@k`` follows NTCIREVAL, Sakai's evaluation tool.

For a query with R relevant documents (grade >= ``rel``), a ranking, and gain
g(d) of a relevant document (``gain=linear``: its grade, ``gain=exp``:
2^grade - 1, as nDCG's; 0 for the others):

    C(r)   = relevant documents in the top r,
    cg(r)  = sum of their gains,
    cg*(r) = the same for the ideal ranking (the R relevant documents sorted by
             gain; constant from rank R on),
    BR(r)  = (C(r) + beta cg(r)) / (r + beta cg*(r))     (the blended ratio),
    Q      = (1/R) sum over the ranks r of relevant documents of BR(r).

``beta`` (1 by default) weighs gain against rank: ``beta=0`` is AP, a large
beta a cumulative-gain ratio. ``Q@k`` is NTCIREVAL's: the sum over relevant
ranks r <= k, divided by min(R, k). BR(r) <= 1 (C(r) <= r and cg(r) <=
cg*(r)), so Q lies in [0, 1]; a query without relevant documents scores 0.
Unjudged documents, and grades below ``rel``, are non-relevant and gain
nothing, as in NTCIREVAL (whose relevance levels L1 ... are all relevant:
``rel=1`` with its gain values ``-g 1:2:3`` is ``gain=linear``).

``ties="expected"``: the exact mean over the orderings of tied documents. The
denominator of BR depends on the position only, so the expectation is linear
in per-position terms (McSherry & Najork 2008, the argument of section 2.4).
At position j of a tie group of n items holding r relevant ones of total gain
W, after rank t, after R_i relevant documents of total gain G_i:

    E[I(j) C(j)]  = (r/n) (R_i + 1 + (j - t - 1)(r - 1)/(n - 1))   (as for AP),
    E[I(j) cg(j)] = (r/n) G_i + W/n + (j - t - 1)(r - 1) W / (n (n - 1)),

the second because the item at j is relevant with its gain (gains vanish
elsewhere: W/n), and any of the j - t - 1 earlier group positions holds, with
a relevant item at j, each other item with probability 1/(n(n - 1)) per
relevant item at j: sum over relevant x of (W - g(x)) / (n(n - 1)) =
(r - 1) W / (n(n - 1)). Then E[Q] = sum_j (E[I C] + beta E[I cg]) / (j + beta
cg*(j)), divided as Q. Its bounds rule is
:func:`irpref.measures.q_measure_bounds.q_bounds`.
"""

from __future__ import annotations

import numpy as np

from irpref.judging.judged import JudgedRankings
from irpref.measures.arithmetic import divide, exact_cumsum
from irpref.measures.base import REL, Alias, Measure, Param, attach_kernel, register
from irpref.measures.gains import GAIN, gains, ideal_gain_prefix
from irpref.measures.q_measure_bounds import OUTER_NOTE, q_bounds
from irpref.measures.ties import TieGroups

__all__ = ["expected_q_measure", "q_measure"]

BETA = {"beta": Param(float, 1.0, "weight of the cumulative gain against the rank in the "
                      "blended ratio (0: AP)", range="[0, inf)")}


def _ideal_at(judged: JudgedRankings, m: Measure, segment: np.ndarray, rank1: np.ndarray
              ) -> np.ndarray:
    """cg*(r) of each segment's query at the 1-based ranks ``rank1`` (an integer array)."""
    offsets, prefix = ideal_gain_prefix(judged, m.rel(judged), m.get("gain"))
    q = segment % judged.n_queries
    return prefix[offsets[:-1][q] + q + np.minimum(rank1, np.diff(offsets)[q])]


def _normalised(judged: JudgedRankings, m: Measure, sums: np.ndarray) -> np.ndarray:
    """(R, Q) the sums of BR over the relevant ranks, divided by R (or min(R, k))."""
    big_r = judged.num_rel(m.rel(judged))
    if m.cutoff is not None:
        big_r = np.minimum(big_r, m.cutoff)
    return divide(sums.reshape(judged.n_runs, judged.n_queries), big_r[None, :])


@register(
    "Q",
    bounds=q_bounds, bounds_exact=False, bounds_note=OUTER_NOTE,
    compact=True,  # the relevant items (in the qrels) and the ideal only
    compact_expected=True,  # TieGroups: either layout
    examples=("Q", "Q@3", "Q(beta=0.5,gain=exp)@5", "Q(rel=2)"),
    range="[0, 1]",
    aliases=(Alias("Q-measure", "NTCIREVAL"),),
    notes="NTCIREVAL's Q-measure (and Q@k, divided by min(R, k)); beta=0 is AP",
    formula="Q@k = 1/min(R, k) sum over relevant d at rank r <= k of (C(r) + beta cg(r)) / "
    "(r + beta cg*(r)); C(r) relevant in the top r, cg(r) their gain (gain = grade, "
    "gain=exp: 2^grade - 1), cg*(r) the ideal's; without a cut-off divided by R",
    source="Sakai, New performance metrics based on multigrade relevance, NTCIR-4 2004; "
    "Sakai & Kando, Information Retrieval 11(5) 2008; Q@k as NTCIREVAL",
    params={**REL, "gain": GAIN["gain"], **BETA},
    description="Average precision with graded relevance: each relevant document scores the "
    "blended ratio of precision and cumulative gain against the ideal ranking. Tie "
    "policies: docid, input, expected (exact: linear in the positions).",
)
def q_measure(judged: JudgedRankings, m: Measure) -> np.ndarray:
    beta = float(m.get("beta"))
    items = judged.items_with_grade(m.rel(judged))  # the relevant items, in rank order
    cg = exact_cumsum(gains(judged.grade[items.index], m.get("gain")), items.offsets)
    ideal = _ideal_at(judged, m, items.segment, items.rank + 1)
    ratio = (items.nth + 1.0 + beta * cg) / (items.rank + 1.0 + beta * ideal)
    seg = items.segment
    if m.cutoff is not None:
        keep = items.rank < m.cutoff
        ratio, seg = ratio[keep], seg[keep]
    return _normalised(judged, m, np.bincount(seg, weights=ratio, minlength=judged.n_segments))


@attach_kernel("Q")
def expected_q_measure(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[Q@k] over the orderings of tied documents: the per-position expectations
    of the module docstring (McSherry & Najork 2008, the argument of 2.4)."""
    beta = float(m.get("beta"))
    items = judged.items_with_grade(m.rel(judged))
    g = TieGroups(judged, items.index, gains(judged.grade[items.index], m.get("gain")))
    weight = np.asarray(g.weight, np.float64)
    # G_i: the gain of the relevant documents of the earlier groups of the segment
    first = np.ones(len(weight), bool)
    first[1:] = g.segment[1:] != g.segment[:-1]
    earlier = np.cumsum(weight) - weight
    earlier -= earlier[first][np.cumsum(first) - 1]
    gi, j = g.expand(m.cutoff)
    r, n, w = g.count[gi].astype(np.float64), g.size[gi].astype(np.float64), weight[gi]
    slots = j - g.start_rank[gi] - 1.0  # earlier positions of the group
    share = r / n
    count = share * (g.before[gi] + 1.0 + slots * divide(r - 1.0, n - 1.0))
    gain = share * earlier[gi] + w / n + slots * w * divide(r - 1.0, n * (n - 1.0))
    ideal = _ideal_at(judged, m, g.segment[gi], j)
    ratio = (count + beta * gain) / (j + beta * ideal)
    sums = np.bincount(g.segment[gi], weights=ratio, minlength=judged.n_segments)
    return _normalised(judged, m, sums)
