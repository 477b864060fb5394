"""Outer residual bounds of trec_eval's nDCGRel, RnDCG and G
(irpref.measures.trec_gain_bounds) against every assignment, on graded qrels."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from helpers import write_trec
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from irpref.evaluate import judge_inputs
from irpref.measures import parse_measure
from irpref.measures.bounds import enumerate_bounds, residual_bounds

DOCS = list("abcdefgh")
TEXTS = ["nDCGRel", "RnDCG", "RnDCG(rel=2)", "G"]
TOL = 1e-9


@st.composite
def graded(draw):
    """2 runs, 2 queries, <= 7 retrieved, grades -1 (pooled, unjudged) .. top."""
    top = draw(st.integers(1, 3))
    qrels, runs = {}, {}
    for q in range(2):
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True))
        qrels[f"q{q}"] = {d: draw(st.integers(-1, top)) for d in docs}
    for r in range(2):
        runs[f"r{r}"] = {q: {d: draw(st.sampled_from([0.5, 1.0, 2.0]))
                             for d in draw(st.lists(st.sampled_from(DOCS), max_size=7,
                                                    unique=True))} or {"a": 1.0}
                         for q in qrels}
    return qrels, runs


def _judge(tmp_path, data, ties="docid"):
    qrels, runs = data
    qp, rp = write_trec(tmp_path, qrels, runs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return judge_inputs(qp, rp, ties=ties)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=graded(), ties=st.sampled_from(["docid", "input"]))
def test_outer_bounds_hold_every_assignment(tmp_path_factory, data, ties):
    judged = _judge(tmp_path_factory.mktemp("g"), data, ties)
    counts = np.diff(judged.offsets)
    unj = np.add.reduceat(judged.grade < 0, judged.offsets[:-1]) if judged.n_items else counts
    assume(np.all(np.where(counts > 0, unj, 0) <= 4))
    for text in TEXTS:
        m = parse_measure(text)
        value = m.compute(judged)
        lo, hi = residual_bounds(judged, [m])[m]
        want_lo, want_hi = enumerate_bounds(judged, m)
        assert np.all(lo <= value + TOL) and np.all(value <= hi + TOL), text
        assert np.all(lo <= want_lo + TOL), (text, lo, want_lo)
        assert np.all(want_hi <= hi + TOL), (text, hi, want_hi)
        assert np.all((lo >= -TOL) & (hi <= 1 + TOL)), text  # every term lies in [0, 1]


def test_nothing_unjudged_keeps_the_value(tmp_path):
    data = ({"q0": {"a": 2, "b": 0, "c": 1}}, {"r": {"q0": {"a": 3.0, "b": 2.0, "c": 1.0}}})
    judged = _judge(tmp_path, data)
    for text in TEXTS:
        m = parse_measure(text)
        lo, hi = residual_bounds(judged, [m])[m]
        assert np.array_equal(lo, m.compute(judged)) and np.array_equal(hi, lo), text


def test_g_bounds_by_hand(tmp_path):
    """qrels a = 2; the run ranks x (unjudged) then a; T = 2, u = 1, I0 = 2.
    Plain: a at rank 2 has S = 2, C = 2 + 1 -> G = 2 / log2(3) / 2.
    Upper: a's cost less T x (unjudged above) is below 0, so its term <= 2:
    (2 + T u) / (I0 + T u) = 1 (reached: x at grade 2).
    Lower: a's term >= 2 / log2(2 + (CT = 2 + 2) - 2) = 1; x's weight c =
    1 / log2(1 + CT(1) - 0) = 1 / log2(3); min over A in {1, 2} of (1 + c A) /
    (2 + A) = (1 + c) / 3, below the true least value (the plain one): outer."""
    data = ({"q0": {"a": 2}}, {"r": {"q0": {"x": 2.0, "a": 1.0}}})
    judged = _judge(tmp_path, data)
    m = parse_measure("G")
    lo, hi = residual_bounds(judged, [m])[m]
    c = 1 / math.log2(3)
    assert math.isclose(m.compute(judged)[0, 0], c, rel_tol=1e-12)
    assert math.isclose(hi[0, 0], 1.0, rel_tol=1e-12)
    assert math.isclose(lo[0, 0], (1 + c) / 3, rel_tol=1e-12)
    want_lo, want_hi = enumerate_bounds(judged, m)
    assert math.isclose(want_hi[0, 0], 1.0) and math.isclose(want_lo[0, 0], c)


def test_records_say_outer():
    for text in TEXTS:
        fam = parse_measure(text).family
        assert fam.bounds is not None and not fam.bounds_exact and fam.bounds_note
