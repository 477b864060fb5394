"""``summarize`` by categorical codes against the pandas groupby reading of its contract.

:func:`irpref.evaluate.summarize` groups the rows of a tidy table by the
categorical codes of ``measure`` and ``run`` (no pandas groupby over millions of
rows). Whatever the row order, null queries, unobserved categories, bounds
columns or counts, the result must equal, dtypes and digits, what
``groupby("measure", sort=False)`` then ``groupby("run", sort=False)`` with each
family's aggregate gives (the reference below); and :func:`tidy` lays out the
same rows whether every run has every query or not.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irpref.evaluate import summarize, tidy
from irpref.measures import parse_measure
from irpref.measures.arithmetic import exact_mean, mean_aggregate

MEASURES = ["AP", "GMAP", "NumRet", "nDCG@10", "RR"]


def reference(results: pd.DataFrame, counts: bool = False) -> pd.DataFrame:
    """The pandas groupby reading: measures then runs by first appearance."""
    keep = results["query"].notna() if "query" in results else slice(None)
    per_query = results[keep]
    out = []
    for measure, group in per_query.groupby("measure", sort=False, observed=True):
        aggregate = mean_aggregate(parse_measure(measure).family.aggregate)
        by_run = group.groupby("run", sort=False, observed=True)
        frame = pd.DataFrame({"run": by_run["value"].size().index, "measure": measure})
        for col in [c for c in ("value", "lower", "upper") if c in group]:
            frame[col] = by_run[col].agg(
                lambda v, f=aggregate: float(f(v.to_numpy(np.float64)))).to_numpy()
        if counts:
            frame["n"] = by_run["value"].size().to_numpy(np.int64)
        out.append(frame)
    return pd.concat(out, ignore_index=True)


@st.composite
def tables(draw):
    n_runs = draw(st.integers(1, 4))
    n_queries = draw(st.integers(1, 6))
    names = draw(st.lists(st.sampled_from(MEASURES), min_size=1, max_size=3, unique=True))
    rows = draw(st.lists(st.tuples(st.integers(0, n_runs), st.integers(-1, n_queries - 1),
                                   st.integers(0, len(names) - 1),
                                   st.floats(0, 1, allow_nan=False)),
                         min_size=1, max_size=40))
    runs = [f"r{i}" for i in range(n_runs + 1)]  # the last one never observed, maybe
    frame = pd.DataFrame({
        "run": pd.Categorical.from_codes([r for r, *_ in rows], categories=runs),
        "query": pd.Categorical.from_codes([q for _, q, *_ in rows],
                                           categories=[f"q{i}" for i in range(n_queries)]),
        "measure": pd.Categorical.from_codes([m for _, _, m, _ in rows],
                                             categories=pd.Index(names)),
        "value": [v for *_, v in rows],
    })
    if draw(st.booleans()):
        frame["lower"] = frame["value"] / 2
        frame["upper"] = frame["value"] * 2
    return frame


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(tables(), st.booleans())
def test_codes_equal_the_groupby_reading(frame, counts):
    got = summarize(frame, counts=counts)
    if not frame["query"].notna().any():
        assert got.empty
        return
    pd.testing.assert_frame_equal(got, reference(frame, counts), check_exact=True)


def test_tidy_rows_are_grouped_by_measure_then_run():
    """tidy's layout is the one summarize reads without sorting; a mask drops
    (run, query) cells and the rows stay grouped."""

    class Judged:
        run_names = ["a", "b"]
        queries = np.array(["q1", "q2", "q3"], dtype=object)
        query_ids = pa.array(queries.tolist())

    values = {"AP": np.arange(6.0).reshape(2, 3), "NumRet": np.arange(6).reshape(2, 3) * 10}
    full = tidy(Judged, values, np.ones((2, 3), bool))
    assert list(full["run"]) == ["a"] * 3 + ["b"] * 3 + ["a"] * 3 + ["b"] * 3
    assert list(full["query"]) == ["q1", "q2", "q3"] * 4
    assert list(full["value"]) == [0, 1, 2, 3, 4, 5, 0, 10, 20, 30, 40, 50]
    mask = np.array([[True, False, True], [False, True, True]])
    part = tidy(Judged, values, mask)
    assert list(part["query"]) == ["q1", "q3", "q2", "q3"] * 2
    assert list(part["value"]) == [0, 2, 4, 5, 0, 20, 40, 50]
    assert part["query"].cat.codes.dtype == np.int8
    pd.testing.assert_frame_equal(summarize(part, counts=True), reference(part, True))


@pytest.mark.parametrize("shuffle", [False, True])
def test_many_rows_sum_as_numpy_does(shuffle):
    """A group's mean over many rows: the exact sum rounded once (the same digits in any
    row order), the reference's aggregate over the values gathered in row order."""
    rng = np.random.default_rng(3)
    n = 200_003
    frame = pd.DataFrame({
        "run": pd.Categorical.from_codes(rng.integers(0, 3, n), categories=["x", "y", "z"]),
        "query": pd.Categorical.from_codes(rng.integers(0, 50, n),
                                           categories=[f"q{i}" for i in range(50)]),
        "measure": pd.Categorical.from_codes(np.repeat([0, 1], [n // 2, n - n // 2]),
                                             categories=pd.Index(["AP", "GMAP"])),
        "value": rng.random(n),
    })
    if not shuffle:
        frame = frame.sort_values(["measure", "run"], kind="stable", ignore_index=True)
    pd.testing.assert_frame_equal(summarize(frame, counts=True), reference(frame, True),
                                  check_exact=True)
    ap = frame[frame["measure"] == "AP"]  # GMAP: trec_eval's log-sum in order
    shuffled = ap.sample(frac=1.0, random_state=5, ignore_index=True)
    pd.testing.assert_frame_equal(summarize(shuffled).sort_values("run", ignore_index=True),
                                  summarize(ap).sort_values("run", ignore_index=True),
                                  check_exact=True)


def test_equal_values_in_another_order_give_one_mean():
    """P@10 = k/10 over 54 queries, 199/540: np.mean gives three doubles for eight orders
    of the same values, the exact mean one."""
    rng = np.random.default_rng(0)
    k = rng.integers(0, 11, 54)
    while k.sum() != 199:
        i = rng.integers(54)
        k[i] += 1 if k.sum() < 199 and k[i] < 10 else (-1 if k.sum() > 199 and k[i] else 0)
    orders = [k / 10] + [rng.permutation(k) / 10 for _ in range(7)]
    assert len({float(np.mean(o)) for o in orders}) > 1
    assert len({exact_mean(o) for o in orders}) == 1
    assert exact_mean(np.array([np.nan, 1.0])) != exact_mean(np.array([np.nan, 1.0]))  # NaN
    assert exact_mean(np.array([np.inf, 1.0])) == np.inf and np.isnan(exact_mean([]))
