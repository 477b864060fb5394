"""PPI / PPI++ mean estimation (irpref.llm_judged.ppi): ppi_py's normal interval against the
reference implementation ppi_py (package ppi-python 0.2.3), row by row; the default
small-sample interval (cross-fitted weight, Student t, Hall's skewness correction,
the range bound of all-equal samples) against brute force and against ppi_py at the
same settings; the design formulas against simulation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from irpref.errors import UsageError
from irpref.llm_judged.ppi import (
    HALL_LIMIT,
    check_interval,
    check_lambda,
    equal_value_bound,
    half_width,
    human_queries_needed,
    loo_lambda,
    pilot_moments,
    plan_queries,
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


# ------------------------------------------------------------ ppi_py's normal interval

@pytest.mark.parametrize("lam", ["auto", 1.0, 0.0, 0.4])
def test_normal_interval_equals_ppi_py(lam):
    rng = np.random.default_rng(11)
    for trial in range(200):
        n, big_n = int(rng.integers(2, 40)), int(rng.integers(1, 300))
        y, yhat, yu = _sample(rng, n, big_n, rng.uniform(0.05, 4), rng.uniform(0, 2),
                              trial % 4 == 0)
        confidence = float(rng.choice([0.8, 0.9, 0.95, 0.99]))
        got = ppi_mean(y, yhat, yu, lam=lam, confidence=confidence, interval="normal")
        want = _reference(y, yhat, yu, lam, confidence)
        assert got.estimate[0] == pytest.approx(want[0], abs=1e-9)
        assert got.low[0] == pytest.approx(want[1], abs=1e-9)
        assert got.high[0] == pytest.approx(want[2], abs=1e-9)
        assert (got.n[0], got.n_unlabeled[0]) == (n, big_n)


def test_normal_p_value_equals_ppi_py_and_agrees_with_the_interval():
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
        got = ppi_mean(y, yhat, yu, null=null, interval="normal")
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


# ------------------------------------------------------- the default: small-sample t

# A pinned example (10 labelled and 20 unlabelled units, AP-like values): ppi_py and
# irpref at the same settings (PPI++, 95%). irpref's default interval differs by
# design: the jackknife variance with the weight re-tuned without each unit, t with 9
# degrees of freedom, Hall's correction.
PINNED_Y = np.array([0.0951, 0.5833, 0.2167, 0.8711, 0.1026, 0.4413, 0.0123, 0.6802, 0.3311,
                     0.2284])
PINNED_F = np.array([0.0402, 0.3651, 0.0891, 0.6122, 0.0301, 0.2995, 0.0, 0.4419, 0.1906, 0.1027])
PINNED_U = np.array([0.1505, 0.0114, 0.4301, 0.2219, 0.0882, 0.3037, 0.0599, 0.5146, 0.1201,
                     0.0, 0.2671, 0.0408, 0.3594, 0.1875, 0.0763, 0.4011, 0.0255, 0.2099, 0.1432,
                     0.3309])


def test_default_differs_from_ppi_py_at_the_same_settings():
    want = _reference(PINNED_Y, PINNED_F, PINNED_U, "auto", 0.95)
    normal = ppi_mean(PINNED_Y, PINNED_F, PINNED_U, interval="normal")
    assert (normal.estimate[0], normal.low[0], normal.high[0]) == pytest.approx(want, abs=1e-12)
    default = ppi_mean(PINNED_Y, PINNED_F, PINNED_U)
    # ppi_py: 0.3362 [0.2557, 0.4167]; irpref: the same estimate, a wider interval (the
    # weight's own noise, t with 9 degrees of freedom), longer above (skewed errors)
    assert want == pytest.approx((0.336175, 0.255657, 0.416693), abs=5e-6)
    assert (default.estimate[0], default.low[0], default.high[0]) == pytest.approx(
        (0.336175, 0.237094, 0.451671), abs=5e-6)
    assert default.high[0] - default.low[0] > 1.2 * (want[2] - want[1])
    assert default.df[0] == 9 and np.isinf(normal.df[0])


def _loo_brute(y, yhat, yu):
    """PPI++'s weight of the sample without each labelled unit, one by one."""
    keep = ~np.eye(len(y), dtype=bool)
    return np.array([_ppi_pp_weight(y[k], yhat[k], yu, yhat) for k in keep])


