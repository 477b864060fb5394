"""The exact largest gain ratio (irpref.measures.ndcg_bounds.largest_ratio,
the NumPy rounds; the C kernel is compared with it in test_bounds_kernels.py)
against a brute force over every assignment of grades, on random weights,
judged grades and cut-offs."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from irpref.measures.ndcg_bounds import largest_ratio


def brute(w, n0, judged, top, d, gain):
    """max over grades a in {0..top}^u of (n0 + sum g(a_i) w_i) / IDCG(judged + a)."""
    best = 0.0
    for a in itertools.product(range(top + 1), repeat=len(w)):
        num = n0 + sum(gain(x) * wi for x, wi in zip(a, w))
        ideal = sorted([x for x in list(judged) + list(a) if x > 0], reverse=True)
        den = sum(gain(x) * d[p] for p, x in enumerate(ideal))
        best = max(best, num / den if den > 0 else 0.0)
    return best


@st.composite
def segments(draw):
    """Rankings of up to 8 documents, each unjudged (None) or judged with a grade,
    and judged documents not retrieved; several segments, one cut-off."""
    top = draw(st.integers(1, 3))
    k = draw(st.one_of(st.none(), st.integers(1, 6)))
    exp = draw(st.booleans())
    segs = []
    for _ in range(draw(st.integers(1, 4))):
        ranking = draw(st.lists(st.one_of(st.none(), st.integers(0, top)), max_size=8))
        if sum(x is None for x in ranking) > 4:  # at most (top + 1)^4 assignments
            ranking = [0 if x is None and i > 4 else x for i, x in enumerate(ranking)]
        unretrieved = draw(st.lists(st.integers(0, top), max_size=3))
        segs.append((ranking, unretrieved))
    return top, k, exp, segs


def _inputs(top, k, exp, segs):
    d = 1.0 / np.log2(np.arange(40) + 2.0)
    if k is not None:
        d[k:] = 0.0

    def gain(x):
        return 2.0 ** x - 1 if exp else float(x)

    ranks = [[i for i, x in enumerate(r) if x is None] for r, _ in segs]
    judged = [[x for x in r if x is not None] + list(un) for r, un in segs]
    n0 = np.array([sum(gain(x) * d[i] for i, x in enumerate(r) if x is not None)
                   for r, _ in segs])
    w = np.concatenate([d[r] for r in ranks]) if ranks else np.zeros(0)
    count = np.array([len(r) for r in ranks], np.int64)
    at_least = np.array([[sum(g >= h for g in j) for h in range(1, top + 1)] for j in judged],
                        np.int64).reshape(len(segs), top)
    layer_gain = np.diff([gain(x) for x in range(top + 1)])
    dcum = np.concatenate(([0.0], np.cumsum(d)))
    want = [brute(d[r], n, j, top, d, gain) for r, n, j in zip(ranks, n0, judged)]
    return want, (w, count, np.arange(len(segs)), n0, layer_gain, at_least, dcum)


@settings(max_examples=150, deadline=None)
@given(case=segments(), from_start=st.booleans())
def test_largest_ratio_is_the_brute_force_maximum(case, from_start):
    """From 0 or from the value with nothing assigned (a ratio some assignment
    reaches, as Dinkelbach's method needs)."""
    want, args = _inputs(*case)
    if from_start:
        w, count, seg_query, n0, layer_gain, at_least, dcum = args
        ideal = (layer_gain[None, :] * dcum[at_least]).sum(axis=1)
        args = (*args, np.divide(n0, ideal, out=np.zeros(len(n0)), where=ideal > 0))
    got = largest_ratio(*args)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
