"""``--human-qrels``: prediction-powered inference through the installed command, on real
data: ``--ppi-interval normal`` against ppi_py (the oracle), the default against the
library's :func:`irpref.llm_judged.ppi.ppi_mean`, both fed with per-query values that plain
``irpref evaluate`` / ``irpref compare`` print under each qrels; the degenerate cases,
the level options and the refusals.

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
from irpref.llm_judged.ppi import ppi_mean

ppi_py = pytest.importorskip("ppi_py")

MEASURES = ["AP", "nDCG@10", "RR", "P@10"]
TOL = 1e-9
NORMAL = ("--ppi-interval", "normal")


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
    """``--ppi-interval normal``: the row is ppi_py's estimate and interval."""
    kw = {} if lam == "auto" else {"lam": float(lam)}
    assert row[value] == pytest.approx(_one(ppi_py.ppi_mean_pointestimate(y, yhat, yu, **kw)),
                                       abs=TOL)
    lo, hi = ppi_py.ppi_mean_ci(y, yhat, yu, alpha=1 - confidence, **kw)
    assert row[low] == pytest.approx(_one(lo), abs=TOL)
    assert row[high] == pytest.approx(_one(hi), abs=TOL)


def check_default(row, y, yhat, yu, value_range, confidence=0.95, value="value", low="low",
                  high="high", null=None):
    """The default interval: the row is the library's (``ppi_mean``) on the per-query
    values plain evaluate / compare print; its p-value too when ``null`` is given."""
    want = ppi_mean(y, yhat, yu, confidence=confidence, value_range=value_range,
                    null=0.0 if null is None else null)
    assert (row[value], row[low], row[high]) == pytest.approx(
        (want.estimate[0], want.low[0], want.high[0]), abs=TOL)
    if null is not None:
        assert row["p"] == pytest.approx(want.p[0], abs=TOL)
    return want


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
               "--ppi-lambda", lam, "--confidence", confidence, *NORMAL)
    assert list(got.columns) == ["run", "measure", "value", "low", "high", "n_labeled",
                                 "n_unlabeled", "lambda", "human", "human_low", "human_high",
                                 "machine", "note"]
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
               "--ppi-lambda", "0", *NORMAL)
    assert np.allclose(got["value"], got["human"], atol=TOL)
    assert (got["high"] - got["low"] < got["human_high"] - got["human_low"]).all()  # z < t


def _check_significance(got, machine, human, runs, metrics, prefs, rel, normal=True):
    """Every row against ppi_py (``normal``) or the library's default interval."""
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
        assert row["test"] == "ppi" and row["n"] == len(y) and row["n_unlabeled"] == len(yu)
        # wins / losses / ties: the human-judged queries (every measure here: higher is better)
        assert (row["wins"], row["losses"], row["ties"]) == (
            (y > 0).sum(), (y < 0).sum(), (y == 0).sum())
        assert (row["p"] < 0.05) == (row["ci_low"] > 0 or row["ci_high"] < 0)
        if not normal:
            check_default(row, y, yhat, yu, (-1, 1), value="mean", low="ci_low",
                          high="ci_high", null=0.0)
            continue
        check_row(row, y, yhat, yu, "auto", 0.95, "mean", "ci_low", "ci_high")
        # p: ppi_py's at the weight used, and ppi_py's own where its weight needs no clip
        assert row["p"] == pytest.approx(_one(ppi_py.ppi_mean_pval(y, yhat, yu,
                                                                   lam=row["lambda"])), abs=TOL)
        yc, fc = y - y.mean(), yhat - yhat.mean()
        raw = np.mean(yc * fc) / ((1 + len(y) / len(yu)) * np.var(np.r_[yhat, yu], ddof=1))
        if 0 <= raw <= 1:
            assert row["p"] == pytest.approx(_one(ppi_py.ppi_mean_pval(y, yhat, yu)), abs=TOL)
        else:
            outside += 1
    return outside


@pytest.mark.slow
def test_significance_equals_ppi_py_on_dl19(dl19):
    machine, human, runs = dl19
    got = _tsv("significance", machine, *runs, "-m", "AP", "RR", "sgnLP", "rrLP", "--rel", 2,
               "--human-qrels", human, *NORMAL)
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
    _check_significance(got, machine, human, runs, ["nDCG@10"], [], 2, normal=False)
    assert np.allclose(got["p_adjusted"], np.minimum(1, got["p"] * (len(runs) - 1)))


