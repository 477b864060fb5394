"""Subtopic judgments joined with judged rankings: what the intent-aware
measures (:mod:`irpref.measures.diversity`) and their residual bounds
(:mod:`irpref.measures.diversity_bounds`) read.

Relevance is binary (grade >= ``rel``, at least 1); S is the number of a
topic's subtopics with a relevant document; c_t(i) counts the documents above
rank i relevant to subtopic t; the greedy ideal ranking follows ndeval's
``idealResult``. The conventions are listed in :mod:`irpref.measures.diversity`.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irpref.errors import UsageError
from irpref.io.subtopics import SubtopicQrels, as_subtopic_qrels, collapse
from irpref.judging.judged import JudgedRankings, matching_rows
from irpref.measures.base import Measure

__all__ = [
    "Labels",
    "alpha_of",
    "with_subtopics",
    "check_subtopics",
    "ideal_gain",
    "joined",
    "labels",
    "needs_subtopics",
    "pair_values",
    "per_query",
    "sequential_sum",
    "use_subtopics",
]


def needs_subtopics(measure: Measure) -> bool:
    """True when the measure's record says it reads subtopic qrels."""
    return measure.family.subtopics


def with_subtopics(judged: JudgedRankings, subtopics) -> JudgedRankings:
    """``judged`` with the subtopic judgments its diversity measures read (read
    from a path or a DataFrame if need be)."""
    return judged.with_subtopics(as_subtopic_qrels(subtopics))


def check_subtopics(measures, subtopics, judged: JudgedRankings | None = None) -> None:
    """Raise :class:`UsageError` if a measure needs subtopic qrels and has none."""
    if subtopics is not None or (judged is not None and judged.subtopics is not None):
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


def alpha_of(m: Measure) -> float:
    if "alpha" not in m.family.params:
        return 0.5
    alpha = float(m.get("alpha"))
    if not 0.0 <= alpha <= 1.0:
        raise UsageError(f"{m}: alpha must be in [0, 1]")
    return alpha


def joined(judged: JudgedRankings, m: Measure) -> _Joined:
    """The subtopic judgments at ``m``'s level joined with the rankings (once per
    judged rankings and level)."""
    sub: SubtopicQrels | None = judged.subtopics
    if sub is None:
        raise UsageError(f"{m} needs subtopic qrels: pass --subtopics FILE (Python: subtopics=...)")
    rel = max(m.rel(judged), 1)
    return judged.derived(("subtopic_join", rel), lambda: _join(judged, sub, rel))


def _join(judged: JudgedRankings, sub: SubtopicQrels, rel: int) -> _Joined:
    q = pc.index_in(sub.query, value_set=pa.array(list(judged.queries), pa.string()))
    q = q.fill_null(-1).to_numpy().astype(np.int64)
    known = np.zeros(judged.n_queries, bool)
    known[q[q >= 0]] = True
    if not known.all():
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
    return _Joined(n_sub, nrel, pair_item, pair_t, pair_c, rows, {})


def ideal_gain(j: _Joined, alpha: float, steps: int) -> np.ndarray:
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


def pair_values(judged: JudgedRankings, m: Measure):
    j = joined(judged, m)
    rank = judged.rank[j.pair_item]
    keep = rank < m.cutoff if m.cutoff is not None else np.ones(len(rank), bool)
    seg = judged.segment[j.pair_item][keep]
    return j, seg, rank[keep], j.pair_t[keep], j.pair_c[keep]


def per_query(judged: JudgedRankings, seg: np.ndarray, w: np.ndarray) -> np.ndarray:
    sums = np.bincount(seg, weights=w, minlength=judged.n_segments)
    return sums.reshape(judged.n_runs, judged.n_queries)


def sequential_sum(gain: np.ndarray, discount: np.ndarray) -> np.ndarray:
    """(Q,) sum over ranks of gain x discount, added rank by rank (as ndeval)."""
    out = np.zeros(gain.shape[0])
    for i in range(gain.shape[1]):
        out += gain[:, i] * discount[i]
    return out


@dataclass(frozen=True)
class Labels:
    """What an assignment of subtopic grades may change (residual bounds)."""

    n_labels: np.ndarray  # (Q,) subtopic labels of the topic, judged relevant or not (|Z|)
    judged_item: np.ndarray  # (items,) the document has a row in its topic's subtopic qrels
    top: int  # highest grade of the subtopic qrels (0 when empty)


def labels(judged: JudgedRankings) -> Labels:
    """:class:`Labels` of the subtopic judgments of ``judged`` (once per rankings)."""
    return judged.derived(("subtopic_labels",), lambda: _labels(judged))


def _labels(judged: JudgedRankings) -> Labels:
    sub: SubtopicQrels | None = judged.subtopics
    if sub is None:
        raise UsageError("residual bounds of a diversity measure need subtopic qrels")
    q = pc.index_in(sub.query, value_set=pa.array(list(judged.queries), pa.string()))
    q = q.fill_null(-1).to_numpy().astype(np.int64)
    ok = q >= 0
    enc = pc.dictionary_encode(sub.subtopic).indices.to_numpy().astype(np.int64)
    n_enc = int(enc.max(initial=0)) + 1
    pairs = np.unique(q[ok] * n_enc + enc[ok])
    n_labels = np.bincount(pairs // n_enc, minlength=judged.n_queries)
    d = pc.index_in(sub.doc, value_set=judged.docs).fill_null(-1).to_numpy().astype(np.int64)
    n_docs = max(judged.n_docs, 1)
    rows = np.unique(q[ok & (d >= 0)] * n_docs + d[ok & (d >= 0)])
    ikey = judged.query_of_item * n_docs + judged.doc.astype(np.int64)
    at = np.minimum(np.searchsorted(rows, ikey), max(len(rows) - 1, 0))
    judged_item = (rows[at] == ikey) if len(rows) else np.zeros(judged.n_items, bool)
    top = int(np.max(sub.grade, initial=0))
    return Labels(n_labels, judged_item, top)
