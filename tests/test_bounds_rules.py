"""Residual bounds of the trec_eval extras, recall-level and search-length families
against brute force (:func:`irpref.measures.bounds.enumerate_bounds`) on small rankings:
lower <= every assignment's value <= upper, equal to the enumerated extremes
where the record says the rule is exact, and the plain value inside for the
families that treat unjudged documents as non-relevant."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irpref.evaluate import judge_inputs
from irpref.measures import parse_measure
from irpref.measures.base import REGISTRY
from irpref.measures.bounds import assign, enumerate_bounds, top_grade

CORPUS = 40

TREC = ["Bpref", "Bpref(rel=2)", "GMBpref", "infAP", "GMAP", "GMAP(rel=2)", "YAAP",
        "IPrec(recall=0.0)", "IPrec(recall=0.5)", "IPrec(recall=1.0)", "IPrecAvg",
        "RprecMult", "RprecMult(mult=0.4)", "RprecMult(mult=2.0)", "SetP", "SetR", "SetRelP",
        "SetAP", "SetF", "SetF(beta=0.5)", "Utility", "Utility(a=2.0,b=-0.5,c=1.0,d=0.1)",
        "NumNonRelJudgedRet", "NumQ", "RelP@2", "RelP(rel=2)@4"]
RECALL = ["RL(e=ap,z=ap)", "RL(e=ndcg,z=mean,impute=optimistic)@3", "RL(e=lin,z=sl3)",
          "RL(e=rbp,z=rr,impute=none)", "RL(e=ndcg,z=ndcg,impute=optimistic)",
          "RL(e=rr,z=rbp)@4", "RL-AP", "RL-AP(impute=optimistic)@3", "RL-AP(impute=none)",
          "RL-RR", "RL-nDCG@4", "RL-nDCG(impute=none)", "RL-RBP(p=0.5)",
          "TSE(e=ap)", "TSE(e=lin,impute=optimistic)@3", "TSE(e=rbp,impute=none)",
          "SL1", "SL1(impute=optimistic)@3", "SL3", "SL3(impute=optimistic)@4",
          "RE", "RE(impute=optimistic)@3",
          "ASL", "ASL(missing=after)", "ASL(missing=corpus)@4", "ASL(golds=2)", "ASL@3"]
MINE = {"Bpref", "GMBpref", "infAP", "GMAP", "YAAP", "IPrec", "IPrecAvg", "RprecMult", "SetP",
        "SetR", "SetRelP", "SetAP", "SetF", "Utility", "NumNonRelJudgedRet", "NumQ", "RelP",
        "Unj", "RL", "RL-AP", "RL-RR", "RL-nDCG", "RL-RBP", "TSE", "SL1", "SL3", "RE", "ASL"}
# (the diversity families: tests/test_bounds_diversity.py)
# families whose kernels skip unjudged documents instead of reading them as
# non-relevant: their plain value need not lie in the interval
JUDGED_ONLY = {"Bpref", "GMBpref", "infAP", "NumNonRelJudgedRet"}


def test_every_family_of_mine_declares_its_bounds():
    tested = {parse_measure(t).name for t in TREC + RECALL}
    for name in MINE:
        fam = REGISTRY[name]
        assert fam.bounds is not None or fam.bounds_note, name
        assert fam.bounds is None or name in tested, name
        if not fam.bounds_exact:
            assert fam.bounds_note, name


@st.composite
def collections(draw):
    """2 runs, 2-3 queries, <= 6 retrieved and <= 4 unjudged per ranking, grades
    -1 (pooled, unjudged) .. 2, tied scores, queries without relevant documents."""
    n_q = draw(st.integers(2, 3))
    docs = [f"d{i}" for i in range(9)]
    qrels = []
    for q in range(n_q):
        for d in docs:
            g = draw(st.sampled_from([None, None, -1, 0, 0, 1, 2]))
            if g is not None:
                qrels.append((f"q{q}", d, g))
    qrels = qrels or [("q0", "d0", 1)]
    judged = {(q, d): g for q, d, g in qrels}
    runs = {}
    for r in range(2):
        rows = []
        for q in range(n_q):
            picked = draw(st.lists(st.sampled_from(docs), unique=True, max_size=6))
            unj = 0
            for d in picked:
                if judged.get((f"q{q}", d), -1) < 0:
                    unj += 1
                    if unj > 4:
                        continue
                rows.append((f"q{q}", d, float(draw(st.integers(0, 2)))))
        runs[f"run{r}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]), runs


def judge(coll, ties, depth):
    qrels, runs = coll
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return judge_inputs(qrels, runs, ties=ties, depth=depth, corpus_size=CORPUS)


def rule_bounds(judged, m):
    """(lower, upper) as the record declares them ('monotone' or a rule)."""
    rule = m.family.bounds
    if rule == "monotone":
        shape = (judged.n_runs, judged.n_queries)
        return m.compute(judged), m.compute(assign(judged, top_grade(judged))).reshape(shape)
    return rule(judged, m)


def check(judged, text):
    m = parse_measure(text)
    fam = m.family
    try:
        value = m.compute(judged)
    except ValueError:  # e.g. a cut-off refused under ties="expected"
        return
    lower, upper = rule_bounds(judged, m)
    lo, hi = enumerate_bounds(judged, m)
    # every assignment undefined (NaN): enumerate_bounds leaves its +-inf start
    lo, hi = np.where(np.isinf(lo), np.nan, lo), np.where(np.isinf(hi), np.nan, hi)
    tol = 1e-9
    assert lower.shape == upper.shape == value.shape
    defined = ~np.isnan(lo)
    assert np.array_equal(np.isnan(lower), ~defined), (text, lower, lo)
    assert np.array_equal(np.isnan(upper), np.isnan(hi)), (text, upper, hi)
    assert np.all(lower[defined] <= lo[defined] + tol), (text, lower, lo)
    assert np.all(upper[defined] >= hi[defined] - tol), (text, upper, hi)
    if fam.bounds_exact:
        np.testing.assert_allclose(lower, lo, rtol=1e-9, atol=1e-12, err_msg=text)
        np.testing.assert_allclose(upper, hi, rtol=1e-9, atol=1e-12, err_msg=text)
    if fam.name not in JUDGED_ONLY:
        ok = ~np.isnan(value)
        assert np.all(lower[ok] <= value[ok] + tol), (text, lower, value)
        assert np.all(value[ok] <= upper[ok] + tol), (text, upper, value)


def _policies(text):
    fam = parse_measure(text).family
    return ["docid", "input", "expected"] if fam.expected is not None else ["docid", "input"]


CASES = [(t, p) for t in TREC + RECALL for p in _policies(t)]


@pytest.mark.parametrize(("text", "ties"), CASES)
@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(coll=collections(), depth=st.sampled_from([None, None, 3, 5]))
def test_rule_against_enumeration(text, ties, coll, depth):
    check(judge(coll, ties, depth), text)
