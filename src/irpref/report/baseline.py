"""Runs against one baseline: difference, wins/losses/ties, significance, CI.

Pure functions on a per-query tidy table (``run, query, measure, value``,
from :func:`irpref.evaluate`); means are taken over the per-query rows (no
``all`` row is read). For every measure, each run r != baseline b is tested
on the per-query differences d_q = v(r, q) - v(b, q) over the queries both
have:

- ``t`` / ``paired``: Student's paired t test (:func:`irpref.stats.paired_t`);
- ``wilcoxon``: Wilcoxon signed-rank (:func:`irpref.stats.wilcoxon`);
- ``sign``: exact binomial sign test (:func:`irpref.stats.sign_test`);

p-values corrected over the R - 1 comparisons of one measure (``holm``,
``bonferroni``, ``bh``, ``none``; :func:`irpref.stats.adjust_pvalues`), as
PyTerrier's ``Experiment(baseline=..., correction=...)`` does. The marker is
``▲`` (significantly better than the baseline) or ``▼`` (worse) when
p_adjusted < alpha; "better" is read from the measure's record
(:func:`irpref.report.orientation.sign_of`): a smaller ASL is better, and a
measure with no better direction (a count such as ``NumRet``) gets no marker
and no wins/losses. ``n`` counts the queries of the run, ``paired`` those it
shares with the baseline: diff, wins/losses/ties and the test use only these.
Confidence intervals of each run's mean: ``t``
(mean ± t_{(1+c)/2, n-1} s / sqrt(n)) or a seeded percentile ``bootstrap``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["BETTER", "WORSE", "TESTS", "baseline_table", "mean_ci", "wide"]

BETTER, WORSE = "▲", "▼"
TESTS = ("paired", "t", "wilcoxon", "sign")
CI_METHODS = ("t", "bootstrap")

COLUMNS = ["run", "measure", "n", "paired", "mean", "diff", "wins", "losses", "ties", "p",
           "p_adjusted", "significant", "marker"]


def _check(test: str, correction: str, alpha: float) -> None:
    from irpref.errors import UsageError
    from irpref.stats import CORRECTIONS

    if test not in TESTS:
        raise UsageError(f"test must be one of {', '.join(TESTS)}, not {test!r}")
    if correction not in CORRECTIONS:
        raise UsageError(f"correction must be one of {', '.join(CORRECTIONS)}, not "
                         f"{correction!r}")
    if not 0 < alpha < 1:
        raise UsageError(f"alpha={alpha}: alpha must be in (0, 1)")


def _wide_values(table: pd.DataFrame) -> tuple[list[str], np.ndarray]:
    """(runs in input order, (R, Q) values with NaN where a run lacks a query)."""
    runs = [str(r) for r in pd.unique(table["run"].astype(str))]
    r_codes = pd.Index(runs).get_indexer(table["run"].astype(str))
    q_codes, queries = pd.factorize(table["query"].astype(str), sort=False)
    values = np.full((len(runs), len(queries)), np.nan)
    values[r_codes, q_codes] = table["value"].to_numpy(np.float64)
    return runs, values


def baseline_table(results: pd.DataFrame, baseline: str, *, test: str = "paired",
                   correction: str = "holm", alpha: float = 0.05) -> pd.DataFrame:
    """One row per (run, measure): columns ``run, measure, n, mean, diff, wins,
    losses, ties, p, p_adjusted, significant, marker``; the baseline's own
    rows have diff/p empty. ``diff`` = mean of d over the shared queries."""
    from irpref.errors import UsageError
    from irpref.report.orientation import sign_of
    from irpref.stats import adjust_pvalues, paired_t, sign_test, wilcoxon

    _check(test, correction, alpha)
    frames = []
    for measure, table in results.groupby("measure", sort=False):
        runs, values = _wide_values(table)
        if baseline not in runs:
            raise UsageError(f"baseline {baseline!r} is not one of the runs: {', '.join(runs)}")
        b = runs.index(baseline)
        sign = sign_of(str(measure))
        d = values - values[b]  # (R, Q); NaN where either lacks the query
        if test in ("paired", "t"):
            p = paired_t(d)[1]
        elif test == "wilcoxon":
            p = wilcoxon(np.where(np.isnan(d), 0.0, d))[1]  # zeros are dropped: = missing
        else:
            p = sign_test(np.where(np.isnan(d), 0.0, d))[3]
            p = np.where(np.isnan(d).all(-1), np.nan, p)
        p = np.asarray(p, dtype=np.float64).copy()
        p[b] = np.nan
        p_adj = np.full(len(runs), np.nan)
        others = np.arange(len(runs)) != b
        p_adj[others] = adjust_pvalues(p[others], correction)
        with np.errstate(invalid="ignore"):
            valid = ~np.isnan(d)
            n = valid.sum(-1)
            diff = np.where(n > 0, np.nansum(d, -1) / np.maximum(n, 1), np.nan)
            mean = np.nanmean(values, -1)
        better = sign * d  # > 0: the run beats the baseline on this query
        wins = (better > 0).sum(-1).astype(float)
        losses = (better < 0).sum(-1).astype(float)
        ties = (d == 0).sum(-1).astype(float)
        if sign == 0:  # no better direction: neither wins nor losses
            wins[:] = losses[:] = ties[:] = np.nan
        significant = p_adj < alpha  # NaN: False
        marker = np.where(significant & (sign * diff > 0), BETTER,
                          np.where(significant & (sign * diff < 0), WORSE, ""))
        frame = pd.DataFrame({
            "run": runs, "measure": measure, "n": (~np.isnan(values)).sum(-1),
            "paired": n.astype(float), "mean": mean, "diff": diff, "wins": wins,
            "losses": losses, "ties": ties,
            "p": p, "p_adjusted": p_adj, "significant": significant, "marker": marker})
        for col in ("paired", "diff", "wins", "losses", "ties"):
            frame.loc[b, col] = np.nan
        frames.append(frame)
    out = pd.concat(frames, ignore_index=True)
    for col in ("paired", "wins", "losses", "ties"):
        out[col] = out[col].astype("Int64")
    out.attrs.update(baseline=baseline, test=test, correction=correction, alpha=alpha)
    return out[COLUMNS]


BOOTSTRAP_CHUNK = 2**22  # values per chunk of resampled means (one progress step)


def mean_ci(results: pd.DataFrame, *, method: str = "t", confidence: float = 0.95,
            resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Confidence interval of each run's mean over its queries: columns run,
    measure, mean, ci_low, ci_high. ``t``: Student t interval; ``bootstrap``:
    percentile interval of ``resamples`` means of queries drawn with
    replacement (one seeded generator; the same draws for every run)."""
    from scipy import stats as sps

    from irpref.errors import UsageError

    if method not in CI_METHODS:
        raise UsageError(f"ci must be one of {', '.join(CI_METHODS)}, not {method!r}")
    if not 0 < confidence < 1:
        raise UsageError(f"confidence={confidence}: confidence must be in (0, 1)")
    import irpref.progress as progress

    frames = []
    rng = np.random.default_rng(seed)
    groups = list(results.groupby("measure", sort=False))
    total = resamples * len(groups) if method == "bootstrap" else 0
    with progress.task(total, "bootstrap CI", "resample") as bar:
        for measure, table in groups:
            runs, values = _wide_values(table)
            n = (~np.isnan(values)).sum(-1)
            mean = np.nanmean(values, -1)
            if method == "t":
                with np.errstate(invalid="ignore", divide="ignore"):
                    sd = np.nanstd(values, -1, ddof=1)
                    half = sps.t.ppf((1 + confidence) / 2, n - 1) * sd / np.sqrt(n)
                low, high = mean - half, mean + half
            else:
                low, high = _bootstrap(values, rng, resamples, confidence, bar)
            frames.append(pd.DataFrame({"run": runs, "measure": measure, "mean": mean,
                                        "ci_low": low, "ci_high": high}))
    return pd.concat(frames, ignore_index=True)


