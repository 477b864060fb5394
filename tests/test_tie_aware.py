"""Tie-aware measures (McSherry & Najork 2008) against brute force and the paper."""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irpref
from irpref.measures import REGISTRY
from irpref.measures.ties import first_irrelevant_fraction

DOCS = ["a", "b", "c", "d", "e", "f", "g", "h"]


def canonical(ranking: dict[str, float]) -> list[tuple[str, float]]:
    """trec_eval order: score descending, then docid descending (strcmp)."""
    items = sorted(ranking.items(), key=lambda it: it[0], reverse=True)
    return sorted(items, key=lambda it: -it[1])


def orderings(items: list[tuple[str, float]]):
    """Every ordering of ``items`` consistent with their (sorted) scores."""
    groups = [list(g) for _, g in itertools.groupby(items, key=lambda it: it[1])]
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [doc for perm in perms for doc, _ in perm]


def brute_force(qrels, runs, measures, depth=None, rel=1, **options):
    """{(run, query, measure): mean over all consistent orderings}, by enumeration.

    Every ordering of every (run, query) becomes a query of its own in one
    synthetic, tie-free run, evaluated with the tie-oblivious kernels.
    """
    syn_qrels, syn_run, members = {}, {}, {}
    for name, run in runs.items():
        for q in qrels:
            items = canonical(run.get(q, {}))[:depth]
            for i, order in enumerate(orderings(items)):
                sq = f"{name}|{q}|{i}"
                syn_qrels[sq] = qrels[q]
                if order:
                    syn_run[sq] = {doc: float(len(order) - p) for p, doc in enumerate(order)}
                members.setdefault((name, q), []).append(sq)
    if not syn_run:  # nothing retrieved anywhere: every measure is 0
        return {}
    res = irpref.evaluate(syn_qrels, {"brute": syn_run}, measures, rel=rel, missing="zero",
                          **options)
    value = dict(zip(zip(res["query"], res["measure"]), res["value"]))
    out = {}
    for (name, q), sqs in members.items():
        for m in res["measure"].unique():
            out[name, q, m] = float(np.mean([value[sq, m] for sq in sqs])) if sqs else 0.0
    return out


MEASURES = [
    "P@{k}", "R@{k}", "R", "F1@{k}", "F1", "AP", "AP@{k}", "RR", "RR@{k}", "nDCG", "nDCG@{k}",
    "Success@{k}", "NumRelRet", "NumRelRet@{k}", "NumRet@{k}", "NumRel", "Rprec",
    "RBP(p=0.5)", "RBP(p=0.8)@{k}", "AP(rel=2)@{k}", "RR(rel=2)", "P(rel=2)@{k}",
    "DCG@{k}", "RelP@{k}", "Unj@{k}", "SetF", "NumNonRelJudgedRet", "gRBP(p=0.5)", "gRBP@{k}",
]


@st.composite
def collections(draw):
    n_q = draw(st.integers(1, 3))
    qrels, runs = {}, {}
    for q in range(n_q):
        judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True))
        qrels[f"q{q}"] = {d: draw(st.integers(-1, 3)) for d in judged}
    for r in range(draw(st.integers(1, 2))):
        run = {}
        for q in qrels:
            docs = draw(st.lists(st.sampled_from(DOCS), max_size=6, unique=True))
            if docs:
                # few distinct scores: many ties
                run[q] = {d: draw(st.sampled_from([0.5, 1.0, 2.0, 3.0])) for d in docs}
        if not run:  # a run must retrieve something
            run["q0"] = {"a": 1.0}
        runs[f"r{r}"] = run
    return qrels, runs


def check_against_brute_force(qrels, runs, measures, depth=None, rel=1, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = irpref.evaluate(qrels, runs, measures, ties="expected", depth=depth,
                                   rel=rel, missing="zero", **options)
        brute = brute_force(qrels, runs, measures, depth=depth, rel=rel, **options)
    assert len(expected)
    for run, q, m, v in expected[["run", "query", "measure", "value"]].itertuples(index=False):
        want = brute.get((run, q, m), 0.0)
        assert abs(v - want) <= 1e-12 or (np.isnan(v) and np.isnan(want)), (run, q, m, v, want)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=collections(),
    k=st.integers(1, 7),
    depth=st.one_of(st.none(), st.integers(1, 6)),
    rel=st.integers(1, 2),
)
def test_expected_equals_mean_over_all_orderings(data, k, depth, rel):
    qrels, runs = data
    measures = [m.format(k=k) for m in MEASURES]
    check_against_brute_force(qrels, runs, measures, depth=depth, rel=rel)


# every tie-aware kernel, on the examples its record lists (NCG, Judged, the
# search lengths... come in here without a table of their own)
def _has_expected_form(text: str) -> bool:
    """False for the parameter settings a tie-aware kernel refuses (ASL(golds=2), ASL@3)."""
    try:
        irpref.evaluate({"q": {"a": 1}}, {"r": {"q": {"a": 1.0}}}, [text], ties="expected",
                        corpus_size=50)
    except ValueError as exc:
        assert "not supported" in str(exc), exc
        return False
    return True


