"""Comparisons against baselines and the families the multiple-comparison correction runs over.

A family is the set of comparisons whose p-values one correction adjusts
together; tests are never pooled (each test is its own analysis):

- ``measure``: per measure, every comparison made (all run pairs, or every
  run against every baseline);
- ``baseline``: per measure and baseline, the R - 1 runs against it;
- ``all``: every comparison of every measure (runs x baselines x measures).

A baseline is never compared with itself. Randomized (``hsd``) and
parametric (``tukey``) Tukey HSD p-values are family-wise over all run
pairs of a measure already; their rows keep that family.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from irpref.errors import UsageError
from irpref.stats.corrections import CORRECTIONS, adjust_pvalues
from irpref.stats.pairwise import Pairwise

__all__ = ["FAMILIES", "FAMILY_TEXT", "against_baseline", "assign_families", "baseline_list",
           "baseline_pairs", "check_baselines", "check_family", "first_of_hypothesis"]

FAMILIES = ("measure", "baseline", "all")

FAMILY_TEXT = {
    "measure": "each measure",
    "baseline": "each measure and baseline",
    "all": "all measures together",
}
"""How a legend or report names the comparisons one correction runs over, after the
comparisons' own words: "holm correction over the runs x baselines of each measure"
(``irpref evaluate``, ``significance`` and ``report`` read this one table)."""

FAMILY_WISE = ("hsd", "tukey")
"""Tests whose p-values are already family-wise over all run pairs of a measure."""


def check_family(family: str, correction: str, by_baseline: bool) -> None:
    """The one rule for ``family`` and ``correction`` (UsageError, also a ValueError):
    a known family and correction; ``baseline`` needs baselines (``by_baseline``)."""
    if family not in FAMILIES:
        raise UsageError(f"family must be one of {', '.join(FAMILIES)}, not {family!r}")
    if correction not in CORRECTIONS:
        raise UsageError(f"correction must be one of {', '.join(CORRECTIONS)}, not "
                         f"{correction!r}")
    if family == "baseline" and not by_baseline:
        raise UsageError("--family baseline needs --baseline")


def baseline_list(baseline: str | Sequence[str] | None) -> list[str]:
    """The baselines as a list without repeats, in the order given (None: none)."""
    if baseline is None:
        return []
    names = [baseline] if isinstance(baseline, str) else list(baseline)
    return list(dict.fromkeys(str(b) for b in names))


def check_baselines(runs: Sequence[str], baselines: Sequence[str]) -> None:
    """``UsageError`` naming the runs when a baseline is not one of them."""
    known = set(map(str, runs))
    for b in baselines:
        if b not in known:
            raise UsageError(f"--baseline {b!r} is not one of the runs: "
                             + ", ".join(map(str, runs)))


def baseline_pairs(pairwise: Pairwise, baselines: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Index arrays (run, baseline): every other run against each baseline, in run order."""
    check_baselines(pairwise.runs, baselines)
    names = list(map(str, pairwise.runs))
    a, b = [], []
    for base in baselines:
        j = names.index(base)
        others = [i for i in range(len(names)) if i != j]
        a.extend(others)
        b.extend([j] * len(others))
    return np.asarray(a, dtype=np.intp), np.asarray(b, dtype=np.intp)


def assign_families(
    frame: pd.DataFrame, family: str = "measure", correction: str = "holm",
    by_baseline: bool = False,
) -> pd.DataFrame:
    """Fill ``family``, ``family_size`` and ``p_adjusted`` (``correction`` within each family).

    ``by_baseline``: the rows compare runs (run_a) with baselines (run_b);
    needed by ``family="baseline"``. hsd / tukey rows keep their p-values.

    A hypothesis is counted once: with several baselines, baseline A against
    baseline B and B against A are one comparison (same measure, test and run
    pair; a two-sided p does not depend on the order). The first of its rows
    is adjusted within its family; a repeat takes that row's ``p_adjusted``,
    ``family`` and ``family_size``, so the family of ``measure`` or ``all``
    holds R - 1 + R - 2 + ... distinct comparisons (13, not 14, for 8 runs and
    2 baselines), and with ``baseline`` the comparison belongs to the family
    of the first baseline it appears under.
    """
    check_family(family, correction, by_baseline)
    out = frame.copy()
    if out.empty:
        return out
    test = out["test"].to_numpy(object)
    free = ~np.isin(test, FAMILY_WISE)
    measure = out["measure"].astype(str).to_numpy(object)
    if family == "measure":
        label = measure
    elif family == "baseline":
        label = measure + " vs " + out["run_b"].astype(str).to_numpy(object)
    else:
        label = np.full(len(out), "all measures", dtype=object)
    fixed = out["family"].to_numpy(object) if "family" in out else np.full(len(out), "", object)
    labels = np.where(free, label, fixed)
    first = first_of_hypothesis(out)
    repeat = first != np.arange(len(out))
    counted = free & ~repeat
    key = pd.Series(labels, index=out.index) + "\x00" + out["test"].astype(str)
    adjusted = out["p_adjusted"].to_numpy(np.float64).copy()
    sizes = out["family_size"].to_numpy(np.int64).copy() if "family_size" in out else np.zeros(
        len(out), np.int64)
    p = out["p"].to_numpy(np.float64)
    for _, idx in key[counted].groupby(key[counted], sort=False).groups.items():
        rows = out.index.get_indexer(idx)
        adjusted[rows] = adjust_pvalues(p[rows], correction)
        sizes[rows] = int((~np.isnan(p[rows])).sum())
    adjusted[repeat], sizes[repeat] = adjusted[first[repeat]], sizes[first[repeat]]
    labels = np.where(repeat, labels[first], labels)
    out["family"] = labels
    out["p_adjusted"] = adjusted
    out["family_size"] = sizes
    return out


