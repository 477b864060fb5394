"""The ties report (``irpref ties``): tie counts and docid-vs-expected effects."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import irpref_cli

import irpref
from irpref.meta.ties import tie_counts, ties_report


def small():
    qrels = {"q1": {"a": 1, "b": 0, "c": 1, "z": 1}, "q2": {"x": 2, "y": 0}}
    runs = {
        # q1: b and a tie at the top; docid order (descending) puts b first
        "tied": {"q1": {"a": 1.0, "b": 1.0, "c": 0.5}, "q2": {"x": 3.0, "y": 2.0}},
        "clean": {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"y": 1.0, "x": 0.0}},
    }
    return qrels, runs


def test_counts_and_effects_on_a_small_example():
    qrels, runs = small()
    rep = ties_report(qrels, runs, ["RR", "AP", "P@1"])
    ties = rep.ties.set_index("run")
    assert ties.loc["tied", ["queries", "tied_queries", "items", "tied_items"]].tolist() == [
        2, 1, 5, 2,
    ]
    assert ties.loc["tied", "tie_groups"] == 1 and ties.loc["tied", "largest_group"] == 2
    assert ties.loc["clean", ["tied_queries", "tied_items", "largest_group"]].tolist() == [0, 0, 1]

    eff = rep.effects.set_index(["run", "measure"])
    # q1 under docid: b (non-relevant), a, c -> RR 1/2; expected: (1 + 1/2) / 2 = 3/4
    rr = eff.loc[("tied", "RR")]
    assert rr["docid"] == pytest.approx((0.5 + 1.0) / 2)
    assert rr["expected"] == pytest.approx((0.75 + 1.0) / 2)
    assert rr["mean_abs_diff"] == pytest.approx(0.25 / 2)
    assert rr["max_abs_diff"] == pytest.approx(0.25)
    assert rr["changed"] == 1 and rr["queries"] == 2
    # AP q1: docid (1/2 + 2/3)/3; expected: positions 1, 2 relevant w.p. 1/2 each
    ap_docid = (1 / 2 + 2 / 3) / 3
    ap_expected = (0.5 * 1 / 1 + 0.5 * 1 / 2 + 2 / 3) / 3
    assert eff.loc[("tied", "AP"), "max_abs_diff"] == pytest.approx(ap_expected - ap_docid)
    assert eff.loc[("tied", "P@1"), "mean_diff"] == pytest.approx(0.5 / 2)
    assert (eff.loc["clean", "changed"] == 0).all()
    assert (rep.orderings["pairs"] == 1).all()


@pytest.mark.slow
def test_report_matches_evaluate(data_dir):
    d = data_dir / "robust03"
    runs = [d / "runs" / f"{n}.gz" for n in ("rutcor03100", "humR03dc", "MU03rob01", "uic0301")]
    measures = ["AP", "nDCG@10", "RR"]
    rep = ties_report(d / "qrels.txt", runs, measures)
    ties = rep.ties.set_index("run")
    # Robust 2003: integer-like scores tie heavily in some runs, never in others
    assert ties.loc["rutcor03100", "tied_queries"] == 100
    assert ties.loc["MU03rob01", "tied_queries"] == 100
    assert ties.loc["humR03dc", "tied_items"] == 0 and ties.loc["uic0301", "tied_items"] == 0
    for ties_policy, column in (("docid", "docid"), ("expected", "expected")):
        means = irpref.summarize(irpref.evaluate(d / "qrels.txt", runs, measures,
                                                 ties=ties_policy))
        got = rep.effects.set_index(["run", "measure"])[column]
        for run, m, v in means[["run", "measure", "value"]].itertuples(index=False):
            assert got[(run, m)] == pytest.approx(v, abs=1e-12)
    eff = rep.effects.set_index(["run", "measure"])
    assert (eff.loc[["humR03dc", "uic0301"], "changed"] == 0).all()
    assert eff.loc[("rutcor03100", "AP"), "changed"] > 90
    assert eff.loc[("rutcor03100", "RR"), "mean_abs_diff"] > 0.05
    pq = rep.per_query
    assert len(pq) == 4 * 100 * 3
    assert np.allclose(pq["diff"], pq["expected"] - pq["docid"], atol=1e-15)


def test_tie_counts_respect_depth(data_dir):
    d = data_dir / "robust03"
    run = d / "runs" / "rutcor03100.gz"
    full = tie_counts(irpref.judge_inputs(d / "qrels.txt", run))
    cut = tie_counts(irpref.judge_inputs(d / "qrels.txt", run, depth=10))
    assert int(cut["items"].iloc[0]) == 1000
    assert int(cut["largest_group"].iloc[0]) <= 10 <= int(full["largest_group"].iloc[0])


def test_swapped_pairs_on_dl19(data_dir):
    """DL 2019 (grade >= 2): the docid tie-break flips one RR system comparison."""
    d = data_dir / "dl19-passage"
    runs = [d / "runs" / f"{n}.gz" for n in ("bm25base_ax_p", "bm25tuned_ax_p", "ICT-BERT2")]
    rep = ties_report(d / "qrels.txt", runs, ["RR", "AP"], rel=2)
    orders = rep.orderings.set_index("measure")
    assert orders.loc["RR", "swapped"] == 1 and orders.loc["AP", "swapped"] == 0
    swap = rep.swaps.iloc[0]
    assert {swap["run_a"], swap["run_b"]} == {"bm25base_ax_p", "bm25tuned_ax_p"}
    assert (swap["docid_a"] - swap["docid_b"]) * (swap["expected_a"] - swap["expected_b"]) < 0


def test_rejects_input_order():
    qrels, runs = small()
    judged = irpref.judge_inputs(qrels, runs, ties="input")
    with pytest.raises(ValueError, match="docid"):
        ties_report(judged=judged)


def _cli(*args: str) -> str:
    proc = irpref_cli("ties", *args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.slow
def test_cli_formats(data_dir):
    d = data_dir / "robust03"
    files = [str(d / "qrels.txt"), str(d / "runs" / "rutcor03100.gz"),
             str(d / "runs" / "uic0301.gz")]
    doc = json.loads(_cli(*files, "-m", "AP", "RR", "--format", "json"))
    assert set(doc) == {"ties", "effects", "orderings", "swaps", "coverage"}
    ties = {r["run"]: r for r in doc["ties"]}
    assert ties["rutcor03100"]["tied_queries"] == 100 and ties["uic0301"]["tied_queries"] == 0
    effects = {(r["run"], r["measure"]): r for r in doc["effects"]}
    assert effects["rutcor03100", "AP"]["changed"] > 0
    assert effects["uic0301", "RR"]["changed"] == 0

    tsv = _cli(*files, "-m", "AP", "--rel", "2", "--format", "tsv").splitlines()
    assert tsv[0].split("\t") == ["run", "measure", "statistic", "value"]
    rows = {tuple(line.split("\t")[:3]): float(line.split("\t")[3]) for line in tsv[1:]}
    assert rows["rutcor03100", "-", "tied_queries"] == 100
    assert rows["-", "AP", "swapped"] == 0 and rows["-", "AP", "pairs"] == 1

    table = _cli(*files, "-m", "nDCG@10")
    assert "tied_queries" in table and "mean_abs_diff" in table and "rutcor03100" in table

    per_query = _cli(*files, "-m", "RR", "--per-query", "--format", "tsv").splitlines()
    assert per_query[0] == "run\tquery\tmeasure\tdocid\texpected\tdiff"
    assert len(per_query) == 1 + 2 * 100


@pytest.mark.slow
def test_cli_bad_measure(data_dir):
    d = data_dir / "robust03"
    proc = irpref_cli("ties", d / "qrels.txt", d / "runs" / "uic0301.gz", "-m", "NoSuchMeasure")
    assert proc.returncode == 2 and "unknown measure" in proc.stderr  # usage error