RECORD_EXAMPLES = [t for fam in REGISTRY.values() if fam.expected is not None
                   for t in fam.examples if _has_expected_form(t)]


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), depth=st.one_of(st.none(), st.integers(1, 6)), rel=st.integers(1, 2))
def test_every_expected_kernel_on_its_records_examples(data, depth, rel):
    qrels, runs = data
    check_against_brute_force(qrels, runs, RECORD_EXAMPLES, depth=depth, rel=rel,
                              corpus_size=50)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(1, 7),
    n_rel=st.integers(0, 7),
    lead=st.lists(st.booleans(), max_size=3),
    k=st.integers(1, 11),
)
def test_one_large_tie_group(n, n_rel, lead, k):
    """A long tie group after a few untied items, cut-offs before, inside and after it."""
    n_rel = min(n_rel, n)
    docs = [f"t{i}" for i in range(n)]
    run = {d: 1.0 for d in docs}
    run.update({f"u{i}": 10.0 - i for i in range(len(lead))})
    grades = {d: int(i < n_rel) for i, d in enumerate(docs)}
    grades.update({f"u{i}": int(b) for i, b in enumerate(lead)})
    grades["missed"] = 1  # relevant, never retrieved
    measures = [m.format(k=k) for m in MEASURES]
    check_against_brute_force({"q": grades}, {"r": {"q": run}}, measures)


# ---- the paper's own statements -------------------------------------------


def paper_f(x: int, r: int, n: int) -> Fraction:
    """f(x, r, n) by the recursion of McSherry & Najork 2008, section 2.5."""
    if x == 0:
        return Fraction(1)
    if x == 1:
        return 1 - Fraction(r, n)
    return (1 - Fraction(r, n - x + 1)) * paper_f(x - 1, r, n)


def test_rr_recursion_f():
    cases = [(x, r, n) for n in range(1, 13) for r in range(n + 1) for x in range(n + 1)]
    x, r, n = (np.array(c) for c in zip(*cases))
    got = first_irrelevant_fraction(x, r, n)
    for (xi, ri, ni), g in zip(cases, got):
        exact = paper_f(xi, ri, ni)
        assert exact == Fraction(math.comb(ni - xi, ri), math.comb(ni, ri))
        assert abs(g - float(exact)) <= 1e-15, (xi, ri, ni)


def one_query(grades_in_order, scores, measures, depth=None):
    docs = [f"d{i:02d}" for i in range(len(scores))]
    qrels = {"q": {d: g for d, g in zip(docs, grades_in_order)}}
    run = {"q": dict(zip(docs, scores))}
    res = irpref.evaluate(qrels, {"r": run}, measures, ties="expected", depth=depth)
    return dict(zip(res["measure"], res["value"]))


def test_precision_when_cutoff_splits_a_group():
    """P@k = (R_c + (k - t_c) r_c / n_c) / k (section 2.1)."""
    # groups: [rel] [rel, non, rel, non] [rel]; k = 3 cuts the middle group
    v = one_query([1, 1, 0, 1, 0, 1], [3, 2, 2, 2, 2, 1], ["P@3", "R@3", "F1@3", "NumRelRet@3"])
    t_c, n_c, r_c, R_c, k = 1, 4, 2, 1, 3
    hits = R_c + (k - t_c) * r_c / n_c
    assert v["P@3"] == pytest.approx(hits / k, abs=1e-15)
    assert v["R@3"] == pytest.approx(hits / 4, abs=1e-15)
    assert v["F1@3"] == pytest.approx(2 * hits / (k + 4), abs=1e-15)
    assert v["NumRelRet@3"] == pytest.approx(hits, abs=1e-15)


def test_reciprocal_rank_single_group():
    """One relevant item uniformly placed among n tied items: E[RR] = H_n / n."""
    for n in range(1, 9):
        v = one_query([1] + [0] * (n - 1), [1.0] * n, ["RR", "RR@2", "Success@2"])
        assert v["RR"] == pytest.approx(sum(1 / j for j in range(1, n + 1)) / n, abs=1e-15)
        assert v["RR@2"] == pytest.approx((1 + (n > 1) / 2) / n, abs=1e-15)
        assert v["Success@2"] == pytest.approx(min(2, n) / n, abs=1e-15)


def test_average_precision_formula():
    """AP over one group of n = 3 with r = 2 relevant (section 2.4), and a miss."""
    v = one_query([1, 1, 0, 1], [1.0, 1.0, 1.0, 0.0], ["AP"], depth=3)
    # positions 1..3 each relevant w.p. 2/3; given relevant, (j-1)/2 relevant before it
    total = sum(Fraction(2, 3) * (Fraction(j - 1, 2) + 1) / j for j in (1, 2, 3))
    assert v["AP"] == pytest.approx(float(total / 3), abs=1e-15)  # 3 relevant documents


