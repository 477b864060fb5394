"""``agree``: how far two sets of relevance judgments (say, human and LLM) agree,
on the labels and on the system orderings they induce.

- Labels (:mod:`irpref.llm_judged.agreement.labels`): over the (query, document) pairs
  both judge, the confusion matrix, Cohen's kappa (unweighted, linear,
  quadratic), Krippendorff's alpha (nominal, ordinal, interval), binarized
  kappa and alpha at every threshold, leniency (mean grades, share of pairs B
  grades higher / lower) and coverage (pairs only one side judges), per query
  too.
- Systems (:mod:`irpref.llm_judged.agreement.systems`,
  :mod:`irpref.llm_judged.agreement.orderings`):
  every measure and preference under both qrels, the orderings compared by
  Kendall's tau-b, tau_AP both ways and their mean, the top-k overlap, and the
  run pairs whose order swaps, with their significance under each side.

Coverage matters for the measures: a pair only one side judges is unjudged
under the other, which most measures (AP, nDCG, P, RR...) score as
non-relevant; judged-only measures (bpref, Judged@k) see it as unjudged.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from irpref.errors import InputError, UsageError
from irpref.io.frames import as_qrels
from irpref.llm_judged.agreement import labels as _labels
from irpref.llm_judged.agreement import systems as _systems
from irpref.llm_judged.agreement.labels import Labels, join_labels, refuse_disjoint
from irpref.params import DEFAULT_MISSING, Settings, check_alpha, check_positive_int

__all__ = ["Agreement", "GradeScale", "agree", "check_scale"]

DEFAULT_MEASURES = ("nDCG@10", "AP")


@dataclass(eq=False)
class Agreement:
    """The result of :func:`agree`; every table is a pandas DataFrame."""

    labels: Labels
    thresholds: list[int]
    scored: list = field(default_factory=list)  # systems.Scored, one per measure
    top: int = 5
    alpha: float = 0.05
    judged_at: int | None = None
    extras: dict = field(default_factory=dict)  # side -> tidy table of the extra metrics

    @cached_property
    def statistics(self) -> pd.DataFrame:
        """statistic, threshold (NA: all grades), value: one row per label statistic."""
        return _labels.statistics(self.labels, self.thresholds)

    def confusion(self, threshold: int | None = None) -> pd.DataFrame:
        """grade_a, grade_b, pairs (0 / 1 = below / at least ``threshold`` if given)."""
        if threshold is not None:
            _check_threshold(threshold, self.labels, "threshold")
        return _labels.confusion_table(self.labels, threshold)

    def per_query(self, threshold: int | None = None) -> pd.DataFrame:
        """One row per query, the queries where A and B disagree most first."""
        if threshold is not None:
            _check_threshold(threshold, self.labels, "threshold")
        return _labels.per_query(self.labels, threshold)

    @cached_property
    def swaps(self) -> pd.DataFrame:
        """Run pairs whose order swaps, per measure (:func:`systems.swaps_table`)."""
        return _systems.swaps_table(self.scored, self.alpha)

    @cached_property
    def orderings(self) -> pd.DataFrame:
        """measure, statistic, value: tau_b, tau_ap_a, tau_ap_b, tau_ap, top overlap, swaps."""
        return _systems.ordering_statistics(self.scored, self.top)

    @cached_property
    def judged(self) -> pd.DataFrame:
        """run, query, judged_a, judged_b: Judged@k (share of the top k the qrels judge)
        per run and query under each side, then per-run means (query null); empty
        unless ``judged_at`` was given with runs."""
        if self.judged_at is None or not self.extras:
            return pd.DataFrame(columns=["run", "query", "judged_a", "judged_b"])
        return _systems.judged_table(self.extras, f"Judged@{self.judged_at}")

    @cached_property
    def scores(self) -> pd.DataFrame:
        """measure, run, value_a, value_b, rank_a, rank_b."""
        if not self.scored:
            return pd.DataFrame(columns=["measure", "run", "value_a", "value_b", "rank_a",
                                         "rank_b"])
        return _systems.scores_table(self.scored)


class GradeScale(UserWarning):
    """Grades of the second qrels outside the first one's scale."""


def _grades(q) -> tuple[np.ndarray, np.ndarray]:
    """(distinct judged grades, their counts) of a qrels (grade >= 0)."""
    g = np.asarray(q.grade, np.int64)
    return np.unique(g[g >= 0], return_counts=True)


def _outside(q, low: int, high: int) -> str:
    """``10 (1 pair), 5 (2 pairs)``: the judged grades of ``q`` outside [low, high]."""
    values, counts = _grades(q)
    off = (values < low) | (values > high)
    return ", ".join(f"{v} ({c} pair{'s' if c != 1 else ''})"
                     for v, c in zip(values[off], counts[off]))


def check_scale(a, b, scale: tuple[int, int] | None) -> tuple[int, int]:
    """The grade scale (low, high): ``scale`` checked against both qrels (a grade
    outside is refused), or qrels A's own, B's grades outside it announced."""
    if scale is not None:
        low, high = (int(x) for x in scale)
        if not 0 <= low < high:
            raise UsageError(f"scale={scale!r}: must be (low, high) with 0 <= low < high")
        for q in (a, b):
            bad = _outside(q, low, high)
            if bad:
                raise InputError(q.source, None, f"grades outside the scale {low}-{high}: "
                                 f"{bad} (give the scale that holds them)")
        return low, high
    values, _ = _grades(a)
    low, high = (int(values[0]), int(values[-1])) if len(values) else (0, 1)
    bad = _outside(b, low, high)
    if bad:
        warnings.warn(GradeScale(
            f"{b.source} has grades outside the scale of {a.source} ({low}-{high}): {bad}; "
            f"they count as their own categories, thresholds stop at {high} (--scale "
            "LOW-HIGH states the scale and refuses grades outside it)"), stacklevel=3)
    return low, high


