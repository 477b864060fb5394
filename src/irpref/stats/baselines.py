"""Runs against one or several baselines: one tidy row per (run, measure, baseline).

:func:`against_baselines` is the table behind ``irpref evaluate --baseline``
(any number of baselines) and the report's baseline view. Its tests, effect
sizes, intervals and corrections are those of :func:`irpref.stats.significance`
with ``baseline=`` (one implementation): for every measure and baseline b,
each run r != b is tested on the per-query differences d_q = v(r, q) - v(b, q)
over the queries both have, and the p-values are corrected within the chosen
family (:func:`irpref.stats.families.assign_families`: per ``measure``, per
measure and ``baseline``, or ``all``). A baseline is never compared with
itself: its own row carries its mean and empty test cells.

Columns (raw values are run - baseline; orientation-aware ones follow the
measure's record, :attr:`irpref.stats.Pairwise.orientation`):

- ``run, measure, baseline, test``; ``n`` (queries of the run), ``paired``
  (queries shared with the baseline), ``mean`` (the run's mean over its queries);
- ``diff`` = mean of d over the paired queries; ``diff_low``/``diff_high`` its
  interval by ``ci`` (``t``: diff +- t_{(1+c)/2, n-1} sd / sqrt(n); ``bootstrap``
  / ``bca``: seeded paired bootstrap percentile / BCa, the same draws as
  ``irpref significance`` for the same seed); ``ci`` names the method;
  with ``also_t`` the t interval as well, in ``t_low``/``t_high`` (last
  columns; the same numbers as ``ci="t"``), so one call gives both;
- ``effect`` = diff / sd(d), the paired standardized mean difference (sign
  test: the win share wins / (wins + losses); wilcoxon: the matched-pairs
  rank-biserial correlation, without an interval) with ``effect_low``/``effect_high``
  (noncentral t; Clopper-Pearson for the win share); ``effect_kind`` says which;
  ``seed``: the seed of a bootstrap interval; ``es_anova`` = Sakai's
  ES_E = diff / sqrt(V_E), V_E of the two-way ANOVA over all runs of the
  measure, with ``es_anova_low``/``es_anova_high`` (V_E treated as known, see
  :func:`irpref.stats.anova.es_anova_interval`);
- ``wins, losses, ties`` (queries the run is better / worse / equal; no wins
  or losses for a measure without a better direction), ``statistic, p,
  p_adjusted, family, family_size``;
- ``significant`` = p_adjusted < alpha; ``marker`` ``▲`` (significantly
  better than the baseline) or ``▼`` (worse): the direction of diff by the
  measure's orientation (a smaller ASL is better), of wins - losses for the
  sign test, of the signed ranks for Wilcoxon (:mod:`irpref.stats.directions`);
  none for a measure without a better direction.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from irpref.errors import UsageError
from irpref.measures.arithmetic import exact_means
from irpref.stats.bootstrap import DEFAULT_BOOTSTRAP
from irpref.stats.directions import row_directions
from irpref.stats.families import baseline_list, baseline_pairs, check_baselines, check_family
from irpref.stats.intervals import t_interval
from irpref.stats.pairwise import Pairwise, as_pairwise
from irpref.stats.table import check_ci, significance

__all__ = ["BASELINE_COLUMNS", "BASELINE_TESTS", "BETTER", "WORSE", "against_baselines"]

BETTER, WORSE = "▲", "▼"

BASELINE_TESTS = ("paired", "t", "wilcoxon", "sign")
"""Tests of a run against a baseline (``paired`` = Student's paired t for a metric)."""

BASELINE_COLUMNS = [
    "run", "measure", "baseline", "test", "n", "paired", "mean", "diff", "diff_low", "diff_high",
    "ci", "effect", "effect_low", "effect_high", "es_anova", "es_anova_low", "es_anova_high",
    "wins", "losses", "ties", "statistic", "p", "p_adjusted", "family", "family_size",
    "significant", "marker", "orientation", "effect_kind", "seed",
]

_RENAMED = {"run_a": "run", "run_b": "baseline", "n": "paired", "mean": "diff",
            "ci_low": "diff_low", "ci_high": "diff_high"}


def check_baseline_test(test: str) -> str:
    """The one rule for the test against a baseline: one of :data:`BASELINE_TESTS`."""
    if test not in BASELINE_TESTS:
        raise UsageError(f"test must be one of {', '.join(BASELINE_TESTS)}, not {test!r}")
    return test


def against_baselines(
    results: pd.DataFrame,
    baselines: str | Sequence[str],
    *,
    test: str = "paired",
    correction: str = "holm",
    family: str = "measure",
    alpha: float = 0.05,
    ci: str = "t",
    confidence: float = 0.95,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = 0,
    also_t: bool = False,
) -> pd.DataFrame:
    """Every run against every baseline under every measure; see the module doc.

    results:    tidy per-query metric table (run, query, measure, value), e.g.
                :func:`irpref.evaluate`.
    baselines:  a run name or several (order kept, repeats dropped); each must
                be a run (``UsageError`` naming the runs).
    test:       ``paired`` / ``t`` (Student's paired t), ``wilcoxon``, ``sign``.
    correction: ``holm``, ``bonferroni``, ``bh``, ``by``, ``none`` within each
                ``family`` (``measure``, ``baseline``, ``all``).
    ci:         interval of ``diff``: ``t``, ``bootstrap``, ``bca`` or ``none``,
                at ``confidence``; ``bootstrap`` resamples drawn from ``seed``.
    also_t:     add ``t_low``/``t_high``, the t interval of ``diff`` at ``confidence``
                (what ``ci="t"`` puts in ``diff_low``/``diff_high``).

    Rows: per measure (input order), per baseline (given order), every run
    (input order), the baseline's own row included.
    """
    from irpref import params

    names = baseline_list(baselines)
    if not names:
        raise UsageError("no baseline given")
    check_baseline_test(test)
    params.check_alpha(alpha, "alpha")
    params.check_probability(confidence, "confidence")
    check_family(family, correction, by_baseline=True)
    check_ci(ci, bootstrap)
    if "run" not in results.columns:
        raise UsageError("a baseline table needs per-run metric values (run, query, measure, "
                         "value), not preferences")
    pairwise = as_pairwise(results)
    for pw in pairwise:
        check_baselines(pw.runs, names)
    tests = significance(pairwise, test, correction=correction, family=family, baseline=names,
                         ci=ci, bootstrap=bootstrap, confidence=confidence, seed=seed)
    tests = tests.rename(columns=_RENAMED)
    if also_t:
        tests = tests.merge(_t_intervals(pairwise, names, confidence),
                            on=["measure", "run", "baseline"], how="left", sort=False)
    grid = []
    for pw in pairwise:  # one block per measure: every run against every baseline
        runs = np.asarray(pw.runs, dtype=object)
        counts = (~np.isnan(pw.scores)).sum(-1)
        means = exact_means(pw.scores)
        grid.append(pd.DataFrame({
            "run": np.tile(runs, len(names)), "measure": pw.measure,
            "baseline": np.repeat(np.asarray(names, dtype=object), len(runs)),
            "n": np.tile(counts, len(names)), "mean": np.tile(means, len(names)),
            "orientation": pw.orientation,
        }))
    out = pd.concat(grid, ignore_index=True).merge(
        tests.drop(columns=["orientation"]),
        on=["measure", "run", "baseline"], how="left", sort=False)
    for col in ("paired", "wins", "losses", "ties", "family_size"):
        out[col] = out[col].astype("Float64").round().astype("Int64")
    out["significant"] = (out["p_adjusted"] < alpha).to_numpy(bool)
    out["marker"] = _markers(out)
    out.attrs.update(baselines=names, test=test, correction=correction, family=family,
                     alpha=alpha, ci=ci, confidence=confidence, bootstrap=bootstrap, seed=seed)
    return out[BASELINE_COLUMNS + (["t_low", "t_high"] if also_t else [])]


def _t_intervals(pairwise: Sequence[Pairwise], names: Sequence[str], confidence: float
                 ) -> pd.DataFrame:
    """measure, run, baseline, t_low, t_high: the t interval of run - baseline over the
    paired queries (:func:`irpref.stats.intervals.t_interval` on the differences
    :func:`irpref.stats.significance` tests), one block per measure."""
    parts = []
    for pw in pairwise:
        a, b = baseline_pairs(pw, names)
        low, high, _ = t_interval(pw.pair_values(a, b), confidence)
        parts.append(pd.DataFrame({"measure": pw.measure, "run": pw.runs[a],
                                   "baseline": pw.runs[b], "t_low": low, "t_high": high}))
    return pd.concat(parts, ignore_index=True)


def _markers(table: pd.DataFrame) -> np.ndarray:
    """``▲`` / ``▼`` / ``""`` per row: significant, and the direction of the test's
    statistic (:func:`irpref.stats.directions.row_directions`: wins - losses for the
    sign test, the signed ranks for Wilcoxon, the oriented diff otherwise)."""
    tested = table["test"].notna().to_numpy()  # a baseline's own row has no test
    direction = np.zeros(len(table), np.int8)
    direction[tested] = row_directions(table[tested], mean="diff")
    significant = table["significant"].to_numpy(bool)
    return np.where(significant & (direction > 0), BETTER,
                    np.where(significant & (direction < 0), WORSE, "")).astype(object)
