"""Evaluation with machine labels on every query and human labels on a few:
prediction-powered inference over queries (PPI, PPI++; :mod:`irpref.llm_judged.ppi`).

Two sets of judgments: ``qrels`` M (machine labels, e.g. an LLM judge, on
every query) and ``human_qrels`` H (human labels on a subset of M's queries).
The sampling unit is the query. For each run (or run pair) and measure:

- ``Y``: the measure under H on the human-judged queries;
- ``Yhat``: the measure under M on the same queries;
- ``Yhat_unlabeled``: the measure under M on the other queries.

PPI corrects the machine-only mean by the machine's error measured on the
human-judged queries, so its interval stays valid however biased the machine
judge is, and is narrower than the human-only one as far as the two agree.
It assumes the human-judged queries are a uniform random sample of M's
queries and that the machine labels were fixed before that sample was drawn.

Entry points: :func:`ppi_evaluate` (per run and measure: the PPI estimate and
interval beside the human-only mean with its t interval and the machine-only
mean), :func:`ppi_significance` (per run pair, or against baselines: PPI on
the per-query differences of a metric or the per-query values of a
preference, with the family corrections of :func:`irpref.significance`) and
:func:`ppi_design` (the human-judged queries a target half-width needs). The
runs are judged once under each qrels.

Queries a run lacks follow ``missing`` as in :func:`irpref.evaluate` (and are
announced the same way); so does a measure undefined on a query (e.g. TSE
with no relevant document): ``skip`` leaves the query out of that run's
vectors, ``zero`` scores it 0; one warning per run names it, the count and
the choice.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from irpref.errors import InputError, MissingQueries, UsageError
from irpref.evaluate import announce_missing, judge_inputs, layout_for
from irpref.io.frames import as_qrels
from irpref.judging.judged import JudgedRankings
from irpref.llm_judged.ppi import (
    MIN_LABELLED,
    check_interval,
    check_lambda,
    equal_value_bound,
    plan_queries,
    ppi_mean,
)
from irpref.llm_judged.ppi_checks import (
    ScaleMismatch,
    SmallSample,
    Unusual,
    announce_scales,
    measure_range,
    notes,
    preference_range,
    warn_small_pilot,
    warn_small_sample,
)
from irpref.measures import Measure, parse_measure
from irpref.params import DEFAULT_MISSING, Settings
from irpref.stats.families import assign_families, baseline_list, baseline_pairs, check_family
from irpref.stats.intervals import t_interval
from irpref.stats.paired import sign_test
from irpref.stats.pairwise import Pairwise, preference_kind
from irpref.stats.table import COLUMNS

__all__ = ["DESIGN_COLUMNS", "EVALUATE_COLUMNS", "SIGNIFICANCE_COLUMNS", "ScaleMismatch",
           "SmallSample", "TwoJudgments", "UndefinedValues", "Unusual", "judge_both",
           "ppi_design", "ppi_evaluate", "ppi_significance"]

EVALUATE_COLUMNS = ["run", "measure", "value", "low", "high", "n_labeled", "n_unlabeled",
                    "lambda", "human", "human_low", "human_high", "machine", "note"]
SIGNIFICANCE_COLUMNS = [*COLUMNS, "n_unlabeled", "lambda", "note"]
DESIGN_COLUMNS = ["run", "measure", "half_width", "n_ppi", "n_ppi_low", "n_ppi_high",
                  "n_human", "queries", "pilot_n", "pilot_half_width", "lambda", "rho",
                  "var_human", "var_machine"]

MEAN_AGGREGATES = (None, np.mean, np.nanmean)
"""The aggregates whose summary is the mean PPI estimates (a sum or geometric mean is not)."""


class UndefinedValues(UserWarning):
    """A measure is undefined (NaN) on some queries of a run: skipped or scored 0."""


@dataclass(frozen=True, eq=False)
class TwoJudgments:
    """The runs judged under the machine qrels (``machine``, every query) and the human
    qrels (``human``); ``labeled`` (Q,) marks the machine queries H judges and
    ``human_column`` their column in ``human``'s arrays (-1 elsewhere)."""

    machine: JudgedRankings
    human: JudgedRankings
    labeled: np.ndarray
    human_column: np.ndarray
    settings: Settings
    human_source: str

    @property
    def runs(self) -> list[str]:
        return list(self.machine.run_names)

    @property
    def queries(self) -> np.ndarray:
        return self.machine.queries


