"""The report's "How sure are we" section: each run against each baseline, with
intervals, effect sizes, corrected p-values and the topic-set-size verdict.

Every number comes from the library, never from a second implementation:

- :func:`trust_rows`: the rows of one :func:`irpref.stats.against_baselines`
  call (the tests of :func:`irpref.stats.significance` with ``baseline=``;
  paired test: Student's t for metrics) without the baselines' own rows, so
  the table equals ``irpref significance ... --baseline B --correction C
  --family F --confidence L`` row for row: ``mean`` = run - baseline, its t
  interval (``ci_low``, ``ci_high``), with ``bootstrap`` > 0 the seeded paired
  bootstrap percentile interval of ``--ci bootstrap`` from the same call
  (``boot_low``, ``boot_high``), the paired standardized mean difference
  ``effect`` (mean / sd of the differences) with its noncentral-t interval,
  Sakai's ES_E (``es_anova`` = mean / sqrt(V_E)), ``p`` and ``p_adjusted``
  within ``family`` (its size in ``family_size``);
- :func:`topic_verdicts`: Sakai's topic-set-size design (Information
  Retrieval Journal 19(3), 2016; :mod:`irpref.design`) read backwards for the
  collection at hand: with n topics (those every run has) and V_E from the
  two-way ANOVA of the runs, the smallest difference the paired t-test
  detects with power 1 - beta at level alpha, d_min = D_min(n) sqrt(2 V_E)
  (the ``min-diff`` row of ``irpref design``), and per comparison the power
  the test has at the observed |mean| (``power``).

Better or worse (``marker``: ▲ / ▼, those of :func:`against_baselines`)
follows each measure's record (its ``orientation``): a lower ASL is better.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from irpref.stats.families import FAMILY_TEXT

__all__ = ["TrustOptions", "trust_rows", "summary_rows", "topic_verdicts",
           "trust_section", "verdict_sentence"]

COLUMNS = ["measure", "run", "baseline", "n", "mean", "ci_low", "ci_high", "effect",
           "effect_low", "effect_high", "es_anova", "p", "p_adjusted", "family",
           "family_size", "significant", "marker", "power"]

CORRECTION_TEXT = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg",
                   "by": "Benjamini-Yekutieli", "none": "no correction"}


@dataclass(frozen=True)
class TrustOptions:
    """Options of the section, those of ``irpref significance`` (same defaults)."""

    correction: str = "holm"
    family: str = "measure"
    confidence: float = 0.95
    bootstrap: int = 0  # > 0: also a seeded paired bootstrap percentile interval
    seed: int = 0
    beta: float = 0.20  # the design's power is 1 - beta


_RENAMED = {"paired": "n", "diff": "mean", "diff_low": "ci_low", "diff_high": "ci_high"}
""":func:`irpref.stats.against_baselines` column -> this table's (``irpref significance``'s:
n = paired queries, mean = run - baseline; the run's own n and mean are dropped)."""


