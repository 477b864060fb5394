"""Measure families; importing this package registers them all."""

from irpref.measures import classic  # noqa: F401  (registers its families)
from irpref.measures import tie_aware  # noqa: F401  (tie-aware kernels, F1)
from irpref.measures.base import REGISTRY, Family, Measure, parse_measure, parse_measures

__all__ = ["REGISTRY", "Family", "Measure", "parse_measure", "parse_measures"]
