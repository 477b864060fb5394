"""Precision and recall orientation of a metric (Diaz & Mitra 2023, §3.1, Fig. 2-3).

For m relevant items in a ranking of n:

- *precision orientation*: ``mu(p) - mu(p')`` where ``p = (1, n-m+2, ..., n)``
  has the top relevant item first and the other m-1 at the bottom, and
  ``p' = (n-m+1, ..., n)`` moves that item to the worst place it can take;
- *recall orientation*: ``mu(p) - mu(p')`` where ``p = (1, ..., m)`` and
  ``p' = (1, ..., m-1, n)`` moves the bottom relevant item to position n.

``scaled=True`` divides both by the metric's range for that m,
``mu(1..m) - mu(n-m+1..n)`` (how Fig. 3 plots TSE, so that it applies to any
exposure). A metric is a :class:`~irpref.measures.recall_level.RecallLevelMetric`,
any callable ``metric(p, n) -> float`` of the sorted positions, or a measure
name: ``AP``, ``RR``, ``nDCG``, ``RBP(p=0.8)``, ``R@k``, ``TSE(e=...)``,
``RL(e=...,z=...)`` (and their RL- forms and other tools' spellings, e.g. ``map``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
import pandas as pd

from irpref.measures.recall_metrics import RecallLevelMetric, named_metric

__all__ = [
    "as_metric",
    "figure3",
    "figure3_metrics",
    "orientation",
    "precision_orientation",
    "recall_orientation",
]

Metric = Callable[[np.ndarray, float], float]


def as_metric(metric: Metric | str) -> Metric:
    """A measure name as the recall-level metric of its sorted positions."""
    if not isinstance(metric, str):
        return metric
    from irpref.errors import UsageError
    from irpref.measures import parse_measure

    m = parse_measure(metric)
    gamma = m.get("p") if "p" in m.family.params else 0.8
    named = {"AP": "ap", "RL-AP": "ap", "RR": "rr", "RL-RR": "rr", "nDCG": "ndcg",
             "RL-nDCG": "ndcg", "RBP": "rbp", "RL-RBP": "rbp"}
    if m.name in named and m.cutoff is None:
        return named_metric(named[m.name], gamma)
    if m.name == "R" and m.cutoff is not None:
        return _recall_at(m.cutoff)
    if m.name == "TSE":
        return RecallLevelMetric(m.get("e"), "sl3", gamma, name=str(m))
    if m.name == "RL":
        return RecallLevelMetric(m.get("e"), m.get("z"), gamma, name=str(m))
    raise UsageError(
        f"{metric}: orientation needs a metric of the relevant positions: AP, RR, nDCG, "
        "RBP(p=...), R@k, TSE(e=...) or RL(e=...,z=...)"
    )


def _check(m: int, n: float) -> None:
    if m < 1 or n < m:
        raise ValueError(f"orientation needs 1 <= m <= n, got m={m}, n={n}")


def _range(metric: Metric, m: int, n: float) -> float:
    best = metric(np.arange(1.0, m + 1), n)
    worst = metric(np.arange(n - m + 1.0, n + 1), n)
    return best - worst


def precision_orientation(metric: Metric | str, m: int, n: float, scaled: bool = False) -> float:
    """Change when the top relevant item moves from position 1 to n-m+1, the
    other m-1 held at the bottom (Fig. 2a)."""
    _check(m, n)
    metric = as_metric(metric)
    bottom = np.arange(n - m + 2.0, n + 1)
    delta = metric(np.concatenate(([1.0], bottom)), n) - metric(
        np.concatenate(([n - m + 1.0], bottom)), n
    )
    return delta / _range(metric, m, n) if scaled else delta


def recall_orientation(metric: Metric | str, m: int, n: float, scaled: bool = False) -> float:
    """Change when the bottom relevant item moves from position m to n, the
    other m-1 held at the top (Fig. 2b)."""
    _check(m, n)
    metric = as_metric(metric)
    top = np.arange(1.0, m)
    delta = metric(np.concatenate((top, [float(m)])), n) - metric(
        np.concatenate((top, [float(n)])), n
    )
    return delta / _range(metric, m, n) if scaled else delta


def orientation(
    metric: Metric | str, m: int | Iterable[int], n: float, scaled: bool = False
) -> pd.DataFrame:
    """Precision and recall orientation of a metric (Diaz & Mitra 2023, Sec. 3.1).

    For m relevant items in a ranking of n: the precision orientation is how
    much the metric drops when the top relevant item moves to the worst place it
    can take (the others at the bottom); the recall orientation how much it
    drops when the bottom relevant item moves to position n.

    Parameters
    ----------
    metric : str, RecallLevelMetric or callable
        A measure name (``AP``, ``RR``, ``nDCG``, ``RBP(p=0.8)``, ``R@k``,
        ``TSE(e=...)``, ``RL(e=...,z=...)``), a `RecallLevelMetric`, or
        any ``metric(p, n) -> float`` of the sorted relevant positions.
    m : int or iterable of int
        Numbers of relevant items.
    n : float
        Ranking (corpus) size.
    scaled : bool, default False
        Divide both by the metric's range for that m (how Fig. 3 plots TSE).

    Returns
    -------
    pandas.DataFrame
        Columns ``m, precision, recall``.

    Raises
    ------
    UsageError
        A measure name that is not a metric of the relevant positions.
    ValueError
        m outside [1, n].

    Examples
    --------
    >>> import irpref
    >>> print(irpref.orientation("AP", [1, 5], 1000).round(4).to_string(index=False))
     m  precision  recall
     1     0.9990   0.999
     5     0.1998   0.199
    """
    metric = as_metric(metric)
    ms = [int(m)] if np.isscalar(m) else [int(x) for x in m]
    return pd.DataFrame(
        {
            "m": ms,
            "precision": [precision_orientation(metric, k, n, scaled) for k in ms],
            "recall": [recall_orientation(metric, k, n, scaled) for k in ms],
        }
    )


def _recall_at(k: int) -> RecallLevelMetric:
    def e_cut(i, n, gamma):
        return (np.asarray(i) <= k).astype(np.float64)

    e_cut.__name__ = f"cut{k}"
    return RecallLevelMetric(e_cut, "mean", name=f"R@{k}")


def figure3_metrics(gamma: float = 0.8, k: int = 1000) -> dict[str, Metric]:
    """The metrics of Fig. 3 as (e, z) pairs: RR, AP, nDCG, RBP(γ), R@k
    (exposure 1[i <= k], z = 1/m; not strictly decreasing) and TSE (e = 1/i)."""
    return {
        "RR": named_metric("rr"),
        "AP": named_metric("ap"),
        "nDCG": named_metric("ndcg"),
        f"RBP(p={gamma})": named_metric("rbp", gamma),
        f"R@{k}": _recall_at(k),
        "TSE": RecallLevelMetric("ap", "sl3", name="TSE(e=ap)"),
    }


def figure3(n: float = 1e5, ms: Iterable[int] = range(1, 16), gamma: float = 0.8) -> pd.DataFrame:
    """Fig. 3's data: orientation of each :func:`figure3_metrics` metric for
    ``m`` in ``ms`` and a corpus of ``n`` items (TSE scaled by its range)."""
    frames = [
        orientation(metric, ms, n, scaled=name == "TSE").assign(metric=name)
        for name, metric in figure3_metrics(gamma).items()
    ]
    return pd.concat(frames, ignore_index=True)[["metric", "m", "precision", "recall"]]
