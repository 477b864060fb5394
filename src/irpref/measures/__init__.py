"""Measure families; importing this package registers them all.

Each family is one record (:class:`~irpref.measures.base.Family`) declared
where its kernel is defined, in a family module (``rank.py``, ``ndcg.py``,
``trec.py``, ...) whose tie-aware kernels follow its kernels and whose bounds
rules lie beside it in ``<module>_bounds.py``; :mod:`irpref.measures.names`
resolves every spelling by reading the records.
"""

from irpref.measures import (
    diversity,  # noqa: F401  (alpha-nDCG, ERR-IA, MAP-IA, S-recall: subtopic qrels)
    err,  # noqa: F401  (ERR, Judged)
    ndcg,  # noqa: F401  (nDCG, NCG)
    q_measure,  # noqa: F401  (Q: NTCIR's Q-measure)
    rank,  # noqa: F401  (NumRet, P, R, F1, AP, RR, Success, Rprec, RBP, ...)
    recall_level,  # noqa: F401  (RL, TSE, SL1, SL3, RE)
    search_length,  # noqa: F401  (ASL)
    trec,  # noqa: F401  (the rest of trec_eval: Bpref, infAP, GMAP, ...)
    trec_gain,  # noqa: F401  (trec_eval's gain-based measures: DCG, G, gRBP, ...)
    trec_prefs,  # noqa: F401  (trec_eval's preference measures: PrefsSimp, PrefsAvgJG, ...)
)
from irpref.measures.base import REGISTRY, Family, Measure
from irpref.measures.names import parse_measure, parse_measures

__all__ = ["REGISTRY", "Family", "Measure", "parse_measure", "parse_measures"]
