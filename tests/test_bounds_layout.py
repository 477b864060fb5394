"""Residual bounds on compact judged rankings (irpref.measures.bounds.with_unjudged) and
the per-item scan of unjudged_scan.Unjudged: the same intervals as on the full
layout, and the same sums as the (segment, j) pair scan they replace."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import irpref_cli, write_trec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irpref
from irpref.evaluate import judge_inputs
from irpref.judging.judged import LayoutError
from irpref.measures import parse_measure
from irpref.measures.base import REGISTRY, reads_compact
from irpref.measures.bounds import residual_bounds, unjudged_items, with_unjudged
from irpref.measures.unjudged_scan import unjudged_of

DOCS = [f"d{i}" for i in range(14)]
# every family with a bound, at a cut-off inside the rankings and beyond them
TEXTS = [t for name, fam in REGISTRY.items() if fam.bounds is not None and not fam.subtopics
         for t in fam.examples] + ["nDCG@2", "NCG@1", "R@3", "F1@2", "AP@2", "P@3", "RR@2"]


@st.composite
def collections(draw):
    """2-3 runs, 2-3 queries, up to 10 retrieved of 14 documents (many absent
    from the qrels), grades -1..2, tied scores, empty rankings."""
    qrels, runs = {}, {}
    for q in range(draw(st.integers(2, 3))):
        judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=8, unique=True))
        qrels[f"q{q}"] = {d: draw(st.integers(-1, 2)) for d in judged}
    for r in range(draw(st.integers(2, 3))):
        run = {}
        for q in qrels:
            docs = draw(st.lists(st.sampled_from(DOCS), max_size=10, unique=True))
            if docs:
                run[q] = {d: draw(st.sampled_from([0.5, 1.0, 2.0, 3.0])) for d in docs}
        runs[f"r{r}"] = run or {"q0": {"d0": 1.0}}
    return qrels, runs


def _judge(data, ties, depth, rel, layout):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return judge_inputs(*data, ties=ties, depth=depth, rel=rel, layout=layout,
                            corpus_size=50)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), ties=st.sampled_from(["docid", "input"]),
       depth=st.one_of(st.none(), st.integers(1, 6)), rel=st.integers(1, 2))
def test_compact_bounds_equal_full_bounds(data, ties, depth, rel):
    full = _judge(data, ties, depth, rel, "full")
    compact = _judge(data, ties, depth, rel, "compact")
    done = with_unjudged(compact)
    # the completed compact rankings hold the full layout's items, rank by rank
    np.testing.assert_array_equal(done.offsets, full.offsets)
    np.testing.assert_array_equal(done.grade, full.grade)
    np.testing.assert_array_equal(done.rank, full.rank)
    np.testing.assert_array_equal(unjudged_items(done), unjudged_items(full))
    assert with_unjudged(done) is done and with_unjudged(full) is full
    ms = [m for m in map(parse_measure, TEXTS) if reads_compact(m, ties)]
    got, want = residual_bounds(compact, ms), residual_bounds(full, ms)
    for m in ms:
        for a, b in zip(got[m], want[m]):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=str(m))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), ties=st.sampled_from(["docid", "expected"]),
       w=st.lists(st.floats(0, 4), min_size=60, max_size=60), k=st.integers(0, 5))
def test_per_item_scan_equals_pair_scan(data, ties, w, k):
    """head/tail/extreme/leading against the (segment, j) pair scan."""
    u = unjudged_of(_judge(data, ties, None, 1, "full"), 1)
    n = len(u.index)
    w = np.resize(np.asarray(w), n) * (u.rank < k)  # zero beyond a cut-off
    first, last = u.first(w), u.last(w)
    start = u.pair_offsets[:-1][u.segment]
    np.testing.assert_allclose(u.head(w), first[start + u.item_j], atol=1e-12)
    np.testing.assert_allclose(u.tail(w), last[start + u.item_j_bottom], atol=1e-12)
    at0 = np.arange(len(u.count), dtype=np.float64)
    for how in ("max", "min"):
        pairs = first.copy()
        pairs[u.pair_offsets[:-1]] = at0  # j = 0 holds the segment's own value
        want = u.per_segment(pairs, how)
        np.testing.assert_array_equal(u.extreme(at0, u.head(w), how), want)
    lead, lw = u.leading(w)
    assert np.all(lead.count <= u.count)
    kept = np.isin(u.index, lead.index)
    assert not np.any(w[~kept])  # nothing with a weight is left out
    np.testing.assert_array_equal(lw, w[kept])
    np.testing.assert_allclose(lead.head(lw), u.head(w)[kept], atol=1e-12)


def test_expected_ties_need_the_full_layout():
    data = ({"q0": {"d0": 1, "d1": 0}}, {"r": {"q0": {"d0": 1.0, "d5": 1.0, "d1": 0.5}}})
    compact = _judge(data, "expected", None, 1, "compact")
    with pytest.raises(LayoutError, match="ties='expected'"):
        residual_bounds(compact, [parse_measure("AP")])
    res = irpref.evaluate(*data, ["AP", "nDCG"], ties="expected", bounds=True)  # judges full
    assert (res["lower"] <= res["value"]).all() and (res["value"] <= res["upper"]).all()


@pytest.mark.slow
def test_cli_bounds_on_a_saved_compact_file(tmp_path):
    qrels, runs = write_trec(tmp_path, {"q1": {"a": 1, "b": 0, "c": 2}},
                             {"r1": {"q1": {"a": 3.0, "x": 2.0, "c": 1.0, "y": 0.5}},
                              "r2": {"q1": {"y": 3.0, "b": 2.0, "a": 1.0}}})
    saved = tmp_path / "judged.irpref"
    made = irpref_cli("judge", qrels, *runs, "--layout", "compact", "-o", saved)
    assert made.returncode == 0, made.stderr
    args = ["-m", "AP", "nDCG@2", "P@2", "--bounds", "--format", "tsv", "--per-query"]
    from_file = irpref_cli("evaluate", saved, *args)
    from_runs = irpref_cli("evaluate", qrels, *runs, *args)
    assert from_file.returncode == 0, from_file.stderr
    assert from_file.stdout == from_runs.stdout
    assert "lower" in from_file.stdout.splitlines()[0]
