"""Measure and preference names: every tool's spelling, did-you-mean, hints,
parameter ranges refused at parse time, labels, and ``irpref measures``."""

from __future__ import annotations

import difflib
import re
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest
from helpers import irpref_cli
from hypothesis import given, settings
from hypothesis import strategies as st

import irpref
from irpref import examples
from irpref.errors import UsageError
from irpref.measures import REGISTRY, parse_measure
from irpref.measures.base import Param
from irpref.measures.names import (
    NameNote,
    _alias_family,
    canonical_name,
    measure_aliases,
    trec_eval_names,
)
from irpref.preferences import PREFERENCES, parse_preference
from irpref.preferences.registry import preference_aliases

# every alias and trec_eval name, as the records declare them
ALIASES = measure_aliases() + preference_aliases()
TREC_EVAL_NAMES = trec_eval_names()

# spelling -> canonical text (tool in the comment)
SPELLINGS = {
    # ir_measures
    "nDCG@10": "nDCG@10",
    "R@1000": "R@1000",
    "RR": "RR",
    "AP(rel=2)": "AP(rel=2)",
    "P(rel=2)@10": "P(rel=2)@10",
    "IPrec@0.2": "IPrec(recall=0.2)",
    "Success@5": "Success@5",
    "Bpref": "Bpref",
    # ranx
    "map": "AP",
    "map@100": "AP@100",
    "mrr": "RR",
    "mrr@10": "RR@10",
    "ndcg": "nDCG",
    "ndcg@10": "nDCG@10",
    "recall@1000": "R@1000",
    "hit_rate@5": "Success@5",
    "precision@10": "P@10",
    "f1@10": "F1@10",
    "hits@10": "NumRelRet@10",
    "r-precision": "Rprec",
    "bpref": "Bpref",
    "map@100-l2": "AP(rel=2)@100",
    "ndcg@10-l2": None,  # nDCG takes no rel: refused (test below)
    "rbp.95": "RBP(p=0.95)",
    "ndcg_burges@10": "nDCG(gain=exp)@10",
    # trec_eval
    "ndcg_cut.10": "nDCG@10",
    "P.5": "P@5",
    "recip_rank": "RR",
    "map_cut.100": "AP@100",
    "recall.1000": "R@1000",
    "iprec_at_recall_0.20": "IPrec(recall=0.2)",
    "success.5": "Success@5",
    "Rprec": "Rprec",
    "num_rel_ret": "NumRelRet",
    "set_F": "SetF",
    "rbp": "gRBP",
    # PyTerrier / pytrec_eval
    "ndcg_cut_10": "nDCG@10",
    "P_10": "P@10",
    "recall_100": "R@100",
    "map_cut_100": "AP@100",
    # common usage, any case
    "MAP": "AP",
    "MRR": "RR",
    "NDCG@5": "nDCG@5",
    "Recall@100": "R@100",
    "Map": "AP",
    "ap": "AP",
    "rr@10": "RR@10",
    "P@10": "P@10",
    "rbp(p=0.5)": "gRBP(p=0.5)",  # lower-case rbp is trec_eval's graded rbp (told)
    "Rbp": "RBP",
    " AP ": "AP",
}


@pytest.mark.parametrize("spelling, canonical", [(k, v) for k, v in SPELLINGS.items() if v])
def test_spelling_parses_to_canonical(spelling, canonical):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NameNote)
        assert str(parse_measure(spelling)) == canonical
        assert canonical_name(spelling) == canonical
    assert str(parse_measure(canonical)) == canonical


