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

import os
import warnings
import weakref
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irpref.condense import FOLLOWERS
from irpref.errors import UsageError
from irpref.io.subtopics import SubtopicQrels, as_subtopic_qrels, collapse
from irpref.judged import JudgedRankings, matching_rows
from irpref.measures.base import Alias, Measure, Param, register
from irpref.measures.classic import REL
from irpref.measures.residual_recall import DIVERSITY_NOTE

__all__ = [
    "attach_subtopics",
    "check_subtopics",
    "needs_subtopics",
    "use_subtopics",
]


_ATTACHED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_JOINED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _follow(judged: JudgedRankings, copy: JudgedRankings) -> None:
    """The subtopic judgments of ``judged`` serve its condensed lists too."""
    sub = _ATTACHED.get(judged)
    if sub is not None and _ATTACHED.get(copy) is not sub:
        _ATTACHED[copy] = sub
        _JOINED.pop(copy, None)


FOLLOWERS.append(_follow)


def needs_subtopics(measure: Measure) -> bool:
    """True when the measure's record says it reads subtopic qrels."""
    return measure.family.subtopics


def attach_subtopics(judged: JudgedRankings, subtopics) -> None:
    """Give ``judged`` the subtopic judgments its diversity measures read."""
    _ATTACHED[judged] = as_subtopic_qrels(subtopics)
    _JOINED.pop(judged, None)


def check_subtopics(measures, subtopics, judged: JudgedRankings | None = None) -> None:
    """Raise :class:`UsageError` if a measure needs subtopic qrels and has none."""
    if subtopics is not None or (judged is not None and judged in _ATTACHED):
        return
    for m in measures:
        if needs_subtopics(m):
            raise UsageError(
                f"{m} needs subtopic qrels: pass --subtopics FILE (Python: subtopics=...)"
            )


def use_subtopics(qrels, subtopics):
    """``(qrels, subtopic qrels or None)``: ``subtopics`` read once; if ``qrels``
    is None or names the same file, it becomes the subtopic qrels collapsed
    (a document's grade: its maximum over subtopics)."""
    if subtopics is None:
        return qrels, None
    sub = as_subtopic_qrels(subtopics)
    same = qrels is None or qrels is subtopics
    if not same and isinstance(qrels, (str, os.PathLike)) and isinstance(
        subtopics, (str, os.PathLike)
    ):
        try:
            same = os.path.samefile(qrels, subtopics)
        except OSError:
            same = False
    return (collapse(sub) if same else qrels), sub


@dataclass(frozen=True)
class _Joined:
    """Subtopic judgments at one relevance level, joined with the rankings."""

    n_sub: np.ndarray  # (Q,) subtopics with a relevant document (S)
    nrel: np.ndarray  # (T,) relevant documents per subtopic
    pair_item: np.ndarray  # item index of each (item, subtopic) pair
    pair_t: np.ndarray  # subtopic of each pair
    pair_c: np.ndarray  # c_t(i): earlier pairs of the same segment and subtopic
    rows: tuple  # (query, docid code in byte order, subtopic) of the relevant judgments
    ideal: dict  # (alpha, steps) -> (Q, steps) greedy ideal gain per rank


def _label_order(labels: pa.Array) -> np.ndarray:
    """Rank of each distinct subtopic label: numeric labels by value, others after."""
    values = labels.to_pylist()
    keys = [(0, int(v), "") if v.isdigit() else (1, 0, v) for v in values]
    order = sorted(range(len(values)), key=keys.__getitem__)
    rank = np.empty(len(values), np.int64)
    rank[order] = np.arange(len(values))
    return rank


def _sorted_doc_codes(docs: pa.Array) -> np.ndarray:
    """Codes of the document ids, numbered in byte order of the strings."""
    encoded = pc.dictionary_encode(docs)
    order = pc.sort_indices(encoded.dictionary).to_numpy()
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order))
    return rank[encoded.indices.to_numpy()]


def _alpha(m: Measure) -> float:
    if "alpha" not in m.family.params:
        return 0.5
    alpha = float(m.get("alpha"))
    if not 0.0 <= alpha <= 1.0:
        raise UsageError(f"{m}: alpha must be in [0, 1]")
    return alpha