@pytest.mark.slow
def test_llmjudge_sample(llmjudge):
    machine, human, runs = llmjudge
    out = irpref_cli("evaluate", machine, *runs, "-m", *MEASURES, "--human-qrels", human,
                     "--format", "tsv")
    assert out.returncode == 0 and "human-judged queries" not in out.stderr  # 10: checked
    got = pd.read_csv(io.StringIO(out.stdout), sep="\t")
    on_m, on_h = per_query(machine, runs, MEASURES, 1), per_query(human, runs, MEASURES, 1)
    for row in got.to_dict("records"):
        key = (row["measure"], row["run"])
        check_default(row, *vectors(on_h[key], on_m[key]), (0, 1))
        assert (row["n_labeled"], row["n_unlabeled"]) == (10, 15)
    sig = _tsv("significance", machine, *runs, "-m", "AP", "RPP", "--human-qrels", human)
    _check_significance(sig, machine, human, runs, ["AP"], ["RPP"], 1, normal=False)
    normal = irpref_cli("evaluate", machine, *runs, "-m", "AP", "--human-qrels", human, *NORMAL)
    assert "ppi_py's normal interval from 10 human-judged queries covers less" in normal.stderr


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
def test_one_or_two_human_queries_are_refused(dl19, tmp_path):
    """1 human-judged query: refused everywhere; 2: refused by the default interval (1
    degree of freedom, no query to cross-fit the weight on), allowed by ppi_py's
    normal interval with a warning on what it cannot claim."""
    machine, human, runs = dl19
    h = read_qrels(human)
    first = sorted(h["query"].unique())
    one = write_qrels(tmp_path / "one.qrels", h[h["query"] == first[0]])
    two = write_qrels(tmp_path / "two.qrels", h[h["query"].isin(first[:2])])
    for command in ("evaluate", "significance"):
        out = irpref_cli(command, machine, *runs[:2], "-m", "AP", "--human-qrels", one)
        assert out.returncode == 1, out.stderr
        assert "1 human-judged query: PPI needs at least 3" in out.stderr
        assert "Traceback" not in out.stderr
    out = irpref_cli("evaluate", machine, *runs[:2], "-m", "AP", "--human-qrels", two)
    assert out.returncode == 1 and "2 human-judged queries: PPI needs at least 3" in out.stderr
    assert "1 degree of freedom" in out.stderr
    out = irpref_cli("evaluate", machine, *runs[:2], "-m", "AP", "--human-qrels", two, *NORMAL)
    assert out.returncode == 0, out.stderr
    assert "ppi_py's normal interval from 2 human-judged queries covers less" in out.stderr
    three = write_qrels(tmp_path / "three.qrels", h[h["query"].isin(first[:3])])
    out = irpref_cli("evaluate", machine, *runs[:2], "-m", "AP", "--human-qrels", three)
    assert out.returncode == 0, out.stderr
    assert "PPI intervals from 3 human-judged queries: the coverage study" in out.stderr


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
    check_default(zero.reset_index().iloc[0], y, yhat, yu, (0, 1))


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


# ------------------------------------------------------------------ degenerate samples

def _rr_one_queries(run, k: int) -> list[str]:
    """k queries where ``run``'s RR at rel 1 is 1 under the NIST labels."""
    values = per_query(DL19 / "qrels.txt", [run], ["RR"], 1)[("RR", run.name[:-3])]
    return sorted(values[values == 1].index)[:k]