def _query_ids(qrels) -> list[str]:
    import pyarrow.compute as pc

    return pc.unique(qrels.query).to_pylist()


def _shown(names: Sequence[str]) -> str:
    return ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")


def judge_both(qrels, human_qrels, runs, *, measures: Sequence = (), preferences: Sequence = (),
               settings: Settings, least: int = MIN_LABELLED["t"],
               machine: JudgedRankings | None = None) -> TwoJudgments:
    """Read both qrels, check that every human-judged query has machine labels (an
    :class:`~irpref.errors.InputError` naming the others) and that H judges at least
    ``least`` queries, announce qrels grading on different scales
    (:func:`~irpref.llm_judged.ppi_checks.announce_scales`), then judge ``runs`` once under
    each (queries a run lacks announced once, under the machine qrels, by the rule
    ``settings.missing``). ``machine``: the runs already judged under ``qrels`` with
    ``settings`` (e.g. by the report, which announced the queries they lack): judged
    here under ``human_qrels`` only."""
    machine_q, human_q = as_qrels(qrels), as_qrels(human_qrels)
    known = set(_query_ids(machine_q))
    human_ids = _query_ids(human_q)
    absent = [q for q in human_ids if q not in known]
    if absent:
        raise InputError(human_q.source, None, (
            f"{len(absent)} human-judged quer{'y is' if len(absent) == 1 else 'ies are'} not in "
            f"the machine qrels {machine_q.source} ({_shown(absent)}): PPI needs machine "
            "labels on every query"))
    if len(human_ids) < least:
        raise InputError(human_q.source, None, (
            f"{len(human_ids)} human-judged quer{'y' if len(human_ids) == 1 else 'ies'}: PPI "
            f"needs at least {least} ({_why_least(least)})"))
    s = settings
    announce_scales(machine_q.grade, human_q.grade, s.rel, machine_q.source, human_q.source,
                    stacklevel=4)
    layout, count_docs = layout_for(measures, preferences, settings=s)
    if machine is None:
        machine = judge_inputs(machine_q, runs, s, layout=layout, count_docs=count_docs)
        announce_missing(machine, s.missing, stacklevel=4)
    human = judge_inputs(human_q, runs, s, layout=layout, count_docs=count_docs,
                         warn=False)  # every other query is absent
    column = pd.Index(human.queries).get_indexer(machine.queries)
    return TwoJudgments(machine, human, column >= 0, column, s, human_q.source)


def _why_least(least: int) -> str:
    """Why PPI needs ``least`` human-judged queries (:data:`MIN_LABELLED`)."""
    if least >= 3:
        return ("from 2 the interval would rest on 1 degree of freedom, with no other query "
                "to estimate the weight from and no way to see skewed errors: it could not "
                "claim its level")
    return "a variance of the machine's error"


# --------------------------------------------------------------------- per-query values

def parse_mean_measures(measures: Sequence, *, judged_only: bool = False) -> list[Measure]:
    """The measures (under ``judged_only`` with the modifier), refusing those PPI cannot
    estimate: a summary that is not the mean of the per-query values (sums, geometric
    means) and subtopic measures."""
    out = []
    for text in measures:
        m = parse_measure(text, judged_only=judged_only)
        if m.family.aggregate not in MEAN_AGGREGATES:
            raise UsageError(f"{m}: its summary is not the mean of its per-query values "
                             "(a sum or geometric mean), which is what PPI estimates")
        if m.family.subtopics:
            raise UsageError(f"{m} reads subtopic judgments: PPI with human qrels takes "
                             "measures of the qrels only")
        out.append(m)
    return out


def _counted(values: np.ndarray, judged: JudgedRankings, missing: str) -> np.ndarray:
    """(R, Q) values with NaN where a run lacks the query under ``skip``."""
    return np.where(judged.query_mask(missing), values.astype(np.float64), np.nan)


