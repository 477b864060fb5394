"""One rule per option (irpref.params), one message for the CLI and Python,
and one rule for the judged queries a run lacks (``missing``), always announced."""

from __future__ import annotations

import inspect
import warnings

import pytest
from helpers import QRELS, RUNS, irpref_cli, write_qrels, write_run

import irpref
from irpref import params
from irpref.errors import MissingQueries, UsageError
from irpref.evaluate import judge_inputs

REL_RULE = "must be >= 1 (grade 0 is judged non-relevant, negative grades are unjudged)"


@pytest.mark.parametrize("call", [
    lambda **kw: irpref.evaluate(QRELS, RUNS[:2], ["AP"], **kw),
    lambda **kw: judge_inputs(QRELS, RUNS[:2], **kw),
    lambda **kw: judge_inputs(QRELS, RUNS[:2], layout="compact", **kw),
], ids=["evaluate", "judge_inputs", "judge_inputs-compact"])
@pytest.mark.parametrize(("option", "value", "rule"), [
    ("rel", 0, REL_RULE),
    ("rel", -1, REL_RULE),
    ("rel", 1.5, "must be an integer"),
    ("depth", 0, "must be >= 1"),
    ("depth", True, "must be an integer"),
    ("ties", "random", "must be one of docid, input, expected"),
    ("corpus_size", 0, "must be >= 1"),
])
def test_python_refuses_with_the_rule(call, option, value, rule):
    with pytest.raises(UsageError) as err:
        call(**{option: value})
    assert str(err.value) == f"{option}={value}: {rule}"


def test_missing_rule_in_python():
    with pytest.raises(UsageError, match=r"^missing=all: must be one of skip, zero$"):
        irpref.evaluate(QRELS, RUNS[:1], ["AP"], missing="all")


def test_meta_experiments_refuse_rel_zero():
    from irpref.meta.comparisons import tie_rates

    with pytest.raises(UsageError, match=r"^rel=0: must be >= 1"):
        tie_rates(QRELS, RUNS[:2], rel=0)


@pytest.mark.parametrize("args", [
    ["evaluate", QRELS, RUNS[0], "-m", "AP"],
    ["compare", QRELS, *RUNS[:2], "-m", "sgnLP"],
    ["meta", "ties", QRELS, *RUNS[:2], "-m", "AP"],
    ["significance", QRELS, *RUNS[:2], "-m", "AP"],
], ids=["evaluate", "compare", "meta-ties", "significance"])
def test_cli_refuses_rel_zero_with_the_same_rule(args):
    out = irpref_cli(*args, "--rel", "0")
    assert out.returncode == 2, out.stderr
    assert out.stdout == ""
    assert out.stderr.strip().endswith(f"error: --rel 0: {REL_RULE}")


def test_report_refuses_rel_zero_with_the_same_rule(tmp_path):
    out = irpref_cli("report", QRELS, *RUNS[:2], "--rel", "0", "-o", tmp_path / "r.html")
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().endswith(f"error: --rel 0: {REL_RULE}")
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize(("flag", "value", "rule"), [
    ("--ties", "random", "must be one of docid, input, expected"),
    ("--missing", "all", "must be one of skip, zero"),
    ("--depth", "0", "must be >= 1"),
    ("--corpus-size", "-3", "must be >= 1"),
])
def test_cli_refuses_other_options_with_the_same_rule(flag, value, rule):
    out = irpref_cli("evaluate", QRELS, RUNS[0], "-m", "AP", flag, value)
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().endswith(f"error: {flag} {value}: {rule}")


# ------------------------------------------------------- queries a run lacks


@pytest.fixture()
def lacking(tmp_path):
    """Run ``full`` answers q1..q5; run ``part`` lacks q2, q3, q4 and q5."""
    queries = [f"q{i}" for i in range(1, 6)]
    qrels = write_qrels(tmp_path / "qrels", [(q, d, 1) for q in queries for d in ("d1", "d2")])
    full = write_run(tmp_path / "full", [(q, d, s) for q in queries
                                         for d, s in (("d1", 2.0), ("d9", 1.0))])
    part = write_run(tmp_path / "part", [("q1", "d9", 2.0), ("q1", "d2", 1.0)])
    return qrels, [full, part]


def test_the_default_is_one_everywhere():
    assert params.DEFAULT_MISSING == "skip"  # trec_eval without -c
    for func in (irpref.evaluate,):
        assert inspect.signature(func).parameters["missing"].default == params.DEFAULT_MISSING
    from irpref.judging.judged import JudgedRankings

    # the judged rankings take the rule from each evaluation: no default of their own
    assert inspect.signature(JudgedRankings.query_mask).parameters["missing"].default is \
        inspect.Parameter.empty


