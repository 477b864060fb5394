"""Recall-level metrics, TSE, SL1/SL3/RE (Diaz & Mitra 2023 §2-3, Appendix A)."""

from __future__ import annotations

import subprocess

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import irpref
from irpref.measures.positions import impute, relevant_positions
from irpref.measures.recall_metrics import RecallLevelMetric, named_metric

RELEVANT = ["083", "107", "511", "668", "820", "977"]
RANKING = ["n1", "107", "511", "n2", "n3", "n4", "n5", "820", "n6", "x1"]
QRELS = {"q": {**{d: 1 for d in RELEVANT}, "x1": 0}}
RUN = {"A": {"q": {d: 10.0 - i for i, d in enumerate(RANKING)}}}
NAMED = ["ap", "rr", "ndcg", "rbp"]


def values(measures, qrels=QRELS, runs=RUN, **kw):
    res = irpref.evaluate(qrels, runs, measures, **kw)
    return dict(zip(res["measure"], res["value"]))


def test_figure_1_imputation():
    """Retrieved at 2, 3, 8 of six relevant -> p = 2, 3, 8, n-2, n-1, n (§2.2)."""
    n = 1000
    assert impute([2, 3, 8], 6, 10, "pessimistic", n).tolist() == [2, 3, 8, 998, 999, 1000]
    assert impute([2, 3, 8], 6, 10, "optimistic").tolist() == [2, 3, 8, 11, 12, 13]
    judged = irpref.judge_inputs(QRELS, RUN)
    pos = relevant_positions(judged, rel=1, impute="pessimistic", n=n)
    assert pos.position.tolist() == [2, 3, 8, 998, 999, 1000]
    v = values(["TSE(e=ap)", "SL1", "SL3", "RE", "SL3(impute=optimistic)", "RL-AP",
                "TSE(e=lin)", "RL(e=ndcg,z=sl3)", "TSE(e=ndcg)"], corpus_size=n)
    assert v["TSE(e=ap)"] == pytest.approx(1 / n)
    assert v["SL1"] == 1 and v["SL3"] == n - 6 and v["SL3(impute=optimistic)"] == 13 - 6
    assert v["RE"] == pytest.approx(np.mean([2, 3, 8, 998, 999, 1000]) - 3.5)
    p = np.array([2, 3, 8, 998, 999, 1000])
    assert v["RL-AP"] == pytest.approx(np.sum(1 / p * np.arange(1, 7) / 6))
    assert v["TSE(e=lin)"] == 0  # e_lin(n) = 1 - n/n
    assert v["RL(e=ndcg,z=sl3)"] == pytest.approx(v["TSE(e=ndcg)"])


def test_paper_exposures_and_normalizations():
    p = np.array([1.0, 4.0, 9.0])
    ap = named_metric("ap")(p)
    assert ap == pytest.approx((1 / 1 * 1 + 1 / 4 * 2 + 1 / 9 * 3) / 3)
    assert named_metric("rr")(p) == 1.0
    ideal = 1 + 1 / np.log2(3) + 1 / np.log2(4)
    assert named_metric("ndcg")(p) == pytest.approx(np.sum(1 / np.log2(p + 1)) / ideal)
    assert named_metric("rbp", 0.5)(p) == pytest.approx(0.5 * (1 + 0.5**3 + 0.5**8))
    assert RecallLevelMetric("lin", "mean")(p, 10) == pytest.approx(np.mean(1 - p / 10))
    with pytest.raises(ValueError, match="corpus size"):
        RecallLevelMetric("lin", "mean")(p)
    with pytest.raises(ValueError, match="unknown exposure"):
        RecallLevelMetric("cubic", "ap")


def test_needs_corpus_size_and_parameters():
    with pytest.raises(ValueError, match="corpus_size=N"):
        values(["RL-AP"])
    with pytest.raises(ValueError, match="corpus_size=N"):
        values(["TSE(e=ap)"])
    with pytest.raises(ValueError, match=r"TSE: e \(exposure"):
        values(["TSE"], corpus_size=100)
    with pytest.raises(ValueError, match=r"RL\(e=ap\): z \(normalization"):
        values(["RL(e=ap)"], corpus_size=100)
    with pytest.raises(ValueError, match="linear exposure"):
        values(["TSE(e=lin,impute=optimistic)"])
    with pytest.raises(ValueError, match="corpus size 12 is smaller"):
        values(["SL3"], corpus_size=12)
    with pytest.raises(ValueError, match="must be one of"):
        values(["SL3(impute=none)"])
    with pytest.raises(ValueError, match="no tie-aware"):
        values(["RL-AP"], corpus_size=100, ties="expected")
    # optimistic imputation needs no n
    assert values(["RL-AP(impute=optimistic)"])["RL-AP(impute=optimistic)"] > 0


