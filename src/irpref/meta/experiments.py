"""The meta experiments on real runs under their former module name.

The experiments live in one module per family: :mod:`irpref.meta.pairwise`
(per-comparison values, discriminative power), :mod:`irpref.meta.comparisons`
(ties, agreement), :mod:`irpref.meta.degradation`,
:mod:`irpref.meta.subsampling` and :mod:`irpref.meta.recall_levels`; this
module re-exports them for code written against ``irpref.meta.experiments``.
"""

from __future__ import annotations

from irpref.meta.comparisons import agreement, conditional_agreement, tie_rates
from irpref.meta.degradation import degrade, degraded_grades, degraded_subtopics
from irpref.meta.pairwise import (
    AGGREGATES,
    Pairwise,
    check_measures,
    pairwise,
    power_percent,
    stats_pairwise,
)
from irpref.meta.recall_levels import (
    _level_comparisons,
    _relevant_positions,
    recall_level_correlation,
    recall_level_needed,
    recall_level_regression,
    recall_level_ties,
    suffix_agreement,
    tie_given_p1,
)
from irpref.meta.subsampling import subsample

__all__ = [
    "AGGREGATES",
    "_level_comparisons",
    "_relevant_positions",
    "Pairwise",
    "agreement",
    "check_measures",
    "conditional_agreement",
    "degrade",
    "degraded_grades",
    "degraded_subtopics",
    "pairwise",
    "power_percent",
    "recall_level_correlation",
    "recall_level_needed",
    "recall_level_regression",
    "recall_level_ties",
    "stats_pairwise",
    "subsample",
    "suffix_agreement",
    "tie_given_p1",
    "tie_rates",
]
