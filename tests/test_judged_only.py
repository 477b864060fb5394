"""Judged-only evaluation: the ``judged_only=true`` modifier (condensed lists,
Sakai 2007; trec_eval -J) of every measure and preference, ``--judged-only``.

The defining property, on hypothesis-generated collections (ties, negative
grades, unjudged documents, queries missing from runs or qrels, depth cuts)
for every tie policy and both layouts: ``X(judged_only=true)`` on the judged
rankings equals ``X`` on the rankings of the runs first cut at the depth (the
tie policy's order, as trec_eval -M) and then stripped of every unjudged
document, for every example of every measure family and every preference
family, with ``==``.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd
import pytest
from helpers import QRELS, RUNS, irpref_cli, sharing, write_qrels, write_run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irpref
import irpref.judging.condense
from irpref.errors import UsageError
from irpref.evaluate import judge_inputs
from irpref.io.subtopics import as_subtopic_qrels
from irpref.io.trec import read_qrels, read_run
from irpref.judging.interning import intern
from irpref.judging.judged import LayoutError
from irpref.judging.ranking import judge
from irpref.measures import REGISTRY, parse_measure
from irpref.measures.base import MODIFIERS, reads_compact, with_params
from irpref.measures.subtopic_judgments import with_subtopics
from irpref.preferences import PREFERENCES, parse_preference
from irpref.preferences.pairs import preference_matrices
from irpref.trec_eval.format import format_trec_eval, resolve_measures

MEASURES = [parse_measure(t) for fam in REGISTRY.values() for t in fam.examples]
PREFS = [parse_preference(t) for t in ("sgnLP", "rrLP", "sgnLR", "RPP", "RPP(p=dcg)",
                                       "RPP(grades=binary,p=inverse)", "RPP(rel=2)", "ST-RPP")]


def test_every_family_is_covered():
    assert {m.name for m in MEASURES} == set(REGISTRY)
    assert {p.name for p in PREFS} == set(PREFERENCES)


# ---- text: parse, print, refuse ------------------------------------------------------


@pytest.mark.parametrize("text, canonical", [
    ("AP(judged_only=true)@10", "AP(judged_only=true)@10"),
    ("AP(judged_only=True,rel=2)", "AP(judged_only=true,rel=2)"),
    ("map(JUDGED_ONLY=TRUE)@100", "AP(judged_only=true)@100"),
    ("AP(judged_only=false)", "AP"),
    ("nDCG(judged_only=true,gain=exp)@5", "nDCG(gain=exp,judged_only=true)@5"),
])
def test_measure_text_round_trip(text, canonical):
    m = parse_measure(text)
    assert str(m) == canonical and parse_measure(str(m)) == m
    assert m.judged_only == ("judged_only=true" in canonical)


def test_every_example_round_trips_with_the_modifier():
    for m in MEASURES:
        j = with_params(m, judged_only=True)
        assert "judged_only=true" in str(j) and j.judged_only and not m.judged_only
        assert parse_measure(str(j)) == j
        assert with_params(j, judged_only=False) == m
    for p in PREFS:
        j = with_params(p, judged_only=True)
        assert "judged_only=true" in str(j) and j.judged_only
        assert parse_preference(str(j)) == j and with_params(j, judged_only=False) == p
    assert str(parse_preference("dcgrpp(judged_only=true)")) == "RPP(judged_only=true,p=dcg)"


@pytest.mark.parametrize("value", ["maybe", "1", "0", "yes", "", "'tru'"])
def test_bad_values_are_refused(value):
    for text, parse in ((f"P(judged_only={value})@5", parse_measure),
                        (f"RPP(judged_only={value})", parse_preference)):
        with pytest.raises(UsageError) as err:
            parse(text)
        assert str(err.value) == f"{text}: judged_only must be true or false"


def test_the_modifier_is_declared_once():
    """One Param shared by every measure and preference, not copied into the records."""
    assert set(MODIFIERS) == {"judged_only"}
    assert not any("judged_only" in f.params for f in REGISTRY.values())
    assert not any("judged_only" in f.params for f in PREFERENCES.values())


def test_applied_modifiers_reach_every_spelling_and_leave_explicit_values():
    assert str(parse_measure("ndcg_cut.10", judged_only=True)) == "nDCG(judged_only=true)@10"
    assert str(parse_measure("map@100-l2", judged_only=True)) == "AP(judged_only=true,rel=2)@100"
    assert str(parse_measure("P(judged_only=false)@5", judged_only=True)) == "P@5"
    assert str(parse_preference("dcgrpp", judged_only=True)) == "RPP(judged_only=true,p=dcg)"
    assert str(parse_measure(parse_measure("AP@5"), judged_only=True)) == \
        "AP(judged_only=true)@5"
    assert str(parse_measure("ndcg_cut.10")) == "nDCG@10"  # nothing lingers: no hidden state


# ---- the defining property ------------------------------------------------------------


@st.composite
def collections(draw):
    n_q, n_d = draw(st.integers(1, 3)), draw(st.integers(2, 9))
    queries = [f"q{i}" for i in range(n_q)]
    docs = [f"d{i}" for i in range(n_d)]
    qrels = [(q, d, draw(st.integers(-1, 3))) for q in queries[: draw(st.integers(1, n_q))]
             for d in docs if draw(st.booleans())] or [(queries[0], docs[0], 1)]
    sub = [(q, t, d, g) for q, d, g in qrels
           for t in draw(st.sets(st.sampled_from("01"), min_size=1))]
    runs = {}
    for r in range(draw(st.integers(1, 3))):
        rows = [(q, d, float(draw(st.integers(0, 3))))  # many ties
                for q in [*queries, "extra"] if draw(st.integers(0, 3))
                for d in draw(st.lists(st.sampled_from(docs), unique=True, max_size=n_d))]
        runs[f"run{r}"] = pd.DataFrame(sharing(rows, qrels, docs[0]),
                                       columns=["query_id", "doc_id", "score"])
    sub = pd.DataFrame(sub, columns=["query_id", "subtopic", "doc_id", "relevance"])
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
            as_subtopic_qrels(sub), runs)


def _cut(run: pd.DataFrame, depth: int | None, ties: str) -> pd.DataFrame:
    """Each query's top ``depth`` rows, file order kept: ranked by score, then docid
    descending (docid, expected: judge cuts in docid order) or file order (input)."""
    if depth is None:
        return run
    by = ["score"] if ties == "input" else ["score", "doc_id"]
    ranked = run.sort_values(by, ascending=False, kind="stable")
    return run.loc[run.index.isin(ranked.groupby("query_id", sort=False).head(depth).index)]


def _brute_force_runs(qrels: pd.DataFrame, runs: dict, depth: int | None, ties: str) -> dict:
    """The runs cut at ``depth``, then without the documents unjudged for their query."""
    judged = {(q, d) for q, d, g in qrels.itertuples(index=False) if g >= 0}
    out = {}
    for name, run in runs.items():
        run = _cut(run, depth, ties)
        keep = [(q, d) in judged for q, d in zip(run.query_id, run.doc_id)]
        out[name] = run.loc[np.array(keep, dtype=bool)]
    return out


def _judge(qrels, runs, ties, layout, depth, corpus, sub):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        judged = judge_inputs(qrels, runs, ties=ties, depth=depth, corpus_size=corpus,
                              layout=layout, count_docs=layout == "compact", block_runs=2)
    return with_subtopics(judged, sub)


def _value(m, judged):
    try:
        return m.compute(judged)
    except LayoutError:
        raise
    except (ValueError, ZeroDivisionError) as e:  # refused alike on both
        return type(e).__name__


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from(["docid", "input", "expected"]),
       st.sampled_from(["full", "compact"]), st.sampled_from([None, 1, 2, 4]),
       st.sampled_from([None, 50]))
def test_measures_judged_only_equal_runs_without_unjudged(coll, ties, layout, depth, corpus):
    qrels, sub, runs = coll
    judged = _judge(qrels, runs, ties, layout, depth, corpus, sub)
    want = _judge(qrels, _brute_force_runs(qrels, runs, depth, ties), ties, layout, None,
                  corpus, sub)
    checked = 0
    for m in MEASURES:
        if ties == "expected" and m.family.expected is None:
            continue
        if layout == "compact" and not reads_compact(m, ties):
            continue
        got, exp = _value(with_params(m, judged_only=True), judged), _value(m, want)
        if isinstance(got, str) or isinstance(exp, str):
            assert got == exp, m
            continue
        np.testing.assert_array_equal(got, exp, err_msg=f"{m} ties={ties} {layout} "
                                      f"depth={depth}", strict=True)
        checked += 1
    assert checked > 0


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from(["docid", "input"]),
       st.sampled_from(["full", "compact"]), st.sampled_from([None, 1, 3]))
def test_preferences_judged_only_equal_runs_without_unjudged(coll, ties, layout, depth):
    qrels, sub, runs = coll
    prefs = [p for p in PREFS if layout == "full" or p.family.compact]
    judged = _judge(qrels, runs, ties, layout, depth, None, sub)
    want = _judge(qrels, _brute_force_runs(qrels, runs, depth, ties), ties, layout, None,
                  None, sub)
    mods = [with_params(p, judged_only=True) for p in prefs]
    got = preference_matrices(judged, mods, subtopics=sub)
    exp = preference_matrices(want, prefs, subtopics=sub)
    for p, j in zip(prefs, mods):
        assert np.array_equal(got.queries[str(j)], exp.queries[str(p)])
        np.testing.assert_array_equal(got.values[str(j)], exp.values[str(p)],
                                      err_msg=f"{p} ties={ties} {layout} depth={depth}",
                                      strict=True)


def test_plain_and_judged_only_side_by_side():
    """One call computes both; an unjudged document above a relevant one moves it up."""
    qrels = pd.DataFrame([("q", "r", 1), ("q", "n", 0)], columns=["query_id", "doc_id",
                                                                   "relevance"])
    run = pd.DataFrame([("q", "u", 3.0), ("q", "r", 2.0), ("q", "n", 1.0)],
                       columns=["query_id", "doc_id", "score"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = irpref.evaluate(qrels, {"run": run}, ["RR", "RR(judged_only=true)", "P@1",
                                                    "P(judged_only=true)@1"])
    assert dict(zip(res.measure, res.value)) == {
        "RR": 0.5, "RR(judged_only=true)": 1.0, "P@1": 0.0, "P(judged_only=true)@1": 1.0}


def test_condensed_once_per_judged_rankings(monkeypatch):
    calls = []
    real = irpref.judging.condense.condense

    def counting(judged):
        calls.append(judged)
        return real(judged)

    monkeypatch.setattr(irpref.judging.condense, "condense", counting)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        judged = judge_inputs(QRELS, RUNS[:3], rel=2)
    texts = ["AP(judged_only=true)", "nDCG(judged_only=true)@10", "P(judged_only=true)@5",
             "Bpref(judged_only=true)", "AP"]
    irpref.evaluate(None, None, texts, judged=judged)
    preference_matrices(judged, ["sgnLP(judged_only=true)", "RPP(judged_only=true)"])
    assert len(calls) == 1 and calls[0] is judged
    once = irpref.judging.condense.condensed(judged)
    condensed = irpref.judging.condense.condensed
    assert condensed(once) is once and condensed(judged) is once


# ---- trec_eval -J ---------------------------------------------------------------------

SUITE = {  # irpref's verified trec_eval -J outputs (tests/data/README.md)
    "irpref.test.aqJ": (["all_trec"], "qrels.test", "results.test", {}),
    "irpref.test.aqlJ": (["all_trec", "relstring.20"], "qrels.rel_level", "results.test",
                         {"rel": 2}),
    "irpref.test.aqcMJ": (["all_trec"], "qrels.test", "results.trunc",
                          {"depth": 100, "complete": True}),
}


def _suite_judged(d, qrels, run_name, depth, rel, tmp_path):
    lines = [" ".join(ln.split()[:6]) for ln in (d / run_name).read_text().splitlines()
             if ln.strip()]  # results.trunc has junk after the tag, as trec_eval reads it
    path = tmp_path / "run.txt"
    path.write_text("\n".join(lines) + "\n")
    return judge(intern(read_qrels(d / qrels), [read_run(path)]), depth=depth, rel=rel)


@pytest.mark.parametrize("name", sorted(SUITE))
def test_every_all_trec_measure_with_the_modifier_prints_trec_eval_J(data_dir, tmp_path,
                                                                     name):
    """Every measure of -m all_trec, with and without -l, given judged_only=true instead
    of condensing the rankings, prints the verified -J output byte for byte."""
    d = data_dir / "trec_eval"
    marks, qrels, run_name, opts = SUITE[name]
    judged = _suite_judged(d, qrels, run_name, opts.get("depth"), opts.get("rel", 1), tmp_path)
    condensed_view = dataclasses.replace(
        judged, settings=judged.settings.replace(judged_only=True))
    text = format_trec_eval(condensed_view, resolve_measures(marks), runid="STANDARD",
                            query_flag=True, complete=opts.get("complete", False))
    plain = format_trec_eval(judged, resolve_measures(marks), runid="STANDARD",
                             query_flag=True, complete=opts.get("complete", False))
    want = (d / name).read_text()

    def lines(out: str, measures: bool = True) -> list[str]:
        # relstring (the grades of the top documents) and 11pt_avg are printed from
        # the rankings by irpref.trec_eval.format itself, not through a measure: -J gives
        # them condensed rankings; 11pt_avg is checked against IPrecAvg below
        return [ln for ln in out.splitlines(keepends=True)
                if (ln.split()[0].startswith(("relstring", "11pt_avg"))) != measures]

    # trec_eval prints -nan for iprec at recall 0 of a ranking -J leaves empty (0/0,
    # trec_eval.format.empty_iprec_nan); the measure's own value there is 0
    nan = {tuple(ln.split()[:2]) for ln in lines(want) if ln.split()[2] == "-nan"}
    assert [ln for ln in lines(text) if tuple(ln.split()[:2]) not in nan] == [
        ln for ln in lines(want) if tuple(ln.split()[:2]) not in nan]
    assert lines(plain) != lines(want)  # the modifier changes values (the test can fail)
    avg = with_params(parse_measure("IPrecAvg"), judged_only=True).compute(judged)[0]
    queries = list(judged.queries)
    for ln in lines(want, measures=False):
        key, q, v = ln.split()
        if key == "11pt_avg" and v != "-nan":  # -nan: trec_eval's 0/0 (see above)
            got = avg[queries.index(q)] if q != "all" else avg[judged.present[0] | bool(
                opts.get("complete"))].mean()
            assert f"{got:.4f}" == v, ln


def test_J_covers_every_measure_of_all_trec(data_dir):
    """The -J outputs hold the same measure lines as trec_eval 10.0's own -m all_trec."""
    d = data_dir / "trec_eval"

    def names(file):
        return [ln.split()[0] for ln in (d / file).read_text().splitlines()]

    assert set(names("irpref.test.aqJ")) == set(names("out.test.aq"))
    assert set(names("irpref.test.aqlJ")) == set(names("out.test.aql"))
    assert set(names("irpref.test.aqcMJ")) == set(names("out.test.aqcM"))


