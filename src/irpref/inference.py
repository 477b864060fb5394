"""Significance over judged inputs: the runs judged once, every measure and
preference scored under one set of judging settings, then tested.

:func:`significance` is ``irpref.significance``: given tidy tables it tests
them (:func:`irpref.stats.significance`); given ``qrels`` and ``runs`` it
first judges them with the judging settings (as :func:`irpref.evaluate`
takes them) and scores the metrics with :func:`irpref.evaluate` and the
preferences with :func:`irpref.compare_matrices`, on the same judged
rankings and under the same ``missing`` rule, so a metric and a preference
are tested over the queries that rule gives.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import pandas as pd

import irpref.stats as stats
from irpref.compare import compare_matrices
from irpref.errors import MissingQueries, UsageError
from irpref.evaluate import evaluate, judge_inputs, layout_for
from irpref.judged import JudgedRankings
from irpref.measures import parse_measure
from irpref.params import DEFAULT_MISSING, Settings
from irpref.preferences import parse_preference
from irpref.stats.ranks import leaderboard as ranked

__all__ = ["DEFAULT_MEASURES", "leaderboard", "scored_tables", "significance", "split_names"]

DEFAULT_MEASURES = ("AP", "nDCG@10", "RR")


def split_names(names: Sequence[str], *, judged_only: bool = False
                ) -> tuple[list[str], list[str]]:
    """(metrics, preferences): each name's canonical text (under ``judged_only``
    with the modifier), a name that is neither refused with the measure's error."""
    metrics, preferences = [], []
    for name in names:
        try:
            metrics.append(str(parse_measure(name, judged_only=judged_only)))
        except ValueError as metric_error:
            try:
                preferences.append(str(parse_preference(name, judged_only=judged_only)))
            except ValueError:
                raise UsageError(str(metric_error)) from None
    return list(dict.fromkeys(metrics)), list(dict.fromkeys(preferences))


def scored_tables(qrels, runs, measures: Sequence[str] = DEFAULT_MEASURES, settings:
                  Settings | None = None, *, judged: JudgedRankings | None = None) -> list:
    """The tables :func:`irpref.stats.significance` tests: a tidy metric table
    (:func:`irpref.evaluate`) and a preference comparison
    (:func:`irpref.compare_matrices`), from one judging under ``settings``."""
    settings = Settings.resolve(settings, judged.settings if judged is not None else None)
    metrics, preferences = split_names(measures, judged_only=settings.judged_only)
    if judged is None:
        layout, count_docs = layout_for(metrics, preferences, settings=settings)
        judged = judge_inputs(qrels, runs, settings, layout=layout, count_docs=count_docs)
    tables: list = []
    if metrics:
        tables.append(evaluate(None, None, metrics, settings=settings, judged=judged))
    if preferences:
        with warnings.catch_warnings():
            if metrics:  # the runs lacking queries were announced once, by evaluate
                warnings.simplefilter("ignore", MissingQueries)
            tables.append(compare_matrices(None, None, preferences, settings=settings,
                                           judged=judged))
    return tables


def significance(
    tables=None,
    test: str | Sequence[str] = "paired",
    *,
    qrels=None,
    runs=None,
    measures: Sequence[str] | None = None,
    settings: Settings | None = None,
    rel: int = 1,
    depth: int | None = None,
    ties: str = "docid",
    missing: str = DEFAULT_MISSING,
    corpus_size: int | None = None,
    judged_only: bool = False,
    use_tag: bool = False,
    columns=None,
    judged: JudgedRankings | None = None,
    **options,
) -> pd.DataFrame:
    """Test run pairs of every measure: one row per (measure, test, pair).

    Either ``tables`` (tidy tables of :func:`irpref.evaluate` /
    :func:`irpref.compare`, comparisons, or :class:`irpref.Pairwise` objects),
    or ``qrels`` and ``runs`` (or ``judged``) with ``measures`` (metrics and
    preferences; default AP, nDCG@10, RR), judged and scored here under the
    judging settings (``settings`` or the keywords, as :func:`irpref.evaluate`
    takes them). ``test`` and ``options`` (correction, family, baseline, ci,
    confidence, bootstrap, seed, permutations, ...) are those of
    :func:`irpref.stats.significance`, which documents the columns.
    """
    tables = _tables(tables, qrels, runs, measures, judged, Settings.resolve(
        settings, judged.settings if judged is not None else None, rel=rel, depth=depth,
        ties=ties, missing=missing, corpus_size=corpus_size, judged_only=judged_only,
        use_tag=use_tag, columns=columns))
    return stats.significance(tables, test, **options)


def leaderboard(
    tables=None,
    test: str = "paired",
    *,
    qrels=None,
    runs=None,
    measures: Sequence[str] | None = None,
    settings: Settings | None = None,
    rel: int = 1,
    depth: int | None = None,
    ties: str = "docid",
    missing: str = DEFAULT_MISSING,
    corpus_size: int | None = None,
    judged_only: bool = False,
    use_tag: bool = False,
    columns=None,
    judged: JudgedRankings | None = None,
    **options,
) -> pd.DataFrame:
    """The runs ranked with intervals: one row per measure and run (``irpref rank``).

    The inputs are those of :func:`significance` (tables, or qrels and runs
    judged here under the judging settings); ``test`` and ``options``
    (correction, family, alpha, groups, bootstrap, seed, confidence,
    permutations) those of :func:`irpref.stats.ranks.leaderboard`, which
    documents the columns.
    """
    tables = _tables(tables, qrels, runs, measures, judged, Settings.resolve(
        settings, judged.settings if judged is not None else None, rel=rel, depth=depth,
        ties=ties, missing=missing, corpus_size=corpus_size, judged_only=judged_only,
        use_tag=use_tag, columns=columns))
    return ranked(tables, test, **options)


def _tables(tables, qrels, runs, measures, judged, settings: Settings):
    """``tables`` as given, or the inputs scored (exactly one of the two)."""
    inputs = qrels is not None or runs is not None or judged is not None
    if tables is not None and inputs:
        raise UsageError("give tables, or qrels and runs (or judged), not both")
    if tables is not None:
        return tables
    if not inputs:
        raise UsageError("give tables, or qrels and runs (or judged) to score")
    return scored_tables(qrels, runs, measures or DEFAULT_MEASURES, settings, judged=judged)
