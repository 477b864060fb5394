"""Locality of δRR_i (lexiprecision Fig. 7): Pearson matrix and regressions."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import irpref_cli
from scipy import stats

from irpref.errors import UsageError
from irpref.evaluate import judge_inputs
from irpref.meta.recall_levels import (
    _relevant_positions,
    recall_level_correlation,
    recall_level_regression,
)


def _toy(seed=0, n_runs=6, n_q=12, n_docs=30):
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(rng.random() < 0.35) for d in range(n_docs)}
             for q in range(n_q)}
    runs = {}
    for r in range(n_runs):
        runs[f"run{r}"] = {
            f"q{q}": {f"d{d}": float(s) for d, s in
                      zip(range(n_docs), rng.permutation(n_docs)) if r != 0 or q != 2}
            for q in range(n_q)}
    runs["run0"].pop("q2")
    return qrels, runs


def _brute(judged, levels):
    """Python loops: (run pair, query) -> list of δRR_i, and m."""
    qidx = np.flatnonzero(judged.num_rel() > 0)
    pos = _relevant_positions(judged, qidx)
    m = judged.num_rel()[qidx]
    out = []
    for a in range(judged.n_runs):
        for b in range(a + 1, judged.n_runs):
            for qi, q in enumerate(qidx):
                if not (judged.present[a, q] and judged.present[b, q]):
                    continue
                d = []
                for i in range(levels):
                    pa = pos[a, qi, i] if i < pos.shape[2] else np.inf
                    pb = pos[b, qi, i] if i < pos.shape[2] else np.inf
                    d.append(1 / pa - 1 / pb)
                out.append((d, m[qi]))
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_correlation_equals_brute_force(seed):
    qrels, runs = _toy(seed)
    judged = judge_inputs(qrels, runs)
    t = recall_level_correlation(judged=judged, levels=5)
    assert len(t) == 25
    rows = _brute(judged, 5)
    for row in t.itertuples():
        i, j = row.level_i - 1, row.level_j - 1
        sel = [d for d, m in rows if m > max(i, j)]
        assert row.comparisons == len(sel)
        x = [d[i] for d in sel]
        y = [d[j] for d in sel]
        assert row.pearson == pytest.approx(stats.pearsonr(x, y).statistic)
    diag = t[t.level_i == t.level_j].pearson
    assert np.allclose(diag, 1.0)


def test_regression_equals_brute_force():
    qrels, runs = _toy(3, n_q=20)
    judged = judge_inputs(qrels, runs)
    rows = _brute(judged, 6)
    one = recall_level_regression(judged=judged, targets=[2], predictors=1)
    sel = [d for d, m in rows if m >= 3]
    fit = stats.linregress([d[2] for d in sel], [d[1] for d in sel])
    assert one.coefficient.iloc[0] == pytest.approx(fit.slope)
    assert one.r2.iloc[0] == pytest.approx(fit.rvalue ** 2)
    assert one.comparisons.iloc[0] == len(sel)
    two = recall_level_regression(judged=judged, targets=[1, 2], predictors=3)
    assert list(two.predictor) == [2, 3, 4, 3, 4, 5]
    for t in (1, 2):
        sel = [d for d, m in rows if m >= t + 3]
        y = np.array([d[t - 1] for d in sel])
        x = np.array([[1.0, *d[t:t + 3]] for d in sel])
        beta = np.linalg.solve(x.T @ x, x.T @ y)
        got = two[two.target == t]
        assert np.allclose(got.coefficient, beta[1:])
        res = y - x @ beta
        assert got.r2.iloc[0] == pytest.approx(1 - res @ res / ((y - y.mean()) ** 2).sum())


def test_locality_bad_parameters():
    qrels, runs = _toy(0)
    with pytest.raises(UsageError, match="levels"):
        recall_level_correlation(qrels, runs, levels=1)
    with pytest.raises(UsageError, match="targets"):
        recall_level_regression(qrels, runs, targets=[0])
    with pytest.raises(UsageError, match="predictors"):
        recall_level_regression(qrels, runs, predictors=0)


@pytest.mark.slow
def test_cli_locality(data_dir):
    d = data_dir / "dl19-passage"
    runs = sorted((d / "runs").glob("*.gz"))[:6]
    r = irpref_cli("meta", "locality", str(d / "qrels.txt"), *map(str, runs),
                        "--rel", "2", "--levels", "3")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "level_i\tlevel_j\tcomparisons\tpearson" and len(lines) == 10
    g = irpref_cli("meta", "locality", str(d / "qrels.txt"), *map(str, runs),
                        "--regression", "--predictors", "2")
    assert g.returncode == 0, g.stderr
    assert g.stdout.splitlines()[0] == "target\tpredictor\tcoefficient\tr2\tcomparisons"
    assert len(g.stdout.splitlines()) == 9