@pytest.mark.slow
def test_cli_trec_eval_J_summary_with_and_without_l(data_dir):
    """Without -q, -J prints the summary lines of the verified -q output, with and
    without -l (the installed command)."""
    d = data_dir / "trec_eval"
    for name, flags, qrels in (("irpref.test.aqJ", [], "qrels.test"),
                               ("irpref.test.aqlJ", ["-mrelstring.20", "-l2"],
                                "qrels.rel_level")):
        want = "".join(ln for ln in (d / name).read_text().splitlines(keepends=True)
                       if ln.split()[1] == "all")
        out = irpref_cli("trec_eval", "-J", "-m", "all_trec", *flags, d / qrels,
                         d / "results.test")
        assert out.returncode == 0, out.stderr
        assert out.stdout == want


@pytest.mark.slow
def test_ap_judged_only_equals_trec_eval_J_map_on_robust03(data_dir):
    """AP(judged_only=true) per query (library) is trec_eval -J's map (installed command)
    on a real run with many unjudged documents."""
    qrels = data_dir / "robust03" / "qrels.txt"
    run = data_dir / "robust03" / "runs" / "aplrob03a.gz"
    out = irpref_cli("trec_eval", "-J", "-q", "-m", "map", qrels, run)
    assert out.returncode == 0, out.stderr
    printed = {f[1]: f[2] for f in (ln.split() for ln in out.stdout.splitlines())}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = irpref.evaluate(qrels, [run], ["AP(judged_only=true)", "AP"])
    got = res[res.measure == "AP(judged_only=true)"]
    assert len(got) == len(printed) - 1 > 50
    for q, v in zip(got["query"], got["value"]):
        assert f"{v:.4f}" == printed[q], q
    assert f"{got['value'].mean():.4f}" == printed["all"]
    plain = res[res.measure == "AP"]["value"].to_numpy()
    assert (got["value"].to_numpy() != plain).any()