def _joined(judged: JudgedRankings, m: Measure) -> _Joined:
    sub: SubtopicQrels | None = _ATTACHED.get(judged)
    if sub is None:
        raise UsageError(f"{m} needs subtopic qrels: pass --subtopics FILE (Python: subtopics=...)")
    rel = max(m.rel(judged), 1)
    cache = _JOINED.setdefault(judged, {})
    if rel in cache:
        return cache[rel]
    q = pc.index_in(sub.query, value_set=pa.array(list(judged.queries), pa.string()))
    q = q.fill_null(-1).to_numpy().astype(np.int64)
    known = np.zeros(judged.n_queries, bool)
    known[q[q >= 0]] = True
    if not known.all() and not cache:
        warnings.warn(
            f"{int((~known).sum())} queries of the qrels have no subtopic judgments "
            "and score 0 on the diversity measures",
            stacklevel=5,
        )
    ok = (q >= 0) & (sub.grade >= rel)
    q = q[ok]
    labels = pc.dictionary_encode(sub.subtopic.filter(pa.array(ok)))
    t_rank = _label_order(labels.dictionary)[labels.indices.to_numpy()]
    n_labels = int(t_rank.max(initial=0)) + 1
    t_keys, t = np.unique(q * n_labels + t_rank, return_inverse=True)
    t = t.reshape(-1)
    t_query = t_keys // n_labels
    nrel = np.bincount(t, minlength=len(t_keys)).astype(np.float64)
    n_sub = np.bincount(t_query, minlength=judged.n_queries)
    docs = sub.doc.filter(pa.array(ok))

    # ---- the run side: (item, subtopic) pairs, in item then subtopic order
    d = pc.index_in(docs, value_set=judged.docs).fill_null(-1).to_numpy().astype(np.int64)
    n_docs = max(judged.n_docs, 1)
    has = d >= 0
    rkey = q[has] * n_docs + d[has]
    rorder = np.lexsort((t[has], rkey))
    rkey, rt = rkey[rorder], t[has][rorder]
    ikey = judged.query_of_item * n_docs + judged.doc.astype(np.int64)
    pair_item, row = matching_rows(rkey, ikey)
    pair_t = rt[row]
    # c_t(i): position among the pairs of the same (segment, subtopic), in rank order
    group = judged.segment[pair_item] * len(t_keys) + pair_t
    order = np.argsort(group, kind="stable")
    g_sorted = group[order]
    starts = np.flatnonzero(np.r_[True, g_sorted[1:] != g_sorted[:-1]])
    pos = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    pair_c = np.empty(len(order), np.int64)
    pair_c[order] = pos
    rows = (q, _sorted_doc_codes(docs), t, len(t_keys), judged.n_queries)
    out = cache[rel] = _Joined(n_sub, nrel, pair_item, pair_t, pair_c, rows, {})
    return out


def _ideal(j: _Joined, alpha: float, steps: int) -> np.ndarray:
    """(Q, <= steps) greedy ideal gain per rank (cached)."""
    if (alpha, steps) not in j.ideal:
        j.ideal[alpha, steps] = _greedy_ideal(*j.rows, alpha, steps)
    return j.ideal[alpha, steps]


def _greedy_ideal(q, doc_code, t, n_t, n_queries, alpha, steps) -> np.ndarray:
    """(Q, steps) gain of the greedy ideal ranking at each rank (ndeval's
    ``idealResult``): next, the unranked document of largest current gain
    sum_t (1 - alpha)^c_t, ties to the larger docid; one step per rank for all
    queries at once."""
    n_code = int(doc_code.max(initial=0)) + 1
    dkeys, pair_doc = np.unique(q * n_code + doc_code, return_inverse=True)
    pair_doc = pair_doc.reshape(-1)
    order = np.lexsort((t, pair_doc))  # gains summed in subtopic order, as ndeval
    pair_doc, pair_t = pair_doc[order], t[order]
    doc_q = dkeys // n_code  # documents sorted by query, then docid ascending
    n_doc = len(dkeys)
    per_q = np.bincount(doc_q, minlength=n_queries)
    steps = int(min(steps, per_q.max(initial=0)))
    out = np.zeros((n_queries, steps))
    if steps == 0:
        return out
    nonempty = np.flatnonzero(per_q)
    starts = np.searchsorted(doc_q, nonempty)
    gain = np.ones(n_t)
    taken = np.zeros(n_doc, bool)
    index = np.arange(n_doc)
    for step in range(steps):
        score = np.bincount(pair_doc, weights=gain[pair_t], minlength=n_doc)
        score[taken] = -1.0
        best = np.maximum.reduceat(score, starts)
        cand = score == np.repeat(best, per_q[nonempty])
        pick = np.maximum.reduceat(np.where(cand, index, -1), starts)
        live = best > 0
        out[nonempty[live], step] = best[live]
        chosen = np.zeros(n_doc, bool)
        chosen[pick[live]] = True
        taken |= chosen
        gain[pair_t[chosen[pair_doc]]] *= 1.0 - alpha
    return out