def test_same_values_as_canonical_on_example_data():
    spellings = [k for k, v in SPELLINGS.items() if v and k.strip() == k]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NameNote)
        res = irpref.evaluate(examples.qrels_path(), examples.run_paths()[:3], spellings, rel=2)
    canon = irpref.evaluate(
        examples.qrels_path(),
        examples.run_paths()[:3],
        sorted({SPELLINGS[s] for s in spellings}),
        rel=2,
    )
    assert set(res["measure"]) == set(spellings)  # labelled as passed
    key = ["run", "query"]
    for spelling in spellings:
        a = res[res["measure"] == spelling].set_index(key)["value"].sort_index()
        b = canon[canon["measure"] == SPELLINGS[spelling]].set_index(key)["value"].sort_index()
        assert len(a) > 0
        pd.testing.assert_series_equal(a, b, check_names=False)


def test_case_insensitive_names_are_unambiguous():
    lower = [n.lower() for n in REGISTRY]
    assert len(lower) == len(set(lower))
    for name in REGISTRY:  # every family, in any case, parses to itself
        fam = REGISTRY[name]
        text = name + ("@10" if fam.cutoff == "required" else "")
        if any(p.required for p in fam.params.values()):
            continue
        assert parse_measure(text.upper()).name == name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NameNote)  # rbp: trec_eval's graded rbp (told)
            assert parse_measure(text.lower()).name == name or name.lower() == "rbp"


def test_alias_table_targets_exist():
    for a in ALIASES:
        assert a.tools
        if a.refusal:
            continue
        family = _alias_family(a)
        if a.kind == "preference":
            assert parse_preference(a.spelling) == parse_preference(a.target)
        elif family in REGISTRY:
            fam = REGISTRY[family]
            text = a.spelling + ("@10" if fam.cutoff == "required" else "")
            if not any(p.required for p in fam.params.values()):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", NameNote)
                    assert parse_measure(text).name == family
    for name, target in TREC_EVAL_NAMES.items():
        text = name + ("_10" if "{k}" in target else "_0.5" if "{x}" in target else "")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NameNote)
            assert parse_measure(text).name in REGISTRY


def test_differing_meanings_are_told():
    with pytest.warns(NameNote, match="graded"):
        assert str(parse_measure("rbp")) == "gRBP"
    with pytest.warns(NameNote, match="summed"):
        parse_measure("hits@10")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the canonical spellings are silent
        parse_measure("RBP")
        parse_measure("gRBP")
        parse_measure("map")
    assert str(parse_measure("ndcg_burges@10")) == "nDCG(gain=exp)@10"
    assert str(parse_measure("nDCG(dcg='exp-log2')@10")) == "nDCG(gain=exp)@10"
    with pytest.raises(UsageError, match="exponential"):
        parse_measure("dcg_burges@5")
    with pytest.raises(UsageError, match="response time"):
        parse_measure("mrt")
    with pytest.raises(UsageError, match="takes no relevance level"):
        parse_measure("ndcg@10-l2")


@pytest.mark.parametrize(
    "text, suggestions",
    [
        ("nDGC@10", "nDCG"),
        ("MAPP", "map"),
        ("recal@100", "recall"),
        ("precison@5", "precision"),
    ],
)
def test_did_you_mean(text, suggestions):
    with pytest.raises(UsageError, match="did you mean") as err:
        parse_measure(text)
    msg = str(err.value)
    assert msg.startswith(f"unknown measure {text!r}")
    hint = msg.split("did you mean ")[1].split("?")[0].split(", ")
    assert len(hint) == 3 and suggestions in hint


def test_did_you_mean_is_the_difflib_top_three():
    with pytest.raises(UsageError) as err:
        parse_measure("Sucess@10")
    hint = str(err.value).split("did you mean ")[1].split("?")[0].split(", ")
    assert "Success" in hint or "success" in hint
    assert difflib.get_close_matches("sucess", [h.lower() for h in hint], n=1, cutoff=0.0)


@pytest.mark.parametrize("name", ["sgnLP", "rrLP", "sgnLR", "RPP", "RPP(p=dcg)", "ST-RPP",
                                  "lexiprecision", "sgnlp", "dcgrpp"])
