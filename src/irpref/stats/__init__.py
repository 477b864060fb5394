"""Significance tests over run pairs: paired tests, ANOVA, Tukey HSD, intervals, corrections.

Every test reads one representation, :class:`Pairwise` (``pairwise``): for one
measure, the per-query comparison of every run pair. Modules:

- ``paired``: Student's paired t, exact sign test, Wilcoxon signed-rank;
- ``anova``: two-way ANOVA without replication, Sakai's ES_E, parametric Tukey HSD;
- ``hsd``: the randomized Tukey HSD (Carterette, TOIS 2012) and its C kernels;
- ``intervals``: t interval of a mean difference, exact interval of a win share;
- ``noncentral``: the noncentral t inverted in its noncentrality (the d_z interval);
- ``bootstrap``: seeded paired bootstrap intervals (percentile, BCa);
- ``corrections``: Holm, Bonferroni, Benjamini-Hochberg, Benjamini-Yekutieli;
- ``families``: baselines and the families a correction runs over;
- ``baselines``: every run against one or several baselines, one row per
  (run, measure, baseline) (:func:`against_baselines`);
- ``table``: one row per (measure, test, run pair);
- ``directions``: which way a verdict points, from its test's statistic (one rule
  for every verdict, mark, letter and rank);
- ``ranks``, ``rank_family``, ``letters``: leaderboards with the rank intervals of
  Mogstad et al. (2024) over one-sided hypotheses, and groups of runs that do not
  differ.
"""

from __future__ import annotations

from irpref.stats.anova import Anova, anova_two_way, es_anova, es_anova_interval, tukey_parametric
from irpref.stats.baselines import BASELINE_COLUMNS, BASELINE_TESTS, against_baselines
from irpref.stats.bootstrap import BOOTSTRAP_METHODS, DEFAULT_BOOTSTRAP, bootstrap_ci
from irpref.stats.corrections import CORRECTIONS, adjust_pvalues
from irpref.stats.families import FAMILIES, against_baseline, assign_families, baseline_pairs
from irpref.stats.hsd import hsd_permutations, tukey_hsd
from irpref.stats.intervals import smd_interval, t_interval, win_share_interval
from irpref.stats.noncentral import noncentrality
from irpref.stats.paired import paired_t, rank_biserial, sign_test, wilcoxon
from irpref.stats.pairwise import Pairwise, as_pairwise, is_comparison, preference_kind
from irpref.stats.table import (
    CI_METHODS,
    COLUMNS,
    TESTS,
    default_correction,
    pair_tests,
    significance,
)

__all__ = [
    "BASELINE_COLUMNS",
    "BASELINE_TESTS",
    "BOOTSTRAP_METHODS",
    "CI_METHODS",
    "COLUMNS",
    "CORRECTIONS",
    "DEFAULT_BOOTSTRAP",
    "FAMILIES",
    "TESTS",
    "Anova",
    "Pairwise",
    "is_comparison",
    "adjust_pvalues",
    "against_baseline",
    "against_baselines",
    "anova_two_way",
    "as_pairwise",
    "assign_families",
    "baseline_pairs",
    "bootstrap_ci",
    "default_correction",
    "es_anova",
    "es_anova_interval",
    "hsd_permutations",
    "noncentrality",
    "pair_tests",
    "paired_t",
    "preference_kind",
    "rank_biserial",
    "sign_test",
    "significance",
    "smd_interval",
    "t_interval",
    "tukey_hsd",
    "tukey_parametric",
    "wilcoxon",
    "win_share_interval",
]
