"""PPI / PPI++ mean estimation (irpref.stats.ppi) against the reference implementation
ppi_py (package ppi-python 0.2.3), row by row, and its design formula against
simulation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irpref.errors import UsageError
from irpref.stats.ppi import (
    check_lambda,
    half_width,
    pilot_moments,
    ppi_mean,
    queries_needed,
    tuned_lambda,
)

ppi_py = pytest.importorskip("ppi_py")


def _scalar(x) -> float:
    return float(np.ravel(x)[0])


def _sample(rng, n: int, big_n: int, scale: float, noise: float, flip: bool):
    y = rng.normal(size=n)
    yhat = scale * y + noise * rng.normal(size=n)
    yu = scale * rng.normal(size=big_n) + noise * rng.normal(size=big_n)
    return y, (-yhat if flip else yhat), (-yu if flip else yu)


def _reference(y, yhat, yu, lam, confidence):
    kw = {} if lam == "auto" else {"lam": lam}
    est = _scalar(ppi_py.ppi_mean_pointestimate(y, yhat, yu, **kw))
    low, high = ppi_py.ppi_mean_ci(y, yhat, yu, alpha=1 - confidence, **kw)
    return est, _scalar(low), _scalar(high)


@pytest.mark.parametrize("lam", ["auto", 1.0, 0.0, 0.4])
def test_estimate_and_interval_equal_ppi_py(lam):
    rng = np.random.default_rng(11)
    for trial in range(200):
        n, big_n = int(rng.integers(2, 40)), int(rng.integers(1, 300))
        y, yhat, yu = _sample(rng, n, big_n, rng.uniform(0.05, 4), rng.uniform(0, 2),
                              trial % 4 == 0)
        confidence = float(rng.choice([0.8, 0.9, 0.95, 0.99]))
        got = ppi_mean(y, yhat, yu, lam=lam, confidence=confidence)
        want = _reference(y, yhat, yu, lam, confidence)
        assert got.estimate[0] == pytest.approx(want[0], abs=1e-9)
        assert got.low[0] == pytest.approx(want[1], abs=1e-9)
        assert got.high[0] == pytest.approx(want[2], abs=1e-9)
        assert (got.n[0], got.n_unlabeled[0]) == (n, big_n)


def test_p_value_equals_ppi_py_and_agrees_with_the_interval():
    """ppi_py's p-value tunes lambda without the clip to [0, 1] its interval applies;
    irpref uses the clipped weight for all three: its p equals ppi_py's whenever the
    unclipped weight is in [0, 1], and ppi_py's at the weight used always, so p < 0.05
    exactly when the 95% interval excludes the null."""
    rng = np.random.default_rng(5)
    outside = 0
    for trial in range(300):
        n, big_n = int(rng.integers(2, 40)), int(rng.integers(1, 300))
        y, yhat, yu = _sample(rng, n, big_n, rng.uniform(0.05, 4), rng.uniform(0, 2),
                              trial % 5 == 0)
        null = float(rng.normal(scale=0.3))
        got = ppi_mean(y, yhat, yu, null=null)
        raw = tuned_lambda(y, yhat, yu, clip=False)[0]
        at_used = _scalar(ppi_py.ppi_mean_pval(y, yhat, yu, null=null, lam=got.lam[0]))
        assert got.p[0] == pytest.approx(at_used, abs=1e-9)
        if 0 <= raw <= 1:
            assert got.p[0] == pytest.approx(_scalar(ppi_py.ppi_mean_pval(y, yhat, yu,
                                                                          null=null)), abs=1e-9)
        else:
            outside += 1
        excludes = (got.low[0] > null) or (got.high[0] < null)
        assert excludes == (got.p[0] < 0.05) or abs(got.p[0] - 0.05) < 1e-12
    assert outside > 20  # the case that differs from ppi_py is exercised


def test_tuned_lambda_is_ppi_pp_weight():
    rng = np.random.default_rng(3)
    y, yhat, yu = _sample(rng, 30, 100, 0.3, 0.2, False)
    n, big_n = 30, 100
    cov = np.mean((y - y.mean()) * (yhat - yhat.mean()))
    var = np.var(np.concatenate([yhat, yu]), ddof=1)
    assert tuned_lambda(y, yhat, yu, clip=False)[0] == pytest.approx(
        cov / ((1 + n / big_n) * var), rel=1e-12)
    assert tuned_lambda(y, yhat, yu)[0] == 1.0  # clipped: the predictions are compressed
    # predictions all equal: the weight changes nothing and is 0
    assert tuned_lambda(y, np.ones(30), np.ones(100))[0] == 0.0
    same = ppi_mean(y, np.ones(30), np.ones(100))
    assert same.estimate[0] == pytest.approx(y.mean())


def test_rows_at_once_equal_rows_one_by_one_with_missing_units():
    rng = np.random.default_rng(8)
    rows, q = 50, 40
    truth = rng.normal(size=(rows, q))
    pred = 0.7 * truth + 0.5 * rng.normal(size=(rows, q))
    labelled = rng.random((rows, q)) < 0.4
    y = np.where(labelled, truth, np.nan)
    yhat = np.where(labelled, pred, np.nan)
    yu = np.where(labelled, np.nan, pred)
    yhat[rng.random((rows, q)) < 0.05] = np.nan  # a prediction missing on a labelled unit
    yu[rng.random((rows, q)) < 0.05] = np.nan
    both = ppi_mean(y, yhat, yu, confidence=0.9)
    for r in range(rows):
        keep = ~np.isnan(y[r]) & ~np.isnan(yhat[r])
        one = ppi_mean(y[r][keep], yhat[r][keep], yu[r][~np.isnan(yu[r])], confidence=0.9)
        for field in ("estimate", "low", "high", "p", "lam"):
            assert getattr(both, field)[r] == pytest.approx(getattr(one, field)[0], abs=1e-12)
        want = _reference(y[r][keep], yhat[r][keep], yu[r][~np.isnan(yu[r])], "auto", 0.9)
        assert both.low[r] == pytest.approx(want[1], abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 25), st.integers(1, 60), st.floats(-3, 3), st.integers(0, 2**31))
def test_lambda_one_and_zero_are_ppi_and_the_human_mean(n, big_n, shift, seed):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    yhat = y + shift + rng.normal(size=n) * 0.3
    yu = rng.normal(size=big_n) + shift
    one = ppi_mean(y, yhat, yu, lam=1)
    assert one.estimate[0] == pytest.approx(yu.mean() + (y - yhat).mean(), abs=1e-12)
    zero = ppi_mean(y, yhat, yu, lam=0)
    assert zero.estimate[0] == pytest.approx(y.mean(), abs=1e-12)
    assert zero.high[0] - zero.low[0] == pytest.approx(
        2 * 1.959963984540054 * y.std() / np.sqrt(n), rel=1e-9)


def test_too_few_units_give_nan():
    got = ppi_mean([1.0], [1.0], [0.5, 0.7])
    assert np.isnan(got.estimate[0]) and got.n[0] == 1
    got = ppi_mean([1.0, 2.0], [1.0, 2.5], [np.nan])
    assert np.isnan(got.low[0]) and got.n_unlabeled[0] == 0


def test_check_lambda():
    assert check_lambda("auto") == "auto"
    assert check_lambda("0.25") == 0.25 and check_lambda(1) == 1.0
    for bad in ("nan", "inf", "x", "", None):
        with pytest.raises(UsageError, match="auto or a finite number"):
            check_lambda(bad)


# ----------------------------------------------------------------------------- design

def test_design_closed_form_equals_the_search():
    """n = z^2 s^2 (1 - rho^2) / (h^2 - z^2 s^2 rho^2 / T) when the weight is not clipped."""
    z = 1.959963984540054
    rng = np.random.default_rng(2)
    for _ in range(200):
        total = int(rng.integers(50, 2000))
        var_y, var_f = rng.uniform(0.01, 0.2), rng.uniform(0.01, 0.2)
        rho = rng.uniform(0, 0.95)
        cov = rho * np.sqrt(var_y * var_f)
        if cov / var_f > 1:  # the optimum would be clipped: not the closed form
            continue
        h = rng.uniform(0.01, 0.08)
        denom = h * h - z * z * var_y * rho * rho / total
        got = queries_needed(h, total, var_y, var_f, cov)[0]
        if denom <= 0:
            assert np.isnan(got)
            continue
        closed = z * z * var_y * (1 - rho * rho) / denom
        if not 2 <= closed < total - 1:
            continue
        assert got == max(2, int(np.ceil(closed - 1e-9)))
        assert half_width(got, total, var_y, var_f, cov)[()] <= h + 1e-12
        assert got == 2 or half_width(got - 1, total, var_y, var_f, cov)[()] > h


def test_design_half_width_matches_simulation():
    """The planned n gives, in simulation, intervals whose mean half-width is the target."""
    rng = np.random.default_rng(17)
    var_y, var_f, rho, total, target = 0.06, 0.03, 0.8, 400, 0.04
    cov = rho * np.sqrt(var_y * var_f)
    n = int(queries_needed(target, total, var_y, var_f, cov)[0])
    human_only = int(np.ceil(1.959963984540054**2 * var_y / target**2))
    assert n < human_only
    sims = 4000
    a = rng.normal(size=(sims, total))
    b = rho * a + np.sqrt(1 - rho * rho) * rng.normal(size=(sims, total))
    y, f = np.sqrt(var_y) * a, np.sqrt(var_f) * b + 0.3
    mask = np.zeros((sims, total), bool)
    mask[:, :n] = True  # the first n units are a random sample of iid units
    got = ppi_mean(np.where(mask, y, np.nan), np.where(mask, f, np.nan),
                   np.where(mask, np.nan, f))
    mean_half = np.mean((got.high - got.low) / 2)
    assert mean_half == pytest.approx(target, rel=0.03)
    fewer = ppi_mean(y[:, : n - 5], f[:, : n - 5], f[:, n - 5:])
    assert np.mean((fewer.high - fewer.low) / 2) > target
    coverage = np.mean((got.low <= 0) & (got.high >= 0))
    assert coverage == pytest.approx(0.95, abs=0.015)


def test_pilot_moments():
    rng = np.random.default_rng(4)
    y, yhat, yu = _sample(rng, 20, 50, 0.8, 0.3, False)
    n, big_n, var_y, var_f, cov = pilot_moments(y, yhat, yu)
    assert (n[0], big_n[0]) == (20, 50)
    assert var_y[0] == pytest.approx(np.var(y, ddof=1))
    assert cov[0] == pytest.approx(np.cov(y, yhat)[0, 1])
    assert var_f[0] == pytest.approx(np.var(np.concatenate([yhat, yu]), ddof=1))
