"""Atomized search length (Alex, Hall & Metzler 2022) and its per-document tables."""

from __future__ import annotations

import itertools
import math
import subprocess

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irpref
from irpref import asl

# lexirecall Fig. 1: six relevant items, the top 10 holds three at ranks 2, 3, 8
RELEVANT = ["083", "107", "511", "668", "820", "977"]
RANKING = ["n1", "107", "511", "n2", "n3", "n4", "n5", "820", "n6", "x1"]
QRELS = {"q": {**{d: 1 for d in RELEVANT}, "x1": 0, "n1": 0}}
RUN = {"A": {"q": {d: 10.0 - i for i, d in enumerate(RANKING)}}}


def values(measures, qrels=QRELS, runs=RUN, **kw):
    res = irpref.evaluate(qrels, runs, measures, **kw)
    return dict(zip(res["measure"], res["value"]))


def test_worked_example_eq_1_to_5():
    # retrieved relevant at 2, 3, 8: 1, 1, 5 non-relevant above -> ASL 2, 2, 6 (Eq. 1-2);
    # unjudged n2..n6 count as non-relevant (paper §3.3: not confined to judged documents);
    # 7 non-relevant retrieved -> each unretrieved relevant scores 7 (Eq. 3)
    v = values(["ASL", "ASL(golds=1)", "ASL(golds=2)", "ASL(golds=4)", "ASL(golds=50)",
                "ASL(missing=after)", "ASL(missing=corpus)", "ASL@5"], corpus_size=100)
    assert v["ASL"] == pytest.approx((2 + 2 + 6 + 3 * 7) / 6)
    assert v["ASL(golds=1)"] == 2
    assert v["ASL(golds=2)"] == 2
    assert v["ASL(golds=4)"] == pytest.approx((2 + 2 + 6 + 7) / 4)
    assert v["ASL(golds=50)"] == v["ASL"]  # divided by min(g, m)
    assert v["ASL(missing=after)"] == pytest.approx((2 + 2 + 6 + 3 * 8) / 6)
    assert v["ASL(missing=corpus)"] == pytest.approx((2 + 2 + 6 + 3 * (100 - 6 + 1)) / 6)
    # @5: ranks 2, 3 retrieved, 3 non-relevant in the top 5
    assert v["ASL@5"] == pytest.approx((2 + 2 + 4 * 3) / 6)


def test_corpus_defaults_to_documents_seen():
    judged = irpref.judge_inputs(QRELS, RUN)
    n = judged.n_docs  # the RPP paper: distinct documents in all runs and the qrels
    assert n == len(set(RANKING) | set(RELEVANT))
    v = values(["ASL(missing=corpus)"])
    assert v["ASL(missing=corpus)"] == pytest.approx((2 + 2 + 6 + 3 * (n - 6 + 1)) / 6)
    with pytest.raises(ValueError, match="corpus size 5 is smaller"):
        values(["ASL(missing=corpus)"], corpus_size=5)


def test_query_without_relevant_is_nan_and_skipped():
    qrels = {**QRELS, "z": {"n1": 0}}
    runs = {"A": {**RUN["A"], "z": {"n1": 1.0}}}
    res = irpref.evaluate(qrels, runs, ["ASL", "SL1"], corpus_size=100)
    assert res[res["query"] == "z"]["value"].isna().all()
    means = irpref.summarize(res)
    assert means[means["measure"] == "ASL"]["value"].item() == pytest.approx(31 / 6)


def test_bad_parameters():
    with pytest.raises(ValueError, match=r"golds must be an integer >= 1"):
        values(["ASL(golds=0)"])
    with pytest.raises(ValueError, match="must be one of"):
        values(["ASL(missing=bottom)"])


# ---- brute force against a direct transcription of Eq. 1-5 ----------------


