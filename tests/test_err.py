"""ERR and Judged@k: hand-computed cases, literal loops, enumeration of tie orderings."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irpref
from irpref.errors import UsageError
from irpref.measures import REGISTRY


def value(qrels, run, measure, **kw) -> float:
    res = irpref.evaluate(qrels, {"r": run}, [measure], **kw)
    return float(res["value"].iloc[0])


def test_err_by_hand():
    """q1 grades a=2, b=0, c=1, d=3 (g_max = 3, so R = (2^g - 1)/8: a 3/8, c 1/8, d 7/8);
    run a b c e d:
    ERR = 3/8 + (1/3)(1/8)(5/8) + (1/5)(7/8)(5/8)(7/8) = 0.375 + 0.0260417 + 0.0957031
        = 0.4967448 (b and the unjudged e stop nobody); ERR@2 = 3/8."""
    qrels = {"q1": {"a": 2, "b": 0, "c": 1, "d": 3}}
    run = {"q1": {"a": 5, "b": 4, "c": 3, "e": 2, "d": 1}}
    exact = 3 / 8 + (1 / 3) * (1 / 8) * (5 / 8) + (1 / 5) * (7 / 8) * (5 / 8) * (7 / 8)
    assert value(qrels, run, "ERR") == pytest.approx(exact, abs=1e-15)
    assert value(qrels, run, "ERR@2") == pytest.approx(3 / 8, abs=1e-15)
    # gdeval's convention: g_max = 4
    exact4 = 3 / 16 + (1 / 3) * (1 / 16) * (13 / 16) + (1 / 5) * (7 / 16) * (13 / 16) * (15 / 16)
    assert value(qrels, run, "ERR(gmax=4)") == pytest.approx(exact4, abs=1e-15)
    # --rel 2: grade 1 (c) no longer satisfies: 3/8 + (1/5)(7/8)(5/8)
    assert value(qrels, run, "ERR", rel=2) == pytest.approx(3 / 8 + 0.2 * 7 / 8 * 5 / 8)


def test_err_bad_gmax():
    qrels = {"q1": {"a": 3}}
    run = {"q1": {"a": 1.0}}
    with pytest.raises(UsageError, match=r"ERR\(gmax=2\): the qrels have grade 3 > gmax=2"):
        value(qrels, run, "ERR(gmax=2)")
    with pytest.raises(UsageError, match="gmax must be >= 1"):
        value(qrels, run, "ERR(gmax=0)")


def test_err_no_relevant_and_empty():
    qrels = {"q1": {"a": 0}, "q2": {"b": 1}}
    run = {"q1": {"a": 1.0}, "q2": {"x": 1.0}}
    res = irpref.evaluate(qrels, {"r": run}, ["ERR", "ERR@5"])
    assert (res["value"] == 0).all()


def literal_err(grades: list[int], rel: int, gmax: int, k: int | None) -> float:
    """ERR by the paper's loop (Chapelle et al. 2009, Algorithm 2)."""
    p, total = 1.0, 0.0
    for i, g in enumerate(grades[:k] if k else grades, start=1):
        r = (2.0**g - 1) / 2.0**gmax if g >= max(rel, 1) else 0.0
        total += p * r / i
        p *= 1 - r
    return total


def trec_order(run: dict[str, float]) -> list[str]:
    return [d for d, _ in sorted(sorted(run.items(), reverse=True), key=lambda x: -x[1])]


DOCS = [f"d{i:02d}" for i in range(14)]


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(
    grades=st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 4), min_size=1, max_size=10),
    scores=st.dictionaries(st.sampled_from(DOCS), st.integers(0, 6), min_size=0, max_size=12),
    rel=st.integers(1, 3),
    k=st.sampled_from([None, 1, 3, 5, 20]),
)
def test_err_against_literal_loop(grades, scores, rel, k):
    qrels = {"q": grades, "other": {"z": 1}}
    run = {"q": {d: float(s) for d, s in scores.items()}, "other": {"z": 1.0}}
    gmax = max(max(grades.values()), 1)
    ranked = [grades.get(d, -(10**9)) for d in trec_order(run["q"])]
    name = "ERR" if k is None else f"ERR@{k}"
    res = irpref.evaluate(qrels, {"r": run}, [name], rel=rel, missing="zero")
    got = float(res.loc[res["query"] == "q", "value"].iloc[0])
    assert got == pytest.approx(literal_err(ranked, rel, gmax, k), abs=1e-12)


def test_judged_by_hand():
    """Qrels judge a (1), b (0), c (-1: in the qrels, so judged for ir_measures);
    run a x b c y: Judged@1 = 1, Judged@2 = 1/2, Judged@4 = 3/4, and Judged@10 =
    3/5: five retrieved, ir_measures divides by min(k, number retrieved)."""
    qrels = {"q1": {"a": 1, "b": 0, "c": -1}}
    run = {"q1": {"a": 5, "x": 4, "b": 3, "c": 2, "y": 1}}
    got = irpref.evaluate(qrels, {"r": run}, ["Judged@1", "Judged@2", "Judged@4", "Judged@10"])
    assert got["value"].tolist() == [1.0, 0.5, 0.75, 0.6]


def test_judged_needs_cutoff():
    with pytest.raises(ValueError, match="needs a cut-off"):
        irpref.evaluate({"q": {"a": 1}}, {"r": {"q": {"a": 1.0}}}, ["Judged"])


def all_orderings(run: dict[str, float]):
    """Every ordering of ``run`` consistent with its scores (ties permuted)."""
    items = sorted(run.items(), key=lambda x: -x[1])
    groups = [list(g) for _, g in itertools.groupby(items, key=lambda x: x[1])]
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [d for perm in perms for d, _ in perm]


@settings(max_examples=120, deadline=None)
@given(
    grades=st.dictionaries(st.sampled_from(DOCS[:8]), st.integers(-1, 2), max_size=6),
    scores=st.dictionaries(st.sampled_from(DOCS[:8]), st.integers(0, 2), min_size=1, max_size=7),
    k=st.integers(1, 8),
)
def test_judged_expected_against_enumeration(grades, scores, k):
    qrels = {"q": grades or {"zz": 1}}
    run = {"q": {d: float(s) for d, s in scores.items()}}
    orders = list(all_orderings(run["q"]))
    brute = np.mean([sum(d in qrels["q"] for d in o[:k]) / min(k, len(o)) for o in orders])
    got = value(qrels, run, f"Judged@{k}", ties="expected")
    assert got == pytest.approx(brute, abs=1e-12)


def test_policies_stated():
    assert REGISTRY["ERR"].expected is None
    assert REGISTRY["Judged"].expected is not None
    with pytest.raises(ValueError, match="no tie-aware"):
        value({"q": {"a": 1}}, {"q": {"a": 1.0}}, "ERR", ties="expected")


def test_num_q_and_num_ret_documented():
    assert "quer" in REGISTRY["NumQ"].formula.lower()
    assert "retrieved" in REGISTRY["NumRet"].formula.lower()
