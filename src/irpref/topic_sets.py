"""Topic set size design: how many topics a test collection needs (Sakai 2016).

:func:`design` is the entry point (``irpref design``): the topics each design
needs for a minimum difference, and, given runs, what the collection at hand
can detect. The functions below it solve each design for standardized
differences.

Sakai, "Topic set size design", Information Retrieval Journal 19(3), 2016,
and *Laboratory Experiments in Information Retrieval* (Springer 2018), ch. 6.
All differences are standardized: D = minimum difference / sigma.

- Paired t-test (two-sided, level alpha, power 1 - beta to detect a mean
  difference of D standard deviations of the per-topic differences): the
  smallest n with P(|T'| >= t_{alpha/2; n-1}) >= 1 - beta, T' noncentral t with
  n - 1 degrees of freedom and noncentrality sqrt(n) D. Solved EXACTLY here
  (``scipy.stats.nct``). Sakai approximates the noncentral t by a normal
  (power ~ Phi((lambda - w (1 - 1/(4 phi))) / sqrt(1 + w^2 / (2 phi))) + the
  lower tail, w = t_{alpha/2; phi}, phi = n - 1); ``method="sakai"`` uses it.
  The two agree on every example of the paper (D = 0.5 / 0.2 / 0.1 at
  alpha 0.05, beta 0.20: 34 / 199 / 787; D = 0.2, alpha 0.01: 296; D = 0.3,
  beta 0.10: 119); they can differ by a topic for very small n (n < 10),
  where the normal approximation of the noncentral t is poor.
- One-way ANOVA over m systems: the smallest n with
  P(F'(m - 1, m (n - 1), lambda) >= F_{alpha}(m - 1, m (n - 1))) >= 1 - beta,
  lambda = n D^2 / 2: the least favourable configuration, two systems D
  apart and the others half-way (Sakai 2016, Sec. 4; exact noncentral F here,
  Sakai approximates it by a normal / uses his tables).
- Confidence interval: the smallest n whose expected 100 (1 - alpha)% CI
  width 2 t_{alpha/2; n-1} E[s] / sqrt(n) is at most W (standardized), with
  E[s] = sigma sqrt(2 / (n - 1)) Gamma(n / 2) / Gamma((n - 1) / 2) (Sakai
  2016, Sec. 5).

For a collection at hand, the variance comes from the two-way ANOVA without
replication over its runs: sigma^2 = V_E, and the per-topic differences of
the paired t-test have variance 2 V_E (Sakai 2016, Sec. 6). A raw minimum
difference d is then D = d / sqrt(2 V_E) for the paired t-test and
d / sqrt(V_E) for the ANOVA and d / sqrt(2 V_E) for the CI width.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from irpref.errors import UsageError
from irpref.evaluate import evaluate_with, judge_with
from irpref.judging.judged import JudgedRankings
from irpref.measures import parse_measures
from irpref.params import DEFAULT_MISSING, Settings, check_alpha
from irpref.stats import Pairwise, anova_two_way

__all__ = [
    "METHODS",
    "ci_topics",
    "design",
    "residual_variance",
    "min_detectable_difference",
    "paired_t_power",
    "paired_t_topics",
    "anova_power",
    "anova_topics",
]

MAX_TOPICS = 10_000_000

METHODS = ("exact", "sakai")
"""How the paired t-test's power is computed: the exact noncentral t, or
Sakai's normal approximation (his spreadsheets)."""

SD_OF_DIFFERENCES = "sd of per-topic differences"
SD_OF_SCORES = "sd of scores (sqrt V_E)"


def _check(alpha: float, beta: float | None, d: float, name: str = "min-diff") -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if beta is not None and not 0 < beta < 1:
        raise ValueError(f"beta must be in (0, 1), got {beta}")
    if not (d > 0 and math.isfinite(d)):
        raise ValueError(f"{name} must be a positive number, got {d}")