def test_preference_given_as_measure(name):
    with pytest.raises(UsageError, match="irpref compare"):
        parse_measure(name)


@pytest.mark.parametrize("name", ["AP", "nDCG@10", "map", "ndcg_cut.10", "P@10", "RBP(p=0.5)"])
def test_measure_given_as_preference(name):
    with pytest.raises(UsageError, match="irpref evaluate"):
        parse_preference(name)


def test_preference_names_case_insensitive():
    assert str(parse_preference("SGNLP")) == "sgnLP"
    assert str(parse_preference("rrlp")) == "rrLP"
    assert str(parse_preference("st-rpp")) == "ST-RPP"
    assert str(parse_preference("dcgrpp")) == "RPP(p=dcg)"
    assert str(parse_preference("rpp(p=inverse)")) == "RPP(p=inverse)"
    assert canonical_name("invrpp", kind="preference") == "RPP(p=inverse)"
    with pytest.raises(UsageError, match="unknown preference 'sgnXP'; did you mean"):
        parse_preference("sgnXP")
    with pytest.raises(UsageError, match="no cut-off"):
        parse_preference("sgnLP@10")


# every invalid parameter, refused with one message form
INVALID = [
    ("RBP(p=2)", "RBP(p=2): p must be in (0, 1)"),
    ("RBP(p=1)", "RBP(p=1): p must be in (0, 1)"),
    ("RBP(p=0)", "RBP(p=0): p must be in (0, 1)"),
    ("RBP(p=-1)", "RBP(p=-1): p must be in (0, 1)"),
    ("RBP(p=inf)", "RBP(p=inf): p must be in (0, 1)"),
    ("RBP(p=nan)", "RBP(p=nan): p must be in (0, 1)"),
    ("RBP(p=1e400)", "RBP(p=1e400): p must be in (0, 1)"),
    ("RBP(p=abc)", "RBP(p=abc): p must be in (0, 1)"),
    ("gRBP(p=2)", "gRBP(p=2): p must be in (0, 1)"),
    ("RBPResid(p=0)", "RBPResid(p=0): p must be in (0, 1)"),
    ("RL-RBP(p=1)", "RL-RBP(p=1): p must be in (0, 1)"),
    ("IPrec(recall=2)", "IPrec(recall=2): recall must be in [0, 1]"),
    ("IPrec(recall=-0.1)", "IPrec(recall=-0.1): recall must be in [0, 1]"),
    ("IPrec(recall=nan)", "IPrec(recall=nan): recall must be in [0, 1]"),
    ("IPrec@2", "IPrec@2: recall must be in [0, 1]"),
    ("iprec_at_recall_1.5", "IPrec(recall=1.5): recall must be in [0, 1]"),
    ("IPrec", "IPrec: recall (recall level) is required, e.g. IPrec(recall=0.5)"),
    ("RprecMult(mult=0)", "RprecMult(mult=0): mult must be > 0"),
    ("RprecMult(mult=-1)", "RprecMult(mult=-1): mult must be > 0"),
    ("SetF(beta=-1)", "SetF(beta=-1): beta must be >= 0"),
    ("Utility(a=nan)", "Utility(a=nan): a must be a finite number"),
    ("Utility(b=inf)", "Utility(b=inf): b must be a finite number"),
    ("ASL(golds=0)", "ASL(golds=0): golds must be an integer >= 1"),
    ("ASL(golds=1.5)", "ASL(golds=1.5): golds must be an integer >= 1"),
    ("AP(rel=0)", "AP(rel=0): rel must be an integer >= 1"),
    ("AP(rel=-1)", "AP(rel=-1): rel must be an integer >= 1"),
    ("AP(rel=x)", "AP(rel=x): rel must be an integer >= 1"),
    ("P@0", "P@0: the cut-off must be an integer >= 1"),
    ("P@-1", "P@-1: the cut-off must be an integer >= 1"),
    ("P@1.5", "P@1.5: the cut-off must be an integer >= 1"),
    ("P@ten", "P@ten: the cut-off must be an integer >= 1"),
    ("nDCG@0", "nDCG@0: the cut-off must be an integer >= 1"),
    ("P@99999999999", "P@99999999999: the cut-off must be at most 2147483647"),
    ("P", "P: P needs a cut-off, e.g. P@10"),
    ("Rprec@5", "Rprec@5: Rprec takes no cut-off"),
    ("TSE(e=cubic)", "TSE(e=cubic): e must be one of ap, rr, ndcg, rbp, lin"),
    ("RL(e=ap)", "RL(e=ap): z (normalization: ap, rr, ndcg, rbp, sl3, mean) is required, "
                 "e.g. RL(z=ap)"),
    ("RBP(q=0.5)", "RBP(q=0.5): unknown parameter 'q' (RBP takes: rel, p)"),
    ("RBP(p=0.5,p=0.6)", "RBP(p=0.5,p=0.6): parameter 'p' given twice"),
    ("RBP(p)", "RBP(p): parameter 'p' is not key=value"),
]


