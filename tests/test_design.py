"""Topic set size design (irpref.design, ``irpref design``): Sakai's examples and the CLI."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from helpers import QRELS, RUNS, irpref_cli

import irpref
from irpref import topic_sets as design
from irpref.stats import Pairwise, anova_two_way


@pytest.mark.parametrize("d,alpha,beta,topics", [
    (0.5, 0.05, 0.20, 34), (0.2, 0.05, 0.20, 199), (0.1, 0.05, 0.20, 787),
    (0.2, 0.01, 0.20, 296), (0.3, 0.05, 0.10, 119)])
def test_paired_t_topics_of_the_paper(d, alpha, beta, topics):
    assert design.paired_t_topics(d, alpha, beta) == topics
    assert design.paired_t_topics(d, alpha, beta, method="sakai") == topics
    power = design.paired_t_power(np.array([topics - 1, topics]), d, alpha)
    assert power[0] < 1 - beta <= power[1]


def test_anova_with_two_systems_is_the_two_sample_t_design():
    """m = 2: the one-way ANOVA is the unpaired t-test (64 per group for d = 0.5)."""
    assert design.anova_topics(0.5, 2) == 64
    assert design.anova_topics(0.5, 10) > design.anova_topics(0.5, 3) > 64


def test_ci_topics_and_min_difference():
    n = design.ci_topics(0.5)
    assert design.expected_ci_width(n) <= 0.5 < design.expected_ci_width(n - 1)
    d = design.min_detectable_difference(34)
    assert design.paired_t_power(34, d) == pytest.approx(0.8, abs=1e-9)
    assert d < 0.5 < design.min_detectable_difference(33) + 0.01
    with pytest.raises(ValueError, match="min-diff must be a positive"):
        design.paired_t_topics(0.0)


def _frame(res) -> pd.DataFrame:
    assert res.returncode == 0, res.stderr
    return pd.read_csv(io.StringIO(res.stdout), sep="\t", dtype=str, keep_default_na=False)


def _rows(res) -> dict[str, str]:
    frame = _frame(res)
    assert list(frame.columns) in (["design", "value", "unit"],
                                   ["measure", "design", "value", "unit"])
    return dict(zip(frame.design, frame.value))


@pytest.mark.slow
def test_cli_standardized():
    rows = _rows(irpref_cli("design", "--alpha", 0.05, "--beta", 0.2, "--min-diff", 0.5,
                            "--std", "--format", "tsv"))
    assert rows == {"paired-t": "34"}
    rows = _rows(irpref_cli("design", "--alpha", 0.01, "--beta", 0.2, "--min-diff", 0.2,
                            "--std", "--systems", 3, "--ci-width", 0.3, "--format", "tsv"))
    assert rows["paired-t"] == "296"
    assert rows["anova"] == str(design.anova_topics(0.2, 3, 0.01))
    assert rows["ci"] == str(design.ci_topics(0.3, 0.01))


@pytest.mark.slow
def test_cli_from_runs():
    rows = _rows(irpref_cli("design", "--min-diff", 0.05, QRELS, *RUNS, "-m", "AP",
                            "--format", "tsv"))
    table = irpref.evaluate(str(QRELS), [str(p) for p in RUNS], ["AP"])
    anova = anova_two_way(Pairwise.from_metric(table, "AP").scores)
    v_e = float(rows["V_E"])
    assert v_e == anova.v_e
    d = 0.05 / np.sqrt(2 * v_e)
    assert int(rows["paired-t"]) == design.paired_t_topics(d)
    assert int(rows["anova"]) == design.anova_topics(0.05 / np.sqrt(v_e), anova.n_systems)
    assert int(rows["topics"]) == anova.n_topics
    assert float(rows["power"]) == pytest.approx(design.paired_t_power(anova.n_topics, d))
    assert float(rows["min-diff"]) == pytest.approx(
        design.min_detectable_difference(anova.n_topics) * np.sqrt(2 * v_e))
    given = _rows(irpref_cli("design", "--min-diff", 0.05, "--variance", v_e, "--format", "tsv"))
    assert given["paired-t"] == rows["paired-t"]


@pytest.mark.slow
def test_cli_usage_errors():
    res = irpref_cli("design", "--min-diff", 0.5)
    assert res.returncode == 2 and "give --std" in res.stderr
    res = irpref_cli("design", "--min-diff", -1, "--std")
    assert res.returncode == 2 and "--min-diff must be a positive number" in res.stderr
    res = irpref_cli("design", "--min-diff", 0.1, QRELS, *RUNS)
    assert res.returncode == 2 and "-m MEASURE" in res.stderr
    res = irpref_cli("design", "--min-diff", 0.1, "--std", "--alpha", 2)
    assert res.returncode == 2
    assert "Traceback" not in res.stderr


@pytest.mark.slow
def test_std_names_what_each_design_is_standardized_by():
    """--std: D is in sds of the per-topic differences for paired-t and ci, in sds of
    the scores (sqrt V_E) for anova (Sakai's conventions), and the table says so."""
    frame = _frame(irpref_cli("design", "--min-diff", 0.5, "--std", "--systems", 3,
                              "--ci-width", 0.3, "--format", "tsv"))
    unit = dict(zip(frame.design, frame.unit))
    assert unit["paired-t"] == "topics; D in sd of per-topic differences"
    assert unit["ci"] == "topics; width in sd of per-topic differences"
    assert unit["anova"] == "topics; D in sd of scores (sqrt V_E)"


@pytest.mark.slow
def test_several_measures_each_with_its_variance_and_population(tmp_path):
    """-m AP nDCG@10: one block of rows per measure; V_E over the topics every run has,
    with the runs and topics behind it, and the population announced."""
    from irpref.io import read_run

    run = read_run(RUNS[0])
    queries = run.query.to_pylist()
    drop = set(sorted(set(queries))[:4])
    lacking = tmp_path / "lacking.txt"
    with open(lacking, "w") as out:
        out.writelines(f"{q} Q0 {d} 0 {float(v)!r} x\n"
                       for q, d, v in zip(queries, run.doc.to_pylist(), run.score)
                       if q not in drop)
    res = irpref_cli("design", "--min-diff", 0.05, QRELS, lacking, *RUNS[1:], "-m", "AP",
                     "nDCG@10", "--rel", "2", "--format", "tsv")
    frame = _frame(res)
    assert list(pd.unique(frame.measure)) == ["AP", "nDCG@10"]
    assert res.stderr.count("run lacking lacks 4 of 43") == 1
    for m in ("AP", "nDCG@10"):
        rows = dict(zip(frame[frame.measure == m].design, frame[frame.measure == m].value))
        assert rows["topics"] == "39" and rows["runs"] == str(len(RUNS))
        table = irpref.evaluate(QRELS, [lacking, *RUNS[1:]], [m], rel=2)
        anova = anova_two_way(Pairwise.from_metric(table, m).scores)
        assert float(rows["V_E"]) == anova.v_e and anova.n_topics == 39
    text = irpref_cli("design", "--min-diff", 0.05, QRELS, *RUNS, "-m", "AP").stdout
    assert "residual variance of the two-way ANOVA" in text and "topics every run has" in text


def test_one_run_says_what_the_design_needs():
    res = irpref_cli("design", "--min-diff", 0.05, QRELS, RUNS[0], "-m", "AP")
    assert res.returncode == 2
    assert "V_E is the residual variance of the two-way ANOVA" in res.stderr
    assert "needs at least 2 runs" in res.stderr and "--variance V" in res.stderr


@pytest.mark.slow
def test_sakai_method_on_the_command_line():
    exact = _rows(irpref_cli("design", "--min-diff", 0.5, "--std", "--format", "tsv"))
    sakai = _rows(irpref_cli("design", "--min-diff", 0.5, "--std", "--method", "sakai",
                             "--format", "tsv"))
    assert exact["paired-t"] == sakai["paired-t"] == "34"
    assert _rows(irpref_cli("design", "--min-diff", 1.2, "--std", "--method", "sakai",
                            "--format", "tsv"))["paired-t"] == str(
        design.paired_t_topics(1.2, method="sakai"))
    bad = irpref_cli("design", "--min-diff", 0.5, "--std", "--method", "normal")
    assert bad.returncode == 2 and "--method normal: must be one of exact, sakai" in bad.stderr


def test_design_is_a_public_entry_point_with_the_judging_settings():
    frame = irpref.design(QRELS, RUNS, ["AP", "RR"], min_diff=0.05, rel=2)
    assert list(pd.unique(frame.measure)) == ["AP", "RR"]
    std = irpref.design(min_diff=0.2, standardized=True)
    assert std.set_index("design").value["paired-t"] == 199
