"""trec_eval-exact classical measures: worked examples, helpers, and property
tests against pytrec_eval (which embeds trec_eval) and against literal
transcriptions of trec_eval 10.0's per-query loops for the measures that
pytrec_eval lacks or computes with an older trec_eval (iprec, 11pt_avg)."""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irpref
from irpref.measures.arithmetic import exact_cumsum, geometric_mean, lround, suffix_max

# ---- tiny worked example -------------------------------------------------------
QRELS = {"q1": {"a": 1, "b": 0, "c": 2, "d": 1, "u": -1}, "q2": {"x": 0, "y": 0}}
RUN = {"q1": {"a": 5.0, "b": 4.0, "n": 3.0, "c": 2.0, "u": 1.5}, "q2": {"x": 1.0}}


def _values(measures, qrels=QRELS, run=RUN, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = irpref.evaluate(qrels, {"r": run}, measures, **kw)
    return {(r.query, r.measure): r.value for r in res.itertuples()}


def test_worked_example_q1():
    v = _values(["AP", "P@2", "R@4", "RR", "Rprec", "Bpref", "nDCG@3", "NumRelRet", "SetP",
                 "Unj@5", "RelP@2"])
    # ranking a(1) b(0) n(-) c(2) u(-1): relevant a, c (d unretrieved), R = 3
    assert v["q1", "AP"] == pytest.approx((1 / 1 + 2 / 4) / 3, abs=1e-15)
    assert v["q1", "P@2"] == 0.5
    assert v["q1", "R@4"] == pytest.approx(2 / 3)
    assert v["q1", "RR"] == 1.0
    assert v["q1", "Rprec"] == pytest.approx(1 / 3)
    # Bpref: a (no non-relevant above) 1; c (1 judged non-relevant above, N = 1) 1 - 1/1
    assert v["q1", "Bpref"] == pytest.approx(1 / 3)
    ideal = 2 + 1 / math.log2(3) + 1 / math.log2(4)
    assert v["q1", "nDCG@3"] == pytest.approx(1 / ideal)
    assert v["q1", "NumRelRet"] == 2
    assert v["q1", "SetP"] == pytest.approx(2 / 5)
    assert v["q1", "Unj@5"] == pytest.approx(2 / 5)  # n (unpooled) and u (pooled, grade -1)
    assert v["q1", "RelP@2"] == pytest.approx(1 / 2)
    # q2 has no relevant document: trec_eval scores 0
    assert v["q2", "AP"] == 0 and v["q2", "nDCG@3"] == 0 and v["q2", "Bpref"] == 0


def test_missing_zero_and_geometric_mean():
    run = {"q1": RUN["q1"]}
    skip = _values(["AP", "GMAP"], run=run)
    assert ("q2", "AP") not in skip
    res = irpref.evaluate(QRELS, {"r": run}, ["GMAP", "NumQ"], missing="zero")
    means = dict(zip(irpref.summarize(res)["measure"], irpref.summarize(res)["value"]))
    ap = (1 / 1 + 2 / 4) / 3
    assert means["GMAP"] == pytest.approx(math.exp((math.log(ap) + math.log(1e-5)) / 2))
    assert means["NumQ"] == 2


def test_trec_names_translate():
    p = irpref.parse_measure
    assert str(p("ndcg_cut.10")) == "nDCG@10"
    assert str(p("map_cut.100")) == "AP@100"
    assert str(p("recall.1000")) == "R@1000"
    assert str(p("success.10")) == "Success@10"
    assert str(p("iprec_at_recall_0.20")) == "IPrec(recall=0.2)"
    assert str(p("Rprec_mult_1.20")) == "RprecMult(mult=1.2)"
    assert str(p("rbp")) == "gRBP"
    assert str(p("gm_map")) == "GMAP"
    assert str(p("RBP(p=0.8)")) == "RBP"
    assert str(p("RR@10")) == "RR@10"


def test_helpers_are_exact():
    x = np.array([0.1, 0.2, 0.3, 1e16, 1.0, -1e16, 0.7])
    off = np.array([0, 3, 3, 6, 7])
    got = exact_cumsum(x, off, max_cells=4)
    want = []
    for s in range(len(off) - 1):
        acc = 0.0
        for v in x[off[s] : off[s + 1]]:
            acc += v
            want.append(acc)
    assert got.tolist() == want
    assert lround(np.array([0.5, 1.5, 2.5, 2.4999, 0.0])).tolist() == [1, 2, 3, 2, 0]
    v = np.array([0.1, 0.5, 0.2, 0.9, 0.3])
    g = np.array([0, 0, 0, 1, 1])
    assert suffix_max(v, g).tolist() == [0.5, 0.5, 0.2, 0.9, 0.3]
    assert geometric_mean(np.array([0.0, 1.0])) == pytest.approx(math.sqrt(1e-5))


def test_bad_input_raises():
    with pytest.raises(ValueError, match="recall level"):
        _values(["IPrec"])
    with pytest.raises(ValueError, match="rel must be an integer >= 1"):
        _values(["Bpref(rel=-1)"])


# ---- literal per-query transcriptions of trec_eval 10.0 (brute force) --------
def _ranked(qrels_q: dict, run_q: dict, depth: int | None) -> list[int]:
    """trec_eval's results_rel_list: -1 not in pool, -2 pooled unjudged, else grade."""

    def cmp(a, b):
        if a[1] != b[1]:
            return -1 if a[1] > b[1] else 1
        return (b[0] > a[0]) - (b[0] < a[0])

    docs = sorted(run_q.items(), key=functools.cmp_to_key(cmp))[:depth]
    out = []
    for d, _ in docs:
        g = qrels_q.get(d)
        out.append(-1 if g is None else (-2 if g < 0 else g))
    return out


def _ref(qrels_q: dict, rl: list[int], level: int) -> dict[str, float]:
    n_rel = sum(1 for g in qrels_q.values() if g >= level)
    rr = sum(1 for g in rl if g >= level)
    ret = len(rl)
    out: dict[str, float] = {}
    # iprec_at_recall / 11pt_avg (m_iprec_at_recall.c, m_11pt_avg.c, v10 lround)
    cuts = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    cutoffs = [int(math.floor(c * n_rel + 0.5)) for c in cuts]
    vals = [0.0] * len(cuts)
    cur = len(cuts) - 1
    while cur >= 0 and cutoffs[cur] > rr:
        cur -= 1
    int_p = rr / ret if ret else 0.0
    so_far = rr
    i = ret
    while i > 0 and so_far > 0:
        p = so_far / i
        int_p = max(int_p, p)
        if rl[i - 1] >= level:
            while cur >= 0 and so_far == cutoffs[cur]:
                vals[cur] = int_p
                cur -= 1
            so_far -= 1
        i -= 1
    while cur >= 0:
        vals[cur] = int_p
        cur -= 1
    for c, v in zip(cuts, vals):
        out[f"IPrec(recall={c})"] = v
    total = 0.0
    for v in reversed(vals):
        total += v
    out["IPrecAvg"] = total / len(cuts)
    # rbp (graded, gains / max grade) and rbp_resid, p = 0.9
    top = max([g for g in qrels_q.values() if g >= 0] + [0])
    s, cur_p, s_unj, n_unj = 0.0, 1.0, 0.0, 0
    for g in rl:
        gain = (g / top if top > 1 else g) if g > 0 else 0
        if gain:
            s += gain * cur_p
        if g < 0:
            n_unj += 1
            s_unj += cur_p
        cur_p *= 0.9
    out["gRBP"] = (1 - 0.9) * s
    out["RBPResid"] = cur_p + (1 - 0.9) * s_unj if n_unj else 0.0
    for k in (1, 3, 10):
        out[f"Unj@{k}"] = sum(1 for g in rl[:k] if g < 0) / k
        first = next((i for i, g in enumerate(rl[:k]) if g >= level), None)
        out[f"RR@{k}"] = 0.0 if first is None else 1 / (first + 1)
    ap_sum, hits = 0.0, 0
    for i, g in enumerate(rl):
        if g >= level:
            hits += 1
            ap_sum += hits / (i + 1)
    out["YAAP"] = math.log((1 + ap_sum) / (1 + n_rel - ap_sum))
    return out


_PYTREC = {
    "map": "AP", "Rprec": "Rprec", "recip_rank": "RR", "bpref": "Bpref", "infAP": "infAP",
    "ndcg": "nDCG", "P_1": "P@1", "P_3": "P@3", "recall_3": "R@3", "map_cut_3": "AP@3",
    "ndcg_cut_3": "nDCG@3", "success_1": "Success@1", "success_3": "Success@3",
    "num_ret": "NumRet", "num_rel": "NumRel", "num_rel_ret": "NumRelRet",
    "Rprec_mult_0.20": "RprecMult(mult=0.2)", "Rprec_mult_1.40": "RprecMult(mult=1.4)",
    "utility": "Utility", "binG": "BinG", "G": "G", "ndcg_rel": "nDCGRel", "Rndcg": "RnDCG",
    "relative_P_3": "RelP@3", "set_P": "SetP", "set_relative_P": "SetRelP",
    "set_recall": "SetR", "set_map": "SetAP", "set_F": "SetF",
    "num_nonrel_judged_ret": "NumNonRelJudgedRet",
}
_PYTREC_MEASURES = {
    "map", "Rprec", "recip_rank", "bpref", "infAP", "ndcg", "P.1,3", "recall.3", "map_cut.3",
    "ndcg_cut.3", "success.1,3", "num_ret", "num_rel", "num_rel_ret", "Rprec_mult", "utility",
    "binG", "G", "ndcg_rel", "Rndcg", "relative_P.3", "set_P", "set_relative_P", "set_recall",
    "set_map", "set_F", "num_nonrel_judged_ret",
}
_BRUTE = [f"IPrec(recall={c})" for c in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)]
_BRUTE += ["IPrecAvg", "gRBP", "RBPResid", "Unj@1", "Unj@3", "Unj@10", "RR@1", "RR@3", "RR@10",
           "YAAP"]

