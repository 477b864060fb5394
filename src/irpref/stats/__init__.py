"""Significance tests over run pairs: paired tests, randomized Tukey HSD, corrections.

Every test reads one representation, :class:`Pairwise` (``pairwise``): for one
measure, the per-query comparison of every run pair. Modules:

- ``paired``: Student's paired t, exact sign test, Wilcoxon signed-rank;
- ``corrections``: Holm, Bonferroni, Benjamini-Hochberg;
- ``hsd``: the randomized Tukey HSD (Carterette, TOIS 2012) and its C kernels;
- ``bootstrap``: seeded bootstrap confidence intervals;
- ``table``: one row per (measure, test, run pair) and the baseline view.
"""

from __future__ import annotations

from irpref.stats.bootstrap import bootstrap_ci
from irpref.stats.corrections import CORRECTIONS, adjust_pvalues
from irpref.stats.hsd import hsd_permutations, tukey_hsd
from irpref.stats.paired import paired_t, sign_test, wilcoxon
from irpref.stats.pairwise import Pairwise, _is_comparison, as_pairwise, preference_kind
from irpref.stats.table import COLUMNS, TESTS, against_baseline, pair_tests, significance

__all__ = [
    "COLUMNS",
    "CORRECTIONS",
    "TESTS",
    "Pairwise",
    "_is_comparison",
    "adjust_pvalues",
    "against_baseline",
    "as_pairwise",
    "bootstrap_ci",
    "hsd_permutations",
    "pair_tests",
    "paired_t",
    "preference_kind",
    "sign_test",
    "significance",
    "tukey_hsd",
    "wilcoxon",
]
