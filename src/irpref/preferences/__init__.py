"""Preference-based evaluation: lexiprecision, lexirecall, recall-paired preference.

A preference compares two rankings of one query directly, without a metric
per ranking (Diaz & Ferraro 2022; Diaz 2023; Diaz & Mitra 2023). The
families (``PREFERENCES``, each with its ``kind``: ``sign`` or ``real``):

========  ======  ===============================================================
sgnLP     sign    lexiprecision, Diaz 2023 Eq. 3
rrLP      real    lexiprecision with reciprocal-rank magnitude, Diaz 2023 Eq. 2
sgnLR     sign    lexirecall, Diaz & Mitra 2023 Eq. 11
RPP       real    recall-paired preference, Diaz & Ferraro 2022 Eq. 4-5
                  (``p=uniform|dcg|inverse``, ``grades=graded|binary``)
ST-RPP    real    subtopic RPP, Diaz & Ferraro 2022 Eq. 6
========  ======  ===============================================================

:func:`preference_matrices` builds a :class:`Comparison`, which computes the values
of any block of run pairs (every (query, run, run) value, block by block);
:func:`irpref.compare` wraps it into a tidy table.
"""

from irpref.preferences.comparison import Comparison, PairedComparison
from irpref.preferences.lexicographic import (
    lexiprecision_key,
    lexirecall_key,
    rr_lp,
    sgn_lp,
    sgn_lr,
)
from irpref.preferences.pairs import Populations, preference_matrices
from irpref.preferences.registry import (
    DEFAULT_PREFERENCES,
    PREFERENCES,
    Preference,
    PrefFamily,
    parse_preference,
    parse_preferences,
    preference_kind,
)
from irpref.preferences.rpp import level_weights, rpp, rpp_mixture

__all__ = [
    "DEFAULT_PREFERENCES",
    "PREFERENCES",
    "Comparison",
    "PairedComparison",
    "PrefFamily",
    "Preference",
    "Populations",
    "level_weights",
    "lexiprecision_key",
    "lexirecall_key",
    "parse_preference",
    "parse_preferences",
    "preference_kind",
    "preference_matrices",
    "rpp",
    "rpp_mixture",
    "rr_lp",
    "sgn_lp",
    "sgn_lr",
]