def _ppi_pp_weight(y, yhat, yu, every_labelled):
    """clip(cov(y, yhat) / ((1 + n / N) var1(every prediction)), 0, 1), population cov
    (n = len(y); every prediction: ``every_labelled`` and ``yu``)."""
    var_f = np.var(np.r_[every_labelled, yu], ddof=1)
    cov = np.mean((y - y.mean()) * (yhat - yhat.mean()))
    raw = cov / ((1 + len(y) / len(yu)) * var_f) if var_f > 0 else 0.0
    return min(max(raw, 0.0), 1.0)


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 30), st.integers(1, 60), st.integers(0, 2**31))
def test_loo_lambda_is_the_weight_without_each_unit(n, big_n, seed):
    rng = np.random.default_rng(seed)
    y, yhat, yu = _sample(rng, n, big_n, rng.uniform(0.1, 2), rng.uniform(0, 1), seed % 3 == 0)
    got = loo_lambda(y, yhat, yu)[0]
    assert got == pytest.approx(_loo_brute(y, yhat, yu), abs=1e-10)


def test_loo_lambda_with_absent_units_and_too_few():
    rng = np.random.default_rng(2)
    y, yhat, yu = _sample(rng, 12, 30, 0.8, 0.4, False)
    y_gaps = y.copy()
    y_gaps[[2, 7]] = np.nan
    got = loo_lambda(y_gaps, yhat, yu)[0]
    keep = ~np.isnan(y_gaps)
    assert np.isnan(got[~keep]).all()
    assert got[keep] == pytest.approx(_loo_brute(y[keep], yhat[keep], yu), abs=1e-10)
    assert np.isnan(loo_lambda(y[:2], yhat[:2], yu)).all()  # 2 units: too few


def test_auto_interval_is_the_jackknife_with_the_weight_retuned():
    """lam auto: the estimate is ppi_py's; se^2 is the jackknife variance over the
    labelled units (the weight re-tuned without each, brute force) plus
    lambda^2 var1(predictions) / N."""
    rng = np.random.default_rng(21)
    for _ in range(20):
        n, big_n = int(rng.integers(3, 25)), int(rng.integers(1, 60))
        y, yhat, yu = _sample(rng, n, big_n, rng.uniform(0.1, 2), rng.uniform(0, 1), False)
        got = ppi_mean(y, yhat, yu)
        assert got.estimate[0] == pytest.approx(_reference(y, yhat, yu, "auto", 0.95)[0],
                                                abs=1e-12)
        theta = []
        for i in range(n):
            keep = np.arange(n) != i
            lam_i = _ppi_pp_weight(y[keep], yhat[keep], yu, yhat)
            theta.append(y[keep].mean() - lam_i * (yhat[keep].mean() - yu.mean()))
        theta = np.array(theta)
        jack = (n - 1) / n * np.sum((theta - theta.mean()) ** 2)
        lam = got.lam[0]
        se = np.sqrt(jack + lam**2 * np.var(np.r_[yhat, yu], ddof=1) / big_n)
        assert got.se[0] == pytest.approx(se, rel=1e-9)