def _check_threshold(t, labels: Labels, flag: str) -> int:
    t = check_positive_int(t, flag)
    top = int(labels.values[-1])
    if t > top:
        raise UsageError(f"{flag} {t}: no pair both sides judge has a grade >= {t} "
                         f"(the largest grade is {top})")
    return t


def agree(
    qrels_a,
    qrels_b,
    runs=None,
    measures: str | Sequence[str] | None = None,
    *,
    thresholds: Sequence[int] | None = None,
    settings: Settings | None = None,
    rel: int = 1,
    depth: int | None = None,
    ties: str = "docid",
    missing: str = DEFAULT_MISSING,
    corpus_size: int | None = None,
    judged_only: bool = False,
    use_tag: bool = False,
    columns=None,
    top: int = 5,
    alpha: float = 0.05,
    judged_at: int | None = None,
    scale: tuple[int, int] | None = None,
) -> Agreement:
    """How far two sets of judgments agree, on labels and on the system orderings they induce.

    Over the (query, document) pairs both judge: Cohen's kappa (plain, linear,
    quadratic), Krippendorff's alpha (nominal, ordinal, interval), and at every
    threshold t (grade >= t relevant) the binary kappa and alpha; leniency and
    coverage. With runs, every measure under both judgments, the orderings
    compared by Kendall's tau-b and tau_AP, and the run pairs whose order swaps.

    Parameters
    ----------
    qrels_a : path, DataFrame, dict or Qrels
        The reference judgments (e.g. human).
    qrels_b : path, DataFrame, dict or Qrels
        The judgments compared with them (e.g. an LLM judge's).
    runs : path, DataFrame, dict, Run, or a sequence or dict of them, optional
        Runs to evaluate under both.
    measures : str or sequence of str, optional
        Measures and preferences for the runs (default ``nDCG@10 AP``).
    thresholds : sequence of int, optional
        Binarization thresholds (default 1 .. the top of the scale).
    settings : Settings, optional
        The judging settings as one value, or the keywords below.
    rel, depth, ties, missing, corpus_size, judged_only, use_tag, columns : see Settings
        The judging settings as keywords, by the names, defaults (trec_eval's)
        and rules of `Settings`; a keyword beside a different ``settings`` is
        refused.
    top : int, default 5
        k of the top-k overlap of the orderings.
    alpha : float, default 0.05
        Significance level of the swapped pairs' tests.
    judged_at : int, optional
        With runs, also Judged@k per run and query under each side.
    scale : tuple of int, optional
        The grade scale ``(low, high)``: a grade of either side outside it is
        refused. Default: the scale of ``qrels_a``; a grade of ``qrels_b``
        outside it is named in a warning.

    Returns
    -------
    Agreement
        Its tables are DataFrames: ``statistics`` (statistic, threshold,
        value), ``confusion(threshold)``, ``per_query(threshold)``,
        ``orderings`` and ``swaps`` (with runs).

    Raises
    ------
    InputError
        The two share no judged pair, or a grade lies outside ``scale``.
    UsageError
        A threshold outside the scale, an unknown measure.

    Examples
    --------
    >>> import irpref
    >>> human = {"q1": {"d1": 2, "d2": 0, "d3": 1, "d4": 0}, "q2": {"d5": 1, "d6": 0, "d7": 2}}
    >>> llm = {"q1": {"d1": 2, "d2": 1, "d3": 1, "d4": 0}, "q2": {"d5": 1, "d6": 0, "d7": 1}}
    >>> stats = irpref.agree(human, llm).statistics.set_index("statistic")
    >>> value = stats["value"].round(4)
    >>> float(value["kappa"]), float(value["alpha_ordinal"])
    (0.5758, 0.7632)
    """
    settings = Settings.resolve(settings, rel=rel, depth=depth, ties=ties, missing=missing,
                                corpus_size=corpus_size, judged_only=judged_only,
                                use_tag=use_tag, columns=columns)
    top = check_positive_int(top, "top")
    if judged_at is not None:
        judged_at = check_positive_int(judged_at, "judged_at")
    alpha = check_alpha(alpha, "alpha")
    if isinstance(measures, str):
        measures = measures.split()
    if runs is not None and not isinstance(runs, (list, tuple)):
        runs = [runs]
    names = list(measures) if measures else list(DEFAULT_MEASURES)
    if runs:  # refused before anything is read
        _systems.split_measures(names, judged_only=settings.judged_only)
    elif settings.judged_only:
        raise UsageError("judged_only needs runs: the label statistics read no rankings")
    a, b = as_qrels(qrels_a), as_qrels(qrels_b)
    labels = join_labels(a, b)
    refuse_disjoint(labels)
    low, high = check_scale(a, b, scale)
    if thresholds is None:
        thresholds = list(range(max(low, 1), high + 1))
    else:
        thresholds = [_check_threshold(t, labels, "thresholds") for t in thresholds]
    scored, extras = [], {}
    if runs:
        extra = [f"Judged@{judged_at}"] if judged_at is not None else []
        scored, extras = _systems.evaluate_both(a, b, runs, names, settings, extra=extra)
    return Agreement(labels, list(thresholds), scored, top, alpha, judged_at, extras)
