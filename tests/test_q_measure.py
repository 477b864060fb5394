"""NTCIR's Q-measure, the family added as one family module beside its bounds
module (measures/q_measure.py, measures/q_measure_bounds.py): NTCIREVAL's
printed values, hand-computed values from the paper's definition, a literal
transcription of that definition, the tie-aware kernel against every ordering
of the tied documents, and the bounds rule against every assignment."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
from helpers import irpref_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_tie_aware import check_against_brute_force
from test_tie_aware import collections as tied_collections

import irpref
from irpref.evaluate import judge_inputs
from irpref.measures import REGISTRY, parse_measure
from irpref.measures.bounds import enumerate_bounds, residual_bounds, top_grade

DOCS = [f"d{i:02d}" for i in range(10)]


def values(qrels, run, names, **kw) -> dict[str, float]:
    res = irpref.evaluate(qrels, {"r": run}, names, **kw)
    return dict(zip(res["measure"], res["value"]))


def trec_order(run: dict[str, float]) -> list[str]:
    """Score descending, docid descending on ties (trec_eval's order)."""
    return [d for d, _ in sorted(sorted(run.items(), reverse=True), key=lambda x: -x[1])]


def literal_q(grades: dict[str, int], ranking: list[str], rel=1, beta=1.0, gain="linear",
              k=None) -> float:
    """Q@k transcribed from the definition (Sakai 2004; Sakai & Kando 2008; NTCIREVAL's Q@k),
    one rank at a time: BR(r) = (C(r) + beta cg(r)) / (r + beta cg*(r))."""
    def g(grade):
        return (2.0 ** grade - 1.0 if gain == "exp" else float(grade)) if grade >= rel else 0.0

    ideal = sorted((g(x) for x in grades.values() if x >= rel), reverse=True)
    big_r = len(ideal)
    if big_r == 0:
        return 0.0
    total, count, cum = 0.0, 0, 0.0
    for r, doc in enumerate(ranking if k is None else ranking[:k], start=1):
        if grades.get(doc, -1) >= rel:
            count += 1
            cum += g(grades[doc])
            total += (count + beta * cum) / (r + beta * sum(ideal[:r]))
    return total / (big_r if k is None else min(big_r, k))


def test_the_record():
    fam = REGISTRY["Q"]
    assert fam.orientation == "higher" and fam.range == "[0, 1]"
    assert "Sakai" in fam.source and fam.expected is not None and not fam.ties_note
    assert fam.compact and fam.compact_expected and fam.bounds is not None
    assert not fam.bounds_exact and fam.bounds_note
    assert str(parse_measure("Q-measure@10")) == "Q@10"  # NTCIREVAL's name, from the record
    assert str(parse_measure("Q(beta=1.0,gain=linear)")) == "Q"  # defaults dropped


def test_ntcireval_printed_values():
    """NTCIREVAL's README (version 141207) evaluates its sample.res (dummy11 L0,
    dummy01 L3, dummy12 unjudged, dummy04 L2) against sample.rel (three L3,
    three L2, four L1, one L0) with gains 1:2:3 and prints Q-measure= 0.0967,
    Q@1000= 0.0967, AP= 0.1000; with cut-off 2 it prints Q@0002= 0.2500 (the
    reference outputs in pyNTCIREVAL's tests/dat). By hand: BR(2) = (1 + 3) /
    (2 + 6), BR(4) = (2 + 5) / (4 + 11), over R = 10: 0.09667."""
    qrels = {"q": {**{f"dummy0{i}": 3 for i in (1, 2, 3)}, **{f"dummy0{i}": 2 for i in (4, 5, 6)},
                   **{f"dummy0{i}": 1 for i in (7, 8, 9)}, "dummy10": 1, "dummy11": 0}}
    run = {"q": {"dummy11": 4.0, "dummy01": 3.0, "dummy12": 2.0, "dummy04": 1.0}}
    for ties in ("docid", "expected"):
        got = values(qrels, run, ["Q", "Q@1000", "Q@2", "AP", "Q(beta=0)"], ties=ties)
        assert round(got["Q"], 4) == 0.0967 and round(got["Q@1000"], 4) == 0.0967
        assert got["Q@2"] == pytest.approx(0.25, abs=1e-15)
        assert got["Q"] == pytest.approx((4 / 8 + 7 / 15) / 10, abs=1e-15)
        assert got["Q(beta=0)"] == got["AP"] == pytest.approx(0.1, abs=1e-15)


def test_by_hand():
    """grades a=3, b=1, c=2, d=0, e=2 (e not retrieved); ranking b, x (unjudged),
    a, d, c. Ideal gains 3, 2, 2, 1: cg* = 3, 5, 7, 8. Relevant at ranks 1, 3, 5
    with C = 1, 2, 3 and cg = 1, 4, 6."""
    qrels = {"q": {"a": 3, "b": 1, "c": 2, "d": 0, "e": 2}}
    run = {"q": {"b": 5.0, "x": 4.0, "a": 3.0, "d": 2.0, "c": 1.0}}
    got = values(qrels, run, ["Q", "Q@3", "Q(beta=2)", "Q(gain=exp)", "Q(rel=2)", "Q@1"])
    f = Fraction
    assert got["Q"] == pytest.approx(float((f(2, 4) + f(6, 10) + f(9, 13)) / 4), abs=1e-15)
    assert got["Q@3"] == pytest.approx(float((f(2, 4) + f(6, 10)) / 3), abs=1e-15)
    assert got["Q@1"] == pytest.approx(0.5, abs=1e-15)
    # beta = 2: (1 + 2) / (1 + 6), (2 + 8) / (3 + 14), (3 + 12) / (5 + 16)
    assert got["Q(beta=2)"] == pytest.approx(
        float((f(3, 7) + f(10, 17) + f(15, 21)) / 4), abs=1e-15)
    # gain 2^g - 1: a 7, b 1, c 3, e 3; cg* = 7, 10, 13, 14; cg = 1, 8, 11
    assert got["Q(gain=exp)"] == pytest.approx(
        float((f(2, 8) + f(10, 16) + f(14, 19)) / 4), abs=1e-15)
    # rel = 2: b is not relevant (gains nothing); R = 3, cg* = 3, 5, 7; a at 3, c at 5
    assert got["Q(rel=2)"] == pytest.approx(float((f(4, 10) + f(7, 12)) / 3), abs=1e-15)


def test_one_tie_group_in_closed_form():
    """One relevant document of grade g among n tied ones: E[Q] is the mean of
    (1 + beta g) / (j + beta g) over its n equally likely positions j."""
    for n in range(1, 7):
        for g in (1, 3):
            run = {"q": {f"t{i}": 1.0 for i in range(n)}}
            qrels = {"q": {"t0": g, **{f"t{i}": 0 for i in range(1, n)}}}
            got = values(qrels, run, ["Q", "Q(beta=2)"], ties="expected")
            for beta, name in ((1.0, "Q"), (2.0, "Q(beta=2)")):
                want = sum((1 + beta * g) / (j + beta * g) for j in range(1, n + 1)) / n
                assert got[name] == pytest.approx(want, abs=1e-14), (n, g, beta)


@st.composite
def graded(draw):
    grades = {d: draw(st.integers(-1, 3)) for d in draw(
        st.lists(st.sampled_from(DOCS), min_size=1, max_size=8, unique=True))}
    docs = draw(st.lists(st.sampled_from(DOCS + ["u1", "u2"]), min_size=1, max_size=9,
                         unique=True))
    run = {d: float(draw(st.integers(0, 20))) for d in docs}
    return grades, run


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(data=graded(), rel=st.integers(1, 3), beta=st.sampled_from([0.0, 0.5, 1.0, 3.0]),
       gain=st.sampled_from(["linear", "exp"]), k=st.one_of(st.none(), st.integers(1, 10)))
def test_against_the_literal_definition(data, rel, beta, gain, k):
    grades, run = data
    name = f"Q(beta={beta},gain={gain},rel={rel})" + (f"@{k}" if k else "")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = irpref.evaluate({"q": grades}, {"r": {"q": run}}, [name], rel=1)
    want = literal_q(grades, trec_order(run), rel, beta, gain, k)
    assert float(got["value"].iloc[0]) == pytest.approx(want, abs=1e-12), name


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=graded(), k=st.one_of(st.none(), st.integers(1, 10)))
def test_beta_zero_is_average_precision(data, k):
    grades, run = data
    cut = f"@{k}" if k else ""
    got = values({"q": grades}, {"q": run}, [f"Q(beta=0){cut}", f"AP{cut}"])
    ap = got[f"AP{cut}"]
    if k:  # Q@k divides by min(R, k), AP@k by R
        big_r = sum(1 for g in grades.values() if g >= 1)
        ap = ap * big_r / min(big_r, k) if big_r else 0.0
    assert got[f"Q(beta=0){cut}"] == pytest.approx(ap, abs=1e-12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tied_collections(), depth=st.one_of(st.none(), st.integers(1, 6)),
       rel=st.integers(1, 2), k=st.integers(1, 7))