@pytest.mark.parametrize("text, message", INVALID)
def test_invalid_parameter_refused(text, message):
    with pytest.raises(UsageError) as err:
        parse_measure(text)
    assert str(err.value) == message


INVALID_PREFERENCES = [
    ("sgnLP(rel=0)", "sgnLP(rel=0): rel must be an integer >= 1"),
    ("RPP(p=geometric)", "RPP(p=geometric): p must be one of uniform, dcg, inverse"),
    ("RPP(grades=some)", "RPP(grades=some): grades must be one of graded, binary"),
    ("rrLP(rel=nan)", "rrLP(rel=nan): rel must be an integer >= 1"),
]


@pytest.mark.parametrize("text, message", INVALID_PREFERENCES)
def test_invalid_preference_parameter_refused(text, message):
    with pytest.raises(UsageError) as err:
        parse_preference(text)
    assert str(err.value) == message


def test_every_parameter_has_a_documented_valid_range():
    families = [*REGISTRY.values(), *PREFERENCES.values()]
    for fam in families:
        for key, p in fam.params.items():
            assert p.doc, (fam.name, key)
            if p.type is str:
                assert p.choices, (fam.name, key)
            if key == "rel":
                assert p.range == "[1, inf)", fam.name
            if key == "p" and p.type is float:
                assert p.range == "(0, 1)", fam.name
            assert p.valid()


def test_param_ranges():
    p = Param(float, 0.5, "x", range="(0, 1]")
    assert p.convert("X(x=1)", "x", "1") == 1.0
    with pytest.raises(UsageError, match=r"^X\(x=0\): x must be in \(0, 1\]$"):
        p.convert("X(x=0)", "x", "0")
    with pytest.raises(ValueError, match="malformed"):
        Param(float, range="0..1")


def test_evaluate_labels_rows_with_the_string_passed():
    qrels, runs = examples.qrels_path(), examples.run_paths()[:2]
    texts = ["RBP(p=0.8)", "RL(e=rbp,z=rbp,p=0.5,impute=none)", "map", "AP", "ndcg_cut.10"]
    res = irpref.evaluate(qrels, runs, texts, rel=2)
    assert list(dict.fromkeys(res["measure"])) == texts
    for t in texts:  # lookup by the string passed works
        assert len(res[res["measure"] == t]) > 0
    ap = res[res["measure"] == "AP"]["value"].to_numpy()
    assert np.array_equal(res[res["measure"] == "map"]["value"].to_numpy(), ap)
    means = irpref.summarize(res)
    assert set(means["measure"]) == set(texts)
    obj = parse_measure("nDCG@10")
    res2 = irpref.evaluate(qrels, runs, [obj, "P@5 R@100"], rel=2)
    assert list(dict.fromkeys(res2["measure"])) == ["nDCG@10", "P@5", "R@100"]


