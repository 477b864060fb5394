"""``irpref evaluate --baseline/--ci/--format markdown|latex|html`` via the installed command."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest
from helpers import irpref_cli

import irpref
from irpref import examples
from irpref.report.baseline import baseline_table, mean_ci

QRELS = examples.qrels_path()
RUNS = [str(p) for p in examples.run_paths()]


def run_cli(*args):
    return irpref_cli("evaluate", QRELS, *RUNS, "--rel", "2", "-m", "AP", "P@10", *args)


@pytest.fixture(scope="module")
def results():
    return irpref.evaluate(QRELS, RUNS, ["AP", "P@10"], rel=2)


@pytest.mark.slow
def test_tsv_equals_library(results):
    proc = run_cli("--baseline", "bm25base_p", "--test", "sign", "--correction", "bonferroni",
                   "--format", "tsv")
    assert proc.returncode == 0, proc.stderr
    got = pd.read_csv(io.StringIO(proc.stdout), sep="\t", keep_default_na=False,
                      na_values=[""])
    want = baseline_table(results, "bm25base_p", test="sign", correction="bonferroni")
    assert list(got["run"]) == list(want["run"])
    pd.testing.assert_series_equal(got["mean"], want["mean"], check_names=False)
    pd.testing.assert_series_equal(got["p_adjusted"], want["p_adjusted"], check_names=False)
    assert list(got["wins"].fillna(-1).astype(int)) == list(want["wins"].fillna(-1))


@pytest.mark.slow
def test_table_has_markers_and_legend():
    proc = run_cli("--baseline", "bm25base_p")
    assert proc.returncode == 0, proc.stderr
    assert "▲" in proc.stdout and "W/L/T" in proc.stdout
    assert "significantly better/worse than bm25base_p" in proc.stdout


@pytest.mark.slow
def test_ci_without_baseline_json(results):
    proc = run_cli("--ci", "bootstrap", "--seed", "7", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    got = pd.DataFrame(json.loads(proc.stdout))
    want = mean_ci(results, method="bootstrap", seed=7)
    pd.testing.assert_series_equal(got["ci_low"], want["ci_low"], check_names=False)
    assert not any(q == "all" for q in got.get("query", []))


@pytest.mark.slow
@pytest.mark.parametrize("fmt, needle", [("latex", r"\toprule"), ("markdown", "| run | AP"),
                                         ("html", "<table>")])
def test_paper_formats(fmt, needle):
    proc = run_cli("--baseline", "bm25base_p", "--format", fmt)
    assert proc.returncode == 0, proc.stderr
    assert needle in proc.stdout and "bm25" in proc.stdout


@pytest.mark.slow
def test_paper_format_without_baseline():
    proc = run_cli("--format", "markdown")
    assert proc.returncode == 0, proc.stderr
    assert "**" in proc.stdout and "▲" not in proc.stdout


def test_unknown_baseline_names_the_runs():
    proc = run_cli("--baseline", "nope")
    assert proc.returncode != 0
    assert "nope" in proc.stderr and "p_bert" in proc.stderr and "Traceback" not in proc.stderr


def test_plain_evaluate_unchanged():
    proc = run_cli("--format", "tsv")
    assert proc.returncode == 0 and "p_adjusted" not in proc.stdout
