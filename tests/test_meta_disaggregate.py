"""RPP section 2 / Fig. 2, 4a: disaggregated differences Delta mu_i."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import irpref_cli

import irpref
from irpref.errors import UsageError
from irpref.evaluate import judge_inputs
from irpref.meta.disaggregate import (
    disaggregated_by_level,
    disaggregated_ecdf,
    level_differences,
)


def _toy(seed=0, n_runs=5, n_q=8, n_docs=25):
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(rng.random() < 0.3) for d in range(n_docs)}
             for q in range(n_q)}
    qrels["q0"]["d0"] = 1
    runs = {f"run{r}": {f"q{q}": {f"d{d}": float(s) for d, s in
                                  zip(rng.permutation(n_docs)[: int(rng.integers(3, n_docs))],
                                      range(n_docs, 0, -1))}
                        for q in range(n_q) if (r, q) != (0, 3)}
            for r in range(n_runs)}
    return qrels, runs


@pytest.mark.parametrize("discount,measure", [("AP", "AP"), ("nDCG", "nDCG"), ("RR", "RR"),
                                              ("RBP(p=0.5)", "RBP(p=0.5)")])
@pytest.mark.parametrize("seed", [0, 1])
def test_levels_sum_to_the_metric_difference(discount, measure, seed):
    """sum_i Delta mu_i = mu(a) - mu(b) (RPP Eq. 1) on binary qrels."""
    qrels, runs = _toy(seed)
    judged = judge_inputs(qrels, runs)
    d, use = level_differences(judged, discount)
    total = np.where(use, d, 0.0).sum(axis=2)  # (P, Q)
    ev = irpref.evaluate(None, None, [measure], judged=judged)
    qidx = np.flatnonzero(judged.num_rel() > 0)
    val = {(r.run, r.query): r.value for r in ev.itertuples()}
    a, b = np.triu_indices(judged.n_runs, 1)
    names = judged.run_names
    for p in range(len(a)):
        for j, q in enumerate(judged.queries[qidx]):
            ka, kb = (names[a[p]], q), (names[b[p]], q)
            if ka in val and kb in val:
                assert use[p, j].any()
                assert total[p, j] == pytest.approx(val[ka] - val[kb], abs=1e-12)
            else:
                assert not use[p, j].any()


def test_by_level_and_ecdf_against_brute_force():
    qrels, runs = _toy(5)
    judged = judge_inputs(qrels, runs)
    d, use = level_differences(judged, "sgn")
    t = disaggregated_by_level(judged=judged, discounts=["sgn", "DCG"], levels=4)
    assert list(t.columns) == ["discount", "level", "comparisons", "mean_abs",
                               "percent_nonzero"]
    s = t[t.discount == "sgn"]
    for i in range(4):
        x = d[:, :, i][use[:, :, i]]
        row = s[s.level == i + 1].iloc[0]
        assert row.comparisons == x.size
        assert row.mean_abs == pytest.approx(np.abs(x).mean())
        assert row.percent_nonzero == pytest.approx(100 * np.mean(x != 0))
    e = disaggregated_ecdf(judged=judged, discounts=["DCG"], points=11)
    dd, uu = level_differences(judged, "DCG")
    x = np.sort(dd[uu])
    for row in e.itertuples():
        # the smallest value whose ECDF reaches the fraction
        assert np.mean(x <= row.value) >= row.fraction - 1e-12
        below = x[x < row.value]
        assert below.size == 0 or np.mean(x <= below.max()) < row.fraction
    assert e.percent_zero.iloc[0] == pytest.approx(100 * np.mean(x == 0))


def test_sgn_matches_positions():
    qrels, runs = _toy(2)
    judged = judge_inputs(qrels, runs)
    d, use = level_differences(judged, "sgn")
    dr, _ = level_differences(judged, "DCG")
    assert np.array_equal(np.sign(dr)[use], d[use])


def test_bad_parameters():
    qrels, runs = _toy(0)
    with pytest.raises(UsageError, match="discount"):
        disaggregated_by_level(qrels, runs, discounts=["ERR"])
    with pytest.raises(UsageError, match="p must be"):
        disaggregated_ecdf(qrels, runs, discounts=["RBP(p=2)"])
    with pytest.raises(UsageError, match="levels"):
        disaggregated_by_level(qrels, runs, levels=0)


@pytest.mark.slow
def test_cli_disaggregate(data_dir):
    d = data_dir / "dl19-passage"
    runs = [str(p) for p in sorted((d / "runs").glob("*.gz"))[:4]]
    r = irpref_cli("meta", "disaggregate", str(d / "qrels.txt"), *runs,
                        "--levels", "3", "--discounts", "sgn", "AP")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "discount\tlevel\tcomparisons\tmean_abs\tpercent_nonzero"
    assert len(lines) == 7
    e = irpref_cli("meta", "disaggregate", str(d / "qrels.txt"), *runs,
                        "--ecdf", "--points", "3", "--discounts", "nDCG")
    assert e.returncode == 0, e.stderr
    assert len(e.stdout.splitlines()) == 4
    bad = irpref_cli("meta", "disaggregate", str(d / "qrels.txt"), *runs,
                          "--discounts", "ERR")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