def test_evaluate_computes_duplicate_spellings_once(monkeypatch):
    from irpref.measures import base

    calls = []
    original = base.Measure.compute

    def counting(self, judged):
        calls.append(str(self))
        return original(self, judged)

    monkeypatch.setattr(base.Measure, "compute", counting)
    irpref.evaluate(examples.qrels_path(), examples.run_paths()[:2],
                    ["AP", "map", "MAP", "AP", "ndcg@10", "nDCG@10"], rel=2)
    assert sorted(calls) == ["AP", "nDCG@10"]


def test_evaluate_refuses_before_reading(tmp_path):
    with pytest.raises(UsageError, match=r"RBP\(p=2\): p must be in \(0, 1\)"):
        irpref.evaluate(tmp_path / "missing.txt", [tmp_path / "none"], ["RBP(p=2)"])


def test_compare_labels_rows_with_the_string_passed():
    qrels, runs = examples.qrels_path(), examples.run_paths()[:3]
    res = irpref.compare(qrels, runs, ["sgnlp", "dcgrpp", "RPP(p=dcg)"], rel=2)
    assert list(res["measure"].cat.categories) == ["sgnlp", "dcgrpp", "RPP(p=dcg)"]
    a = res[res["measure"] == "dcgrpp"]["value"].to_numpy()
    b = res[res["measure"] == "RPP(p=dcg)"]["value"].to_numpy()
    assert len(a) > 0 and np.array_equal(a, b)
    ref = irpref.compare(qrels, runs, ["sgnLP"], rel=2)
    assert np.array_equal(res[res["measure"] == "sgnlp"]["value"].to_numpy(),
                          ref["value"].to_numpy())


def test_orientation_accepts_a_name():
    table = irpref.orientation("AP", 5, 1e5)
    assert list(table.columns) == ["m", "precision", "recall"] and table["m"].tolist() == [5]
    from irpref.measures.recall_metrics import named_metric

    assert table.equals(irpref.orientation(named_metric("ap"), 5, 1e5))
    assert irpref.orientation("map", 5, 1e5).equals(table)
    assert irpref.orientation("RBP(p=0.5)", 3, 100)["precision"].item() == pytest.approx(
        irpref.orientation(named_metric("rbp", 0.5), 3, 100)["precision"].item()
    )
    assert irpref.orientation("R@1000", [1, 2], 1e5)["recall"].tolist() == [1.0, 0.5]
    with pytest.raises(UsageError, match="orientation needs"):
        irpref.orientation("P@10", 5, 1e5)


# ---- the installed command -------------------------------------------------


def _evaluate(*measures: str) -> subprocess.CompletedProcess:
    return irpref_cli("evaluate", examples.qrels_path(), examples.run_paths()[0],
                      "--rel", "2", "--format", "tsv", "-m", *measures)


@pytest.mark.slow
@pytest.mark.parametrize("text, message", INVALID[:16] + INVALID[27:31])
def test_cli_refuses_invalid_parameters(text, message):
    proc = _evaluate(text)
    # a usage error: exit 2, the subcommand's usage, then one error line
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert lines[0].startswith("usage: irpref evaluate")
    assert lines[-1] == f"irpref evaluate: error: {message}"
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
def test_cli_prints_canonical_names_and_hints():
    proc = _evaluate("MAP", "ndcg_cut.10", "P_10", "mrr", "recall@100")
    assert proc.returncode == 0, proc.stderr
    head, *lines = proc.stdout.splitlines()
    col = head.split("\t").index("measure")
    names = {line.split("\t")[col] for line in lines}
    assert names == {"AP", "nDCG@10", "P@10", "RR", "R@100"}
    pref = _evaluate("sgnLP")
    assert pref.returncode == 2 and "irpref compare" in pref.stderr
    typo = _evaluate("nDGC@10")
    assert typo.returncode == 2 and "did you mean nDCG" in typo.stderr
    told = _evaluate("rbp")
    assert told.returncode == 0 and "warning" in told.stderr and "gRBP" in told.stderr


