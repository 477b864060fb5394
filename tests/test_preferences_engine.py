"""The all-pairs engine against brute force, and on real TREC data.

The brute force follows the reference implementation pref_eval: sort each
run by (score, docid) descending, number all retrieved documents from 1,
keep the positions of the relevant ones, pad with ``None`` for the relevant
documents the run did not retrieve (a run lacking a query retrieved nothing);
queries without a relevant document are skipped.
"""

from __future__ import annotations

import gzip
import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irpref
from irpref.evaluate import judge_inputs
from irpref.preferences import preference_matrices
from irpref.preferences.lexicographic import lexicographic_ranks

ALL = ["sgnLP", "rrLP", "sgnLR", "RPP", "RPP(p=dcg)", "RPP(p=inverse)",
       "RPP(grades=binary)", "RPP(grades=binary,p=dcg)", "RPP(grades=binary,p=inverse)"]


# ---------------------------------------------------------------- brute force


def ranked(run_q: dict[str, float], depth=None) -> list[str]:
    docs = sorted(run_q, key=lambda d: (run_q[d], d), reverse=True)
    return docs[:depth] if depth else docs


def vector(docs: list[str], relevant: set[str]) -> list:
    pos = [i + 1 for i, d in enumerate(docs) if d in relevant]
    return pos + [None] * (len(relevant) - len(pos))


def b_lp(x, y, rr=False):
    for a, b in zip(x, y):
        if a == b:
            continue
        ra = 0.0 if a is None else 1.0 / a
        rb = 0.0 if b is None else 1.0 / b
        return ra - rb if rr else float(np.sign(ra - rb))
    return 0.0


def b_lr(x, y):
    for a, b in zip(reversed(x), reversed(y)):
        if a == b:
            continue
        if a is None or b is None:
            return 1.0 if b is None else -1.0
        return 1.0 if a < b else -1.0
    return 0.0


def b_rpp(x, y, p):
    m = len(x)
    w = [1.0 if p == "uniform" else 1 / math.log2(i + 2) if p == "dcg" else 1 / (i + 1)
         for i in range(m)]
    inf = math.inf
    s = 0.0
    for wi, a, b in zip(w, x, y):
        a, b = (inf if a is None else a), (inf if b is None else b)
        s += wi * ((b > a) - (b < a))
    return s / sum(w)


def b_mixture(populations, docs_a, docs_b, p):
    """Σ_g p(g) RPP_g with p(g) ∝ m_g (Eq. 5 / Eq. 6)."""
    total = sum(len(rel) for rel in populations)
    return sum(len(rel) * b_rpp(vector(docs_a, rel), vector(docs_b, rel), p)
               for rel in populations if rel) / total


def brute_force(qrels, runs, rel, depth=None, subtopics=None):
    """{(measure, query, a, b): value} for all pairs a < b."""
    out = {}
    names = list(runs)
    for q in sorted(qrels):
        relevant = {d for d, g in qrels[q].items() if g >= rel}
        if not relevant:
            continue
        grades = sorted({g for g in qrels[q].values() if g >= rel})
        graded = [{d for d, g in qrels[q].items() if g >= lam} for lam in grades]
        for (ia, a), (ib, b) in itertools.combinations(enumerate(names), 2):
            da = ranked(runs[a].get(q, {}), depth)
            db = ranked(runs[b].get(q, {}), depth)
            x, y = vector(da, relevant), vector(db, relevant)
            vals = {"sgnLP": b_lp(x, y), "rrLP": b_lp(x, y, rr=True), "sgnLR": b_lr(x, y)}
            for p in ("uniform", "dcg", "inverse"):
                suffix = "" if p == "uniform" else f"p={p}"
                binary = "RPP(grades=binary" + ("," + suffix if suffix else "") + ")"
                vals[binary] = b_rpp(x, y, p)
                vals["RPP" + (f"({suffix})" if suffix else "")] = b_mixture(graded, da, db, p)
                if subtopics is not None:
                    topics = sorted({t for (qq, t, _d) in subtopics if qq == q})
                    pops = [relevant] + [
                        {d for (qq, t, d), g in subtopics.items()
                         if qq == q and t == tt and g >= rel}
                        for tt in topics
                    ]
                    vals["ST-RPP" + (f"({suffix})" if suffix else "")] = b_mixture(
                        [s for s in pops if s], da, db, p)
            for k, v in vals.items():
                out[k, q, ia, ib] = v
    return out


# ---------------------------------------------------------------- random collections