def test_ndcg_mean_gain_per_group():
    """DCG = sum_i mean gain(V_i) sum_{j in V_i, j <= k} D(j) (section 2.6)."""
    v = one_query([3, 0, 1, 2], [2.0, 2.0, 2.0, 1.0], ["nDCG@2"])
    d = [1 / math.log2(j + 1) for j in (1, 2)]
    ideal = 3 * d[0] + 2 * d[1]
    assert v["nDCG@2"] == pytest.approx((4 / 3) * (d[0] + d[1]) / ideal, abs=1e-15)


# ---- agreement with the tie-oblivious measures -------------------------------

ALL = ["AP", "AP@10", "nDCG", "nDCG@10", "RR", "RR@5", "P@10", "R@100", "F1@10", "F1",
       "Success@1", "Success@10", "Rprec", "RBP", "NumRelRet@20", "NumRet", "NumRel"]


def test_no_ties_means_no_change(data_dir):
    """Runs without tied scores (robust03 humR03dc, uic0301): expected == docid."""
    d = data_dir / "robust03"
    runs = [d / "runs" / "humR03dc.gz", d / "runs" / "uic0301.gz"]
    a = irpref.evaluate(d / "qrels.txt", runs, ALL, rel=1)
    b = irpref.evaluate(d / "qrels.txt", runs, ALL, rel=1, ties="expected")
    assert np.allclose(a["value"], b["value"], rtol=0, atol=1e-12)


def test_tie_invariant_measures_and_bounds(data_dir):
    """On tied real runs: order-free measures agree exactly, the rest stays in range."""
    d = data_dir / "robust03"
    runs = [d / "runs" / "rutcor03100.gz", d / "runs" / "MU03rob01.gz"]
    a = irpref.evaluate(d / "qrels.txt", runs, ALL)
    b = irpref.evaluate(d / "qrels.txt", runs, ALL, ties="expected")
    assert (a[["run", "query", "measure"]].values == b[["run", "query", "measure"]].values).all()
    same = a["measure"].isin(["NumRet", "NumRel", "F1"])
    assert np.array_equal(a["value"][same], b["value"][same])
    assert (b["value"] >= -1e-15).all()
    assert (b.loc[~b["measure"].str.startswith("Num"), "value"] <= 1 + 1e-12).all()
    assert (a["value"] != b["value"]).any()  # rutcor03100 ties heavily


@pytest.mark.slow
def test_f1_is_harmonic_mean_of_p_and_r(data_dir):
    d = data_dir / "robust03"
    run = d / "runs" / "aplrob03a.gz"
    for ties in ("docid", "input", "expected"):
        res = irpref.evaluate(d / "qrels.txt", run, ["P@10", "R@10", "F1@10"], ties=ties)
        w = res.pivot(index="query", columns="measure", values="value")
        p, r = w["P@10"], w["R@10"]
        harmonic = np.where(p + r > 0, 2 * p * r / (p + r).where(p + r > 0, 1), 0)
        assert np.allclose(w["F1@10"], harmonic, rtol=0, atol=1e-12)


def test_every_family_has_an_expected_form_or_says_why():
    """Read from the records, whatever module declares them: a family has a
    tie-aware kernel or a note saying why not, never both, never neither."""
    with_kernel = [name for name, fam in REGISTRY.items() if fam.expected is not None]
    assert len(with_kernel) >= 30 and len(RECORD_EXAMPLES) >= 50
    for name, family in REGISTRY.items():
        assert (family.expected is None) == bool(family.ties_note), name
    for name in ("NumRet", "NumRel", "NumRelRet", "P", "R", "F1", "AP", "RR", "nDCG", "NCG",
                 "Success", "Rprec", "RBP", "DCG", "IDCG", "gRBP", "RelP", "Unj", "SetP",
                 "SetF", "Utility", "Judged", "TSE", "SL1", "SL3", "RE", "ASL"):
        assert REGISTRY[name].expected is not None, name


def test_measures_without_expectation_raise_clearly():
    qrels = {"q": {"a": 1}}
    run = {"r": {"q": {"a": 1.0, "b": 1.0}}}
    with pytest.raises(ValueError, match="no tie-aware"):
        irpref.evaluate(qrels, run, ["IPrec(recall=0.5)"], ties="expected")


def test_f1_is_registered_with_its_source():
    fam = REGISTRY["F1"]
    assert "McSherry" in fam.source
    assert str(irpref.parse_measure("F1(rel=2)@10")) == "F1(rel=2)@10"


@pytest.mark.slow
def test_evaluate_cli_expected(data_dir, tmp_path):
    from helpers import irpref_cli

    d = data_dir / "robust03"
    proc = irpref_cli("evaluate", d / "qrels.txt", d / "runs" / "rutcor03100.gz",
                      "-m", "AP", "RR", "F1@10", "--ties", "expected", "--format", "tsv")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    rows = [line.split("\t") for line in out.strip().splitlines()]
    assert rows[0][-1] == "value"
    values = {r[-2]: float(r[-1]) for r in rows[1:]}
    api = irpref.summarize(irpref.evaluate(d / "qrels.txt", d / "runs" / "rutcor03100.gz",
                                           ["AP", "RR", "F1@10"], ties="expected"))
    for m, v in zip(api["measure"], api["value"]):
        assert values[m] == v