@pytest.mark.slow
def test_cli_measures_lists_measures_and_preferences():
    proc = irpref_cli("measures", "--format", "tsv")
    assert proc.returncode == 0, proc.stderr
    rows = [line.split("\t") for line in proc.stdout.splitlines()]
    head, body = rows[0], rows[1:]
    names = {r[0] for r in body}
    assert set(REGISTRY) <= names and set(PREFERENCES) <= names
    assert {"kind", "params", "aliases", "source"} <= set(head)
    kind = head.index("kind")
    assert {r[kind] for r in body if r[0] == "sgnLP"} == {"preference (sign)"}
    rbp = next(r for r in body if r[0] == "RBP")
    assert "number in (0, 1)" in rbp[head.index("params")]
    one = irpref_cli("measures", "sgnLP")
    assert one.returncode == 0 and "lexiprecision" in one.stdout
    alias = irpref_cli("measures", "map")
    assert alias.returncode == 0 and alias.stdout.startswith("AP")
    assert "map is an alias of AP" in alias.stdout
    bad = irpref_cli("measures", "nDGC")
    assert bad.returncode == 2 and "did you mean" in bad.stderr
    assert bad.stderr.strip().splitlines()[-1].startswith("irpref measures: error: ")


# ---- nDCG(gain=exp): ranx's ndcg_burges, against a brute-force transcription ----


def _brute_ndcg_exp(qrels_q: dict, ranking: list[str], k: int | None) -> float:
    def gain(d):
        g = qrels_q.get(d, 0)
        return 2.0**g - 1.0 if g > 0 else 0.0

    top = ranking if k is None else ranking[:k]
    dcg = sum(gain(d) / np.log2(i + 2) for i, d in enumerate(top))
    ideal = sorted((2.0**g - 1.0 for g in qrels_q.values() if g > 0), reverse=True)
    ideal = ideal if k is None else ideal[:k]
    idcg = sum(g / np.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def _random_collection(seed: int, ties: bool):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(4):
        docs = [f"d{i}" for i in range(int(rng.integers(3, 8)))]
        qrels[f"q{q}"] = {d: int(rng.integers(-1, 5)) for d in docs if rng.random() < 0.7}
        qrels[f"q{q}"].setdefault("d0", 2)
        scores = rng.integers(0, 3, len(docs)) if ties else rng.permutation(len(docs))
        run[f"q{q}"] = {d: float(s) for d, s in zip(docs, scores)}
    return qrels, {"A": run}


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("k", [None, 1, 3])
def test_ndcg_exp_gain_brute_force(seed, k):
    qrels, runs = _random_collection(seed, ties=False)
    text = "ndcg_burges" + ("" if k is None else f"@{k}")
    res = irpref.evaluate(qrels, runs, [text])
    for q, run_q in runs["A"].items():
        ranking = sorted(run_q, key=lambda d: -run_q[d])
        got = res[res["query"] == q]["value"].item()
        assert got == pytest.approx(_brute_ndcg_exp(qrels[q], ranking, k), abs=1e-12)


@pytest.mark.parametrize("seed", range(15))
def test_ndcg_exp_gain_expected_over_tied_orderings(seed):
    import itertools

    qrels, runs = _random_collection(seed, ties=True)
    res = irpref.evaluate(qrels, runs, ["nDCG(gain=exp)", "nDCG(gain=exp)@2"], ties="expected")
    for q, run_q in runs["A"].items():
        docs = list(run_q)
        for k, label in [(None, "nDCG(gain=exp)"), (2, "nDCG(gain=exp)@2")]:
            values = []
            for perm in itertools.permutations(docs):  # every order consistent with the scores
                ranking = sorted(perm, key=lambda d: -run_q[d])  # stable: ties in perm order
                values.append(_brute_ndcg_exp(qrels[q], ranking, k))
            row = res[(res["query"] == q) & (res["measure"] == label)]
            assert row["value"].item() == pytest.approx(np.mean(values), abs=1e-12)


def test_ndcg_linear_gain_is_the_default_and_unchanged():
    qrels, runs = examples.qrels_path(), examples.run_paths()[:2]
    res = irpref.evaluate(qrels, runs, ["nDCG@10", "nDCG(gain=linear)@10", "ndcg_cut.10"])
    a, b, c = (res[res["measure"] == t]["value"].to_numpy()
               for t in ["nDCG@10", "nDCG(gain=linear)@10", "ndcg_cut.10"])
    assert np.array_equal(a, b) and np.array_equal(a, c)
    assert str(parse_measure("nDCG(gain=linear)@10")) == "nDCG@10"


# ---- property: a real parameter parses exactly when it is in its range ------


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 5)))
def test_range_is_exactly_the_accepted_set(x):
    text = repr(float(x)) if isinstance(x, float) else str(x)
    for family, key, ok in [
        ("RBP", "p", lambda v: 0 < v < 1),
        ("gRBP", "p", lambda v: 0 < v < 1),
        ("IPrec", "recall", lambda v: 0 <= v <= 1),
        ("RprecMult", "mult", lambda v: v > 0),
        ("SetF", "beta", lambda v: v >= 0),
    ]:
        measure = f"{family}({key}={text})"
        value = float(text)
        if np.isfinite(value) and ok(value):
            assert parse_measure(measure).get(key) == value
        else:
            with pytest.raises(UsageError, match=rf"^{re.escape(measure)}: {key} must be"):
                parse_measure(measure)


