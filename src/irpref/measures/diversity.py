"""Intent-aware (diversity) measures on ndeval-format subtopic qrels.

These follow ``ndeval`` (version 4.5, the TREC Web track 2009-2014 tool):

- Every subtopic label of a topic is an intent, ``0`` included (ndeval
  indexes its arrays by the subtopic number; single-facet Web 2013-14 topics
  have only subtopic 0). Intents weigh the same: 1/S, S the number of the
  topic's subtopics with at least one relevant document ("actual subtopics";
  a subtopic nobody judged relevant is ignored). A topic with S = 0 scores 0.
- Relevance is binary: a judgment is relevant when its grade is ``>= rel``
  (the evaluation's ``--rel``, 1 by default, which is ndeval's rule: it clips
  grades to 0/1). A document may be relevant to several subtopics.
- The run is ranked by score, docid descending on ties (ndeval's
  ``-traditional``; by default ndeval trusts the rank column instead).
- Let c_t(i) be the number of documents above rank i relevant to subtopic t,
  and J_t(i) = 1 if the document at rank i is relevant to t.

``alpha-nDCG@k`` (Clarke et al., SIGIR 2008, section 4-5): gain
G(i) = sum_t J_t(i) (1 - alpha)^c_t(i), discount 1/log2(i + 1); divided by the
same for the ideal ranking, built greedily from the judged documents (the
document of largest gain next; equal gains go to the larger docid, as
ndeval's ``idealResult``). ``alpha`` defaults to 0.5.

``ERR-IA@k`` (Chapelle et al., Information Retrieval 2011, section 3; ndeval's
collection-independent form): sum_i sum_t J_t(i) (1 - alpha)^c_t(i) / i,
divided by S sum_{i<=k} (1 - alpha)^(i-1) / i, i.e. the intent-aware ERR with
stopping probability alpha for a relevant document, relative to a ranking of
k documents each relevant to every subtopic. ``nERR-IA@k`` divides instead by
the same sum for the greedy ideal ranking (ndeval's collection-dependent form).

``MAP-IA`` (Agrawal et al., WSDM 2009): (1/S) sum_t AP_t, AP_t the average
precision of the run on the documents relevant to t.

``S-recall@k`` (Zhai, Cohen & Lafferty, SIGIR 2003, section 2.2; ndeval
``strec``): the share of the S subtopics covered by the top k.

ndeval computes these only at k = 5, 10, 20 (it stops at depth 20); irpref
takes any k. ndeval leaves its value at k = 1 unnormalised (its normalising
loop starts at rank 2); irpref normalises every k.

Queries of the qrels with no line in the subtopic qrels score 0 (with a
warning); give the subtopic file as QRELS too and the two agree.
"""

from __future__ import annotations

import numpy as np

from irpref.judging.judged import JudgedRankings
from irpref.measures.arithmetic import divide
from irpref.measures.base import REL, Alias, Measure, Param, register
from irpref.measures.diversity_bounds import (
    EXACT_NOTE,
    OUTER_NOTE,
    ap_ia_bounds,
    err_ia_bounds,
    ideal_ratio_bounds,
    s_recall_bounds,
)
from irpref.measures.subtopic_judgments import (
    alpha_of,
    ideal_gain,
    pair_values,
    per_query,
    sequential_sum,
)

__all__: list[str] = []  # the families register themselves; the join: subtopic_judgments


ALPHA = {"alpha": Param(float, 0.5, "redundancy intolerance (ndeval -alpha), in [0, 1]")}
_SRC = "ndeval 4.5 (TREC Web track 2009-2014)"


DIVERSITY_TIES = ("not derived: the subtopic counts c_t(i) and the greedy ideal depend on the "
                  "order of the tied documents jointly")


@register(
    "alpha-nDCG",
    ties_note=DIVERSITY_TIES,
    examples=("alpha-nDCG@5",),
    subtopics=True,
    bounds=ideal_ratio_bounds, bounds_exact=False, bounds_note=OUTER_NOTE,
    range="[0, inf)",
    aliases=(Alias("alpha_nDCG", "ir_measures"),),
    formula="alpha-nDCG@k = sum_{i<=k} G(i)/log2(i+1) / the same for the greedy ideal; "
    "G(i) = sum_t J_t(i) (1-alpha)^c_t(i)",
    source=f"Clarke et al., Novelty and diversity in information retrieval evaluation, "
    f"SIGIR 2008, sections 4-5; {_SRC}",
    params={**REL, **ALPHA},
    cutoff="required",
    description="Diversity-aware nDCG on subtopic qrels (--subtopics FILE). "
    "Tie policies: docid, input.",
)
def alpha_ndcg(judged: JudgedRankings, m: Measure) -> np.ndarray:
    j, seg, rank, _, c = pair_values(judged, m)
    a = alpha_of(m)
    dcg = per_query(judged, seg, np.power(1.0 - a, c) / np.log2(rank + 2.0))
    gain = ideal_gain(j, a, m.cutoff)
    ideal = sequential_sum(gain, 1.0 / np.log2(np.arange(gain.shape[1]) + 2.0))
    return divide(dcg, ideal[None, :])


