"""The noncentral t inverted in its noncentrality (irpref.stats.noncentral).

Both paths (the C kernels and the NumPy path over SciPy) against SciPy's own
root of ``stats.nct.cdf`` (brentq, to 1e-15) over many (t, df, level),
extreme t and small df included, to 1e-8 relative; the two paths against each
other to 1e-10; the CDF and its derivative against SciPy and finite
differences; far in t (where SciPy's CDF is NaN) against the chi-square limit
delta -> t sqrt(chi2_{df, 1 - level} / df).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import optimize, stats

from irpref.stats import noncentral
from irpref.stats.intervals import smd_interval

PATHS = ["c", "numpy"]


@pytest.fixture(params=PATHS)
def path(request, monkeypatch):
    if request.param == "c":
        pytest.importorskip("irpref._native.kernels")
        monkeypatch.setenv("IRPREF_KERNELS", "c")
    else:
        monkeypatch.setenv("IRPREF_KERNELS", "numpy")
    return request.param


def _cases(seed: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    df = rng.choice([1, 2, 3, 5, 10, 49, 100, 999], m).astype(float)
    t = np.concatenate([rng.normal(0, 4, m // 2), rng.normal(0, 60, m // 4),
                        rng.normal(0, 3000, m - m // 2 - m // 4)])
    return t, df


def _scipy_root(t: float, df: float, level: float, guess: float) -> float | None:
    """SciPy's root near ``guess`` (None where SciPy's CDF is NaN or does not bracket it)."""
    f = lambda d: stats.nct.cdf(t, df, d) - level  # noqa: E731
    w = 1e-6 * (1 + abs(guess))
    a, b = f(guess - w), f(guess + w)
    if np.isnan(a) or np.isnan(b) or a * b > 0:
        return None
    return optimize.brentq(f, guess - w, guess + w, xtol=1e-15, rtol=1e-15)


@pytest.mark.parametrize("level", [0.975, 0.025, 0.995, 0.0005, 0.5])
def test_roots_match_scipy(path, level):
    t, df = _cases(1, 120)
    root = noncentral.noncentrality(t, df, level)
    checked = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ti, di, ri in zip(t, df, root):
            ref = _scipy_root(ti, di, level, ri)
            if ref is None:
                continue
            checked += 1
            assert abs(ri - ref) <= 1e-8 * (1 + abs(ref)), (ti, di, level, ri, ref)
    assert checked > 100


def test_paths_agree(monkeypatch):
    pytest.importorskip("irpref._native.kernels")
    rng = np.random.default_rng(2)
    t = np.concatenate([rng.normal(0, 5, 300), rng.normal(0, 1e4, 50), [1e8, -3e12, 0.0]])
    df = rng.choice([1, 2, 5, 49, 999], len(t)).astype(float)
    for level in (0.975, 0.025):
        monkeypatch.setenv("IRPREF_KERNELS", "c")
        a = noncentral.noncentrality(t, df, level)
        monkeypatch.setenv("IRPREF_KERNELS", "numpy")
        b = noncentral.noncentrality(t, df, level)
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)


def test_cdf_and_slope(path):
    """The C slope is exact (the NumPy path: a central difference of SciPy's CDF)."""
    rng = np.random.default_rng(3)
    t = rng.normal(0, 8, 400)
    df = rng.choice([1, 2, 3, 10, 49, 500], 400).astype(float)
    delta = t + rng.normal(0, 3, 400)
    f, slope = noncentral.cdf(t, df, delta)
    np.testing.assert_allclose(f, stats.nct.cdf(t, df, delta), atol=1e-12)
    h = 1e-5 * (1 + np.abs(delta))
    up, _ = noncentral.cdf(t, df, delta + h)
    down, _ = noncentral.cdf(t, df, delta - h)
    np.testing.assert_allclose(slope, (up - down) / (2 * h), atol=1e-6 if path == "numpy" else 1e-7)


def test_mixture_equals_series_where_both_hold(path):
    """Far in t the Gauss-Hermite mixture and the series give the same CDF."""
    rng = np.random.default_rng(4)
    t = rng.choice([-1, 1], 200) * rng.uniform(300, 2000, 200)
    df = rng.choice([1, 5, 49, 100], 200).astype(float)
    delta = t * np.sqrt(stats.chi2.ppf(rng.uniform(0.01, 0.99, 200), df) / df)
    keep = np.abs(delta) > 40
    f1, d1 = noncentral.cdf(t[keep], df[keep], delta[keep], "series")
    f2, d2 = noncentral.cdf(t[keep], df[keep], delta[keep], "mixture")
    np.testing.assert_allclose(f1, f2, atol=1e-10)
    np.testing.assert_allclose(d1, d2, atol=1e-10, rtol=1e-8)


@pytest.mark.parametrize("t", [1e6, -1e9, 3e14])
def test_far_t_reaches_the_chi_square_limit(path, t):
    """Where SciPy's CDF is NaN: delta / t -> sqrt(chi2 quantile / df) (error O(df / t^2))."""
    for df in (1.0, 5.0, 49.0):
        for level in (0.975, 0.025):
            root = noncentral.noncentrality(np.array([t]), np.array([df]), level)[0]
            q = stats.chi2.ppf(1 - level if t > 0 else level, df)
            np.testing.assert_allclose(root / t, np.sqrt(q / df), rtol=1e-6)


def test_smd_interval_nan_and_edges(path):
    low, high = smd_interval(np.array([np.inf, np.nan, 2.0, 2.0]), np.array([10, 10, 1, 10]))
    assert np.isnan(low[:3]).all() and np.isnan(high[:3]).all()
    assert low[3] < 2.0 / np.sqrt(10) < high[3]
    # t = 0: symmetric interval
    low, high = smd_interval(np.array([0.0]), np.array([20]))
    np.testing.assert_allclose(low, -high, atol=1e-12)