def reference_asl(labels, m, missing="retrieved", golds=None, n=None):
    sl, irrel = [], 0
    for relevant in labels:
        if relevant:
            sl.append(irrel + 1)
        else:
            irrel += 1
    fill = {"retrieved": irrel, "after": irrel + 1, "corpus": (n or 0) - m + 1}[missing]
    sl += [fill] * (m - len(sl))
    if m == 0:
        return math.nan
    g = m if golds is None else min(golds, m)
    return sum(sl[:g]) / g


@st.composite
def collections(draw, max_items=9, ties=False):
    """Two runs x two queries of relevant (r), judged non-relevant (j) and
    unjudged (u) documents; scores distinct unless ``ties``."""
    qrels, runs, truth = {}, {"A": {}, "B": {}}, {}
    for q in ("q1", "q2"):
        m = draw(st.integers(0, 5))
        docs = [f"r{i}" for i in range(m)] + [f"j{i}" for i in range(4)]
        qrels[q] = {d: int(d[0] == "r") for d in docs}
        pool = docs + [f"u{i}" for i in range(4)]
        for r in runs:
            ranking = draw(st.lists(st.sampled_from(pool), unique=True, max_size=max_items))
            if ties:
                scores = draw(st.lists(st.integers(0, 3), min_size=len(ranking),
                                       max_size=len(ranking)))
                scores = sorted(scores, reverse=True)
            else:
                scores = list(range(len(ranking), 0, -1))
            runs[r][q] = {d: float(s) for d, s in zip(ranking, scores)}
            truth[r, q] = (ranking, scores, m)
    for r in runs:  # every run needs at least one row
        if not any(runs[r].values()):
            runs[r]["q1"] = {"j0": 1.0}
            truth[r, "q1"] = (["j0"], [1], truth[r, "q1"][2])
    return qrels, runs, truth


@settings(max_examples=60, deadline=None)
@given(collections(), st.sampled_from(["retrieved", "after", "corpus"]),
       st.sampled_from([None, 1, 2, 3]), st.sampled_from([None, 3]))
def test_asl_matches_brute_force(data, missing, golds, cutoff):
    qrels, runs, truth = data
    text = "ASL" + (f"(golds={golds},missing={missing})" if golds else f"(missing={missing})")
    text += f"@{cutoff}" if cutoff else ""
    res = irpref.evaluate(qrels, runs, [text], missing="zero", corpus_size=40)
    got = {(r, q): v for r, q, v in zip(res["run"], res["query"], res["value"])}
    for (r, q), (ranking, _, m) in truth.items():
        labels = [d.startswith("r") for d in ranking][:cutoff]
        want = reference_asl(labels, m, missing, golds, n=40)
        assert got[r, q] == pytest.approx(want, nan_ok=True)


def _orderings(ranking, scores):
    """Every ordering of ``ranking`` that keeps scores descending (ties permuted)."""
    groups = [list(g) for _, g in itertools.groupby(zip(ranking, scores), key=lambda x: x[1])]
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [d for part in parts for d, _ in part]


@settings(max_examples=40, deadline=None)
@given(collections(max_items=6, ties=True), st.sampled_from(["retrieved", "corpus"]))
def test_expected_ties_match_all_orderings(data, missing):
    qrels, runs, truth = data
    measures = [str(irpref.parse_measure(t)) for t in
                (f"ASL(missing={missing})", "SL1(impute=optimistic)", "SL3", "RE",
                 "TSE(e=ap)", "TSE(e=ndcg)")]
    res = irpref.evaluate(qrels, runs, measures, ties="expected", missing="zero",
                          corpus_size=30)
    got = {(r, q, m): v for r, q, m, v in
           zip(res["run"], res["query"], res["measure"], res["value"])}
    for (r, q), (ranking, scores, m) in truth.items():
        if m == 0:
            continue
        sums = np.zeros(6)
        count = 0
        for order in _orderings(ranking, scores):
            labels = [d.startswith("r") for d in order]
            p = [i + 1 for i, lab in enumerate(labels) if lab]
            k = m - len(p)
            pess = p + [30 - k + j for j in range(1, k + 1)]
            opt = p + [len(order) + j for j in range(1, k + 1)]
            sums += [reference_asl(labels, m, missing, n=30), opt[0] - 1, pess[-1] - m,
                     np.mean(pess) - (m + 1) / 2, 1 / pess[-1], 1 / np.log2(pess[-1] + 1)]
            count += 1
        for name, want in zip(measures, sums / count):
            assert got[r, q, name] == pytest.approx(want), name


