"""Recall-paired preference (Diaz & Ferraro 2022, "Offline Retrieval
Evaluation Without Evaluation Metrics", SIGIR).

A user who needs exactly ``i`` relevant items prefers the ranking that
reaches its ``i``-th relevant item first; RPP is the expected preference over
a population of such users (§4):

- Eq. 4 (binary): ``RPP(π, π') = Σ_{i=1}^{m} p(i) sgn(f'_i - f_i)``, ``f_i`` the
  position of the ``i``-th relevant item, an unretrieved item after all
  retrieved ones (two unretrieved items tie);
- §5.3 weightings of recall levels: ``p(i) ∝ 1`` (``uniform``),
  ``1/log2(i+1)`` (``dcg``), ``1/i`` (``inverse``), normalised over ``i <= m``;
- Eq. 5 (graded): one pseudo-population per grade ``λ`` (items with grade
  ``>= λ``), ``p(i, λ) = p(λ) p(i|λ)`` with ``p(λ) ∝ m_λ = |{d : y_d >= λ}|``
  and ``p(i|λ)`` the weighting over ``i <= m_λ``;
- Eq. 6 (subtopics): one population per subtopic ``t`` (``p(t) ∝ m_t``) plus
  the background ``t*`` of items relevant to any subtopic (``p(t*) ∝ m``).

Every variant is thus a mixture over *populations* ``g`` (the query itself, a
grade, a subtopic) of ``Σ_i p(i|g) sgn(f'_{i,g} - f_{i,g})``; the kernel
:func:`irpref.preferences.engines.level_sums` evaluates it for blocks of run pairs
of many populations at once.

Difference from pref_eval (the authors' code): its graded RPP caches the
first position vector it builds per run and query (the items at or above the
grade of the first run's top-ranked relevant item) and returns it for every
grade, a binary RPP at an order-dependent threshold; irpref implements Eq. 5
as written, which is what reproduces the paper's graded tables.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from irpref.preferences.lexicographic import checked_positions

__all__ = ["level_weights", "rpp", "rpp_mixture"]


def level_weights(n: int, p: str = "uniform") -> np.ndarray:
    """Unnormalised p(i) for recall levels ``i = 1..n`` (§5.3)."""
    i = np.arange(1, n + 1, dtype=np.float64)
    if p == "uniform":
        return np.ones(n)
    if p == "dcg":
        return 1.0 / np.log2(i + 1.0)
    if p == "inverse":
        return 1.0 / i
    raise ValueError(f"p must be one of uniform, dcg, inverse; not {p!r}")


def rpp(f: Sequence[int], g: Sequence[int], m: int, p: str = "uniform") -> float:
    """RPP(π, π') of Eq. 4 from the positions of the relevant items each
    ranking retrieved, for a query with ``m`` relevant items."""
    x, y = checked_positions(f), checked_positions(g)
    if max(len(x), len(y)) > m:
        raise ValueError(f"more retrieved relevant items than m = {m}")
    if m == 0:
        return 0.0
    w = level_weights(m, p)
    inf = float("inf")
    total = 0.0
    for i in range(m):
        a = x[i] if i < len(x) else inf
        b = y[i] if i < len(y) else inf
        total += w[i] * ((b > a) - (b < a))
    return total / float(w.sum())


def rpp_mixture(populations: Sequence[tuple[Sequence[int], Sequence[int], int]],
                p: str = "uniform") -> float:
    """Graded / subtopic RPP (Eq. 5-6): populations ``(f, f', m_g)`` mixed
    with ``p(g) ∝ m_g``."""
    total_m = sum(m for _, _, m in populations)
    if total_m == 0:
        return 0.0
    return sum(m * rpp(f, g, m, p) for f, g, m in populations if m) / total_m
