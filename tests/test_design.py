"""Topic set size design (irpref.design, ``irpref design``): Sakai's examples and the CLI."""

from __future__ import annotations

import io
import time

import numpy as np
import pandas as pd
import pytest
from helpers import QRELS, RUNS, irpref_cli

import irpref
from irpref import design
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


def _rows(res) -> dict[str, str]:
    assert res.returncode == 0, res.stderr
    frame = pd.read_csv(io.StringIO(res.stdout), sep="\t", dtype=str)
    assert list(frame.columns) == ["design", "value"]
    return dict(zip(frame.design, frame.value))


def test_cli_standardized():
    rows = _rows(irpref_cli("design", "--alpha", 0.05, "--beta", 0.2, "--min-diff", 0.5,
                            "--std", "--format", "tsv"))
    assert rows == {"paired-t": "34"}
    rows = _rows(irpref_cli("design", "--alpha", 0.01, "--beta", 0.2, "--min-diff", 0.2,
                            "--std", "--systems", 3, "--ci-width", 0.3, "--format", "tsv"))
    assert rows["paired-t"] == "296"
    assert rows["anova"] == str(design.anova_topics(0.2, 3, 0.01))
    assert rows["ci"] == str(design.ci_topics(0.3, 0.01))


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


def test_design_is_fast_for_100_runs_by_250_topics():
    scores = np.random.default_rng(0).uniform(size=(100, 250))
    start = time.perf_counter()
    v_e = anova_two_way(scores).v_e
    d = 0.02 / np.sqrt(2 * v_e)
    design.paired_t_topics(d)
    design.anova_topics(0.02 / np.sqrt(v_e), 100)
    design.paired_t_power(250, d)
    design.min_detectable_difference(250)
    assert time.perf_counter() - start < 2.0
