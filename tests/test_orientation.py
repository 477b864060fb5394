"""Metric orientation (§3.1) and worst-off users/providers (§4, Appendix B)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irpref
from irpref.measures.recall_metrics import RecallLevelMetric, named_metric
from irpref.meta.orientation import figure3, precision_orientation, recall_orientation
from irpref.meta.robustness import (
    is_top_heavy,
    provider_utilities,
    subsets,
    user_utilities,
    worst_provider,
    worst_user,
)

N = 10**5
METRICS = [named_metric(k) for k in ("ap", "rr", "ndcg", "rbp")] + [
    named_metric("rbp", 0.5),
    RecallLevelMetric("lin", "mean", name="lin"),
    RecallLevelMetric("ap", "sl3", name="TSE(e=ap)"),
]


def test_closed_forms():
    ap, rr = named_metric("ap"), named_metric("rr")
    for m in (1, 2, 7):
        # RR: 1 - 1/(n-m+1) for precision; blind to the bottom item unless m = 1
        assert precision_orientation(rr, m, N) == pytest.approx(1 - 1 / (N - m + 1))
        assert recall_orientation(rr, m, N) == pytest.approx(1 - 1 / N if m == 1 else 0)
        # AP: z(1, m) = 1/m and z(m, m) = 1
        assert precision_orientation(ap, m, N) == pytest.approx((1 - 1 / (N - m + 1)) / m)
        assert recall_orientation(ap, m, N) == pytest.approx(1 / m - 1 / N)
    tse = RecallLevelMetric("ndcg", "sl3")
    assert recall_orientation(tse, 5, N, scaled=True) == pytest.approx(1.0)
    assert precision_orientation(tse, 5, N, scaled=True) == 0.0
    with pytest.raises(ValueError):
        recall_orientation(ap, 0, N)


def test_figure_3_orderings():
    """§3.1: RR dominates precision orientation; AP and R@1000 have (nearly)
    the same precision orientation and dominate nDCG and RBP in recall
    orientation; RR has no recall orientation for m > 1; TSE is the recall
    'basis' (scaled recall 1, precision 0)."""
    t = figure3(n=N)
    prec = t.pivot(index="m", columns="metric", values="precision")
    rec = t.pivot(index="m", columns="metric", values="recall")
    others = [c for c in prec.columns if c not in ("RR", "TSE")]  # TSE is scaled
    # from m = 2 on (at m = 1 every metric moves its only item from 1 to n)
    assert (prec["RR"].to_numpy()[1:, None] >= prec[others].to_numpy()[1:]).all()
    assert np.allclose(prec["AP"], prec["R@1000"], atol=1e-4)
    for col in ("nDCG", "RBP(p=0.8)"):
        assert (rec["AP"] >= rec[col] - 1e-12).all() and (rec["R@1000"] >= rec[col]).all()
    assert (rec["RR"].iloc[1:] == 0).all()
    assert (rec["TSE"] == 1).all() and (prec["TSE"].iloc[1:] == 0).all()
    # recall orientation decreases with m for every metric except TSE
    for col in ("AP", "nDCG", "RBP(p=0.8)", "R@1000"):
        assert (np.diff(rec[col].to_numpy()) < 0).all()


def test_orientation_table_api():
    table = irpref.orientation(named_metric("ap"), range(1, 4), 1000)
    assert table["m"].tolist() == [1, 2, 3]
    assert list(table.columns) == ["m", "precision", "recall"]


# ---- Appendix B: worst-off searchers and providers ------------------------


@st.composite
def positions(draw, max_m=7):
    n = draw(st.integers(10, 400))
    m = draw(st.integers(1, max_m))
    p = draw(st.lists(st.integers(1, n), min_size=m, max_size=m, unique=True))
    return sorted(p), n


@settings(max_examples=100, deadline=None)
@given(positions(), st.sampled_from(METRICS))
def test_theorems_b1_b2_worst_case_is_tse(case, metric):
    p, n = case
    tse = float(metric.exposure(np.array([p[-1]]), n)[0])
    assert tse == pytest.approx(metric.tse()(p, n))
    assert is_top_heavy(metric, p, n)  # Definition 2.2
    value, who = worst_user(metric, p, n)  # Theorem B.1 (z(1, 1) = 1)
    assert value == pytest.approx(tse, rel=1e-12, abs=1e-15)
    w, u = user_utilities(metric, p, n)
    single_last = np.flatnonzero((w.sum(axis=1) == 1) & w[:, -1])[0]
    assert u[single_last] == pytest.approx(u.min(), abs=1e-15)
    value, who = worst_provider(metric, p, n)  # Theorem B.2
    assert value == pytest.approx(tse, rel=1e-12, abs=1e-15)
    assert who.tolist() == [len(p) - 1] or value == 0


def test_subsets_and_bounds():
    assert subsets(3).shape == (7, 3)
    assert subsets(3).sum() == 12
    with pytest.raises(ValueError):
        subsets(21)
    w, eta = provider_utilities(named_metric("ap"), [1, 2], 10)
    assert sorted(eta.tolist()) == [0.5, 1.0, 1.5]
    # Fig. 1's ranking: the worst-off searcher wants only the bottom item (p = n)
    value, who = worst_user(named_metric("ap"), [2, 3, 8, 998, 999, 1000], 1000)
    assert value == pytest.approx(1 / 1000) and who.tolist() == [5]


def _leximin(x, y):
    """+1 if x is leximin-better than y, -1 if worse, 0 if equal (compare the
    worst-off first; Diaz & Mitra 2023 Eq. 9)."""
    for a, b in zip(np.sort(x), np.sort(y)):
        if a != b:
            return 1 if a > b else -1
    return 0


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(20, 80), st.data(),
       st.sampled_from([named_metric("ap"), named_metric("ndcg"), named_metric("rbp")]))
def test_theorems_b4_b6_leximin_carries_over(m, n, data, metric):
    """q = e(p) leximin-better implies the searchers' and providers' utility
    vectors are leximin-better (Theorems B.4, B.6)."""
    draw = st.lists(st.integers(1, n), min_size=m, max_size=m, unique=True)
    p, p2 = sorted(data.draw(draw)), sorted(data.draw(draw))
    order = _leximin(metric.exposure(p, n), metric.exposure(p2, n))
    if order == 0:
        return
    assert _leximin(user_utilities(metric, p, n)[1], user_utilities(metric, p2, n)[1]) == order
    assert _leximin(provider_utilities(metric, p, n)[1],
                    provider_utilities(metric, p2, n)[1]) == order
