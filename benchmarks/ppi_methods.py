"""Candidate PPI intervals for the coverage study (``bench_ppi_coverage.py``).

Every method takes dense rows ``y``, ``f`` (rows, n): human values and machine values
on the human-judged queries, ``fu`` (rows, N): machine values on the others, the
level and the range of the values, and returns (low, high) per row. The shipped
ones call :func:`irpref.llm_judged.ppi.ppi_mean`; the others are written here, on the
same pieces (weights, variances, Hall's transformation), to be compared with it:

- ``ppi_py``: PPI++ as ppi_py 0.2.3 computes it: the weight tuned on the same
  queries, population variances, z (irpref's ``--ppi-interval normal`` without the
  all-equal bound); ``ppi_py, lambda 1``: classical PPI, likewise;
- ``human t``: the human-judged queries alone, Student t;
- ``t, same-sample lambda``: the weight tuned on the same queries, sample variances
  (n - 1), t with n - 1 degrees of freedom;
- ``t+Hall, same-sample lambda, n - 2``: the weight tuned on the same queries with
  one degree of freedom charged for it: residual variance with divisor n - 2, t with
  n - 2, Hall's skewness correction;
- ``t+Hall, leave-one-out lambda``: each query's weight tuned on the others
  (cross-fitting), t with n - 1 and Hall's skewness correction;
- ``t+Hall, 2-fold lambda``: the weight of each half tuned on the other half
  (queries alternately assigned in the order given);
- ``jackknife t``: the PPI++ estimate with the jackknife variance over the
  human-judged queries (the weight re-tuned without each), t with n - 1;
- ``jackknife t+Hall, unlimited``: the same with Hall's correction from the
  jackknife pseudo-values, not held to |b| q <= 1/2 (irpref's default is this with
  the limit: ``irpref default``, the column that calls the library);
- ``bootstrap-t``: 299 resamples of the human-judged and of the other queries, the
  weight re-tuned in each, the percentile-t interval;
- ``finite-population t``: the mean over these T queries as the target, the
  regression estimator mean(Y) + beta (mean_T(f) - mean(f)) with beta the PPI++
  weight times T / N, variance (1 - n / T) s^2(Y - beta f) / n, t with n - 1;
  ``finite-population human t``: the human-judged queries alone, likewise.

The methods with Hall's correction, the same-sample ``t`` and the finite-population
ones give an all-equal sample the range bound of :func:`irpref.llm_judged.ppi.ppi_mean`.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from irpref.llm_judged.ppi import ppi_mean

Z = {}


def _z(confidence: float) -> float:
    if confidence not in Z:
        Z[confidence] = float(stats.norm.ppf(0.5 + confidence / 2))
    return Z[confidence]


def _var_all(f, fu):
    """(sample variance, third central moment) of every machine value of each row."""
    every = np.concatenate([f, fu], axis=1)
    centred = every - every.mean(1, keepdims=True)
    return (centred**2).sum(1) / (every.shape[1] - 1), (centred**3).mean(1)


def _tuned(y, f, var_f, big_n):
    """PPI++'s weight from the same queries (ppi_py's), clipped; 0 for constant rows."""
    n = y.shape[1]
    cov = ((y - y.mean(1, keepdims=True)) * (f - f.mean(1, keepdims=True))).mean(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        lam = np.where(var_f > 0, cov / ((1 + n / big_n) * var_f), 0.0)
    return np.where(_same(y), 0.0, np.clip(lam, 0, 1))


def _same(y):
    return y.max(1) == y.min(1)


def _loo_lambda(y, f, var_f, big_n, divisor_less: int = 2):
    """(rows, n): the weight tuned without each query (cov over the others, divisor
    n - ``divisor_less``, with n labelled kept in the 1 + n / N factor for 2, n - 1 for 1)."""
    n = y.shape[1]
    yc, fc = y - y.mean(1, keepdims=True), f - f.mean(1, keepdims=True)
    total = (yc * fc).sum(1, keepdims=True)
    cov = (total - yc * fc * n / (n - 1)) / (n - divisor_less)
    labelled = n if divisor_less == 2 else n - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        lam = np.clip(cov / ((1 + labelled / big_n) * var_f[:, None]), 0, 1)
    return np.where((var_f[:, None] > 0) & ~_same(y)[:, None], lam, 0.0)


def hall_bounds(estimate, se, b, q, cap=None):
    """(low, high) = theta - g^-1(+-q) se for Hall's g with skewness b (|b| q <= ``cap``
    when given)."""
    if cap is not None:
        b = np.clip(b, -cap / q, cap / q)
    with np.errstate(invalid="ignore", divide="ignore"):
        def inverse(z):
            return np.where(np.abs(b) > 1e-12,
                            3 * (np.cbrt(1 + b * (z - b / 6)) - 1) / b, z - b / 6)
        return estimate - inverse(q) * se, estimate - inverse(-q) * se


def _skew(centred_per_query, n, lam, m3_f, big_n, se):
    """Hall's b: the estimate's third cumulant over se^3."""
    m3 = (centred_per_query**3).mean(1) / n**2 + lam**3 * m3_f / big_n**2
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(se > 0, m3 / se**3, 0.0)


def _bound(y, low, high, bounded, confidence, value_range):
    """The all-equal rows' range bound (as :func:`irpref.llm_judged.ppi.ppi_mean`)."""
    n = y.shape[1]
    c = y[:, 0]
    share = 1 - ((1 - confidence) / 2) ** (1 / n)
    lo, hi = value_range
    return (np.where(bounded, c - (c - lo) * share, low),
            np.where(bounded, c + (hi - c) * share, high))


