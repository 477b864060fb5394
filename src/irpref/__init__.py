"""irpref: exact, fast offline evaluation of rankings.

Tie-aware measures, atomized search length, lexicographic and recall-paired
preferences, trec_eval-exact classical measures, significance testing.
"""

from irpref.agreement import agree
from irpref.asl import search_lengths
from irpref.compare import compare, mean_preferences, preference_matrix
from irpref.evaluate import evaluate, judge_inputs, summarize
from irpref.inference import leaderboard, significance
from irpref.interning import Collection, intern
from irpref.interop import ir_datasets as _ir_datasets  # noqa: F401 - registers irds: qrels
from irpref.interop.ir_measures import calc_aggregate, iter_calc
from irpref.io import Qrels, Run, TrecFormatError, read_qrels, read_run
from irpref.judged import JudgedRankings
from irpref.measures import REGISTRY, Measure, parse_measure, parse_measures
from irpref.measures.recall_metrics import RecallLevelMetric
from irpref.meta.discriminative import discriminative_power
from irpref.meta.orientation import orientation
from irpref.meta.robustness import worst_provider, worst_user
from irpref.params import Settings
from irpref.ranking import judge
from irpref.stats import Pairwise, adjust_pvalues, tukey_hsd
from irpref.topic_sets import design

__version__ = "0.1.0"

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
