"""Trusting a comparison: effect sizes, intervals, ANOVA, Tukey HSD, families, orientation.

Anchors: Sakai's worked example (Table 5.1 of *Laboratory Experiments in
Information Retrieval*, tests/data/sakai-book) and cross-checks against
SciPy and statsmodels on that table and on real runs (tests/data/dl19-passage).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import QRELS, RUN_NAMES, RUNS, irpref_cli
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

import irpref
from irpref import stats as S
from irpref.stats import Pairwise
from irpref.stats import bootstrap as B

DATA = Path(__file__).parent / "data"
SAKAI = DATA / "sakai-book"
DL19 = DATA / "dl19-passage"


@pytest.fixture(scope="module")
def sakai() -> np.ndarray:
    """(3, 20) nDCG@5 of systems X, Y, Z."""
    cols = [pd.read_csv(SAKAI / f"{s}.csv")["ndcg@5"].to_numpy() for s in "XYZ"]
    return np.vstack(cols)


def sakai_pairwise(scores: np.ndarray) -> Pairwise:
    return Pairwise.from_scores(scores, runs=["X", "Y", "Z"], measure="nDCG@5")


# ------------------------------------------------------------------ Sakai's anchors


def test_paired_t_of_the_book(sakai):
    row = S.pair_tests(sakai_pairwise(sakai), "t", ci="t", correction="none").iloc[0]
    assert (row.run_a, row.run_b) == ("X", "Y")
    d = sakai[0] - sakai[1]
    assert round(row["mean"], 4) == 0.0750
    assert round(d.var(ddof=1), 4) == 0.0251
    assert round(row.effect, 4) == 0.4731
    assert round(row.statistic, 4) == 2.1158
    assert round(row.p, 4) == 0.0478
    assert round(row.ci_high - row["mean"], 4) == 0.0742
    assert row.ci_high - row["mean"] == pytest.approx(row["mean"] - row.ci_low)
    ref = sps.ttest_rel(sakai[0], sakai[1])
    assert row.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert row.p == pytest.approx(ref.pvalue, rel=1e-10)
    low, high = ref.confidence_interval(0.95)
    assert (row.ci_low, row.ci_high) == (pytest.approx(low, rel=1e-12),
                                         pytest.approx(high, rel=1e-12))


def test_two_way_anova_of_the_book(sakai):
    table = S.anova_two_way(sakai)
    assert [round(x, 4) for x in (table.ss_systems, table.ss_topics, table.ss_error)] == [
        0.1083, 1.0293, 0.8317]
    assert round(table.v_e, 4) == 0.0219
    assert round(table.f, 4) == 2.4749
    assert round(table.p, 4) == 0.0976
    assert (table.df_systems, table.df_topics, table.df_error) == (2, 19, 38)
    _same_as_statsmodels(sakai, table)


def test_es_e_of_the_book(sakai):
    rows = S.pair_tests(sakai_pairwise(sakai), "t", ci="none")
    got = dict(zip(rows.run_a + "-" + rows.run_b, rows.es_anova.abs().round(3)))
    assert got == {"X-Y": 0.507, "X-Z": 0.676, "Y-Z": 0.169}


def _same_as_statsmodels(scores: np.ndarray, table: S.Anova) -> None:
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    r, q = scores.shape
    long = pd.DataFrame({"y": scores.ravel(), "system": np.repeat(np.arange(r), q).astype(str),
                         "topic": np.tile(np.arange(q), r).astype(str)})
    ref = anova_lm(ols("y ~ C(system) + C(topic)", long).fit())
    assert table.ss_systems == pytest.approx(ref.loc["C(system)", "sum_sq"], rel=1e-9)
    assert table.ss_topics == pytest.approx(ref.loc["C(topic)", "sum_sq"], rel=1e-9)
    assert table.ss_error == pytest.approx(ref.loc["Residual", "sum_sq"], rel=1e-9)
    assert table.f == pytest.approx(ref.loc["C(system)", "F"], rel=1e-9)
    assert table.p == pytest.approx(ref.loc["C(system)", "PR(>F)"], rel=1e-8)


def test_parametric_tukey_hsd(sakai):
    rows = S.pair_tests(sakai_pairwise(sakai), "tukey", ci="none")
    v_e = S.anova_two_way(sakai).v_e
    means = sakai.mean(1)
    for row, (i, j) in zip(rows.itertuples(), [(0, 1), (0, 2), (1, 2)]):
        q = abs(means[i] - means[j]) / np.sqrt(v_e / 20)
        assert row.statistic == pytest.approx(q, rel=1e-12)
        assert row.p == pytest.approx(sps.studentized_range.sf(q, 3, 38), rel=1e-9)
        assert row.p_adjusted == row.p  # family-wise already
    assert (rows.family == "nDCG@5: all pairs").all() and (rows.family_size == 3).all()
    pw = Pairwise.from_matrix(np.zeros((4, 3, 3)), "real")
    with pytest.raises(ValueError, match="needs a metric"):
        S.pair_tests(pw, "tukey")


# --------------------------------------------------------------- real runs


@pytest.fixture(scope="module")
def dl19():
    runs = sorted((DL19 / "runs").glob("*.gz"))[:6]
    return irpref.evaluate(str(DL19 / "qrels.txt"), [str(p) for p in runs], ["AP", "nDCG@10"])


def test_real_runs_match_scipy_and_statsmodels(dl19):
    pw = Pairwise.from_metric(dl19, "AP")
    rows = S.pair_tests(pw, "t", ci="t", confidence=0.9, correction="none")
    x = pw.scores
    assert not np.isnan(x).any()
    for row, a, b in zip(rows.itertuples(), *pw.pairs):
        ref = sps.ttest_rel(x[a], x[b])
        assert row.p == pytest.approx(ref.pvalue, rel=1e-9)
        low, high = ref.confidence_interval(0.9)
        assert row.ci_low == pytest.approx(low, rel=1e-9, abs=1e-15)
        assert row.ci_high == pytest.approx(high, rel=1e-9, abs=1e-15)
    table = S.anova_two_way(x)
    _same_as_statsmodels(x, table)
    means = x.mean(1)
    a, b = pw.pairs
    np.testing.assert_allclose(rows.es_anova, (means[a] - means[b]) / np.sqrt(table.v_e),
                               rtol=1e-10)


@pytest.mark.slow
@pytest.mark.parametrize("method,reference", [
    ("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh"), ("by", "fdr_by")])
def test_corrections_equal_statsmodels(method, reference, dl19):
    p = S.significance(dl19, "t", ci="none", correction="none")["p"].to_numpy()
    rng = np.random.default_rng(3)
    for values in (p, rng.uniform(size=40), np.concatenate([rng.uniform(size=20)] * 2)):
        got = S.adjust_pvalues(values, method)
        np.testing.assert_allclose(got, multipletests(values, method=reference)[1], rtol=1e-12)


# ------------------------------------------------------------ intervals


def test_win_share_interval_is_clopper_pearson():
    wins, losses = np.array([0, 3, 12, 20, 7]), np.array([5, 3, 30, 0, 1])
    low, high = S.win_share_interval(wins, losses, 0.9)
    for w, lo_, lo, hi in zip(wins, losses, low, high):
        ci = sps.binomtest(int(w), int(w + lo_)).proportion_ci(0.9, method="exact")
        assert (lo, hi) == (pytest.approx(ci.low, abs=1e-12), pytest.approx(ci.high, abs=1e-12))
    assert np.isnan(S.win_share_interval(np.array([0]), np.array([0]))[0]).all()


def _counts(seed, samples, nq):
    rng = B.generator(seed)
    return rng.multinomial(nq, np.full(nq, 1.0 / nq), size=samples).astype(np.float64)


def test_bca_equals_the_textbook_computation():
    d = np.random.default_rng(5).gamma(1.5, size=(4, 30)) - 1.0
    low, high = S.bootstrap_ci(d, 2000, 0.9, seed=7, method="bca")
    counts = _counts(7, 2000, 30)
    for i in range(len(d)):
        means = counts @ d[i] / 30
        z0 = sps.norm.ppf((means < d[i].mean()).mean())
        jack = (d[i].sum() - d[i]) / 29
        u = jack.mean() - jack
        acc = (u**3).sum() / (6 * ((u**2).sum()) ** 1.5)
        z = sps.norm.ppf([0.05, 0.95])
        levels = sps.norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z)))
        want = np.quantile(means, levels)
        assert low[i] == pytest.approx(want[0], rel=1e-12)
        assert high[i] == pytest.approx(want[1], rel=1e-12)
    p_low, p_high = S.bootstrap_ci(d, 2000, 0.9, seed=7)
    assert not np.array_equal(low, p_low)  # BCa moves the skewed interval


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_one_stream_whatever_the_chunking(method, monkeypatch):
    d = np.random.default_rng(1).normal(size=(25, 40))
    d[3, :4] = np.nan
    base = S.bootstrap_ci(d, 3000, 0.95, seed=11, method=method)
    monkeypatch.setattr(B, "BOOTSTRAP_CHUNK", 97)
    small = S.bootstrap_ci(d, 3000, 0.95, seed=11, method=method)
    np.testing.assert_array_equal(base[0], small[0])
    np.testing.assert_array_equal(base[1], small[1])
    sub = S.bootstrap_ci(d[5:9], 3000, 0.95, seed=11, method=method)  # fewer rows
    np.testing.assert_allclose(sub[0], base[0][5:9], rtol=1e-13)


def test_bootstrap_ci_in_the_table_is_seeded(sakai):
    pw = sakai_pairwise(sakai)
    one = S.significance(pw, "t", ci="bca", bootstrap=500, seed=4)
    two = S.significance(pw, "t", ci="bca", bootstrap=500, seed=4)
    pd.testing.assert_frame_equal(one, two)
    assert (one.ci == "bca").all()
    assert (one.ci_low <= one["mean"]).all() and (one["mean"] <= one.ci_high).all()


# -------------------------------------------------------- baselines, families


@pytest.fixture(scope="module")
def example():
    return irpref.evaluate(str(QRELS), [str(p) for p in RUNS], ["AP", "ASL"], rel=2)


def distinct(frame: pd.DataFrame) -> pd.DataFrame:
    """The first row of each hypothesis: baseline A vs B and B vs A are one comparison."""
    pair = [frozenset(p) for p in zip(frame["run_a"], frame["run_b"])]
    return frame[~pd.Series(list(zip(frame["measure"], pair)), index=frame.index).duplicated()]


@pytest.mark.slow
def test_several_baselines_and_families(example):
    bases = ["bm25base_p", "UNH_bm25"]
    frame = S.significance(example, "t", baseline=bases, family="all", ci="none",
                           correction="by")
    r = len(RUN_NAMES)
    assert len(frame) == 2 * 2 * (r - 1)  # measures x baselines x runs
    assert not (frame.run_a == frame.run_b).any()  # never a baseline against itself
    assert set(frame.run_b) == set(bases)
    once = distinct(frame)  # the two baselines' comparison counts once per measure
    assert len(once) == len(frame) - 2
    assert (frame.family == "all measures").all() and (frame.family_size == len(once)).all()
    np.testing.assert_allclose(once.p_adjusted, multipletests(once.p, method="fdr_by")[1],
                               rtol=1e-12)
    per = S.significance(example, "t", baseline=bases, family="baseline", ci="none")
    for (_, base), group in distinct(per).groupby(["measure", "run_b"]):
        assert len(group) == (r - 1 if base == bases[0] else r - 2)
        assert (group.family == group.measure + " vs " + base).all()
        np.testing.assert_allclose(group.p_adjusted, multipletests(group.p, method="holm")[1])
    one = S.significance(example, "t", baseline="bm25base_p", ci="none")
    both = S.significance(example, "t", baseline=bases, ci="none")
    first = both[both.run_b == "bm25base_p"].reset_index(drop=True)
    cols = ["measure", "run_a", "run_b", "mean", "p", "effect", "es_anova"]
    pd.testing.assert_frame_equal(first[cols], one[cols])
    with pytest.raises(irpref.errors.UsageError, match="needs --baseline"):
        S.significance(example, "t", family="baseline")


def test_against_baseline_keeps_working_and_orients(example):
    full = S.significance(example, ["t", "sign"], ci="t", seed=1)
    base = S.against_baseline(full, "bm25base_p")
    direct = S.significance(example, ["t", "sign"], ci="t", seed=1, baseline="bm25base_p")
    cols = ["measure", "test", "run_a", "run_b", "wins", "losses", "ties", "p", "p_adjusted",
            "es_anova", "effect", "family"]
    pd.testing.assert_frame_equal(base[cols], direct[cols], check_exact=False, rtol=1e-12)
    np.testing.assert_allclose(base.ci_low, direct.ci_low, rtol=1e-12)


def test_orientation_counts_wins_of_lower_is_better_measures(example):
    frame = S.significance(example, ["t", "sign"], baseline="bm25base_p", ci="none")
    asl = frame[(frame.measure == "ASL") & (frame.run_a == "TUA1-1")]
    scores = example[example.measure == "ASL"].pivot(index="query", columns="run",
                                                     values="value")
    d = scores["TUA1-1"] - scores["bm25base_p"]
    for row in asl.itertuples():
        assert (row.wins, row.losses) == ((d < 0).sum(), (d > 0).sum())
        assert row.orientation == "lower"
        assert row.mean == pytest.approx(d.mean())  # raw difference
    sign = asl[asl.test == "sign"].iloc[0]
    assert sign.effect == pytest.approx((d < 0).sum() / ((d != 0).sum()))


def test_measure_without_orientation_has_no_wins(example):
    table = irpref.evaluate(str(QRELS), [str(p) for p in RUNS], ["num_ret"])
    frame = S.significance(table, ["t", "sign"], ci="none")
    assert (frame.orientation == "none").all()
    assert frame.wins.isna().all() and frame.losses.isna().all()
    assert frame[frame.test == "sign"].effect.isna().all()


# ------------------------------------------------------------------- CLI


@pytest.mark.slow
def test_cli_marks_lower_asl_as_better():
    res = irpref_cli("significance", QRELS, *RUNS, "-m", "AP", "ASL", "--rel", 2,
                     "--baseline", "bm25base_p")
    assert res.returncode == 0, res.stderr
    line = next(x for x in res.stdout.splitlines() if x.split()[:3] == ["ASL", "t", "TUA1-1"])
    assert line.split()[-1] == "better"
    assert float(line.split()[4]) < 0  # mean stays run_a - run_b
    assert "ASL: lower is better" in res.stdout
    assert "> 0 favours run_a" not in res.stdout
    assert "no --seed" not in res.stderr  # the t interval needs no seed


def _tsv(res) -> pd.DataFrame:
    assert res.returncode == 0, res.stderr
    return pd.read_csv(io.StringIO(res.stdout), sep="\t", keep_default_na=False,
                       na_values=[""])


@pytest.mark.slow
def test_cli_tsv_interface_with_several_baselines():
    args = ["significance", QRELS, *RUNS, "-m", "AP", "ASL", "--rel", 2, "--test", "t",
            "--correction", "bh", "--format", "tsv"]
    rep = _tsv(irpref_cli(*args, "--baseline", "bm25base_p", "--baseline", "UNH_bm25"))
    listed = _tsv(irpref_cli(*args, "--baseline", "bm25base_p,UNH_bm25"))
    pd.testing.assert_frame_equal(rep, listed)
    for col in ["measure", "run_a", "run_b", "n", "mean", "p", "p_adjusted", "effect",
                "es_anova", "ci_low", "ci_high", "family", "verdict"]:
        assert col in rep.columns, col
    assert set(rep.run_b) == {"bm25base_p", "UNH_bm25"}  # not only the last one
    assert len(rep) == 2 * 2 * (len(RUN_NAMES) - 1)
    for _, group in distinct(rep).groupby("measure"):
        np.testing.assert_allclose(group.p_adjusted,
                                   multipletests(group.p, method="fdr_bh")[1], rtol=1e-12)
    all_rows = _tsv(irpref_cli(*args, "--baseline", "bm25base_p,UNH_bm25", "--family", "all"))
    assert (all_rows.family == "all measures").all()
    once = distinct(all_rows)
    np.testing.assert_allclose(once.p_adjusted,
                               multipletests(once.p, method="fdr_bh")[1], rtol=1e-12)


@pytest.mark.slow
def test_cli_bootstrap_is_seeded():
    args = ["significance", QRELS, *RUNS, "-m", "AP", "--baseline", "bm25base_p",
            "--format", "tsv", "--seed", 3, "--bootstrap", 300]
    a, b = irpref_cli(*args, "--ci", "bootstrap"), irpref_cli(*args, "--ci", "bootstrap")
    assert a.returncode == 0 and a.stdout == b.stdout
    c = irpref_cli(*args, "--ci", "bca")
    assert _tsv(c).ci.eq("bca").all() and c.stdout != a.stdout


@pytest.mark.slow
def test_cli_usage_errors():
    res = irpref_cli("significance", QRELS, *RUNS, "-m", "AP", "--family", "baseline")
    assert res.returncode == 2 and "--family baseline needs --baseline" in res.stderr
    res = irpref_cli("significance", QRELS, *RUNS, "-m", "AP", "--baseline", "x,")
    assert res.returncode == 2 and "empty run name" in res.stderr
    res = irpref_cli("significance", QRELS, *RUNS, "-m", "AP", "--baseline", "nope")
    assert res.returncode == 2 and "'nope' is not one of the runs" in res.stderr
    res = irpref_cli("significance", QRELS, *RUNS, "-m", "sgnLP", "--test", "tukey")
    assert res.returncode == 2 and "needs a metric" in res.stderr
    assert "Traceback" not in res.stderr


def test_standardized_difference_interval_inverts_the_noncentral_t(dl19, sakai):
    row = S.pair_tests(sakai_pairwise(sakai), "t", ci="none").iloc[0]
    assert row.effect_low < row.effect < row.effect_high
    assert row.effect_low > 0  # p = 0.0478 < 0.05: the interval excludes 0
    rows = S.pair_tests(Pairwise.from_metric(dl19, "nDCG@10"), "t", ci="none",
                        confidence=0.9)
    t = rows.effect * np.sqrt(rows.n)
    df = rows.n - 1
    np.testing.assert_allclose(sps.nct.cdf(t, df, rows.effect_low * np.sqrt(rows.n)), 0.95,
                               atol=1e-7)
    np.testing.assert_allclose(sps.nct.cdf(t, df, rows.effect_high * np.sqrt(rows.n)), 0.05,
                               atol=1e-7)
    excludes = (rows.effect_low > 0) | (rows.effect_high < 0)
    np.testing.assert_array_equal(excludes, rows.p < 0.1)


@pytest.mark.slow
def test_cli_measure_without_orientation_gets_no_marks():
    res = irpref_cli("significance", QRELS, *RUNS, "-m", "num_ret", "AP", "--baseline",
                     "bm25base_p", "--test", "sign", "--format", "json")
    assert res.returncode == 0, res.stderr
    import json

    records = json.loads(res.stdout)
    none = [r for r in records if r["measure"] == "NumRet"]
    assert none and all(r["wins"] is None and r["losses"] is None for r in none)
    assert all(r["verdict"] in ("differs", "n.s.") for r in none)
    assert all(isinstance(r["wins"], int) for r in records if r["measure"] == "AP")


@pytest.mark.slow
def test_cli_anova_table(example):
    res = irpref_cli("significance", QRELS, *RUNS, "-m", "AP", "ASL", "sgnLP", "--rel", 2,
                     "--anova", "--format", "tsv")
    frame = _tsv(res)
    assert list(frame.measure) == ["AP", "ASL"]  # the preference has no ANOVA
    for row in frame.itertuples():
        ref = S.anova_two_way(Pairwise.from_metric(example, row.measure).scores)
        assert (row.V_E, row.F, row.p) == (ref.v_e, ref.f, ref.p)
        assert (row.systems, row.topics, row.df_error) == (6, 43, ref.df_error)
    res = irpref_cli("significance", QRELS, *RUNS, "-m", "sgnLP", "--anova")
    assert res.returncode == 2 and "--anova needs a metric" in res.stderr


def test_anova_of_a_purely_additive_matrix_has_no_residual():
    """V_E = 0 (every run = a constant + a topic effect): F is inf, ES_E undefined, no error."""
    from irpref.stats import anova_two_way, es_anova

    topics = np.array([1.0, 5.0, 9.0, 3.0])
    scores = np.vstack([topics, topics + 2.0, topics + 4.0])
    table = anova_two_way(scores)
    assert table.v_e == 0 and table.f == np.inf and table.p == 0
    assert np.isnan(es_anova(np.array([2.0]), table.v_e)).all()


def test_effect_interval_bounds_solve_the_noncentral_t_equation():
    """Each bound lambda / sqrt(n) puts t at the (1 +- c) / 2 quantile of the noncentral t,
    also where SciPy's noncentral t returns NaN on the way (df 4, t 7.25: the bisection
    that preceded this search returned a lower bound of -7.21 instead of 0.918)."""
    from scipy import stats as sps

    from irpref.stats.intervals import smd_interval

    rng = np.random.default_rng(0)
    t = np.concatenate([[7.254320685294748, 0.0, 50.0, -50.0], rng.normal(0, 4, 500)])
    n = np.concatenate([[5.0, 10.0, 30.0, 30.0], rng.integers(2, 300, 500).astype(float)])
    low, high = smd_interval(t, n, 0.95)
    assert np.isfinite(low).all() and (low < high).all()
    assert np.allclose(sps.nct.cdf(t, n - 1, low * np.sqrt(n)), 0.975, atol=1e-10)
    assert np.allclose(sps.nct.cdf(t, n - 1, high * np.sqrt(n)), 0.025, atol=1e-10)
