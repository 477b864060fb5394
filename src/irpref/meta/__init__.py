"""Meta-evaluation: discriminative power, ties, degradation, orientation.

Experiments (loaded on first use): ``tie_probability``, ``rr_tie_given_p1``
(closed forms), ``random_rankings``, ``simulate_ties``, ``tie_table``,
``rr_tie_table`` (Monte Carlo beside the closed form),
``worst_case_agreement`` (lexirecall Table 2), ``tie_rates``, ``agreement``,
``conditional_agreement`` (lexirecall Fig. 8),
``degrade``, ``subsample``, ``suffix_agreement``, ``recall_level_ties``,
``recall_level_needed``, ``tie_given_p1``, ``recall_level_correlation``,
``recall_level_regression``, ``disaggregated_by_level``,
``disaggregated_ecdf``, ``offline_interleaving``, ``interleaving_agreement``,
``asl_reordering``, ``asl_effective_share`` (real runs), ``worst_case_optimal``
(lexirecall Fig. 14).
"""

from __future__ import annotations

import importlib

_LAZY = {
    "tie_probability": "closed_forms",
    "rr_tie_given_p1": "closed_forms",
    "random_rankings": "simulate",
    "simulate_ties": "simulate",
    "tie_table": "simulate",
    "rr_tie_table": "simulate",
    "worst_case_agreement": "simulate",
    "worst_case_optimal": "stochastic",
    "offline_interleaving": "interleaving",
    "interleaving_agreement": "interleaving",
    "disaggregated_by_level": "disaggregate",
    "disaggregated_ecdf": "disaggregate",
    "asl_reordering": "asl_reorder",
    "asl_effective_share": "asl_reorder",
    "tie_rates": "experiments",
    "agreement": "experiments",
    "conditional_agreement": "experiments",
    "degrade": "experiments",
    "subsample": "experiments",
    "suffix_agreement": "experiments",
    "recall_level_ties": "experiments",
    "recall_level_needed": "experiments",
    "tie_given_p1": "experiments",
    "recall_level_correlation": "experiments",
    "recall_level_regression": "experiments",
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(f"irpref.meta.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'irpref.meta' has no attribute {name!r}")
