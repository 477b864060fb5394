"""Discriminative power: the share of run pairs a measure separates significantly.

Sakai (SIGIR 2006; "Statistical reform in information retrieval?", SIGIR
Forum 2014): for one test collection, test every pair of runs and report the
percentage of pairs with p < alpha. As used by the lexiprecision paper (Diaz,
SIGIR 2023, Sec. 4.2 and Table 3: Student's t for RR and rrLP, the binomial
sign test for sgnLP, Holm-Bonferroni over all pairs, or the randomized Tukey
HSD), the lexirecall paper (Diaz, Mitra et al. 2023, Sec. 6) and RPP (Diaz &
Ferraro 2022, Tables 3-4):

    percent(measure, test) = 100 |{(a, b): a < b, p_adjusted(a, b) < alpha}| / (R (R - 1) / 2)

Pairs without a p-value (fewer than two queries) count as not significant.
HSD p-values are family-wise by construction: their correction reads ``hsd``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from irpref.stats import Pairwise, significance

__all__ = ["discriminative_power"]

SUMMARY_COLUMNS = [
    "measure", "test", "correction", "alpha", "pairs", "significant", "percent",
]


def discriminative_power(
    results: pd.DataFrame | Pairwise | Sequence[pd.DataFrame | Pairwise],
    alpha: float = 0.05,
    **kwargs,
) -> pd.DataFrame:
    """Discriminative power: the share of run pairs each measure separates significantly.

    Parameters
    ----------
    results : DataFrame, Pairwise or a sequence of them
        The per-pair table of `significance` (column ``p_adjusted``), or
        tidy tables of `evaluate` / `compare`, which are tested
        first.
    alpha : float, default 0.05
        Significance level.
    **kwargs : Any
        Passed to `significance` when tables are tested here (``test``,
        ``correction``, ``permutations``, ``seed``, ...).

    Returns
    -------
    pandas.DataFrame
        One row per measure and test: ``measure, test, correction, alpha,
        pairs, significant, percent``.

    Raises
    ------
    ValueError
        ``alpha`` outside (0, 1).

    Examples
    --------
    >>> import irpref
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 1},
    ...          "q3": {"d7": 1, "d8": 0}}
    >>> runs = {"bm25": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0},
    ...                  "q2": {"d4": 1.0, "d6": 0.5}, "q3": {"d8": 2.0, "d7": 1.0}},
    ...         "dense": {"q1": {"d3": 0.9, "d1": 0.8, "d2": 0.1},
    ...                   "q2": {"d5": 0.7, "d4": 0.6}, "q3": {"d7": 0.5, "d8": 0.4}},
    ...         "hybrid": {"q1": {"d3": 0.9, "d2": 0.8, "d1": 0.1},
    ...                    "q2": {"d6": 0.7, "d4": 0.6}, "q3": {"d7": 0.5, "d8": 0.4}}}
    >>> tests = irpref.significance(irpref.evaluate(qrels, runs, ["AP", "RR"]))
    >>> print(irpref.discriminative_power(tests).to_string(index=False))
    measure test correction  alpha  pairs  significant  percent
         AP    t       holm   0.05      3            0      0.0
         RR    t       holm   0.05      3            0      0.0
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if not (isinstance(results, pd.DataFrame) and "p_adjusted" in results.columns):
        kwargs.setdefault("bootstrap", 0)
        results = significance(results, **kwargs)
    correction = results.attrs.get("correction", kwargs.get("correction", "holm"))
    rows = []
    for (measure, test), group in results.groupby(["measure", "test"], sort=False):
        p = group["p_adjusted"].to_numpy(np.float64)
        hit = int(np.count_nonzero(p < alpha))  # NaN compares False: not significant
        rows.append({
            "measure": measure, "test": test,
            "correction": "hsd" if test == "hsd" else correction,
            "alpha": alpha, "pairs": len(p), "significant": hit,
            "percent": 100.0 * hit / len(p) if len(p) else np.nan,
        })
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
