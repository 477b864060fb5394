"""Recall-level metrics as values: ``mu(p) = sum_{i=1..m} e(p_i) z(i, m)``.

Diaz & Mitra 2023, "Recall, Robustness, and Lexicographic Evaluation",
section 2.3.1, Def. 2.1: the exposures ``e`` and normalizations ``z`` of the
paper and :class:`RecallLevelMetric`. The measure families that evaluate them
are registered in :mod:`irpref.measures.recall_level`; their residual bounds
(:mod:`irpref.measures.recall_level_bounds`) read the same metrics.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["EXPOSURES", "NORMALIZATIONS", "RecallLevelMetric", "named_metric"]

Exposure = Callable[[np.ndarray, "float | None", float], np.ndarray]
Normalization = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _e_inverse(i: np.ndarray, n: float | None, gamma: float) -> np.ndarray:
    return 1.0 / i


def _e_log(i: np.ndarray, n: float | None, gamma: float) -> np.ndarray:
    return 1.0 / np.log2(i + 1.0)


def _e_geometric(i: np.ndarray, n: float | None, gamma: float) -> np.ndarray:
    return (1.0 - gamma) * np.power(gamma, i - 1.0)


def _e_linear(i: np.ndarray, n: float | None, gamma: float) -> np.ndarray:
    if n is None:
        raise ValueError(
            "linear exposure e(i) = 1 - i/n needs the corpus size n: "
            "pass corpus_size=N (CLI: --corpus-size N)"
        )
    return 1.0 - i / n


EXPOSURES: dict[str, Exposure] = {
    "ap": _e_inverse,
    "rr": _e_inverse,
    "ndcg": _e_log,
    "rbp": _e_geometric,
    "lin": _e_linear,
}
"""Exposure functions ``e(i, n, γ)`` of Diaz & Mitra 2023 §2.3.1."""


def _z_ap(i: np.ndarray, m: np.ndarray) -> np.ndarray:
    return i / np.maximum(m, 1)


def _z_rr(i: np.ndarray, m: np.ndarray) -> np.ndarray:
    return (i == 1).astype(np.float64)


def _z_ndcg(i: np.ndarray, m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.int64)
    top = int(m.max(initial=0))
    ideal = np.concatenate(([1.0], np.cumsum(1.0 / np.log2(np.arange(2, top + 2)))))
    return np.broadcast_to(1.0 / ideal[np.maximum(m, 0)], np.shape(i)).astype(np.float64)


def _z_one(i: np.ndarray, m: np.ndarray) -> np.ndarray:
    return np.ones(np.broadcast_shapes(np.shape(i), np.shape(m)))


def _z_last(i: np.ndarray, m: np.ndarray) -> np.ndarray:
    return (i == m).astype(np.float64)


def _z_mean(i: np.ndarray, m: np.ndarray) -> np.ndarray:
    return np.broadcast_to(1.0 / np.maximum(m, 1), np.shape(i)).astype(np.float64)


NORMALIZATIONS: dict[str, Normalization] = {
    "ap": _z_ap,
    "rr": _z_rr,
    "ndcg": _z_ndcg,
    "rbp": _z_one,
    "sl3": _z_last,
    "mean": _z_mean,
}
"""Normalizations ``z(i, m)`` of Diaz & Mitra 2023 §2.3.1 and §3.2 (``sl3``)."""


@dataclass(frozen=True)
class RecallLevelMetric:
    """A recall-level metric ``mu(p) = sum_i e(p_i) z(i, m)`` (Diaz & Mitra 2023, Def. 2.1).

    ``p`` holds the sorted positions of a query's m relevant items; ``e`` is an
    exposure of a position and ``z`` a normalization of a recall level. Called
    as ``metric(p, n)`` it gives the metric of one query. Undefined positions
    (NaN) get exposure 0.

    Parameters
    ----------
    e : str or callable, default "ap"
        Exposure: a name (``ap``, ``rr``, ``ndcg``, ``rbp``, ``lin``, ...) or a
        function ``e(i, n, gamma)`` on arrays.
    z : str or callable, default "ap"
        Normalization: a name (``ap``, ``rr``, ``ndcg``, ``rbp``, ``sl3``,
        ``mean``, ...) or a function ``z(i, m)`` on arrays.
    gamma : float, default 0.8
        RBP persistence, in (0, 1).
    name : str, default ""
        Display name (default ``RL(e=...,z=...)``).

    Raises
    ------
    ValueError
        An unknown exposure or normalization name, or ``gamma`` outside (0, 1).

    Examples
    --------
    >>> import irpref
    >>> ap = irpref.RecallLevelMetric("ap", "ap")
    >>> str(ap), round(ap([1, 3, 10], 100), 4)
    ('RL(e=ap,z=ap)', 0.6556)
    """

    e: str | Exposure = "ap"
    z: str | Normalization = "ap"
    gamma: float = 0.8
    name: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.e, str) and self.e not in EXPOSURES:
            raise ValueError(f"unknown exposure {self.e!r}; known: {', '.join(EXPOSURES)}")
        if isinstance(self.z, str) and self.z not in NORMALIZATIONS:
            raise ValueError(
                f"unknown normalization {self.z!r}; known: {', '.join(NORMALIZATIONS)}"
            )
        if not 0.0 < self.gamma < 1.0:
            raise ValueError(f"the RBP persistence must be in (0, 1), not {self.gamma}")

    def __str__(self) -> str:
        if self.name:
            return self.name
        e = self.e if isinstance(self.e, str) else getattr(self.e, "__name__", "e")
        z = self.z if isinstance(self.z, str) else getattr(self.z, "__name__", "z")
        return f"RL(e={e},z={z})"

    def exposure(self, i, n: float | None = None) -> np.ndarray:
        """e(i) for positions ``i`` (NaN -> 0: an undefined position is unseen)."""
        i = np.asarray(i, dtype=np.float64)
        f = EXPOSURES[self.e] if isinstance(self.e, str) else self.e
        with np.errstate(invalid="ignore"):
            out = np.asarray(f(i, n, self.gamma), dtype=np.float64)
        return np.where(np.isnan(i), 0.0, out)

    def norm(self, i, m) -> np.ndarray:
        """z(i, m) for recall levels ``i`` of queries with ``m`` relevant items."""
        f = NORMALIZATIONS[self.z] if isinstance(self.z, str) else self.z
        return np.asarray(f(np.asarray(i), np.asarray(m)), dtype=np.float64)

    def __call__(self, p, n: float | None = None) -> float:
        """The metric for one query: ``p`` holds the positions of its relevant
        items (any order; sorted here), ``n`` the corpus size."""
        p = np.sort(np.asarray(p, dtype=np.float64))
        if len(p) == 0:
            return 0.0
        i = np.arange(1, len(p) + 1)
        return float(np.sum(self.exposure(p, n) * self.norm(i, np.full(len(p), len(p)))))

    def tse(self) -> RecallLevelMetric:
        """TSE with this exposure: the same ``e`` with ``z = sl3`` (Eq. 3)."""
        return RecallLevelMetric(self.e, "sl3", self.gamma, f"TSE(e={self.e})")


def named_metric(name: str, gamma: float = 0.8) -> RecallLevelMetric:
    """The paper's metric ``ap``, ``rr``, ``ndcg`` or ``rbp`` as (e, z)."""
    if name not in ("ap", "rr", "ndcg", "rbp"):
        raise ValueError(f"no named recall-level metric {name!r} (ap, rr, ndcg, rbp)")
    label = "nDCG" if name == "ndcg" else name.upper()
    return RecallLevelMetric(name, name, gamma, f"RL-{label}")
