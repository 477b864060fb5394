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
from irpref.stats.bootstrap import DEFAULT_BOOTSTRAP, bootstrap_ci, draw_counts
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
from irpref.stats.paired import paired_t, rank_biserial, sign_test, wilcoxon
from irpref.stats.pairwise import Pairwise, as_pairwise, is_comparison
from irpref.stats.seeds import SeedLike, reseed

__all__ = ["CI_METHODS", "COLUMNS", "EFFECT_KINDS", "TESTS", "check_ci",
           "check_correction", "check_tests", "default_correction", "moments", "pair_tests",
           "pairwise_list", "significance"]

TESTS = ("paired", "t", "sign", "wilcoxon", "hsd", "tukey")
"""``paired`` picks ``t`` for metrics and real preferences, ``sign`` for sign preferences;
``hsd`` is the randomized Tukey HSD, ``tukey`` the parametric one after the two-way ANOVA."""


CI_METHODS = ("t", "bootstrap", "bca", "none")
"""Intervals of ``mean``: t interval, bootstrap percentile, bootstrap BCa, none."""


COLUMNS = [
    "measure", "test", "run_a", "run_b", "n", "mean", "effect", "wins", "losses", "ties",
    "statistic", "p", "p_adjusted", "ci_low", "ci_high",
    "es_anova", "effect_low", "effect_high", "es_anova_low", "es_anova_high", "ci",
    "orientation", "family", "family_size", "effect_kind", "seed",
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
    correction: str | None = None,
    permutations: int = 10_000,
    seed: SeedLike = 0,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    confidence: float = 0.95,
    wilcoxon_method: str = "auto",
    strict: bool = False,
    ci: str | None = None,
    pairs: tuple[np.ndarray, np.ndarray] | None = None,
    effects: bool = True,
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
    this call (default: holm; hsd and tukey p-values are family-wise already and
    are kept). ``effect_kind`` names what ``effect`` is (:data:`EFFECT_KINDS`: d_z,
    win_share, or rank_biserial for wilcoxon, whose rows have no effect interval);
    ``seed`` the seed of rows that drew random numbers (hsd, bootstrap intervals).
    ``pairs``: index arrays (a, b) of the run pairs to test, in any order
    (the family of hsd and tukey stays all pairs). ``effects=False`` leaves the
    effects' intervals out (``effect_low``/``effect_high`` NaN: the exact
    noncentral-t interval is most of the work of a t test over many pairs; a
    leaderboard reads p and the direction only).
    """
    correction = default_correction([test]) if correction is None else correction
    check_family("measure", correction, False)
    rows = _pair_rows(pairwise, test, permutations=permutations, seed=seed, bootstrap=bootstrap,
                      confidence=confidence, wilcoxon_method=wilcoxon_method, strict=strict,
                      ci=ci, pairs=pairs, effects=effects,
                      label=int(seed) if isinstance(seed, (int, np.integer)) else None)
    return assign_families(rows, "measure", correction)


PAIR_BLOCK = 1 << 16
"""Run pairs whose per-query values are formed and tested at once: memory stays
O(PAIR_BLOCK x Q), never R^2 x Q (the hsd and tukey p-values of all pairs excepted)."""

EFFECT_KINDS = {"t": "d_z", "hsd": "d_z", "tukey": "d_z", "sign": "win_share",
                "wilcoxon": "rank_biserial"}
"""What ``effect`` is on a row of each test (the ``effect_kind`` column): the paired
standardized mean difference d_z = mean / sd, the sign test's win share, or the
matched-pairs rank-biserial correlation (Kerby 2014)."""

RANDOMIZED = ("hsd",)
"""Tests whose p-values use random draws (the ``seed`` column names the seed)."""


def _pair_rows(
    pairwise: Pairwise, test: str, *, permutations: int, seed: SeedLike, bootstrap: int,
    confidence: float, wilcoxon_method: str, strict: bool, ci: str | None,
    pairs: tuple[np.ndarray, np.ndarray] | None, label: int | None = None,
    effects: bool = True,
) -> pd.DataFrame:
    """The rows of :func:`pair_tests` before any correction: ``p_adjusted`` is p
    for the family-wise tests (hsd, tukey) and NaN for the others, filled once
    by :func:`irpref.stats.families.assign_families`. The per-query values are
    formed block by block of :data:`PAIR_BLOCK` pairs. ``label``: the seed the
    caller was given, written in the ``seed`` column of rows that drew numbers."""
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
    else:
        a, b = (np.asarray(x, dtype=np.intp) for x in pairs)
    family_wise = None
    if test == "hsd":
        p_all, stat_all = tukey_hsd(pairwise, permutations, seed, strict=strict)
        index = _pair_index(a, b, pairwise.n_runs)
        family_wise = stat_all[index], p_all[index]
    elif test == "tukey":
        family_wise = tukey_parametric(pairwise.scores, a, b, pairwise.anova)[:2]
    counts = None
    if ci in ("bootstrap", "bca"):
        counts = draw_counts(pairwise.n_queries, bootstrap, reseed(seed, "bootstrap"))
    blocks = [_block(pairwise.pair_values(a[i:i + PAIR_BLOCK], b[i:i + PAIR_BLOCK]),
                     pairwise.sign, test, confidence, wilcoxon_method, ci, counts, effects)
              for i in range(0, len(a), PAIR_BLOCK)]
    cols = {k: np.concatenate([blk[k] for blk in blocks]) if blocks else np.empty(0)
            for k in BLOCK_COLUMNS}
    if family_wise is not None:
        cols["statistic"], cols["p"] = (np.asarray(x, dtype=np.float64) for x in family_wise)
    random = test in RANDOMIZED or ci in ("bootstrap", "bca")
    return _frame(pairwise, test, a, b, cols, confidence, ci, label if random else None)


BLOCK_COLUMNS = ("n", "mean", "effect", "wins", "losses", "ties", "statistic", "p",
                 "effect_low", "effect_high", "ci_low", "ci_high")


def _block(d: np.ndarray, sign: int, test: str, confidence: float, wilcoxon_method: str,
           ci: str, counts: np.ndarray | None, effects: bool = True) -> dict[str, np.ndarray]:
    """The per-pair statistics of one block of per-query values d (P, Q): the test's
    statistic and p (hsd and tukey: filled by the caller), effect and its interval,
    wins/losses/ties by the orientation ``sign``, the interval of the mean by ``ci``."""
    n, mean, sd = moments(d)
    with np.errstate(invalid="ignore", divide="ignore"):
        effect = np.where(sd > 0, mean / sd, np.where(mean == 0, 0.0, np.sign(mean) * np.inf))
    higher, lower, ties, p_sign = sign_test(d)
    wins, losses = (higher, lower) if sign >= 0 else (lower, higher)
    nan = np.full(len(n), np.nan)
    statistic = p = nan
    if test == "t":
        statistic, p, _ = paired_t(d)
    elif test == "sign":
        statistic, p = np.where(np.isnan(p_sign), np.nan, wins), p_sign  # NaN: no query
    elif test == "wilcoxon":
        statistic, p, _ = wilcoxon(d, wilcoxon_method)
    effect_low = effect_high = nan
    if test == "sign":
        with np.errstate(invalid="ignore", divide="ignore"):
            effect = wins / (wins + losses)
        if effects:
            effect_low, effect_high = win_share_interval(wins, losses, confidence)
    elif test == "wilcoxon":  # no interval of the rank-biserial correlation is given
        effect = rank_biserial(d)
    elif effects:
        with np.errstate(invalid="ignore", divide="ignore"):
            effect_low, effect_high = smd_interval(effect * np.sqrt(n), n, confidence)
    if sign == 0:  # no better or worse: no wins, losses or win share
        wins = losses = nan
        if test == "sign":
            statistic = effect = effect_low = effect_high = nan
    if ci == "t":
        low, high, _ = t_interval(d, confidence)
    elif counts is not None:
        method = "percentile" if ci == "bootstrap" else "bca"
        low, high = bootstrap_ci(d, counts.shape[0], confidence, method=method, counts=counts)
    else:
        low = high = nan
    return {"n": n, "mean": mean, "effect": effect, "wins": wins, "losses": losses,
            "ties": ties, "statistic": np.asarray(statistic, dtype=np.float64), "p": p,
            "effect_low": effect_low, "effect_high": effect_high,
            "ci_low": np.reshape(low, -1), "ci_high": np.reshape(high, -1)}


def moments(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(n, mean, sd) along the last axis, NaN values left out (sd with n - 1)."""
    valid = ~np.isnan(d)
    n = valid.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(valid, d, 0.0).sum(-1) / n
        dev = np.where(valid, d - mean[:, None], 0.0)
        sd = np.sqrt((dev * dev).sum(-1) / (n - 1))
    return n, mean, sd