ALPHA = {"alpha": Param(float, 0.5, "redundancy intolerance (ndeval -alpha), in [0, 1]")}
_SRC = "ndeval 4.5 (TREC Web track 2009-2014)"


def _pair_values(judged: JudgedRankings, m: Measure):
    j = _joined(judged, m)
    rank = judged.rank[j.pair_item]
    keep = rank < m.cutoff if m.cutoff is not None else np.ones(len(rank), bool)
    seg = judged.segment[j.pair_item][keep]
    return j, seg, rank[keep], j.pair_t[keep], j.pair_c[keep]


def _per_query(judged: JudgedRankings, seg: np.ndarray, w: np.ndarray) -> np.ndarray:
    sums = np.bincount(seg, weights=w, minlength=judged.n_segments)
    return sums.reshape(judged.n_runs, judged.n_queries)


def _sequential_sum(gain: np.ndarray, discount: np.ndarray) -> np.ndarray:
    """(Q,) sum over ranks of gain x discount, added rank by rank (as ndeval)."""
    out = np.zeros(gain.shape[0])
    for i in range(gain.shape[1]):
        out += gain[:, i] * discount[i]
    return out


def _divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    den = np.broadcast_to(den, num.shape)
    out = np.zeros(num.shape)
    np.divide(num, den, out=out, where=den > 0)
    return out


@register(
    "alpha-nDCG",
    examples=("alpha-nDCG@5",),
    subtopics=True,
    bounds=None, bounds_note=DIVERSITY_NOTE,
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
    j, seg, rank, _, c = _pair_values(judged, m)
    a = _alpha(m)
    dcg = _per_query(judged, seg, np.power(1.0 - a, c) / np.log2(rank + 2.0))
    gain = _ideal(j, a, m.cutoff)
    ideal = _sequential_sum(gain, 1.0 / np.log2(np.arange(gain.shape[1]) + 2.0))
    return _divide(dcg, ideal[None, :])


def _err_terms(judged, m):
    j, seg, rank, _, c = _pair_values(judged, m)
    a = _alpha(m)
    return j, a, _per_query(judged, seg, np.power(1.0 - a, c) / (rank + 1.0))


@register(
    "ERR-IA",
    examples=("ERR-IA@5",),
    subtopics=True,
    bounds=None, bounds_note=DIVERSITY_NOTE,
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
    return _divide(num, (j.n_sub * perfect)[None, :].astype(np.float64))


@register(
    "nERR-IA",
    examples=("nERR-IA@5",),
    subtopics=True,
    bounds=None, bounds_note=DIVERSITY_NOTE,
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
    gain = _ideal(j, a, m.cutoff)
    ideal = _sequential_sum(gain, 1.0 / (np.arange(gain.shape[1]) + 1.0))
    return _divide(num, ideal[None, :])


@register(
    "MAP-IA",
    examples=("MAP-IA",),
    subtopics=True,
    bounds=None, bounds_note=DIVERSITY_NOTE,
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
    j, seg, rank, t, c = _pair_values(judged, m)
    ap = _per_query(judged, seg, (c + 1.0) / (rank + 1.0) / j.nrel[t])
    return _divide(ap, j.n_sub[None, :].astype(np.float64))


@register(
    "S-recall",
    examples=("S-recall@5",),
    subtopics=True,
    bounds=None, bounds_note=DIVERSITY_NOTE,
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
    j, seg, _, _, c = _pair_values(judged, m)
    covered = _per_query(judged, seg, (c == 0).astype(np.float64))
    return _divide(covered, j.n_sub[None, :].astype(np.float64))