def ppi_py(y, f, fu, confidence, value_range, lam="auto"):
    got = ppi_mean(y, f, fu, lam=lam, confidence=confidence, interval="normal")
    half = _z(confidence) * got.se
    return got.estimate - half, got.estimate + half


def ppi_py_one(y, f, fu, confidence, value_range):
    return ppi_py(y, f, fu, confidence, value_range, lam=1)


def human_t(y, f, fu, confidence, value_range):
    n = y.shape[1]
    half = stats.t.ppf(0.5 + confidence / 2, n - 1) * y.std(1, ddof=1) / np.sqrt(n)
    return y.mean(1) - half, y.mean(1) + half


def t_same(y, f, fu, confidence, value_range):
    n, big_n = y.shape[1], fu.shape[1]
    var_f, _ = _var_all(f, fu)
    lam = _tuned(y, f, var_f, big_n)
    e = y - lam[:, None] * f
    estimate = e.mean(1) + lam * fu.mean(1)
    se = np.sqrt(e.var(1, ddof=1) / n + lam**2 * var_f / big_n)
    half = stats.t.ppf(0.5 + confidence / 2, n - 1) * se
    return _bound(y, estimate - half, estimate + half, _same(y), confidence, value_range)


def _per_query_weights(y, f, fu, confidence, value_range, weights, spent: int = 1):
    """t+Hall with per-query weights (rows, n): theta = mean(y - w f) + mean(w) mean(fu);
    residual variance with divisor n - ``spent``, t with n - ``spent``."""
    n, big_n = y.shape[1], fu.shape[1]
    var_f, m3_f = _var_all(f, fu)
    w = weights(y, f, var_f, big_n)
    lam = w.mean(1)
    e = y - w * f
    estimate = e.mean(1) + lam * fu.mean(1)
    se = np.sqrt(e.var(1, ddof=spent) / n + lam**2 * var_f / big_n)
    b = _skew(e - e.mean(1, keepdims=True), n, lam, m3_f, big_n, se)
    low, high = hall_bounds(estimate, se, b, stats.t.ppf(0.5 + confidence / 2, n - spent))
    return _bound(y, low, high, _same(y) & (lam == 0), confidence, value_range)


def _same_weight(y, f, var_f, big_n):
    return np.broadcast_to(_tuned(y, f, var_f, big_n)[:, None], y.shape)


def hall_same_n2(y, f, fu, confidence, value_range):
    """PPI++ estimate (ppi_py's), residual variance with divisor n - 2 (one degree of
    freedom spent on the weight), t with n - 2 and Hall's correction."""
    return _per_query_weights(y, f, fu, confidence, value_range, _same_weight, spent=2)


def hall_loo(y, f, fu, confidence, value_range):
    return _per_query_weights(y, f, fu, confidence, value_range, _loo_lambda)


def _two_fold(y, f, var_f, big_n):
    """(rows, n): each half's weight (PPI++'s formula, the full n in 1 + n / N) tuned on
    the other half, the queries alternately assigned."""
    n = y.shape[1]
    fold = np.arange(n) % 2
    out = np.empty_like(y)
    for k in (0, 1):  # two folds, every row at once
        yo, fo = y[:, fold != k], f[:, fold != k]
        cov = ((yo - yo.mean(1, keepdims=True)) * (fo - fo.mean(1, keepdims=True))).mean(1)
        with np.errstate(invalid="ignore", divide="ignore"):
            lam = np.clip(np.where(var_f > 0, cov / ((1 + n / big_n) * var_f), 0.0), 0, 1)
        out[:, fold == k] = lam[:, None]
    return np.where(_same(y)[:, None], 0.0, out)


def hall_two_fold(y, f, fu, confidence, value_range):
    return _per_query_weights(y, f, fu, confidence, value_range, _two_fold)