def _hall_brute(e, w_bar, f_all, big_n, confidence):
    """The set {mu : |g((theta - mu) / se)| <= q} by root finding on g."""
    n = len(e)
    se = np.sqrt(np.var(e, ddof=1) / n + w_bar**2 * np.var(f_all, ddof=1) / big_n)
    m3 = (np.mean((e - e.mean()) ** 3) / n**2
          + w_bar**3 * np.mean((f_all - f_all.mean()) ** 3) / big_n**2)
    q = stats.t.ppf(0.5 + confidence / 2, n - 1)
    b = np.clip(m3 / se**3, -HALL_LIMIT / q, HALL_LIMIT / q)

    def g(t):
        return t + b * t * t / 3 + b * b * t**3 / 27 + b / 6

    hi_t = optimize.brentq(lambda t: g(t) - q, -1e3, 1e3, xtol=1e-14)
    lo_t = optimize.brentq(lambda t: g(t) + q, -1e3, 1e3, xtol=1e-14)
    return se, hi_t, lo_t


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 25), st.integers(1, 50), st.sampled_from([0.0, 1.0, 0.3]),
       st.sampled_from([0.8, 0.9, 0.95]), st.integers(0, 2**31))
def test_t_interval_inverts_halls_transformation(n, big_n, lam, confidence, seed):
    """Fixed weight: the interval is theta - t_hi se .. theta - t_lo se, t_hi and t_lo the
    roots of g(t) = +-q (brute force; b held to |b| q <= 1/2), and p < 1 - confidence
    exactly when it excludes the null."""
    rng = np.random.default_rng(seed)
    y = rng.exponential(size=n) * rng.uniform(0.2, 2)  # skewed per-query values
    yhat = 0.6 * y + 0.3 * rng.normal(size=n)
    yu = rng.exponential(size=big_n)
    got = ppi_mean(y, yhat, yu, lam=lam, confidence=confidence, null=1.0)
    e = y - lam * yhat
    theta = e.mean() + lam * yu.mean()
    se, hi_t, lo_t = _hall_brute(e, lam, np.r_[yhat, yu], big_n, confidence)
    assert got.estimate[0] == pytest.approx(theta, abs=1e-12)
    assert got.se[0] == pytest.approx(se, rel=1e-9)
    assert got.low[0] == pytest.approx(theta - hi_t * se, abs=1e-8)
    assert got.high[0] == pytest.approx(theta - lo_t * se, abs=1e-8)
    excludes = (got.low[0] > 1.0) or (got.high[0] < 1.0)
    assert excludes == (got.p[0] < 1 - confidence) or abs(got.p[0] - (1 - confidence)) < 1e-9


def test_hall_limit_keeps_a_9_of_10_sign_preference_significant():
    """Wins on 9 of 10 human-judged queries (values 1 x 9, -1): the sign test's p is
    0.021; with Hall's correction held to |b| q <= 1/2 the p-value is 0.018, above
    10 of 10's (0.002, the range bound) and far from the unlimited correction's 0.24."""
    rng = np.random.default_rng(0)
    f, fu = rng.random(10) * 0.01, rng.random(30) * 0.01
    nine = ppi_mean(np.r_[np.ones(9), -1.0], f, fu, value_range=(-1, 1))
    ten = ppi_mean(np.ones(10), f, fu, value_range=(-1, 1))
    assert nine.p[0] == pytest.approx(0.0176, abs=5e-4) and nine.low[0] > 0
    assert ten.p[0] == pytest.approx(2 * 0.5**10) and ten.p[0] < nine.p[0]


