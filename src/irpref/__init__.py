"""irpref: exact, fast offline evaluation of rankings.

Tie-aware measures, atomized search length, lexicographic and recall-paired
preferences, trec_eval-exact classical measures, significance testing.
"""

from irpref.evaluate import evaluate, judge_inputs, summarize
from irpref.io import Qrels, Run, TrecFormatError, read_qrels, read_run
from irpref.judged import Collection, JudgedRankings, intern, judge
from irpref.measures import REGISTRY, Measure, parse_measure, parse_measures
from irpref.meta.discriminative import discriminative_power
from irpref.stats import Pairwise, adjust_pvalues, significance, tukey_hsd

__version__ = "0.1.0"

__all__ = [
    "REGISTRY",
    "Collection",
    "JudgedRankings",
    "Measure",
    "Pairwise",
    "Qrels",
    "Run",
    "TrecFormatError",
    "adjust_pvalues",
    "discriminative_power",
    "evaluate",
    "intern",
    "judge",
    "judge_inputs",
    "parse_measure",
    "parse_measures",
    "read_qrels",
    "read_run",
    "significance",
    "summarize",
    "tukey_hsd",
]