def _frame(pairwise: Pairwise, test: str, a: np.ndarray, b: np.ndarray,
           cols: dict[str, np.ndarray], confidence: float, ci: str, seed) -> pd.DataFrame:
    """The rows of one measure and test: names, ES_E and its interval, the family."""
    n_pairs = len(a)
    p_adj = (np.array(cols["p"], dtype=np.float64) if test in FAMILY_WISE
             else np.full(n_pairs, np.nan))
    if pairwise.kind == "metric":
        es = es_anova(cols["mean"], pairwise.anova.v_e)
        es_low, es_high = es_anova_interval(es, pairwise.anova, confidence)
    else:
        es = es_low = es_high = np.full(n_pairs, np.nan)
    frame = pd.DataFrame({
        "measure": pairwise.measure, "test": test,
        "run_a": pairwise.runs[a], "run_b": pairwise.runs[b], **cols, "p_adjusted": p_adj,
        "es_anova": es, "es_anova_low": es_low, "es_anova_high": es_high, "ci": ci,
        "orientation": pairwise.orientation,
        "family": f"{pairwise.measure}: all pairs" if test in FAMILY_WISE else pairwise.measure,
        "family_size": (pairwise.n_runs * (pairwise.n_runs - 1) // 2 if test in FAMILY_WISE
                        else int((~np.isnan(cols["p"])).sum())),
        "effect_kind": EFFECT_KINDS[test],
        "seed": pd.array([seed] * n_pairs if seed is not None else [pd.NA] * n_pairs,
                         dtype="Int64"),
    })
    return frame[COLUMNS]


