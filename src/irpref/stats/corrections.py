"""Multiple-comparison corrections of p-values over one family of comparisons.

Holm-Bonferroni (default), Bonferroni, Benjamini-Hochberg, Benjamini-Yekutieli.
Lexirecall Sec. 6 ("the conservative Holm-Bonferroni method"); the adjusted
values equal ``statsmodels.stats.multitest.multipletests`` (``holm``,
``bonferroni``, ``fdr_bh``, ``fdr_by``) on the same p-values.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["CORRECTIONS", "adjust_pvalues"]

CORRECTIONS = ("holm", "bonferroni", "bh", "by", "none")
"""Multiple-comparison corrections over one family of comparisons."""


def adjust_pvalues(p: ArrayLike, method: str = "holm") -> np.ndarray:
    """Adjust p-values for multiple comparisons.

    NaN stays NaN and does not count in m.

    - ``bonferroni``: min(1, m p).
    - ``holm`` (Holm 1979): p_(i) -> max_{j <= i} min(1, (m - j + 1) p_(j)).
    - ``bh`` (Benjamini & Hochberg 1995): p_(i) -> min_{j >= i} min(1, m p_(j) / j).
    - ``by`` (Benjamini & Yekutieli 2001): as ``bh`` with m replaced by
      m c(m), c(m) = sum_{k=1..m} 1 / k (valid under any dependence).
    - ``none``: unchanged.

    Parameters
    ----------
    p : array_like
        Raw p-values, any shape.
    method : {"holm", "bonferroni", "bh", "by", "none"}, default "holm"
        The correction.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, the shape of ``p``; equal to statsmodels'
        ``multipletests``.

    Raises
    ------
    ValueError
        An unknown ``method``.

    Examples
    --------
    >>> import numpy as np
    >>> import irpref
    >>> irpref.adjust_pvalues(np.array([0.01, 0.04, 0.03, np.nan]), "holm")
    array([0.03, 0.06, 0.06,  nan])
    >>> irpref.adjust_pvalues(np.array([0.01, 0.04, 0.03]), "bh")
    array([0.03, 0.04, 0.04])
    """
    if method not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, not {method!r}")
    p = np.asarray(p, dtype=np.float64)
    out = p.copy()
    if method == "none":
        return out
    ok = ~np.isnan(p)
    q = p[ok]
    m = len(q)
    if m == 0:
        return out
    if method == "bonferroni":
        out[ok] = np.minimum(1.0, m * q)
        return out
    order = np.argsort(q, kind="stable")
    s = q[order]
    j = np.arange(1, m + 1)
    if method == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (m - j + 1) * s))
    else:
        scale = m if method == "bh" else m * (1.0 / j).sum()
        adj = np.minimum.accumulate(np.minimum(1.0, s * (scale / j))[::-1])[::-1]
    res = np.empty(m)
    res[order] = adj
    out[ok] = res
    return out