def test_query_without_relevant_documents():
    qrels = {**QRELS, "z": {"x1": 0}}
    runs = {"A": {**RUN["A"], "z": {"x1": 1.0}}}
    res = irpref.evaluate(qrels, runs, ["RL-AP", "TSE(e=ap)", "SL3"], corpus_size=100)
    z = res[res["query"] == "z"].set_index("measure")["value"]
    assert z["RL-AP"] == 0 and np.isnan(z["TSE(e=ap)"]) and np.isnan(z["SL3"])


@pytest.fixture(scope="module")
def trec_eval_inputs(data_dir):
    d = data_dir / "trec_eval"
    return d / "qrels.test", d / "results.test"


def test_impute_none_equals_trec_eval_forms(trec_eval_inputs, data_dir):
    """With exposure 0 for unretrieved items (n -> inf) the recall-level forms
    are trec_eval's AP, RR, RBP and (binary qrels) nDCG."""
    pairs = [("RL-AP(impute=none)", "AP"), ("RL-RR(impute=none)", "RR"),
             ("RL-RBP(impute=none,p=0.5)", "RBP(p=0.5)"), ("RL-nDCG(impute=none)", "nDCG")]
    res = irpref.evaluate(*trec_eval_inputs, [m for pair in pairs for m in pair])
    w = res.pivot_table(index=["run", "query"], columns="measure", values="value")
    for ours, theirs in pairs:
        assert np.allclose(w[ours], w[theirs], rtol=0, atol=1e-12), ours
    d = data_dir / "dl19-passage"
    runs = sorted((d / "runs").glob("*.gz"))[:4]
    res = irpref.evaluate(d / "qrels.txt", runs, ["RL-AP(impute=none)", "AP", "RL-AP"],
                          rel=2, corpus_size=10**15)
    w = res.pivot_table(index=["run", "query"], columns="measure", values="value")
    assert np.allclose(w["RL-AP(impute=none)"], w["AP"], rtol=0, atol=1e-12)
    assert np.allclose(w["RL-AP"], w["AP"], rtol=0, atol=1e-12)  # n -> inf limit


# ---- kernels against the one-query reference ---------------------------------


@st.composite
def rankings(draw, max_items=10):
    """Two runs x two queries; returns (qrels, runs, truth) with truth[(r, q)] =
    (relevance labels in rank order, m)."""
    qrels, runs, truth = {}, {"A": {}, "B": {}}, {}
    for q in ("q1", "q2"):
        m = draw(st.integers(0, 6))
        docs = [f"r{i}" for i in range(m)] + ["j0", "j1", "j2"]
        qrels[q] = {d: int(d[0] == "r") for d in docs}
        for r in runs:
            ranking = draw(st.lists(st.sampled_from(docs + ["u0", "u1", "u2"]), unique=True,
                                    max_size=max_items))
            runs[r][q] = {d: float(len(ranking) - i) for i, d in enumerate(ranking)}
            truth[r, q] = ([d[0] == "r" for d in ranking], m)
    for r in runs:
        if not any(runs[r].values()):
            runs[r]["q1"] = {"j0": 1.0}
            truth[r, "q1"] = ([False], truth[r, "q1"][1])
    return qrels, runs, truth


MEASURES = ["RL(e={e},z={z})", "TSE(e={e})", "SL1", "SL3", "RE"]


@settings(max_examples=60, deadline=None)
@given(rankings(), st.sampled_from(list(["ap", "ndcg", "rbp", "lin"])),
       st.sampled_from(["ap", "rr", "ndcg", "rbp", "sl3", "mean"]),
       st.sampled_from(["pessimistic", "optimistic"]), st.sampled_from([None, 4]))
def test_kernels_match_reference(data, e, z, imp, cutoff):
    qrels, runs, truth = data
    n = 50
    texts = [t.format(e=e, z=z) for t in MEASURES]
    texts = [f"{t[:-1]},impute={imp})" if t.endswith(")") else f"{t}(impute={imp})"
             for t in texts]
    texts = [t + (f"@{cutoff}" if cutoff else "") for t in texts]
    res = irpref.evaluate(qrels, runs, texts, missing="zero", corpus_size=n)
    got = {(r, q, mm): v for r, q, mm, v in
           zip(res["run"], res["query"], res["measure"], res["value"])}
    names = texts  # rows are labelled with the strings passed
    metric = RecallLevelMetric(e, z)
    for (r, q), (labels, m) in truth.items():
        labels = labels[:cutoff]
        p = impute([i + 1 for i, lab in enumerate(labels) if lab], m, len(labels), imp, n)
        want = [metric(p, n), metric.tse()(p, n) if m else np.nan,
                p[0] - 1 if m else np.nan, p[-1] - m if m else np.nan,
                np.mean(p) - (m + 1) / 2 if m else np.nan]
        for name, w in zip(names, want):
            assert got[r, q, name] == pytest.approx(w, nan_ok=True), name