def _bootstrap(values: np.ndarray, rng: np.random.Generator, resamples: int,
               confidence: float, bar) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of the means of ``resamples`` query resamples (R runs x Q).

    All draws come first, in one call, then the means are taken in chunks of
    resamples (each mean is its own row reduction, so chunking changes no
    bit; it bounds the memory to about 4M values) while ``bar`` advances: a
    seed gives the same interval with or without a progress bar."""
    r, q = values.shape
    idx = rng.integers(0, q, size=(resamples, q))
    means = np.empty((r, resamples))
    step = max(1, BOOTSTRAP_CHUNK // max(r * q, 1))
    with np.errstate(invalid="ignore"):
        for start in range(0, resamples, step):
            part = idx[start:start + step]
            means[:, start:start + len(part)] = np.nanmean(values[:, part], -1)  # (R, b)
            bar.update(len(part))
        tail = (1 - confidence) / 2 * 100
        low, high = np.nanpercentile(means, [tail, 100 - tail], axis=1)
    return low, high


def wide(table: pd.DataFrame, value: str = "mean") -> pd.DataFrame:
    """Run x measure table of ``value`` from :func:`baseline_table` or :func:`mean_ci`
    (runs and measures in input order)."""
    runs = list(pd.unique(table["run"]))
    measures = list(pd.unique(table["measure"]))
    out = table.pivot(index="run", columns="measure", values=value)
    out = out.loc[runs, measures]
    out.columns.name = None
    return out