def _err_terms(judged, m):
    j, seg, rank, _, c = pair_values(judged, m)
    a = alpha_of(m)
    return j, a, per_query(judged, seg, np.power(1.0 - a, c) / (rank + 1.0))


@register(
    "ERR-IA",
    ties_note=DIVERSITY_TIES,
    examples=("ERR-IA@5",),
    subtopics=True,
    bounds=err_ia_bounds, bounds_note=EXACT_NOTE,
    range="[0, 1]",
    aliases=(Alias("ERR_IA", "ir_measures"),),
    formula="ERR-IA@k = sum_{i<=k} sum_t J_t(i) (1-alpha)^c_t(i) / i "
    "/ (S sum_{i<=k} (1-alpha)^(i-1) / i)",
    source=f"Chapelle et al., Intent-based diversity metrics, Information Retrieval 14(6) "
    f"2011, section 3; {_SRC}, collection-independent normalisation",
    params={**REL, **ALPHA},
    cutoff="required",
    description="Intent-aware expected reciprocal rank on subtopic qrels (--subtopics FILE), "
    "relative to k documents relevant to every subtopic. Tie policies: docid, input.",
)
def err_ia(judged: JudgedRankings, m: Measure) -> np.ndarray:
    j, a, num = _err_terms(judged, m)
    k = np.arange(m.cutoff)
    perfect = float(np.sum(np.power(1.0 - a, k) / (k + 1.0)))
    return divide(num, (j.n_sub * perfect)[None, :].astype(np.float64))


@register(
    "nERR-IA",
    ties_note=DIVERSITY_TIES,
    examples=("nERR-IA@5",),
    subtopics=True,
    bounds=ideal_ratio_bounds, bounds_exact=False, bounds_note=OUTER_NOTE,
    range="[0, inf)",
    formula="nERR-IA@k = ERR-IA@k of the run / ERR-IA@k of the greedy ideal ranking",
    source=f"Chapelle et al., Information Retrieval 14(6) 2011, section 3; {_SRC}, "
    "collection-dependent normalisation",
    params={**REL, **ALPHA},
    cutoff="required",
    description="ERR-IA normalised by the greedy ideal ranking (--subtopics FILE). "
    "Tie policies: docid, input.",
)
def nerr_ia(judged: JudgedRankings, m: Measure) -> np.ndarray:
    j, a, num = _err_terms(judged, m)
    gain = ideal_gain(j, a, m.cutoff)
    ideal = sequential_sum(gain, 1.0 / (np.arange(gain.shape[1]) + 1.0))
    return divide(num, ideal[None, :])


@register(
    "MAP-IA",
    ties_note=DIVERSITY_TIES,
    examples=("MAP-IA",),
    subtopics=True,
    bounds=ap_ia_bounds, bounds_note=EXACT_NOTE,
    range="[0, 1]",
    aliases=(Alias("AP_IA", "ir_measures"),),
    formula="MAP-IA = (1/S) sum_t AP_t, AP_t = sum over d relevant to t within the cut-off "
    "of P_t@rank(d), divided by the documents relevant to t",
    source=f"Agrawal, Gollapudi, Halverson & Ieong, Diversifying search results, WSDM 2009; "
    f"{_SRC}",
    params=REL,
    description="Intent-aware average precision on subtopic qrels (--subtopics FILE). "
    "Tie policies: docid, input.",
)
def map_ia(judged: JudgedRankings, m: Measure) -> np.ndarray:
    j, seg, rank, t, c = pair_values(judged, m)
    ap = per_query(judged, seg, (c + 1.0) / (rank + 1.0) / j.nrel[t])
    return divide(ap, j.n_sub[None, :].astype(np.float64))


@register(
    "S-recall",
    ties_note=DIVERSITY_TIES,
    examples=("S-recall@5",),
    subtopics=True,
    bounds=s_recall_bounds, bounds_note=EXACT_NOTE,
    range="[0, 1]",
    aliases=(Alias("StRecall", "ir_measures"),),
    formula="S-recall@k = |subtopics with a relevant document in the top k| / S",
    source=f"Zhai, Cohen & Lafferty, Beyond independent relevance, SIGIR 2003, "
    f"section 2.2; {_SRC} (strec)",
    params=REL,
    cutoff="required",
    description="Subtopic recall on subtopic qrels (--subtopics FILE). "
    "Tie policies: docid, input.",
)
def s_recall(judged: JudgedRankings, m: Measure) -> np.ndarray:
    j, seg, _, _, c = pair_values(judged, m)
    covered = per_query(judged, seg, (c == 0).astype(np.float64))
    return divide(covered, j.n_sub[None, :].astype(np.float64))
