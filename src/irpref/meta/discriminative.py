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
    """One row per (measure, test): pairs, significant pairs at ``alpha``, percent.

    ``results`` is the per-pair table of :func:`irpref.significance` (column
    ``p_adjusted``); tidy metric / preference tables are tested first, with
    ``kwargs`` passed to :func:`irpref.significance` (``test``,
    ``correction``, ``permutations``, ``seed``, ...).
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