# ---- the command line ------------------------------------------------------------------


@pytest.mark.slow
def test_cli_judged_only_evaluate_and_compare(tmp_path):
    """--judged-only labels every measure and preference (defaults included) and
    computes the condensed lists: the top unjudged document no longer counts."""
    qrels = write_qrels(tmp_path / "qrels", [("q1", "r", 1), ("q1", "n", 0), ("q2", "r", 1),
                                             ("q2", "s", 1)])
    a = write_run(tmp_path / "a", [("q1", "u", 3.0), ("q1", "r", 2.0), ("q1", "n", 1.0),
                                   ("q2", "s", 2.0), ("q2", "x", 1.5), ("q2", "r", 1.0)])
    b = write_run(tmp_path / "b", [("q1", "n", 3.0), ("q1", "r", 2.0),
                                   ("q2", "r", 2.0), ("q2", "y", 1.0)])
    out = irpref_cli("evaluate", qrels, a, b, "--judged-only", "-m", "RR", "map",
                     "P@1", "--format", "tsv")
    assert out.returncode == 0, out.stderr
    rows = [ln.split("\t") for ln in out.stdout.splitlines()[1:]]
    got = {(r, m): float(v) for r, m, v in rows}
    assert got == {("a", "RR(judged_only=true)"): 1.0, ("b", "RR(judged_only=true)"): 0.75,
                   ("a", "AP(judged_only=true)"): 1.0, ("b", "AP(judged_only=true)"): 0.5,
                   ("a", "P(judged_only=true)@1"): 1.0, ("b", "P(judged_only=true)@1"): 0.5}
    out = irpref_cli("compare", qrels, a, b, "--judged-only", "--format", "tsv")
    assert out.returncode == 0, out.stderr
    rows = [ln.split("\t") for ln in out.stdout.splitlines()[1:]]
    assert [r[2] for r in rows] == [str(with_params(parse_preference(p), judged_only=True))
                                    for p in irpref.preferences.DEFAULT_PREFERENCES]
    sgn = {r[2]: float(r[3]) for r in rows}["sgnLP(judged_only=true)"]
    # condensed, a's relevant documents sit at 1 (q1) and 1, 2 (q2), b's at 2 and 1: a wins
    # both; on the plain lists q1 ties (r at 2 in both), so the plain mean is 0.5
    assert sgn == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = preference_matrices(judge_inputs(qrels, [a, b]), ["sgnLP"]).mean("sgnLP")
    assert plain[0, 1] == 0.5


