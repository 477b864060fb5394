"""Worst-case performance of optimal deterministic vs stochastic rankers
(lexirecall, Diaz & Mitra 2023, section 7.2.4, Figure 14, Appendix C).

A request has m relevant items; the searchers are every non-empty subset
u of them (section 4.1, ``U = R^+``), and a top-heavy recall-level metric
scores a ranking for u from the positions p^u_1 < ... < p^u_j of u's items
(Eq. 1): ``mu(pi, u) = sum_i e(p^u_i) z(i, j)``, with

- ``RR``:   e(k) = 1/k,               z(i, j) = [i = 1]
- ``AP``:   e(k) = 1/k,               z(i, j) = i / j
- ``nDCG``: e(k) = 1/log2(k + 1),     z(i, j) = 1 / sum_{k<=j} 1/log2(k + 1)
- ``RBP``:  e(k) = gamma^(k - 1),     z(i, j) = 1 - gamma   (``RBP(p=0.8)``)

An optimal ranking puts the m relevant items first. A deterministic optimal
ranker returns one such ranking: its worst-off user of size j holds the items
at positions m-j+1..m (e decreasing, z >= 0), so
``WC_det = min_j sum_i e(m - j + i) z(i, j)`` (= e(m) z(1, 1) for these
metrics). The optimal stochastic ranker samples uniformly among the optimal
rankings: a user's j items then sit at a uniformly random j-subset of 1..m,
whose i-th smallest is k with probability C(k-1, i-1) C(m-k, j-i) / C(m, j),
so ``WC_sto = min_j sum_i z(i, j) sum_k P(i-th = k) e(k)``. Appendix C proves
``WC_sto >= WC_det``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.special import gammaln

from irpref.errors import UsageError
from irpref.meta.discounts import parse_discount

__all__ = ["METRICS", "exposure_normalization", "worst_case_optimal"]

METRICS = ("RR", "AP", "nDCG", "RBP")


def _parse(metric: str) -> tuple[str, float]:
    return parse_discount(metric, {n.lower(): n for n in METRICS}, 0.8, what="metric")


def exposure_normalization(metric: str, m: int) -> tuple[np.ndarray, np.ndarray]:
    """``e`` (m,) with e[k-1] = e(k), and ``z`` (m, m) with z[j-1, i-1] = z(i, j) (0 for i > j)."""
    name, gamma = _parse(metric)
    k = np.arange(1, m + 1, dtype=np.float64)
    i = k[None, :]
    j = k[:, None]
    if name in ("RR", "AP"):
        e = 1.0 / k
    elif name == "nDCG":
        e = 1.0 / np.log2(k + 1)
    else:
        e = gamma ** (k - 1)
    if name == "RR":
        z = (i == 1) * np.ones_like(j)
    elif name == "AP":
        z = i / j
    elif name == "nDCG":
        z = np.broadcast_to(1.0 / np.cumsum(e)[:, None], (m, m)).copy()
    else:
        z = np.full((m, m), 1.0 - gamma)
    return e, np.where(i <= j, z, 0.0)


def _log_comb(n: np.ndarray, r: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        out = gammaln(n + 1) - gammaln(r + 1) - gammaln(n - r + 1)
    return np.where((r >= 0) & (r <= n), out, -np.inf)


def _one(metric: str, m: int) -> tuple[float, int, float, int]:
    e, z = exposure_normalization(metric, m)
    j = np.arange(1, m + 1)[:, None]  # user size
    i = np.arange(1, m + 1)[None, :]  # recall level within the user
    # deterministic: the user's items at positions m - j + i
    pos = np.clip(m - j + i, 1, m)
    det = (np.where(i <= j, e[pos - 1], 0.0) * z).sum(axis=1)
    # stochastic: P(i-th smallest of a random j-subset of 1..m is k)
    kk = np.arange(1, m + 1)[None, None, :]
    jj, ii = j[:, :, None], i[:, :, None]
    logp = _log_comb(kk - 1, ii - 1) + _log_comb(m - kk, jj - ii) - _log_comb(
        np.full_like(jj, m), jj)
    expect = (np.exp(logp) * e[None, None, :]).sum(axis=2)  # (j, i)
    sto = (np.where(i <= j, expect, 0.0) * z).sum(axis=1)
    return float(det.min()), int(det.argmin()) + 1, float(sto.min()), int(sto.argmin()) + 1


def worst_case_optimal(
    metrics: Sequence[str] = ("RR",), m: Sequence[int] | int = range(1, 26)
) -> pd.DataFrame:
    """``metric, m, deterministic, stochastic, difference, worst_user_size_det,
    worst_user_size_sto``: worst-off-user performance of an optimal
    deterministic and the uniform optimal stochastic ranker (Figure 14:
    m = 1..25), exact (see module docstring)."""
    ms = [int(m)] if np.isscalar(m) else [int(x) for x in m]
    if not ms or min(ms) < 1:
        raise UsageError(f"m={ms}: every m must be >= 1")
    if isinstance(metrics, str):
        metrics = [metrics]
    rows = []
    for metric in metrics:
        _parse(metric)
        for mm in ms:
            det, jd, sto, js = _one(metric, mm)
            rows.append({"metric": str(metric), "m": mm, "deterministic": det,
                         "stochastic": sto, "difference": sto - det,
                         "worst_user_size_det": jd, "worst_user_size_sto": js})
    return pd.DataFrame(rows)
