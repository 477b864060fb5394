"""Tie probabilities of random rankings in closed form.

Two rankings pi, pi' are drawn independently and uniformly from the n!
permutations of n items, m of them relevant; only the sorted positions
p_1 < ... < p_m of the relevant items matter, and each of the C(n, m) position
sets is equally likely. With a retrieval depth ñ < n the rankings are
*pessimistically imputed* (Diaz & Mitra 2023, lexirecall, section 2.2): the
m - m̃ relevant items below ñ move to the bottom positions n - (m - m̃) + 1..n.
m̃, the number retrieved, is hypergeometric: Pr(m̃ = j) = C(ñ, j) C(n - ñ, m - j) / C(n, m).

For a measure with value distribution Pr(v), Pr(tie) = sum_v Pr(v)^2. In
closed form (lexirecall Appendix D, Theorems D.1-D.4, extended to ñ < n):

- TSE (position of the last relevant item, p_m), Theorem D.2:
  Pr(p_m = i) = C(i - 1, m - 1) / C(n, m) for i <= ñ; the rest of the mass
  (not all m retrieved) sits at the imputed p_m = n.
- R_k (relevant in the top k), Theorem D.3: hypergeometric for k <= ñ,
  Pr(Rel_k = i) = C(k, i) C(n - k, m - i) / C(n, m); for k > ñ the value is
  m̃ + max(0, k - n + m - m̃).
- RP (R-precision, R_k at k = m), Theorem D.4.
- Lexirecall / lexiprecision (ties only when p = p'), Theorem D.1:
  sum_j C(ñ, j) (C(n - ñ, m - j) / C(n, m))^2, which is 1 / C(n, m) for ñ = n.
- RR (1 / p_1), lexiprecision (Diaz 2023) section 2:
  Pr(p'_1 = p_1 | p_1) = C(n - p_1, m - 1) / C(n, m); unconditionally the sum of
  its squares over p_1 <= ñ plus Pr(m̃ = 0)^2.
- AP has no closed form: it is computed exactly by enumerating all C(n, m)
  position sets (exact rational arithmetic) when there are at most
  ``AP_ENUMERATION_LIMIT`` of them, else reported as NaN (use the simulation).
  AP is taken on the imputed ranking: (1/m) sum_i i / p_i.

With m ~ U(a, b) (discrete uniform, inclusive) the probability is the mean of
the fixed-m probabilities. All sums run in log space (n up to 10^7 is fine).
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln, logsumexp

from irpref.errors import UsageError

__all__ = [
    "AP_ENUMERATION_LIMIT",
    "TieMeasure",
    "parse_tie_measure",
    "rr_tie_given_p1",
    "tie_probability",
]

AP_ENUMERATION_LIMIT = 200_000


@dataclass(frozen=True)
class TieMeasure:
    """A measure whose tie probability irpref knows: ``kind`` in
    {TSE, R, Rprec, AP, LR, LP, RR}; ``k`` the cut-off of R@k."""

    kind: str
    k: int | None = None
    label: str = ""

    def __str__(self) -> str:
        return self.label or (f"R@{self.k}" if self.kind == "R" else self.kind)


_ALIASES = {
    "tse": "TSE",
    "rprec": "Rprec", "rp": "Rprec", "r-prec": "Rprec", "r_prec": "Rprec",
    "ap": "AP", "map": "AP",
    "sgnlr": "LR", "rrlr": "LR", "lr": "LR", "lexirecall": "LR",
    "sgnlp": "LP", "rrlp": "LP", "lp": "LP", "lexiprecision": "LP",
    "rr": "RR", "mrr": "RR", "recip_rank": "RR",
}
_CANONICAL = {"TSE": "TSE", "Rprec": "Rprec", "AP": "AP", "LR": "sgnLR", "LP": "sgnLP",
              "RR": "RR"}
_RECALL = re.compile(r"^(?:r|recall)(?:@|_)(\d+)$", re.IGNORECASE)


def parse_tie_measure(name: str) -> TieMeasure:
    """``TSE``, ``R@k`` (``recall_k``), ``Rprec`` (``RP``), ``AP``, ``sgnLR``
    (``LR``), ``sgnLP`` (``LP``), ``RR``; case-insensitive."""
    s = str(name).strip()
    m = _RECALL.match(s)
    if m:
        k = int(m.group(1))
        if k < 1:
            raise UsageError(f"{s}: k must be >= 1")
        return TieMeasure("R", k, f"R@{k}")
    kind = _ALIASES.get(s.lower())
    if kind is None:
        raise UsageError(
            f"unknown measure for tie probabilities: {s!r} "
            "(known: TSE, R@k, Rprec, AP, sgnLR, sgnLP, RR)"
        )
    return TieMeasure(kind, None, _CANONICAL[kind])


def _lbinom(n, k):
    n = np.asarray(n, dtype=float)
    k = np.asarray(k, dtype=float)
    return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)


def _check(n: int, m: int, depth: int | None) -> int:
    if n < 1:
        raise UsageError(f"n={n}: n must be >= 1")
    if not 1 <= m <= n:
        raise UsageError(f"m={m}: m must be in [1, n={n}]")
    if depth is None:
        return n
    if not 1 <= depth <= n:
        raise UsageError(f"depth={depth}: depth must be in [1, n={n}]")
    return int(depth)


def _retrieved_log_pmf(n: int, m: int, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """j = m̃ and log Pr(m̃ = j), the hypergeometric count of relevant in the top ñ."""
    j = np.arange(max(0, m - (n - depth)), min(m, depth) + 1)
    return j, _lbinom(depth, j) + _lbinom(n - depth, m - j) - _lbinom(n, m)


def _sum_sq_of_values(values: np.ndarray, logp: np.ndarray) -> float:
    """sum_v Pr(v)^2 where several entries may share a value v."""
    uniq, inv = np.unique(values, return_inverse=True)
    out = np.full(uniq.size, -np.inf)
    np.logaddexp.at(out, inv, logp)
    return float(np.exp(logsumexp(2 * out)))


def _tse(n, m, depth):
    i = np.arange(m, depth + 1)
    logp = _lbinom(i - 1, m - 1) - _lbinom(n, m)
    terms = [2 * logp]
    if depth < n:
        rest = -np.expm1(logsumexp(_lbinom(depth, m) - _lbinom(n, m))) if depth >= m else 1.0
        if rest > 0:
            terms.append(np.array([2 * math.log(rest)]))
    return float(np.exp(logsumexp(np.concatenate(terms))))


def _rr(n, m, depth):
    i = np.arange(1, min(depth, n - m + 1) + 1)
    logp = _lbinom(n - i, m - 1) - _lbinom(n, m)
    terms = [2 * logp]
    if depth < n and n - depth >= m:  # nothing retrieved: Pr(m̃ = 0)
        terms.append(np.array([2 * (_lbinom(n - depth, m) - _lbinom(n, m))]))
    return float(np.exp(logsumexp(np.concatenate(terms))))


def _recall_at(n, m, depth, k):
    if k >= n:
        return 1.0
    if k <= depth:
        i = np.arange(max(0, m - (n - k)), min(m, k) + 1)
        logp = _lbinom(k, i) + _lbinom(n - k, m - i) - _lbinom(n, m)
        return float(np.exp(logsumexp(2 * logp)))
    j, logp = _retrieved_log_pmf(n, m, depth)
    values = j + np.maximum(0, k - n + m - j)
    return _sum_sq_of_values(values, logp)


def _identical(n, m, depth):
    j, logp = _retrieved_log_pmf(n, m, depth)
    return float(np.exp(logsumexp(2 * logp - _lbinom(depth, j))))


def _ap_exact(n, m, depth):
    total = math.comb(n, m)
    if total > AP_ENUMERATION_LIMIT:
        return float("nan")
    lcm = math.lcm(*range(1, n + 1))
    counts: dict[int, int] = {}
    for pos in itertools.combinations(range(1, n + 1), m):
        kept = [p for p in pos if p <= depth]
        j = len(kept)
        imputed = kept + [n - (m - 1 - t) for t in range(j, m)]
        key = sum((t + 1) * (lcm // p) for t, p in enumerate(imputed))
        counts[key] = counts.get(key, 0) + 1
    return float(sum(c * c for c in counts.values()) / (total * total))


def _one(measure: TieMeasure, n: int, m: int, depth: int) -> float:
    if measure.kind == "TSE":
        return _tse(n, m, depth)
    if measure.kind == "RR":
        return _rr(n, m, depth)
    if measure.kind == "R":
        return _recall_at(n, m, depth, measure.k)
    if measure.kind == "Rprec":
        return _recall_at(n, m, depth, m)
    if measure.kind in ("LR", "LP"):
        return _identical(n, m, depth)
    if measure.kind == "AP":
        return _ap_exact(n, m, depth)
    raise UsageError(f"no closed form for {measure}")


def tie_probability(
    measure: str | TieMeasure, n: int, m: int | tuple[int, int], depth: int | None = None
) -> float:
    """Pr(pi =_mu pi') for two independent uniformly random rankings of n items,
    m relevant (or m ~ U(a, b) for ``m=(a, b)``), retrieved to ``depth`` and
    pessimistically imputed (see the module docstring for the formulas)."""
    mu = measure if isinstance(measure, TieMeasure) else parse_tie_measure(measure)
    a, b = (m, m) if np.isscalar(m) else m
    a, b = int(a), int(b)
    if a > b:
        raise UsageError(f"m={a}:{b}: the range must have a <= b")
    values = []
    for mm in range(a, b + 1):
        d = _check(n, mm, depth)
        values.append(_one(mu, int(n), mm, d))
    return float(np.mean(values))


def rr_tie_given_p1(p1, n: int, m: int) -> np.ndarray:
    """Pr(p'_1 = p_1 | p_1) = C(n - p_1, m - 1) / C(n, m) (lexiprecision, section 2,
    Fig. 2): the chance that a uniformly random second ranking ties RR with a
    ranking whose first relevant item is at ``p1`` (0 where p1 > n - m + 1)."""
    _check(n, m, None)
    p1 = np.asarray(p1)
    if np.any(p1 < 1) or np.any(p1 > n):
        raise UsageError(f"p1 must be in [1, n={n}]")
    ok = p1 <= n - m + 1
    out = np.zeros(p1.shape, dtype=float)
    out[ok] = np.exp(_lbinom(n - p1[ok], m - 1) - _lbinom(n, m))
    return out
