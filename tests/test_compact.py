"""The compact layout of JudgedRankings gives exactly the numbers of the full one.

For every registered measure (representative parameters: cut-offs, relevance
levels, RBP p, ASL variants, judged-only measures, tie-aware kernels under
``ties="expected"``) and every preference, values computed from the compact
layout (runs judged block by block, only the items the qrels mention kept)
equal those of the full layout with ``==`` (NaN where NaN), on
hypothesis-generated collections (ties, depth cut-offs, negative grades,
queries missing from runs or qrels, empty runs) and on the real data in
``tests/data``. A measure that does not declare the compact layout is refused
on it (LayoutError), never computed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from helpers import sharing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irpref.compare import compare_matrices
from irpref.evaluate import evaluate, judge_inputs, layout_for
from irpref.judging.judged import LayoutError
from irpref.measures import parse_measure
from irpref.measures.base import REGISTRY, reads_compact
from irpref.params import Settings
from irpref.preferences.pairs import preference_matrices
from irpref.preferences.registry import PREFERENCES

# representative measures of every registered family: the examples of its record
MEASURES = {name: list(fam.examples) for name, fam in REGISTRY.items()}

PREFS = ["sgnLP", "rrLP", "sgnLR", "RPP", "RPP(p=dcg)", "RPP(p=inverse)",
         "RPP(grades=binary)", "sgnLP(rel=2)", "RPP(p=dcg,rel=2)"]

CORPUS = 10_000


def _parsed() -> list:
    out = []
    for texts in MEASURES.values():
        for t in texts:
            try:
                out.append(parse_measure(t))
            except ValueError:  # a spelling the family refuses: the test list is wrong
                raise AssertionError(f"test list: cannot parse {t}") from None
    return out


def test_every_family_and_preference_is_covered():
    assert all(MEASURES.values()), "every record lists examples"
    covered = {p.split("(")[0] for p in PREFS} | {"ST-RPP"}
    assert covered == set(PREFERENCES)
    assert not PREFERENCES["ST-RPP"].compact


def _judge_both(qrels, runs, ties, depth, corpus_size=CORPUS, block_runs=2):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = judge_inputs(qrels, runs, ties=ties, depth=depth, corpus_size=corpus_size)
        compact = judge_inputs(qrels, runs, ties=ties, depth=depth, corpus_size=corpus_size,
                               layout="compact", count_docs=True, block_runs=block_runs)
    return full, compact


def _value(m, judged):
    try:
        return m.compute(judged)
    except LayoutError:
        raise
    except (ValueError, ZeroDivisionError) as e:  # refused the same way on both layouts
        return type(e).__name__


def check_all(full, compact, measures=None):
    """Every measure and preference: compact == full, or refused on compact."""
    assert compact.compact and not full.compact
    assert full.run_names == compact.run_names
    assert np.array_equal(full.present, compact.present)
    assert np.array_equal(full.num_ret, compact.num_ret)
    assert full.n_docs == compact.n_docs
    checked = 0
    for m in measures or _parsed():
        if full.ties == "expected" and m.family.expected is None:
            continue
        want = _value(m, full)
        if not reads_compact(m, full.ties):
            with pytest.raises(LayoutError):
                m.compute(compact)
            continue
        got = _value(m, compact)
        if isinstance(want, str) or isinstance(got, str):
            assert want == got, f"{m}: {want!r} vs {got!r}"
            continue
        np.testing.assert_array_equal(got, want, err_msg=f"{m} (ties={full.ties})", strict=True)
        checked += 1
    if full.ties != "expected" and full.n_runs:
        a = preference_matrices(full, PREFS)
        b = preference_matrices(compact, PREFS)
        assert a.names == b.names
        for name in a.names:
            np.testing.assert_array_equal(b.values[name], a.values[name], err_msg=name,
                                          strict=True)
            assert list(b.queries[name]) == list(a.queries[name])
        with pytest.raises(LayoutError):
            preference_matrices(compact, ["ST-RPP"])
    return checked


# ---------------------------------------------------------------- hypothesis


@st.composite
def collections(draw):
    n_q = draw(st.integers(1, 4))
    n_d = draw(st.integers(1, 12))
    queries = [f"q{i}" for i in range(n_q)]
    docs = [f"d{i:0{draw(st.integers(1, 3))}d}" for i in range(n_d)]  # mixed widths
    qrels = []
    for q in queries[: draw(st.integers(1, n_q))]:  # later queries may be absent
        for d in docs:
            if draw(st.booleans()):
                qrels.append((q, d, draw(st.integers(-1, 3))))
    if not qrels:
        qrels.append((queries[0], docs[0], 1))
    runs = {}
    for r in range(draw(st.integers(1, 5))):
        rows = []
        for q in [*queries, "extra"]:  # "extra": a query the qrels lack
            if draw(st.integers(0, 3)) == 0:
                continue  # query missing from the run
            chosen = draw(st.lists(st.sampled_from(docs), unique=True, max_size=n_d))
            for d in chosen:
                rows.append((q, d, float(draw(st.integers(0, 3)))))  # many ties
        runs[f"run{r}"] = pd.DataFrame(sharing(rows, qrels, docs[0]),
                                       columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    depth = draw(st.sampled_from([None, 1, 2, 5]))
    return qrels, runs, depth


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from(["docid", "input", "expected"]), st.integers(1, 3))
def test_compact_equals_full_on_random_collections(coll, ties, block_runs):
    qrels, runs, depth = coll
    full, compact = _judge_both(qrels, runs, ties, depth, block_runs=block_runs)
    check_all(full, compact)


@settings(max_examples=40, deadline=None)
@given(collections(), st.sampled_from(["skip", "zero"]))
def test_evaluate_tables_equal(coll, missing):
    """The tidy tables of evaluate (and --missing zero) are equal on both layouts."""
    qrels, runs, depth = coll
    full, compact = _judge_both(qrels, runs, "docid", depth)
    texts = ["AP", "nDCG@3", "P@2", "RR", "R@5", "ASL", "Bpref"]
    a = evaluate(None, None, texts, missing=missing, judged=full)
    b = evaluate(None, None, texts, missing=missing, judged=compact)
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_empty_runs_and_no_runs():
    qrels = pd.DataFrame({"query_id": ["a", "a", "b"], "doc_id": ["x", "y", "x"],
                          "relevance": [1, 0, 2]})
    empty = pd.DataFrame({"query_id": [], "doc_id": [], "score": []})
    one = pd.DataFrame({"query_id": ["a", "a"], "doc_id": ["z", "x"], "score": [2.0, 1.0]})
    for ties in ("docid", "expected"):
        full, compact = _judge_both(qrels, {"e": empty, "o": one, "f": empty}, ties, None)
        assert check_all(full, compact) > 30
    full, compact = _judge_both(qrels, {}, "docid", None)
    assert compact.n_runs == 0 and compact.n_items == 0


# ---------------------------------------------------------------- real data


def _real(data_dir, name):
    base = data_dir / name
    runs = sorted((base / "runs").iterdir())
    return base / "qrels.txt", runs


@pytest.mark.slow
@pytest.mark.parametrize("name", ["robust03", "dl19-passage"])
@pytest.mark.parametrize("ties,depth", [("docid", None), ("input", 50), ("expected", None)])
def test_compact_equals_full_on_real_data(data_dir, name, ties, depth):
    qrels, runs = _real(data_dir, name)
    full, compact = _judge_both(qrels, runs, ties, depth, block_runs=3)
    assert compact.n_items < full.n_items
    assert check_all(full, compact) > 30


def test_trec_eval_sample(data_dir):
    base = data_dir / "trec_eval"
    for ties in ("docid", "expected"):
        full, compact = _judge_both(base / "qrels.test", [base / "results.test"], ties, None)
        check_all(full, compact)


# ---------------------------------------------------------------- the choice


def test_layout_choice_is_declared():
    assert layout_for(["AP", "nDCG@10", "P@10", "RR", "R@1000"]) == ("compact", False)
    assert layout_for(["AP", "Unj@10"]) == ("full", False)
    assert layout_for(["ASL(missing=corpus)"]) == ("compact", True)
    assert layout_for(["ASL(missing=corpus)"],
                      settings=Settings(corpus_size=10)) == ("compact", False)
    assert layout_for(["SL1"], settings=Settings(ties="expected")) == ("full", False)
    assert layout_for(["AP"], settings=Settings(ties="expected")) == ("compact", False)
    assert layout_for(preferences=["sgnLP", "RPP"]) == ("compact", False)
    assert layout_for(preferences=["ST-RPP"]) == ("full", False)
    assert layout_for(["AP"], subtopics="x") == ("full", False)


@pytest.mark.slow
def test_pipelines_pick_compact_and_agree(data_dir):
    qrels, runs = _real(data_dir, "robust03")
    a = evaluate(qrels, runs, ["AP", "nDCG@10", "Unj@10"])  # full (Unj)
    b = evaluate(qrels, runs, ["AP", "nDCG@10"])  # compact
    kept = a[a.measure != "Unj@10"].reset_index(drop=True)
    kept["measure"] = kept["measure"].cat.remove_unused_categories()  # categorical columns
    pd.testing.assert_frame_equal(kept, b, check_exact=True)
    c1 = compare_matrices(qrels, runs, ["sgnLP", "RPP"])
    full = judge_inputs(qrels, runs)
    c2 = preference_matrices(full, ["sgnLP", "RPP"])
    for name in c2.names:
        np.testing.assert_array_equal(c1.values[name], c2.values[name], strict=True)


def test_compact_refuses_what_it_lacks(data_dir):
    qrels, runs = _real(data_dir, "robust03")
    compact = judge_inputs(qrels, runs[:2], layout="compact")
    with pytest.raises(LayoutError):
        compact.tie_offsets  # noqa: B018
    with pytest.raises(LayoutError):
        compact.docs  # noqa: B018
    with pytest.raises(LayoutError, match="distinct documents"):
        compact.n_docs  # noqa: B018
    with pytest.raises(LayoutError):
        parse_measure("Unj@10").compute(compact)
    with pytest.raises(ValueError, match="layout"):
        judge_inputs(qrels, runs[:1], layout="sparse")


# ---------------------------------------------------------------- saved files


@pytest.mark.slow
def test_saved_compact_file_round_trip(data_dir, tmp_path):
    from irpref.judging.store import load, save

    qrels, runs = _real(data_dir, "robust03")
    for ties in ("docid", "expected"):
        compact = judge_inputs(qrels, runs, ties=ties, layout="compact", count_docs=True)
        out = tmp_path / f"{ties}.parquet"
        save(compact, out, qrels=qrels, runs=runs)
        back = load(out, Settings(ties=ties))
        assert back.compact and back.n_docs == compact.n_docs
        full = judge_inputs(qrels, runs, ties=ties)
        ms = [m for m in _parsed() if reads_compact(m, ties)
              and (ties != "expected" or m.family.expected is not None)]
        check_all(full, back, ms)


@pytest.mark.slow
def test_cli_judge_layouts(data_dir, tmp_path):
    import os
    import subprocess

    qrels, runs = _real(data_dir, "robust03")
    runs = runs[:3]

    def cli(*args):
        return subprocess.run(["irpref", *map(str, args)], capture_output=True, text=True,
                              env={**os.environ, "COLUMNS": "200"})

    small, big = tmp_path / "c.parquet", tmp_path / "f.parquet"
    assert cli("judge", qrels, *runs, "-o", small, "--layout", "compact").returncode == 0
    assert cli("judge", qrels, *runs, "-o", big).returncode == 0
    assert small.stat().st_size < big.stat().st_size
    for cmd, extra in [("evaluate", ["-m", "AP", "P@10", "ASL(missing=corpus)", "--per-query",
                                     "--format", "tsv"]),
                       ("compare", ["-m", "sgnLP", "RPP", "--format", "tsv"]),
                       ("significance", ["-m", "AP", "rrLP", "--seed", "1", "--format", "tsv"])]:
        direct = cli(cmd, qrels, *runs, *extra)
        assert direct.returncode == 0, direct.stderr
        for saved in (small, big):
            r = cli(cmd, saved, *extra)
            assert r.returncode == 0, r.stderr
            assert r.stdout == direct.stdout, (cmd, saved)
    for cmd, extra in [("evaluate", ["-m", "Unj@10"]), ("ties", ["-m", "AP"])]:
        r = cli(cmd, small, *extra)
        assert r.returncode == 2 and r.stdout == ""
        assert "--layout full" in r.stderr
    r = cli("compare", small, "-m", "ST-RPP")
    assert r.returncode != 0 and r.stdout == "" and "Traceback" not in r.stderr
