"""Lexicographic preferences: lexiprecision (sgnLP, rrLP) and lexirecall (sgnLR).

For one query with ``m`` relevant items, a ranking is summarised by ``p``,
the sorted positions (1-based) of the relevant items it retrieved; the
``m - k`` relevant items it did not retrieve come after every retrieved one
and tie with each other (pessimistic imputation at the bottom of the corpus,
Diaz & Mitra 2023 §2.2; the convention of the reference implementation
pref_eval, where an unretrieved item is ``None``).

- **sgnLP** (Diaz 2023, lexiprecision, §3.2, Eq. 3): compare ``p_1, p_2, ...``
  from the top; the first ``i*`` with ``p_i != p'_i`` decides,
  ``sgn(1/p_{i*} - 1/p'_{i*})``; 0 when all positions agree.
- **rrLP** (Eq. 2): the magnitude ``δRR_{i*} = 1/p_{i*} - 1/p'_{i*}`` with
  ``1/p = 0`` for an unretrieved item.
- **sgnLR** (Diaz & Mitra 2023, lexirecall, §5.2, Eq. 11): leximin, compare
  from the bottom, ``i* = max{i : p_i != p'_i}`` over the imputed ``m``-vectors:
  the ranking retrieving more relevant items wins, then the one whose lowest
  retrieved relevant item is higher, and so on upwards.

Both are total orders on rankings, so each has an exact *key*: a number per
ranking whose order is the preference's order.

- :func:`lexiprecision_key` is §6's ``μ_LP(π) = Σ_i π_i 2^{n-i}``, the ranking's
  relevance bits read as a binary integer (exact Python ``int``).
- :func:`lexirecall_key` is §7.3.2's metric lexirecall, Yager's leximin weights
  ``w_1 = Δ^{m-1}/(1+Δ)^{m-1}``, ``w_i = Δ^{m-i}/(1+Δ)^{m+1-i}`` (``i > 1``),
  ``Δ = 1/(n+ε)``, applied to ``x_i = (n - p_i)/n``, computed in exact
  rational arithmetic (:class:`fractions.Fraction`): in floating point the
  weights underflow and the order is lost (the paper's warning).

For all runs of a query at once, :func:`lexicographic_ranks` sorts the padded
position vectors (``np.lexsort``) into dense ranks, an exact total-order key
per (run, query); preferences between run pairs are then differences of
ranks, and rrLP's deciding level is a longest common prefix between
neighbours in that sorted order (a range minimum:
:class:`irpref.preferences.engines.RangeMinima`).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

__all__ = [
    "SENTINEL",
    "checked_positions",
    "lexicographic_ranks",
    "lexiprecision_key",
    "lexirecall_key",
    "rr_lp",
    "sgn_lp",
    "sgn_lr",
]

SENTINEL = float(2**40)
"""Position stored for an unretrieved relevant item in padded arrays."""


def checked_positions(p: Sequence[int]) -> list[int]:
    """The 1-based positions of relevant items, sorted; refuses 0, negatives and repeats."""
    out = sorted(int(x) for x in p)
    if out and out[0] < 1:
        raise ValueError(f"positions are 1-based; got {out[0]}")
    if len(set(out)) != len(out):
        raise ValueError("two relevant items cannot share a position")
    return out


def _check_m(x: list[int], y: list[int], m: int | None) -> None:
    if m is not None and max(len(x), len(y)) > m:
        raise ValueError(f"more retrieved relevant items than m = {m}")


def sgn_lp(p: Sequence[int], q: Sequence[int], m: int | None = None) -> int:
    """sgnLP(π, π') (lexiprecision Eq. 3) from the positions of the relevant
    items each ranking retrieved (unretrieved ones tie and come last)."""
    x, y = checked_positions(p), checked_positions(q)
    _check_m(x, y, m)
    for a, b in zip(x, y):
        if a != b:
            return 1 if a < b else -1
    return (len(x) > len(y)) - (len(x) < len(y))


def rr_lp(p: Sequence[int], q: Sequence[int], m: int | None = None) -> float:
    """rrLP(π, π') = 1/p_{i*} - 1/p'_{i*} (lexiprecision Eq. 2); 1/p = 0 when unretrieved."""
    x, y = checked_positions(p), checked_positions(q)
    _check_m(x, y, m)
    for a, b in zip(x, y):
        if a != b:
            return 1.0 / a - 1.0 / b
    if len(x) > len(y):
        return 1.0 / x[len(y)]
    if len(y) > len(x):
        return -1.0 / y[len(x)]
    return 0.0


def sgn_lr(p: Sequence[int], q: Sequence[int], m: int | None = None) -> int:
    """sgnLR(π, π') (lexirecall Eq. 11): leximin from the bottom, unretrieved
    relevant items imputed at the bottom of the corpus."""
    x, y = checked_positions(p), checked_positions(q)
    _check_m(x, y, m)
    if len(x) != len(y):
        return 1 if len(x) > len(y) else -1
    for a, b in zip(reversed(x), reversed(y)):
        if a != b:
            return 1 if a < b else -1
    return 0


def lexiprecision_key(p: Sequence[int], depth: int) -> int:
    """μ_LP(π) = Σ_{relevant at rank i} 2^{depth - i} (lexiprecision §6), exact.

    ``depth`` bounds every position (the longest ranking compared); an
    unretrieved item contributes nothing. ``μ_LP(π) > μ_LP(π')`` exactly when
    ``sgnLP(π, π') > 0``.
    """
    x = checked_positions(p)
    if x and x[-1] > depth:
        raise ValueError(f"position {x[-1]} is deeper than depth = {depth}")
    return sum(1 << (depth - i) for i in x)


def lexirecall_key(
    p: Sequence[int], m: int, n: int, eps: Fraction | int | str = Fraction(1, 2)
) -> Fraction:
    """Metric lexirecall LR(p) = Σ_i w_i (n - p_i)/n (lexirecall §7.3.2), exact.

    ``p`` are the positions of the retrieved relevant items; the other
    ``m - k`` are imputed at ``n-m+k+1, ..., n`` (pessimistic). Yager's weights
    with ``Δ = 1/(n+ε)``, ``ε ∈ (0, 1)``, in rational arithmetic.
    ``LR(p) > LR(p')`` exactly when ``sgnLR(π, π') > 0``.
    """
    x = checked_positions(p)
    eps = Fraction(eps)
    if not 0 < eps < 1:
        raise ValueError(f"eps must lie in (0, 1), not {eps}")
    if len(x) > m:
        raise ValueError(f"{len(x)} retrieved relevant items but m = {m}")
    if n < max(m, 1) or (x and x[-1] > n - (m - len(x))):
        raise ValueError(f"corpus size n = {n} leaves no room to impute {m - len(x)} items")
    full = x + [n - m + i for i in range(len(x) + 1, m + 1)]
    delta = 1 / (n + eps)
    r = delta / (1 + delta)
    total = Fraction(0)
    for i, pos in enumerate(full, start=1):
        w = r ** (m - 1) if i == 1 else r ** (m - i) / (1 + delta)
        total += w * Fraction(n - pos, n)
    return total


# ---------------------------------------------------------------- vectorized


def lexicographic_ranks(
    pos: np.ndarray, count: np.ndarray, direction: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dense ranks (0 = best) of the runs of every population, exact total-order keys.

    pos:       (G, R, L) float64 sorted positions, :data:`SENTINEL` past ``count``.
    count:     (G, R) number of retrieved relevant items.
    direction: ``precision`` (compare from the top) or ``recall`` (from the bottom).

    Returns ``rank`` (G, R), the sorted order ``order`` (G, R) (run indices,
    best first) and ``lcp`` (G, R-1): for neighbours ``order[s]``,
    ``order[s+1]`` the first level (0-based) where their keys differ (``L`` if
    equal); for ``precision`` that is rrLP's deciding level ``i*``.
    """
    g, r, lvl = pos.shape
    if direction == "precision":
        keys = pos
        primary = None
    elif direction == "recall":
        # key (-k, p_k, p_{k-1}, ..., p_1): more retrieved first, then bottom-up
        idx = count[:, :, None] - 1 - np.arange(lvl)[None, None, :]
        keys = np.take_along_axis(pos, np.maximum(idx, 0), axis=2)
        keys[idx < 0] = 0.0
        primary = -count.astype(np.float64)
    else:
        raise ValueError(f"direction must be 'precision' or 'recall', not {direction!r}")
    rows = keys.reshape(g * r, lvl)
    group = np.repeat(np.arange(g), r)
    sort_keys = [rows[:, j] for j in range(lvl - 1, -1, -1)]
    if primary is not None:
        sort_keys.append(primary.ravel())
    sort_keys.append(group)
    order = np.lexsort(sort_keys) if g * r else np.zeros(0, np.int64)
    srt = rows[order]
    neq = srt[1:] != srt[:-1]
    if primary is not None:
        pk = primary.ravel()[order]
        new = neq.any(axis=1) | (pk[1:] != pk[:-1])
    else:
        new = neq.any(axis=1)
    new = np.concatenate(([True], new))
    new[::r] = True  # a new population starts every r rows (sorted by group first)
    dense = np.cumsum(new) - 1
    dense = dense - dense[::r].repeat(r)
    rank = np.empty(g * r, np.int64)
    rank[order] = dense
    lcp = np.where(neq.any(axis=1), np.argmax(neq, axis=1), lvl)
    lcp = np.concatenate((lcp, [lvl])).reshape(g, r)[:, : r - 1]
    return rank.reshape(g, r), (order % r).reshape(g, r), lcp
