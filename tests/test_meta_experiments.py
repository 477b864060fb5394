"""Meta-evaluation experiments on real runs: ties, agreement, label
degradation, query subsampling, suffix agreement (API and CLI)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from helpers import irpref_cli, write_trec

import irpref
from irpref.errors import UsageError
from irpref.evaluate import judge_inputs
from irpref.meta.comparisons import agreement, conditional_agreement, tie_rates
from irpref.meta.degradation import _relevant_index, degrade, degraded_grades
from irpref.meta.recall_levels import (
    recall_level_needed,
    recall_level_ties,
    suffix_agreement,
    tie_given_p1,
)
from irpref.meta.subsampling import subsample


def _toy(seed=0, n_runs=5, n_q=6, n_docs=12):
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(n_docs)}
             for q in range(n_q)}
    qrels["q0"]["d0"] = 2  # at least one query with a relevant item
    runs = {}
    for r in range(n_runs):
        run = {}
        for q in range(n_q):
            if r == 0 and q == 1:
                continue  # run 0 lacks q1
            depth = int(rng.integers(1, n_docs))
            docs = rng.permutation(n_docs)[:depth]
            run[f"q{q}"] = {f"d{d}": float(rng.integers(0, 4)) for d in docs}  # ties
        runs[f"run{r}"] = run
    return qrels, runs


def _brute_pairs(qrels, runs, measure, rel=1):
    """(run pair, query) differences from irpref.evaluate / irpref.compare tables."""
    judged = judge_inputs(qrels, runs, rel=rel)
    names = judged.run_names
    has_rel = set(judged.queries[judged.num_rel() > 0])
    present = {(r, q) for r in names for q in runs[r] if runs[r][q]}
    out = []
    if measure in ("sgnLP", "rrLP", "sgnLR"):
        table = irpref.compare(qrels, runs, [measure], rel=rel)
        for row in table.itertuples():
            if row.query in has_rel and (row.run_a, row.query) in present \
                    and (row.run_b, row.query) in present:
                out.append(row.value)
        return np.array(out)
    ev = irpref.evaluate(None, None, [measure], judged=judged)
    val = {(r.run, r.query): r.value for r in ev.itertuples()}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for q in sorted(has_rel):
                if (a, q) in present and (b, q) in present:
                    out.append(val[a, q] - val[b, q])
    return np.array(out)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tie_rates_equal_brute_force(seed):
    qrels, runs = _toy(seed)
    measures = ["RR", "AP", "sgnLP", "sgnLR", "nDCG@5"]
    got = tie_rates(qrels, runs, measures).set_index("measure")["percent_tied"]
    for m in measures:
        d = _brute_pairs(qrels, runs, m)
        assert got[m] == pytest.approx(100 * np.mean(np.abs(d) <= 1e-12)), m


def test_agreement_equals_brute_force():
    qrels, runs = _toy(4)
    table = agreement(qrels, runs, ["AP", "sgnLP", "RR"])
    assert list(table.columns) == ["measure_a", "measure_b", "sign_agreement", "pearson",
                                   "kendall_tau"]
    row = table[(table.measure_a == "AP") & (table.measure_b == "RR")].iloc[0]
    x, y = _brute_pairs(qrels, runs, "AP"), _brute_pairs(qrels, runs, "RR")
    assert row.sign_agreement == pytest.approx(np.mean(np.sign(x) == np.sign(y)))
    assert row.pearson == pytest.approx(np.corrcoef(x, y)[0, 1])
    means = irpref.summarize(irpref.evaluate(qrels, runs, ["AP", "RR"]))
    w = means.pivot(index="run", columns="measure", values="value")
    from scipy.stats import kendalltau
    assert row.kendall_tau == pytest.approx(kendalltau(w["AP"], w["RR"]).statistic)
    same = agreement(qrels, runs, ["AP", "RR", "AP(rel=1)"])
    assert same.iloc[1].sign_agreement == 1.0
    assert same.iloc[1].kendall_tau == pytest.approx(1.0)


@pytest.mark.slow
def test_dl19_lexiprecision_table2(data_dir):
    d = data_dir / "dl19-passage"
    runs = sorted((d / "runs").glob("*.gz"))
    t = tie_rates(d / "qrels.txt", runs, ["RR", "sgnLP", "rrLP"], rel=2)
    got = dict(zip(t.measure, t.percent_tied.round(2)))
    assert got == {"RR": 56.89, "sgnLP": 2.63, "rrLP": 2.63}


@pytest.mark.slow
def test_dl19_lexiprecision_table1_suffix_agreement(data_dir):
    """Table 1, deep-pass (2019): sgnLP 90.45, δRR_2 88.87 (at grade >= 1:
    Table 1 reproduces with every judged-positive grade relevant)."""
    d = data_dir / "dl19-passage"
    runs = sorted((d / "runs").glob("*.gz"))
    t = suffix_agreement(d / "qrels.txt", runs, rel=1)
    assert dict(zip(t.method, t.percent_agree.round(2))) == {"RR": 88.87, "sgnLP": 90.45}


@pytest.mark.parametrize("method", ["uniform", "frequency"])
@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.9])
def test_degraded_qrels_keep_unremoved_judgments(method, fraction):
    qrels, runs = _toy(5, n_q=8, n_docs=20)
    judged = judge_inputs(qrels, runs, rel=1)
    deg = degraded_grades(judged, fraction, np.random.default_rng(3), method=method)
    changed = deg.qrels_grade != judged.qrels_grade
    # only relevant judgments change, and they become non-relevant (0)
    assert np.all(judged.qrels_grade[changed] >= 1) and np.all(deg.qrels_grade[changed] == 0)
    m = np.bincount(judged.qrels_query[judged.qrels_grade >= 1], minlength=judged.n_queries)
    removed = np.bincount(judged.qrels_query[changed], minlength=judged.n_queries)
    want = np.minimum(np.floor(fraction * m + 0.5), np.maximum(m - 1, 0))
    assert np.array_equal(removed, want)
    # item grades agree with a fresh judging against the degraded qrels
    kept = {}
    docs = judged.doc_ids.strings.to_pylist()
    qdoc = [docs[c] for c in judged.doc_ids.codes(judged.qrels_doc_key)]
    for q, doc, g in zip(judged.queries[judged.qrels_query], qdoc, deg.qrels_grade):
        kept.setdefault(str(q), {})[doc] = int(g)
    fresh = judge_inputs(kept, runs, rel=1)
    assert np.array_equal(fresh.grade, deg.grade)
    assert np.array_equal(deg.doc_key, judged.doc_key)  # rankings shared


def test_frequency_removes_popular_items_first():
    qrels, runs = _toy(6, n_runs=8, n_q=6, n_docs=30)
    judged = judge_inputs(qrels, runs, rel=1)
    ix = _relevant_index(judged)
    rng = np.random.default_rng(0)
    gone_u = np.zeros(ix.rows.size)
    gone_f = np.zeros(ix.rows.size)
    for _ in range(200):
        for meth, acc in (("uniform", gone_u), ("frequency", gone_f)):
            deg = degraded_grades(judged, 0.3, rng, method=meth, index=ix)
            acc += deg.qrels_grade[ix.rows] == 0
    popular = ix.frequency >= np.median(ix.frequency)
    assert gone_f[popular].mean() > gone_u[popular].mean()
    never = ix.frequency == 0  # retrieved by no run: removed only when nothing else is left
    if never.any():
        assert gone_f[never].mean() < gone_u[never].mean()


def test_degrade_seeded_and_shaped():
    qrels, runs = _toy(7, n_q=8, n_docs=20)
    kw = dict(fractions=[0.2, 0.6], samples=3, seed=11)
    t1 = degrade(qrels, runs, ["RR", "sgnLP"], **kw)
    t2 = degrade(qrels, runs, ["RR", "sgnLP"], **kw)
    pd.testing.assert_frame_equal(t1, t2)
    assert list(t1.columns) == ["measure", "fraction", "percent_tied", "agreement",
                                "kendall_tau", "percent_tied_sd", "agreement_sd",
                                "kendall_tau_sd"]
    assert len(t1) == 4
    t3 = degrade(qrels, runs, ["RR", "sgnLP"], fractions=[0.2, 0.6], samples=3, seed=12)
    assert not t1.equals(t3)


def test_subsample_all_queries_is_tau_one():
    qrels, runs = _toy(8, n_q=6)
    t = subsample(qrels, runs, ["AP", "sgnLP"], sizes=[2, 6], samples=5, seed=1)
    full = t[t["size"] == 6]
    assert np.allclose(full.kendall_tau, 1.0) and np.allclose(full.kendall_tau_sd, 0.0)
    pd.testing.assert_frame_equal(
        t, subsample(qrels, runs, ["AP", "sgnLP"], sizes=[2, 6], samples=5, seed=1))


@pytest.mark.parametrize(
    ("func", "kwargs", "match"),
    [
        (degrade, {"fractions": [0.0]}, "fraction"),
        (degrade, {"fractions": [1.0]}, "fraction"),
        (degrade, {"samples": 0}, "samples"),
        (degrade, {"method": "popular"}, "method"),
        (subsample, {"sizes": [0]}, "size"),
        (subsample, {"sizes": [99]}, "exceeds"),
        (agreement, {"aggregate": "median"}, "aggregate"),
        (tie_rates, {"measures": ["NoSuch"]}, "unknown measure"),
    ],
)
def test_bad_parameters_are_usage_errors(func, kwargs, match):
    qrels, runs = _toy(9)
    kwargs.setdefault("measures", ["RR"])
    with pytest.raises(UsageError, match=match):
        func(qrels, runs, **kwargs)


# ------------------------------------------------------------------------ CLI


@pytest.mark.slow
def test_cli_ties_and_suffix_on_dl19(data_dir):
    d = data_dir / "dl19-passage"
    runs = sorted((d / "runs").glob("*.gz"))
    r = irpref_cli("meta", "ties", d / "qrels.txt", *runs, "-m", "RR", "sgnLP", "--rel", "2")
    assert r.returncode == 0, r.stderr
    lines = [ln.split("\t") for ln in r.stdout.splitlines()]
    assert lines[0] == ["measure", "percent_tied"]
    assert [(m, round(float(v), 2)) for m, v in lines[1:]] == [("RR", 56.89), ("sgnLP", 2.63)]
    j = irpref_cli("meta", "suffix-agreement", d / "qrels.txt", *runs, "--format", "json")
    assert j.returncode == 0, j.stderr
    assert "percent_agree" in j.stdout


@pytest.mark.slow
def test_cli_degrade_subsample_agreement(tmp_path):
    qrels, runs = _toy(10, n_q=8, n_docs=20)
    qpath, paths = write_trec(tmp_path, qrels, runs)
    r = irpref_cli("meta", "degrade", qpath, *paths, "-m", "RR", "AP", "--fractions", "0.3,0.6",
                   "--samples", "2", "--method", "frequency", "--seed", "4")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].split("\t") == [
        "measure", "fraction", "percent_tied", "agreement", "kendall_tau",
        "percent_tied_sd", "agreement_sd", "kendall_tau_sd", "seed"]
    assert len(r.stdout.splitlines()) == 5
    assert irpref_cli("meta", "degrade", qpath, *paths, "-m", "RR", "AP", "--fractions", "0.3,0.6",
                      "--samples", "2", "--method", "frequency", "--seed", "4").stdout == r.stdout
    s = irpref_cli("meta", "subsample", qpath, *paths, "-m", "sgnLP", "--sizes", "2,4",
                   "--samples", "3")
    assert s.returncode == 0, s.stderr
    assert s.stdout.splitlines()[0] == "measure\tsize\tkendall_tau\tkendall_tau_sd\tseed"
    a = irpref_cli("meta", "agreement", qpath, *paths, "-m", "RR", "sgnLP", "--aggregate", "mc4")
    assert a.returncode == 0, a.stderr
    assert a.stdout.splitlines()[0] == "measure_a\tmeasure_b\tsign_agreement\tpearson\tkendall_tau"
    for bad in (["degrade", "--fractions", "0.3,1.5"], ["degrade", "--samples", "0"],
                ["subsample", "--sizes", "0"], ["agreement", "--aggregate", "median"],
                ["ties", "--rel", "0"]):
        b = irpref_cli("meta", bad[0], qpath, *paths, "-m", "RR", *bad[1:])
        assert b.returncode == 2, (bad, b.stderr)
        assert "Traceback" not in b.stderr
    unknown = irpref_cli("meta", "ties", qpath, *paths, "-m", "NoSuch")
    assert unknown.returncode == 2 and "unknown measure" in unknown.stderr


# ------------------------------------------------------- recall-level analyses


def test_recall_level_analyses_against_ties_and_brute_force():
    qrels, runs = _toy(12, n_runs=6, n_q=8, n_docs=15)
    judged = judge_inputs(qrels, runs, rel=1)
    ties = tie_rates(measures=["RR", "sgnLP"], judged=judged).set_index("measure").percent_tied
    lv = recall_level_ties(judged=judged, levels=3)
    assert lv.percent_tied.iloc[0] == pytest.approx(ties["RR"])  # δRR_1 ties are RR ties
    need = recall_level_needed(judged=judged)
    assert need.fraction.iloc[-1] == pytest.approx(1.0)
    # i* = 1 exactly when RR differs; the ECDF is over comparisons sgnLP separates
    assert need.fraction.iloc[0] == pytest.approx((100 - ties["RR"]) / (100 - ties["sgnLP"]))
    # Pr(tie | p1) by brute force from per-run RR values
    ev = irpref.evaluate(None, None, ["RR"], judged=judged)
    val = {(r.run, r.query): r.value for r in ev.itertuples()}
    names = judged.run_names
    has_rel = set(judged.queries[judged.num_rel() > 0])
    counts: dict[int, list[int]] = {}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for q in has_rel:
                if q in runs[a] and q in runs[b]:
                    for x, y in ((a, b), (b, a)):
                        if val[x, q] > 0:
                            c = counts.setdefault(round(1 / val[x, q]), [0, 0])
                            c[0] += 1
                            c[1] += val[x, q] == val[y, q]
    got = tie_given_p1(judged=judged).set_index("p1")
    assert sorted(got.index) == sorted(counts)
    for p1, (n, t) in counts.items():
        assert got.comparisons[p1] == n and got.probability[p1] == pytest.approx(t / n)


def test_degrade_reference_measure():
    qrels, runs = _toy(13, n_q=8, n_docs=20)
    t = degrade(qrels, runs, ["rrLP", "RR"], fractions=[0.3], samples=2, seed=1, reference="RR")
    own = degrade(qrels, runs, ["RR"], fractions=[0.3], samples=2, seed=1)
    # RR against reference RR is RR against itself
    assert t[t.measure == "RR"].agreement.iloc[0] == pytest.approx(own.agreement.iloc[0])


@pytest.mark.slow
def test_cli_recall_levels_equals_api(tmp_path):
    """``irpref meta recall-levels``: lexiprecision Fig. 5 (default), Fig. 6
    (``--needed``) and Fig. 3 (``--given-p1``), the API's tables in full precision."""
    qrels, runs = _toy(4, n_q=8, n_docs=20)
    qpath, paths = write_trec(tmp_path, qrels, runs)
    for flags, fn, kw in (([], recall_level_ties, {"levels": 4}),
                          (["--needed"], recall_level_needed, {}),
                          (["--given-p1"], tie_given_p1, {})):
        extra = flags or ["--levels", "4"]
        r = irpref_cli("meta", "recall-levels", qpath, *paths, *extra)
        assert r.returncode == 0, r.stderr
        lines = [ln.split("\t") for ln in r.stdout.splitlines()]
        api = fn(qpath, paths, **kw)
        assert lines[0] == list(api.columns)
        got = np.array([[float(x) for x in ln] for ln in lines[1:]])
        np.testing.assert_array_equal(got, api.to_numpy(np.float64))
    r = irpref_cli("meta", "recall-levels", qpath, *paths, "--needed", "--given-p1")
    assert r.returncode == 2