def test_symmetric_errors_give_the_plain_t_interval():
    """No skewness (errors symmetric about their mean, lambda 0): Hall's g is the
    identity and the interval is Student's t with n - 1 degrees of freedom."""
    y = np.array([0.2, 0.8, 0.35, 0.65, 0.5, 0.1, 0.9])
    got = ppi_mean(y, np.zeros(7), np.zeros(5), lam=0)
    half = stats.t.ppf(0.975, 6) * y.std(ddof=1) / np.sqrt(7)
    assert (got.low[0], got.high[0]) == pytest.approx((0.5 - half, 0.5 + half), abs=1e-12)


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
    for interval in ("t", "normal"):
        both = ppi_mean(y, yhat, yu, confidence=0.9, interval=interval)
        for r in range(rows):
            keep = ~np.isnan(y[r]) & ~np.isnan(yhat[r])
            one = ppi_mean(y[r][keep], yhat[r][keep], yu[r][~np.isnan(yu[r])],
                           confidence=0.9, interval=interval)
            for field in ("estimate", "low", "high", "p", "lam", "statistic"):
                assert getattr(both, field)[r] == pytest.approx(getattr(one, field)[0],
                                                                abs=1e-12), (interval, field)
            if interval == "normal":
                want = _reference(y[r][keep], yhat[r][keep], yu[r][~np.isnan(yu[r])],
                                  "auto", 0.9)
                assert both.low[r] == pytest.approx(want[1], abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 25), st.integers(1, 60), st.floats(-3, 3), st.integers(0, 2**31))
def test_lambda_one_and_zero_are_ppi_and_the_human_mean(n, big_n, shift, seed):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    yhat = y + shift + rng.normal(size=n) * 0.3
    yu = rng.normal(size=big_n) + shift
    for interval in ("t", "normal"):
        one = ppi_mean(y, yhat, yu, lam=1, interval=interval)
        assert one.estimate[0] == pytest.approx(yu.mean() + (y - yhat).mean(), abs=1e-12)
        zero = ppi_mean(y, yhat, yu, lam=0, interval=interval)
        assert zero.estimate[0] == pytest.approx(y.mean(), abs=1e-12)
    normal = ppi_mean(y, yhat, yu, lam=0, interval="normal")
    assert normal.high[0] - normal.low[0] == pytest.approx(
        2 * 1.959963984540054 * y.std() / np.sqrt(n), rel=1e-9)


# ---------------------------------------------------------------- degenerate samples

@pytest.mark.parametrize("interval", ["t", "normal"])
def test_all_equal_human_values_get_the_range_bound_not_width_zero(interval):
    """Ten human values all 1 (RR on easy queries): the tuned weight is 0 and a t or
    normal interval would be [1, 1]; the bound is [1 - q, 1], q = 1 - 0.025^(1/10), the
    Clopper-Pearson bound on the share of queries that differ."""
    rng = np.random.default_rng(4)
    got = ppi_mean(np.ones(10), rng.random(10), rng.random(30), value_range=(0, 1),
                   interval=interval)
    q = 1 - 0.025 ** 0.1
    assert got.bounded[0] and got.lam[0] == 0 and got.estimate[0] == 1
    assert (got.low[0], got.high[0]) == pytest.approx((1 - q, 1.0), abs=1e-12)
    assert np.isnan(got.statistic[0])
    # its p-value agrees with it: 0.6915 is the 95% bound's low end, 0.65 outside
    for null, inside in ((1 - q + 1e-9, True), (1 - q - 1e-9, False), (0.65, False),
                         (1.0, True)):
        p = ppi_mean(np.ones(10), rng.random(10), rng.random(30), value_range=(0, 1),
                     null=null, interval=interval).p[0]
        assert (p >= 0.05) == inside, (null, p)
    # a difference: every human-judged difference 0, range [-1, 1]
    zero = ppi_mean(np.zeros(10), rng.random(10), rng.random(30), value_range=(-1, 1),
                    interval=interval)
    assert (zero.low[0], zero.high[0], zero.p[0]) == pytest.approx((-q, q, 1.0), abs=1e-12)
    # a fixed weight 1: the machine's errors vary, an ordinary interval
    fixed = ppi_mean(np.ones(10), rng.random(10), rng.random(30), lam=1, value_range=(0, 1),
                     interval=interval)
    assert not fixed.bounded[0] and fixed.high[0] - fixed.low[0] > 0.1


