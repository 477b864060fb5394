"""Worst-off searchers and providers (Diaz & Mitra 2023, §4, Appendix B).

For a ranking with relevant positions ``p`` (sorted, m items), every
non-empty subset ``w`` of the m relevant items is a possible

- *searcher* whose relevant set is ``w``: utility
  ``mu(pi, w) = sum_{i=1..|w|} e(p_{w_i}) z(i, |w|)`` (Eq. 4 over U = R^+);
- *provider* owning ``w``: cumulative positive exposure
  ``eta(pi, R, w) = sum_{j in w} e(p_j)`` (Eq. 2, Eq. 6 over V = R^+).

Theorems B.1-B.2: for a top-heavy recall-level metric with ``z(1,1) = 1``
both minima equal ``TSE = e(p_m)``. These brute-force functions enumerate all
``2^m - 1`` subsets (vectorized over subsets; m <= 20), for tests and
analysis; the measures themselves never enumerate.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from irpref.measures.recall_metrics import RecallLevelMetric

__all__ = [
    "is_top_heavy",
    "provider_utilities",
    "subsets",
    "user_utilities",
    "worst_provider",
    "worst_user",
]

MAX_M = 20


def subsets(m: int) -> np.ndarray:
    """(2^m - 1, m) bool: every non-empty subset of ``m`` items as a row."""
    if not 1 <= m <= MAX_M:
        raise ValueError(f"brute force over subsets needs 1 <= m <= {MAX_M}, got {m}")
    codes = np.arange(1, 2**m, dtype=np.int64)
    return ((codes[:, None] >> np.arange(m)) & 1).astype(bool)


def _sorted(p) -> np.ndarray:
    p = np.sort(np.asarray(p, dtype=np.float64))
    if p.ndim != 1 or len(p) == 0:
        raise ValueError("p must be a non-empty vector of positions")
    return p


def user_utilities(metric: RecallLevelMetric, p, n: float | None = None):
    """Utility ``mu(pi, w)`` of every possible searcher ``w`` (rows of
    :func:`subsets`), as (subsets, utilities)."""
    p = _sorted(p)
    w = subsets(len(p))
    level = np.cumsum(w, axis=1)  # recall level of item j within w
    size = np.broadcast_to(w.sum(axis=1, keepdims=True), w.shape)
    contrib = metric.exposure(p, n)[None, :] * metric.norm(np.maximum(level, 1), size)
    return w, np.where(w, contrib, 0.0).sum(axis=1)


def provider_utilities(metric: RecallLevelMetric, p, n: float | None = None):
    """Cumulative positive exposure ``eta(pi, R, w)`` of every possible
    provider ``w``, as (subsets, utilities)."""
    p = _sorted(p)
    w = subsets(len(p))
    return w, (w * metric.exposure(p, n)[None, :]).sum(axis=1)


def _worst(w: np.ndarray, u: np.ndarray) -> tuple[float, np.ndarray]:
    k = int(np.argmin(u))
    return float(u[k]), np.flatnonzero(w[k])


def worst_user(metric: RecallLevelMetric, p: ArrayLike,
               n: float | None = None) -> tuple[float, np.ndarray]:
    """The worst-off searcher's utility (Diaz & Mitra 2023, Eq. 4), by brute force.

    Every non-empty subset w of the m relevant items is a possible searcher
    whose relevant set is w; its utility is ``sum_i e(p_{w_i}) z(i, |w|)``. For
    a top-heavy recall-level metric the minimum equals ``TSE = e(p_m)``
    (Theorem B.1). Enumerates the 2^m - 1 subsets (m <= 20).

    Parameters
    ----------
    metric : RecallLevelMetric
        The recall-level metric (exposure e, normalization z).
    p : array_like
        Positions of the relevant items (any order).
    n : float, optional
        Corpus size (for exposures that read it).

    Returns
    -------
    utility : float
        The smallest utility.
    subset : numpy.ndarray
        0-based recall levels of the worst-off searcher's items.

    Raises
    ------
    ValueError
        ``p`` empty, or more than 20 relevant items.

    Examples
    --------
    >>> import irpref
    >>> irpref.worst_user(irpref.RecallLevelMetric("ap", "ap"), [1, 3, 10], 100)
    (0.1, array([2]))
    """
    return _worst(*user_utilities(metric, p, n))


def worst_provider(metric: RecallLevelMetric, p: ArrayLike,
                   n: float | None = None) -> tuple[float, np.ndarray]:
    """The worst-off provider's exposure (Diaz & Mitra 2023, Eq. 6), by brute force.

    Every non-empty subset w of the m relevant items is a possible provider
    owning w; its cumulative positive exposure is ``sum_{j in w} e(p_j)``. For
    a top-heavy recall-level metric the minimum equals ``TSE = e(p_m)``
    (Theorem B.2). Enumerates the 2^m - 1 subsets (m <= 20).

    Parameters
    ----------
    metric : RecallLevelMetric
        The recall-level metric (its exposure e).
    p : array_like
        Positions of the relevant items (any order).
    n : float, optional
        Corpus size (for exposures that read it).

    Returns
    -------
    exposure : float
        The smallest exposure.
    subset : numpy.ndarray
        0-based recall levels of the worst-off provider's items.

    Raises
    ------
    ValueError
        ``p`` empty, or more than 20 relevant items.

    Examples
    --------
    >>> import irpref
    >>> irpref.worst_provider(irpref.RecallLevelMetric("ap", "ap"), [1, 3, 10], 100)
    (0.1, array([2]))
    """
    return _worst(*provider_utilities(metric, p, n))


def is_top_heavy(metric: RecallLevelMetric, p, n: float | None = None,
                 tol: float = 1e-12) -> bool:
    """Definition 2.2 at ``p``: dropping the top j relevant items (renumbering
    the rest from 1) never increases the metric, for j in [0, m)."""
    p = _sorted(p)
    full = metric(p, n)
    return all(metric(p[j:], n) <= full + tol for j in range(len(p)))
