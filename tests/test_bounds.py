"""Residual bounds (irpref.measures.bounds): every registered family's rule against the
brute force over every assignment of grades to the unjudged documents."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import irpref_cli
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import irpref
from irpref.evaluate import judge_inputs
from irpref.measures import parse_measure
from irpref.measures.base import REGISTRY
from irpref.measures.bounds import enumerate_bounds, residual_bounds, top_grade

DOCS = list("abcdefgh")
TOL = 1e-9


def _ties_of(fam) -> tuple[str, ...]:
    return ("docid", "input", "expected") if fam.expected is not None else ("docid", "input")


EXAMPLES = [(name, text) for name, fam in REGISTRY.items() if not fam.subtopics
            for text in fam.examples]
SUBTOPIC_FAMILIES = [name for name, fam in REGISTRY.items() if fam.subtopics]


@st.composite
def collections(draw, top=2):
    """2 runs, 2-3 queries, <= 6 retrieved, grades 0..top judged, -1 pooled but
    unjudged, documents absent from the qrels; ties in scores; empty rankings."""
    n_q = draw(st.integers(2, 3))
    qrels, runs = {}, {}
    for q in range(n_q):
        judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True))
        qrels[f"q{q}"] = {d: draw(st.integers(-1, top)) for d in judged}
    for r in range(2):
        run = {}
        for q in qrels:
            # mostly judged documents: at most a few unjudged per ranking
            pool = list(qrels[q]) + draw(st.lists(st.sampled_from(DOCS), max_size=3))
            docs = draw(st.lists(st.sampled_from(sorted(set(pool))), max_size=6, unique=True))
            if docs:
                run[q] = {d: draw(st.sampled_from([0.5, 1.0, 2.0])) for d in docs}
        if not run:
            run["q0"] = {"a": 1.0}
        runs[f"r{r}"] = run
    return qrels, runs


def _judge(data, ties, depth, rel):
    qrels, runs = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return judge_inputs(qrels, runs, ties=ties, depth=depth, rel=rel, corpus_size=50)


def _few_unjudged(judged, most=4) -> bool:
    grade = judged.grade < 0
    return all(grade[a:b].sum() <= most for a, b in zip(judged.offsets[:-1], judged.offsets[1:]))


# measures that skip unjudged documents (trec_eval's judged-only ones): their
# plain value is not the value of any assignment, so it need not lie inside
JUDGED_ONLY = {"Bpref", "GMBpref", "infAP", "NumNonRelJudgedRet"}


def check(judged, texts, exact_only=False):
    for text in texts:
        m = parse_measure(text)
        fam = m.family
        if fam.bounds is None:
            lo, hi = residual_bounds(judged, [m])[m]
            assert np.isnan(lo).all() and np.isnan(hi).all(), text
            continue
        try:
            value = m.compute(judged)
        except ValueError as exc:  # a parameter setting this tie policy refuses
            assert "not supported" in str(exc) or "no tie-aware" in str(exc), exc
            continue
        lo, hi = residual_bounds(judged, [m])[m]
        if np.isnan(lo).all() and np.isnan(hi).all():  # no bound for these parameters
            continue
        want_lo, want_hi = enumerate_bounds(judged, m)
        # every assignment undefined (NaN, e.g. TSE with nothing relevant): the
        # enumeration keeps its +-inf start, the rule says NaN
        want_lo = np.where(np.isinf(want_lo), np.nan, want_lo)
        want_hi = np.where(np.isinf(want_hi), np.nan, want_hi)
        where = f"{text} ties={judged.ties} T={top_grade(judged)}"
        ok = ~np.isnan(value)
        if fam.name not in JUDGED_ONLY:  # those skip unjudged documents: not an outcome
            assert np.all(lo[ok] <= value[ok] + TOL) and np.all(value[ok] <= hi[ok] + TOL), (
                where, lo, value, hi)
        assert np.array_equal(np.isnan(lo), np.isnan(want_lo)), (where, lo, want_lo)
        assert np.array_equal(np.isnan(hi), np.isnan(want_hi)), (where, hi, want_hi)
        defined = ~np.isnan(want_lo)
        assert np.all(lo[defined] <= want_lo[defined] + TOL), (where, lo, want_lo)
        assert np.all(want_hi[defined] <= hi[defined] + TOL), (where, hi, want_hi)
        if fam.bounds_exact or exact_only:
            np.testing.assert_allclose(lo, want_lo, rtol=TOL, atol=TOL, err_msg=where)
            np.testing.assert_allclose(hi, want_hi, rtol=TOL, atol=TOL, err_msg=where)


@pytest.mark.slow
@pytest.mark.parametrize("ties", ["docid", "input", "expected"])
@settings(max_examples=50, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=collections(), depth=st.one_of(st.none(), st.integers(2, 6)),
       rel=st.integers(1, 2))
def test_every_family_against_every_assignment(ties, data, depth, rel):
    judged = _judge(data, ties, depth, rel)
    assume(_few_unjudged(judged))
    texts = [t for name, t in EXAMPLES if ties in _ties_of(REGISTRY[name])]
    check(judged, texts)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(top=1), ties=st.sampled_from(["docid", "expected"]),
       k=st.integers(1, 5))
def test_graded_rules_are_exact_on_binary_qrels(data, ties, k):
    """nDCG's and NCG's outer upper bound is exact when the top grade is 1."""
    judged = _judge(data, ties, None, 1)
    assume(_few_unjudged(judged))
    check(judged, ["nDCG", f"nDCG@{k}", "NCG", f"NCG@{k}", f"nDCG(gain=exp)@{k}"],
          exact_only=True)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(top=3), k=st.integers(1, 5),
       ties=st.sampled_from(["docid", "input", "expected"]))
def test_graded_bounds_are_exact(data, k, ties):
    """nDCG's and NCG's bounds are exact on graded qrels too (the upper one by
    grade layers and Dinkelbach's method: irpref.measures.ndcg_bounds)."""
    judged = _judge(data, ties, None, 1)
    assume(_few_unjudged(judged, 3))
    for text in ["nDCG", f"nDCG@{k}", f"nDCG(gain=exp)@{k}", "NCG", f"NCG@{k}"]:
        m = parse_measure(text)
        lo, hi = residual_bounds(judged, [m])[m]
        want_lo, want_hi = enumerate_bounds(judged, m)
        np.testing.assert_allclose(lo, want_lo, rtol=TOL, atol=TOL, err_msg=text)
        np.testing.assert_allclose(hi, want_hi, rtol=TOL, atol=TOL, err_msg=text)


def test_every_family_is_covered():
    """The property test here reaches every family that is not a subtopic one;
    tests/test_bounds_diversity.py enumerates the subtopic ones."""
    from test_bounds_diversity import FAMILIES

    covered = {name for name, _ in EXAMPLES}
    assert covered | set(SUBTOPIC_FAMILIES) == set(REGISTRY)
    assert set(FAMILIES) == set(SUBTOPIC_FAMILIES)


def _rule_kind(fam) -> str:
    """What the record declares: no bound, monotone, an exact rule or an outer one."""
    if fam.bounds is None:
        return "none"
    if fam.bounds == "monotone":
        return "monotone"
    return "exact" if fam.bounds_exact else "outer"


def test_every_kind_of_rule_is_checked():
    """The property test above takes its families from the records, whatever
    module declares them: it reaches every kind of rule, many of each."""
    kinds = {}
    for name, _ in EXAMPLES:
        kinds.setdefault(_rule_kind(REGISTRY[name]), set()).add(name)
    assert len(EXAMPLES) >= 90
    counts = {kind: len(kinds.get(kind, ())) for kind in ("monotone", "exact", "outer", "none")}
    assert counts["monotone"] >= 10 and counts["exact"] >= 25, counts
    assert counts["outer"] >= 8 and counts["none"] >= 3, counts


def test_a_bound_none_says_why():
    """Every family without a rule, or with an outer one, says why in its record."""
    said = [name for name, fam in REGISTRY.items() if _rule_kind(fam) in ("none", "outer")]
    assert len(said) >= 13
    for name in said:
        assert REGISTRY[name].bounds_note, name


# ---- real data: RBP's interval width is trec_eval's rbp_resid -------------------
DATA = __import__("pathlib").Path(__file__).resolve().parent / "data"


def _robust():
    qrels = DATA / "robust03" / "qrels.txt"
    runs = sorted((DATA / "robust03").glob("runs/*"))[:3]
    return qrels, runs


@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
def test_rbp_width_is_rbp_resid_without_the_tail(p):
    """upper - lower of RBP(p) = (1 - p) sum over the unjudged retrieved d_i of
    p^(i-1) = trec_eval's rbp_resid minus p^n, its weight of the documents never
    retrieved (n retrieved; rbp_resid is 0 when every retrieved one is judged)."""
    qrels, runs = _robust()
    judged = judge_inputs(qrels, runs)
    rbp, resid = parse_measure(f"RBP(p={p})"), parse_measure(f"RBPResid(p={p})")
    lo, hi = residual_bounds(judged, [rbp])[rbp]
    tail = np.where(judged.segment_count(judged.grade < 0) > 0,
                    np.power(p, judged.num_ret.astype(np.float64)), 0.0)
    assert (hi - lo).max() > 0
    np.testing.assert_allclose(hi - lo, resid.compute(judged) - tail, rtol=0, atol=1e-12)
    # and the lower bound is the plain value (unjudged counted non-relevant)
    np.testing.assert_array_equal(lo, rbp.compute(judged))


def test_evaluate_and_summarize_carry_the_bounds():
    qrels, runs = _robust()
    res = irpref.evaluate(qrels, runs, ["AP", "P@10", "Judged@10", "NumRet"], bounds=True,
                          missing="zero")
    assert list(res.columns) == ["run", "query", "measure", "value", "lower", "upper"]
    ok = res[res["measure"] != "Judged@10"]
    assert (ok["lower"] <= ok["value"] + 1e-12).all() and (ok["value"] <= ok["upper"] + 1e-12).all()
    assert res.loc[res["measure"] == "Judged@10", ["lower", "upper"]].isna().all().all()
    means = irpref.summarize(res)
    ap = means[means["measure"] == "AP"]
    for run, group in res[res["measure"] == "AP"].groupby("run"):
        row = ap[ap["run"] == run].iloc[0]
        assert row["lower"] == pytest.approx(group["lower"].mean())
        assert row["upper"] == pytest.approx(group["upper"].mean())
    num_ret = means[means["measure"] == "NumRet"]  # aggregate = sum, bounds summed too
    assert (num_ret["lower"] == num_ret["value"]).all()
    plain = irpref.evaluate(qrels, runs, ["AP"], missing="zero")
    np.testing.assert_array_equal(plain["value"], res[res["measure"] == "AP"]["value"])


@pytest.mark.slow
def test_cli_bounds_tsv_and_refusals(tmp_path):
    qrels, runs = _robust()
    out = irpref_cli("evaluate", qrels, *runs, "-m", "AP", "RBP", "--bounds", "--format", "tsv",
                     "--per-query")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split("\t") == ["run", "query", "measure", "value", "lower", "upper"]
    for line in lines[1:]:
        _, _, _, v, lo, hi = line.split("\t")
        assert float(lo) <= float(v) <= float(hi)
    table = irpref_cli("evaluate", qrels, runs[0], "-m", "AP", "--bounds")
    assert table.returncode == 0 and "AP lower" in table.stdout and "AP upper" in table.stdout
    for extra in (["--dask", "local:1"], ["--baseline", runs[0].name]):
        bad = irpref_cli("evaluate", qrels, *runs, "-m", "AP", "--bounds", *extra)
        assert bad.returncode == 2, bad.stderr
        assert "--bounds" in bad.stderr.splitlines()[-1] and "Traceback" not in bad.stderr
    twice = irpref_cli("evaluate", qrels, runs[0], "-m", "AP", "--bounds", "--bounds")
    assert twice.returncode == 2 and "given twice" in twice.stderr


def test_an_intermediate_grade_can_give_the_largest_ndcg():
    """q1 ranks a (1), b (2), c (0), e (0), then u, unjudged; x (2) and y (1)
    are judged but not retrieved; T = 3 (q2). u at grade 2 gives nDCG =
    (1 + 2/log2 3 + 2/log2 6) / (2 + 2/log2 3 + 2/2 + 1/log2 5 + 1/log2 6) =
    0.5976, more than at grade 3 (0.5630) or 0: the largest value is not at
    the grades {0, T} alone, and the rule finds it."""
    from math import log2
    qrels = {"q1": {"a": 1, "b": 2, "c": 0, "e": 0, "x": 2, "y": 1}, "q2": {"z": 3}}
    runs = {"r": {"q1": {"a": 5.0, "b": 4.0, "c": 3.0, "e": 2.0, "u": 1.0}, "q2": {"z": 1.0}}}
    judged = _judge((qrels, runs), "docid", None, 1)
    m = parse_measure("nDCG")
    lo, hi = residual_bounds(judged, [m])[m]
    want = (1 + 2 / log2(3) + 2 / log2(6)) / (2 + 2 / log2(3) + 1 + 1 / log2(5) + 1 / log2(6))
    assert hi[0, 0] == pytest.approx(want, rel=1e-12)
    at_top = (1 + 2 / log2(3) + 3 / log2(6)) / (3 + 2 / log2(3) + 2 / 2 + 1 / log2(5)
                                                + 1 / log2(6))
    assert want > at_top + 0.03 and want > m.compute(judged)[0, 0]
