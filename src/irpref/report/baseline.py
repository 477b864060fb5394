"""Baseline tables for ``irpref evaluate`` and the report: runs against baselines, CIs.

Pure functions on a per-query tidy table (``run, query, measure, value``,
from :func:`irpref.evaluate`); means are taken over the per-query rows (no
``all`` row is read). The numbers come from ONE implementation,
:func:`irpref.stats.against_baselines` (every run against every baseline,
one row per run, measure and baseline: difference and its interval, effect
sizes, wins/losses/ties, test, corrected p, marker); this module keeps the
single-baseline view of it (:func:`baseline_table`, the columns ``irpref
evaluate --baseline RUN`` has always printed), the interval of each run's
mean (:func:`mean_ci`) and the wide run x measure views, with one lettered
mark per baseline when there are several (:func:`wide_marks`).

Tests: ``t`` / ``paired`` (Student's paired t), ``wilcoxon``, ``sign``;
p-values corrected over the R - 1 comparisons of one measure by default
(``holm``, ``bonferroni``, ``bh``, ``by``, ``none``), as PyTerrier's
``Experiment(baseline=..., correction=...)`` does. The marker is ``▲``
(significantly better than the baseline) or ``▼`` (worse) when
p_adjusted < alpha; "better" is read from the measure's record
(:mod:`irpref.report.orientation`): a smaller ASL is better, and a measure
with no better direction (a count such as ``NumRet``) gets no marker and no
wins/losses. ``n`` counts the queries of the run, ``paired`` those it
shares with the baseline: diff, wins/losses/ties and the test use only these.
Confidence intervals of each run's mean: ``t``
(mean +- t_{(1+c)/2, n-1} s / sqrt(n)), a seeded percentile ``bootstrap``, or
``bca`` (:func:`irpref.stats.bootstrap_ci`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from irpref.stats.baselines import BETTER, WORSE
from irpref.stats.bootstrap import DEFAULT_BOOTSTRAP

__all__ = ["BETTER", "LETTERS", "SUPERSCRIPTS", "WORSE", "TESTS", "baseline_letters",
           "baseline_table", "mean_ci", "wide", "wide_marks"]

TESTS = ("paired", "t", "wilcoxon", "sign")
CI_METHODS = ("t", "bootstrap", "bca")

COLUMNS = ["run", "measure", "n", "paired", "mean", "diff", "wins", "losses", "ties", "p",
           "p_adjusted", "significant", "marker"]

LETTERS = "abcdefghijklmnoprstuvwxyz"
"""Letters naming baselines in a marked table (no q: Unicode has no superscript q)."""

SUPERSCRIPTS = dict(zip(LETTERS, "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ"))
"""Letter -> its superscript, written after a mark (``▲ᵃ``)."""


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
    """One row per (run, measure) against one baseline: columns ``run, measure, n,
    paired, mean, diff, wins, losses, ties, p, p_adjusted, significant, marker``;
    the baseline's own rows have diff/p empty. ``diff`` = mean of d over the
    shared queries. The columns of :func:`irpref.stats.against_baselines` with
    one baseline (no interval computed)."""
    from irpref.stats import against_baselines

    out = against_baselines(results, [baseline], test=test, correction=correction,
                            alpha=alpha, ci="none")[COLUMNS]
    out.attrs = {"baseline": baseline, "test": test, "correction": correction, "alpha": alpha}
    return out


def baseline_letters(baselines: Sequence[str]) -> dict[str, str]:
    """Baseline -> its letter (a, b, c, ... in the order given); UsageError past 25."""
    from irpref.errors import UsageError

    names = list(dict.fromkeys(map(str, baselines)))
    if len(names) > len(LETTERS):
        raise UsageError(f"{len(names)} baselines: a marked table letters at most "
                         f"{len(LETTERS)}; use --format tsv or json")
    return dict(zip(names, LETTERS))


def wide_marks(table: pd.DataFrame) -> pd.DataFrame:
    """Run x measure marks of an :func:`irpref.stats.against_baselines` table: with
    one baseline its marker (``▲``/``▼``/empty), with several one mark per
    baseline that the run beats or loses to significantly, each followed by
    the baseline's superscript letter (``▲ᵃ▼ᵇ``; :func:`baseline_letters`)."""
    names = list(pd.unique(table["baseline"])) if "baseline" in table else []
    if len(names) <= 1:
        return wide(table, "marker")
    letters = baseline_letters(names)
    tagged = table["marker"].astype(str) + np.where(
        table["marker"].astype(str) != "",
        table["baseline"].map(lambda b: SUPERSCRIPTS[letters[b]]).astype(str), "")
    frame = table[["run", "measure"]].assign(mark=tagged.to_numpy(object))
    joined = frame.groupby(["run", "measure"], sort=False)["mark"].agg("".join).reset_index()
    return wide(joined, "mark")


BOOTSTRAP_CHUNK = 2**22  # values per chunk of resampled means (one progress step)


def mean_ci(results: pd.DataFrame, *, method: str = "t", confidence: float = 0.95,
            resamples: int = DEFAULT_BOOTSTRAP, seed: int = 0) -> pd.DataFrame:
    """Confidence interval of each run's mean over its queries: columns run,
    measure, mean, ci_low, ci_high. ``t``: Student t interval; ``bootstrap``:
    percentile interval of ``resamples`` means of queries drawn with
    replacement (one seeded generator; the same draws for every run); ``bca``:
    the BCa interval of :func:`irpref.stats.bootstrap_ci` (its own seeded draws)."""
    from scipy import stats as sps

    from irpref.errors import UsageError
    from irpref.params import check_probability

    if method not in CI_METHODS:
        raise UsageError(f"ci must be one of {', '.join(CI_METHODS)}, not {method!r}")
    check_probability(confidence, "confidence")
    import irpref.runtime.progress as progress

    frames = []
    rng = np.random.default_rng(seed)
    groups = list(results.groupby("measure", sort=False))
    total = resamples * len(groups) if method != "t" else 0
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
            elif method == "bca":
                from irpref.stats import bootstrap_ci

                low, high = bootstrap_ci(values, resamples, confidence, seed, "bca")
                bar.update(resamples)
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
    (runs and measures in input order; with several baselines, the first row of
    each run and measure: ``mean`` is the same against every baseline)."""
    runs = list(pd.unique(table["run"]))
    measures = list(pd.unique(table["measure"]))
    table = table.drop_duplicates(["run", "measure"])
    out = table.pivot(index="run", columns="measure", values=value)
    out = out.loc[runs, measures]
    out.columns.name = None
    return out
