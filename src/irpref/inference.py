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
from irpref.compare import compare_with
from irpref.errors import MissingQueries, UsageError
from irpref.evaluate import evaluate_with, judge_with, layout_for
from irpref.judging.judged import JudgedRankings
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


def scored_tables(qrels, runs, measures: Sequence[str], settings: Settings, *,
                  judged: JudgedRankings | None = None) -> list:
    """The tables :func:`irpref.stats.significance` tests: a tidy metric table
    (:func:`irpref.evaluate`) and a preference comparison
    (:func:`irpref.compare_matrices`), from one judging under ``settings``, resolved
    by the caller (and checked against ``judged``'s)."""
    metrics, preferences = split_names(measures, judged_only=settings.judged_only)
    if judged is None:
        layout, count_docs = layout_for(metrics, preferences, settings=settings)
        judged = judge_with(qrels, runs, settings, layout=layout, count_docs=count_docs)
    tables: list = []
    if metrics:
        tables.append(evaluate_with(None, None, metrics, settings, judged=judged))
    if preferences:
        with warnings.catch_warnings():
            if metrics:  # the runs lacking queries were announced once, by evaluate
                warnings.simplefilter("ignore", MissingQueries)
            tables.append(compare_with(None, None, preferences, settings, judged=judged))
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
    """Test every pair of runs, for metrics and preferences alike.

    Per pair: the mean difference (metrics: per-query differences ``run_a -
    run_b``) or mean preference, an effect size with its interval, wins, losses
    and ties, the raw and adjusted p-values and a confidence interval of the
    difference. ``paired`` is Student's t for metrics and real-valued
    preferences (rrLP, RPP) and the exact sign test for sign preferences (sgnLP,
    sgnLR). Every randomized method is seeded (default 0).

    Parameters
    ----------
    tables : DataFrame, Pairwise or a sequence of them, optional
        Tidy tables of `evaluate` or `compare`, or `Pairwise`
        objects; or leave out and give ``qrels`` and ``runs`` (or ``judged``).
    test : str or sequence of str, default "paired"
        ``paired``, ``t``, ``sign``, ``wilcoxon``, ``hsd`` (randomized Tukey
        HSD) or ``tukey`` (parametric Tukey HSD); several give several rows.
    qrels : path, DataFrame, dict or Qrels, optional
        Judgments, read and judged here with ``runs``.
    runs : path, DataFrame, dict, Run, or a sequence or dict of them, optional
        Runs, read and judged here with ``qrels``.
    measures : sequence of str, optional
        Metrics and preferences to test with ``qrels`` and ``runs`` (default AP,
        nDCG@10, RR).
    settings : Settings, optional
        The judging settings as one value, or the keywords below.
    rel, depth, ties, missing, corpus_size, judged_only, use_tag, columns : see Settings
        The judging settings as keywords, by the names, defaults (trec_eval's)
        and rules of `Settings`; a keyword beside a different ``settings`` is
        refused.
    judged : JudgedRankings, optional
        Rankings already judged.
    **options : Any
        ``correction`` (``holm`` default, ``bonferroni``, ``bh``, ``by``,
        ``none``), ``family`` (``measure``, ``baseline``, ``all``), ``baseline``
        (one or several run names), ``alpha``, ``ci`` (``t``, ``bootstrap``,
        ``bca``, ``none``), ``confidence``, ``bootstrap`` (resamples),
        ``permutations``, ``seed``, ``strict`` (HSD counting rule).

    Returns
    -------
    pandas.DataFrame
        Columns ``measure, test, run_a, run_b, n, mean, effect, wins, losses,
        ties, statistic, p, p_adjusted, ci_low, ci_high, es_anova, effect_low,
        effect_high, es_anova_low, es_anova_high, ci, orientation, family,
        family_size, effect_kind, seed``.

    Raises
    ------
    UsageError
        An unknown test, correction or measure, an option out of range, or a
        correction beside ``hsd``/``tukey`` (already family-wise).
    InputError
        Input that cannot be read.

    See Also
    --------
    leaderboard : ranks with simultaneous intervals from the same tests.
    discriminative_power : the share of pairs separated.

    Examples
    --------
    >>> import irpref
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 1},
    ...          "q3": {"d7": 1, "d8": 0}}
    >>> runs = {"bm25": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0},
    ...                  "q2": {"d4": 1.0, "d6": 0.5}, "q3": {"d8": 2.0, "d7": 1.0}},
    ...         "dense": {"q1": {"d3": 0.9, "d1": 0.8, "d2": 0.1},
    ...                   "q2": {"d5": 0.7, "d4": 0.6}, "q3": {"d7": 0.5, "d8": 0.4}},
    ...         "hybrid": {"q1": {"d3": 0.9, "d2": 0.8, "d1": 0.1},
    ...                    "q2": {"d6": 0.7, "d4": 0.6}, "q3": {"d7": 0.5, "d8": 0.4}}}
    >>> results = irpref.evaluate(qrels, runs, ["AP"])
    >>> tests = irpref.significance(results, "paired")
    >>> cols = ["measure", "test", "run_a", "run_b", "mean", "p", "p_adjusted"]
    >>> print(tests[cols].round(4).to_string(index=False))
    measure test run_a  run_b    mean      p  p_adjusted
         AP    t  bm25  dense -0.3889 0.0728      0.2185
         AP    t  bm25 hybrid -0.0833 0.7418      0.7418
         AP    t dense hybrid  0.3056 0.3112      0.6223
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
    """Rank the runs with simultaneous rank intervals and letter groups (``irpref rank``).

    ``rank`` is 1 + the number of runs with a better mean (by the measure's
    orientation; means equal as exact sums tie); ``rank_low``/``rank_high`` are
    the rank intervals of Mogstad, Romano, Shaikh & Wilhelm (2024): the R(R-1)
    one-sided hypotheses "j is better than k", tested by ``test`` and corrected
    by ``correction``; ``group`` shows which runs are not told apart (letters,
    or ranges of rank groups on large boards). With Holm (the default),
    Bonferroni, hsd or tukey all intervals hold together with probability at
    least 1 - alpha; the columns ``test, correction, family, alpha,
    simultaneous`` say under what each row was made
    (:data:`irpref.stats.rank_family.LEVELS` states each correction's level).

    Parameters
    ----------
    tables : DataFrame, Pairwise or a sequence of them, optional
        Tidy tables of `evaluate` or `compare`; or leave out and give
        ``qrels``, ``runs`` and ``measures``.
    test : str, default "paired"
        ``paired``, ``t``, ``hsd`` or ``tukey`` (tests of means, which the rank
        compares); ``sign`` and ``wilcoxon`` are refused: their verdicts need
        not agree with the means and can cycle.
    qrels : path, DataFrame, dict or Qrels, optional
        Judgments, read and judged here with ``runs``.
    runs : path, DataFrame, dict, Run, or a sequence or dict of them, optional
        Runs, read and judged here with ``qrels``.
    measures : sequence of str, optional
        Metrics and preferences to rank by, with ``qrels`` and ``runs``.
    settings : Settings, optional
        The judging settings as one value, or the keywords below.
    rel, depth, ties, missing, corpus_size, judged_only, use_tag, columns : see Settings
        The judging settings as keywords, by the names, defaults (trec_eval's)
        and rules of `Settings`; a keyword beside a different ``settings`` is
        refused.
    judged : JudgedRankings, optional
        Rankings already judged.
    **options : Any
        ``correction`` (default ``holm``; ``bh``/``by``/``none`` are accepted
        and the ``simultaneous`` column then says no), ``family``
        (``measure`` or ``all``), ``alpha``, ``groups`` (``letters``,
        ``ranges`` or ``auto``), ``bootstrap`` (resamples for marginal rank
        intervals), ``seed``, ``confidence``, ``permutations``; as
        :func:`irpref.stats.ranks.leaderboard` documents them.

    Returns
    -------
    pandas.DataFrame
        Columns ``run, measure, mean, rank, rank_low, rank_high, group, test,
        correction, family, alpha, simultaneous`` (plus
        ``marginal_low, marginal_high, seed`` with ``bootstrap``), best run first
        within each measure.

    Raises
    ------
    UsageError
        A measure without a better direction (such as ``NumRet``), an unknown
        or refused test, an unknown correction, an option out of range.
    InputError
        Input that cannot be read.

    Examples
    --------
    >>> import irpref
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 1},
    ...          "q3": {"d7": 1, "d8": 0}}
    >>> runs = {"bm25": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0},
    ...                  "q2": {"d4": 1.0, "d6": 0.5}, "q3": {"d8": 2.0, "d7": 1.0}},
    ...         "dense": {"q1": {"d3": 0.9, "d1": 0.8, "d2": 0.1},
    ...                   "q2": {"d5": 0.7, "d4": 0.6}, "q3": {"d7": 0.5, "d8": 0.4}},
    ...         "hybrid": {"q1": {"d3": 0.9, "d2": 0.8, "d1": 0.1},
    ...                    "q2": {"d6": 0.7, "d4": 0.6}, "q3": {"d7": 0.5, "d8": 0.4}}}
    >>> board = irpref.leaderboard(irpref.evaluate(qrels, runs, ["AP"]))
    >>> print(board.iloc[:, :7].round(4).to_string(index=False))
       run measure   mean  rank  rank_low  rank_high group
     dense      AP 1.0000     1         1          3     a
    hybrid      AP 0.6944     2         1          3     a
      bm25      AP 0.6111     3         1          3     a
    >>> print(board.iloc[0, 7:].to_dict())
    {'test': 't', 'correction': 'holm', 'family': 'measure', 'alpha': 0.05, 'simultaneous': True}
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