@pytest.mark.slow
def test_all_equal_human_values_are_never_a_zero_width_interval(dl19, tmp_path):
    """RR at rel 1 on 10 human-judged queries where the run finds a relevant passage
    first every time: PPI++'s weight is 0 and ppi_py prints [1, 1]; irpref prints the
    range bound [1 - q, 1], q = 1 - 0.025^(1/10), for PPI and human-only alike, says so
    in the note column of every format and warns once."""
    machine, _, runs = dl19
    truth = read_qrels(DL19 / "qrels.txt")
    chosen = _rr_one_queries(runs[0], 10)
    human = write_qrels(tmp_path / "h.qrels", truth[truth["query"].isin(chosen)])
    args = ("evaluate", machine, runs[0], "-m", "RR", "--rel", 1, "--human-qrels", human)
    got = _tsv(*args).iloc[0]
    low = 0.025 ** 0.1
    assert (got["value"], got["low"], got["high"]) == pytest.approx((1, low, 1), abs=TOL)
    assert (got["human_low"], got["human_high"]) == pytest.approx((low, 1), abs=TOL)
    assert got["note"] == "all 10 human values equal 1: range bound, not a t interval"
    assert got["lambda"] == 0
    normal = _tsv(*args, *NORMAL).iloc[0]  # ppi_py's own interval has width 0 here
    assert (normal["low"], normal["high"]) == pytest.approx((low, 1), abs=TOL)
    for fmt in ("table", "json", "markdown", "latex", "html"):
        out = irpref_cli(*args, "--format", fmt)
        assert out.returncode == 0, out.stderr
        assert "range bound" in out.stdout, fmt
        assert out.stderr.count("the human-judged values are all equal") == 1
    # significance: every human-judged difference of a run with itself is 0
    import shutil

    twin = shutil.copy(runs[0], tmp_path / "twin.gz")
    sig = _tsv("significance", machine, runs[0], twin, "-m", "RR", "--rel", 1,
               "--human-qrels", human)
    assert "range bound" in sig.iloc[0]["note"] and sig.iloc[0]["p"] == 1


@pytest.mark.slow
def test_one_query_left_to_the_machine(dl19, tmp_path):
    """Every query but one human-judged: ppi_py's variance of that one machine value is 0
    by construction (refused under --ppi-interval normal); the default estimates it
    from every machine value."""
    machine, _, runs = dl19
    truth = read_qrels(DL19 / "qrels.txt")
    human = write_qrels(tmp_path / "h.qrels",
                        truth[truth["query"] != sorted(truth["query"].unique())[0]])
    got = _tsv("evaluate", machine, runs[0], "-m", "AP", "--rel", 2, "--human-qrels", human,
               "--ppi-lambda", 1)
    assert got.iloc[0]["n_unlabeled"] == 1 and got.iloc[0]["high"] > got.iloc[0]["low"]
    out = irpref_cli("evaluate", machine, runs[0], "-m", "AP", "--rel", 2, "--human-qrels",
                     human, *NORMAL)
    assert out.returncode == 1 and "1 query is left to the machine labels" in out.stderr


@pytest.mark.slow
def test_estimate_outside_the_range_is_flagged_in_every_format(tmp_path):
    """lambda 1 with a machine judge that calls nothing relevant on the human-judged
    queries and everything elsewhere: P@5's estimate is 2, flagged in the note column
    of every format and in a warning."""
    from helpers import write_qrels as qrels_lines
    from helpers import write_run

    queries = [f"q{i}" for i in range(12)]
    docs = [f"d{j}" for j in range(5)]
    run = write_run(tmp_path / "r.run", [(q, d, 5.0 - j) for q in queries
                                         for j, d in enumerate(docs)])
    machine = qrels_lines(tmp_path / "m.qrels", [(q, d, int(i >= 10)) for i, q in
                                                 enumerate(queries) for d in docs])
    human = qrels_lines(tmp_path / "h.qrels", [(q, d, 1) for q in queries[:10] for d in docs])
    args = ("evaluate", machine, run, "-m", "P@5", "--human-qrels", human, "--ppi-lambda", 1)
    got = _tsv(*args).iloc[0]
    assert got["value"] == pytest.approx(2.0)
    assert got["note"] == "estimate outside the measure's range [0, 1]"
    for fmt in ("table", "json", "markdown", "latex", "html"):
        out = irpref_cli(*args, "--format", fmt)
        assert "outside the measure" in out.stdout, fmt
        assert "the PPI estimate lies outside the measure's range" in out.stderr


@pytest.mark.slow
def test_a_machine_judge_on_another_scale_is_announced(dl19, tmp_path):
    """Binary machine labels against 0-3 human grades: at --rel 2 no machine label is
    relevant and PPI is the human labels alone, which irpref says (scale warning, note
    on every row) instead of falling back silently."""
    machine, human, runs = dl19
    labels = read_qrels(machine)
    binary = write_qrels(tmp_path / "binary.qrels",
                         labels.assign(grade=(labels["grade"] >= 2).astype(int)))
    out = irpref_cli("evaluate", binary, runs[0], "-m", "AP", "--rel", 2, "--human-qrels",
                     human, "--format", "tsv")
    assert out.returncode == 0, out.stderr
    assert "grade 0-1, the human qrels" in out.stderr and "0-3" in out.stderr
    assert "at --rel 2 no machine label is relevant" in out.stderr
    row = pd.read_csv(io.StringIO(out.stdout), sep="\t").iloc[0]
    assert row["lambda"] == 0 and "machine values all equal" in row["note"]
    same = irpref_cli("evaluate", binary, runs[0], "-m", "AP", "--rel", 1, "--human-qrels",
                      human, "--format", "tsv")
    assert "graded measures" in same.stderr and "no machine label" not in same.stderr


