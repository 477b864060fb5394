"""A client of irpref's public API, type-checked by mypy --strict (tests/test_typing.py).

It uses every name of ``irpref.__all__`` as a user would, with the types a
user would write; mypy reads irpref's annotations through its ``py.typed``
marker. It is checked, not run (tests/test_docstrings.py runs the examples).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

import irpref
from irpref import examples

qrels_path: Path = examples.qrels_path()
run_paths: list[Path] = examples.run_paths()
qrels_dict = {"q1": {"d1": 1, "d2": 0}}
runs_dict = {"bm25": {"q1": {"d1": 2.0, "d2": 1.0}}, "dense": {"q1": {"d2": 2.0}}}

settings: irpref.Settings = irpref.Settings(rel=2, depth=100, ties="docid", missing="zero")
settings = settings.replace(rel=1)
measure: irpref.Measure = irpref.parse_measure("ndcg_cut.10")
measures: list[irpref.Measure] = irpref.parse_measures("AP nDCG@10")
family_names: list[str] = sorted(irpref.REGISTRY)

results: pd.DataFrame = irpref.evaluate(qrels_path, run_paths, ["AP", measure], rel=2)
results = irpref.evaluate(qrels_dict, runs_dict, measures, settings=settings, bounds=True)
means: pd.DataFrame = irpref.summarize(results, wide=True, counts=False)
prefs: pd.DataFrame = irpref.compare(qrels_dict, runs_dict, ["sgnLP", "RPP"], rel=1)
pref_means: pd.DataFrame = irpref.mean_preferences(prefs)
matrix: pd.DataFrame = irpref.preference_matrix(prefs, "sgnLP")
tests: pd.DataFrame = irpref.significance(results, "paired", correction="holm")
tests = irpref.significance(qrels=qrels_path, runs=run_paths, measures=["AP"], rel=2)
board: pd.DataFrame = irpref.leaderboard(results, "paired")
power: pd.DataFrame = irpref.discriminative_power(tests, alpha=0.05)
adjusted: np.ndarray = irpref.adjust_pvalues([0.01, 0.02, np.nan], "bh")
pairwise: irpref.Pairwise = irpref.Pairwise.from_metric(results, "AP")
hsd_p, observed = irpref.tukey_hsd(pairwise, permutations=100, seed=0)
sizes: pd.DataFrame = irpref.design(min_diff=0.2, standardized=True)
agreement = irpref.agree(qrels_dict, qrels_dict)
label_stats: pd.DataFrame = agreement.statistics
lengths: pd.DataFrame = irpref.search_lengths(qrels_dict, runs_dict)
orient: pd.DataFrame = irpref.orientation("AP", [1, 5], 1000.0)
metric: irpref.RecallLevelMetric = irpref.RecallLevelMetric("ap", "ap", gamma=0.8)
user_utility: float
user_subset: np.ndarray
user_utility, user_subset = irpref.worst_user(metric, [1, 3, 10], 100.0)
provider_exposure, provider_subset = irpref.worst_provider(metric, [1, 3, 10])

qrels: irpref.Qrels = irpref.read_qrels(qrels_path)
run: irpref.Run = irpref.read_run(run_paths[0], name="first", check_duplicates=True)
collection: irpref.Collection = irpref.intern(qrels, [run])
judged: irpref.JudgedRankings = irpref.judge(collection, rel=2)
judged = irpref.judge_inputs(qrels_path, run_paths, settings=settings, layout="compact")
again: pd.DataFrame = irpref.evaluate(None, None, ["AP"], judged=judged)
aggregate: dict[object, float] = irpref.calc_aggregate(["AP"], qrels_dict, runs_dict["bm25"])
per_query = list(irpref.iter_calc(["AP"], qrels_dict, runs_dict["bm25"]))

try:
    irpref.read_run("missing.txt")
except irpref.TrecFormatError as err:
    where: str = err.path