def test_expected_equals_the_mean_over_every_ordering(data, depth, rel, k):
    qrels, runs = data
    check_against_brute_force(qrels, runs, ["Q", f"Q@{k}", f"Q(beta=3,gain=exp)@{k}",
                                             "Q(beta=0.5,rel=2)"], depth=depth, rel=rel)


# ---- the bounds rule ------------------------------------------------------------
@st.composite
def judged_sets(draw, top):
    n_q = draw(st.integers(1, 2))
    qrels, run = {}, {}
    for q in range(n_q):
        judged = draw(st.lists(st.sampled_from(DOCS[:6]), min_size=1, max_size=5, unique=True))
        qrels[f"q{q}"] = {d: draw(st.integers(-1, top)) for d in judged}
        docs = draw(st.lists(st.sampled_from(DOCS[:6] + ["u1", "u2", "u3"]), min_size=1,
                             max_size=6, unique=True))
        run[f"q{q}"] = {d: draw(st.sampled_from([1.0, 2.0, 3.0])) for d in docs}
    return qrels, {"r": run}


def _bounds_and_brute(data, ties, names):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        judged = judge_inputs(*data, ties=ties)
    for name in names:
        m = parse_measure(name)
        lo, hi = residual_bounds(judged, [m])[m]
        yield judged, name, m.compute(judged), lo, hi, enumerate_bounds(judged, m)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=judged_sets(top=1), ties=st.sampled_from(["docid", "input", "expected"]),
       k=st.integers(1, 5))