# ------------------------------------------------------------------- options and levels

@pytest.mark.slow
def test_alpha_and_confidence_set_the_ppi_level(dl19):
    machine, human, runs = dl19
    base = ("evaluate", machine, runs[0], "-m", "AP", "--rel", 2, "--human-qrels", human)
    by_alpha = irpref_cli(*base, "--alpha", "0.1", "--format", "tsv")
    by_level = irpref_cli(*base, "--confidence", "0.9", "--format", "tsv")
    default = _tsv(*base)
    assert by_alpha.returncode == 0 and by_alpha.stdout == by_level.stdout
    narrow = pd.read_csv(io.StringIO(by_alpha.stdout), sep="\t")
    assert (narrow["high"] - narrow["low"] < default["high"] - default["low"]).all()
    assert "0.9 small-sample interval" in irpref_cli(*base, "--alpha", "0.1").stdout
    both = irpref_cli(*base, "--alpha", "0.1", "--confidence", "0.9")
    assert both.returncode == 0
    clash = irpref_cli(*base, "--alpha", "0.1", "--confidence", "0.95")
    assert clash.returncode == 2 and "two levels of one PPI interval" in clash.stderr
    sig = ("significance", machine, *runs[:3], "-m", "AP", "--rel", 2, "--human-qrels", human)
    a, c = (irpref_cli(*sig, flag, value, "--format", "tsv")
            for flag, value in (("--alpha", "0.1"), ("--confidence", "0.9")))
    assert a.returncode == 0 and a.stdout == c.stdout
    table = pd.read_csv(io.StringIO(a.stdout), sep="\t")
    assert (table["significant"] == (table["p_adjusted"] < 0.1)).all()
    assert "interval of mean at 0.9" in irpref_cli(*sig, "--alpha", "0.1").stdout


@pytest.mark.parametrize("command, extra, words", [
    ("evaluate", ["--test", "t"], "--test does not combine with --human-qrels (evaluate "
                                  "--human-qrels prints intervals, it runs no test)"),
    ("evaluate", ["--correction", "holm"], "--correction does not combine with --human-qrels"),
    ("evaluate", ["--bootstrap", "100"], "--bootstrap does not combine with --human-qrels"),
    ("evaluate", ["--seed", "3"], "--seed does not combine with --human-qrels"),
    ("significance", ["--test", "t"], "its test is ppi"),
    ("significance", ["--seed", "3"], "--seed does not combine with --human-qrels"),
    ("significance", ["--permutations", "99"], "--permutations does not combine"),
    ("significance", ["--bootstrap", "99"], "--bootstrap does not combine"),
    ("evaluate", ["--ppi-interval", "z"], "--ppi-interval z: must be one of t, normal"),
])
def test_options_that_do_not_apply_are_refused(dl19, command, extra, words):
    machine, human, runs = dl19
    out = irpref_cli(command, machine, *runs[:2], "-m", "AP", "--human-qrels", human, *extra)
    assert out.returncode == 2 and words in out.stderr, out.stderr


# ----------------------------------------------------------------------------- design

