"""Prediction-powered inference (PPI, PPI++) of a mean, vectorized over many vectors.

A mean theta = E[Y] is estimated from n labelled units with a gold value
``Y`` and a prediction ``Yhat``, and N unlabelled units with a prediction
``Yhat_unlabeled`` only (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic,
"Prediction-powered inference", Science 382, 2023; PPI++: Angelopoulos,
Duchi & Zrnic, "PPI++: efficient prediction-powered inference",
arXiv:2311.01453, 2023, Sec. 2 and Example 2.1, the mean). In irpref the
unit is the query: ``Y`` a measure under the human qrels, the predictions the
same measure under the machine qrels.

For a weight lambda (``lam``), with means and population variances (divisor
n or N) over the units of each row::

    theta_lam = lam mean(Yhat_unlabeled) + mean(Y - lam Yhat)
    se_lam^2  = var(Y - lam Yhat) / n + lam^2 var(Yhat_unlabeled) / N
    interval  = theta_lam -+ z se_lam,      z = Phi^-1((1 + confidence) / 2)
    p         = 2 Phi(-|theta_lam - null| / max(se_lam, 1e-16))

``lam = 1`` is classical PPI, ``lam = 0`` the mean of ``Y`` alone (with the
same normal interval), and ``lam = "auto"`` PPI++'s plug-in of the weight
minimizing se_lam^2::

    lam* = cov(Y, Yhat) / ((1 + n / N) var1(Yhat u Yhat_unlabeled)),  clipped to [0, 1]

with cov the population covariance over the labelled units and var1 the
sample variance (divisor n + N - 1) of all n + N predictions; 0 when every
prediction is equal (the weight then changes nothing). These are the
formulas of the reference implementation, ppi_py 0.2.3 (``ppi_mean_
pointestimate``, ``ppi_mean_ci``, ``ppi_mean_pval``), which the tests check
to 1e-9. One difference: ppi_py's p-value tunes lambda *without* the clip
its interval applies; here one clipped lambda gives the estimate, the interval
and the p-value, so p < 1 - confidence exactly when the interval excludes
``null`` (the two agree whenever the unclipped weight is in [0, 1]).

Design (:func:`queries_needed`): with T queries of which n are labelled
(N = T - n), per-unit variances sigma_Y^2, sigma_f^2, covariance c and
correlation rho = c / (sigma_Y sigma_f), the variance of theta_lam is
(sigma_Y^2 - 2 lam c + lam^2 sigma_f^2) / n + lam^2 sigma_f^2 / N; at the
optimal lam* = c / ((1 + n / N) sigma_f^2) it is::

    sigma_Y^2 (1 - rho^2 N / T) / n

so the half-width z sigma(n) reaches h from

    n = z^2 sigma_Y^2 (1 - rho^2) / (h^2 - z^2 sigma_Y^2 rho^2 / T)

(none when h^2 <= z^2 sigma_Y^2 / T: judging every query is not enough),
against z^2 sigma_Y^2 / h^2 for the human labels alone. The search in
:func:`queries_needed` evaluates the variance at every n, so it also covers a
clipped or a fixed lambda.

Every function works along the last axis of its arrays, for any number of
rows at once (all runs x measures, or all run pairs x measures); NaN marks a
unit absent from that row (a labelled unit is used when both ``Y`` and
``Yhat`` are present).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from irpref.errors import UsageError

__all__ = ["PPIMean", "check_lambda", "half_width", "pilot_moments", "planned_lambda",
           "ppi_mean", "queries_needed", "tuned_lambda"]

SE_FLOOR = 1e-16
"""The smallest standard error the p-value divides by (as ppi_py)."""


def check_lambda(value, flag: str = "--ppi-lambda") -> str | float:
    """The one rule for the PPI weight: ``auto`` (PPI++) or a finite number
    (1: classical PPI, 0: the human labels alone)."""
    if isinstance(value, str) and value.strip() == "auto":
        return "auto"
    try:
        lam = float(value)
    except (TypeError, ValueError):
        lam = math.nan
    if not math.isfinite(lam):
        who = f"{flag} {value}" if flag.startswith("-") else f"{flag}={value!r}"
        raise UsageError(f"{who}: must be auto or a finite number (1: classical PPI, "
                         "0: the human labels alone)")
    return lam


@dataclass(frozen=True)
class PPIMean:
    """Per row: the estimate, its interval and p-value, the weight and the unit counts."""

    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    p: np.ndarray
    se: np.ndarray
    lam: np.ndarray
    n: np.ndarray  # labelled units used (Y and Yhat both present)
    n_unlabeled: np.ndarray


def _rows(x) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return x[None, :] if x.ndim == 1 else x


def _moments(x: np.ndarray, keep: np.ndarray, n: np.ndarray):
    """(mean, centred values with 0 where not kept) along the last axis."""
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(keep, x, 0.0).sum(-1) / n
    return mean, np.where(keep, x - mean[..., None], 0.0)


def _units(y, yhat, yhat_unlabeled):
    """The rows as arrays with the labelled / unlabelled units present and their counts."""
    y, yhat, yu = _rows(y), _rows(yhat), _rows(yhat_unlabeled)
    lab = ~np.isnan(y) & ~np.isnan(yhat)
    unl = ~np.isnan(yu)
    return y, yhat, yu, lab, unl, lab.sum(-1), unl.sum(-1)


def tuned_lambda(y, yhat, yhat_unlabeled, *, clip: bool = True) -> np.ndarray:
    """PPI++'s weight per row: cov(Y, Yhat) / ((1 + n / N) var1(all predictions)),
    with the population covariance (divisor n), clipped to [0, 1] unless
    ``clip=False``; 0 where every prediction is equal."""
    n, big_n, _, var_f, cov = pilot_moments(y, yhat, yhat_unlabeled)
    with np.errstate(invalid="ignore", divide="ignore"):
        lam = cov * ((n - 1) / n) / ((1.0 + n / big_n) * var_f)
    lam = np.where(var_f > 0, lam, np.where(np.isnan(var_f), np.nan, 0.0))
    return np.clip(lam, 0.0, 1.0) if clip else lam


def ppi_mean(y, yhat, yhat_unlabeled, *, lam: str | float = "auto", confidence: float = 0.95,
             null: float = 0.0) -> PPIMean:
    """PPI(++) estimate, ``confidence`` interval and two-sided p-value against ``null``
    of the mean of each row (formulas in the module docstring).

    y, yhat:        (..., n) gold values and predictions on the labelled units.
    yhat_unlabeled: (..., N) predictions on the unlabelled units.
    lam:            ``"auto"`` (PPI++), or a number: 1 classical PPI, 0 ``y`` alone.

    A row with fewer than 2 labelled or no unlabelled units gets NaN (the
    entry points refuse them before calling).
    """
    lam = check_lambda(lam, "lam")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    from scipy import stats

    y, yhat, yu, lab, unl, n, big_n = _units(y, yhat, yhat_unlabeled)
    weight = tuned_lambda(y, yhat, yu) if lam == "auto" else np.full(n.shape, float(lam))
    w = weight[..., None]
    mean_u, du = _moments(w * yu, unl, big_n)
    mean_r, dr = _moments(y - w * yhat, lab, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = mean_u + mean_r
        se = np.sqrt((du * du).sum(-1) / big_n / big_n + (dr * dr).sum(-1) / n / n)
        z = stats.norm.ppf(1.0 - (1.0 - confidence) / 2.0)
        p = 2.0 * stats.norm.sf(np.abs(estimate - null) / np.maximum(se, SE_FLOOR))
    bad = (n < 2) | (big_n < 1)
    nan = np.where(bad, np.nan, 0.0)
    return PPIMean(estimate=estimate + nan, low=estimate - z * se + nan,
                   high=estimate + z * se + nan, p=p + nan, se=se + nan, lam=weight + nan,
                   n=n, n_unlabeled=big_n)


def _z(confidence: float) -> float:
    from scipy import stats

    return float(stats.norm.ppf(1.0 - (1.0 - confidence) / 2.0))


def planned_lambda(n, total, var_f, cov, *, lam: str | float = "auto") -> np.ndarray:
    """The weight at ``n`` of ``total`` units labelled: ``lam`` itself, or for ``auto``
    PPI++'s optimum c / ((1 + n / N) sigma_f^2) clipped to [0, 1] (0 when sigma_f = 0)."""
    n, total, var_f, cov = (np.asarray(v, dtype=np.float64) for v in (n, total, var_f, cov))
    if lam != "auto":
        return np.full(np.broadcast(n, total, var_f, cov).shape, float(lam))
    with np.errstate(invalid="ignore", divide="ignore"):
        weight = np.where(var_f > 0, cov / ((1.0 + n / (total - n)) * var_f), 0.0)
    return np.clip(weight, 0.0, 1.0)