@st.composite
def collections(draw):
    n_q = draw(st.integers(1, 4))
    n_runs = draw(st.integers(1, 5))
    n_docs = draw(st.integers(2, 9))
    docs = [f"d{i}" for i in range(n_docs)]
    qrels = {}
    for q in range(n_q):
        judged = draw(st.lists(st.sampled_from(docs), unique=True, max_size=n_docs))
        if judged:
            qrels[f"q{q}"] = {d: draw(st.integers(0, 3)) for d in judged}
    if not qrels:
        qrels["q0"] = {"d0": 1}
    runs = {}
    shared = next(iter(qrels))  # every run retrieves a judged query (else it is refused)
    for r in range(n_runs):
        run = {}
        for q in [f"q{i}" for i in range(n_q)] + ["qX"]:
            if draw(st.booleans()) or (q == shared and shared not in run):
                ret = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1))
                run[q] = {d: float(draw(st.integers(0, 3))) for d in ret}
        if not any(q in qrels for q in run):  # a run sharing no query is refused
            first = next(iter(qrels))
            run[first] = {next(iter(qrels[first])): 0.0}
        runs[f"run{r}"] = run
    return qrels, runs


def check(comp, expected, measures):
    runs = comp.runs
    for name in measures:
        vals = comp.values[name]
        assert np.array_equal(vals, -vals.transpose(0, 2, 1)), name  # antisymmetric
        qs = list(comp.queries[name])
        for (k, q, ia, ib), v in expected.items():
            if k != name:
                continue
            got = vals[qs.index(q), ia, ib]
            assert got == pytest.approx(v, abs=1e-12), (name, q, runs[ia], runs[ib])
        n_expected = len({q for (k, q, _a, _b) in expected if k == name})
        if len(runs) > 1:
            assert len(qs) == n_expected


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.integers(1, 3), st.sampled_from([None, 1, 3]))
def test_engine_matches_brute_force(coll, rel, depth):
    qrels, runs = coll
    with pytest.warns(UserWarning) if any("qX" in r for r in runs.values()) else _nowarn():
        judged = judge_inputs(qrels, runs, rel=rel, depth=depth)
    comp = preference_matrices(judged, ALL)
    check(comp, brute_force(qrels, runs, rel, depth), ALL)


class _nowarn:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.integers(1, 2), st.data())
def test_subtopic_rpp_matches_brute_force(coll, rel, data):
    qrels, runs = coll
    # give every judged document 1-2 subtopic judgments; max over them = its grade
    rows, sub = [], {}
    for q, judged in qrels.items():
        for d, g in judged.items():
            topics = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=2, unique=True))
            for i, t in enumerate(topics):
                grade = g if i == 0 else data.draw(st.integers(0, g))
                rows.append((q, str(t), d, grade))
                sub[q, str(t), d] = grade
    frame = pd.DataFrame(rows, columns=["query_id", "subtopic", "doc_id", "relevance"])
    measures = ["ST-RPP", "ST-RPP(p=dcg)", "ST-RPP(p=inverse)", "sgnLP"]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = irpref.compare(frame, runs, measures, rel=rel, missing="zero")  # brute force: empty
    expected = brute_force(qrels, runs, rel, subtopics=sub)
    per = {(m, q, a, b): v for m, q, a, b, v in comp[["measure", "query", "run_a", "run_b",
                                                      "value"]].itertuples(index=False)}
    names = list(runs)
    for (k, q, ia, ib), v in expected.items():
        if k in measures:
            assert per[k, q, names[ia], names[ib]] == pytest.approx(v, abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 4), st.integers(1, 6), st.integers(1, 7), st.randoms(use_true_random=False))
def test_vectorized_ranks_are_exact_keys(n_pops, n_runs, width, rnd):
    """Dense ranks from the lexsort order runs exactly as the pairwise preferences."""
    from irpref.preferences import sgn_lp, sgn_lr
    from irpref.preferences.lexicographic import SENTINEL

    pos = np.full((n_pops, n_runs, width), SENTINEL)
    count = np.zeros((n_pops, n_runs), np.int64)
    lists = {}
    for g in range(n_pops):
        for r in range(n_runs):
            k = rnd.randint(0, width)
            p = sorted(rnd.sample(range(1, 12), k))
            pos[g, r, :k] = p
            count[g, r] = k
            lists[g, r] = p
    for direction, pref in (("precision", sgn_lp), ("recall", sgn_lr)):
        rank, order, _ = lexicographic_ranks(pos, count, direction)
        for g in range(n_pops):
            assert sorted(order[g]) == list(range(n_runs))
            for a, b in itertools.combinations(range(n_runs), 2):
                assert np.sign(rank[g, b] - rank[g, a]) == pref(lists[g, a], lists[g, b])


