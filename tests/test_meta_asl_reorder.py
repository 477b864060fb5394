"""ASL paper Table 2 (reordering MAP -> ASL) and MAP's effective share."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from helpers import irpref_cli
from scipy import stats

from irpref.asl import ablation, effective_fraction, search_lengths
from irpref.errors import UsageError
from irpref.meta.asl_reorder import (
    asl_effective_share,
    asl_reordering,
    asl_steps,
    better_counts,
)


def _toy(seed=0, n_runs=6, n_q=8, n_docs=30):
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(rng.random() < 0.3) for d in range(n_docs)}
             for q in range(n_q)}
    for q in qrels:
        qrels[q]["d0"] = 1
    runs = {f"run{r}": {f"q{q}": {f"d{d}": float(rng.random() + r * 0.2 * qrels[f"q{q}"][f"d{d}"])
                                  for d in rng.permutation(n_docs)[: int(rng.integers(5, n_docs))]}
                        for q in range(n_q) if (r, q) != (2, 3)}
            for r in range(n_runs)}
    return qrels, runs


def _brute_better(score, per_query, higher, margin=0.1, alpha=0.05):
    r = len(score)
    out = np.zeros(r, int)
    for s in range(r):
        for t in range(r):
            if s == t:
                continue
            gain = (score[t] - score[s]) if higher else (score[s] - score[t])
            x, y = per_query[t], per_query[s]
            ok = ~np.isnan(x) & ~np.isnan(y)
            d = x[ok] - y[ok]
            p = 1.0 if np.all(d == 0) else stats.ttest_rel(x[ok], y[ok]).pvalue
            out[s] += bool(gain >= margin * abs(score[s]) and p <= alpha)
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_steps_match_ablation_and_counts_brute_force(seed):
    qrels, runs = _toy(seed)
    t = search_lengths(qrels, runs)
    steps = asl_steps(t)
    ab = ablation(t).set_index("run").reindex(pd.unique(t["run"]))
    for name, (score, per, higher) in steps.items():
        assert np.allclose(score, ab[name].to_numpy()), name
        assert np.array_equal(better_counts(score, per, higher),
                              _brute_better(score, per, higher)), name


def test_reordering_rows_brute_force():
    qrels, runs = _toy(2)
    t = search_lengths(qrels, runs)
    got = asl_reordering(table=t)
    assert list(got.step) == ["atomize P", "harmonic within queries",
                              "harmonic across queries", "cumulative"]
    steps = asl_steps(t)
    ab = ablation(t).set_index("run").reindex(pd.unique(t["run"]))
    row = got.iloc[3]
    assert row.kendall_tau == pytest.approx(
        stats.kendalltau(ab["MAP"], -ab["ASL"]).statistic)
    assert row.delta_value == pytest.approx(np.mean((1 / ab["ASL"]) / ab["MAP"]))
    n0 = _brute_better(*steps["MAP"])
    n1 = _brute_better(*steps["ASL"])
    ds = 100 * np.abs(n0 - n1) / len(n0)
    assert row.delta_sort_max == pytest.approx(ds.max())
    assert row.delta_sort_mean == pytest.approx(ds.mean())
    first = got.iloc[0]
    assert first.kendall_tau == pytest.approx(
        stats.kendalltau(ab["MAP"], ab["atomize P"]).statistic)


def test_effective_share_per_run():
    qrels, runs = _toy(3)
    t = search_lengths(qrels, runs)
    s = asl_effective_share(table=t)
    for row in s.itertuples():
        sl = t[t.run == row.run].search_length.to_numpy(float)
        assert row.documents == len(sl)
        assert row.effective_share == effective_fraction(sl)


def test_bad_parameters():
    qrels, runs = _toy(0)
    with pytest.raises(UsageError, match="alpha"):
        asl_reordering(qrels, runs, alpha=0)
    with pytest.raises(UsageError, match="margin"):
        asl_reordering(qrels, runs, margin=-1)


@pytest.mark.slow
def test_cli_asl_reorder(data_dir):
    d = data_dir / "dl19-passage"
    runs = [str(p) for p in sorted((d / "runs").glob("*.gz"))[:5]]
    r = irpref_cli("meta", "asl-reorder", str(d / "qrels.txt"), *runs,
                        "--rel", "2")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split("\t") == ["step", "from", "to", "kendall_tau", "delta_value",
                                    "delta_sort_max", "delta_sort_mean"]
    assert len(lines) == 5
    s = irpref_cli("meta", "asl-reorder", str(d / "qrels.txt"), *runs,
                        "--share")
    assert s.returncode == 0, s.stderr
    assert s.stdout.splitlines()[0] == "run\tdocuments\teffective_share"
    assert len(s.stdout.splitlines()) == 6