def test_equal_value_bound_and_unbounded_ranges():
    same, low, high = equal_value_bound([[2.0, 2.0, np.nan, 2.0], [1.0, 2.0, 3.0, 4.0]],
                                        0.9, (0.0, np.inf))
    q = 1 - 0.05 ** (1 / 3)
    assert list(same) == [True, False]
    assert low[0] == pytest.approx(2 - 2 * q) and np.isinf(high[0])
    assert np.isnan(low[1]) and np.isnan(high[1])


def test_one_unlabelled_unit_is_not_variance_zero_under_t():
    """With 1 unlabelled unit, ppi_py's unlabelled variance is 0 by construction; the
    t interval estimates it from every prediction."""
    rng = np.random.default_rng(6)
    y, yhat, _ = _sample(rng, 12, 1, 0.9, 0.3, False)
    yu = np.array([0.4])
    normal = ppi_mean(y, yhat, yu, lam=1, interval="normal")
    t = ppi_mean(y, yhat, yu, lam=1)
    spread = np.sqrt(np.var(y - yhat, ddof=1) / 12 + np.var(np.r_[yhat, yu], ddof=1) / 1)
    assert t.se[0] == pytest.approx(spread, rel=1e-12)
    assert normal.se[0] == pytest.approx(np.sqrt(np.var(y - yhat) / 12), rel=1e-12)


def test_too_few_units_give_nan():
    got = ppi_mean([1.0], [1.0], [0.5, 0.7], interval="normal")
    assert np.isnan(got.estimate[0]) and got.n[0] == 1
    got = ppi_mean([1.0, 2.0], [1.0, 2.5], [np.nan], interval="normal")
    assert np.isnan(got.low[0]) and got.n_unlabeled[0] == 0
    got = ppi_mean([1.0, 2.0], [1.0, 2.5], [0.3, 0.2])  # t: 3 needed
    assert np.isnan(got.low[0]) and got.n[0] == 2


def test_check_lambda_and_interval():
    assert check_lambda("auto") == "auto"
    assert check_lambda("0.25") == 0.25 and check_lambda(1) == 1.0
    for bad in ("nan", "inf", "x", "", None):
        with pytest.raises(UsageError, match="auto or a finite number"):
            check_lambda(bad)
    assert check_interval("t") == "t" and check_interval("normal") == "normal"
    with pytest.raises(UsageError, match="--ppi-interval z: must be one of t, normal"):
        check_interval("z")


# ----------------------------------------------------------------------------- design

def test_design_closed_form_equals_the_search():
    """n = z^2 s^2 (1 - rho^2) / (h^2 - z^2 s^2 rho^2 / T) when the weight is not clipped
    (the normal interval's z)."""
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
        got = queries_needed(h, total, var_y, var_f, cov, interval="normal")[0]
        if denom <= 0:
            assert np.isnan(got)
            continue
        closed = z * z * var_y * (1 - rho * rho) / denom
        if not 2 <= closed < total - 1:
            continue
        assert got == max(2, int(np.ceil(closed - 1e-9)))
        width = half_width(got, total, var_y, var_f, cov, interval="normal")[()]
        assert width <= h + 1e-12
        assert got == 2 or half_width(got - 1, total, var_y, var_f, cov,
                                      interval="normal")[()] > h


def test_design_t_search_is_the_first_n_that_reaches_the_target():
    rng = np.random.default_rng(9)
    for _ in range(100):
        total = int(rng.integers(20, 300))
        var_y, var_f = rng.uniform(0.01, 0.2), rng.uniform(0.01, 0.2)
        cov = rng.uniform(0, 0.9) * np.sqrt(var_y * var_f)
        h = rng.uniform(0.02, 0.15)
        got = queries_needed(h, total, var_y, var_f, cov)[0]
        reach = []
        for n in range(3, total):
            lam = min(max(cov / ((1 + n / (total - n)) * var_f), 0), 1)
            var = (var_y - 2 * lam * cov + lam * lam * var_f) / n + lam * lam * var_f / (total - n)
            if stats.t.ppf(0.975, n - 1) * np.sqrt(var) <= h:
                reach.append(n)
                break
        assert (got if not np.isnan(got) else None) == (reach[0] if reach else None)