def half_width(n, total, var_y, var_f, cov, *, lam: str | float = "auto",
               confidence: float = 0.95) -> np.ndarray:
    """Expected half-width z sigma(n) of the PPI interval with ``n`` of ``total`` units
    labelled, from the per-unit variances ``var_y`` (gold), ``var_f`` (prediction) and
    their covariance ``cov`` (broadcast together); NaN unless 1 <= n < total."""
    lam = check_lambda(lam, "lam")
    n, total, var_y, var_f, cov = (np.asarray(v, dtype=np.float64)
                                   for v in (n, total, var_y, var_f, cov))
    big_n = total - n
    weight = planned_lambda(n, total, var_f, cov, lam=lam)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = ((var_y - 2.0 * weight * cov + weight**2 * var_f) / n
               + weight**2 * var_f / big_n)
        out = _z(confidence) * np.sqrt(np.maximum(var, 0.0))
    return np.where((n >= 1) & (big_n >= 1), out, np.nan)


def pilot_moments(y, yhat, yhat_unlabeled) -> tuple[np.ndarray, ...]:
    """Per row of a pilot sample: (n, N, var_y, var_f, cov): the labelled and unlabelled
    units, the sample variance of ``Y`` and the covariance of ``Y`` and ``Yhat`` over
    the labelled units (divisor n - 1), and the sample variance of every prediction
    (divisor n + N - 1), the quantities :func:`queries_needed` plans with."""
    y, yhat, yu, lab, _, n, big_n = _units(y, yhat, yhat_unlabeled)
    _, dy = _moments(y, lab, n)
    _, df = _moments(yhat, lab, n)
    every = np.concatenate([np.where(lab, yhat, np.nan), yu], axis=-1)
    _, dall = _moments(every, ~np.isnan(every), n + big_n)
    with np.errstate(invalid="ignore", divide="ignore"):
        var_y = (dy * dy).sum(-1) / (n - 1)
        cov = (dy * df).sum(-1) / (n - 1)
        var_f = (dall * dall).sum(-1) / (n + big_n - 1)
    return n, big_n, var_y, var_f, cov


