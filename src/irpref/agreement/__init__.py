"""``agree``: how far two sets of relevance judgments (say, human and LLM) agree,
on the labels and on the system orderings they induce.

- Labels (:mod:`irpref.agreement.labels`): over the (query, document) pairs
  both judge, the confusion matrix, Cohen's kappa (unweighted, linear,
  quadratic), Krippendorff's alpha (nominal, ordinal, interval), binarized
  kappa and alpha at every threshold, leniency (mean grades, share of pairs B
  grades higher / lower) and coverage (pairs only one side judges), per query
  too.
- Systems (:mod:`irpref.agreement.systems`, :mod:`irpref.agreement.orderings`):
  every measure and preference under both qrels, the orderings compared by
  Kendall's tau-b, tau_AP both ways and their mean, the top-k overlap, and the
  run pairs whose order swaps, with their significance under each side.

Coverage matters for the measures: a pair only one side judges is unjudged
under the other, which most measures (AP, nDCG, P, RR...) score as
non-relevant; judged-only measures (bpref, Judged@k) see it as unjudged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import pandas as pd

from irpref.agreement import labels as _labels
from irpref.agreement import systems as _systems
from irpref.agreement.labels import Labels, join_labels, refuse_disjoint
from irpref.errors import UsageError
from irpref.io.frames import as_qrels
from irpref.params import check_alpha, check_positive_int, check_rel

__all__ = ["Agreement", "agree"]

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
    rel: int = 1,
    depth: int | None = None,
    ties: str = "docid",
    missing: str = "skip",
    top: int = 5,
    alpha: float = 0.05,
    use_tag: bool = False,
    judged_at: int | None = None,
) -> Agreement:
    """Agreement between ``qrels_a`` (the reference, e.g. human) and ``qrels_b``.

    qrels_a, qrels_b: paths, DataFrames, dicts or :class:`irpref.Qrels`.
    runs, measures:   optional; every measure / preference (default
                      ``nDCG@10 AP``) is evaluated under both qrels with
                      ``rel``, ``depth``, ``ties``, ``missing`` as in
                      :func:`irpref.evaluate` and the orderings compared.
    thresholds:       binarization thresholds (default 1 .. largest grade).
    top:              k of the top-k overlap; ``alpha``: significance level.
    judged_at:        with runs, also Judged@k per run and query under each side
                      (:attr:`Agreement.judged`): how much of each ranking's top k
                      the other side leaves unjudged.

    Raises :class:`irpref.errors.InputError` when the two share no judged pair.
    """
    rel = check_rel(rel, "rel")
    top = check_positive_int(top, "top")
    if judged_at is not None:
        judged_at = check_positive_int(judged_at, "judged_at")
    alpha = check_alpha(alpha, "alpha")
    if isinstance(measures, str):
        measures = measures.split()
    if runs is not None and not isinstance(runs, (list, tuple)):
        runs = [runs]
    names = list(measures) if measures else list(DEFAULT_MEASURES)
    if runs:
        _systems.split_measures(names)  # refused before anything is read
    a, b = as_qrels(qrels_a), as_qrels(qrels_b)
    labels = join_labels(a, b)
    refuse_disjoint(labels)
    if thresholds is None:
        thresholds = labels.thresholds()
    else:
        thresholds = [_check_threshold(t, labels, "thresholds") for t in thresholds]
    scored, extras = [], {}
    if runs:
        extra = [f"Judged@{judged_at}"] if judged_at is not None else []
        scored, extras = _systems.evaluate_both(a, b, runs, names, rel=rel, depth=depth,
                                                ties=ties, missing=missing, use_tag=use_tag,
                                                extra=extra)
    return Agreement(labels, list(thresholds), scored, top, alpha, judged_at, extras)