def trust_rows(results: pd.DataFrame, baselines: Sequence[str], alpha: float = 0.05,
               options: TrustOptions = TrustOptions()) -> pd.DataFrame:
    """One row per (measure, run, baseline), the run never its own baseline: the columns
    of :data:`COLUMNS` (plus ``boot_low``, ``boot_high`` with ``options.bootstrap``).

    ``results``: the tidy per-query table of :func:`irpref.evaluate`.
    ``significant`` is p_adjusted < ``alpha``; ``power``: see the module doc.
    """
    from irpref.stats import against_baselines

    table = against_baselines(
        results, list(baselines), test="paired", correction=options.correction,
        family=options.family, alpha=alpha, ci="bootstrap" if options.bootstrap else "t",
        confidence=options.confidence, bootstrap=options.bootstrap, seed=options.seed,
        also_t=bool(options.bootstrap))
    out = table[table["run"] != table["baseline"]].drop(columns=["n", "mean"])
    out = out.rename(columns=_RENAMED).reset_index(drop=True)
    if options.bootstrap:  # diff_low/diff_high hold the bootstrap interval, t_* the t one
        out = out.rename(columns={"ci_low": "boot_low", "ci_high": "boot_high",
                                  "t_low": "ci_low", "t_high": "ci_high"})
    out = out.astype({"n": np.int64, "family_size": np.int64})
    out["power"] = np.nan
    verdicts = topic_verdicts(results, alpha, options.beta)
    for rec in verdicts.itertuples(index=False):
        rows = (out["measure"] == rec.measure).to_numpy()
        out.loc[rows, "power"] = _power(out.loc[rows, "mean"].to_numpy(np.float64),
                                        rec.topics, rec.V_E, alpha)
    cols = [*COLUMNS[:7], *(["boot_low", "boot_high"] if options.bootstrap else []),
            *COLUMNS[7:]]
    out = out[cols].reset_index(drop=True)
    out.attrs = dict(correction=options.correction, baseline=list(baselines),
                     family=options.family, confidence=options.confidence,
                     bootstrap=options.bootstrap, seed=options.seed, alpha=alpha,
                     beta=options.beta)
    return out


def _power(mean: np.ndarray, topics: int, v_e: float, alpha: float) -> np.ndarray:
    """Power of the paired t-test with ``topics`` topics at the observed |mean| (Sakai 2016:
    standardized by the sd of a difference, sqrt(2 V_E))."""
    from irpref.design import paired_t_power

    if topics < 2 or not v_e > 0:
        return np.full(len(mean), np.nan)
    return paired_t_power(topics, np.abs(mean) / math.sqrt(2 * v_e), alpha)


def topic_verdicts(results: pd.DataFrame, alpha: float = 0.05, beta: float = 0.20
                   ) -> pd.DataFrame:
    """Per measure: topics (every run has), V_E, min_diff (the smallest raw difference the
    paired t-test detects with power 1 - beta at ``alpha``; NaN when it cannot be told:
    fewer than 2 topics or V_E = 0), alpha, beta."""
    from irpref.design import min_detectable_difference
    from irpref.stats import Pairwise, anova_two_way

    rows = []
    for measure in pd.unique(results["measure"].astype(str)):
        if results[results["measure"] == measure]["run"].nunique() < 2:
            continue
        anova = anova_two_way(Pairwise.from_metric(results, measure).scores)
        n, v_e = int(anova.n_topics), float(anova.v_e)
        d = (min_detectable_difference(n, alpha, beta) * math.sqrt(2 * v_e)
             if n >= 2 and v_e > 0 else math.nan)
        rows.append({"measure": measure, "topics": n, "V_E": v_e, "min_diff": d,
                     "alpha": alpha, "beta": beta})
    return pd.DataFrame(rows, columns=["measure", "topics", "V_E", "min_diff", "alpha",
                                       "beta"])


def verdict_sentence(row, below: int | None = None, compared: int | None = None) -> str:
    """"With 43 topics, differences below 0.0314 in AP cannot be detected reliably (power
    0.8 at alpha 0.05)", and how many observed differences are smaller."""
    power = 1 - row.beta
    if row.topics < 2:
        return (f"{row.measure}: fewer than 2 topics that every run has: no topic-set-size "
                "verdict.")
    if not row.V_E > 0:
        return (f"{row.measure}: the residual variance V_E is 0 over {row.topics} topics: "
                "every difference would be detected.")
    text = (f"With {row.topics} topics, differences below {row.min_diff:.3g} in {row.measure} "
            f"cannot be detected reliably (power {power:g} at alpha {row.alpha:g}; V_E "
            f"{row.V_E:.3g}).")
    if compared:
        text += (f" {below} of the {compared} observed differences against the baseline"
                 f"{'s' if compared > 1 else ''} are smaller.")
    return text


