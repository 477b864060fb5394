"""Statistics defects fixed once, each through the installed command where
it names one, and the blocked significance table.

- seeds: a fixed default (0), written into the output (``seed`` column) on the
  rows that drew random numbers, so a table reproduces itself;
- the correction follows the test: none for hsd / tukey (family-wise already),
  and an explicit other one beside them is refused (exit 2);
- wilcoxon rows carry the matched-pairs rank-biserial correlation (Kerby 2014),
  against a brute-force rank sum and SciPy's W+, and ``effect_kind`` names every
  row's effect;
- pairs tested in blocks give the same table as one block;
- the default of bootstrap resamples is the documented one.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from helpers import QRELS, RUNS, irpref_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

import irpref
from irpref.stats import DEFAULT_BOOTSTRAP, Pairwise, rank_biserial, significance
from irpref.stats import table as table_module


def _tsv(proc) -> pd.DataFrame:
    assert proc.returncode == 0, proc.stderr
    return pd.read_csv(io.StringIO(proc.stdout), sep="\t", keep_default_na=False)


@pytest.fixture(scope="module")
def results():
    return irpref.evaluate(str(QRELS), [str(p) for p in RUNS], ["AP", "RR"], rel=2)


@pytest.mark.slow
def test_default_seed_is_fixed_and_written():
    args = ["significance", QRELS, *RUNS, "-m", "AP", "--test", "hsd", "--permutations", "200",
            "--ci", "bootstrap", "--bootstrap", "100", "--format", "tsv"]
    a, b = _tsv(irpref_cli(*args)), _tsv(irpref_cli(*args))
    pd.testing.assert_frame_equal(a, b)
    assert (a["seed"] == 0).all()
    c = _tsv(irpref_cli(*args, "--seed", "0"))
    pd.testing.assert_frame_equal(a, c)
    d = _tsv(irpref_cli(*args[:-2], "--seed", "9", "--format", "tsv"))
    assert (d["seed"] == 9).all() and not d["p"].equals(a["p"])
    # rows without random draws leave the seed empty
    t = _tsv(irpref_cli("significance", QRELS, *RUNS, "-m", "AP", "--format", "tsv"))
    assert (t["seed"] == "").all()
    assert "no --seed given" not in irpref_cli(*args).stderr


def test_api_default_seed_is_zero(results):
    a = significance(results, "hsd", permutations=200)
    b = significance(results, "hsd", permutations=200, seed=0)
    pd.testing.assert_frame_equal(a, b)
    assert (a["seed"] == 0).all()


@pytest.mark.slow
@pytest.mark.parametrize("test", ["hsd", "tukey"])
def test_family_wise_tests_default_to_no_correction(test):
    rows = _tsv(irpref_cli("significance", QRELS, *RUNS, "-m", "AP", "--test", test,
                           "--permutations", "200", "--format", "tsv"))
    np.testing.assert_array_equal(rows["p_adjusted"], rows["p"])
    assert (rows["family"] == "AP: all pairs").all()
    proc = irpref_cli("significance", QRELS, *RUNS, "-m", "AP", "--test", test,
                      "--correction", "holm")
    assert proc.returncode == 2 and "family-wise" in proc.stderr
    none = irpref_cli("significance", QRELS, *RUNS, "-m", "AP", "--test", test,
                      "--correction", "none", "--permutations", "200")
    assert none.returncode == 0, none.stderr


@pytest.mark.slow
def test_t_rows_keep_holm_by_default():
    rows = _tsv(irpref_cli("significance", QRELS, *RUNS, "-m", "AP", "--format", "tsv"))
    from irpref.stats import adjust_pvalues

    np.testing.assert_allclose(rows["p_adjusted"], adjust_pvalues(rows["p"].to_numpy(), "holm"))


def _rank_biserial_brute(d: np.ndarray) -> float:
    """pingouin's definition: ranks of |d| without zeros, r+ / sum - r- / sum."""
    d = d[~np.isnan(d) & (d != 0)]
    if not len(d):
        return 0.0
    r = sps.rankdata(np.abs(d))
    plus, minus = r[d > 0].sum(), r[d < 0].sum()
    return plus / (plus + minus) - minus / (plus + minus)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, np.nan]),
                min_size=1, max_size=30))
def test_rank_biserial_brute_force(values):
    d = np.array(values)
    got = rank_biserial(d[None, :])[0]
    if np.isnan(d).all():
        assert np.isnan(got)
    else:
        assert got == pytest.approx(_rank_biserial_brute(d), abs=1e-12)


def test_rank_biserial_from_scipy_w_plus():
    """Kerby's identity r = 4 W+ / (n (n + 1)) - 1 with SciPy's W+ (no zeros or ties)."""
    rng = np.random.default_rng(1)
    d = rng.normal(0.2, 1, (50, 23))
    got = rank_biserial(d)
    for row, r in zip(d, got):
        w_plus = sps.wilcoxon(row, alternative="greater").statistic
        n = len(row)
        assert r == pytest.approx(4 * w_plus / (n * (n + 1)) - 1, abs=1e-12)


def test_wilcoxon_rows_name_their_effect(results):
    rows = significance(results, ["t", "wilcoxon", "sign"], ci="none")
    kinds = dict(zip(rows["test"], rows["effect_kind"]))
    assert kinds == {"t": "d_z", "wilcoxon": "rank_biserial", "sign": "win_share"}
    w = rows[rows["test"] == "wilcoxon"]
    assert w["effect_low"].isna().all() and w["effect_high"].isna().all()
    assert ((w["effect"] >= -1) & (w["effect"] <= 1)).all()
    pw = Pairwise.from_metric(results, "AP")
    a, b = pw.pairs
    expected = rank_biserial(pw.pair_values(a, b))
    np.testing.assert_allclose(w[w["measure"] == "AP"]["effect"], expected)
    t = rows[rows["test"] == "t"]
    assert (t["effect_low"] <= t["effect"]).all()


def test_blocks_give_the_same_table(results, monkeypatch):
    whole = significance(results, ["t", "sign", "wilcoxon"], ci="bootstrap", bootstrap=50)
    monkeypatch.setattr(table_module, "PAIR_BLOCK", 4)
    blocked = significance(results, ["t", "sign", "wilcoxon"], ci="bootstrap", bootstrap=50)
    pd.testing.assert_frame_equal(whole, blocked, check_exact=True)


def test_bootstrap_default_is_documented():
    assert DEFAULT_BOOTSTRAP == 2000
    proc = irpref_cli("significance", "--help")
    assert f"default {DEFAULT_BOOTSTRAP}" in proc.stdout and "Efron" in proc.stdout