def _pair_index(a: np.ndarray, b: np.ndarray, r: int) -> np.ndarray:
    """Row of pair {a, b} in the row-major a < b order of :attr:`Pairwise.pairs`."""
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return lo * r - lo * (lo + 1) // 2 + (hi - lo - 1)


def significance(
    tables: pd.DataFrame | Pairwise | Sequence[pd.DataFrame | Pairwise],
    test: str | Sequence[str] = "paired",
    *,
    correction: str | None = None,
    permutations: int = 10_000,
    seed: int = 0,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    confidence: float = 0.95,
    kinds: dict[str, str] | None = None,
    wilcoxon_method: str = "auto",
    strict: bool = False,
    baseline: str | Sequence[str] | None = None,
    family: str = "measure",
    ci: str | None = None,
    pairs: tuple[np.ndarray, np.ndarray] | None = None,
    effects: bool = True,
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
    correction:   ``holm``, ``bonferroni``, ``bh``, ``by`` or ``none``, within
                  each ``family``; default (None): :func:`default_correction`
                  (holm, or none when every test is hsd / tukey, whose p-values
                  are family-wise already and are never corrected again).
    family:       ``measure`` (default), ``baseline`` or ``all``: see
                  :mod:`irpref.stats.families`; the ``family`` column names it.
    permutations: HSD permutations; ``seed``: HSD and bootstrap seed (default 0;
                  every measure uses the same permutations: results do not depend
                  on which other measures are tested); written in the ``seed``
                  column of the rows that used random draws.
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
    effects:      False: no intervals of the effect sizes (see :func:`pair_tests`).

    See :func:`pair_tests` for the columns; :func:`irpref.discriminative_power`
    summarizes the result.
    """
    tests = check_tests([test] if isinstance(test, str) else test)
    correction = default_correction(tests) if correction is None else correction
    baselines = baseline_list(baseline)
    check_family(family, correction, bool(baselines))
    check_ci(ci if ci is not None else ("bootstrap" if bootstrap else "none"), bootstrap)
    if seed is None:
        seed = 0
    pairwise = pairwise_list(tables, kinds)
    for pw in pairwise:
        check_baselines(pw.runs, baselines)
    out = []
    for pw in pairwise:
        tested = pairs if pairs is not None else (
            baseline_pairs(pw, baselines) if baselines else None)
        for resolved in dict.fromkeys(pw.test_for_paired if t == "paired" else t for t in tests):
            out.append(_pair_rows(
                pw, resolved, permutations=permutations, seed=reseed(seed, "hsd"),
                bootstrap=bootstrap, confidence=confidence, wilcoxon_method=wilcoxon_method,
                strict=strict, ci=ci, pairs=tested, effects=effects,
                label=int(seed) if isinstance(seed, (int, np.integer)) else None,
            ))
    frame = assign_families(pd.concat(out, ignore_index=True), family, correction,
                            by_baseline=bool(baselines))  # p_adjusted: computed here, once
    frame.attrs.update(correction=correction, permutations=permutations, seed=seed,
                       baseline=baseline, family=family)
    return frame


def default_correction(tests: Sequence[str]) -> str:
    """The correction that follows the tests: ``none`` when every test is family-wise
    already (hsd, tukey), else ``holm``."""
    return "none" if tests and all(t in FAMILY_WISE for t in tests) else "holm"


def check_correction(tests: Sequence[str], correction: str | None) -> str:
    """The one rule for a correction given with family-wise tests: hsd and tukey
    p-values are family-wise over all pairs already, so an explicit correction
    other than ``none`` beside them is refused (UsageError, exit 2) instead of being
    silently not applied; None gives :func:`default_correction`."""
    if correction is None:
        return default_correction(tests)
    wise = [t for t in tests if t in FAMILY_WISE]
    if wise and correction != "none":
        raise UsageError(f"--correction {correction} with --test {' '.join(wise)}: their "
                         "p-values are family-wise over all pairs already (no correction "
                         "applies to them); drop --correction or give --correction none")
    return correction


def pairwise_list(tables, kinds: dict[str, str] | None) -> list[Pairwise]:
    """One :class:`Pairwise` per measure of every table given."""
    if isinstance(tables, (pd.DataFrame, Pairwise)) or is_comparison(tables):
        tables = [tables]
    pairwise: list[Pairwise] = []
    for t in tables:
        if isinstance(t, Pairwise):
            pairwise.append(t)
        elif is_comparison(t):
            pairwise.extend(Pairwise.from_comparison(t, name) for name in t.values)
        else:
            pairwise.extend(as_pairwise(t, kinds))
    return pairwise