def test_preference_with_bad_parameter_gives_the_parameter_error():
    with pytest.raises(UsageError, match=r"^sgnLP\(rel=0\): rel must be an integer >= 1$"):
        parse_measure("sgnLP(rel=0)")


def test_a_string_of_several_names_is_not_split_inside_parentheses():
    run = str(examples.run_paths()[0])
    qrels = str(examples.qrels_path())
    t = irpref.evaluate(qrels, run, ["TSE(e=ap, impute=optimistic) AP"])
    assert list(dict.fromkeys(t["measure"])) == ["TSE(e=ap, impute=optimistic)", "AP"]
    got = irpref.measures.parse_measures("TSE(e=ap, impute=optimistic)  nDCG(gain=exp)@10")
    assert [str(m) for m in got] == ["TSE(e=ap,impute=optimistic)", "nDCG(gain=exp)@10"]
    prefs = irpref.preferences.parse_preferences("RPP(p=dcg, grades=binary) sgnLP")
    assert [str(p) for p in prefs] == ["RPP(grades=binary,p=dcg)", "sgnLP"]


@pytest.mark.slow
def test_cli_measures_never_calls_a_canonical_name_an_alias_of_itself():
    for name in ("Judged@10", "AP(rel=2)", "nDCG@10", "AP"):
        res = irpref_cli("measures", name)
        assert res.returncode == 0, res.stderr
        assert "alias of" not in res.stdout, name
    res = irpref_cli("measures", "map@100")
    assert res.returncode == 0 and "map@100 is an alias of AP@100" in res.stdout


# ---- the records: one per measure, one per preference -----------------------


