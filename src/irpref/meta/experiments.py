"""Meta-evaluation experiments on real runs: ties, agreement, label
degradation, query subsampling, suffix agreement.

Every experiment compares runs per (run pair, query). A *metric* (AP, RR,
nDCG@10, ...) becomes the per-query difference ``mu(a, q) - mu(b, q)`` of its
(R, Q) values (negated for lower-is-better metrics such as search lengths, so
that positive always means ``a`` is better); a *preference* (sgnLP, rrLP,
sgnLR, RPP, ...) is used as :func:`irpref.compare` gives it. The comparisons
are the pairs ``a < b`` (input order) x the queries with at least one
relevant item (as compare skips the others) where both runs retrieved
something. Differences within 1e-12 count as ties (float sums of equal
rationals in another order).

- :func:`tie_rates`: percent of tied comparisons per measure (lexiprecision
  Table 2; lexirecall Fig. 10).
- :func:`agreement`: per pair of measures, sign agreement (share of
  comparisons whose signs, -1/0/+1, are equal), Pearson r of the values
  (RPP Fig. 5 "sa" and "r"; lexirecall Fig. 8) and Kendall's tau-b between
  the system orderings (metric: mean over queries; preference: win rate, MC4
  or Borda of :mod:`irpref.aggregate`; RPP Table 2, lexirecall Fig. 9).
- :func:`degrade`: remove a fraction f of each query's relevant judgments
  (``round(f m)``, at most ``m - 1``: one relevant item always stays, as in
  lexirecall section 6.3), uniformly or with probability proportional to the
  number of runs retrieving the item ("pool frequency", weighted sampling
  without replacement, Efraimidis & Spirakis keys); removed items get grade
  0 (judged non-relevant). The runs are judged once: each sample only
  rewrites the grades of the judged structure. Reports ties, agreement with
  the complete-label comparisons (over the comparisons the complete labels
  do not tie, the share the degraded labels order the same way; a degraded
  tie disagrees, as in Table 1 of lexiprecision) and tau with the
  complete-label ordering; mean and sd over samples (lexiprecision Fig. 8a-9,
  lexirecall Fig. 12-13, RPP Fig. 7).
- :func:`subsample`: tau of the ordering on k sampled queries (without
  replacement) with the ordering on all queries (RPP Fig. 6, lexiprecision
  Fig. 8b).
- ``power=True`` in :func:`degrade` and :func:`subsample`: discriminative
  power (Sakai 2006; lexiprecision Table 3, RPP Tables 3-4) of every measure
  on each degraded / subsampled sample: the percent of run pairs significant
  at ``alpha`` under :func:`irpref.significance` (``test``, default
  ``paired``: t for metrics and real preferences, sign test for sign
  preferences; Holm over all pairs), mean and sd over samples. As everywhere
  here, a pair is compared on the queries both runs have (``irpref
  significance`` on compare tables counts a missing query as an empty run).
- :func:`recall_level_ties` (Fig. 5), :func:`recall_level_needed` (Fig. 6,
  ECDF of i*), :func:`tie_given_p1` (Fig. 3): lexiprecision's recall-level
  analyses on real runs; :func:`recall_level_correlation` and
  :func:`recall_level_regression`: locality of δRR_i (Fig. 7a, 7b).
- Intent-aware baselines (RPP section 5.5, Tables 2b-4b): with
  ``subtopics=`` (ndeval-format subtopic qrels; CLI ``--subtopics FILE``)
  :func:`tie_rates`, :func:`agreement`, :func:`degrade` and :func:`subsample`
  take the diversity metrics ``MAP-IA``, ``ERR-IA@20``, ``S-recall@20``
  (ndeval's strec; S-recall needs its cut-off), ``alpha-nDCG@k`` and the
  preference ``ST-RPP``, with the values ``irpref evaluate/compare
  --subtopics`` give. ``qrels=None`` (or the same file) uses the subtopic
  qrels collapsed (max grade over subtopics) for every other measure.
  Degradation removes *documents*, as RPP section 6.2 removes "labeled
  items": a query's relevant items are its documents with a relevant grade in
  the (collapsed) qrels; a removed document loses its qrels grade and every
  one of its subtopic judgments (grade 0); every other (document, subtopic)
  judgment stays exactly (:func:`degraded_subtopics`).
- :func:`suffix_agreement`: lexiprecision Table 1. Over comparisons with
  ``δRR_1 != 0``, the percent whose sign is predicted by the suffix
  ``p_{2:m}`` alone: by RR of the suffix (``δRR_2``, method ``RR``) and by
  sgnLP of the suffix (method ``sgnLP``); a tied predictor disagrees.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from irpref import aggregate, progress
from irpref.errors import UsageError
from irpref.evaluate import judge_inputs
from irpref.hashing import PairIndex
from irpref.io.subtopics import SubtopicQrels
from irpref.judged import JudgedRankings

__all__ = [
    "AGGREGATES",
    "Pairwise",
    "agreement",
    "check_measures",
    "conditional_agreement",
    "degrade",
    "degraded_grades",
    "degraded_subtopics",
    "pairwise",
    "power_percent",
    "stats_pairwise",
    "recall_level_correlation",
    "recall_level_needed",
    "recall_level_regression",
    "recall_level_ties",
    "subsample",
    "suffix_agreement",
    "tie_given_p1",
    "tie_rates",
]

AGGREGATES = ("winrate", "mc4", "borda")
TOL = 1e-12


@dataclass
class Pairwise:
    """Per-comparison values of several measures on one judged collection.

    ``values[name]`` is (P, Q) for the run pairs ``a[p] < b[p]`` and the
    queries ``queries`` (those with a relevant item); ``valid`` (P, Q) marks
    comparisons where both runs have the query. ``scores[name]`` (R,) orders
    the systems (higher better) under ``aggregate``; ``per_query[name]``
    (Q, R) is what the ordering aggregates (metric values or win rates).
    """

    names: list[str]
    runs: list[str]
    queries: np.ndarray
    a: np.ndarray
    b: np.ndarray
    valid: np.ndarray
    values: dict[str, np.ndarray]
    per_query: dict[str, np.ndarray]
    kinds: dict[str, str]
    present: np.ndarray  # (Q, R)
    aggregate: str = "winrate"

    def scores(self, name: str, rows: np.ndarray | None = None) -> np.ndarray:
        """(R,) system scores of ``name`` over the query rows ``rows`` (default all)."""
        v = self.per_query[name] if rows is None else self.per_query[name][rows]
        if self.kinds[name] == "metric":
            pres = self.present if rows is None else self.present[rows]
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(pres, v, 0.0).sum(axis=0) / pres.sum(axis=0)
        if self.aggregate == "mc4":
            return aggregate.mc4(v)
        if self.aggregate == "borda":
            return aggregate.borda(v)
        return v.mean(axis=0)


def _kind(name: str) -> str:
    """``preference`` or ``metric``; an unknown name is a :class:`UsageError`."""
    from irpref.measures import parse_measure
    from irpref.preferences import parse_preference

    try:
        parse_preference(name)
        return "preference"
    except ValueError:
        pass
    try:
        parse_measure(name)
    except ValueError as exc:
        raise UsageError(f"{exc} (nor a preference: sgnLP, rrLP, sgnLR, RPP, ...)") from None
    return "metric"


def check_measures(measures: Sequence[str], subtopics: bool | None = None) -> dict[str, str]:
    """Parse every name first (before any file is read): name -> kind. With
    ``subtopics=False``, a measure that reads subtopic qrels (MAP-IA, ERR-IA@k,
    S-recall@k, alpha-nDCG@k, ST-RPP) is a :class:`UsageError`."""
    names = [str(m) for m in measures]
    if not names:
        raise UsageError("no measures given")
    if len(set(names)) != len(names):
        raise UsageError(f"a measure is given twice: {' '.join(names)}")
    kinds = {n: _kind(n) for n in names}
    if subtopics is False:
        for n, kind in kinds.items():
            if _needs_subtopics(n, kind):
                raise UsageError(f"{n} needs subtopic qrels: pass --subtopics FILE "
                                 "(Python: subtopics=...)")
    return kinds


def _needs_subtopics(name: str, kind: str) -> bool:
    from irpref.measures import parse_measure
    from irpref.measures.diversity import needs_subtopics
    from irpref.preferences import parse_preference

    if kind == "preference":
        return bool(parse_preference(name).family.needs_subtopics)
    return needs_subtopics(parse_measure(name))


def _check_aggregate(agg: str) -> str:
    agg = {"win_rate": "winrate"}.get(agg, agg)
    if agg not in AGGREGATES:
        raise UsageError(f"aggregate={agg!r}: must be one of {', '.join(AGGREGATES)}")
    return agg


def pairwise(
    judged: JudgedRankings, measures: Sequence[str], *, aggregate: str = "winrate",
    subtopics: SubtopicQrels | None = None,
) -> Pairwise:
    """Every measure's per-(run pair, query) values on ``judged`` (see module
    docstring); ``subtopics`` feeds the diversity metrics and ST-RPP."""
    from irpref.measures import parse_measure
    from irpref.measures.diversity import attach_subtopics
    from irpref.preferences import preference_matrices

    aggregate = _check_aggregate(aggregate)
    kinds = check_measures(measures)
    if subtopics is not None:
        attach_subtopics(judged, subtopics)
    names = list(kinds)
    if judged.n_runs < 2:
        raise UsageError("meta-evaluation needs at least two runs")
    has_rel = judged.num_rel() > 0
    qidx = np.flatnonzero(has_rel)
    queries = judged.queries[qidx]
    r = judged.n_runs
    a, b = np.triu_indices(r, 1)
    present = judged.present[:, qidx].T  # (Q, R)
    valid = (present[:, a] & present[:, b]).T  # (P, Q)
    values, per_query = {}, {}
    prefs = [n for n in names if kinds[n] == "preference"]
    if prefs:
        comp = preference_matrices(judged, prefs, subtopics=subtopics)
        for n in prefs:
            pos = pd.Index(comp.queries[n]).get_indexer(queries)
            mats = np.zeros((len(queries), r, r))
            found = pos >= 0
            mats[found] = comp.values[n][pos[found]]
            values[n] = np.ascontiguousarray(mats[:, a, b].T)
            per_query[n] = aggregate_win_rates(mats)
    for n in names:
        if kinds[n] != "metric":
            continue
        m = parse_measure(n)
        v = np.asarray(m.compute(judged), dtype=np.float64)[:, qidx]  # (R, Q)
        if m.orientation == "lower":
            v = -v
        per_query[n] = v.T
        d = v[a] - v[b]
        values[n] = np.where(np.isnan(d), 0.0, d)
    return Pairwise(names, list(judged.run_names), queries, a, b, valid, values, per_query,
                    kinds, present, aggregate)


def aggregate_win_rates(mats: np.ndarray) -> np.ndarray:
    """(Q, R) per-query win rates of (Q, R, R) preference matrices (RPP Eq. 7)."""
    return aggregate.win_rates(mats)


def stats_pairwise(pw: Pairwise, name: str, rows: np.ndarray | None = None):
    """``name`` on the query rows ``rows`` (default all) as an
    :class:`irpref.stats.Pairwise` for :func:`irpref.significance`: a metric's
    (R, Q) scores (NaN where a run lacks the query), a preference's (Q, R, R)
    antisymmetric matrix (NaN where either run lacks the query)."""
    from irpref.stats import Pairwise as StatsPairwise
    from irpref.stats import preference_kind

    queries = pw.queries if rows is None else pw.queries[rows]
    runs = np.asarray(pw.runs, dtype=object)
    if pw.kinds[name] == "metric":
        v, pres = pw.per_query[name], pw.present
        if rows is not None:
            v, pres = v[rows], pres[rows]
        return StatsPairwise.from_scores(np.where(pres, v, np.nan).T, runs, queries, name)
    d = np.where(pw.valid, pw.values[name], np.nan)
    if rows is not None:
        d = d[:, rows]
    r = len(runs)
    mats = np.full((d.shape[1], r, r), np.nan)
    mats[:, np.arange(r), np.arange(r)] = 0.0
    mats[:, pw.a, pw.b] = d.T
    mats[:, pw.b, pw.a] = -d.T
    return StatsPairwise.from_matrix(mats, preference_kind(name, d), runs, queries, name)


POWER_TESTS = ("paired", "t", "sign", "wilcoxon")


def _check_power(alpha: float, test: str) -> None:
    if not 0 < alpha < 1:
        raise UsageError(f"alpha={alpha}: must be in (0, 1)")
    if test not in POWER_TESTS:
        raise UsageError(f"test={test!r}: must be one of {', '.join(POWER_TESTS)}")


def power_percent(
    pw: Pairwise, rows: np.ndarray | None = None, *, alpha: float = 0.05, test: str = "paired"
) -> np.ndarray:
    """(len(names),) discriminative power of every measure of ``pw`` on the
    query rows ``rows``: percent of run pairs with Holm-adjusted p < alpha."""
    from irpref.meta.discriminative import discriminative_power

    tables = [stats_pairwise(pw, n, rows) for n in pw.names]
    dp = discriminative_power(tables, alpha=alpha, test=test, correction="holm")
    return dp.set_index("measure")["percent"].reindex(pw.names).to_numpy(np.float64)


def _sign(x: np.ndarray) -> np.ndarray:
    return np.where(x > TOL, 1, np.where(x < -TOL, -1, 0))


def _tau(x: np.ndarray, y: np.ndarray) -> float:
    return float(stats.kendalltau(x, y).statistic)


def _judge(qrels, runs, judged, rel, measures=None):
    if measures is not None:
        check_measures(measures)
    if judged is not None:
        return judged
    return judge_inputs(qrels, runs, rel=rel)


def _judge_sub(qrels, runs, judged, rel, measures, subtopics):
    """``(judged, subtopic qrels or None)``: every name checked first; the
    subtopic qrels read once (and collapsed as the qrels if ``qrels`` is None
    or the same file)."""
    from irpref.measures.diversity import use_subtopics

    # a judged collection may carry subtopic qrels already (evaluate attached them)
    check_measures(measures, subtopics=subtopics is not None or judged is not None)
    qrels, sub = use_subtopics(qrels, subtopics)
    return _judge(qrels, runs, judged, rel), sub


def tie_rates(
    qrels=None, runs=None, measures: Sequence[str] = ("RR", "sgnLP"), *, rel: int = 1,
    judged: JudgedRankings | None = None, subtopics=None,
) -> pd.DataFrame:
    """``measure, percent_tied``: percent of (run pair, query) comparisons tied."""
    judged, sub = _judge_sub(qrels, runs, judged, rel, measures, subtopics)
    pw = pairwise(judged, measures, subtopics=sub)
    return pd.DataFrame({
        "measure": pw.names,
        "percent_tied": [_percent_tied(pw, n) for n in pw.names],
    })


def _percent_tied(pw: Pairwise, name: str) -> float:
    v = pw.values[name][pw.valid]
    return 100.0 * float(np.mean(np.abs(v) <= TOL)) if v.size else float("nan")


def agreement(
    qrels=None, runs=None, measures: Sequence[str] = ("RR", "sgnLP"), *, rel: int = 1,
    aggregate: str = "winrate", judged: JudgedRankings | None = None, subtopics=None,
) -> pd.DataFrame:
    """``measure_a, measure_b, sign_agreement, pearson, kendall_tau`` for every
    pair of measures (input order, a before b)."""
    judged, sub = _judge_sub(qrels, runs, judged, rel, measures, subtopics)
    pw = pairwise(judged, measures, aggregate=aggregate, subtopics=sub)
    rows = []
    scores = {n: pw.scores(n) for n in pw.names}
    for i, x in enumerate(pw.names):
        for y in pw.names[i + 1:]:
            vx, vy = pw.values[x][pw.valid], pw.values[y][pw.valid]
            sa = float(np.mean(_sign(vx) == _sign(vy))) if vx.size else float("nan")
            if vx.size > 1 and np.std(vx) > 0 and np.std(vy) > 0:
                r = float(np.corrcoef(vx, vy)[0, 1])
            else:
                r = float("nan")
            rows.append({"measure_a": x, "measure_b": y, "sign_agreement": sa,
                         "pearson": r, "kendall_tau": _tau(scores[x], scores[y])})
    return pd.DataFrame(rows, columns=["measure_a", "measure_b", "sign_agreement",
                                       "pearson", "kendall_tau"])


def conditional_agreement(
    qrels=None, runs=None, measures: Sequence[str] = ("sgnLR", "AP"), *, rel: int = 1,
    judged: JudgedRankings | None = None, subtopics=None,
) -> pd.DataFrame:
    """``measure_a, measure_b, comparisons, agreement``: lexirecall (Diaz &
    Mitra 2023) section 6.2.1, Fig. 8, for every ordered pair of measures:
    over the comparisons that ``measure_b`` does not tie (``comparisons``),
    the share where ``measure_a`` prefers the same run,
    sum I(a >_b b and a >_a b) / sum I(a >_b b) (a tie of ``measure_a``
    disagrees). Unlike ``sign_agreement`` of :func:`agreement`, ties of
    ``measure_b`` are left out."""
    judged, sub = _judge_sub(qrels, runs, judged, rel, measures, subtopics)
    pw = pairwise(judged, measures, subtopics=sub)
    signs = {n: _sign(pw.values[n][pw.valid]) for n in pw.names}
    rows = []
    for x in pw.names:
        for y in pw.names:
            if x == y:
                continue
            k = signs[y] != 0
            n = int(k.sum())
            rows.append({"measure_a": x, "measure_b": y, "comparisons": n,
                         "agreement": float(np.mean(signs[x][k] == signs[y][k]))
                         if n else float("nan")})
    return pd.DataFrame(rows, columns=["measure_a", "measure_b", "comparisons", "agreement"])


# ------------------------------------------------------------------ degradation


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


def _check_samples(samples: int) -> int:
    if int(samples) != samples or samples < 1:
        raise UsageError(f"samples={samples}: must be an integer >= 1")
    return int(samples)


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
    samples = _check_samples(samples)
    _check_power(alpha, test)
    if method not in ("uniform", "frequency"):
        raise UsageError(f"method={method!r}: must be uniform or frequency")
    if reference is not None:
        check_measures([reference], subtopics=subtopics is not None or judged is not None)
    judged, sub = _judge_sub(qrels, runs, judged, rel, measures, subtopics)
    names = list(check_measures(measures))
    full = pairwise(judged, names + ([reference] if reference and reference not in names
                                     else []), aggregate=aggregate, subtopics=sub)
    full_sign = {n: _sign(full.values[reference or n][full.valid]) for n in names}
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
                np.mean(_sign(v)[target != 0] == target[target != 0])
                if np.any(target != 0) else np.nan,
                _tau(pw.scores(n), full_scores[n]),
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


def subsample(
    qrels=None, runs=None, measures: Sequence[str] = ("RR", "sgnLP"), *,
    sizes: Sequence[int] = (5, 10, 20, 30), samples: int = 50, seed: int | None = 0,
    rel: int = 1, aggregate: str = "winrate", judged: JudgedRankings | None = None,
    power: bool = False, alpha: float = 0.05, test: str = "paired", subtopics=None,
) -> pd.DataFrame:
    """``measure, size, kendall_tau, kendall_tau_sd``: tau between the ordering
    on ``size`` queries drawn without replacement and the ordering on all.
    ``power=True`` adds ``discriminative_power`` and its ``_sd`` on the
    sampled queries (see module docstring)."""
    _check_power(alpha, test)
    sizes = [int(k) for k in sizes]
    if not sizes or any(k < 1 for k in sizes):
        raise UsageError(f"sizes={sizes}: every size must be >= 1")
    samples = _check_samples(samples)
    judged, sub = _judge_sub(qrels, runs, judged, rel, measures, subtopics)
    pw = pairwise(judged, measures, aggregate=aggregate, subtopics=sub)
    nq = len(pw.queries)
    if max(sizes) > nq:
        raise UsageError(f"size {max(sizes)} exceeds the {nq} queries with a relevant item")
    full = {n: pw.scores(n) for n in pw.names}
    rng = np.random.default_rng(seed)
    rows = []
    for k in progress.track(sizes, len(sizes), "subsample", "size"):
        picks = np.argsort(rng.random((samples, nq)), axis=1)[:, :k]
        taus = np.array([[_tau(pw.scores(n, p), full[n]) for p in picks] for n in pw.names])
        if power:
            pows = np.array([power_percent(pw, np.sort(p), alpha=alpha, test=test)
                             for p in picks]).T
        for mi, (n, t) in enumerate(zip(pw.names, taus)):
            rows.append({"measure": n, "size": k, "kendall_tau": float(np.nanmean(t)),
                         "kendall_tau_sd": float(np.nanstd(t, ddof=1)) if samples > 1 else 0.0})
            if power:
                pm = pows[mi]
                rows[-1]["discriminative_power"] = float(np.mean(pm))
                rows[-1]["discriminative_power_sd"] = (
                    float(np.std(pm, ddof=1)) if samples > 1 else 0.0)
    return pd.DataFrame(rows)


# --------------------------------------------------------------- suffix agreement


def _relevant_positions(judged: JudgedRankings, qidx: np.ndarray) -> np.ndarray:
    """(R, Q, M) sorted 1-based positions of the relevant items, inf-padded."""
    items = judged.items_with_grade(judged.rel)
    seg = items.segment
    r_of, q_of = seg // judged.n_queries, seg % judged.n_queries
    qpos = np.full(judged.n_queries, -1)
    qpos[qidx] = np.arange(qidx.size)
    keep = qpos[q_of] >= 0
    width = int(judged.num_rel()[qidx].max()) if qidx.size else 0
    out = np.full((judged.n_runs, qidx.size, max(width, 1)), np.inf)
    out[r_of[keep], qpos[q_of[keep]], items.nth[keep]] = items.rank[keep] + 1
    return out


def _lex_sign(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """sgnLP of position vectors (..., M): the first differing level decides."""
    diff = x != y
    first = np.argmax(diff, axis=-1)
    any_diff = diff.any(axis=-1)
    xi = np.take_along_axis(x, first[..., None], -1)[..., 0]
    yi = np.take_along_axis(y, first[..., None], -1)[..., 0]
    return np.where(any_diff, np.where(xi < yi, 1, -1), 0)


def suffix_agreement(
    qrels=None, runs=None, *, rel: int = 1, judged: JudgedRankings | None = None
) -> pd.DataFrame:
    """``method, percent_agree`` (lexiprecision Table 1): how often RR and
    sgnLP of the suffix ``p_{2:m}`` give the sign of the masked ``δRR_1``."""
    judged = _judge(qrels, runs, judged, rel)
    qidx = np.flatnonzero(judged.num_rel() > 0)
    pos = _relevant_positions(judged, qidx)  # (R, Q, M)
    r = judged.n_runs
    a, b = np.triu_indices(r, 1)
    valid = judged.present[a][:, qidx] & judged.present[b][:, qidx]  # (P, Q)
    with np.errstate(divide="ignore"):
        rr = 1.0 / pos  # 0 for unretrieved
    target = np.sign(rr[a, :, 0] - rr[b, :, 0])
    pad = np.full(pos.shape[:2] + (1,), np.inf)
    suffix = np.concatenate([pos[:, :, 1:], pad], axis=2)
    rr2 = 1.0 / suffix[:, :, 0]
    pred_rr = np.sign(rr2[a] - rr2[b])
    pred_lp = _lex_sign(suffix[a], suffix[b])
    use = valid & (target != 0)
    n = int(use.sum())
    return pd.DataFrame({
        "method": ["RR", "sgnLP"],
        "percent_agree": [100.0 * float((pred_rr == target)[use].sum()) / n if n else np.nan,
                          100.0 * float((pred_lp == target)[use].sum()) / n if n else np.nan],
    })


# ------------------------------------------------------ recall-level analyses


def _level_comparisons(judged: JudgedRankings):
    qidx = np.flatnonzero(judged.num_rel() > 0)
    pos = _relevant_positions(judged, qidx)
    a, b = np.triu_indices(judged.n_runs, 1)
    valid = judged.present[a][:, qidx] & judged.present[b][:, qidx]
    m = judged.num_rel()[qidx]
    return pos, a, b, valid, m


def recall_level_ties(
    qrels=None, runs=None, *, levels: int = 20, rel: int = 1,
    judged: JudgedRankings | None = None,
) -> pd.DataFrame:
    """``level, comparisons, percent_tied``: ties of δRR_i = 1/p_i - 1/p'_i per
    recall level i (lexiprecision Fig. 5), over the comparisons of queries with
    at least i relevant items (an unretrieved i-th item has 1/p_i = 0)."""
    if levels < 1:
        raise UsageError(f"levels={levels}: must be >= 1")
    pos, a, b, valid, m = _level_comparisons(_judge(qrels, runs, judged, rel))
    rows = []
    for i in range(min(levels, pos.shape[2])):
        use = valid & (m > i)[None, :]
        tied = pos[a, :, i] == pos[b, :, i]
        n = int(use.sum())
        rows.append({"level": i + 1, "comparisons": n,
                     "percent_tied": 100.0 * float(tied[use].sum()) / n if n else np.nan})
    return pd.DataFrame(rows)


def recall_level_needed(
    qrels=None, runs=None, *, rel: int = 1, judged: JudgedRankings | None = None
) -> pd.DataFrame:
    """``level, fraction``: ECDF of i*, the first recall level at which two
    rankings differ (lexiprecision Fig. 6), over the comparisons that differ
    at some level (sgnLP != 0)."""
    pos, a, b, valid, _ = _level_comparisons(_judge(qrels, runs, judged, rel))
    diff = pos[a] != pos[b]
    some = diff.any(axis=-1) & valid
    istar = np.argmax(diff, axis=-1)[some] + 1
    if istar.size == 0:
        return pd.DataFrame({"level": [], "fraction": []})
    counts = np.bincount(istar)[1:]
    return pd.DataFrame({"level": np.arange(1, counts.size + 1),
                         "fraction": np.cumsum(counts) / istar.size})


def tie_given_p1(
    qrels=None, runs=None, *, rel: int = 1, judged: JudgedRankings | None = None
) -> pd.DataFrame:
    """``p1, comparisons, probability``: empirical Pr(p'_1 = p_1 | p_1) over
    ordered (run, other run, query) comparisons (lexiprecision Fig. 3; the
    closed form for random rankings is :func:`irpref.meta.rr_tie_given_p1`).
    Rankings without a retrieved relevant item are left out as p_1."""
    pos, a, b, valid, _ = _level_comparisons(_judge(qrels, runs, judged, rel))
    p_a, p_b = pos[a, :, 0][valid], pos[b, :, 0][valid]
    p1 = np.concatenate([p_a, p_b])
    tied = np.concatenate([p_a == p_b, p_a == p_b])
    keep = np.isfinite(p1)
    p1, tied = p1[keep].astype(np.int64), tied[keep]
    if p1.size == 0:
        return pd.DataFrame({"p1": [], "comparisons": [], "probability": []})
    n = np.bincount(p1)
    t = np.bincount(p1, weights=tied)
    at = np.flatnonzero(n)
    return pd.DataFrame({"p1": at, "comparisons": n[at], "probability": t[at] / n[at]})


def _delta_rr(judged: JudgedRankings, levels: int):
    """(P, Q, levels) δRR_i = 1/p_i - 1/p'_i (unretrieved: 1/p = 0), the
    valid (P, Q) mask and the (Q,) relevant counts m."""
    pos, a, b, valid, m = _level_comparisons(judged)
    if pos.shape[2] < levels:
        pad = np.full(pos.shape[:2] + (levels - pos.shape[2],), np.inf)
        pos = np.concatenate([pos, pad], axis=2)
    rr = 1.0 / pos[:, :, :levels]
    return rr[a] - rr[b], valid, m


def recall_level_correlation(
    qrels=None, runs=None, *, levels: int = 8, rel: int = 1,
    judged: JudgedRankings | None = None,
) -> pd.DataFrame:
    """``level_i, level_j, comparisons, pearson``: Pearson r between δRR_i and
    δRR_j over the (run pair, query) comparisons of queries with at least
    max(i, j) relevant items (lexiprecision section 5.3, Fig. 7a: locality of
    δRR_i; r falls as j - i grows)."""
    if int(levels) != levels or levels < 2:
        raise UsageError(f"levels={levels}: must be an integer >= 2")
    d, valid, m = _delta_rr(_judge(qrels, runs, judged, rel), int(levels))
    rows = []
    for i in range(levels):
        for j in range(levels):
            use = valid & (m > max(i, j))[None, :]
            x, y = d[:, :, i][use], d[:, :, j][use]
            ok = x.size > 1 and np.std(x) > 0 and np.std(y) > 0
            rows.append({"level_i": i + 1, "level_j": j + 1, "comparisons": int(x.size),
                         "pearson": float(np.corrcoef(x, y)[0, 1]) if ok else np.nan})
    return pd.DataFrame(rows)


def recall_level_regression(
    qrels=None, runs=None, *, targets: Sequence[int] = (1, 2, 3, 4), predictors: int = 4,
    rel: int = 1, judged: JudgedRankings | None = None,
) -> pd.DataFrame:
    """``target, predictor, coefficient, r2, comparisons``: least-squares fit
    (with intercept) of δRR_i on δRR_{i+1}, ..., δRR_{i+k} (k = ``predictors``)
    over the comparisons of queries with at least i + k relevant items
    (lexiprecision Fig. 7b; ``predictor`` is the level i + j, ``r2`` the fit's
    R^2, repeated on the target's rows)."""
    targets = [int(t) for t in targets]
    if not targets or min(targets) < 1:
        raise UsageError(f"targets={targets}: every target level must be >= 1")
    if int(predictors) != predictors or predictors < 1:
        raise UsageError(f"predictors={predictors}: must be an integer >= 1")
    k = int(predictors)
    d, valid, m = _delta_rr(_judge(qrels, runs, judged, rel), max(targets) + k)
    rows = []
    for t in targets:
        use = valid & (m >= t + k)[None, :]
        y = d[:, :, t - 1][use]
        x = d[:, :, t:t + k][use]  # (N, k)
        n = y.size
        if n <= k + 1:
            coef, r2 = np.full(k, np.nan), np.nan
        else:
            design = np.column_stack([np.ones(n), x])
            beta, *_ = np.linalg.lstsq(design, y, rcond=None)
            coef = beta[1:]
            ss_tot = float(((y - y.mean()) ** 2).sum())
            ss_res = float(((y - design @ beta) ** 2).sum())
            r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else np.nan
        for j in range(k):
            rows.append({"target": t, "predictor": t + j + 1, "coefficient": float(coef[j]),
                         "r2": r2, "comparisons": n})
    return pd.DataFrame(rows)
