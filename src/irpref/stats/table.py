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
from irpref.stats.anova import es_anova, es_anova_interval, tukey_parametric
from irpref.stats.bootstrap import bootstrap_ci
from irpref.stats.families import (
    FAMILY_WISE,
    assign_families,
    baseline_list,
    baseline_pairs,
    check_baselines,
    check_family,
)
from irpref.stats.hsd import tukey_hsd
from irpref.stats.intervals import smd_interval, t_interval, win_share_interval
from irpref.stats.paired import paired_t, sign_test, wilcoxon
from irpref.stats.pairwise import Pairwise, _is_comparison, as_pairwise
from irpref.stats.seeds import SeedLike, reseed

__all__ = ["CI_METHODS", "COLUMNS", "TESTS", "check_ci", "check_tests", "pair_tests",
           "significance"]

TESTS = ("paired", "t", "sign", "wilcoxon", "hsd", "tukey")
"""``paired`` picks ``t`` for metrics and real preferences, ``sign`` for sign preferences;
``hsd`` is the randomized Tukey HSD, ``tukey`` the parametric one after the two-way ANOVA."""

CI_METHODS = ("t", "bootstrap", "bca", "none")
"""Intervals of ``mean``: t interval, bootstrap percentile, bootstrap BCa, none."""


COLUMNS = [
    "measure", "test", "run_a", "run_b", "n", "mean", "effect", "wins", "losses", "ties",
    "statistic", "p", "p_adjusted", "ci_low", "ci_high",
    "es_anova", "effect_low", "effect_high", "es_anova_low", "es_anova_high", "ci",
    "orientation", "family", "family_size",
]


def check_tests(tests: Sequence[str]) -> list[str]:
    """The one rule for test names (UsageError, also a ValueError): each of :data:`TESTS`."""
    tests = list(tests)
    if not tests:
        raise UsageError("no test given")
    for t in tests:
        if t not in TESTS:
            raise UsageError(f"test must be one of {', '.join(TESTS)}, not {t!r}")
    return tests


def check_ci(ci: str, bootstrap: int) -> None:
    """The one rule for the interval method: one of :data:`CI_METHODS`; the
    bootstrap ones need resamples (``bootstrap`` > 0)."""
    if ci not in CI_METHODS:
        raise UsageError(f"ci must be one of {', '.join(CI_METHODS)}, not {ci!r}")
    if ci in ("bootstrap", "bca") and not bootstrap:
        raise UsageError(f"--ci {ci} needs --bootstrap N > 0 (bootstrap resamples)")


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
    interval of the standardized mean difference. ``es_anova_low``/
    ``es_anova_high``: ES_E -+ t_{(1+c)/2, df_E} sqrt(2 / Q), the ANOVA interval of
    a difference (Sakai 2018, Ch. 5) over sqrt(V_E): an interval of ES_E only when
    V_E is treated as known (:func:`irpref.stats.anova.es_anova_interval`).

    ``statistic``: t; wins; min(W+, W-); |mean| for hsd; the studentized
    range q for tukey. ``p``; ``p_adjusted``: ``correction`` over the rows of
    this call (hsd and tukey p-values are family-wise already and are kept).
    ``pairs``: index arrays (a, b) of the run pairs to test, in any order
    (the family of hsd and tukey stays all pairs).
    """
    check_family("measure", correction, False)
    rows = _pair_rows(pairwise, test, permutations=permutations, seed=seed, bootstrap=bootstrap,
                      confidence=confidence, wilcoxon_method=wilcoxon_method, strict=strict,
                      ci=ci, pairs=pairs)
    return assign_families(rows, "measure", correction)


def _pair_rows(
    pairwise: Pairwise, test: str, *, permutations: int, seed: SeedLike, bootstrap: int,
    confidence: float, wilcoxon_method: str, strict: bool, ci: str | None,
    pairs: tuple[np.ndarray, np.ndarray] | None,
) -> pd.DataFrame:
    """The rows of :func:`pair_tests` before any correction: ``p_adjusted`` is p
    for the family-wise tests (hsd, tukey) and NaN for the others, filled once
    by :func:`irpref.stats.families.assign_families`."""
    check_tests([test])
    ci = ci if ci is not None else ("bootstrap" if bootstrap else "none")
    check_ci(ci, bootstrap)
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
        statistic, p = np.where(np.isnan(p_sign), np.nan, wins), p_sign  # NaN: no query
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
        statistic, p, _ = tukey_parametric(pairwise.scores, a, b, pairwise.anova)
    if test != "sign":
        with np.errstate(invalid="ignore", divide="ignore"):
            effect_low, effect_high = smd_interval(effect * np.sqrt(n), n, confidence)
    if sign == 0:  # no better or worse: no wins, losses or win share
        wins = losses = np.full(len(a), np.nan)
        if test == "sign":
            statistic = np.full(len(a), np.nan)
            effect = effect_low = effect_high = np.full(len(a), np.nan)
    p_adj = np.array(p, dtype=np.float64) if test in FAMILY_WISE else np.full(len(a), np.nan)
    if pairwise.kind == "metric":
        es = es_anova(mean, pairwise.anova.v_e)
        es_low, es_high = es_anova_interval(es, pairwise.anova, confidence)
    else:
        es = es_low = es_high = np.full(len(a), np.nan)
    if ci == "t":
        low, high, _ = t_interval(d, confidence)
    elif ci in ("bootstrap", "bca"):
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
        "es_anova": es, "effect_low": effect_low, "effect_high": effect_high,
        "es_anova_low": es_low, "es_anova_high": es_high, "ci": ci,
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
    pairs: tuple[np.ndarray, np.ndarray] | None = None,
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
    pairs:        index arrays (a, b): test only these run pairs of every measure
                  (a block of the pairs, e.g. a Dask task's: ``p_adjusted`` is then
                  within the block; :func:`assign_families` over all blocks' rows
                  gives the whole family's). The family of hsd and tukey stays all
                  pairs.

    See :func:`pair_tests` for the columns; :func:`irpref.discriminative_power`
    summarizes the result.
    """
    tests = check_tests([test] if isinstance(test, str) else test)
    baselines = baseline_list(baseline)
    check_family(family, correction, bool(baselines))
    check_ci(ci if ci is not None else ("bootstrap" if bootstrap else "none"), bootstrap)
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
        tested = pairs if pairs is not None else (
            baseline_pairs(pw, baselines) if baselines else None)
        done = set()
        for t in tests:
            resolved = pw.test_for_paired if t == "paired" else t
            if resolved in done:
                continue
            done.add(resolved)
            out.append(_pair_rows(
                pw, resolved, permutations=permutations, seed=reseed(seed, "hsd"),
                bootstrap=bootstrap, confidence=confidence, wilcoxon_method=wilcoxon_method,
                strict=strict, ci=ci, pairs=tested,
            ))
    frame = assign_families(pd.concat(out, ignore_index=True), family, correction,
                            by_baseline=bool(baselines))  # p_adjusted: computed here, once
    frame.attrs.update(correction=correction, permutations=permutations, seed=seed,
                       baseline=baseline, family=family)
    return frame
