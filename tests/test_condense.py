"""Condensed lists (irpref.judging.condense; trec_eval -J, Sakai 2007).

The defining property, checked on hypothesis-generated collections (ties,
negative grades, queries missing from runs or qrels, runs that retrieved only
unjudged documents) for every tie policy and both layouts: condensing the
judged rankings gives exactly the judged rankings of the runs from which every
unjudged document (absent from the qrels of its query, or with a negative
grade) was deleted, and so every measure that reads the layout gives the same
value, with ``==``.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pandas as pd
import pytest
from helpers import irpref_cli, sharing, write_qrels, write_run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irpref.errors import UsageError
from irpref.evaluate import judge_inputs
from irpref.judging.condense import condense
from irpref.judging.judged import NONPOOL, LayoutError
from irpref.measures import parse_measure
from irpref.measures.base import REGISTRY, reads_compact

CORPUS = 1000


def _measures() -> list:
    """Every registered family, with its defaults and with a cut-off, plus custom gains."""
    out = []
    for name in REGISTRY:
        for text in (name, f"{name}@3"):
            # (a family may need a parameter or refuse a cut-off)
            with contextlib.suppress(UsageError):
                out.append(parse_measure(text))
    out += [parse_measure(t) for t in ("IPrec(recall=0.5)", "RL(e=ap,z=ap)", "TSE(e=lin)",
                                       "nDCG(gains=0:-1;2:5)@4",
                                       "nDCG(gains=1:3;3:0.5)")]
    assert {m.name for m in out} == set(REGISTRY)
    return out


MEASURES = _measures()


@st.composite
def collections(draw):
    n_q, n_d = draw(st.integers(1, 3)), draw(st.integers(1, 10))
    queries = [f"q{i}" for i in range(n_q)]
    docs = [f"d{i}" for i in range(n_d)]
    qrels = [(q, d, draw(st.integers(-1, 3))) for q in queries[: draw(st.integers(1, n_q))]
             for d in docs if draw(st.booleans())] or [(queries[0], docs[0], 1)]
    runs = {}
    for r in range(draw(st.integers(1, 3))):
        rows = [(q, d, float(draw(st.integers(0, 3))))  # many ties
                for q in [*queries, "extra"] if draw(st.integers(0, 3))
                for d in draw(st.lists(st.sampled_from(docs), unique=True, max_size=n_d))]
        runs[f"run{r}"] = pd.DataFrame(sharing(rows, qrels, docs[0]),
                                       columns=["query_id", "doc_id", "score"])
    return pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]), runs


def _without_unjudged(qrels: pd.DataFrame, runs: dict) -> dict:
    judged = {(q, d) for q, d, g in qrels.itertuples(index=False) if g >= 0}
    return {name: run.loc[np.array([(q, d) in judged for q, d in zip(run.query_id, run.doc_id)],
                                   dtype=bool)]
            for name, run in runs.items()}


def _judge(qrels, runs, ties, layout):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if layout == "full":
            return judge_inputs(qrels, runs, ties=ties, corpus_size=CORPUS)
        return judge_inputs(qrels, runs, ties=ties, corpus_size=CORPUS, layout="compact",
                            count_docs=True, block_runs=2)


def _value(m, judged):
    try:
        return m.compute(judged)
    except LayoutError:
        raise
    except (ValueError, ZeroDivisionError) as e:  # refused alike on both
        return type(e).__name__


def check_condensed(qrels, runs, ties, layout) -> int:
    condensed = condense(_judge(qrels, runs, ties, layout))
    want = _judge(qrels, _without_unjudged(qrels, runs), ties, layout)
    # the same rankings
    assert np.array_equal(condensed.offsets, want.offsets)
    assert np.array_equal(condensed.grade, want.grade)
    assert np.array_equal(condensed.num_ret, want.num_ret)
    assert (condensed.grade >= 0).all() and not (condensed.grade == NONPOOL).any()
    assert np.array_equal(condensed.rank, want.rank)
    # a query whose retrieved documents were all unjudged stays evaluated (trec_eval -J)
    assert (condensed.present | ~want.present).all()
    if layout == "full":
        assert np.array_equal(condensed.score, want.score)
    elif ties == "expected":
        assert np.array_equal(condensed.tie_first, want.tie_first)
        assert np.array_equal(condensed.tie_size, want.tie_size)
    if ties == "expected" and condensed.n_items:
        index = np.arange(condensed.n_items)
        for a, b in zip(condensed.tie_group(index), want.tie_group(index)):
            assert np.array_equal(a, b)
    checked = 0
    for m in MEASURES:
        if ties == "expected" and m.family.expected is None:
            continue
        if layout == "compact" and not reads_compact(m, ties):
            continue
        got, exp = _value(m, condensed), _value(m, want)
        if isinstance(got, str) or isinstance(exp, str):
            assert got == exp, m
            continue
        np.testing.assert_array_equal(got, exp, err_msg=f"{m} ties={ties} {layout}",
                                      strict=True)
        checked += 1
    return checked


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from(["docid", "input", "expected"]),
       st.sampled_from(["full", "compact"]))
def test_condensed_equals_runs_without_unjudged_documents(coll, ties, layout):
    qrels, runs = coll
    assert check_condensed(qrels, runs, ties, layout) > 0


def test_worked_example_both_layouts():
    """Ranking u1 r1 n1 u2 r2 (u: unjudged, r: grade 1, n: grade 0, p: grade -1 pooled
    unjudged) becomes r1 n1 r2: ranks 0 1 2, num_ret 3; a tie {u1, r1, p, n1} under
    ties=expected shrinks to {r1, n1}."""
    qrels = pd.DataFrame([("q", "r1", 1), ("q", "n1", 0), ("q", "r2", 1), ("q", "p", -1)],
                         columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame([("q", "u1", 5.0), ("q", "r1", 5.0), ("q", "p", 5.0), ("q", "n1", 5.0),
                        ("q", "u2", 3.0), ("q", "r2", 2.0)],
                       columns=["query_id", "doc_id", "score"])
    for layout in ("full", "compact"):
        judged = _judge(qrels, {"run": run}, "expected", layout)
        c = condense(judged)
        assert c.num_ret.tolist() == [[3]]
        assert c.grade.tolist() == [1, 0, 1]
        assert c.rank.tolist() == [0, 1, 2]
        first, size = c.tie_group(np.arange(3))
        assert first.tolist() == [0, 0, 2] and size.tolist() == [2, 2, 1]
        # E[P@1] over the orderings of {r1, n1}: 1/2; P@3 = 2/3
        assert parse_measure("P@1").compute(c)[0, 0] == 0.5
        assert parse_measure("P@3").compute(c)[0, 0] == pytest.approx(2 / 3)


def test_custom_gains_kernel_and_ideal():
    """nDCG(gains=...): listed grades gain their value (grade 0 too, negatives allowed),
    others gain their grade; the ideal sorts the judged grades by gain and stops at
    the first gain <= 0 (trec_eval m_ndcg.c with gain_init.c)."""
    qrels = pd.DataFrame([("q", "a", 0), ("q", "b", 1), ("q", "c", 2), ("q", "d", 3)],
                         columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame([("q", "a", 4.0), ("q", "b", 3.0), ("q", "c", 2.0), ("q", "x", 1.0)],
                       columns=["query_id", "doc_id", "score"])
    judged = _judge(qrels, {"run": run}, "docid", "full")
    disc = 1 / np.log2(np.arange(2, 6))
    m = parse_measure("nDCG(gains=0:1;2:7)")
    dcg = 1 * disc[0] + 1 * disc[1] + 7 * disc[2]
    ideal = 7 * disc[0] + 3 * disc[1] + 1 * disc[2] + 1 * disc[3]
    assert m.compute(judged)[0, 0] == pytest.approx(dcg / ideal, rel=1e-15)
    negative = parse_measure("nDCG(gains=0:-2;3:0)")  # ideal: 2, 1 then stops
    dcg = -2 * disc[0] + 1 * disc[1] + 2 * disc[2]
    assert negative.compute(judged)[0, 0] == pytest.approx(dcg / (2 * disc[0] + disc[1]))
    assert str(parse_measure("nDCG(gains=2:7.0;0:1)@5")) == "nDCG(gains=0:1;2:7)@5"
    # expected ties: the tie-aware kernel gives the same value without ties
    exp = _judge(qrels, {"run": run}, "expected", "full")
    assert m.compute(exp)[0, 0] == pytest.approx(m.compute(judged)[0, 0], rel=1e-15)


@pytest.mark.slow
def test_cli_depth_cut_comes_before_judged_only(tmp_path):
    """trec_eval -J -M2: the top 2 are kept first, then the unjudged ones dropped."""
    qrels = write_qrels(tmp_path / "qrels", [("q", "r1", 1), ("q", "r2", 1), ("q", "n", 0)])
    run = write_run(tmp_path / "run", [("q", "u", 3.0), ("q", "r1", 2.0), ("q", "r2", 1.0)])
    out = irpref_cli("trec_eval", "-J", "-M2", "-m", "num_ret", "-m", "num_rel_ret",
                     "-m", "P.1", qrels, run)
    assert out.returncode == 0, out.stderr
    assert out.stdout == ("num_ret               \tall\t1\nnum_rel_ret           \tall\t1\n"
                          "P_1                   \tall\t1.0000\n")
    # a query that retrieved only unjudged documents still counts (empty ranking)
    run2 = write_run(tmp_path / "run2", [("q", "u", 3.0)])
    out = irpref_cli("trec_eval", "-J", "-m", "num_q", "-m", "num_ret", "-m", "map", qrels, run2)
    assert out.stdout == ("num_q                 \tall\t1\nnum_ret               \tall\t0\n"
                          "map                   \tall\t0.0000\n")


def test_custom_gains_tie_aware_equals_mean_over_orderings():
    """E[nDCG(gains=...)] under ties=expected is the mean over every ordering of the
    tied documents (ties=input on each permutation of the file)."""
    from itertools import permutations

    qrels = pd.DataFrame([("q", "a", 0), ("q", "b", 1), ("q", "c", 2), ("q", "d", 3),
                          ("q", "e", -1)], columns=["query_id", "doc_id", "relevance"])
    tied = [("q", "a", 2.0), ("q", "c", 2.0), ("q", "x", 2.0), ("q", "e", 2.0)]
    m = parse_measure("nDCG(gains=0:-1.5;2:6;3:0.5)@3")
    values = []
    for order in permutations(tied):
        run = pd.DataFrame([("q", "d", 3.0), *order, ("q", "b", 1.0)],
                           columns=["query_id", "doc_id", "score"])
        values.append(m.compute(_judge(qrels, {"run": run}, "input", "full"))[0, 0])
    run = pd.DataFrame([("q", "d", 3.0), *tied, ("q", "b", 1.0)],
                       columns=["query_id", "doc_id", "score"])
    for layout in ("full", "compact"):
        got = m.compute(_judge(qrels, {"run": run}, "expected", layout))[0, 0]
        assert got == pytest.approx(np.mean(values), rel=1e-12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from(["docid", "input", "expected"]))
def test_custom_gains_compact_equals_full(coll, ties):
    """nDCG(gains=...) reads the compact layout exactly as the full one."""
    qrels, runs = coll
    full, compact = (_judge(qrels, runs, ties, layout) for layout in ("full", "compact"))
    for text in ("nDCG(gains=0:-1;2:5)@4", "nDCG(gains=1:3;3:0.5)", "nDCG(gain=exp,gains=0:2)"):
        m = parse_measure(text)
        assert reads_compact(m, ties)
        np.testing.assert_array_equal(m.compute(compact), m.compute(full), strict=True)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from(["docid", "expected"]), st.sampled_from(["full", "compact"]))
def test_condensing_reuses_what_the_judged_rankings_listed(coll, ties, layout):
    """The judged items already listed (items_with_grade(0), the judged mask) give the
    same condensed lists, and a dataclasses.replace copy (every field read from the
    lazy ones) equals them field by field."""
    import dataclasses

    qrels, runs = coll
    plain = condense(_judge(qrels, runs, ties, layout))
    for warm in (lambda j: j.items_with_grade(0), lambda j: j.judged):
        judged = _judge(qrels, runs, ties, layout)
        warm(judged)
        got = condense(judged)
        copy = dataclasses.replace(got)
        for f in dataclasses.fields(got):
            for other in (plain, copy):
                a, b = getattr(got, f.name), getattr(other, f.name)
                if isinstance(a, np.ndarray) or a is None:
                    assert (a is None and b is None) or np.array_equal(a, b), f.name
        assert got.n_docs == plain.n_docs


def test_the_condensed_copy_lives_with_the_judged_rankings():
    """condensed() computes the copy once and keeps it with the judged rankings (no
    process-wide table); the copy refers to arrays, never to them, so the judged
    rankings are freed while their condensed copy is still in use."""
    import gc
    import weakref

    from irpref.judging.condense import condensed

    qrels = pd.DataFrame([("q", "r", 1), ("q", "n", 0)], columns=["query_id", "doc_id",
                                                                 "relevance"])
    run = pd.DataFrame([("q", "u", 3.0), ("q", "r", 2.0), ("q", "n", 1.0)],
                       columns=["query_id", "doc_id", "score"])
    judged = _judge(qrels, {"run": run}, "docid", "full")
    copy = condensed(judged)
    assert condensed(judged) is copy and condensed(copy) is copy and copy.condensed
    assert copy.score.tolist() == [2.0, 1.0] and copy.rank.tolist() == [0, 1]
    alive = weakref.ref(judged)
    del judged
    gc.collect()
    assert alive() is None and copy.score.tolist() == [2.0, 1.0]


@pytest.mark.parametrize("share", [0.0, 0.01, 0.05, 0.1, 0.3, 1.0])
def test_judged_items_equal_flatnonzero_at_every_share(share):
    """The padded branch-free path (2% to 10% judged) and NumPy's own give the same
    indices, from the grades and from the cached judged mask."""
    from types import SimpleNamespace

    from irpref.judging.condense import _judged_items

    rng = np.random.default_rng(7)
    grade = np.where(rng.random(20_000) < share, rng.integers(0, 3, 20_000),
                     np.where(rng.random(20_000) < 0.5, NONPOOL, -1)).astype(np.int32)
    want = np.flatnonzero(grade >= 0)
    assert np.array_equal(_judged_items(SimpleNamespace(grade=grade)), want)
    assert np.array_equal(_judged_items(SimpleNamespace(grade=grade, judged=grade >= 0)), want)