def test_expected_rejects_nonlinear_forms():
    with pytest.raises(ValueError, match="not supported"):
        values(["ASL(golds=2)"], ties="expected")
    with pytest.raises(ValueError, match="not supported"):
        values(["ASL@5"], ties="expected")


# ---- per-document tables, distributions, ablation ---------------------------


def test_per_document_table_worked_example():
    t = irpref.search_lengths(QRELS, RUN)
    assert list(t.columns) == ["run", "query", "doc", "level", "rank", "search_length"]
    assert t["doc"].tolist() == ["107", "511", "820", "083", "668", "977"]
    assert t["rank"].tolist()[:3] == [2, 3, 8] and t["rank"].isna().sum() == 3
    assert t["search_length"].tolist() == [2, 2, 6, 7, 7, 7]
    t2 = irpref.search_lengths(QRELS, RUN, unretrieved="corpus", corpus_size=100)
    assert t2["search_length"].tolist() == [2, 2, 6, 95, 95, 95]


@pytest.fixture(scope="module")
def dl19_inputs(data_dir):
    d = data_dir / "dl19-passage"
    return d / "qrels.txt", sorted((d / "runs").glob("*.gz"))[:6]


@pytest.fixture(scope="module")
def dl19(dl19_inputs):
    return irpref.judge_inputs(*dl19_inputs, rel=2)


def test_table_agrees_with_measure_on_dl19(dl19):
    t = irpref.search_lengths(judged=dl19)
    assert len(t) == int((dl19.present * dl19.num_rel(2)[None, :]).sum())
    per_query = t.groupby(["run", "query"])["search_length"].mean()
    res = irpref.evaluate(None, None, ["ASL"], judged=dl19).set_index(["run", "query"])
    assert np.allclose(per_query.loc[res.index].to_numpy(), res["value"].to_numpy())
    # every relevant document appears once per run and query
    assert not t.duplicated(["run", "query", "doc"]).any()


def test_identities_with_recall_error(dl19_inputs):
    """ASL(missing=corpus) = RE(pessimistic) + 1 and ASL(missing=after) =
    RE(optimistic) + 1, per query: both are mean(p_i - i + 1)."""
    measures = ["ASL(missing=corpus)", "RE", "ASL(missing=after)", "RE(impute=optimistic)"]
    res = irpref.evaluate(*dl19_inputs, measures, rel=2, corpus_size=8_841_823)
    w = res.pivot_table(index=["run", "query"], columns="measure", values="value")
    assert np.allclose(w["ASL(missing=corpus)"], w["RE"] + 1)
    assert np.allclose(w["ASL(missing=after)"], w["RE(impute=optimistic)"] + 1)


def test_ablation_endpoints(dl19):
    t = irpref.search_lengths(judged=dl19)
    ab = asl.ablation(t).set_index("run")
    ap = irpref.summarize(irpref.evaluate(None, None, ["AP(rel=2)", "ASL"], judged=dl19))
    ap = ap.pivot(index="run", columns="measure", values="value")
    assert np.allclose(ab["MAP"], ap.loc[ab.index, "AP(rel=2)"])  # Eq. 6-8 = trec_eval MAP
    assert np.allclose(ab["ASL"], ap.loc[ab.index, "ASL"])
    assert np.allclose(ab["harmonic across queries"], 1 / ab["ASL"])
    # harmonic means never exceed arithmetic ones (Appendix A.1)
    assert (ab["harmonic within queries"] <= ab["atomize P"] + 1e-12).all()