DOCS = [f"d{i}" for i in range(12)]


@st.composite
def collections(draw):
    n_q = draw(st.integers(1, 4))
    qrels, runs = {}, {}
    for q in range(n_q):
        judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=8, unique=True))
        grades = {d: draw(st.integers(-1, 3)) for d in judged}
        # trec_eval reads stale memory when every judgement of a query is negative
        # (form_res_rels.c leaves num_rel_levels unset): keep one grade >= 0
        grades[judged[0]] = max(grades[judged[0]], 0)
        qrels[f"q{q}"] = grades
    for r in range(draw(st.integers(1, 3))):
        run = {}
        for q in range(n_q + 1):  # q{n_q} is not in the qrels: ignored
            if draw(st.booleans()) and q < n_q and draw(st.integers(0, 3)) == 0:
                continue  # a query missing from the run
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
            # few distinct scores (ties), all exact in float32 (pytrec_eval's precision)
            run[f"q{q}"] = {d: float(draw(st.integers(0, 4))) / 2 for d in docs}
        if not any(q in qrels for q in run):  # a run sharing no query is refused
            run["q0"] = {DOCS[0]: 0.0}
        runs[f"r{r}"] = run
    return qrels, runs


def _run_frame(runs):
    return pd.DataFrame(
        [(name, q, d, s) for name, run in runs.items() for q, ds in run.items()
         for d, s in ds.items()],
        columns=["run", "query_id", "doc_id", "score"],
    )


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.integers(1, 2), st.sampled_from([None, 1, 3]))
def test_against_pytrec_eval_and_trec_eval_loops(coll, level, depth):
    qrels, runs = coll
    measures = list(_PYTREC.values()) + _BRUTE
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        judged = irpref.judge_inputs(qrels, _run_frame(runs), rel=level, depth=depth, warn=False)
    values = {m: irpref.parse_measure(m).compute(judged) for m in measures}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, _PYTREC_MEASURES, relevance_level=level)
    queries = list(judged.queries)
    for r, name in enumerate(judged.run_names):
        run = runs[name]
        cut = {q: dict(_order(qrels.get(q, {}), ds)[:depth]) for q, ds in run.items()}
        res = evaluator.evaluate(cut)
        for q, per in res.items():
            qi = queries.index(q)
            for key, m in _PYTREC.items():
                assert values[m][r, qi] == pytest.approx(per[key], rel=1e-12, abs=1e-12), (
                    name, q, key, m)
            ref = _ref(qrels[q], _ranked(qrels[q], run[q], depth), level)
            for m in _BRUTE:
                assert values[m][r, qi] == pytest.approx(ref[m], rel=1e-12, abs=1e-12), (
                    name, q, m)
        # queries missing from the run are absent from both
        for q in qrels:
            assert (q in res) == bool(judged.present[r, queries.index(q)])


def _order(qrels_q: dict, run_q: dict) -> list[tuple[str, float]]:
    def cmp(a, b):
        if a[1] != b[1]:
            return -1 if a[1] > b[1] else 1
        return (b[0] > a[0]) - (b[0] < a[0])

    return sorted(run_q.items(), key=functools.cmp_to_key(cmp))
