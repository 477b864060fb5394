"""Discriminative power under label degradation and query subsampling."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import irpref_cli, write_trec

import irpref
from irpref.errors import UsageError
from irpref.evaluate import judge_inputs
from irpref.meta.degradation import degrade, degraded_grades
from irpref.meta.subsampling import subsample


def _toy(seed=0, n_runs=6, n_q=10, n_docs=20):
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(n_docs)}
             for q in range(n_q)}
    for q in qrels:
        qrels[q]["d0"] = 2
    runs = {}
    for r in range(n_runs):
        run = {}
        for q in range(n_q):
            if r == 0 and q == 1:
                continue  # run 0 lacks q1
            docs = rng.permutation(n_docs)[: int(rng.integers(3, n_docs))]
            # run r favours relevant items more as r grows: some pairs separate
            run[f"q{q}"] = {f"d{d}": float(rng.random() + r * 0.3 * (qrels[f"q{q}"][f"d{d}"] > 0))
                            for d in docs}
        runs[f"run{r}"] = run
    return qrels, runs


def _brute_power(judged, measure, alpha=0.05):
    """Percent significant via irpref.evaluate / compare + irpref.discriminative_power."""
    keep = set(judged.queries[judged.num_rel() > 0])
    if measure in ("sgnLP", "rrLP", "sgnLR", "RPP"):
        t = irpref.compare(None, None, [measure], judged=judged)
        # meta experiments compare two runs on a query only when both have it
        qi = {q: i for i, q in enumerate(judged.queries)}
        ri = {r: i for i, r in enumerate(judged.run_names)}
        has = [judged.present[ri[a], qi[q]] and judged.present[ri[b], qi[q]]
               for a, b, q in zip(t.run_a, t.run_b, t["query"])]
        t = t[t["query"].isin(keep) & np.array(has, dtype=bool)]
    else:
        t = irpref.evaluate(None, None, [measure], judged=judged)
        t = t[t["query"].isin(keep) & t["query"].notna()]
    dp = irpref.discriminative_power(t, alpha=alpha, test="paired")
    return float(dp["percent"].iloc[0])


@pytest.mark.parametrize("method", ["uniform", "frequency"])
def test_degrade_power_equals_significance_on_degraded_labels(method):
    qrels, runs = _toy(1)
    judged = judge_inputs(qrels, runs)
    t = degrade(qrels, runs, ["AP", "sgnLP", "RR"], fractions=[0.4], samples=1, seed=7,
                method=method, power=True)
    assert list(t.columns)[-2:] == ["discriminative_power", "discriminative_power_sd"]
    deg = degraded_grades(judged, 0.4, np.random.default_rng(7), method=method)
    got = dict(zip(t.measure, t.discriminative_power))
    for m in ("AP", "sgnLP", "RR"):
        assert got[m] == pytest.approx(_brute_power(deg, m)), m


def test_subsample_power_all_queries_equals_complete_power():
    qrels, runs = _toy(2)
    judged = judge_inputs(qrels, runs)
    nq = int((judged.num_rel() > 0).sum())
    t = subsample(qrels, runs, ["AP", "sgnLP"], sizes=[nq], samples=3, seed=0, power=True)
    for row in t.itertuples():
        assert row.discriminative_power == pytest.approx(_brute_power(judged, row.measure))
        assert row.discriminative_power_sd == 0.0
        assert row.kendall_tau == pytest.approx(1.0)


def test_power_seeded():
    qrels, runs = _toy(3, n_q=14)
    kw = dict(sizes=[3, 14], samples=6, seed=5, power=True)
    t1 = subsample(qrels, runs, ["AP"], **kw)
    assert t1.equals(subsample(qrels, runs, ["AP"], **kw))
    assert t1.discriminative_power.between(0, 100).all()
    d1 = degrade(qrels, runs, ["AP"], fractions=[0.5], samples=3, seed=2, power=True)
    assert d1.equals(degrade(qrels, runs, ["AP"], fractions=[0.5], samples=3, seed=2,
                             power=True))
    assert "discriminative_power" not in degrade(qrels, runs, ["AP"], fractions=[0.5],
                                                 samples=2).columns


def test_power_bad_parameters():
    qrels, runs = _toy(0)
    with pytest.raises(UsageError, match="alpha"):
        degrade(qrels, runs, ["AP"], power=True, alpha=1.5)
    with pytest.raises(UsageError, match="test"):
        subsample(qrels, runs, ["AP"], sizes=[2], power=True, test="hsdx")


@pytest.mark.slow
def test_cli_power_columns(tmp_path):
    qrels, runs = _toy(4)
    qpath, paths = write_trec(tmp_path, qrels, runs)

    r = irpref_cli("meta", "degrade", qpath, *paths, "-m", "AP", "sgnLP", "--fractions", "0.3",
            "--samples", "2", "--power")
    assert r.returncode == 0, r.stderr
    head = r.stdout.splitlines()[0].split("\t")
    assert head[-3:] == ["discriminative_power", "discriminative_power_sd", "seed"]
    s = irpref_cli("meta", "subsample", qpath, *paths, "-m", "AP", "--sizes", "4", "--samples", "2",
            "--power", "--test", "wilcoxon", "--alpha", "0.1")
    assert s.returncode == 0, s.stderr
    assert s.stdout.splitlines()[0].endswith("discriminative_power\tdiscriminative_power_sd\tseed")
    bad = irpref_cli("meta", "degrade", qpath, *paths, "-m", "AP", "--power", "--alpha", "2")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


@pytest.mark.slow
def test_lexirecall_fig11_anchors_on_dl19():
    """Lexirecall Fig. 11 (experiments/lexirecall_fig11.py) prints no numbers;
    its computation (meta pairwise -> paired test with Holm / randomized HSD)
    must give the numbers the other papers print for the same data and test:
    DL 2019 passage at grade >= 1, HSD (10,000 permutations, seed 0): RR 6.76
    and nDCG 26.73 (RPP Table 3, deep-pass 2019); at grade >= 2, paired t
    with Holm: RR 10.36 (lexiprecision Table 3)."""
    from pathlib import Path

    from irpref.meta.discriminative import discriminative_power
    from irpref.meta.pairwise import pairwise, power_percent, stats_pairwise

    d = Path(__file__).parent / "data" / "dl19-passage"
    runs = sorted((d / "runs").glob("*.gz"))
    judged = judge_inputs(d / "qrels.txt", runs, rel=1)
    pw = pairwise(judged, ["sgnLR", "RR", "nDCG"])
    hsd = discriminative_power([stats_pairwise(pw, n) for n in pw.names], test="hsd",
                               permutations=10_000, seed=0).set_index("measure")["percent"]
    assert round(hsd["RR"], 2) == 6.76
    assert round(hsd["nDCG"], 2) == 26.73
    assert hsd["sgnLR"] > 30  # far above RR: the figure's lexirecall bar
    paired = dict(zip(pw.names, power_percent(pw)))
    assert paired["sgnLR"] > paired["RR"]
    rr2 = power_percent(pairwise(judge_inputs(d / "qrels.txt", runs, rel=2), ["RR"]))[0]
    assert round(rr2, 2) == 10.36