def queries_needed(target: float, total, var_y, var_f, cov, *, lam: str | float = "auto",
                   confidence: float = 0.95) -> np.ndarray:
    """Per row, the fewest labelled units n (2 <= n < ``total``) whose expected PPI
    half-width (:func:`half_width`) is at most ``target``; NaN when no n < total
    reaches it. ``total``, ``var_y``, ``var_f`` and ``cov`` are per row."""
    if not (target > 0 and math.isfinite(target)):
        raise ValueError(f"the target half-width must be a positive number, got {target}")
    total = np.atleast_1d(np.asarray(total, dtype=np.int64))
    rows = np.broadcast(total, np.asarray(var_y), np.asarray(var_f), np.asarray(cov)).shape
    total = np.broadcast_to(total, rows)
    top = int(total.max(initial=0))
    if top < 3:
        return np.full(rows, np.nan)
    n = np.arange(2, top, dtype=np.float64)  # candidate counts, every row at once
    widths = half_width(n, total[..., None], np.asarray(var_y)[..., None],
                        np.asarray(var_f)[..., None], np.asarray(cov)[..., None],
                        lam=lam, confidence=confidence)
    ok = widths <= target  # NaN (n >= total) is never ok
    first = np.argmax(ok, axis=-1)
    return np.where(ok.any(axis=-1), n[first], np.nan)
