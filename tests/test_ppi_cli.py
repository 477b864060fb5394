"""``--human-qrels``: prediction-powered inference through the installed command, on real
data, against ppi_py (the oracle) fed with per-query values that plain ``irpref
evaluate`` / ``irpref compare`` print under each qrels.

Collections (tests/ppi_collections.py): DL 2019 passage with machine labels drawn from
an LLM judge's confusion matrix (seeded), and the LLMJudge sample (h2oloo-fewself
labels, NIST labels of 10 of its 25 queries, synthetic runs over its pool).
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from helpers import irpref_cli
from ppi_collections import (
    CONFUSION,
    DL19,
    confusion,
    dl19_pair,
    llmjudge_pair,
    read_qrels,
    write_qrels,
)
from scipy import stats

import irpref

ppi_py = pytest.importorskip("ppi_py")

MEASURES = ["AP", "nDCG@10", "RR", "P@10"]
TOL = 1e-9


def _tsv(*args) -> pd.DataFrame:
    out = irpref_cli(*map(str, args), "--format", "tsv")
    assert out.returncode == 0, out.stderr
    return pd.read_csv(io.StringIO(out.stdout), sep="\t", dtype={"query": str, "run": str,
                                                                 "run_a": str, "run_b": str})


def per_query(qrels, runs, measures, rel, missing="skip") -> dict:
    """{(measure, run): Series query -> value}: plain ``irpref.evaluate`` under one qrels."""
    table = irpref.evaluate(str(qrels), [str(r) for r in runs], measures, rel=rel,
                            missing=missing)
    return {key: g.set_index("query")["value"] for key, g in table.groupby(["measure", "run"])}


def preferences(qrels, runs, names, rel) -> dict:
    """{(measure, run_a, run_b): Series query -> value}: plain ``irpref.compare``, both
    orientations."""
    table = irpref.compare(str(qrels), [str(r) for r in runs], names, rel=rel)
    out = {}
    for (m, a, b), g in table.groupby(["measure", "run_a", "run_b"], observed=True):
        out[(m, a, b)] = g.set_index("query")["value"].astype(float)
        out[(m, b, a)] = -out[(m, a, b)]
    return out


def vectors(human: pd.Series, machine: pd.Series):
    """(Y, Yhat, Yhat_unlabeled) from the per-query values under H and M."""
    labelled = [q for q in human.index if q in machine.index]
    rest = [q for q in machine.index if q not in set(human.index)]
    return (human[labelled].to_numpy(float), machine[labelled].to_numpy(float),
            machine[rest].to_numpy(float))


def _one(x) -> float:
    return float(np.ravel(x)[0])


def check_row(row, y, yhat, yu, lam, confidence, value="value", low="low", high="high"):
    kw = {} if lam == "auto" else {"lam": float(lam)}
    assert row[value] == pytest.approx(_one(ppi_py.ppi_mean_pointestimate(y, yhat, yu, **kw)),
                                       abs=TOL)
    lo, hi = ppi_py.ppi_mean_ci(y, yhat, yu, alpha=1 - confidence, **kw)
    assert row[low] == pytest.approx(_one(lo), abs=TOL)
    assert row[high] == pytest.approx(_one(hi), abs=TOL)


@pytest.fixture(scope="module")
def dl19(tmp_path_factory):
    return dl19_pair(tmp_path_factory.mktemp("dl19"), n_human=15, seed=3)


@pytest.fixture(scope="module")
def llmjudge(tmp_path_factory):
    return llmjudge_pair(tmp_path_factory.mktemp("llmjudge"), n_human=10, n_runs=5, seed=1)


def test_the_confusion_matrix_is_the_llmjudge_samples():
    assert (confusion() == CONFUSION).all()


@pytest.mark.slow
@pytest.mark.parametrize("lam", ["auto", pytest.param("1", marks=pytest.mark.slow),
                                 pytest.param("0.5", marks=pytest.mark.slow)])
def test_evaluate_equals_ppi_py_on_dl19(dl19, lam):
    machine, human, runs = dl19
    confidence = 0.9 if lam == "0.5" else 0.95
    got = _tsv("evaluate", machine, *runs, "-m", *MEASURES, "--rel", 2, "--human-qrels", human,
               "--ppi-lambda", lam, "--confidence", confidence)
    assert list(got.columns) == ["run", "measure", "value", "low", "high", "n_labeled",
                                 "n_unlabeled", "lambda", "human", "human_low", "human_high",
                                 "machine"]
    assert len(got) == len(MEASURES) * len(runs)
    on_m, on_h = per_query(machine, runs, MEASURES, 2), per_query(human, runs, MEASURES, 2)
    for row in got.to_dict("records"):
        key = (row["measure"], row["run"])
        y, yhat, yu = vectors(on_h[key], on_m[key])
        check_row(row, y, yhat, yu, lam if lam == "auto" else float(lam), confidence)
        assert (row["n_labeled"], row["n_unlabeled"]) == (15, 28)
        # beside it: the human labels alone (t interval) and the machine labels alone
        half = stats.t.ppf(0.5 + confidence / 2, len(y) - 1) * y.std(ddof=1) / np.sqrt(len(y))
        assert row["human"] == pytest.approx(y.mean(), abs=TOL)
        assert row["human_low"] == pytest.approx(y.mean() - half, abs=TOL)
        assert row["human_high"] == pytest.approx(y.mean() + half, abs=TOL)
        assert row["machine"] == pytest.approx(on_m[key].mean(), abs=TOL)
        if lam == "1":
            assert row["lambda"] == 1


@pytest.mark.slow
def test_evaluate_lambda_zero_is_the_human_mean(dl19):
    machine, human, runs = dl19
    got = _tsv("evaluate", machine, *runs[:2], "-m", "AP", "--rel", 2, "--human-qrels", human,
               "--ppi-lambda", "0")
    assert np.allclose(got["value"], got["human"], atol=TOL)
    assert (got["high"] - got["low"] < got["human_high"] - got["human_low"]).all()  # z < t


def _check_significance(got, machine, human, runs, metrics, prefs, rel):
    on_m, on_h = per_query(machine, runs, metrics, rel), per_query(human, runs, metrics, rel)
    if prefs:
        pm, ph = preferences(machine, runs, prefs, rel), preferences(human, runs, prefs, rel)
    outside = 0
    for row in got.to_dict("records"):
        m, a, b = row["measure"], row["run_a"], row["run_b"]
        if m in metrics:
            dh = on_h[(m, a)] - on_h[(m, b)]
            dm = on_m[(m, a)] - on_m[(m, b)]
        else:
            dh, dm = ph[(m, a, b)], pm[(m, a, b)]
        y, yhat, yu = vectors(dh.dropna(), dm.dropna())
        check_row(row, y, yhat, yu, "auto", 0.95, "mean", "ci_low", "ci_high")
        assert row["test"] == "ppi" and row["n"] == len(y) and row["n_unlabeled"] == len(yu)
        # wins / losses / ties: the human-judged queries (every measure here: higher is better)
        assert (row["wins"], row["losses"], row["ties"]) == (
            (y > 0).sum(), (y < 0).sum(), (y == 0).sum())
        # p: ppi_py's at the weight used, and ppi_py's own where its weight needs no clip
        assert row["p"] == pytest.approx(_one(ppi_py.ppi_mean_pval(y, yhat, yu,
                                                                   lam=row["lambda"])), abs=TOL)
        yc, fc = y - y.mean(), yhat - yhat.mean()
        raw = np.mean(yc * fc) / ((1 + len(y) / len(yu)) * np.var(np.r_[yhat, yu], ddof=1))
        if 0 <= raw <= 1:
            assert row["p"] == pytest.approx(_one(ppi_py.ppi_mean_pval(y, yhat, yu)), abs=TOL)
        else:
            outside += 1
        assert (row["p"] < 0.05) == (row["ci_low"] > 0 or row["ci_high"] < 0)
    return outside


@pytest.mark.slow
def test_significance_equals_ppi_py_on_dl19(dl19):
    machine, human, runs = dl19
    got = _tsv("significance", machine, *runs, "-m", "AP", "RR", "sgnLP", "rrLP", "--rel", 2,
               "--human-qrels", human)
    assert len(got) == 4 * 15
    from irpref.stats.table import COLUMNS

    assert list(got.columns[:len(COLUMNS)]) == COLUMNS
    outside = _check_significance(got, machine, human, runs, ["AP", "RR"], ["sgnLP", "rrLP"], 2)
    assert outside > 0  # pairs where ppi_py's p-value would use another weight
    # the family correction: Holm over the 15 pairs of each measure
    from statsmodels.stats.multitest import multipletests

    for _, g in got.groupby("measure"):
        assert np.allclose(g["p_adjusted"], multipletests(g["p"], method="holm")[1], atol=1e-12)
        assert (g["family_size"] == 15).all()


@pytest.mark.slow
def test_significance_against_a_baseline_on_dl19(dl19):
    machine, human, runs = dl19
    base = runs[1].name.removesuffix(".gz")
    got = _tsv("significance", machine, *runs, "-m", "nDCG@10", "--rel", 2, "--human-qrels",
               human, "--baseline", base, "--correction", "bonferroni")
    assert (got["run_b"] == base).all() and len(got) == len(runs) - 1
    _check_significance(got, machine, human, runs, ["nDCG@10"], [], 2)
    assert np.allclose(got["p_adjusted"], np.minimum(1, got["p"] * (len(runs) - 1)))


@pytest.mark.slow
def test_llmjudge_sample(llmjudge):
    machine, human, runs = llmjudge
    out = irpref_cli("evaluate", machine, *runs, "-m", *MEASURES, "--human-qrels", human,
                     "--format", "tsv")
    assert "PPI intervals from 10 human-judged queries rest on a normal" in out.stderr
    got = pd.read_csv(io.StringIO(out.stdout), sep="\t")
    on_m, on_h = per_query(machine, runs, MEASURES, 1), per_query(human, runs, MEASURES, 1)
    for row in got.to_dict("records"):
        key = (row["measure"], row["run"])
        check_row(row, *vectors(on_h[key], on_m[key]), "auto", 0.95)
        assert (row["n_labeled"], row["n_unlabeled"]) == (10, 15)
    sig = _tsv("significance", machine, *runs, "-m", "AP", "RPP", "--human-qrels", human)
    _check_significance(sig, machine, human, runs, ["AP"], ["RPP"], 1)


@pytest.mark.slow
def test_every_output_format_has_the_columns(dl19):
    machine, human, runs = dl19
    for fmt in ("table", "json", "markdown", "latex", "html"):
        out = irpref_cli("evaluate", machine, *runs[:2], "-m", "AP", "--human-qrels", human,
                         "--format", fmt)
        assert out.returncode == 0, out.stderr
        for col in ("n_labeled", "n_unlabeled", "human_low", "human_high", "machine"):
            assert col.replace("_", r"\_" if fmt == "latex" else "_") in out.stdout, (fmt, col)


# ------------------------------------------------------------------------- the contract

def test_human_queries_missing_from_the_machine_qrels_are_refused(dl19, tmp_path):
    machine, human, runs = dl19
    extra = pd.concat([read_qrels(human), pd.DataFrame(
        {"query": ["q-new", "q-other"], "doc": ["d1", "d2"], "grade": [1, 0]})])
    bad = write_qrels(tmp_path / "h.qrels", extra)
    out = irpref_cli("evaluate", machine, *runs[:2], "-m", "AP", "--human-qrels", bad)
    assert out.returncode == 1
    assert "2 human-judged queries are not in the machine qrels" in out.stderr
    assert "q-new, q-other" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.slow
def test_fewer_than_two_human_queries_are_refused(dl19, tmp_path):
    machine, human, runs = dl19
    one = read_qrels(human)
    one = write_qrels(tmp_path / "one.qrels", one[one["query"] == one["query"].iloc[0]])
    for command in ("evaluate", "significance"):
        out = irpref_cli(command, machine, *runs[:2], "-m", "AP", "--human-qrels", one)
        assert out.returncode == 1, out.stderr
        assert "1 human-judged query: PPI needs at least 2" in out.stderr


@pytest.mark.slow
def test_a_run_lacking_queries_follows_missing(dl19, tmp_path):
    machine, human, runs = dl19
    hq = sorted(read_qrels(human)["query"].unique())
    lines = pd.read_csv(runs[0], sep=r"\s+", header=None, dtype=str)
    short = tmp_path / "short.txt"
    lines[~lines[0].isin(hq[:3])].to_csv(short, sep=" ", header=False, index=False)
    skip = irpref_cli("evaluate", machine, short, runs[1], "-m", "AP", "--rel", 2,
                      "--human-qrels", human, "--format", "tsv")
    assert skip.returncode == 0, skip.stderr
    assert "run short lacks 3 of 43 judged queries" in skip.stderr
    assert skip.stderr.count("lacks") == 1
    got = pd.read_csv(io.StringIO(skip.stdout), sep="\t").set_index("run")
    assert got.loc["short", "n_labeled"] == 12 and got.loc[runs[1].name[:-3], "n_labeled"] == 15
    zero = _tsv("evaluate", machine, short, "-m", "AP", "--rel", 2, "--human-qrels", human,
                "--missing", "zero").set_index("run")
    assert zero.loc["short", "n_labeled"] == 15
    on_m = per_query(machine, [short], ["AP"], 2, "zero")[("AP", "short")]
    on_h = per_query(human, [short], ["AP"], 2, "zero")[("AP", "short")]
    y, yhat, yu = vectors(on_h, on_m)
    assert len(y) == 15 and len(yu) == 28
    check_row(zero.reset_index().iloc[0], y, yhat, yu, "auto", 0.95)


@pytest.mark.slow
def test_an_undefined_measure_follows_missing(dl19, tmp_path):
    """SL1 (search length to the first relevant) is undefined without a relevant document:
    skip leaves such queries out of that run's vectors, zero scores them 0; one warning
    per run says so. The human sample holds 2 queries without a grade-3 passage."""
    machine, _, runs = dl19
    truth = read_qrels(DL19 / "qrels.txt")
    top = truth.groupby("query")["grade"].max()
    chosen = [*top[top == 3].index[:4], *top[top < 3].index[:2]]
    human = write_qrels(tmp_path / "h.qrels", truth[truth["query"].isin(chosen)])
    args = ("evaluate", machine, *runs[:2], "-m", "SL1", "--rel", 3, "--human-qrels", human,
            "--corpus-size", 8841823, "--format", "tsv")
    skip = irpref_cli(*args)
    assert skip.returncode == 0, skip.stderr
    assert skip.stderr.count("SL1 undefined on") == 2, skip.stderr
    assert "missing=skip" in skip.stderr
    got = pd.read_csv(io.StringIO(skip.stdout), sep="\t")
    assert (got["n_labeled"] == 4).all()
    zero = irpref_cli(*args, "--missing", "zero")
    assert zero.stderr.count("scored 0 there (missing=zero)") == 2, zero.stderr
    got = pd.read_csv(io.StringIO(zero.stdout), sep="\t")
    assert (got["n_labeled"] == 6).all() and (got["n_unlabeled"] == 37).all()


@pytest.mark.parametrize("extra, words", [
    (["--ppi-lambda", "x"], "--ppi-lambda x: must be auto or a finite number"),
    (["--per-query"], "--per-query does not combine with --human-qrels"),
    (["--baseline", "TUA1-1"], "--baseline does not combine with --human-qrels"),
    (["-m", "GMAP"], "GMAP: its summary is not the mean"),
    (["-m", "NumRet"], "NumRet: its summary is not the mean"),
])
def test_refused_requests(dl19, extra, words):
    machine, human, runs = dl19
    out = irpref_cli("evaluate", machine, *runs[:1], "--human-qrels", human, *extra)
    assert out.returncode == 2 and words in out.stderr, out.stderr


def test_significance_refuses_other_tests(dl19):
    machine, human, runs = dl19
    out = irpref_cli("significance", machine, *runs[:2], "--human-qrels", human, "--test", "t")
    assert out.returncode == 2 and "its test is ppi" in out.stderr


# ----------------------------------------------------------------------------- design

@pytest.mark.slow
def test_design_plans_from_the_pilot(dl19):
    machine, human, runs = dl19
    got = _tsv("design", "--human-qrels", human, machine, *runs[:3], "-m", "nDCG@10 AP",
               "--rel", 2, "--half-width", 0.09)
    on_m, on_h = per_query(machine, runs[:3], ["nDCG@10", "AP"], 2), per_query(
        human, runs[:3], ["nDCG@10", "AP"], 2)
    z = stats.norm.ppf(0.975)
    for row in got.to_dict("records"):
        y, yhat, yu = vectors(on_h[(row["measure"], row["run"])],
                              on_m[(row["measure"], row["run"])])
        var_y, cov = np.var(y, ddof=1), np.cov(y, yhat)[0, 1]
        var_f, total = np.var(np.r_[yhat, yu], ddof=1), len(y) + len(yu)

        def width(n, var_y=var_y, var_f=var_f, cov=cov, total=total):
            """The PPI++ half-width at n of total labelled (clipped weight)."""
            lam = min(max(cov / ((1 + n / (total - n)) * var_f), 0), 1)
            return z * np.sqrt((var_y - 2 * lam * cov + lam**2 * var_f) / n
                               + lam**2 * var_f / (total - n))

        reach = [n for n in range(2, total) if width(n) <= 0.09]
        assert (row["n_ppi"] if not pd.isna(row["n_ppi"]) else None) == (
            reach[0] if reach else None)
        assert row["n_human"] == np.ceil(z * z * var_y / 0.09**2)
        assert row["pilot_half_width"] == pytest.approx(width(len(y)), rel=1e-9)
        assert row["queries"] == 43 and row["pilot_n"] == 15
    assert got["n_ppi"].notna().any()


@pytest.mark.slow
def test_design_needs_a_half_width(dl19):
    machine, human, runs = dl19
    out = irpref_cli("design", "--human-qrels", human, machine, *runs[:1], "-m", "AP")
    assert out.returncode == 2 and "--half-width" in out.stderr
    out = irpref_cli("design", "--alpha", "0.05")
    assert out.returncode == 2 and "--min-diff" in out.stderr


# ----------------------------------------------------------------------------- report

@pytest.mark.slow
def test_report_has_the_ppi_section(dl19, tmp_path):
    pytest.importorskip("matplotlib")
    machine, human, runs = dl19
    out = irpref_cli("report", machine, *runs[:3], "-m", "AP", "nDCG@10", "--rel", 2,
                     "--human-qrels", human, "-o", tmp_path / "r.html")
    assert out.returncode == 0, out.stderr
    page = (tmp_path / "r.html").read_text()
    assert "Machine labels with a human sample" in page
    assert page.count("PPI and human-only intervals") >= 2 and "width_ratio" in page
