"""One table of tests over run pairs: :func:`pair_tests` (one measure), :func:`significance`.

Per pair: the test's statistic and p, the adjusted p within its family,
effect sizes (paired standardized mean difference, Sakai's ES_E, the sign
test's win share) and an interval of the mean difference (t, or seeded
bootstrap percentile / BCa). Wins, losses and win shares follow the
measure's orientation; ``mean`` and the intervals are raw run_a - run_b.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from irpref.errors import UsageError
from irpref.stats.anova import anova_two_way, es_anova, tukey_parametric
from irpref.stats.bootstrap import bootstrap_ci
from irpref.stats.corrections import CORRECTIONS, adjust_pvalues
from irpref.stats.families import (
    FAMILIES,
    assign_families,
    baseline_list,
    baseline_pairs,
    check_baselines,
)
from irpref.stats.hsd import tukey_hsd
from irpref.stats.intervals import smd_interval, t_interval, win_share_interval
from irpref.stats.paired import paired_t, sign_test, wilcoxon
from irpref.stats.pairwise import Pairwise, _is_comparison, as_pairwise
from irpref.stats.seeds import SeedLike, reseed

__all__ = ["CI_METHODS", "COLUMNS", "TESTS", "pair_tests", "significance"]

TESTS = ("paired", "t", "sign", "wilcoxon", "hsd", "tukey")
"""``paired`` picks ``t`` for metrics and real preferences, ``sign`` for sign preferences;
``hsd`` is the randomized Tukey HSD, ``tukey`` the parametric one after the two-way ANOVA."""

CI_METHODS = ("t", "bootstrap", "bca", "none")
"""Intervals of ``mean``: t interval, bootstrap percentile, bootstrap BCa, none."""

FAMILY_WISE = ("hsd", "tukey")
"""Tests whose p-values are already family-wise over all run pairs of a measure."""

COLUMNS = [
    "measure", "test", "run_a", "run_b", "n", "mean", "effect", "wins", "losses", "ties",
    "statistic", "p", "p_adjusted", "ci_low", "ci_high",
    "es_anova", "effect_low", "effect_high", "ci", "orientation", "family", "family_size",
]


def pair_tests(
    pairwise: Pairwise,
    test: str = "paired",
    *,
    correction: str = "holm",
    permutations: int = 10_000,
    seed: SeedLike = None,
    bootstrap: int = 1000,
    confidence: float = 0.95,
    wilcoxon_method: str = "auto",
    strict: bool = False,
    ci: str | None = None,
    pairs: tuple[np.ndarray, np.ndarray] | None = None,
) -> pd.DataFrame:
    """One row per run pair (default: every a < b): statistic, raw and adjusted p, effect sizes.

    Raw, signed as run_a - run_b: ``mean`` (mean per-query difference, or mean
    preference of a over b), ``effect`` (paired standardized mean difference
    mean / sd of the per-query values; for sign, the win share below),
    ``es_anova`` (Sakai's ES_E = mean / sqrt(V_E), V_E the residual variance of
    the two-way ANOVA without replication over ALL runs of the measure;
    metrics only), ``ci_low``/``ci_high`` (interval of ``mean`` by ``ci``:
    ``t`` interval at ``confidence``, ``bootstrap`` percentile or ``bca``
    from ``bootstrap`` seeded resamples, ``none``; default ``bootstrap`` when
    ``bootstrap`` > 0, else ``none``).

    Oriented by the measure's record (:attr:`Pairwise.orientation`):
    ``wins``/``losses`` (queries where run_a is better / worse; NaN when the
    measure has no better or worse), ``ties`` (value 0), and for the sign test
    the win share wins / (wins + losses) in ``effect`` with its exact
    (Clopper-Pearson) interval in ``effect_low``/``effect_high``; for the
    other tests ``effect_low``/``effect_high`` is the exact (noncentral t)
    interval of the standardized mean difference. ES_E has no interval here.

    ``statistic``: t; wins; min(W+, W-); |mean| for hsd; the studentized
    range q for tukey. ``p``; ``p_adjusted``: ``correction`` over the rows of
    this call (hsd and tukey p-values are family-wise already and are kept).
    ``pairs``: index arrays (a, b) of the run pairs to test, in any order
    (the family of hsd and tukey stays all pairs).
    """
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, not {test!r}")
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, not {correction!r}")
    ci = ci if ci is not None else ("bootstrap" if bootstrap else "none")
    if ci not in CI_METHODS:
        raise ValueError(f"ci must be one of {', '.join(CI_METHODS)}, not {ci!r}")
    if test == "paired":
        test = pairwise.test_for_paired
    if test == "tukey" and pairwise.kind != "metric":
        raise ValueError(f"{pairwise.measure}: the parametric Tukey HSD (tukey) needs a metric "
                         "(per-run scores); use hsd for preferences")
    if pairs is None:
        a, b = pairwise.pairs
        d = pairwise.values
    else:
        a, b = (np.asarray(x, dtype=np.intp) for x in pairs)
        d = pairwise.pair_values(a, b)
    valid = ~np.isnan(d)
    n = valid.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(valid, d, 0.0).sum(-1) / n
        dev = np.where(valid, d - mean[:, None], 0.0)
        sd = np.sqrt((dev * dev).sum(-1) / (n - 1))
        effect = np.where(sd > 0, mean / sd, np.where(mean == 0, 0.0, np.sign(mean) * np.inf))
    sign = pairwise.sign
    higher, lower, ties, p_sign = sign_test(d)
    wins, losses = (higher, lower) if sign >= 0 else (lower, higher)
    effect_low = effect_high = np.full(len(a), np.nan)
    if test == "t":
        statistic, p, _ = paired_t(d)
    elif test == "sign":
        statistic, p = wins.astype(np.float64), p_sign
        with np.errstate(invalid="ignore", divide="ignore"):
            effect = wins / (wins + losses)
        effect_low, effect_high = win_share_interval(wins, losses, confidence)
    elif test == "wilcoxon":
        statistic, p, _ = wilcoxon(d, wilcoxon_method)
    elif test == "hsd":
        p_all, stat_all = tukey_hsd(pairwise, permutations, seed, strict=strict)
        index = _pair_index(a, b, pairwise.n_runs)
        p, statistic = p_all[index], stat_all[index]
    else:
        statistic, p, _ = tukey_parametric(pairwise.scores, a, b)
    if test != "sign":
        with np.errstate(invalid="ignore", divide="ignore"):
            effect_low, effect_high = smd_interval(effect * np.sqrt(n), n, confidence)
    if sign == 0:  # no better or worse: no wins, losses or win share
        wins = losses = np.full(len(a), np.nan)
        if test == "sign":
            statistic = np.full(len(a), np.nan)
            effect = effect_low = effect_high = np.full(len(a), np.nan)
    p_adj = p.copy() if test in FAMILY_WISE else adjust_pvalues(p, correction)
    if pairwise.kind == "metric":
        es = es_anova(mean, anova_two_way(pairwise.scores).v_e)
    else:
        es = np.full(len(a), np.nan)
    if ci == "t":
        low, high, _ = t_interval(d, confidence)
    elif ci in ("bootstrap", "bca"):
        if not bootstrap:
            raise ValueError(f"ci={ci!r} needs bootstrap resamples (bootstrap > 0)")
        method = "percentile" if ci == "bootstrap" else "bca"
        low, high = bootstrap_ci(d, bootstrap, confidence, reseed(seed, "bootstrap"), method)
    else:
        low = high = np.full(len(a), np.nan)
    return pd.DataFrame({
        "measure": pairwise.measure, "test": test,
        "run_a": pairwise.runs[a], "run_b": pairwise.runs[b], "n": n,
        "mean": mean, "effect": effect, "wins": wins, "losses": losses, "ties": ties,
        "statistic": np.asarray(statistic, dtype=np.float64), "p": p, "p_adjusted": p_adj,
        "ci_low": np.reshape(low, -1), "ci_high": np.reshape(high, -1),
        "es_anova": es, "effect_low": effect_low, "effect_high": effect_high, "ci": ci,
        "orientation": pairwise.orientation,
        "family": f"{pairwise.measure}: all pairs" if test in FAMILY_WISE else pairwise.measure,
        "family_size": (pairwise.n_runs * (pairwise.n_runs - 1) // 2 if test in FAMILY_WISE
                        else int((~np.isnan(p)).sum())),
    }, columns=COLUMNS)


def _pair_index(a: np.ndarray, b: np.ndarray, r: int) -> np.ndarray:
    """Row of pair {a, b} in the row-major a < b order of :attr:`Pairwise.pairs`."""
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return lo * r - lo * (lo + 1) // 2 + (hi - lo - 1)


def significance(
    tables: pd.DataFrame | Pairwise | Sequence[pd.DataFrame | Pairwise],
    test: str | Sequence[str] = "paired",
    *,
    correction: str = "holm",
    permutations: int = 10_000,
    seed: int | None = None,
    bootstrap: int = 1000,
    confidence: float = 0.95,
    kinds: dict[str, str] | None = None,
    wilcoxon_method: str = "auto",
    strict: bool = False,
    baseline: str | Sequence[str] | None = None,
    family: str = "measure",
    ci: str | None = None,
) -> pd.DataFrame:
    """Test run pairs of every measure in tidy tables; one row per (measure, test, pair).

    tables:       tidy metric tables (run, query, measure, value) from
                  :func:`irpref.evaluate`, preference tables (run_a, run_b,
                  query, measure, value) from ``irpref.compare``, results of
                  ``irpref.compare_matrices``, or :class:`Pairwise` objects;
                  several may be given.
    test:         ``paired`` (t for metrics and real preferences, sign for sign
                  preferences), ``t``, ``sign``, ``wilcoxon``, ``hsd``
                  (randomized Tukey HSD), ``tukey`` (parametric Tukey HSD after
                  the two-way ANOVA; metrics only), or a list of them.
    correction:   ``holm`` (default), ``bonferroni``, ``bh``, ``by`` or ``none``,
                  within each ``family`` (not applied to hsd / tukey).
    family:       ``measure`` (default), ``baseline`` or ``all``: see
                  :mod:`irpref.stats.families`; the ``family`` column names it.
    permutations: HSD permutations; ``seed``: HSD and bootstrap seed (every
                  measure uses the same permutations: results do not depend
                  on which other measures are tested).
    bootstrap:    bootstrap resamples for ``ci`` bootstrap / bca.
    ci:           interval of ``mean``: ``t``, ``bootstrap`` (percentile),
                  ``bca``, ``none``; default bootstrap if ``bootstrap`` > 0.
    strict:       HSD counts only permuted maxima strictly above the observed
                  value (see :func:`tukey_hsd`).
    baseline:     one run name or several: test only every other run against
                  each (run_a = run, run_b = baseline, ``mean`` = run - baseline).

    See :func:`pair_tests` for the columns; :func:`irpref.discriminative_power`
    summarizes the result.
    """
    tests = [test] if isinstance(test, str) else list(test)
    if not tests:
        raise ValueError("no test given")
    for t in tests:
        if t not in TESTS:
            raise ValueError(f"test must be one of {', '.join(TESTS)}, not {t!r}")
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {', '.join(FAMILIES)}, not {family!r}")
    baselines = baseline_list(baseline)
    if family == "baseline" and not baselines:
        raise UsageError("--family baseline needs --baseline")
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    if isinstance(tables, (pd.DataFrame, Pairwise)) or _is_comparison(tables):
        tables = [tables]
    pairwise: list[Pairwise] = []
    for t in tables:
        if isinstance(t, Pairwise):
            pairwise.append(t)
        elif _is_comparison(t):
            pairwise.extend(Pairwise.from_comparison(t, name) for name in t.values)
        else:
            pairwise.extend(as_pairwise(t, kinds))
    for pw in pairwise:
        check_baselines(pw.runs, baselines)
    out = []
    for pw in pairwise:
        pairs = baseline_pairs(pw, baselines) if baselines else None
        done = set()
        for t in tests:
            resolved = pw.test_for_paired if t == "paired" else t
            if resolved in done:
                continue
            done.add(resolved)
            out.append(pair_tests(
                pw, resolved, correction=correction, permutations=permutations,
                seed=reseed(seed, "hsd"), bootstrap=bootstrap, confidence=confidence,
                wilcoxon_method=wilcoxon_method, strict=strict, ci=ci, pairs=pairs,
            ))
    frame = pd.concat(out, ignore_index=True)
    frame = assign_families(frame, family, correction, by_baseline=bool(baselines))
    frame.attrs.update(correction=correction, permutations=permutations, seed=seed,
                       baseline=baseline, family=family)
    return frame