@pytest.mark.slow
def test_cli_refuses_bad_values_without_traceback(tmp_path):
    qrels = write_qrels(tmp_path / "qrels", [("q", "r", 1)])
    run = write_run(tmp_path / "run", [("q", "r", 1.0)])
    out = irpref_cli("evaluate", qrels, run, "-m", "AP(judged_only=maybe)")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.splitlines()[-1] == ("irpref evaluate: error: AP(judged_only=maybe): "
                                           "judged_only must be true or false")
    assert "Traceback" not in out.stderr
    out = irpref_cli("compare", qrels, run, "--judged-only", "--dask", "local:1")
    assert out.returncode == 2 and "--judged-only does not run on --dask" in out.stderr


# ---- ir_measures -----------------------------------------------------------------------


def test_ir_measures_judged_only_is_the_modifier():
    im = pytest.importorskip("ir_measures")
    from irpref.interop.ir_measures import to_irpref

    assert to_irpref(im.AP(judged_only=True)) == "AP(judged_only=true,rel=1)"
    assert to_irpref(im.nDCG(judged_only=True) @ 10) == "nDCG(judged_only=true)@10"
    qrels = list(im.read_trec_qrels(str(QRELS)))
    run = list(im.read_trec_run(str(RUNS[1])))
    measures = [im.AP(judged_only=True), im.nDCG(judged_only=True) @ 10,
                im.P(judged_only=True, rel=2) @ 5, im.RR(judged_only=True), im.AP]
    ours = irpref.calc_aggregate(measures, qrels, run)
    theirs = im.pytrec_eval.calc_aggregate(measures, qrels, run)  # trec_eval's -J inside
    for m in measures:  # pytrec_eval reads scores as float32 (see test_conformance.py)
        assert ours[m] == pytest.approx(theirs[m], abs=1e-4), m
    assert ours[measures[0]] != ours[measures[-1]]
