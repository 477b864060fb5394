"""Coverage of prediction-powered intervals, by simulation on TREC DL 2019 passage.

The NIST grades are the truth; machine labels are drawn per (query, passage) from
the confusion matrix of an LLM judge against NIST (h2oloo-fewself on the LLMJudge
sample, :data:`ppi_collections.CONFUSION`), then fixed; human labels are revealed on
a uniform random subset of n queries (n = 10 ... 40 of 43). Each interval is
checked against the mean over all 43 queries under the NIST labels (the
full-human mean). Measures AP, nDCG@10, RR, P@10 at grade >= 2; seeded.

``python -m pytest tests/test_ppi_coverage.py -m slow -s`` prints the table the
README quotes (37 runs, 5 machine-label draws, 400 subsets per n).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from ppi_collections import DL19, machine_grades, read_qrels

import irpref
from irpref.stats.intervals import t_interval
from irpref.stats.ppi import ppi_mean

MEASURES = ["AP", "nDCG@10", "RR", "P@10"]
METHODS = ("PPI++", "PPI", "human z", "human t")


def _values(qrels: pd.DataFrame, runs, queries) -> pd.DataFrame:
    """(measure, run) x query values at grade >= 2."""
    frame = qrels.rename(columns={"query": "query_id", "doc": "doc_id", "grade": "relevance"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = irpref.evaluate(frame, [str(r) for r in runs], MEASURES, rel=2)
    wide = table.pivot_table(index=["measure", "run"], columns="query", values="value",
                             sort=False)
    return wide.reindex(columns=queries)


def simulate(runs, sizes, draws: int, trials: int, seed: int) -> pd.DataFrame:
    """One row per (draw, n, measure, run, method): coverage and mean width over trials."""
    truth = read_qrels(DL19 / "qrels.txt")
    queries = sorted(truth["query"].unique())
    human = _values(truth, runs, queries)
    y_all = human.to_numpy(np.float64)
    target = y_all.mean(axis=1)  # the full-human mean of every (measure, run)
    rng = np.random.default_rng(seed)
    rows = []
    for draw in range(draws):
        machine = truth.assign(grade=machine_grades(truth["grade"].to_numpy(), seed + draw))
        f_all = _values(machine, runs, queries).reindex(human.index).to_numpy(np.float64)
        for n in sizes:
            mask = np.zeros((trials, len(queries)), bool)
            for t in range(trials):
                mask[t, rng.choice(len(queries), n, replace=False)] = True
            lab = mask[:, None, :]
            y = np.where(lab, y_all, np.nan).reshape(-1, len(queries))
            f = np.where(lab, f_all, np.nan).reshape(-1, len(queries))
            fu = np.where(lab, np.nan, f_all).reshape(-1, len(queries))
            goal = np.tile(target, trials)
            found = {"PPI++": ppi_mean(y, f, fu), "PPI": ppi_mean(y, f, fu, lam=1),
                     "human z": ppi_mean(y, f, fu, lam=0)}
            intervals = {k: (v.low, v.high) for k, v in found.items()}
            intervals["human t"] = t_interval(y)[:2]
            for method, (low, high) in intervals.items():
                cover = ((low <= goal) & (goal <= high)).reshape(trials, -1).mean(axis=0)
                width = (high - low).reshape(trials, -1).mean(axis=0)
                rows.append(pd.DataFrame({
                    "draw": draw, "n": n, "measure": human.index.get_level_values(0),
                    "run": human.index.get_level_values(1), "method": method,
                    "coverage": cover, "width": width}))
    return pd.concat(rows, ignore_index=True)


def check(sim: pd.DataFrame, floor: float) -> None:
    """The acceptance: over subsets of 10-40 queries the 95% intervals cover the
    full-human mean at least 93% of the time (PPI++, the default), no size below
    ``floor``, and PPI++'s interval is on average never wider than the human-only
    one (t interval: per run, measure and size; normal interval, and classical PPI's:
    per size)."""
    by_n = sim.groupby(["method", "n"])["coverage"].mean().unstack()
    pooled = sim.groupby("method")["coverage"].mean()
    assert pooled["PPI++"] >= 0.93, pooled
    assert (by_n.loc["PPI++"] >= floor).all(), by_n
    width = sim.groupby(["method", "n", "measure", "run"])["width"].mean().unstack("method")
    assert (width["PPI++"] <= width["human t"]).all()
    per_n = sim.groupby(["method", "n"])["width"].mean().unstack("method")
    assert (per_n["PPI++"] <= per_n["human z"]).all() and (per_n["PPI++"] <= per_n["PPI"]).all()


def table(sim: pd.DataFrame) -> pd.DataFrame:
    cover = sim.groupby(["n", "method"])["coverage"].mean().unstack()[list(METHODS)]
    width = sim.groupby(["n", "method"])["width"].mean().unstack()[list(METHODS)]
    cover.columns = [f"{c} coverage" for c in cover.columns]
    width.columns = [f"{c} width" for c in width.columns]
    return cover.join(width)


def test_coverage_small():
    runs = sorted((DL19 / "runs").glob("*.gz"))[:6]
    sim = simulate(runs, (10, 25, 40), draws=1, trials=150, seed=7)
    check(sim, floor=0.88)


@pytest.mark.slow
def test_coverage_dl19():
    runs = sorted((DL19 / "runs").glob("*.gz"))
    sim = simulate(runs, (10, 15, 20, 25, 30, 35, 40), draws=5, trials=400, seed=2024)
    with pd.option_context("display.width", 250, "display.max_columns", 20,
                           "display.precision", 3):
        print("\n", table(sim))
        print("pooled coverage", sim.groupby("method")["coverage"].mean().round(4).to_dict())
        print("RR at n=10", sim[(sim.n == 10) & (sim.measure == "RR")].groupby(
            "method")["coverage"].mean().round(3).to_dict())
    check(sim, floor=0.90)