def paired_t_power(
    n: int | np.ndarray, d: float, alpha: float = 0.05, method: str = "exact"
) -> np.ndarray:
    """Power of the two-sided paired t-test with n topics at standardized difference d."""
    from scipy import stats

    if method not in ("exact", "sakai"):
        raise ValueError(f"method must be exact or sakai, not {method!r}")
    n = np.asarray(n, dtype=np.float64)
    df = n - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        w = stats.t.ppf(1 - alpha / 2, df)
        lam = np.sqrt(n) * d
        if method == "exact":
            lower = stats.nct.cdf(-w, df, lam)
            # SciPy returns NaN deep in this tail (lam > ~6); there P(T' <= -w) <=
            # P(T' < 0) = Phi(-lam) < 3e-7, so it is 0 to that precision
            lower = np.where(np.isnan(lower) & (lam > 5), 0.0, lower)
            power = stats.nct.sf(w, df, lam) + lower
        else:
            scale = np.sqrt(1 + w * w / (2 * df))
            shrink = w * (1 - 1 / (4 * df))
            power = stats.norm.cdf((lam - shrink) / scale) + stats.norm.cdf((-shrink - lam) / scale)
    return np.where(n >= 2, power, np.nan)


def _smallest(power, start: int, target: float) -> int:
    """Smallest n >= 2 with power(n) >= target, searching near ``start`` (power rises with n)."""
    lo = max(2, int(start) - 8)
    while lo > 2 and power(np.array([lo]))[0] >= target:
        lo = max(2, lo - 16)
    hi = lo + 32
    while True:
        n = np.arange(lo, hi + 1)
        ok = np.flatnonzero(power(n) >= target)
        if len(ok):
            return int(n[ok[0]])
        if hi > MAX_TOPICS:
            raise ValueError(f"more than {MAX_TOPICS} topics would be needed")
        lo, hi = hi + 1, hi * 2


def paired_t_topics(d: float, alpha: float = 0.05, beta: float = 0.20,
                    method: str = "exact") -> int:
    """Topics the paired t-test needs to detect a standardized difference d (see module)."""
    from scipy import stats

    _check(alpha, beta, d)
    za, zb = stats.norm.ppf(1 - alpha / 2), stats.norm.ppf(1 - beta)
    start = ((za + zb) / d) ** 2 + za * za / 2  # Sakai's starting value
    return _smallest(lambda n: paired_t_power(n, d, alpha, method), math.ceil(start), 1 - beta)