# ---- Appendix A: properties of top-heavy recall-level metrics ----------------

METRICS = [named_metric(k) for k in NAMED] + [
    RecallLevelMetric("lin", "mean", name="lin"),
    RecallLevelMetric("ap", "sl3", name="TSE(e=ap)"),
    RecallLevelMetric("ndcg", "sl3", name="TSE(e=ndcg)"),
]
STRICT_Z = {"RL-AP", "RL-nDCG", "RL-RBP", "lin"}  # z(i, m) > 0
CONVEX_E = {"RL-AP", "RL-RR", "RL-nDCG", "RL-RBP", "TSE(e=ap)", "TSE(e=ndcg)"}


@st.composite
def top_rankings(draw):
    """A top-ñ list of relevance labels, m >= its relevant items, n >> ñ + m."""
    labels = draw(st.lists(st.booleans(), min_size=1, max_size=10))
    m = sum(labels) + draw(st.integers(0, 4))
    assume(m > 0)
    return labels, m, 60


def _value(metric, labels, m, n):
    p = impute([i + 1 for i, lab in enumerate(labels) if lab], m, len(labels), "pessimistic", n)
    return metric(p, n)


@settings(max_examples=80, deadline=None)
@given(top_rankings(), st.sampled_from(METRICS))
def test_theorems_a1_to_a3_appending(case, metric):
    labels, m, n = case
    before = _value(metric, labels, m, n)
    # A.2: appending a non-relevant item leaves the metric unchanged
    assert _value(metric, labels + [False], m, n) == pytest.approx(before, abs=1e-15)
    if sum(labels) < m:  # A.1 / A.3: appending a relevant item
        after = _value(metric, labels + [True], m, n)
        assert after >= before - 1e-15
        if str(metric) in STRICT_Z:
            assert after > before


@settings(max_examples=80, deadline=None)
@given(top_rankings(), st.sampled_from(METRICS), st.data())
def test_theorem_a4_swapping_up(case, metric, data):
    labels, m, n = case
    rel = [i for i, lab in enumerate(labels) if lab]
    above = [k for k in range(len(labels)) if not labels[k] and rel and k < rel[-1]]
    assume(above)
    k = data.draw(st.sampled_from(above))
    j = data.draw(st.sampled_from([i for i in rel if i > k]))
    swapped = list(labels)
    swapped[k], swapped[j] = True, False
    before, after = _value(metric, labels, m, n), _value(metric, swapped, m, n)
    assert after >= before - 1e-15
    if str(metric) in STRICT_Z:
        assert after > before


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(METRICS), st.integers(1, 6), st.data())
def test_theorem_a5_concavity_in_swap_depth(metric, m, data):
    """Moving the j-th relevant item up one place gains more the higher it sits
    (convex exposure); equal gains for linear exposure."""
    n = 60
    p = sorted(data.draw(st.lists(st.integers(2, 40), min_size=m, max_size=m, unique=True)))
    j = data.draw(st.integers(0, m - 1))
    deeper = p[j] + data.draw(st.integers(1, 10))
    assume(p[j] - 1 not in p and (j == m - 1 or deeper < p[j + 1]))
    q = list(p)
    q[j] = deeper
    assume(deeper - 1 not in q[:j])

    def gain(pos):
        up = list(pos)
        up[j] -= 1
        return metric(up, n) - metric(pos, n)

    if str(metric) in CONVEX_E and str(metric) in STRICT_Z:
        assert gain(p) > gain(q)
    else:
        assert gain(p) >= gain(q) - 1e-12


# ---- CLI ------------------------------------------------------------------


@pytest.mark.slow
def test_cli_recall_level_measures(data_dir):
    d = data_dir / "dl19-passage"
    runs = sorted((d / "runs").glob("*.gz"))[:2]
    measures = ["TSE(e=ap)", "SL1", "SL3", "RE", "RL-AP", "RL-nDCG", "RL-RBP(p=0.5)"]
    cmd = ["irpref", "evaluate", str(d / "qrels.txt"), *map(str, runs), "--rel", "2",
           "-m", *measures, "--format", "tsv"]
    failed = subprocess.run(cmd, capture_output=True, text=True)
    assert failed.returncode == 2 and "--corpus-size" in failed.stderr  # a bad request
    out = subprocess.run(cmd + ["--corpus-size", "8841823"], capture_output=True, text=True,
                         check=True).stdout
    lines = [line.split("\t") for line in out.strip().splitlines()]
    table = pd.DataFrame(lines[1:], columns=lines[0])
    assert len(table) == 2 * len(measures)
    api = irpref.summarize(irpref.evaluate(d / "qrels.txt", runs, measures, rel=2,
                                           corpus_size=8841823))
    merged = api.merge(table, on=["run", "measure"])
    assert len(merged) == len(api)
    assert np.allclose(merged["value_x"], merged["value_y"].astype(float), rtol=1e-9)
