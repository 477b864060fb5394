"""Two-way ANOVA without replication (systems x topics), Sakai's ES_E, parametric Tukey HSD.

For a complete (R, Q) score matrix x (R systems, Q topics), grand mean m,
system means s_i, topic means t_j:

- SS_A = Q sum_i (s_i - m)^2 (between systems, df_A = R - 1),
- SS_B = R sum_j (t_j - m)^2 (between topics, df_B = Q - 1),
- SS_E = sum_ij (x_ij - s_i - t_j + m)^2 (residual, df_E = (R - 1)(Q - 1)),
- V_E = SS_E / df_E, F = (SS_A / df_A) / V_E, p = P(F(df_A, df_E) >= F).

ES_E(i, j) = (s_i - s_j) / sqrt(V_E) (Sakai, *Laboratory Experiments in
Information Retrieval*, 2018, Sec. 5.2 and 5.4). After the ANOVA, the
interval of a difference of system means uses V_E with df_E degrees of
freedom: s_i - s_j +- t_{(1 + c) / 2, df_E} sqrt(2 V_E / Q) (Sakai 2018,
Ch. 5; Sakai, "Topic set size design", Inf. Retr. J. 2016); dividing it by
sqrt(V_E) gives ES_E +- t_{(1 + c) / 2, df_E} sqrt(2 / Q)
(:func:`es_anova_interval`), an interval of ES_E only when V_E is treated as
known (it ignores the sampling error of V_E itself). The parametric Tukey HSD
compares q = |s_i - s_j| / sqrt(V_E / Q) with the studentized range
distribution of R means and df_E degrees of freedom (Tukey 1949; Sakai 2018,
Sec. 4.4): p = P(Q(R, df_E) >= q), family-wise over all R (R - 1) / 2 pairs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Anova", "anova_two_way", "es_anova", "es_anova_interval", "tukey_parametric"]


@dataclass(frozen=True)
class Anova:
    """The table of a two-way ANOVA without replication (see the module docstring)."""

    n_systems: int
    n_topics: int
    ss_systems: float
    ss_topics: float
    ss_error: float
    df_systems: int
    df_topics: int
    df_error: int
    v_e: float
    f: float
    p: float
    system_means: np.ndarray


def anova_two_way(scores: np.ndarray) -> Anova:
    """Two-way ANOVA without replication of an (R, Q) matrix; topics with a NaN are dropped."""
    from scipy import stats

    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"scores must be (systems, topics), got shape {x.shape}")
    x = x[:, ~np.isnan(x).any(0)]
    r, q = x.shape
    grand = x.mean() if x.size else np.nan
    s = x.mean(1) if q else np.full(r, np.nan)
    t = x.mean(0)
    ss_a = float(q * ((s - grand) ** 2).sum())
    ss_b = float(r * ((t - grand) ** 2).sum())
    resid = x - s[:, None] - t[None, :] + grand
    ss_e = float((resid * resid).sum())
    df_a, df_b, df_e = r - 1, q - 1, (r - 1) * (q - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        # NumPy floats: V_E = 0 (a purely additive matrix) gives F = inf or NaN, not an error
        v_e = np.float64(ss_e) / df_e if df_e > 0 else np.nan
        f = (np.float64(ss_a) / df_a) / v_e if df_a > 0 else np.nan
        p = float(stats.f.sf(f, df_a, df_e)) if df_e > 0 and df_a > 0 else np.nan
    return Anova(r, q, ss_a, ss_b, ss_e, df_a, df_b, df_e, float(v_e), float(f), p, s)


def es_anova(mean_difference: np.ndarray, v_e: float) -> np.ndarray:
    """Sakai's ES_E: a difference of means over sqrt(V_E) (NaN when V_E is 0 or undefined)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = np.sqrt(v_e) if v_e > 0 else np.nan
        return np.asarray(mean_difference, dtype=np.float64) / scale


def es_anova_interval(
    es: np.ndarray, table: Anova, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) = ES_E -+ t_{(1 + c) / 2, df_E} sqrt(2 / Q), Q the topics of the ANOVA.

    The interval of a difference after the ANOVA (Sakai 2018, Ch. 5) divided by
    sqrt(V_E): valid as an interval of ES_E only when V_E is treated as known,
    not estimated (its own sampling error is ignored). NaN where ES_E is.
    """
    from scipy import stats

    es = np.asarray(es, dtype=np.float64)
    if table.df_error < 1 or table.n_topics < 1:
        nan = np.full(es.shape, np.nan)
        return nan, nan
    half = stats.t.ppf(0.5 + confidence / 2.0, table.df_error) * np.sqrt(2.0 / table.n_topics)
    return es - half, es + half


def tukey_parametric(
    scores: np.ndarray, a: np.ndarray, b: np.ndarray, table: Anova | None = None
) -> tuple[np.ndarray, np.ndarray, Anova]:
    """Parametric Tukey HSD of run pairs (a, b) after :func:`anova_two_way`.

    Returns (q statistic, family-wise p, the ANOVA). Topics some run lacks are
    dropped, as in the ANOVA. ``table``: the ANOVA of ``scores`` if already
    computed (e.g. :attr:`irpref.stats.Pairwise.anova`).
    """
    from scipy import stats

    table = anova_two_way(scores) if table is None else table
    diff = np.abs(table.system_means[a] - table.system_means[b])
    with np.errstate(invalid="ignore", divide="ignore"):
        q = diff / np.sqrt(table.v_e / table.n_topics)
    if table.df_error > 0 and table.n_systems >= 2 and table.v_e > 0:
        p = stats.studentized_range.sf(q, table.n_systems, table.df_error)
        p = np.where(np.isnan(q), np.nan, np.minimum(1.0, p))
    else:
        p = np.where(diff == 0, 1.0, np.nan) if table.n_topics else np.full(len(a), np.nan)
    return q, np.asarray(p, dtype=np.float64), table
