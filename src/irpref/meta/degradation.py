"""Label degradation (lexiprecision Fig. 8a-9, lexirecall Fig. 12-13, RPP Fig. 7).

:func:`degrade` removes a fraction f of each query's relevant judgments
(``round(f m)``, at most ``m - 1``: one relevant item always stays, as in
lexirecall section 6.3), uniformly or with probability proportional to the
number of runs retrieving the item ("pool frequency", weighted sampling
without replacement, Efraimidis & Spirakis keys); removed items get grade 0
(judged non-relevant). The runs are judged once: each sample only rewrites
the grades of the judged structure. Reports ties, agreement with the
complete-label comparisons (over the comparisons the complete labels do not
tie, the share the degraded labels order the same way; a degraded tie
disagrees, as in Table 1 of lexiprecision) and tau with the complete-label
ordering; mean and sd over samples. ``power=True`` adds discriminative power
on each degraded sample (:func:`irpref.meta.pairwise.power_percent`).

With subtopic qrels, degradation removes *documents*, as RPP section 6.2
removes "labeled items": a query's relevant items are its documents with a
relevant grade in the (collapsed) qrels; a removed document loses its qrels
grade and every one of its subtopic judgments (grade 0); every other
(document, subtopic) judgment stays exactly (:func:`degraded_subtopics`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

import irpref.runtime.progress as progress
from irpref.errors import UsageError
from irpref.io.hashing import PairIndex
from irpref.io.subtopics import SubtopicQrels
from irpref.judging.judged import JudgedRankings
from irpref.meta.pairwise import (
    TOL,
    check_measures,
    check_power,
    check_samples,
    judged_with_subtopics,
    kendall_tau,
    pairwise,
    power_percent,
    tolerant_signs,
)

__all__ = ["degrade", "degraded_grades", "degraded_subtopics"]


@dataclass
class _RelevantIndex:
    """The relevant qrels rows, their query, pool frequency, and the items
    (flat index) that point at each of them."""

    rows: np.ndarray  # qrels row of each relevant judgment
    query: np.ndarray  # query of each
    frequency: np.ndarray  # number of runs retrieving it
    item: np.ndarray  # relevant items (flat index)
    item_rel: np.ndarray  # index into ``rows`` of each such item


def _relevant_index(judged: JudgedRankings) -> _RelevantIndex:
    rel = judged.rel
    qq = judged.qrels_query
    rows = np.flatnonzero(judged.qrels_grade >= rel)
    items = judged.items_with_grade(rel).index
    index = PairIndex(qq[rows], judged.qrels_doc_key[rows])
    item_rel = index.find(judged.query_of_item[items], judged.doc_key[items])
    if np.any(item_rel < 0):  # cannot happen: relevant items come from the qrels
        raise RuntimeError("a relevant item is missing from the qrels")
    freq = np.bincount(item_rel, minlength=rows.size)  # a run holds a document once
    return _RelevantIndex(rows, qq[rows], freq, items, item_rel)


def degraded_grades(
    judged: JudgedRankings,
    fraction: float,
    rng: np.random.Generator,
    *,
    method: str = "uniform",
    index: _RelevantIndex | None = None,
) -> JudgedRankings:
    """``judged`` with ``round(fraction * m_q)`` (at most ``m_q - 1``) relevant
    judgments of every query q set to grade 0, uniformly or by pool frequency.
    Only grades change; the rankings are shared with ``judged``."""
    if not 0 < fraction < 1:
        raise UsageError(f"fraction={fraction}: must be in (0, 1)")
    if method not in ("uniform", "frequency"):
        raise UsageError(f"method={method!r}: must be uniform or frequency")
    ix = index or _relevant_index(judged)
    n = ix.rows.size
    u = rng.random(n)
    if method == "uniform":
        key = u
    else:  # weighted sampling without replacement: smallest -log(u) / w first
        with np.errstate(divide="ignore"):
            key = -np.log1p(-u) / ix.frequency
    order = np.lexsort((key, ix.query))  # by query, then key
    m_q = np.bincount(ix.query, minlength=judged.n_queries)
    start = np.concatenate([[0], np.cumsum(m_q)[:-1]])
    nth = np.empty(n, dtype=np.int64)
    nth[order] = np.arange(n) - start[ix.query[order]]
    k_q = np.minimum(np.floor(fraction * m_q + 0.5).astype(np.int64), np.maximum(m_q - 1, 0))
    removed = nth < k_q[ix.query]
    qgrade = judged.qrels_grade.copy()
    qgrade[ix.rows[removed]] = 0
    grade = judged.grade.copy()
    grade[ix.item[removed[ix.item_rel]]] = 0
    return dataclasses.replace(judged, grade=grade, qrels_grade=qgrade)


def _subtopic_keys(judged: JudgedRankings, sub: SubtopicQrels) -> np.ndarray:
    """(len(sub),) key ``query * n_docs + document code`` of every subtopic
    judgment on ``judged``'s numbering (-1 where the query or document is unknown)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    q = pc.index_in(sub.query, value_set=pa.array(list(judged.queries), pa.string()))
    d = pc.index_in(sub.doc, value_set=judged.docs)
    q = q.fill_null(-1).to_numpy().astype(np.int64)
    d = d.fill_null(-1).to_numpy().astype(np.int64)
    return np.where((q >= 0) & (d >= 0), q * max(judged.n_docs, 1) + d, -1)