def test_skip_is_announced_and_counted(lacking):
    qrels, runs = lacking
    with pytest.warns(MissingQueries) as caught:
        res = irpref.evaluate(qrels, runs, ["AP", "RR"])
    texts = [str(w.message) for w in caught if w.category is MissingQueries]
    assert texts == ["run part lacks 4 of 5 judged queries (q2, q3, q4, ...): its means are "
                     "over 1 query; --missing zero scores them 0"]
    means = irpref.summarize(res, counts=True).set_index(["run", "measure"])
    assert means.loc[("full", "AP"), "n"] == 5 and means.loc[("part", "AP"), "n"] == 1
    assert means.loc[("part", "RR"), "value"] == pytest.approx(0.5)
    assert list(irpref.summarize(res).columns) == ["run", "measure", "value"]


def test_zero_is_announced_and_counted(lacking):
    qrels, runs = lacking
    with pytest.warns(MissingQueries, match=r"^run part lacks 4 of 5 judged queries "
                      r"\(q2, q3, q4, \.\.\.\): scored as empty rankings \(--missing zero\), "
                      r"its means are over all 5$"):
        res = irpref.evaluate(qrels, runs, ["RR"], missing="zero")
    means = irpref.summarize(res, counts=True).set_index("run")
    assert means.loc["part", "n"] == 5 and means.loc["part", "value"] == pytest.approx(0.1)


def test_no_warning_when_no_query_is_lacking(lacking):
    qrels, runs = lacking
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingQueries)
        irpref.evaluate(qrels, runs[:1], ["AP"])


@pytest.mark.slow
def test_cli_announces_the_queries_a_run_lacks(lacking):
    qrels, runs = lacking
    default = irpref_cli("evaluate", qrels, *runs, "-m", "RR", "--format", "tsv")
    skip = irpref_cli("evaluate", qrels, *runs, "-m", "RR", "--format", "tsv",
                      "--missing", "skip")
    assert default.returncode == 0 and default.stdout == skip.stdout
    assert ("irpref: warning: run part lacks 4 of 5 judged queries (q2, q3, q4, ...): its "
            "means are over 1 query; --missing zero scores them 0") in default.stderr.splitlines()
    zero = irpref_cli("evaluate", qrels, *runs, "-m", "RR", "--format", "tsv",
                      "--missing", "zero")
    assert zero.returncode == 0
    assert "scored as empty rankings (--missing zero)" in zero.stderr
    assert "part\tRR\t0.1" in zero.stdout


BEST_ASL = ("ASL is 0, its best value (lower is better), on an empty ranking: the 4 queries "
            "run part lacks raise its mean under --missing zero; --missing skip leaves them out")


@pytest.mark.parametrize("bounds", [False, True])
def test_zero_warns_where_an_empty_ranking_scores_the_best_value(lacking, bounds):
    """ASL (Eq. 3) gives an unretrieved relevant item the number of non-relevant items
    retrieved: on an empty ranking 0, below even a perfect ranking's 1. Under
    --missing zero a run's lacking queries then improve its mean: said, per measure
    whose record (orientation, range) makes the value its best; AP's 0 is its worst."""
    qrels, runs = lacking
    measures = ["ASL", "AP", "ASL(missing=corpus)", "RR"]
    with pytest.warns(MissingQueries) as caught:
        zero = irpref.evaluate(qrels, runs, measures, missing="zero", bounds=bounds)
    texts = [str(w.message) for w in caught if w.category is MissingQueries]
    assert texts[1:] == [BEST_ASL], texts
    with pytest.warns(MissingQueries) as caught:
        skip = irpref.evaluate(qrels, runs, measures, bounds=bounds)
    assert not [w for w in caught if "best value" in str(w.message)]
    means = {m: irpref.summarize(t).set_index(["run", "measure"])["value"]
             for m, t in (("zero", zero), ("skip", skip))}
    # the mean the warning is about: part, worse than full on the query it answers,
    # comes out better (lower) once its four empty rankings count 0
    assert means["skip"][("part", "ASL")] == pytest.approx(1.5)
    assert means["zero"][("part", "ASL")] == pytest.approx(0.3)
    assert means["zero"][("full", "ASL")] == means["skip"][("full", "ASL")] == 1.0
    assert means["zero"][("part", "AP")] < means["skip"][("part", "AP")]


@pytest.mark.slow
def test_cli_warns_where_an_empty_ranking_scores_the_best_value(lacking):
    qrels, runs = lacking
    zero = irpref_cli("evaluate", qrels, *runs, "-m", "ASL", "AP", "--missing", "zero")
    assert zero.returncode == 0, zero.stderr
    assert f"irpref: warning: {BEST_ASL}" in zero.stderr.splitlines()
    quiet = irpref_cli("evaluate", qrels, *runs, "-m", "ASL", "--missing", "zero", "--quiet")
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
