"""Measure families; importing this package registers them all.

Each family is one record (:class:`~irpref.measures.base.Family`) declared
where its kernel is defined; :mod:`irpref.measures.names` resolves every
spelling by reading the records.
"""

from irpref.measures import (
    classic,  # noqa: F401  (registers its families)
    diversity,  # noqa: F401  (alpha-nDCG, ERR-IA, MAP-IA, S-recall: subtopic qrels)
    err,  # noqa: F401  (ERR, Judged)
    recall_level,  # noqa: F401  (RL, TSE, SL1, SL3, RE)
    search_length,  # noqa: F401  (ASL)
    tie_aware,  # noqa: F401  (tie-aware kernels, F1)
    trec_extra,  # noqa: F401  (the rest of trec_eval: Bpref, infAP, GMAP, ...)
    trec_gain,  # noqa: F401  (trec_eval's gain-based measures: DCG, G, gRBP, ...)
    trec_prefs,  # noqa: F401  (trec_eval's preference measures: PrefsSimp, PrefsAvgJG, ...)
)
from irpref.measures.base import REGISTRY, Family, Measure
from irpref.measures.names import parse_measure, parse_measures

__all__ = ["REGISTRY", "Family", "Measure", "parse_measure", "parse_measures"]
