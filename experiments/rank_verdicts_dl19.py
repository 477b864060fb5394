"""What the direction rule, the one-sided rank family and exact means change in
verdicts and ranks on a collection (default DL 2019
passage, grade >= 2, ``--corpus-size 8841823`` for ASL and SL1).

Per measure, over every pair of runs:

- ``wilcoxon``: pairs whose mean and signed ranks point apart, and of those the
  significant ones (no correction; Holm) whose verdict the direction rule
  turned (before: the mean's direction; now: W+ - W-);
- ``holm``: rejections of two-sided Holm over the R(R-1)/2 pairs (before) and
  of the one-sided step-down over the R(R-1) ordered pairs (now, paired t),
  and how many of the 2R interval bounds moved;
- ``sign``: runs whose mean rank lay outside their sign-test interval (the
  construction ``rank --test sign`` used, now refused);
- ``ties``: run pairs with equal exact means that np.mean's pairwise sums
  split, and runs whose rank changed;

and per preference (rrLP: t; sgnLP: the sign test), the intervals before (the
head-to-head tests, two-sided Holm) against now (paired t on the per-query win
rates the runs are ranked by, one-sided Holm): runs outside their interval
before, bounds moved.

Command: python experiments/rank_verdicts_dl19.py [--collection NAME] [--rel GRADE]
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
from _common import parse, parser

import irpref
from irpref.compare import compare_matrices
from irpref.stats import Pairwise, significance
from irpref.stats.directions import row_directions
from irpref.stats.rank_family import rank_bounds
from irpref.stats.ranks import leaderboard, point_ranks

METRICS = ["AP", "nDCG@10", "RR", "P@10", "ASL", "SL1"]
PREFERENCES = ["rrLP", "sgnLP"]
CORPUS = 8_841_823  # MS MARCO passages
ALPHA = 0.05


def main(argv: Sequence[str] | None = None) -> None:
    p = parser(__file__, __doc__, plot=False)
    args = parse(p, argv)
    for coll in args.collections:
        level = 2 if args.rel is None else args.rel
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results = irpref.evaluate(coll.qrels, coll.runs, METRICS, rel=level,
                                      corpus_size=CORPUS)
        print(f"{coll.name}: {len(coll.runs)} runs, grade >= {level}")
        rows = [measure_row(pw) for pw in irpref.stats.as_pairwise(results)]
        print(pd.DataFrame(rows).to_string(index=False))
        comparison = compare_matrices(coll.qrels, coll.runs, PREFERENCES, rel=level)
        prefs = [preference_row(Pairwise.from_comparison(comparison, m)) for m in PREFERENCES]
        print(pd.DataFrame(prefs).to_string(index=False))


def old_bounds(tests: pd.DataFrame, runs, direction: np.ndarray) -> tuple:
    """Bounds from two-sided p_adjusted < alpha and a given direction (before)."""
    index = {str(r): k for k, r in enumerate(runs)}
    a = tests["run_a"].astype(str).map(index).to_numpy()
    b = tests["run_b"].astype(str).map(index).to_numpy()
    sig = tests["p_adjusted"].to_numpy() < ALPHA
    better = np.zeros((len(runs), len(runs)), bool)
    better[a[sig & (direction > 0)], b[sig & (direction > 0)]] = True
    better[b[sig & (direction < 0)], a[sig & (direction < 0)]] = True
    return rank_bounds(better)


def mean_directions(tests: pd.DataFrame) -> np.ndarray:
    """The rule before: the sign of the oriented mean (wins - losses for sign)."""
    return row_directions(tests.assign(test=np.where(tests["test"] == "sign", "sign", "t")))


def measure_row(pw: Pairwise) -> dict:
    row = {"measure": pw.measure, "runs": pw.n_runs, "pairs": pw.n_runs * (pw.n_runs - 1) // 2}
    for correction in ("none", "holm"):
        w = significance(pw, "wilcoxon", correction=correction, ci="none", bootstrap=0)
        new, old = row_directions(w), mean_directions(w)
        sig = w["p_adjusted"].to_numpy() < ALPHA
        if correction == "none":
            row["wilcoxon apart"] = int((new * old < 0).sum())
        row[f"wilcoxon flipped ({correction})"] = int((sig & (new * old < 0)).sum())
    t = significance(pw, "t", correction="holm", ci="none", bootstrap=0)
    low0, high0 = old_bounds(t, pw.runs, row_directions(t))
    board = leaderboard(pw, "t", correction="holm").set_index("run").loc[list(pw.runs)]
    row["holm 2-sided rejects"] = int((t["p_adjusted"] < ALPHA).sum())
    row["holm 1-sided rejects"] = int((board["rank_low"] - 1).sum())
    row["bounds moved (of 2R)"] = int((board["rank_low"].to_numpy() != low0).sum()
                                      + (board["rank_high"].to_numpy() != high0).sum())
    s = significance(pw, "sign", correction="holm", ci="none", bootstrap=0)
    low, high = old_bounds(s, pw.runs, row_directions(s))
    with np.errstate(invalid="ignore"):
        old_rank = point_ranks(np.nanmean(pw.scores, 1), pw.sign)
    row["sign: runs outside"] = int(((old_rank < low) | (old_rank > high)).sum())
    s = significance(pw, "sign", correction="none", ci="none", bootstrap=0)
    low, high = old_bounds(s, pw.runs, row_directions(s))
    row["(none)"] = int(((old_rank < low) | (old_rank > high)).sum())
    means = np.nanmean(pw.scores, 1)
    new_means = board["mean"].to_numpy()
    ties_new = (new_means[:, None] == new_means[None, :]).sum() - pw.n_runs
    ties_old = (means[:, None] == means[None, :]).sum() - pw.n_runs
    row["tied pairs before/now"] = f"{ties_old // 2}/{ties_new // 2}"
    row["ranks changed"] = int((board["rank"].to_numpy() != point_ranks(means, pw.sign)).sum())
    return row


def preference_row(pw: Pairwise) -> dict:
    """Head-to-head intervals (before) against win-rate intervals (now)."""
    tests = significance(pw, "paired", correction="holm", ci="none", bootstrap=0)
    low0, high0 = old_bounds(tests, pw.runs, row_directions(tests))
    board = leaderboard(pw, "paired", correction="holm").set_index("run").loc[list(pw.runs)]
    rank = board["rank"].to_numpy()
    return {"preference": pw.measure, "test before": tests["test"].iloc[0],
            "runs outside before": int(((rank < low0) | (rank > high0)).sum()),
            "bounds moved (of 2R)": int((board["rank_low"].to_numpy() != low0).sum()
                                        + (board["rank_high"].to_numpy() != high0).sum()),
            "rejects before/now": f"{int((tests['p_adjusted'] < ALPHA).sum())}/"
                                  f"{int((board['rank_low'] - 1).sum())}"}


if __name__ == "__main__":
    main()