def test_every_record_is_complete():
    """Orientation, source, range of values on every measure and preference; every
    alias resolves to an existing family; every trec_eval name parses to its own family."""
    from irpref.measures.base import ORIENTATIONS, range_bounds

    assert REGISTRY and PREFERENCES
    for name, fam in [*REGISTRY.items(), *PREFERENCES.items()]:
        assert fam.orientation in ORIENTATIONS, name
        assert fam.source and fam.formula, name
        assert fam.range is not None, name
        range_bounds(fam.range)
        assert name in PREFERENCES or fam.examples, name
        for a in fam.aliases:
            assert a.tools, (name, a)
            if a.refusal:
                continue
            assert a.target.split("(")[0] == name
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", NameNote)
                if name in PREFERENCES:
                    assert parse_preference(a.spelling).name == name
                else:
                    text = a.spelling + ("@10" if fam.cutoff == "required" else "")
                    if not any(p.required for p in fam.params.values()):
                        assert parse_measure(text).name == name
    for name, fam in REGISTRY.items():
        for t in fam.trec:
            text = t.name + ("_10" if "{k}" in t.text else "_0.5" if "{x}" in t.text else "")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", NameNote)
                assert parse_measure(text).name == name, t.name
    # the orientations stated in the renovation: lengths lower, counts and coverage none
    lower = {"ASL", "SL1", "SL3", "RE"}
    neither = {"NumRet", "NumRel", "NumQ", "Unj", "Judged", "RBPResid", "NumNonRelJudgedRet",
               "IDCG", "PrefsNumPoss"}
    assert {n for n, f in REGISTRY.items() if f.orientation == "lower"} == lower
    assert {n for n, f in REGISTRY.items() if f.orientation == "none"} == neither


def _in_range(values: np.ndarray, spec: str) -> bool:
    from irpref.measures.base import range_bounds

    lo, lo_open, hi, hi_open = range_bounds(spec)
    v = values[np.isfinite(values)]
    ok_lo = (v > lo) if lo_open else (v >= lo - 1e-12)
    ok_hi = (v < hi) if hi_open else (v <= hi + 1e-12)
    return bool(np.all(ok_lo & ok_hi))


def test_values_on_the_example_data_are_within_the_declared_range():
    """Every example of every record (subtopic measures: tests/test_diversity.py)."""
    texts = [t for fam in REGISTRY.values() if not fam.subtopics for t in fam.examples]
    table = irpref.evaluate(str(examples.qrels_path()), [str(p) for p in examples.run_paths()],
                            texts, rel=2, missing="zero", corpus_size=10**6)
    for text in texts:
        values = table.loc[table["measure"] == text, "value"].to_numpy(dtype=float)
        fam = parse_measure(text).family
        assert len(values) and _in_range(values, fam.range), (text, fam.range, values.min(),
                                                              values.max())


@pytest.mark.slow
def test_cli_measures_shows_orientation_and_other_tools_spellings():
    res = irpref_cli("measures", "ASL", "AP", "NumRet", "gRBP")
    assert res.returncode == 0, res.stderr
    blocks = res.stdout.split("\n\n")
    assert "lower is better" in blocks[0] and "values in [0, inf)" in blocks[0]
    assert "higher is better" in blocks[1]
    assert "map (trec_eval, ranx, PyTerrier, pytrec_eval)" in blocks[1]
    assert "map_cut_N (pytrec_eval)" in blocks[1] and "ir_measures: AP" in blocks[1]
    assert "neither (a count or coverage)" in blocks[2]
    assert "irpref calls gRBP" in blocks[3]  # the note where a spelling differs
    tsv = irpref_cli("measures", "--format", "tsv")
    head, *rows = [r.split("\t") for r in tsv.stdout.splitlines()]
    col = {c: i for i, c in enumerate(head)}
    got = {r[0]: r[col["orientation"]] for r in rows}
    for name, fam in REGISTRY.items():
        assert got[name].startswith({"higher": "higher", "lower": "lower",
                                     "none": "neither"}[fam.orientation])


def test_pyterrier_helper_reads_orientation_from_the_records():
    from irpref.interop.pyterrier import lower_is_better

    texts = ["ASL", "SL1(impute=optimistic)", "RE", "SL3", "AP", "nDCG@10", "NumRet", "Judged@10"]
    assert lower_is_better(*texts) == ["ASL", "SL1(impute=optimistic)", "RE", "SL3"]
