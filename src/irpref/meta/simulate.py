"""Random rankings and Monte Carlo tie probabilities.

A pair of uniformly random permutations of n items with m relevant is, for
every measure here, fully described by the two sorted position vectors
p_1 < ... < p_m of the relevant items, each a uniform m-subset of [1..n].
Subsets are drawn with Floyd's algorithm vectorized over samples (m
vectorized steps, no per-sample loop). m is fixed or m ~ U(a, b) per sample
(discrete, inclusive; both rankings of a pair share m, as two systems share a
query). With a retrieval depth ñ the rankings are pessimistically imputed
(Diaz & Mitra 2023, lexirecall section 2.2): the m - m̃ relevant items below ñ
move to positions n - (m - m̃) + 1..n.

Measures on the position vectors: TSE = p_m; RR = 1/p_1; R@k = #{p_i <= k};
Rprec = #{p_i <= m}; AP = (1/m) sum_i i / p_i; lexirecall and lexiprecision
tie only when p = p'. The estimate of Pr(tie) is the tied fraction of K pairs,
with standard error sqrt(P (1 - P) / K); :mod:`irpref.meta.closed_forms` has
the exact values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from irpref.errors import UsageError
from irpref.meta.closed_forms import (
    TieMeasure,
    parse_tie_measure,
    rr_tie_given_p1,
    tie_probability,
)

__all__ = [
    "RandomRankings",
    "random_rankings",
    "rr_tie_table",
    "simulate_ties",
    "tie_table",
    "tied",
    "worst_case_agreement",
]

PAD = np.iinfo(np.int64).max


@dataclass(frozen=True)
class RandomRankings:
    """K pairs of random rankings: ``a``, ``b`` (K, max m) sorted (imputed)
    positions of the relevant items, padded with ``PAD`` beyond ``m[k]``."""

    a: np.ndarray
    b: np.ndarray
    m: np.ndarray
    n: int
    depth: int


def _subsets(rng: np.random.Generator, n: int, m: np.ndarray) -> np.ndarray:
    """Uniform m[k]-subsets of [1..n] (Floyd's algorithm), sorted, PAD-padded."""
    k = m.size
    width = int(m.max())
    out = np.full((k, width), PAD, dtype=np.int64)
    for col in range(width):
        # step j = n - m + 1 + col for rows with m > col: pick t in [1, j];
        # if t is already chosen, take j (never chosen before) instead.
        rows = np.flatnonzero(m > col)
        j = n - m[rows] + 1 + col
        t = rng.integers(1, j + 1)
        seen = (out[rows, :col] == t[:, None]).any(axis=1)
        out[rows, col] = np.where(seen, j, t)
    out.sort(axis=1)
    return out


def _impute(pos: np.ndarray, m: np.ndarray, n: int, depth: int) -> np.ndarray:
    if depth >= n:
        return pos
    idx = np.arange(pos.shape[1])
    valid = idx[None, :] < m[:, None]
    retrieved = (pos <= depth) & valid
    bottom = n - (m[:, None] - 1 - idx[None, :])
    return np.where(valid & ~retrieved, bottom, pos)


def _m_samples(rng, m, samples: int, n: int) -> np.ndarray:
    if np.isscalar(m):
        lo = hi = int(m)
    else:
        lo, hi = (int(v) for v in m)
    if lo > hi:
        raise UsageError(f"m={lo}:{hi}: the range must have a <= b")
    if not 1 <= lo <= hi <= n:
        raise UsageError(f"m={lo}:{hi}: m must be in [1, n={n}]")
    if lo == hi:
        return np.full(samples, lo, dtype=np.int64)
    return rng.integers(lo, hi + 1, size=samples)


def random_rankings(
    n: int,
    m: int | tuple[int, int],
    samples: int,
    *,
    depth: int | None = None,
    seed: int | None = 0,
) -> RandomRankings:
    """``samples`` pairs of independent uniformly random rankings of ``n`` items
    with ``m`` relevant (or m ~ U(a, b) for ``m=(a, b)``), truncated at
    ``depth`` and pessimistically imputed. Same seed, same rankings."""
    if n < 1:
        raise UsageError(f"n={n}: n must be >= 1")
    if samples < 1:
        raise UsageError(f"samples={samples}: samples must be >= 1")
    depth = n if depth is None else int(depth)
    if not 1 <= depth <= n:
        raise UsageError(f"depth={depth}: depth must be in [1, n={n}]")
    rng = np.random.default_rng(seed)
    ms = _m_samples(rng, m, samples, n)
    a = _impute(_subsets(rng, n, ms), ms, n, depth)
    b = _impute(_subsets(rng, n, ms), ms, n, depth)
    return RandomRankings(a, b, ms, int(n), depth)


def _values(measure: TieMeasure, pos: np.ndarray, m: np.ndarray) -> np.ndarray:
    valid = pos != PAD
    if measure.kind == "TSE":
        return pos[np.arange(pos.shape[0]), m - 1]
    if measure.kind == "RR":
        return pos[:, 0]  # RR = 1/p_1: ties of p_1 are ties of RR
    if measure.kind == "R":
        return ((pos <= measure.k) & valid).sum(axis=1)
    if measure.kind == "Rprec":
        return ((pos <= m[:, None]) & valid).sum(axis=1)
    if measure.kind == "AP":
        ranks = np.arange(1, pos.shape[1] + 1)
        with np.errstate(divide="ignore"):
            terms = np.where(valid, ranks / np.where(valid, pos, 1), 0.0)
        return terms.sum(axis=1) / m
    raise UsageError(f"no value for {measure}")


def tied(measure: str | TieMeasure, rankings: RandomRankings) -> np.ndarray:
    """Boolean (K,): is pair k tied under ``measure``? AP is compared with a
    relative tolerance of 1e-12 (sums of the same rationals in another order)."""
    mu = measure if isinstance(measure, TieMeasure) else parse_tie_measure(measure)
    a, b, m = rankings.a, rankings.b, rankings.m
    if mu.kind in ("LR", "LP"):
        return (a == b).all(axis=1)
    va, vb = _values(mu, a, m), _values(mu, b, m)
    if mu.kind == "AP":
        return np.abs(va - vb) <= 1e-12 * np.maximum(np.abs(va), np.abs(vb))
    return va == vb


def simulate_ties(
    measure: str | TieMeasure,
    n: int,
    m: int | tuple[int, int],
    samples: int,
    *,
    depth: int | None = None,
    seed: int | None = 0,
) -> tuple[float, float]:
    """Monte Carlo Pr(tie) and its standard error over ``samples`` random pairs."""
    t = tied(measure, random_rankings(n, m, samples, depth=depth, seed=seed))
    p = float(t.mean())
    return p, float(np.sqrt(p * (1 - p) / t.size))


def tie_table(
    measures: Sequence[str],
    n: int,
    m: int | tuple[int, int],
    *,
    depth: int | None = None,
    simulate: int | None = None,
    seed: int | None = 0,
) -> pd.DataFrame:
    """One row per measure: ``measure, n, m, depth, closed_form, simulated,
    simulated_se`` (simulated columns NaN without ``simulate``). One set of
    ``simulate`` random ranking pairs serves every measure. ``m`` is printed as
    ``a:b`` for a range; ``depth`` is n when not given."""
    parsed = [parse_tie_measure(x) for x in measures]
    if simulate is not None and simulate < 1:
        raise UsageError(f"simulate={simulate}: samples must be >= 1")
    closed = [tie_probability(mu, n, m, depth) for mu in parsed]
    sim = [(np.nan, np.nan)] * len(parsed)
    if simulate:
        rk = random_rankings(n, m, simulate, depth=depth, seed=seed)
        sim = []
        for mu in parsed:
            t = tied(mu, rk)
            p = float(t.mean())
            sim.append((p, float(np.sqrt(p * (1 - p) / t.size))))
    m_label = str(m) if np.isscalar(m) else f"{m[0]}:{m[1]}"
    return pd.DataFrame(
        {
            "measure": [str(mu) for mu in parsed],
            "n": int(n),
            "m": m_label,
            "depth": int(n if depth is None else depth),
            "closed_form": closed,
            "simulated": [s[0] for s in sim],
            "simulated_se": [s[1] for s in sim],
        }
    )


def _higher_better(name: str, pos: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Per-ranking value, higher better, of the measures of lexirecall Table 2."""
    valid = pos != PAD
    if name == "nDCG":  # binary gains: sum_i 1/log2(p_i + 1) / sum_{i<=m} 1/log2(i + 1)
        ranks = np.arange(1, pos.shape[1] + 1)
        dcg = np.where(valid, 1.0 / np.log2(np.where(valid, pos, 1) + 1.0), 0.0).sum(axis=1)
        ideal = np.cumsum(1.0 / np.log2(ranks + 1.0))[m - 1]
        return dcg / ideal
    mu = parse_tie_measure(name)
    if mu.kind in ("TSE", "RR"):
        return -_values(mu, pos, m).astype(np.float64)  # lower position is better
    return _values(mu, pos, m).astype(np.float64)


def worst_case_agreement(
    measures: Sequence[str],
    n: int,
    m: int | tuple[int, int] = (5, 50),
    samples: int = 10_000,
    *,
    seed: int | None = 0,
) -> pd.DataFrame:
    """Lexirecall (Diaz & Mitra 2023) section 4.3, Table 2: how often a metric
    orders two random complete rankings as the worst-off user does.

    The worst case over users WC_mu(pi) is attained at the last relevant item
    (Appendix B), so pi is better for the worst-off user iff p_m < p'_m.
    ``agreement`` is the share of pairs not tied under WC where
    sgn(mu(pi) - mu(pi')) equals that order (a metric tie disagrees);
    ``random`` is a fair coin. ``tied`` is the share of pairs with p_m = p'_m.
    Columns: ``measure, n, m, tied, agreement, agreement_se``."""
    rk = random_rankings(n, m, samples, seed=seed)
    idx = np.arange(samples)
    wc = np.sign(rk.b[idx, rk.m - 1] - rk.a[idx, rk.m - 1])  # +1: a better
    use = wc != 0
    rng = np.random.default_rng(None if seed is None else seed + 1)
    rows = []
    for name in measures:
        if name == "random":
            sign = rng.choice([-1, 1], size=samples)
        else:
            d = _higher_better(name, rk.a, rk.m) - _higher_better(name, rk.b, rk.m)
            sign = np.where(np.abs(d) <= 1e-12, 0, np.sign(d))
        agree = (sign == wc)[use]
        p = float(agree.mean()) if agree.size else float("nan")
        rows.append({
            "measure": name, "n": int(n),
            "m": str(m) if np.isscalar(m) else f"{m[0]}:{m[1]}",
            "tied": float(1 - use.mean()), "agreement": p,
            "agreement_se": float(np.sqrt(p * (1 - p) / max(agree.size, 1))),
        })
    return pd.DataFrame(rows)


def rr_tie_table(
    n: int, m: int, p1: Sequence[int], *, simulate: int | None = None, seed: int | None = 0
) -> pd.DataFrame:
    """Lexiprecision (Diaz 2023) section 2, Fig. 2: ``p1, n, m, closed_form,
    simulated, simulated_se``. ``closed_form`` is Pr(p'_1 = p_1 | p_1) =
    C(n - p_1, m - 1) / C(n, m), the chance that a uniformly random ranking
    ties RR with a ranking whose first relevant item is at ``p_1``; with
    ``simulate`` K, the share of K seeded random rankings whose first relevant
    item is at p_1 (one set of rankings for every p_1) and its standard error."""
    p1 = np.asarray([int(x) for x in p1], dtype=np.int64)
    if p1.size == 0:
        raise UsageError("no p1 given")
    if np.any(p1 < 1) or np.any(p1 > n):
        raise UsageError(f"p1 must be in [1, n={n}]")
    if simulate is not None and simulate < 1:
        raise UsageError(f"simulate={simulate}: samples must be >= 1")
    closed = rr_tie_given_p1(p1, n, m)
    sim = np.full(p1.size, np.nan)
    se = np.full(p1.size, np.nan)
    if simulate:
        first = random_rankings(n, m, simulate, seed=seed).b[:, 0]
        sim = (first[None, :] == p1[:, None]).mean(axis=1)
        se = np.sqrt(sim * (1 - sim) / simulate)
    return pd.DataFrame({"p1": p1, "n": int(n), "m": int(m), "closed_form": closed,
                         "simulated": sim, "simulated_se": se})