@pytest.mark.slow
def test_design_plans_from_the_pilot(dl19):
    machine, human, runs = dl19
    got = _tsv("design", "--human-qrels", human, machine, *runs[:3], "-m", "nDCG@10 AP",
               "--rel", 2, "--half-width", 0.09)
    assert list(got.columns) == ["run", "measure", "half_width", "n_ppi", "n_ppi_low",
                                 "n_ppi_high", "n_human", "queries", "pilot_n",
                                 "pilot_half_width", "lambda", "rho", "var_human",
                                 "var_machine"]
    on_m, on_h = per_query(machine, runs[:3], ["nDCG@10", "AP"], 2), per_query(
        human, runs[:3], ["nDCG@10", "AP"], 2)
    chi2 = stats.chi2.isf(0.025, 14), stats.chi2.ppf(0.025, 14)
    for row in got.to_dict("records"):
        y, yhat, yu = vectors(on_h[(row["measure"], row["run"])],
                              on_m[(row["measure"], row["run"])])
        var_y, cov = np.var(y, ddof=1), np.cov(y, yhat)[0, 1]
        var_f, total = np.var(np.r_[yhat, yu], ddof=1), len(y) + len(yu)

        def width(n, k=1.0, var_y=var_y, var_f=var_f, cov=cov, total=total):
            """The PPI++ half-width at n of total labelled (clipped weight, t quantile),
            the pilot's variances scaled by k."""
            lam = min(max(cov / ((1 + n / (total - n)) * var_f), 0), 1)
            return stats.t.ppf(0.975, n - 1) * np.sqrt(
                k * (var_y - 2 * lam * cov + lam**2 * var_f) / n
                + k * lam**2 * var_f / (total - n))

        for column, k in (("n_ppi", 1.0), ("n_ppi_low", 14 / chi2[0]),
                          ("n_ppi_high", 14 / chi2[1])):
            reach = [n for n in range(3, total) if width(n, k) <= 0.09]
            assert (row[column] if not pd.isna(row[column]) else None) == (
                reach[0] if reach else None), column
        human_only = [n for n in range(2, 500)
                      if stats.t.ppf(0.975, n - 1) * np.sqrt(var_y / n) <= 0.09]
        assert row["n_human"] == human_only[0]
        assert row["pilot_half_width"] == pytest.approx(width(len(y)), rel=1e-9)
        assert row["queries"] == 43 and row["pilot_n"] == 15
    assert got["n_ppi"].notna().any()
    assert (got["n_ppi_low"] <= got["n_ppi"]).all()


@pytest.mark.slow
def test_design_warns_on_a_small_pilot_and_says_how_uncertain_it_is(dl19, tmp_path):
    """A pilot of 2 queries planned 33 with nothing said: now a warning, and the plan's
    range from the pilot variance's chi-square interval (1 degree of freedom)."""
    machine, human, runs = dl19
    h = read_qrels(human)
    first = sorted(h["query"].unique())[:2]
    two = write_qrels(tmp_path / "two.qrels", h[h["query"].isin(first)])
    out = irpref_cli("design", "--human-qrels", two, machine, runs[0], "-m", "AP", "--rel", 2,
                     "--half-width", 0.1, "--format", "tsv")
    assert out.returncode == 0, out.stderr
    assert "a pilot of 2 human-judged queries is too small to plan from" in out.stderr
    assert "rest on 1 degree of freedom" in out.stderr
    row = pd.read_csv(io.StringIO(out.stdout), sep="\t").iloc[0]
    assert row["pilot_n"] == 2
    low = row["n_ppi_low"]
    assert pd.isna(row["n_ppi_high"]) or row["n_ppi_high"] > 5 * low


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


@pytest.mark.slow
def test_design_legend_largest_plan_counts_unreachable_runs(dl19):
    """The legend's "largest over the runs" is unreachable when one run's plan is: a
    maximum that skipped that run printed a number every run could not meet."""
    machine, human, runs = dl19
    out = irpref_cli("design", "--human-qrels", human, machine, *runs[:6], "-m", "nDCG@10",
                     "--rel", 2, "--half-width", 0.08)
    assert out.returncode == 0, out.stderr
    table = _tsv("design", "--human-qrels", human, machine, *runs[:6], "-m", "nDCG@10",
                 "--rel", 2, "--half-width", 0.08)
    largest = out.stdout.split("Largest over the runs: ")[1]
    assert table["n_ppi"].isna().any() and table["n_ppi"].notna().any()
    assert largest.startswith("nDCG@10: more than the collection has")
    reachable = irpref_cli("design", "--human-qrels", human, machine, *runs[:6], "-m",
                           "nDCG@10", "--rel", 2, "--half-width", 0.09)
    plans = _tsv("design", "--human-qrels", human, machine, *runs[:6], "-m", "nDCG@10",
                 "--rel", 2, "--half-width", 0.09)["n_ppi"]
    assert plans.notna().all()
    assert (reachable.stdout.split("Largest over the runs: ")[1]
            .startswith(f"nDCG@10: {int(plans.max())} ("))
