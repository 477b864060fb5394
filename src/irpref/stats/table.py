"""One table of tests over run pairs: :func:`pair_tests`, :func:`significance`, baselines.

- Effect sizes (mean / sd of per-query values; win proportion for sign
  tests) and seeded percentile-bootstrap confidence intervals of the mean.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from irpref.errors import UsageError
from irpref.stats.bootstrap import bootstrap_ci
from irpref.stats.corrections import CORRECTIONS, adjust_pvalues
from irpref.stats.hsd import tukey_hsd
from irpref.stats.paired import paired_t, sign_test, wilcoxon
from irpref.stats.pairwise import Pairwise, _is_comparison, as_pairwise
from irpref.stats.seeds import SeedLike, reseed

__all__ = ["COLUMNS", "TESTS", "against_baseline", "pair_tests", "significance"]

TESTS = ("paired", "t", "sign", "wilcoxon", "hsd")
"""``paired`` picks ``t`` for metrics and real preferences, ``sign`` for sign preferences."""


COLUMNS = [
    "measure", "test", "run_a", "run_b", "n", "mean", "effect", "wins", "losses", "ties",
    "statistic", "p", "p_adjusted", "ci_low", "ci_high",
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
) -> pd.DataFrame:
    """One row per run pair a < b: the test's statistic, raw and adjusted p, effect sizes.

    Columns: ``mean`` (mean per-query difference a - b, or mean preference of
    a over b), ``effect`` (mean / sd for t, wilcoxon, hsd; win proportion
    wins / (wins + losses) for sign), ``wins``/``losses``/``ties`` (queries
    where the value is > 0, < 0, = 0), ``statistic`` (t; wins; min(W+, W-);
    |mean| for hsd), ``p``, ``p_adjusted`` (``correction`` over all pairs;
    HSD p-values are already family-wise and are not adjusted again),
    ``ci_low``/``ci_high`` (bootstrap CI of ``mean``; NaN when
    ``bootstrap=0``).
    """
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, not {test!r}")
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, not {correction!r}")
    if test == "paired":
        test = pairwise.test_for_paired
    d = pairwise.values
    a, b = pairwise.pairs
    valid = ~np.isnan(d)
    n = valid.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(valid, d, 0.0).sum(-1) / n
        dev = np.where(valid, d - mean[:, None], 0.0)
        sd = np.sqrt((dev * dev).sum(-1) / (n - 1))
        effect = np.where(sd > 0, mean / sd, np.where(mean == 0, 0.0, np.sign(mean) * np.inf))
    wins, losses, ties, p_sign = sign_test(d)
    if test == "t":
        statistic, p, _ = paired_t(d)
    elif test == "sign":
        statistic, p = wins.astype(np.float64), p_sign
        with np.errstate(invalid="ignore", divide="ignore"):
            effect = wins / (wins + losses)
    elif test == "wilcoxon":
        statistic, p, _ = wilcoxon(d, wilcoxon_method)
    else:
        p, statistic = tukey_hsd(pairwise, permutations, seed, strict=strict)
    p_adj = p.copy() if test == "hsd" else adjust_pvalues(p, correction)
    if bootstrap:
        low, high = bootstrap_ci(d, bootstrap, confidence, reseed(seed, "bootstrap"))
    else:
        low = high = np.full(len(a), np.nan)
    return pd.DataFrame({
        "measure": pairwise.measure, "test": test,
        "run_a": pairwise.runs[a], "run_b": pairwise.runs[b], "n": n,
        "mean": mean, "effect": effect, "wins": wins, "losses": losses, "ties": ties,
        "statistic": np.asarray(statistic, dtype=np.float64), "p": p, "p_adjusted": p_adj,
        "ci_low": low, "ci_high": high,
    }, columns=COLUMNS)



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
    baseline: str | None = None,
) -> pd.DataFrame:
    """Test every run pair of every measure in tidy tables; one row per (measure, test, pair).

    tables:       tidy metric tables (run, query, measure, value) from
                  :func:`irpref.evaluate`, preference tables (run_a, run_b,
                  query, measure, value) from ``irpref.compare``, results of
                  ``irpref.compare_matrices``, or :class:`Pairwise` objects;
                  several may be given.
    test:         ``paired`` (t for metrics and real preferences, sign for
                  sign preferences), ``t``, ``sign``, ``wilcoxon``, ``hsd``
                  (randomized Tukey HSD), or a list of them.
    correction:   ``holm`` (default), ``bonferroni``, ``bh`` or ``none``, over
                  all run pairs of one measure and test (not applied to hsd).
    permutations: HSD permutations; ``seed``: HSD and bootstrap seed (every
                  measure uses the same permutations: results do not depend
                  on which other measures are tested).
    bootstrap:    bootstrap resamples for the CI of the mean (0: none).
    strict:       HSD counts only permuted maxima strictly above the observed
                  value (see :func:`tukey_hsd`).
    baseline:     keep only the pairs (run, ``baseline``), oriented so that
                  ``mean`` = run - baseline, with ``correction`` over those R - 1
                  comparisons (see :func:`against_baseline`).

    See :func:`pair_tests` for the columns; :func:`irpref.discriminative_power`
    summarizes the result.
    """
    tests = [test] if isinstance(test, str) else list(test)
    if not tests:
        raise ValueError("no test given")
    for t in tests:
        if t not in TESTS:
            raise ValueError(f"test must be one of {', '.join(TESTS)}, not {t!r}")
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
    out = []
    for pw in pairwise:
        done = set()
        for t in tests:
            resolved = pw.test_for_paired if t == "paired" else t
            if resolved in done:
                continue
            done.add(resolved)
            out.append(pair_tests(
                pw, resolved, correction=correction, permutations=permutations,
                seed=reseed(seed, "hsd"), bootstrap=bootstrap, confidence=confidence,
                wilcoxon_method=wilcoxon_method, strict=strict,
            ))
    frame = pd.concat(out, ignore_index=True)
    if baseline is not None:
        frame = against_baseline(frame, baseline, correction)
    frame.attrs.update(correction=correction, permutations=permutations, seed=seed,
                       baseline=baseline)
    return frame


def against_baseline(frame: pd.DataFrame, baseline: str, correction: str = "holm") -> pd.DataFrame:
    """The rows of a :func:`significance` table that test a run against ``baseline``.

    Each kept row is oriented as (run_a = run, run_b = ``baseline``), so ``mean``
    is run - baseline (positive: the run is better on a higher-is-better
    measure). Flipping a pair negates ``mean``, ``effect`` (t/wilcoxon/hsd),
    the t statistic and the CI, swaps wins and losses and turns the sign
    test's win proportion w into 1 - w; two-sided p-values are unchanged.
    ``p_adjusted`` is recomputed with ``correction`` over the R - 1 baseline
    comparisons of each (measure, test) (randomized HSD p-values are already
    family-wise over all pairs and are kept). Raises ``UsageError`` naming the
    runs when ``baseline`` is not one of them.
    """
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, not {correction!r}")
    runs = pd.unique(pd.concat([frame["run_a"], frame["run_b"]]).astype(object))
    if baseline not in set(runs):
        raise UsageError(f"--baseline {baseline!r} is not one of the runs: "
                         + ", ".join(map(str, runs)))
    keep = (frame["run_a"] == baseline) | (frame["run_b"] == baseline)
    out = frame[keep].reset_index(drop=True).copy()
    flip = (out["run_a"] == baseline).to_numpy()
    a, b = out["run_a"].to_numpy(object).copy(), out["run_b"].to_numpy(object).copy()
    out["run_a"], out["run_b"] = np.where(flip, b, a), np.where(flip, a, b)
    wins, losses = out["wins"].to_numpy().copy(), out["losses"].to_numpy().copy()
    out["wins"], out["losses"] = np.where(flip, losses, wins), np.where(flip, wins, losses)
    test = out["test"].to_numpy(object)
    sign = test == "sign"
    mean, effect = out["mean"].to_numpy(np.float64), out["effect"].to_numpy(np.float64)
    out["mean"] = np.where(flip, -mean, mean)
    out["effect"] = np.where(flip, np.where(sign, 1.0 - effect, -effect), effect)
    stat = out["statistic"].to_numpy(np.float64)
    stat = np.where(flip & (test == "t"), -stat, stat)
    out["statistic"] = np.where(flip & sign, out["wins"].to_numpy(np.float64), stat)
    low, high = out["ci_low"].to_numpy(np.float64), out["ci_high"].to_numpy(np.float64)
    out["ci_low"], out["ci_high"] = np.where(flip, -high, low), np.where(flip, -low, high)
    for _, idx in out.groupby(["measure", "test"], sort=False).groups.items():
        idx = np.asarray(idx)
        if out.at[idx[0], "test"] != "hsd":
            out.loc[idx, "p_adjusted"] = adjust_pvalues(out.loc[idx, "p"].to_numpy(np.float64),
                                                        correction)
    return out