def anova_power(n: int | np.ndarray, d: float, m: int, alpha: float = 0.05) -> np.ndarray:
    """Power of the one-way ANOVA over m systems, n topics each, at standardized range d."""
    from scipy import stats

    n = np.asarray(n, dtype=np.float64)
    dfa, dfe = m - 1, m * (n - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        crit = stats.f.isf(alpha, dfa, dfe)
        power = stats.ncf.sf(crit, dfa, dfe, n * d * d / 2)
    return np.where(n >= 2, power, np.nan)


def anova_topics(d: float, m: int, alpha: float = 0.05, beta: float = 0.20) -> int:
    """Topics a one-way ANOVA over m systems needs to detect a standardized range d."""
    _check(alpha, beta, d)
    if m < 2:
        raise ValueError(f"the ANOVA design needs at least 2 systems, got {m}")
    start = 2 * paired_t_topics(d, alpha, beta) // 3  # ANOVA needs more: a start below it
    return _smallest(lambda n: anova_power(n, d, m, alpha), start, 1 - beta)


def expected_ci_width(n: int | np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """Expected width of the 100 (1 - alpha)% t interval of a mean, in units of sigma."""
    from scipy import special, stats

    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        es = np.sqrt(2 / (n - 1)) * np.exp(special.gammaln(n / 2) - special.gammaln((n - 1) / 2))
        width = 2 * stats.t.ppf(1 - alpha / 2, n - 1) * es / np.sqrt(n)
    return np.where(n >= 2, width, np.nan)


def ci_topics(width: float, alpha: float = 0.05) -> int:
    """Topics for an expected 100 (1 - alpha)% CI no wider than ``width`` (standardized)."""
    from scipy import stats

    _check(alpha, None, width, "ci width")
    start = math.ceil((2 * stats.norm.ppf(1 - alpha / 2) / width) ** 2)
    return _smallest(lambda n: -expected_ci_width(n, alpha), start, -width)


def min_detectable_difference(n: int, alpha: float = 0.05, beta: float = 0.20,
                              method: str = "exact") -> float:
    """Smallest standardized difference the paired t-test detects with n topics (power 1 - beta)."""
    from scipy.optimize import brentq

    _check(alpha, beta, 1.0)
    if n < 2:
        return math.nan
    target = 1 - beta
    hi = 1.0
    while paired_t_power(n, hi, alpha, method) < target:
        hi *= 2
    return float(brentq(lambda d: paired_t_power(n, d, alpha, method) - target, 1e-9, hi,
                        xtol=1e-12))


def residual_variance(table: pd.DataFrame, measure: str) -> tuple[float, int, int]:
    """(V_E, topics, runs) of ``measure`` in a tidy table: the residual variance
    of the two-way ANOVA without replication (systems x topics) over the topics
    every run has (Sakai 2016, Sec. 6)."""
    if table.loc[table["measure"] == measure, "run"].nunique() < 2:
        raise UsageError(f"{measure}: V_E is the residual variance of the two-way ANOVA "
                         f"(systems x topics), which needs at least 2 runs; give more runs "
                         "or --variance V")
    anova = anova_two_way(Pairwise.from_metric(table, measure).scores)
    if anova.n_topics < 2:
        raise UsageError(f"{measure}: fewer than 2 topics that every run has: no variance")
    return anova.v_e, anova.n_topics, anova.n_systems


def design(
    qrels=None,
    runs=None,
    measures: str | Sequence[str] | None = None,
    *,
    min_diff: float,
    alpha: float = 0.05,
    beta: float = 0.20,
    standardized: bool = False,
    variance: float | None = None,
    systems: int | None = None,
    ci_width: float | None = None,
    method: str = "exact",
    settings: Settings | None = None,
    rel: int = 1,
    depth: int | None = None,
    ties: str = "docid",
    missing: str = DEFAULT_MISSING,
    corpus_size: int | None = None,
    judged_only: bool = False,
    use_tag: bool = False,
    columns=None,
    judged: JudgedRankings | None = None,
) -> pd.DataFrame:
    """Topic-set-size design (Sakai 2016): the topics a test needs, what a collection detects.

    Rows ``paired-t`` (topics the paired t-test needs to detect ``min_diff``
    with power 1 - ``beta`` at level ``alpha``), ``anova`` (a one-way ANOVA over
    ``systems``, default the runs given) and ``ci`` (an expected confidence
    interval no wider than ``ci_width``). The scale is given one of three ways:
    ``standardized=True`` (``min_diff`` and ``ci_width`` in standard
    deviations, Sakai's conventions; ``unit`` says which per row), a
    ``variance`` V_E, or qrels, runs and ``measures``, from which V_E (the
    residual variance of the two-way ANOVA without replication) is estimated
    per measure, with the rows ``V_E``, ``runs``, ``topics``, ``power`` (reached
    by the collection's topics at ``min_diff``) and ``min-diff`` (the smallest
    difference they detect).

    Parameters
    ----------
    qrels : path, DataFrame, dict or Qrels, optional
        Judgments of a pilot collection.
    runs : path, DataFrame, dict, Run, or a sequence or dict of them, optional
        Runs of the pilot collection (two or more).
    measures : str or sequence of str, optional
        Measures whose V_E is estimated from the runs.
    min_diff : float
        The smallest difference to detect (keyword only).
    alpha : float, default 0.05
        Significance level.
    beta : float, default 0.2
        Type II error rate (power 1 - beta).
    standardized : bool, default False
        ``min_diff`` and ``ci_width`` are in standard deviations.
    variance : float, optional
        V_E, given instead of runs.
    systems : int, optional
        Systems of the one-way ANOVA (default: the runs given).
    ci_width : float, optional
        Add the ``ci`` row: topics for an expected interval this wide.
    method : {"exact", "sakai"}, default "exact"
        Exact noncentral t and F, or Sakai's normal approximation.
    settings : Settings, optional
        The judging settings as one value, or the keywords below.
    rel, depth, ties, missing, corpus_size, judged_only, use_tag, columns : see Settings
        The judging settings as keywords, by the names, defaults (trec_eval's)
        and rules of `Settings`; a keyword beside a different ``settings`` is
        refused.
    judged : JudgedRankings, optional
        Rankings already judged.

    Returns
    -------
    pandas.DataFrame
        Columns ``measure, design, value, unit``.

    Raises
    ------
    UsageError
        No scale given, or two of them (standardized with runs, runs with a
        variance), one run only, an unknown method, ``alpha`` or ``beta``
        outside (0, 1).

    Examples
    --------
    Sakai's anchor: a standardized difference of 0.2 at alpha 0.05 and power
    0.8 needs 199 topics.

    >>> import irpref
    >>> print(irpref.design(min_diff=0.2, standardized=True).to_string(index=False))
    measure   design value                                     unit
            paired-t   199 topics; D in sd of per-topic differences
    """
    alpha, beta = check_alpha(alpha, "alpha"), check_alpha(beta, "beta")
    if method not in METHODS:
        raise UsageError(f"method={method!r}: must be one of {', '.join(METHODS)}")
    given_runs = judged is not None or runs is not None
    if standardized and (given_runs or variance is not None):
        raise UsageError("standardized differences take no runs and no variance")
    if not standardized and not given_runs and variance is None:
        raise UsageError("give standardized=True, runs and measures, or a variance")
    if given_runs and variance is not None:
        raise UsageError("give runs or a variance, not both")
    if not standardized and given_runs and not measures:
        raise UsageError("a measure is needed to estimate the variance from runs")
    if standardized or variance is not None:
        scale = None if standardized else (float(variance), None, None)
        return _frame(_design_rows("", scale, min_diff, alpha, beta, systems, ci_width,
                                   method))
    settings = Settings.resolve(settings, judged.settings if judged is not None else None,
                                rel=rel, depth=depth, ties=ties, missing=missing,
                                corpus_size=corpus_size, judged_only=judged_only,
                                use_tag=use_tag, columns=columns)
    names = [str(m) for m in parse_measures(measures, judged_only=settings.judged_only)]
    if judged is None:
        judged = judge_with(qrels, runs, settings)
    table = evaluate_with(None, None, names, settings, judged=judged)
    rows: list[dict] = []
    for name in names:
        rows += _design_rows(name, residual_variance(table, name), min_diff, alpha, beta,
                             systems, ci_width, method)
    return _frame(rows)


def _frame(rows: list[dict]) -> pd.DataFrame:
    """The rows as a table whose topic counts stay integers (value column of objects)."""
    frame = pd.DataFrame(rows, columns=["measure", "design", "value", "unit"])
    frame["value"] = pd.Series([r["value"] for r in rows], dtype=object)
    return frame


def _design_rows(measure: str, scale: tuple | None, d: float, alpha: float, beta: float,
                 systems: int | None, ci_width: float | None, method: str) -> list[dict]:
    """The rows of one measure; ``scale`` = (V_E, topics, runs) or None (standardized)."""
    out: list[tuple[str, float, str]] = []
    topics = runs = None
    if scale is None:
        d_t = d_a = d
        width = ci_width
        unit_t, unit_a = SD_OF_DIFFERENCES, SD_OF_SCORES
    else:
        v_e, topics, runs = scale
        if not v_e > 0:
            raise UsageError(f"{measure or 'the variance'}: V_E is 0: every difference is "
                             "detected")
        d_t, d_a = d / math.sqrt(2 * v_e), d / math.sqrt(v_e)
        width = None if ci_width is None else ci_width / math.sqrt(2 * v_e)
        unit_t = unit_a = "units of the measure"
        out.append(("V_E", v_e, "residual variance, two-way ANOVA without replication"))
        if runs is not None:
            out.append(("runs", runs, "systems of the ANOVA"))
            out.append(("topics", topics, "topics every run has"))
    out.append(("paired-t", paired_t_topics(d_t, alpha, beta, method), f"topics; D in {unit_t}"))
    systems = systems or runs
    if systems is not None:
        if systems < 2:
            raise UsageError(f"systems={systems}: the ANOVA design needs 2 systems or more")
        out.append(("anova", anova_topics(d_a, systems, alpha, beta), f"topics; D in {unit_a}"))
    if width is not None:
        out.append(("ci", ci_topics(width, alpha), f"topics; width in {unit_t}"))
    if topics is not None:
        out.append(("power", float(paired_t_power(topics, d_t, alpha, method)[()]),
                    f"paired t-test with the {topics} topics at min-diff"))
        d_min = min_detectable_difference(topics, alpha, beta, method)
        out.append(("min-diff", d_min * math.sqrt(2 * v_e),
                    f"smallest difference detected with power {1 - beta:g}"))
    return [{"measure": measure, "design": k, "value": v, "unit": u} for k, v, u in out]