def test_human_queries_needed_with_t_is_the_first_n():
    for var_y, h in ((0.05, 0.05), (0.1, 0.2), (0.02, 0.01), (0.3, 0.6)):
        n = int(human_queries_needed(h, var_y)[()])
        def t(k, var_y=var_y):
            return stats.t.ppf(0.975, k - 1) * np.sqrt(var_y / k)

        assert t(n) <= h and (n == 2 or t(n - 1) > h)
        assert n >= human_queries_needed(h, var_y, interval="normal")[()]


def test_plan_interval_brackets_the_plan_and_narrows_with_the_pilot():
    """n_ppi_low <= n_ppi <= n_ppi_high, from the chi-square interval of the pilot's
    variance: a pilot of 40 plans much more tightly than one of 5."""
    rng = np.random.default_rng(12)
    spans = []
    for pilot in (5, 40):
        y, yhat, yu = _sample(rng, pilot, 400 - pilot, 0.8, 0.5, False)
        plan = plan_queries(0.3 * y, 0.3 * yhat, 0.3 * yu, 0.05)
        low, mid, high = (int(plan[k][0]) for k in ("n_ppi_low", "n_ppi", "n_ppi_high"))
        assert low <= mid <= high
        spans.append(high / low)
    assert spans[0] > 3 * spans[1]


def test_design_half_width_matches_simulation():
    """The planned n gives, in simulation, intervals whose mean half-width is the target
    (normal interval) and that cover at their level."""
    rng = np.random.default_rng(17)
    var_y, var_f, rho, total, target = 0.06, 0.03, 0.8, 400, 0.04
    cov = rho * np.sqrt(var_y * var_f)
    n = int(queries_needed(target, total, var_y, var_f, cov, interval="normal")[0])
    human_only = int(np.ceil(1.959963984540054**2 * var_y / target**2))
    assert n < human_only
    sims = 4000
    a = rng.normal(size=(sims, total))
    b = rho * a + np.sqrt(1 - rho * rho) * rng.normal(size=(sims, total))
    y, f = np.sqrt(var_y) * a, np.sqrt(var_f) * b + 0.3
    mask = np.zeros((sims, total), bool)
    mask[:, :n] = True  # the first n units are a random sample of iid units
    got = ppi_mean(np.where(mask, y, np.nan), np.where(mask, f, np.nan),
                   np.where(mask, np.nan, f), interval="normal")
    mean_half = np.mean((got.high - got.low) / 2)
    assert mean_half == pytest.approx(target, rel=0.03)
    fewer = ppi_mean(y[:, : n - 5], f[:, : n - 5], f[:, n - 5:], interval="normal")
    assert np.mean((fewer.high - fewer.low) / 2) > target
    coverage = np.mean((got.low <= 0) & (got.high >= 0))
    assert coverage == pytest.approx(0.95, abs=0.015)
    t_n = int(queries_needed(target, total, var_y, var_f, cov)[0])
    t = ppi_mean(y[:, :t_n], f[:, :t_n], f[:, t_n:])
    assert t_n >= n and np.mean((t.high - t.low) / 2) == pytest.approx(target, rel=0.03)


def test_pilot_moments():
    rng = np.random.default_rng(4)
    y, yhat, yu = _sample(rng, 20, 50, 0.8, 0.3, False)
    n, big_n, var_y, var_f, cov = pilot_moments(y, yhat, yu)
    assert (n[0], big_n[0]) == (20, 50)
    assert var_y[0] == pytest.approx(np.var(y, ddof=1))
    assert cov[0] == pytest.approx(np.cov(y, yhat)[0, 1])
    assert var_f[0] == pytest.approx(np.var(np.concatenate([yhat, yu]), ddof=1))
