"""Residual bounds of the diversity measures (irpref.measures.diversity_bounds)
against every assignment of subtopic relevance to the unjudged documents,
evaluated by the literal transcription of ndeval's definitions (``brute``)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_diversity import brute, frame, trec_order

import irpref
from irpref.measures import parse_measure

DOCS = [f"d{i}" for i in range(6)]
LABELS = ["0", "1", "2", "x"]
TOL = 1e-9
FAMILIES = ("alpha-nDCG", "ERR-IA", "nERR-IA", "MAP-IA", "S-recall")
EXACT = ("ERR-IA", "MAP-IA", "S-recall")


def every_assignment(sub: pd.DataFrame, ranking: list[str], rel: int):
    """Yield the subtopic qrels of every assignment: each unjudged retrieved
    document relevant (at the top grade) or not to each label of the topic."""
    top = int(sub["grade"].max())
    unjudged = [d for d in ranking if d not in set(sub["doc"])]
    labels = sorted(set(sub["subtopic"]))
    pairs = [(d, t) for d in unjudged for t in labels] if top >= rel else []
    for chosen in itertools.product((False, True), repeat=len(pairs)):
        extra = [("q", t, d, top) for (d, t), on in zip(pairs, chosen) if on]
        yield pd.concat([sub, frame(extra)], ignore_index=True) if extra else sub


def bounds(sub, run, names, rel):
    res = irpref.evaluate(None, {"r": run}, names, subtopics=sub, rel=rel, bounds=True)
    labels = {str(parse_measure(n)): n for n in names}
    return {labels.get(m, m): (lo, v, hi) for m, v, lo, hi in
            res[["measure", "value", "lower", "upper"]].itertuples(index=False)}


@pytest.mark.slow
@settings(max_examples=120, deadline=None)
@given(
    rows=st.lists(st.tuples(st.sampled_from(LABELS), st.sampled_from(DOCS), st.integers(0, 2)),
                  min_size=1, max_size=10, unique_by=lambda r: (r[0], r[1])),
    scores=st.dictionaries(st.sampled_from(DOCS + ["u1", "u2"]), st.integers(0, 4),
                           min_size=1, max_size=7),
    k=st.integers(1, 6),
    alpha=st.sampled_from([0.5, 0.25, 1.0, 0.0]),
    rel=st.integers(1, 2),
)
def test_every_assignment_lies_inside(rows, scores, k, alpha, rel):
    sub = frame([("q", t, d, g) for t, d, g in rows])
    run = {"q": {d: float(s) for d, s in scores.items()}}
    ranking = trec_order(run["q"])
    unjudged = [d for d in ranking if d not in set(sub["doc"])]
    if len(unjudged) * sub["subtopic"].nunique() > 9:
        return  # more than 512 assignments: too many to enumerate here
    names = {"alpha-nDCG": f"alpha-nDCG(alpha={alpha})@{k}", "ERR-IA": f"ERR-IA(alpha={alpha})@{k}",
             "nERR-IA": f"nERR-IA(alpha={alpha})@{k}", "MAP-IA": "MAP-IA",
             "MAP-IA@k": f"MAP-IA@{k}", "S-recall": f"S-recall@{k}"}
    got = bounds(sub, run, list(names.values()), rel)
    seen = {key: [] for key in names}
    for assigned in every_assignment(sub, ranking, rel):
        at_k = brute(assigned, ranking, k, alpha, rel)
        full = brute(assigned, ranking, None, alpha, rel)
        for key in names:
            family = key.removesuffix("@k")
            seen[key].append(full[family] if key == "MAP-IA" else at_k[family])
    for key, name in names.items():
        lo, value, hi = got[name]
        want_lo, want_hi = min(seen[key]), max(seen[key])
        assert lo <= value + TOL and value <= hi + TOL, (name, lo, value, hi)
        assert lo <= want_lo + TOL and want_hi <= hi + TOL, (name, lo, want_lo, want_hi, hi)
        if key.removesuffix("@k") in EXACT:
            assert lo == pytest.approx(want_lo, abs=TOL), (name, lo, want_lo)
            assert hi == pytest.approx(want_hi, abs=TOL), (name, hi, want_hi)


def test_by_hand():
    """Subtopics 1 {a}, 2 {b}; label 3 judged, nothing relevant; the run ranks a,
    u (unjudged), b. S-recall@1 = 1/2: u beyond k = 1 can make label 3 a
    subtopic it does not cover (1/3); nothing unjudged within k: upper 1/2.
    S-recall@2: u within k covers every label (1). ERR-IA@2 (alpha = 0.5, N =
    1 + 0.5/2): A0 = 1, upper with u relevant to 1, 2, 3: (1 + 1/2 (0.5 + 1) +
    1/2) / (3 N) vs z' = 0: (1 + 1/2 (0.5 + 1)) / (2 N); lower: label 3 on u
    alone (e = 1/2): (1 + 1/2) / (3 N) vs the plain 1 / (2 N)."""
    sub = frame([("q", "1", "a", 1), ("q", "2", "b", 1), ("q", "3", "c", 0)])
    run = {"q": {"a": 3.0, "u": 2.0, "b": 1.0}}
    got = bounds(sub, run, ["S-recall@1", "S-recall@2", "ERR-IA@2"], 1)
    assert got["S-recall@1"] == pytest.approx((1 / 3, 1 / 2, 1 / 2))
    assert got["S-recall@2"] == pytest.approx((1 / 2, 1 / 2, 1.0))
    n = 1 + 0.5 / 2
    upper = max((1 + 0.5 * 1.5 + 0.5) / (3 * n), (1 + 0.5 * 1.5) / (2 * n))
    lower = min(1 / (2 * n), 1.5 / (3 * n))
    assert got["ERR-IA@2"] == pytest.approx((lower, 1 / (2 * n), upper))


def test_records():
    for name in FAMILIES:
        fam = parse_measure(name + ("@5" if name != "MAP-IA" else "")).family
        assert fam.bounds is not None and fam.bounds_note
        assert fam.bounds_exact == (name in EXACT)


def test_all_runs_and_queries_at_once_equal_one_at_a_time():
    """The rules run on every run x query at once; each (run, query) interval
    equals the one computed for that query and run alone (Web track 2013
    subtopic qrels, two seeded runs with unjudged documents mixed in)."""
    from test_diversity import WEB, synthetic_runs

    from irpref.io.subtopics import read_subtopic_qrels

    runs = synthetic_runs(WEB)
    sub = read_subtopic_qrels(WEB)
    table = frame(list(zip(sub.query.to_pylist(), sub.subtopic.to_pylist(), sub.doc.to_pylist(),
                           sub.grade.tolist())))
    names = ["alpha-nDCG@10", "ERR-IA@10", "nERR-IA@20", "MAP-IA", "S-recall@5"]
    both = irpref.evaluate(None, runs, names, subtopics=table, bounds=True)
    assert (both["upper"] > both["lower"] + 1e-6).any()
    for (run, query), rows in both.groupby(["run", "query"]):
        alone = irpref.evaluate(None, {run: {query: runs[run][query]}}, names,
                                subtopics=table[table["query"] == query], bounds=True)
        np.testing.assert_allclose(rows[["value", "lower", "upper"]].to_numpy(),
                                   alone[["value", "lower", "upper"]].to_numpy(), atol=1e-12)
