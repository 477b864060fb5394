"""Recall-paired analyses of RPP (Diaz & Ferraro, SIGIR 2022) on real runs.

Disaggregated metric differences (section 2, Eq. 1; Figures 2 and 4a).
Most metrics are sums over the positions f_1 < ... < f_m of the relevant
items, ``mu(pi) = sum_i delta(f_i)``, so a difference of two rankings is a
sum over recall levels: ``Delta mu = sum_i Delta mu_i`` with
``Delta mu_i = delta(f_i) - delta(f'_i)``. Discounts (an unretrieved i-th
relevant item has delta = 0):

- ``RBP(p=g)``: (1 - g) g^(f - 1)
- ``DCG``: 1 / log2(f + 1); ``nDCG``: the same over the query's ideal DCG
  (binary gains, so ``sum_i Delta mu_i`` is the nDCG difference)
- ``AP``: i / (m f) (the recall-level factor i of section 6 / Fig. 4a)
- ``RR``: 1 / f at level 1, 0 elsewhere
- ``sgn``: sgn(delta(f_i) - delta(f'_i)) = sgn(f'_i - f_i), the per-level
  preference RPP averages (Fig. 2, last row)

Comparisons: run pairs a < b x queries with a relevant item that both runs
have x recall levels i <= m_q.

- :func:`disaggregated_by_level`: per discount and level i, the number of
  comparisons, mean |Delta mu_i| and percent nonzero (Fig. 4a on real runs).
- :func:`disaggregated_ecdf`: the empirical CDF of Delta mu_i per discount,
  at ``points`` evenly spaced quantiles, plus the percent of exact zeros
  (Fig. 2 right column; the paper: 93 % of f_i != f'_i on DL 2019 documents).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from irpref.errors import UsageError
from irpref.judging.judged import JudgedRankings
from irpref.meta.discounts import parse_discount
from irpref.meta.pairwise import judged_for
from irpref.meta.recall_levels import level_comparisons

__all__ = ["DISCOUNTS", "disaggregated_by_level", "disaggregated_ecdf", "level_differences"]

DISCOUNTS = ("RBP(p=0.5)", "DCG", "nDCG", "AP", "RR", "sgn")


_DISCOUNTS = {"rbp": "RBP", "dcg": "DCG", "ndcg": "nDCG", "ap": "AP", "rr": "RR", "sgn": "sgn"}


def _parse_discount(name: str) -> tuple[str, float]:
    kind, gamma = parse_discount(name, _DISCOUNTS, 0.5)
    return kind.lower(), gamma


def _delta(kind: str, gamma: float, f: np.ndarray, level: np.ndarray, m: np.ndarray):
    """delta(f) for positions f (..., Q, L); inf (unretrieved / no such level) -> 0."""
    fin = np.isfinite(f)
    ff = np.where(fin, f, 1.0)
    if kind == "rbp":
        v = (1 - gamma) * gamma ** (ff - 1)
    elif kind in ("dcg", "ndcg"):
        v = 1.0 / np.log2(ff + 1)
        if kind == "ndcg":
            top = max(int(m.max()) if m.size else 1, 1)
            ideal = np.cumsum(1.0 / np.log2(np.arange(2, top + 2)))
            v = v / ideal[np.maximum(m, 1) - 1][:, None]
    elif kind == "ap":
        v = level[None, :] / (np.maximum(m, 1)[:, None] * ff)
    else:  # rr
        v = np.where(level[None, :] == 1, 1.0 / ff, 0.0)
    return np.where(fin, v, 0.0)


def level_differences(
    judged: JudgedRankings, discount: str, levels: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(P, Q, L) Delta mu_i of ``discount`` and the (P, Q, L) mask of real comparisons."""
    kind, gamma = _parse_discount(discount)
    pos, a, b, valid, m = level_comparisons(judged)
    if levels is not None:
        if pos.shape[2] < levels:
            pad = np.full(pos.shape[:2] + (levels - pos.shape[2],), np.inf)
            pos = np.concatenate([pos, pad], axis=2)
        pos = pos[:, :, :levels]
    lv = np.arange(1, pos.shape[2] + 1)
    use = valid[:, :, None] & (lv[None, None, :] <= m[None, :, None])
    if kind == "sgn":
        with np.errstate(invalid="ignore"):
            d = np.sign(pos[b] - pos[a])
        d = np.where(np.isnan(d), 0.0, d)  # both unretrieved: inf - inf
    else:
        v = _delta(kind, gamma, pos, lv, m)
        d = v[a] - v[b]
    return d, use


def check_discounts(discounts) -> list[str]:
    out = [discounts] if isinstance(discounts, str) else [str(x) for x in discounts]
    if not out:
        raise UsageError("no discounts given")
    for d in out:
        _parse_discount(d)
    return out


def disaggregated_by_level(
    qrels=None, runs=None, *, discounts: Sequence[str] = DISCOUNTS, levels: int = 20,
    rel: int = 1, judged: JudgedRankings | None = None,
) -> pd.DataFrame:
    """``discount, level, comparisons, mean_abs, percent_nonzero`` for i = 1..levels."""
    if int(levels) != levels or levels < 1:
        raise UsageError(f"levels={levels}: must be an integer >= 1")
    discounts = check_discounts(discounts)
    judged = judged_for(qrels, runs, judged, rel)
    frames = []
    for name in discounts:
        d, use = level_differences(judged, name, int(levels))
        n = use.sum(axis=(0, 1))
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_abs = np.where(use, np.abs(d), 0.0).sum(axis=(0, 1)) / n
            nonzero = 100.0 * (use & (np.abs(d) > 1e-12)).sum(axis=(0, 1)) / n
        frames.append(pd.DataFrame({"discount": name, "level": np.arange(1, levels + 1),
                                    "comparisons": n, "mean_abs": mean_abs,
                                    "percent_nonzero": nonzero}))
    return pd.concat(frames, ignore_index=True)


def disaggregated_ecdf(
    qrels=None, runs=None, *, discounts: Sequence[str] = DISCOUNTS, points: int = 201,
    rel: int = 1, judged: JudgedRankings | None = None,
) -> pd.DataFrame:
    """``discount, fraction, value, percent_zero``: the ECDF of Delta mu_i over
    all comparisons and levels i <= m, as the value at each of ``points``
    evenly spaced fractions in [0, 1] (lower empirical quantile: the smallest
    value whose ECDF reaches the fraction)."""
    if int(points) != points or points < 2:
        raise UsageError(f"points={points}: must be an integer >= 2")
    discounts = check_discounts(discounts)
    judged = judged_for(qrels, runs, judged, rel)
    frac = np.linspace(0.0, 1.0, int(points))
    frames = []
    for name in discounts:
        d, use = level_differences(judged, name)
        x = np.sort(d[use])
        if x.size == 0:
            vals, zero = np.full(frac.size, np.nan), np.nan
        else:
            idx = np.clip(np.ceil(frac * x.size).astype(np.int64) - 1, 0, x.size - 1)
            vals, zero = x[idx], 100.0 * float(np.mean(x == 0))
        frames.append(pd.DataFrame({"discount": name, "fraction": frac, "value": vals,
                                    "percent_zero": zero}))
    return pd.concat(frames, ignore_index=True)