# ---------------------------------------------------------------- real data


def _dl19(data_dir: Path):
    d = data_dir / "dl19-passage"
    return d / "qrels.txt", sorted((d / "runs").glob("*.gz"))


def test_dl19_table2_tie_rates(data_dir):
    """Lexiprecision paper, Table 2, deep-pass (2019): over all 37*36/2 run
    pairs and 43 topics (grade >= 2 relevant), RR ties in 56.89% of the
    comparisons, rrLP / sgnLP in 2.63%."""
    qrels, runs = _dl19(data_dir)
    judged = judge_inputs(qrels, runs, rel=2)
    assert judged.n_runs == 37
    comp = preference_matrices(judged, ["sgnLP", "rrLP"])
    a, b = np.triu_indices(37, 1)
    for name in ("sgnLP", "rrLP"):
        v = comp.values[name][:, a, b]
        assert v.size == 666 * 43
        assert round(100 * float((v == 0).mean()), 2) == 2.63
    rr = irpref.evaluate(None, None, ["RR"], judged=judged, missing="zero")
    rr = rr.pivot(index="query", columns="run", values="value")[judged.run_names].to_numpy()
    ties = rr[:, a] == rr[:, b]
    assert ties.size == 666 * 43
    assert round(100 * float(ties.mean()), 2) == 56.89


def _read_run_like_pref_eval(path: Path, relevant: dict[str, set[str]]):
    """pref_eval's reading: sort by (score, docid) descending, keep relevant positions."""
    per_q: dict[str, list[tuple[float, str]]] = {}
    with gzip.open(path, "rt") as f:
        for line in f:
            qid, _, did, _, score, *_ = line.split()
            if qid in relevant:
                per_q.setdefault(qid, []).append((float(score), did))
    vectors = {}
    for q, rel in relevant.items():
        docs = [d for _, d in sorted(per_q.get(q, []), reverse=True)]
        vectors[q] = vector(docs, rel)
    return vectors


def test_dl19_agrees_with_reference_conventions(data_dir):
    """Binary judgments (grade >= 2): every preference equals the pref_eval-style
    computation read directly from the files, for a sample of runs."""
    qrels_path, run_paths = _dl19(data_dir)
    run_paths = run_paths[::5]  # 8 runs, including shallow and tied ones
    relevant: dict[str, set[str]] = {}
    with open(qrels_path) as f:
        for line in f:
            q, _, d, g = line.split()
            if int(g) >= 2:
                relevant.setdefault(q, set()).add(d)
    vectors = [_read_run_like_pref_eval(p, relevant) for p in run_paths]
    measures = ["sgnLP", "rrLP", "sgnLR", "RPP(grades=binary)", "RPP(grades=binary,p=dcg)",
                "RPP(grades=binary,p=inverse)"]
    table = irpref.compare(qrels_path, run_paths, measures, rel=2)
    assert set(table["query"].astype(str)) == set(relevant)
    names = [irpref.io.run_name_from_path(p) for p in run_paths]
    lookup = {(a, b, q, m): v for a, b, q, m, v in table.itertuples(index=False)}
    for (ia, a), (ib, b) in itertools.combinations(enumerate(names), 2):
        for q in relevant:
            x, y = vectors[ia][q], vectors[ib][q]
            exp = {"sgnLP": b_lp(x, y), "rrLP": b_lp(x, y, rr=True), "sgnLR": b_lr(x, y),
                   "RPP(grades=binary)": b_rpp(x, y, "uniform"),
                   "RPP(grades=binary,p=dcg)": b_rpp(x, y, "dcg"),
                   "RPP(grades=binary,p=inverse)": b_rpp(x, y, "inverse")}
            for m, v in exp.items():
                assert lookup[a, b, q, m] == pytest.approx(v, abs=1e-12)


def test_graded_rpp_differs_from_reference_bug(data_dir):
    """pref_eval's graded RPP reuses one cached position vector per run and
    query for every grade (a binary RPP at an order-dependent threshold);
    irpref follows Eq. 5, which differs on graded judgments."""
    qrels_path, run_paths = _dl19(data_dir)
    comp = irpref.compare(qrels_path, run_paths[:6], ["RPP", "RPP(grades=binary)"], rel=2)
    wide = comp.pivot_table(index=["run_a", "run_b", "query"], columns="measure",
                            values="value", observed=True)
    assert (wide["RPP"] != wide["RPP(grades=binary)"]).any()