def metric_values(both: TwoJudgments, measure: Measure) -> tuple[np.ndarray, np.ndarray]:
    """(human, machine), each (R, Q) over the machine queries: the measure under H
    (NaN off the human-judged queries) and under M; NaN where a run lacks a query
    (``skip``) or the measure is undefined."""
    missing = both.settings.missing
    machine = _counted(measure.compute(both.machine), both.machine, missing)
    on_human = _counted(measure.compute(both.human), both.human, missing)
    human = np.full_like(machine, np.nan)
    human[:, both.labeled] = on_human[:, both.human_column[both.labeled]]
    return human, machine


def _undefined(values: np.ndarray, present: np.ndarray) -> np.ndarray:
    return np.isnan(values) & present


def settle_undefined(both: TwoJudgments, names: Sequence[str],
                     pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> None:
    """Apply ``missing`` to the values a measure leaves undefined (NaN where the run
    has the query), in place: ``zero`` scores them 0, ``skip`` keeps them out; one
    :class:`UndefinedValues` warning per run names the measures and the queries."""
    missing = both.settings.missing
    present_m = both.machine.query_mask(missing)
    present_h = np.zeros_like(present_m)
    present_h[:, both.labeled] = both.human.query_mask(missing)[:, both.human_column[both.labeled]]
    hit = np.zeros_like(present_m)
    which: list[list[str]] = [[] for _ in both.runs]
    for name, (human, machine) in zip(names, pairs):
        bad = _undefined(human, present_h) | _undefined(machine, present_m)
        if missing == "zero":
            human[_undefined(human, present_h)] = 0.0
            machine[_undefined(machine, present_m)] = 0.0
        hit |= bad
        for r in np.flatnonzero(bad.any(axis=1)):
            which[r].append(name)
    for r in np.flatnonzero(hit.any(axis=1)):
        count = int(hit[r].sum())
        how = ("scored 0 there (missing=zero)" if missing == "zero" else
               "left out there (missing=skip; missing=zero scores them 0)")
        warnings.warn(UndefinedValues(
            f"run {both.runs[r]}: {', '.join(which[r])} undefined on {count} of "
            f"{both.machine.n_queries} quer{'y' if both.machine.n_queries == 1 else 'ies'} "
            f"under the human or machine qrels: {how}"), stacklevel=4)


def preference_values(both: TwoJudgments, preferences: Sequence[str]
                      ) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Per preference: (name, human, machine) (Q, R, R) matrices over the machine
    queries (human: NaN off the human-judged queries; NaN where a run of the pair
    lacks the query under ``skip``)."""
    from irpref.compare import compare_matrices

    with warnings.catch_warnings():  # the runs lacking queries: announced by judge_both
        warnings.simplefilter("ignore", MissingQueries)
        on = {side: compare_matrices(None, None, list(preferences), settings=both.settings,
                                     judged=judged)
              for side, judged in (("machine", both.machine), ("human", both.human))}
    queries = {"machine": both.machine.queries, "human": both.human.queries}
    out = []
    for name in on["machine"].names:
        full = {}
        for side, comp in on.items():
            matrix = np.asarray(comp.values[name], dtype=np.float64)
            rows = pd.Index(queries[side]).get_indexer(comp.queries[name])
            spread = np.full((len(queries[side]), *matrix.shape[1:]), np.nan)
            spread[rows] = matrix
            full[side] = spread
        human = np.full_like(full["machine"], np.nan)
        human[both.labeled] = full["human"][both.human_column[both.labeled]]
        out.append((name, human, full["machine"]))
    return out


def split(human: np.ndarray, machine: np.ndarray, labeled: np.ndarray):
    """(Y, Yhat, Yhat_unlabeled) of (rows, Q) values over the machine queries."""
    return human[:, labeled], machine[:, labeled], machine[:, ~labeled]


def check_sizes(result, names: Sequence[str], source: str, interval: str = "t",
                least: int | None = None) -> None:
    """Refuse rows with fewer than ``least`` human-judged queries (default
    :data:`MIN_LABELLED` of ``interval``), with none left to the machine labels, or
    (``normal``) with one: InputError."""
    n, big_n = np.asarray(result.n), np.asarray(result.n_unlabeled)
    least = MIN_LABELLED[interval] if least is None else least
    few = np.flatnonzero(n < least)
    if len(few):
        who = _shown([names[i] for i in few])
        raise InputError(source, None, (
            f"{who}: fewer than {least} human-judged queries with a value "
            f"({int(n[few[0]])}): PPI needs at least {least} ({_why_least(least)}; see the "
            "warnings on queries lacking or undefined)"))
    none = np.flatnonzero(big_n < 1)
    if len(none):
        raise InputError(source, None, (
            f"{_shown([names[i] for i in none])}: every query with a value is human-judged: "
            "nothing is left for the machine labels to add; evaluate with the human qrels"))
    one = np.flatnonzero(big_n < 2)
    if interval == "normal" and len(one):
        raise InputError(source, None, (
            f"{_shown([names[i] for i in one])}: 1 query is left to the machine labels: "
            "ppi_py's normal interval takes the variance of that one value, 0 by "
            "construction, and would leave the machine labels' error out; the default "
            "--ppi-interval t estimates it from every machine value"))


def _settings(settings: Settings | None, **keywords) -> Settings:
    return Settings.resolve(settings, **keywords)


def _names(measures) -> list:
    return [measures] if isinstance(measures, (str, Measure)) else list(measures)


def _parsed(measures, settings: Settings) -> list[Measure]:
    """The measures parsed with the ``judged_only`` modifier when the settings ask."""
    return parse_mean_measures(_names(measures), judged_only=settings.judged_only)


# --------------------------------------------------------------------------- evaluate

def ppi_evaluate(
    qrels, human_qrels, runs, measures, *, lam: str | float = "auto", confidence: float = 0.95,
    interval: str = "t", rel: int = 1, depth: int | None = None, ties: str = "docid",
    missing: str = DEFAULT_MISSING, corpus_size: int | None = None, judged_only: bool = False,
    use_tag: bool = False, columns=None, settings: Settings | None = None,
    judged: JudgedRankings | None = None,
) -> pd.DataFrame:
    """Per run and measure, the PPI estimate of the mean over queries with machine
    labels ``qrels`` on every query and human labels ``human_qrels`` on some.

    Columns (:data:`EVALUATE_COLUMNS`): ``value``, ``low``, ``high``: the PPI(++)
    estimate and its ``confidence`` interval (``lam``: ``"auto"`` PPI++, 1 PPI, 0
    human labels only; ``interval``: ``"t"`` the small-sample interval, ``"normal"``
    ppi_py's; :func:`irpref.llm_judged.ppi.ppi_mean`), ``n_labeled`` / ``n_unlabeled``
    the queries behind it, ``lambda`` the weight used (PPI++'s tuned on the human-judged
    queries for ``"auto"``); ``human``, ``human_low``, ``human_high``: the mean
    under the human qrels over the human-judged queries with its Student t interval
    (the range bound where they are all equal); ``machine``: the mean
    under the machine qrels over all queries; ``note``: what the row's interval
    cannot claim (:func:`irpref.llm_judged.ppi_checks.notes`). Judging settings as
    :func:`irpref.evaluate` (or ``settings=``). Refused: human-judged queries absent
    from the machine qrels, fewer than 3 human-judged queries (2 for ``normal``)
    (:class:`~irpref.errors.InputError`). ``judged``: ``runs`` already judged under
    ``qrels`` (as :func:`irpref.report.build_report` has them), so that they are judged
    again under ``human_qrels`` only."""
    s = Settings.resolve(settings, judged.settings if judged is not None else None, rel=rel,
                         depth=depth, ties=ties, missing=missing, corpus_size=corpus_size,
                         judged_only=judged_only, use_tag=use_tag, columns=columns)
    lam, interval = check_lambda(lam, "lam"), check_interval(interval, "interval")
    parsed = _parsed(measures, s)
    labels = [m if isinstance(m, str) else str(m) for m in _names(measures)]
    both = judge_both(qrels, human_qrels, runs, measures=parsed, settings=s,
                      least=MIN_LABELLED[interval], machine=judged)
    computed = {}
    for m in parsed:
        if m not in computed:
            computed[m] = metric_values(both, m)
    settle_undefined(both, [str(m) for m in computed], list(computed.values()))
    stacked = [computed[m] for m in parsed]
    human = np.concatenate([h for h, _ in stacked])  # (K * R, Q), measure-major
    machine = np.concatenate([mm for _, mm in stacked])
    y, yhat, yu = split(human, machine, both.labeled)
    ranges = np.repeat([measure_range(m) for m in parsed], len(both.runs), axis=0)
    result = ppi_mean(y, yhat, yu, lam=lam, confidence=confidence, interval=interval,
                      value_range=(ranges[:, 0], ranges[:, 1]))
    runs_col = np.tile(np.asarray(both.runs, dtype=object), len(parsed))
    measure_col = np.repeat(np.asarray(labels, dtype=object), len(both.runs))
    names = [f"run {r}, {m}" for r, m in zip(runs_col, measure_col)]
    check_sizes(result, names, both.human_source, interval)
    warn_small_sample(result.n, interval)
    used = np.where(np.isnan(yhat), np.nan, y)
    note = notes(result, used, machine, ranges, names)
    low, high, _ = t_interval(y, confidence)  # the human labels alone, where defined
    same, b_low, b_high = equal_value_bound(y, confidence, (ranges[:, 0], ranges[:, 1]))
    low, high = np.where(same, b_low, low), np.where(same, b_high, high)  # never width 0
    with np.errstate(invalid="ignore"):
        human_mean = np.nanmean(y, axis=1)
        machine_mean = np.nanmean(machine, axis=1)
    frame = pd.DataFrame({
        "run": runs_col, "measure": measure_col, "value": result.estimate,
        "low": result.low, "high": result.high, "n_labeled": result.n,
        "n_unlabeled": result.n_unlabeled, "lambda": result.lam, "human": human_mean,
        "human_low": low, "human_high": high, "machine": machine_mean, "note": note,
    }, columns=EVALUATE_COLUMNS)
    frame.attrs.update(confidence=confidence, lam=lam, missing=s.missing, interval=interval)
    return frame


# ----------------------------------------------------------------------- significance

def _split_kinds(measures, settings: Settings) -> tuple[list[Measure], list[str]]:
    """(metrics, preferences) of ``measures``: a preference (canonical text) when the
    preference registry knows the name, else a metric (the resolver refuses others)."""
    from irpref.preferences.registry import parse_preference

    metrics, preferences = [], []
    for text in _names(measures):
        try:
            preferences.append(str(parse_preference(text, judged_only=settings.judged_only)))
        except ValueError:  # a metric, or its refusal
            metrics.extend(parse_mean_measures([text], judged_only=settings.judged_only))
    return metrics, preferences


def _pairwise(both: TwoJudgments, metrics: list[Measure], preferences: list[str]
              ) -> list[tuple[Pairwise, Pairwise, tuple[float, float]]]:
    """(human, machine, range) of every measure over the machine queries (human
    :class:`~irpref.stats.Pairwise`: NaN off the human-judged queries; range: of a
    difference of the metric, or of the preference)."""
    runs, queries = both.runs, both.queries
    computed: dict[Measure, tuple[np.ndarray, np.ndarray]] = {}
    for m in metrics:
        if m not in computed:
            computed[m] = metric_values(both, m)
    settle_undefined(both, [str(m) for m in computed], list(computed.values()))
    out = [(*(Pairwise.from_scores(v, runs, queries, str(m)) for v in computed[m]),
            measure_range(m, difference=True)) for m in metrics]
    for name, human, machine in (preference_values(both, preferences) if preferences else ()):
        kind = preference_kind(name, machine)
        out.append((*(Pairwise.from_matrix(v, kind, runs, queries, name)
                      for v in (human, machine)), preference_range(name)))
    return out


def ppi_significance(
    qrels, human_qrels, runs, measures, *, baseline: str | Sequence[str] | None = None,
    correction: str = "holm", family: str = "measure", lam: str | float = "auto",
    confidence: float = 0.95, interval: str = "t", rel: int = 1, depth: int | None = None,
    ties: str = "docid", missing: str = DEFAULT_MISSING, corpus_size: int | None = None,
    judged_only: bool = False, use_tag: bool = False, columns=None,
    settings: Settings | None = None,
) -> pd.DataFrame:
    """PPI tests of every run pair (a < b in input order), or of every run against
    each ``baseline``, for metrics (per-query differences run_a - run_b) and
    preferences (per-query preference of run_a over run_b, e.g. sgnLP, rrLP, RPP).

    The columns of :func:`irpref.significance` (:data:`SIGNIFICANCE_COLUMNS`) with
    ``test`` = ``ppi``: ``mean``, ``ci_low``, ``ci_high`` the PPI(++) estimate of
    the mean and its ``confidence`` interval (``interval`` as
    :func:`ppi_evaluate`), ``p`` its two-sided p-value against 0 (p < 1 -
    confidence exactly when the interval excludes 0), ``statistic`` the t statistic
    after Hall's correction (``t``) or the z score (``normal``), ``n`` the
    human-judged queries and ``n_unlabeled`` the others, ``lambda`` the weight,
    ``note`` what the row cannot claim; ``wins``/``losses``/``ties`` count the
    human-judged queries by the measure's orientation; ``p_adjusted`` applies
    ``correction`` within each ``family`` (``measure``, ``baseline``, ``all``).
    Effect sizes are not defined for PPI (NaN)."""
    s = _settings(settings, rel=rel, depth=depth, ties=ties, missing=missing,
                  corpus_size=corpus_size, judged_only=judged_only, use_tag=use_tag,
                  columns=columns)
    lam, interval = check_lambda(lam, "lam"), check_interval(interval, "interval")
    baselines = baseline_list(baseline)
    check_family(family, correction, bool(baselines))
    metrics, preferences = _split_kinds(measures, s)
    both = judge_both(qrels, human_qrels, runs, measures=metrics, preferences=preferences,
                      settings=s, least=MIN_LABELLED[interval])
    tables = _pairwise(both, metrics, preferences)
    if len(both.runs) < 2:
        raise UsageError(f"significance needs at least 2 runs, got {len(both.runs)}")
    machine0 = tables[0][1]
    a, b = baseline_pairs(machine0, baselines) if baselines else machine0.pairs
    parts = [split(h.pair_values(a, b), m.pair_values(a, b), both.labeled)
             for h, m, _ in tables]
    y, yhat, yu = (np.concatenate(x) for x in zip(*parts))
    ranges = np.repeat([r for _, _, r in tables], len(a), axis=0)
    result = ppi_mean(y, yhat, yu, lam=lam, confidence=confidence, null=0.0,
                      interval=interval, value_range=(ranges[:, 0], ranges[:, 1]))
    names = [f"{m.measure}: {ra} - {rb}" for _, m, _ in tables
             for ra, rb in zip(machine0.runs[a], machine0.runs[b])]
    check_sizes(result, names, both.human_source, interval)
    warn_small_sample(result.n, interval)
    machine = np.concatenate([yhat, yu], axis=1)
    note = notes(result, np.where(np.isnan(yhat), np.nan, y), machine, ranges, names)
    frame = _pair_rows([t[:2] for t in tables], a, b, y, yhat, result, note)
    frame = assign_families(frame, family, correction, by_baseline=bool(baselines))
    frame.attrs.update(correction=correction, baseline=baseline, family=family,
                       confidence=confidence, lam=lam, interval=interval)
    return frame


def _pair_rows(tables, a, b, y, yhat, result, note) -> pd.DataFrame:
    """The significance rows of the stacked PPI ``result`` (measure-major)."""
    k = len(a)
    used = np.where(np.isnan(yhat), np.nan, y)  # the human-judged queries PPI used
    higher, lower, ties, _ = sign_test(used)
    sign = np.repeat([m.sign for _, m in tables], k)
    wins = np.where(sign >= 0, higher, lower).astype(np.float64)
    losses = np.where(sign >= 0, lower, higher).astype(np.float64)
    wins[sign == 0] = losses[sign == 0] = np.nan
    nan = np.full(len(y), np.nan)
    runs = tables[0][1].runs
    return pd.DataFrame({
        "measure": np.repeat([m.measure for _, m in tables], k), "test": "ppi",
        "run_a": np.tile(runs[a], len(tables)), "run_b": np.tile(runs[b], len(tables)),
        "n": result.n, "mean": result.estimate, "effect": nan, "wins": wins,
        "losses": losses, "ties": ties, "statistic": result.statistic, "p": result.p,
        "p_adjusted": nan,
        "ci_low": result.low, "ci_high": result.high, "es_anova": nan, "effect_low": nan,
        "effect_high": nan, "es_anova_low": nan, "es_anova_high": nan, "ci": "ppi",
        "orientation": np.repeat([m.orientation for _, m in tables], k),
        "family": "", "family_size": 0, "n_unlabeled": result.n_unlabeled,
        "lambda": result.lam, "note": note,
    }, columns=SIGNIFICANCE_COLUMNS)


# ----------------------------------------------------------------------------- design

def ppi_design(
    qrels, human_qrels, runs, measures, *, half_width: float, confidence: float = 0.95,
    lam: str | float = "auto", interval: str = "t", rel: int = 1, depth: int | None = None,
    ties: str = "docid", missing: str = DEFAULT_MISSING, corpus_size: int | None = None,
    judged_only: bool = False, use_tag: bool = False, columns=None,
    settings: Settings | None = None,
) -> pd.DataFrame:
    """How many human-judged queries a PPI interval of half-width ``half_width`` needs,
    per run and measure, planned from the pilot (the human-judged queries given).

    From the pilot: ``var_human`` (sigma_Y^2, the measure's variance under the human
    labels), ``var_machine`` (sigma_f^2, under the machine labels, every query),
    ``rho`` their correlation; ``queries`` T the queries with machine labels.
    ``n_ppi`` is the fewest n < T whose expected half-width (the PPI++ variance at
    n of T labelled times the ``interval``'s critical value, t with n - 1 degrees of
    freedom or z: :func:`irpref.llm_judged.ppi.queries_needed`) is at most the target
    (NaN: even n = T - 1 is not enough), ``lambda`` the weight there;
    ``n_ppi_low`` / ``n_ppi_high`` the same plan with the pilot's variances at the
    ends of their chi-square ``confidence`` interval (pilot_n - 1 degrees of
    freedom): how far the plan can be off from the pilot's size alone; ``n_human``
    the queries the human labels alone would need; ``pilot_half_width`` the
    expected half-width with the pilot's own ``pilot_n``. A pilot of fewer than
    :data:`~irpref.llm_judged.ppi_checks.SMALL_SAMPLE` queries gets a
    :class:`~irpref.llm_judged.ppi_checks.SmallSample` warning."""
    s = _settings(settings, rel=rel, depth=depth, ties=ties, missing=missing,
                  corpus_size=corpus_size, judged_only=judged_only, use_tag=use_tag,
                  columns=columns)
    lam, interval = check_lambda(lam, "lam"), check_interval(interval, "interval")
    if not (half_width > 0 and np.isfinite(half_width)):
        raise UsageError(f"half_width={half_width}: must be a positive number")
    parsed = _parsed(measures, s)
    both = judge_both(qrels, human_qrels, runs, measures=parsed, settings=s, least=2)
    values = [metric_values(both, m) for m in parsed]
    settle_undefined(both, [str(m) for m in parsed], values)
    human = np.concatenate([h for h, _ in values])
    machine = np.concatenate([mm for _, mm in values])
    y, yhat, yu = split(human, machine, both.labeled)
    runs_col = np.tile(np.asarray(both.runs, dtype=object), len(parsed))
    measure_col = np.repeat(np.asarray([str(m) for m in parsed], dtype=object), len(both.runs))
    check_sizes(ppi_mean(y, yhat, yu, interval="normal"),
                [f"run {r}, {m}" for r, m in zip(runs_col, measure_col)], both.human_source,
                interval, least=2)  # a pilot needs 2 for a variance
    plan = plan_queries(y, yhat, yu, half_width, lam=lam, confidence=confidence,
                        interval=interval)
    warn_small_pilot(plan["pilot_n"])
    frame = pd.DataFrame({"run": runs_col, "measure": measure_col, "half_width": half_width,
                          **plan}, columns=DESIGN_COLUMNS)
    frame.attrs.update(confidence=confidence, lam=lam, interval=interval)
    return frame
