"""irpref: exact, fast offline evaluation of rankings.

Tie-aware measures, atomized search length, lexicographic and recall-paired
preferences, trec_eval-exact classical measures, significance testing.

Every public name is imported on first use (PEP 562 ``__getattr__``), so
``import irpref`` costs nothing until a name is used, and the ``irpref``
command loads only what its subcommand needs (pandas, SciPy, pyarrow and
matplotlib only where used).
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING

__version__ = "0.1.0"

# public name -> the module that defines it
_SOURCES: dict[str, str] = {
    "agree": "irpref.llm_judged.agreement",
    "search_lengths": "irpref.asl",
    "compare": "irpref.compare",
    "mean_preferences": "irpref.compare",
    "preference_matrix": "irpref.compare",
    "evaluate": "irpref.evaluate",
    "judge_inputs": "irpref.evaluate",
    "summarize": "irpref.evaluate",
    "leaderboard": "irpref.inference",
    "significance": "irpref.inference",
    "Collection": "irpref.judging.interning",
    "intern": "irpref.judging.interning",
    "calc_aggregate": "irpref.interop.ir_measures",
    "iter_calc": "irpref.interop.ir_measures",
    "Qrels": "irpref.io",
    "Run": "irpref.io",
    "TrecFormatError": "irpref.io",
    "read_qrels": "irpref.io",
    "read_run": "irpref.io",
    "JudgedRankings": "irpref.judging.judged",
    "REGISTRY": "irpref.measures",
    "Measure": "irpref.measures",
    "parse_measure": "irpref.measures",
    "parse_measures": "irpref.measures",
    "RecallLevelMetric": "irpref.measures.recall_metrics",
    "discriminative_power": "irpref.meta.discriminative",
    "orientation": "irpref.meta.orientation",
    "worst_provider": "irpref.meta.robustness",
    "worst_user": "irpref.meta.robustness",
    "Settings": "irpref.params",
    "judge": "irpref.judging.ranking",
    "Pairwise": "irpref.stats",
    "adjust_pvalues": "irpref.stats",
    "tukey_hsd": "irpref.stats",
    "design": "irpref.topic_sets",
}

__all__ = [
    "REGISTRY",
    "Collection",
    "JudgedRankings",
    "Measure",
    "Pairwise",
    "Qrels",
    "RecallLevelMetric",
    "Run",
    "Settings",
    "TrecFormatError",
    "adjust_pvalues",
    "agree",
    "calc_aggregate",
    "compare",
    "design",
    "discriminative_power",
    "evaluate",
    "intern",
    "iter_calc",
    "judge",
    "judge_inputs",
    "mean_preferences",
    "orientation",
    "parse_measure",
    "parse_measures",
    "preference_matrix",
    "read_qrels",
    "read_run",
    "search_lengths",
    "leaderboard",
    "significance",
    "summarize",
    "tukey_hsd",
    "worst_provider",
    "worst_user",
]


def __getattr__(name: str):
    """The public name ``name``, imported from its module on first use (and kept)."""
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module 'irpref' has no attribute {name!r}")
    if source == "irpref.io":  # reading qrels named irds:... needs its reader registered
        importlib.import_module("irpref.interop.ir_datasets")
    value = getattr(importlib.import_module(source), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Package(types.ModuleType):
    """The package module: a public name that is also a submodule's name (``evaluate``,
    ``compare``) stays the function when that submodule is imported (the import system
    sets the submodule as the package's attribute), as when every name was imported
    eagerly."""

    def __setattr__(self, name: str, value) -> None:
        if (isinstance(value, types.ModuleType) and _SOURCES.get(name) == value.__name__
                and hasattr(value, name)):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


if TYPE_CHECKING:  # the names for type checkers and IDEs; at run time __getattr__ loads them
    from irpref.asl import search_lengths
    from irpref.compare import compare, mean_preferences, preference_matrix
    from irpref.evaluate import evaluate, judge_inputs, summarize
    from irpref.inference import leaderboard, significance
    from irpref.interop.ir_measures import calc_aggregate, iter_calc
    from irpref.io import Qrels, Run, TrecFormatError, read_qrels, read_run
    from irpref.judging.interning import Collection, intern
    from irpref.judging.judged import JudgedRankings
    from irpref.judging.ranking import judge
    from irpref.llm_judged.agreement import agree
    from irpref.measures import REGISTRY, Measure, parse_measure, parse_measures
    from irpref.measures.recall_metrics import RecallLevelMetric
    from irpref.meta.discriminative import discriminative_power
    from irpref.meta.orientation import orientation
    from irpref.meta.robustness import worst_provider, worst_user
    from irpref.params import Settings
    from irpref.stats import Pairwise, adjust_pvalues, tukey_hsd
    from irpref.topic_sets import design
