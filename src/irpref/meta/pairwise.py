"""Per-comparison values of metrics and preferences on real runs: the
ground every meta experiment on runs stands on.

Every experiment compares runs per (run pair, query). A *metric* (AP, RR,
nDCG@10, ...) becomes the per-query difference ``mu(a, q) - mu(b, q)`` of its
(R, Q) values, multiplied by the measure record's sign
(``parse_measure(name).orientation``: negated for lower-is-better metrics such
as search lengths), so that positive always means ``a`` is better and every
system ordering puts the best system first; a *preference* (sgnLP, rrLP,
sgnLR, RPP, ...) is used as :func:`irpref.compare` gives it. The comparisons
are the pairs ``a < b`` (input order) x the queries with at least one
relevant item (as compare skips the others) where both runs retrieved
something. Differences within 1e-12 count as ties (float sums of equal
rationals in another order).

Discriminative power (:func:`power_percent`; Sakai 2006; lexiprecision Table
3, RPP Tables 3-4): the percent of run pairs significant at ``alpha`` under
:func:`irpref.significance` (``test``, default ``paired``: t for metrics and
real preferences, sign test for sign preferences; Holm over all pairs). A
pair is compared on the queries both runs have (``irpref significance`` on
compare tables counts a missing query as an empty run).

Intent-aware baselines (RPP section 5.5, Tables 2b-4b): with ``subtopics=``
(ndeval-format subtopic qrels; CLI ``--subtopics FILE``) the experiments take
the diversity metrics ``MAP-IA``, ``ERR-IA@20``, ``S-recall@20`` (ndeval's
strec; S-recall needs its cut-off), ``alpha-nDCG@k`` and the preference
``ST-RPP``, with the values ``irpref evaluate/compare --subtopics`` give.
``qrels=None`` (or the same file) uses the subtopic qrels collapsed (max grade
over subtopics) for every other measure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

import irpref.params as params
import irpref.preferences.aggregate as aggregate
from irpref.errors import UsageError
from irpref.evaluate import judge_inputs
from irpref.io.subtopics import SubtopicQrels
from irpref.judging.judged import JudgedRankings

__all__ = [
    "AGGREGATES",
    "POWER_TESTS",
    "Pairwise",
    "check_measures",
    "pairwise",
    "power_percent",
    "stats_pairwise",
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
        m = parse_measure(name)
    except ValueError as exc:
        raise UsageError(f"{exc} (nor a preference: sgnLP, rrLP, sgnLR, RPP, ...)") from None
    if m.orientation == "none":  # the record: a count or coverage, no better direction
        raise UsageError(f"{name} is a count with no better direction (orientation none): "
                         "meta experiments compare runs by which one a measure prefers")
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
    from irpref.measures.subtopic_judgments import needs_subtopics
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
    from irpref.measures.subtopic_judgments import with_subtopics
    from irpref.preferences import preference_matrices

    aggregate = _check_aggregate(aggregate)
    kinds = check_measures(measures)
    if subtopics is not None:
        judged = with_subtopics(judged, subtopics)
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


def check_power(alpha: float, test: str) -> None:
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


def tolerant_signs(x: np.ndarray) -> np.ndarray:
    return np.where(x > TOL, 1, np.where(x < -TOL, -1, 0))


def kendall_tau(x: np.ndarray, y: np.ndarray) -> float:
    return float(stats.kendalltau(x, y).statistic)


def judged_for(qrels, runs, judged, rel, measures=None):
    if measures is not None:
        check_measures(measures)
    if judged is not None:
        return judged
    return judge_inputs(qrels, runs, rel=params.check_rel(rel, "rel"))


def judged_with_subtopics(qrels, runs, judged, rel, measures, subtopics):
    """``(judged, subtopic qrels or None)``: every name checked first; the
    subtopic qrels read once (and collapsed as the qrels if ``qrels`` is None
    or the same file)."""
    from irpref.measures.subtopic_judgments import use_subtopics

    # a judged collection may carry subtopic qrels already (evaluate attached them)
    check_measures(measures, subtopics=subtopics is not None or judged is not None)
    qrels, sub = use_subtopics(qrels, subtopics)
    return judged_for(qrels, runs, judged, rel), sub




def check_samples(samples: int) -> int:
    if int(samples) != samples or samples < 1:
        raise UsageError(f"samples={samples}: must be an integer >= 1")
    return int(samples)