def test_bounds_are_exact_when_the_top_grade_is_the_level(data, ties, k):
    """T = rel: every assignment is binary and the scan over j is exact."""
    for judged, name, _, lo, hi, (want_lo, want_hi) in _bounds_and_brute(
            data, ties, ["Q", f"Q@{k}", f"Q(beta=3)@{k}"]):
        assert top_grade(judged) <= 1
        np.testing.assert_allclose(lo, want_lo, rtol=1e-9, atol=1e-9, err_msg=name)
        np.testing.assert_allclose(hi, want_hi, rtol=1e-9, atol=1e-9, err_msg=name)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=judged_sets(top=3), ties=st.sampled_from(["docid", "expected"]),
       k=st.integers(1, 5))
def test_bounds_hold_every_assignment_on_graded_qrels(data, ties, k):
    """T > rel: an outer bound, holding the value and every assignment's."""
    for _, name, value, lo, hi, (want_lo, want_hi) in _bounds_and_brute(
            data, ties, ["Q", f"Q@{k}", f"Q(beta=2,gain=exp)@{k}", "Q(rel=2)"]):
        assert np.all(lo <= value + 1e-12) and np.all(value <= hi + 1e-12), name
        assert np.all(lo <= want_lo + 1e-9) and np.all(want_hi <= hi + 1e-9), (name, lo, want_lo,
                                                                                 hi, want_hi)
        assert np.all(hi <= 1.0) and np.all(lo >= 0.0)


def test_bounds_collapse_without_unjudged_documents():
    qrels = {"q": {"a": 3, "b": 1, "c": 2}}
    run = {"r": {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}}
    judged = judge_inputs(qrels, run)
    m = parse_measure("Q@2")
    lo, hi = residual_bounds(judged, [m])[m]
    assert lo[0, 0] == hi[0, 0] == m.compute(judged)[0, 0]


# ---- parameters and the command line ---------------------------------------------
@pytest.mark.parametrize("text, message", [
    ("Q(beta=-1)", "beta must be >= 0"),
    ("Q(beta=nan)", "beta must be"),
    ("Q(gain=log)", "gain must be one of linear, exp"),
    ("Q(rel=0)", "rel must be an integer >= 1"),
])
def test_parameters_are_validated(text, message):
    with pytest.raises(irpref.errors.UsageError, match=message.replace("(", r"\(")):
        parse_measure(text)


@pytest.mark.slow
def test_cli_lists_and_evaluates_it(tmp_path):
    shown = irpref_cli("measures", "Q-measure")
    assert shown.returncode == 0, shown.stderr
    assert "Q(...)[@k]" in shown.stdout and "Sakai" in shown.stdout
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q 0 a 3\nq 0 b 1\nq 0 c 2\nq 0 d 0\nq 0 e 2\n")
    run = tmp_path / "run.txt"
    run.write_text("".join(f"q Q0 {d} {i + 1} {5 - i} r\n" for i, d in enumerate("bxadc")))
    out = irpref_cli("evaluate", qrels, run, "-m", "Q", "Q@3", "--format", "tsv")
    assert out.returncode == 0, out.stderr
    rows = dict(line.split("\t")[-2:] for line in out.stdout.strip().splitlines()[1:])
    assert float(rows["Q"]) == pytest.approx((0.5 + 0.6 + 9 / 13) / 4, abs=1e-4)
    bad = irpref_cli("evaluate", qrels, run, "-m", "Q(beta=-1)")
    assert bad.returncode == 2 and "beta must be >= 0" in bad.stderr
    assert "Traceback" not in bad.stderr