def test_distribution_and_change(dl19):
    t = irpref.search_lengths(judged=dl19)
    dist = asl.distribution(t)
    counts = dist.groupby("run")["count"].sum()
    assert (counts == t.groupby("run").size().loc[counts.index]).all()
    a, b = dl19.run_names[:2]
    ch = asl.change(t, a, b)
    assert len(ch) == len(t[t["run"] == a])
    assert np.allclose(ch["delta"], ch["run"] - ch["baseline"])
    h = asl.histogram(ch["delta"], [-100, -10, -1, 0, 1, 10, 100])
    assert h["count"].sum() == len(ch)
    with pytest.raises(ValueError, match="not in the table"):
        asl.change(t, a, "nope")


def test_rrie_table_1_of_the_paper():
    # Alex et al. Table 1: BM25 -> neural, documents and passages
    assert round(asl.rrie(0.456, 0.594), 2) == 0.25  # P@20, Eq. 11
    assert round(asl.rrie(0.401, 0.543), 2) == 0.24  # MAP
    assert round(asl.rrie(14, 5), 2) == 0.69  # ASL@g1-10, Eq. 12
    assert round(asl.rrie(39, 27), 2) == 0.32  # ASL
    assert round(asl.rrie(0.517, 0.706), 2) == 0.39
    assert round(asl.rrie(0.400, 0.572), 2) == 0.29
    assert round(asl.rrie(51, 6), 2) == 0.90
    assert round(asl.rrie(264, 215), 2) == 0.19
    summary = pd.DataFrame({"run": ["bm25", "neural"] * 2, "query": "all",
                            "measure": ["ASL", "ASL", "SL1", "SL1"], "value": [39, 27, 4, 2]})
    table = asl.rrie_table(summary, "bm25").set_index(["run", "measure"])["rrie"]
    assert table["neural", "ASL"] == pytest.approx(12 / 38)
    assert table["neural", "SL1"] == pytest.approx(0.5)  # optimum 0


def test_means_and_effective_fraction():
    sl = [1, 1, 1, 2, 4, 5, 10, 10000, 10000]  # Appendix A.1's example
    p_mean = np.mean([1 / x for x in sl])
    # Eq. 14-15: the P-space mean is the SL-space mean weighted by 1/SL
    assert asl.mean(sl, "harmonic") == pytest.approx(1 / p_mean)
    assert asl.mean(sl, "harmonic") == pytest.approx(
        np.average(sl, weights=[1 / x for x in sl]))
    assert asl.effective_fraction(sl) == pytest.approx(6 / 9)
    assert asl.mean([0, 2], "harmonic") == 0
    with pytest.raises(ValueError):
        asl.mean([1], "geometric")


def test_cli_evaluate_asl(data_dir):
    d = data_dir / "dl19-passage"
    runs = sorted((d / "runs").glob("*.gz"))[:2]
    out = subprocess.run(
        ["irpref", "evaluate", str(d / "qrels.txt"), *map(str, runs), "--rel", "2",
         "-m", "ASL", "ASL(golds=10)", "ASL(missing=corpus)", "--format", "tsv"],
        capture_output=True, text=True, check=True,
    ).stdout
    lines = [line.split("\t") for line in out.strip().splitlines()]
    header, rows = lines[0], lines[1:]
    assert "measure" in header and len(rows) == 6
    value = {(r[header.index("run")], r[header.index("measure")]): float(r[header.index("value")])
             for r in rows}
    api = irpref.summarize(irpref.evaluate(d / "qrels.txt", runs, ["ASL(golds=10)"], rel=2))
    for run, v in zip(api["run"], api["value"]):
        assert value[run, "ASL(golds=10)"] == pytest.approx(v, rel=1e-9)