def test_docs_document_every_meta_command():
    """The docs' Meta-evaluation page gives every ``irpref meta`` subcommand an example."""
    from pathlib import Path

    from irpref.meta.catalog import EXPERIMENTS

    page = Path(__file__).resolve().parents[1] / "docs" / "reference" / "meta-evaluation.md"
    section = page.read_text(encoding="utf-8").split("# Meta-evaluation\n", 1)[1]
    for e in EXPERIMENTS:
        assert f"`irpref meta {e.name} " in section, e.name


def test_conditional_agreement_equals_brute_force():
    qrels, runs = _toy(5)
    t = conditional_agreement(qrels, runs, ["sgnLR", "AP", "RR"]).set_index(
        ["measure_a", "measure_b"])
    assert len(t) == 6
    d = {m: np.sign(np.where(np.abs(v) <= 1e-12, 0, v))
         for m, v in ((m, _brute_pairs(qrels, runs, m)) for m in ("sgnLR", "AP", "RR"))}
    for (a, b), row in t.iterrows():
        k = d[b] != 0
        assert row["comparisons"] == k.sum()
        assert row["agreement"] == pytest.approx(np.mean(d[a][k] == d[b][k]), abs=1e-12)


@pytest.mark.slow
def test_cli_conditional_agreement_lexirecall_fig8_r1000(data_dir):
    """Lexirecall section 6.2.1: with runs of depth <= 1000, whenever R@1000
    differs lexirecall differs the same way (pessimistic imputation): the
    Fig. 8 agreement of lexirecall given an R@1000 difference is exactly 1 on
    DL 2019 passage (grade >= 1 and >= 2)."""
    d = data_dir / "dl19-passage"
    runs = sorted((d / "runs").glob("*.gz"))
    for rel in ("1", "2"):
        r = irpref_cli("meta", "agreement", d / "qrels.txt", *runs, "-m", "sgnLR", "R@1000", "AP",
                 "--rel", rel, "--conditional")
        assert r.returncode == 0, r.stderr
        lines = [ln.split("\t") for ln in r.stdout.splitlines()]
        assert lines[0] == ["measure_a", "measure_b", "comparisons", "agreement"]
        rows = {(a, b): (int(n), float(v)) for a, b, n, v in lines[1:]}
        assert rows["sgnLR", "R@1000"][1] == 1.0 and rows["sgnLR", "R@1000"][0] > 10_000
        assert 0.5 < rows["sgnLR", "AP"][1] < 1.0
