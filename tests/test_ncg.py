"""NCG@k (normalised cumulative gain), the measure added as one record: by hand,
against a literal transcription of its definition, and its expected-ties kernel
against the enumeration of every ordering of the tied documents."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irpref
from irpref import examples
from irpref.measures import REGISTRY

DOCS = [f"d{i:02d}" for i in range(10)]


def value(qrels, run, measure, **kw) -> float:
    res = irpref.evaluate(qrels, {"r": run}, [measure], **kw)
    return float(res.loc[res["query"] == "q", "value"].iloc[0])


def trec_order(run: dict[str, float]) -> list[str]:
    return [d for d, _ in sorted(sorted(run.items(), reverse=True), key=lambda x: -x[1])]


def literal_ncg(grades: dict[str, int], ranking: list[str], k: int | None) -> float:
    top = ranking if k is None else ranking[:k]
    cg = sum(max(grades.get(d, 0), 0) for d in top)
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)
    icg = sum(ideal if k is None else ideal[:k])
    return cg / icg if icg > 0 else 0.0


def test_the_record():
    fam = REGISTRY["NCG"]
    assert fam.orientation == "higher" and fam.range == "[0, 1]"
    assert "Jarvelin" in fam.source and fam.expected is not None
    assert fam.compact and fam.compact_expected
    assert str(irpref.parse_measure("ncg@10")) == "NCG@10"  # names resolve from the record


def test_ncg_by_hand():
    """grades a=3, b=1, c=2; run x a b c: NCG@1 = 0/3, NCG@2 = 3/5, NCG@3 = 4/6, NCG = 1."""
    qrels = {"q": {"a": 3, "b": 1, "c": 2}}
    run = {"q": {"x": 4.0, "a": 3.0, "b": 2.0, "c": 1.0}}
    got = irpref.evaluate(qrels, {"r": run}, ["NCG@1", "NCG@2", "NCG@3", "NCG"])
    assert got["value"].tolist() == pytest.approx([0.0, 3 / 5, 4 / 6, 1.0], abs=1e-15)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(
    grades=st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 4), min_size=1, max_size=8),
    scores=st.dictionaries(st.sampled_from(DOCS), st.integers(0, 5), min_size=0, max_size=9),
    k=st.sampled_from([None, 1, 2, 3, 5, 20]),
)
def test_ncg_against_literal_definition(grades, scores, k):
    run = {"q": {d: float(s) for d, s in scores.items()}, "other": {"z": 1.0}}
    qrels = {"q": grades, "other": {"z": 1}}
    name = "NCG" if k is None else f"NCG@{k}"
    got = value(qrels, run, name, missing="zero")
    assert got == pytest.approx(literal_ncg(grades, trec_order(run["q"]), k), abs=1e-12)


def all_orderings(run: dict[str, float]):
    items = sorted(run.items(), key=lambda x: -x[1])
    groups = [list(g) for _, g in itertools.groupby(items, key=lambda x: x[1])]
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [d for perm in perms for d, _ in perm]


@settings(max_examples=100, deadline=None)
@given(
    grades=st.dictionaries(st.sampled_from(DOCS[:7]), st.integers(-1, 3), min_size=1, max_size=6),
    scores=st.dictionaries(st.sampled_from(DOCS[:7]), st.integers(0, 2), min_size=1, max_size=6),
    k=st.integers(1, 7),
)
def test_expected_ncg_against_enumeration(grades, scores, k):
    run = {"q": {d: float(s) for d, s in scores.items()}}
    brute = np.mean([literal_ncg(grades, o, k) for o in all_orderings(run["q"])])
    got = value({"q": grades}, run, f"NCG@{k}", ties="expected")
    assert got == pytest.approx(brute, abs=1e-12)


def test_ncg_on_the_example_data_both_layouts():
    qrels, runs = str(examples.qrels_path()), [str(p) for p in examples.run_paths()]
    full = irpref.evaluate(None, None, ["NCG@10", "NCG"],
                           judged=irpref.judge_inputs(qrels, runs, layout="full"))
    compact = irpref.evaluate(None, None, ["NCG@10", "NCG"],
                              judged=irpref.judge_inputs(qrels, runs, layout="compact"))
    np.testing.assert_array_equal(full["value"].to_numpy(), compact["value"].to_numpy())
    assert full["value"].between(0, 1).all()