def degraded_subtopics(
    judged: JudgedRankings, degraded: JudgedRankings, sub: SubtopicQrels,
    keys: np.ndarray | None = None,
) -> SubtopicQrels:
    """``sub`` with grade 0 for every (document, subtopic) judgment of the
    documents :func:`degraded_grades` removed (``degraded`` from ``judged``):
    degradation removes whole documents, as RPP section 6.2 removes labelled
    items; every other judgment keeps its grade exactly. ``keys``: the
    :func:`_subtopic_keys` of ``sub`` (computed if omitted)."""
    removed = np.flatnonzero(judged.qrels_grade != degraded.qrels_grade)
    if keys is None:
        keys = _subtopic_keys(judged, sub)
    gone = (judged.qrels_query[removed].astype(np.int64) * max(judged.n_docs, 1)
            + judged.qrels_doc[removed].astype(np.int64))
    drop = np.isin(keys, gone) & (keys >= 0)
    grade = np.where(drop, 0, sub.grade).astype(sub.grade.dtype)
    return dataclasses.replace(sub, grade=grade)


def _parse_fractions(fractions) -> list[float]:
    out = [float(f) for f in fractions]
    if not out:
        raise UsageError("no fractions given")
    for f in out:
        if not 0 < f < 1:
            raise UsageError(f"fraction={f}: must be in (0, 1)")
    return out


def degrade(
    qrels=None, runs=None, measures: Sequence[str] = ("RR", "sgnLP"), *,
    fractions: Sequence[float] = (0.1, 0.3, 0.5, 0.7, 0.9), samples: int = 10,
    method: str = "uniform", seed: int | None = 0, rel: int = 1, aggregate: str = "winrate",
    reference: str | None = None, judged: JudgedRankings | None = None,
    power: bool = False, alpha: float = 0.05, test: str = "paired", subtopics=None,
) -> pd.DataFrame:
    """``measure, fraction, percent_tied, agreement, kendall_tau`` (means over
    ``samples``) and ``*_sd`` (sample standard deviations, ddof=1; 0 for one
    sample). Same seed, same table. ``power=True`` adds
    ``discriminative_power`` and its ``_sd`` (percent of run pairs
    significant at ``alpha`` on each degraded sample; see module docstring).

    Agreement and tau are with each measure's own complete-label comparisons
    and ordering, or with those of ``reference`` on complete labels (e.g.
    ``reference="RR"``: lexiprecision Fig. 8a, agreement with δRR_1 on full data).
    With ``subtopics``, a removed document loses every subtopic judgment too
    (:func:`degraded_subtopics`).
    """
    fractions = _parse_fractions(fractions)
    samples = check_samples(samples)
    check_power(alpha, test)
    if method not in ("uniform", "frequency"):
        raise UsageError(f"method={method!r}: must be uniform or frequency")
    if reference is not None:
        check_measures([reference], subtopics=subtopics is not None or judged is not None)
    judged, sub = judged_with_subtopics(qrels, runs, judged, rel, measures, subtopics)
    names = list(check_measures(measures))
    full = pairwise(judged, names + ([reference] if reference and reference not in names
                                     else []), aggregate=aggregate, subtopics=sub)
    full_sign = {n: tolerant_signs(full.values[reference or n][full.valid]) for n in names}
    full_scores = {n: full.scores(reference or n) for n in names}
    ix = _relevant_index(judged)
    sub_keys = _subtopic_keys(judged, sub) if sub is not None else None
    rng = np.random.default_rng(seed)
    res = np.empty((len(fractions), samples, len(names), 4))
    res[..., 3] = np.nan
    steps = [(fi, f, s) for fi, f in enumerate(fractions) for s in range(samples)]
    for fi, f, s in progress.track(steps, len(steps), "degrade", "sample"):
        low = degraded_grades(judged, f, rng, method=method, index=ix)
        low_sub = degraded_subtopics(judged, low, sub, sub_keys) if sub is not None else None
        pw = pairwise(low, names, aggregate=aggregate, subtopics=low_sub)
        if power:
            res[fi, s, :, 3] = power_percent(pw, alpha=alpha, test=test)
        for mi, n in enumerate(names):
            v = pw.values[n][full.valid]
            target = full_sign[n]
            res[fi, s, mi, :3] = (
                100.0 * np.mean(np.abs(v) <= TOL),
                np.mean(tolerant_signs(v)[target != 0] == target[target != 0])
                if np.any(target != 0) else np.nan,
                kendall_tau(pw.scores(n), full_scores[n]),
            )
    mean = res.mean(axis=1)
    sd = res.std(axis=1, ddof=1) if samples > 1 else np.zeros_like(mean)
    rows = []
    for mi, n in enumerate(names):
        for fi, f in enumerate(fractions):
            rows.append({
                "measure": n, "fraction": f,
                "percent_tied": mean[fi, mi, 0], "agreement": mean[fi, mi, 1],
                "kendall_tau": mean[fi, mi, 2],
                "percent_tied_sd": sd[fi, mi, 0], "agreement_sd": sd[fi, mi, 1],
                "kendall_tau_sd": sd[fi, mi, 2],
            })
            if power:
                rows[-1]["discriminative_power"] = mean[fi, mi, 3]
                rows[-1]["discriminative_power_sd"] = sd[fi, mi, 3]
    return pd.DataFrame(rows)