def summary_rows(results: pd.DataFrame, trust: pd.DataFrame | None, baselines: Sequence[str]
                 ) -> pd.DataFrame:
    """The summary's per (baseline, measure, run) rows: n, paired, mean, diff, wins,
    losses, ties from :func:`irpref.report.baseline.baseline_table` and p, p_adjusted,
    significant, marker from ``trust`` (:func:`trust_rows`), so the marks and the
    "How sure are we" section say the same. The baselines' own rows have no marker."""
    from irpref.report.baseline import baseline_table

    parts = []
    for base in baselines:
        table = baseline_table(results, base, test="t", correction="none")
        if trust is None:  # one run: nothing to compare
            table.insert(2, "baseline", base)
            parts.append(table)
            continue
        table = table.drop(columns=["p", "p_adjusted", "significant", "marker"])
        mine = trust[trust["baseline"] == base][["measure", "run", "p", "p_adjusted",
                                                 "significant", "marker"]]
        table = table.merge(mine, on=["measure", "run"], how="left", sort=False)
        table["significant"] = table["significant"].eq(True)
        table["marker"] = table["marker"].fillna("")
        table.insert(2, "baseline", base)
        parts.append(table)
    return pd.concat(parts, ignore_index=True)


def trust_section(sure: pd.DataFrame, results: pd.DataFrame, short, many: bool = False):
    """The report's "How sure are we" section from :func:`trust_rows`' table
    (``short``: the report's function giving a frame's run columns their figure labels)."""
    from irpref.report.blocks import Block, Section, _png
    from irpref.report.run_plots import difference_intervals

    a = sure.attrs
    verdicts = topic_verdicts(results, a["alpha"], a["beta"])
    texts = []
    for row in verdicts.itertuples(index=False):
        mine = sure[sure["measure"] == row.measure]["mean"].abs()
        below = int((mine < row.min_diff).sum()) if np.isfinite(row.min_diff) else None
        texts.append(Block("text", verdict_sentence(row, below, len(mine))))
    figures = [Block("details", f"{m}: differences with their intervals", open=not many,
                     children=[Block("figure", f"{m}: differences against the baselines",
                                     png=_png(difference_intervals(
                                         short(sure, "run", "baseline"), m)))])
               for m in pd.unique(sure["measure"])]
    boot = (f" and the paired bootstrap percentile interval (boot_low, boot_high: "
            f"{a['bootstrap']} resamples, seed {a['seed']})" if a["bootstrap"] else "")
    sentence = (
        f"Each run against each baseline, mean = run - baseline over the queries both have: "
        f"its {a['confidence']:g} t interval (ci_low, ci_high){boot}; the paired "
        "standardized mean difference (effect = mean / sd, noncentral-t interval) and "
        "Sakai's ES_E (es_anova = mean / sqrt(V_E), Laboratory Experiments in IR, 2018); p "
        f"of the paired t test and p_adjusted ({CORRECTION_TEXT[a['correction']]} over "
        f"the runs x baselines of {FAMILY_TEXT[a['family']]}: family, family_size; "
        f"significant below alpha = {a['alpha']:g}); and the topic-set-size verdict (Sakai, "
        f"Topic set size design, Information Retrieval Journal, 2016): the smallest "
        f"difference this collection's topics detect with power {1 - a['beta']:g}, and the "
        "power at each observed difference (power). The numbers are those of irpref "
        "significance --baseline with the same --correction, --family and --confidence.")
    table = sure.drop(columns=["significant"])
    return Section("how-sure", "How sure are we", sentence, [
        *texts,
        Block("table", "Topic-set-size verdict per measure (V_E from the two-way ANOVA of "
              "the runs; min_diff: raw difference detected with power 1 - beta)",
              table=verdicts),
        *figures,
        Block("details", f"All {len(sure)} comparisons", open=not many,
              children=[Block("table", table=table)])])