def jackknife_hall(y, f, fu, confidence, value_range, hall: bool = True, cap=None):
    """PPI++ estimate; jackknife variance over the human-judged queries with the weight
    re-tuned without each, plus lambda^2 var_f / N; Hall's b from the pseudo-values."""
    n, big_n = y.shape[1], fu.shape[1]
    var_f, m3_f = _var_all(f, fu)
    lam = _tuned(y, f, var_f, big_n)
    mean_u = fu.mean(1)
    estimate = y.mean(1) - lam * (f.mean(1) - mean_u)
    lam_i = _loo_lambda(y, f, var_f, big_n, divisor_less=1)
    rest_y = (y.sum(1, keepdims=True) - y) / (n - 1)
    rest_f = (f.sum(1, keepdims=True) - f) / (n - 1)
    theta_i = rest_y - lam_i * (rest_f - mean_u[:, None])
    dev = theta_i - theta_i.mean(1, keepdims=True)
    se = np.sqrt((n - 1) / n * (dev**2).sum(1) + lam**2 * var_f / big_n)
    q = stats.t.ppf(0.5 + confidence / 2, n - 1)
    b = _skew(-(n - 1) * dev, n, lam, m3_f, big_n, se) if hall else np.zeros_like(se)
    low, high = hall_bounds(estimate, se, b, q, cap)
    return _bound(y, low, high, _same(y) & (lam == 0), confidence, value_range)


def jackknife_t(y, f, fu, confidence, value_range):
    return jackknife_hall(y, f, fu, confidence, value_range, hall=False)


def bootstrap_t(y, f, fu, confidence, value_range, resamples: int = 299, seed: int = 0):
    """Percentile-t over queries: both sets resampled, the weight re-tuned each time."""
    n, big_n = y.shape[1], fu.shape[1]
    rng = np.random.default_rng(seed)

    def fit(yy, ff, uu):
        var_f, _ = _var_all(ff, uu)
        lam = _tuned(yy, ff, var_f, uu.shape[1])
        e = yy - lam[:, None] * ff
        estimate = e.mean(1) + lam * uu.mean(1)
        return estimate, np.sqrt(e.var(1, ddof=1) / n + lam**2 * var_f / big_n)

    estimate, se = fit(y, f, fu)
    stat = np.empty((len(y), resamples))
    for r in range(resamples):  # resamples, every row at once
        i, j = rng.integers(0, n, n), rng.integers(0, big_n, big_n)
        est_r, se_r = fit(y[:, i], f[:, i], fu[:, j])
        with np.errstate(invalid="ignore", divide="ignore"):
            stat[:, r] = np.where(se_r > 0, (est_r - estimate) / se_r,
                                  np.sign(est_r - estimate) * np.inf)
    tail = (1 - confidence) / 2
    low_q, high_q = np.nanquantile(stat, [tail, 1 - tail], axis=1)
    return estimate - high_q * se, estimate - low_q * se


def finite_population(y, f, fu, confidence, value_range, human: bool = False):
    n, big_n = y.shape[1], fu.shape[1]
    total = n + big_n
    var_f, _ = _var_all(f, fu)
    beta = np.zeros(len(y)) if human else _tuned(y, f, var_f, big_n) * total / big_n
    every = (f.sum(1) + fu.sum(1)) / total
    estimate = y.mean(1) + beta * (every - f.mean(1))
    e = y - beta[:, None] * f
    se = np.sqrt((1 - n / total) * e.var(1, ddof=1) / n)
    half = stats.t.ppf(0.5 + confidence / 2, n - 1) * se
    return _bound(y, estimate - half, estimate + half, _same(y) & (beta == 0), confidence,
                  value_range)


def finite_population_human(y, f, fu, confidence, value_range):
    return finite_population(y, f, fu, confidence, value_range, human=True)


def shipped(lam="auto"):
    """irpref's default interval (``ppi_mean``) at weight ``lam``."""
    def method(y, f, fu, confidence, value_range):
        got = ppi_mean(y, f, fu, lam=lam, confidence=confidence, value_range=value_range)
        return got.low, got.high
    return method


METHODS = {
    "irpref default": shipped(),
    "irpref, lambda 1": shipped(1.0),
    "irpref, lambda 0": shipped(0.0),
    "ppi_py (PPI++)": ppi_py,
    "ppi_py, lambda 1": ppi_py_one,
    "human t": human_t,
    "t, same-sample lambda": t_same,
    "t+Hall, same-sample lambda, n - 2": hall_same_n2,
    "t+Hall, leave-one-out lambda": hall_loo,
    "t+Hall, 2-fold lambda": hall_two_fold,
    "jackknife t": jackknife_t,
    "jackknife t+Hall, unlimited": jackknife_hall,
    "finite-population t": finite_population,
    "finite-population human t": finite_population_human,
}
"""Every candidate the study compares (bootstrap-t separately: it resamples)."""

SLOW = {"bootstrap-t": bootstrap_t}
