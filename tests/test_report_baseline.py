"""Baseline tables (difference, W/L/T, corrected significance, CI) and their renderings."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from helpers import irpref_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

import irpref
from irpref import examples
from irpref.errors import UsageError
from irpref.report.baseline import baseline_table, mean_ci, wide
from irpref.report.formats import render
from irpref.stats import adjust_pvalues, wilcoxon

QRELS = examples.qrels_path()
RUNS = [str(p) for p in examples.run_paths()]
BASE = "bm25base_p"


@pytest.fixture(scope="module")
def results():
    return irpref.evaluate(QRELS, RUNS, ["AP", "P@10"], rel=2)


@pytest.mark.parametrize("test", ["paired", "t", "wilcoxon", "sign"])
@pytest.mark.parametrize("correction", ["holm", "bonferroni", "bh", "none"])
def test_against_scipy(results, test, correction):
    table = baseline_table(results, BASE, test=test, correction=correction)
    for measure in ("AP", "P@10"):
        w = results[results["measure"] == measure].pivot(index="query", columns="run",
                                                         values="value")
        part = table[table["measure"] == measure].set_index("run")
        ps = []
        others = [r for r in part.index if r != BASE]
        for run in others:
            d = (w[run] - w[BASE]).to_numpy()
            assert part.at[run, "mean"] == pytest.approx(w[run].mean())
            assert part.at[run, "diff"] == pytest.approx(d.mean())
            assert (part.at[run, "wins"], part.at[run, "losses"], part.at[run, "ties"]) == (
                (d > 0).sum(), (d < 0).sum(), (d == 0).sum())
            if test in ("paired", "t"):
                p = sps.ttest_rel(w[run], w[BASE]).pvalue
            elif test == "sign":
                k, n = (d > 0).sum(), (d != 0).sum()
                p = sps.binomtest(k, n).pvalue if n else 1.0
            else:
                p = wilcoxon(d)[1]  # irpref's Wilcoxon, tested against scipy elsewhere
            assert part.at[run, "p"] == pytest.approx(p, rel=1e-6, abs=1e-12)
            ps.append(part.at[run, "p"])
        np.testing.assert_allclose(part.loc[others, "p_adjusted"],
                                   adjust_pvalues(np.array(ps), correction))
        sig = part.loc[others, "p_adjusted"] < 0.05
        assert (part.loc[others, "significant"] == sig).all()
        marks = np.where(sig, np.where(part.loc[others, "diff"] > 0, "▲", "▼"), "")
        assert list(part.loc[others, "marker"]) == list(marks)
        assert np.isnan(part.at[BASE, "p"]) and part.at[BASE, "marker"] == ""


def test_query_named_all_is_an_ordinary_query(results):
    t = results.copy()
    t["query"] = t["query"].astype(str)
    r = t.copy()
    r.loc[r["query"] == r["query"].iloc[0], "query"] = "all"
    pd.testing.assert_frame_equal(baseline_table(t, BASE), baseline_table(r, BASE))


def test_missing_query_uses_shared_queries(results):
    t = results[~((results["run"] == "p_bert") & (results["query"] == results["query"].iloc[0]))]
    table = baseline_table(t, BASE).set_index(["measure", "run"])
    w = t[t["measure"] == "AP"].pivot(index="query", columns="run", values="value")
    d = (w["p_bert"] - w[BASE]).dropna()
    assert table.at[("AP", "p_bert"), "diff"] == pytest.approx(d.mean())
    assert table.at[("AP", "p_bert"), "n"] == len(w) - 1
    assert table.at[("AP", "p_bert"), "mean"] == pytest.approx(w["p_bert"].mean())


def test_bad_requests(results):
    with pytest.raises(UsageError, match="TUA1-1"):
        baseline_table(results, "nope")
    with pytest.raises(UsageError, match="test must be one of"):
        baseline_table(results, BASE, test="hsd")
    with pytest.raises(UsageError, match="correction"):
        baseline_table(results, BASE, correction="fdr")
    with pytest.raises(UsageError, match=r"alpha=1.5: must be in \(0, 1\)"):
        baseline_table(results, BASE, alpha=1.5)
    with pytest.raises(UsageError, match="ci must be one of"):
        mean_ci(results, method="normal")


def test_t_ci(results):
    ci = mean_ci(results, method="t", confidence=0.9).set_index(["measure", "run"])
    v = results[(results["measure"] == "AP") & (results["run"] == "TUA1-1")]["value"]
    low, high = sps.t.interval(0.9, len(v) - 1, loc=v.mean(), scale=sps.sem(v))
    assert ci.at[("AP", "TUA1-1"), "ci_low"] == pytest.approx(low)
    assert ci.at[("AP", "TUA1-1"), "ci_high"] == pytest.approx(high)


def test_bootstrap_ci_is_seeded_and_brackets_the_mean(results):
    a = mean_ci(results, method="bootstrap", seed=3, resamples=500)
    b = mean_ci(results, method="bootstrap", seed=3, resamples=500)
    c = mean_ci(results, method="bootstrap", seed=4, resamples=500)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    assert ((a["ci_low"] <= a["mean"]) & (a["mean"] <= a["ci_high"])).all()


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.floats(0, 1), min_size=5, max_size=5), min_size=2, max_size=5))
def test_brute_force_wins_and_diff(rows):
    runs = [f"r{i}" for i in range(len(rows))]
    frame = pd.DataFrame([{"run": r, "query": f"q{j}", "measure": "AP", "value": v}
                          for r, vals in zip(runs, rows) for j, v in enumerate(vals)])
    table = baseline_table(frame, "r0").set_index("run")
    for r, vals in zip(runs[1:], rows[1:]):
        d = np.array(vals) - np.array(rows[0])
        assert table.at[r, "wins"] == (d > 0).sum()
        assert table.at[r, "losses"] == (d < 0).sum()
        assert table.at[r, "diff"] == pytest.approx(d.mean(), abs=1e-12)


def _wide(results):
    table = baseline_table(results, BASE)
    return wide(table), wide(table, "marker"), table


def test_markdown(results):
    values, markers, table = _wide(results)
    text = render(values, "markdown", markers, legend="▲/▼: significant vs baseline")
    lines = text.splitlines()
    assert lines[0] == "| run | AP | P@10 |"
    best_ap = values["AP"].idxmax()
    row = next(li for li in lines if li.startswith(f"| {best_ap} |"))
    assert f"**{values.at[best_ap, 'AP']:.4f}**" in row
    for run in values.index:
        for m in values.columns:
            v = f"{values.at[run, m]:.4f}"
            assert f"{v}{markers.at[run, m]}" in text or f"**{v}**{markers.at[run, m]}" in text
    assert "▲/▼" in text


def test_latex_booktabs(results):
    values, markers, _ = _wide(results)
    text = render(values, "latex", markers, caption="AP and P@10", legend="▲ better")
    assert r"\toprule" in text and r"\midrule" in text and r"\bottomrule" in text
    assert r"bm25base\_p" in text and r"P@10" in text
    best = values["P@10"].idxmax()
    assert rf"\textbf{{{values.at[best, 'P@10']:.4f}}}" in text
    n_up = int((markers == "▲").to_numpy().sum())
    assert text.count(r"$^{\uparrow}$") == n_up
    assert "▲" not in text  # no raw unicode markers in LaTeX
    assert text.count(r" \\") == len(values) + 1


def test_lower_is_better_and_html(results):
    values, markers, _ = _wide(results)
    text = render(values, "html", markers, higher_is_better={"AP": False})
    worst = values["AP"].idxmin()
    assert f"<b>{values.at[worst, 'AP']:.4f}</b>" in text
    assert "<sup>▲</sup>" in text or "<sup>▼</sup>" in text
    with pytest.raises(UsageError, match="format"):
        render(values, "rst")


def test_escaping():
    values = pd.DataFrame({"a&b": [0.5, np.nan]}, index=pd.Index(["x_1", "<y>|"], name="run"))
    assert r"a\&b" in render(values, "latex") and r"x\_1" in render(values, "latex")
    assert "&lt;y&gt;" in render(values, "html")
    md = render(values, "markdown")
    assert r"&lt;y&gt;\|" in md and "| 0.5000 |" in md  # a column that names no measure: no bold
    assert "a&amp;b" in md and "<y>" not in md  # no raw tag survives in Markdown


# ------------------------------------------------ the CLI: every option together

def _cli(*args: str):
    return irpref_cli("evaluate", QRELS, *RUNS, "--rel", "2", *args)


@pytest.mark.slow
@pytest.mark.parametrize("test,correction,alpha", [("wilcoxon", "bh", "0.1"),
                                                   ("sign", "none", "0.2"),
                                                   ("t", "bonferroni", "0.01")])
def test_cli_baseline_with_ci_test_correction_alpha(results, test, correction, alpha):
    import json

    r = _cli("-m", "AP", "P@10", "--baseline", BASE, "--test", test, "--correction", correction,
             "--alpha", alpha, "--ci", "t", "--format", "json")
    assert r.returncode == 0, r.stderr
    got = pd.DataFrame(json.loads(r.stdout))
    want = baseline_table(results, BASE, test=test, correction=correction, alpha=float(alpha))
    ci = mean_ci(results, method="t")
    assert list(got["run"]) == list(want["run"])
    np.testing.assert_allclose(got["p_adjusted"].astype(float), want["p_adjusted"])
    assert list(got["significant"]) == list(want["significant"])
    np.testing.assert_allclose(got["ci_low"], ci["ci_low"])
    np.testing.assert_allclose(got["ci_high"], ci["ci_high"])
    table = _cli("-m", "AP", "--baseline", BASE, "--test", test, "--correction", correction,
                 "--alpha", alpha, "--ci")
    assert table.returncode == 0
    assert "ci_low" in table.stdout and f"{correction} correction" in table.stdout
    assert f"alpha = {float(alpha):g}" in table.stdout.splitlines()[-1]  # legend under table


@pytest.mark.slow
def test_cli_latex_with_ci_has_a_second_table():
    r = _cli("-m", "AP", "--baseline", BASE, "--ci", "bootstrap", "--bootstrap", "200",
             "--format", "latex")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count(r"\toprule") == 2 and "CI (bootstrap)" in r.stdout