def first_of_hypothesis(frame: pd.DataFrame) -> np.ndarray:
    """Per row, the position of the first row that tests the same hypothesis: the same
    measure and test on the same unordered run pair ({run_a, run_b})."""
    a = frame["run_a"].astype(str).to_numpy(object)
    b = frame["run_b"].astype(str).to_numpy(object)
    low, high = np.where(a <= b, a, b), np.where(a <= b, b, a)
    key = (frame["measure"].astype(str).to_numpy(object) + "\x00"
           + frame["test"].astype(str).to_numpy(object) + "\x00" + low + "\x00" + high)
    codes, _ = pd.factorize(key)
    _, first = np.unique(codes, return_index=True)
    return first[codes]


def against_baseline(
    frame: pd.DataFrame, baseline: str | Sequence[str], correction: str = "holm",
    family: str = "measure",
) -> pd.DataFrame:
    """The rows of a :func:`significance` table that test a run against ``baseline``.

    Each kept row is oriented as (run_a = run, run_b = ``baseline``), so ``mean``
    is run - baseline (raw difference; whether that is better is the measure's
    ``orientation``). Flipping a pair negates ``mean``, ``effect``
    (t/wilcoxon/hsd/tukey), ``es_anova``, the t statistic and the CI, swaps
    wins and losses and turns the sign test's win share w (and its interval)
    into 1 - w; two-sided p-values are unchanged. ``p_adjusted`` is
    recomputed with ``correction`` per ``family`` (see :func:`assign_families`;
    default: the R - 1 comparisons of each measure and test). Several
    baselines give one block of rows per baseline. Raises ``UsageError``
    naming the runs when a baseline is not one of them.
    """
    check_family(family, correction, by_baseline=True)
    runs = pd.unique(pd.concat([frame["run_a"], frame["run_b"]]).astype(object))
    baselines = baseline_list(baseline)
    check_baselines(runs, baselines)
    parts = [_oriented(frame, b) for b in baselines]
    out = pd.concat(parts, ignore_index=True) if parts else frame.iloc[:0].copy()
    return assign_families(out, family, correction, by_baseline=True)


def _oriented(frame: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """Rows with ``baseline`` on one side, turned so that run_b is the baseline."""
    keep = (frame["run_a"] == baseline) | (frame["run_b"] == baseline)
    out = frame[keep].reset_index(drop=True).copy()
    flip = (out["run_a"] == baseline).to_numpy()
    a, b = out["run_a"].to_numpy(object).copy(), out["run_b"].to_numpy(object).copy()
    out["run_a"], out["run_b"] = np.where(flip, b, a), np.where(flip, a, b)
    wins, losses = out["wins"].copy(), out["losses"].copy()
    out["wins"], out["losses"] = losses.where(flip, wins), wins.where(flip, losses)
    test = out["test"].to_numpy(object)
    sign = test == "sign"
    mean, effect = out["mean"].to_numpy(np.float64), out["effect"].to_numpy(np.float64)
    out["mean"] = np.where(flip, -mean, mean)
    out["effect"] = np.where(flip, np.where(sign, 1.0 - effect, -effect), effect)
    stat = out["statistic"].to_numpy(np.float64)
    stat = np.where(flip & (test == "t"), -stat, stat)
    out["statistic"] = np.where(flip & sign, out["wins"].to_numpy(np.float64, na_value=np.nan),
                                stat)
    low, high = out["ci_low"].to_numpy(np.float64), out["ci_high"].to_numpy(np.float64)
    out["ci_low"], out["ci_high"] = np.where(flip, -high, low), np.where(flip, -low, high)
    if "es_anova" in out:
        es = out["es_anova"].to_numpy(np.float64)
        out["es_anova"] = np.where(flip, -es, es)
    if "es_anova_low" in out:
        lo, hi = out["es_anova_low"].to_numpy(np.float64), out["es_anova_high"].to_numpy(np.float64)
        out["es_anova_low"] = np.where(flip, -hi, lo)
        out["es_anova_high"] = np.where(flip, -lo, hi)
    if "effect_low" in out:
        lo, hi = out["effect_low"].to_numpy(np.float64), out["effect_high"].to_numpy(np.float64)
        new_lo = np.where(sign, 1.0 - hi, -hi)
        new_hi = np.where(sign, 1.0 - lo, -lo)
        out["effect_low"] = np.where(flip, new_lo, lo)
        out["effect_high"] = np.where(flip, new_hi, hi)
    return out
