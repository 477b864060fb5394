"""The report's "How sure are we" section: each run against each baseline, with
intervals, effect sizes, the one test result's verdicts and the topic-set-size verdict.

- :func:`comparison_rows`: one row per (measure, run, baseline), the run never
  its own baseline. Differences, wins/losses/ties, effect sizes and the
  unadjusted intervals come from :func:`irpref.stats.against_baselines` (its
  t interval at ``confidence``; with ``bootstrap`` > 0 also the seeded paired
  bootstrap percentile interval, the draws of ``irpref significance --ci
  bootstrap``); ``p``, ``p_adjusted``, ``family_size`` and ``verdict`` come
  from the report's one test result (:class:`irpref.report.verdicts.Verdicts`),
  never from a second family. ``adjusted_low``/``adjusted_high`` is the t
  interval at the level that agrees with the verdicts
  (:meth:`~irpref.report.verdicts.Verdicts.interval_level`; ``level``), and
  ``agrees`` says whether it excludes 0 exactly when the verdict is
  significant (false only where Holm's step-down rejects inside a Bonferroni
  interval).
- :func:`topic_verdicts`: Sakai's topic-set-size design (Information
  Retrieval Journal 19(3), 2016; :mod:`irpref.topic_sets`) read backwards for the
  collection at hand: with n topics (those every run has: the two-way ANOVA
  needs every run's value on every topic) and V_E from the ANOVA of the runs,
  the smallest difference the paired t-test detects with power 1 - beta at
  level alpha, d_min = D_min(n) sqrt(2 V_E) (the ``min-diff`` row of ``irpref
  design``). Each comparison says whether its observed difference is below
  d_min (``below_min_diff``). No power is computed at an observed difference:
  post-hoc power is a function of p and tells the reader nothing new
  (Hoenig & Heisey, The American Statistician 55(1), 2001).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from irpref.report.blocks import Block, Section

__all__ = ["comparison_rows", "topic_verdicts", "topics_why", "trust_section",
           "verdict_sentence"]

SHOWN = ["measure", "run", "baseline", "paired", "diff", "adjusted_low", "adjusted_high",
         "level", "unadjusted_low", "unadjusted_high", "effect", "es_anova", "p", "p_adjusted",
         "family_size", "verdict", "below_min_diff"]
"""The columns of the section's table (with bootstrap: bootstrap_unadjusted_low/high
after the unadjusted t interval; a note where an interval disagrees with its verdict)."""

_FROM_TESTS = ["p", "p_adjusted", "family", "family_size", "significant", "verdict", "marker"]


def comparison_rows(ctx) -> pd.DataFrame:
    """One row per (measure, run, baseline) of the report ``ctx``'s tested measures: see
    the module doc. Columns: measure, run, baseline, n (the run's queries), paired
    (queries shared with the baseline), mean (the run's), diff (run - baseline over the
    paired queries), wins, losses, ties, effect, es_anova, unadjusted_low/high,
    [bootstrap_unadjusted_low/high], adjusted_low/high, level, agrees, p, p_adjusted,
    family, family_size, significant, verdict, marker."""
    from irpref.stats import against_baselines

    o = ctx.options
    tested = ctx.results[ctx.results["measure"].isin(ctx.tested(ctx.measures))]
    if tested.empty:
        return pd.DataFrame(columns=["measure", "run", "baseline", *_FROM_TESTS])
    table = against_baselines(
        tested, ctx.baselines, test="paired", correction="none", alpha=o.alpha,
        ci="bootstrap" if o.bootstrap else "t", confidence=o.confidence,
        bootstrap=o.bootstrap or 1000, seed=o.seed, also_t=bool(o.bootstrap))
    table = table[table["run"] != table["baseline"]]
    if o.bootstrap:
        table = table.rename(columns={"diff_low": "bootstrap_unadjusted_low",
                                      "diff_high": "bootstrap_unadjusted_high",
                                      "t_low": "unadjusted_low", "t_high": "unadjusted_high"})
    else:
        table = table.rename(columns={"diff_low": "unadjusted_low",
                                      "diff_high": "unadjusted_high"})
    keep = ["measure", "run", "baseline", "n", "paired", "mean", "diff", "wins", "losses",
            "ties", "effect", "es_anova", "unadjusted_low", "unadjusted_high",
            *(["bootstrap_unadjusted_low", "bootstrap_unadjusted_high"] if o.bootstrap else [])]
    out = table[keep].merge(ctx.verdicts.against(tested, ctx.baselines),
                            on=["measure", "run", "baseline"], how="left", sort=False)
    out = out.merge(_adjusted_intervals(ctx, tested), on=["measure", "run", "baseline"],
                    how="left", sort=False)
    excludes = (out["adjusted_low"] > 0) | (out["adjusted_high"] < 0)
    out["agrees"] = excludes.to_numpy(bool) == out["significant"].to_numpy(bool)
    return out.reset_index(drop=True)


def _adjusted_intervals(ctx, results: pd.DataFrame) -> pd.DataFrame:
    """measure, run, baseline, adjusted_low, adjusted_high, level: the t interval of each
    difference at 1 - g, g the level of its family (one family per measure or one for all)."""
    from irpref.stats import Pairwise, baseline_pairs, t_interval

    tests = ctx.verdicts.tests
    parts = []
    for measure in pd.unique(results["measure"].astype(str)):
        rows = tests[tests["measure"] == measure]
        if rows.empty:
            continue
        g, _ = ctx.verdicts.interval_level(rows["family"].iloc[0])
        pw = Pairwise.from_metric(results, measure)
        a, b = baseline_pairs(pw, ctx.baselines)
        low, high, _ = t_interval(pw.pair_values(a, b), 1 - g)
        parts.append(pd.DataFrame({"measure": measure, "run": pw.runs[a],
                                   "baseline": pw.runs[b], "adjusted_low": low,
                                   "adjusted_high": high, "level": 1 - g}))
    cols = ["measure", "run", "baseline", "adjusted_low", "adjusted_high", "level"]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols)


def topic_verdicts(results: pd.DataFrame, alpha: float = 0.05, beta: float = 0.20
                   ) -> pd.DataFrame:
    """Per measure: topics (every run has), V_E, min_diff (the smallest raw difference the
    paired t-test detects with power 1 - beta at ``alpha``; NaN when it cannot be told:
    fewer than 2 topics or V_E = 0), alpha, beta."""
    from irpref.stats import Pairwise, anova_two_way
    from irpref.topic_sets import min_detectable_difference

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


def verdict_sentence(row, below: list[str] | None = None, compared: int | None = None,
                     why: str = "") -> str:
    """"With 43 topics, differences below 0.0791 in AP cannot be detected reliably (power
    0.8 at alpha 0.05...)", ``why`` those topics, and which observed differences are
    smaller (``below``: their names, of ``compared``)."""
    power = 1 - row.beta
    topics = f"{row.topics} topics{f' ({why})' if why else ''}"
    if row.topics < 2:
        return (f"{row.measure}: fewer than 2 topics that every run has ({topics}): no "
                "topic-set-size verdict.")
    if not row.V_E > 0:
        return (f"{row.measure}: the residual variance V_E is 0 over {topics}: every "
                "difference would be detected.")
    text = (f"With {topics}, differences below {row.min_diff:.3g} in {row.measure} "
            f"cannot be detected reliably (power {power:g} at alpha {row.alpha:g}; V_E "
            f"{row.V_E:.3g}).")
    if compared:
        text += (f" {len(below or [])} of the {compared} observed differences against the "
                 f"baseline{'s' if compared > 1 else ''} are smaller")
        text += f": {', '.join(below)}." if below and len(below) <= 10 else "."
    return text


def topics_why(ctx) -> str:
    """Why the topic-set-size verdict has the topics it has."""
    pop = ctx.population
    if pop.common == pop.judged:
        return "every judged topic: every run has each"
    return (f"the topics every run has, of {pop.judged} judged: the two-way ANOVA needs "
            f"every run's value on every topic, and {', '.join(pop.lacks)} lack some")


def trust_section(ctx) -> Section | None:
    """"How sure are we": the comparisons with the baselines, their intervals and
    verdicts (the one test result), the figure of the verdicts' intervals and the
    topic-set-size verdict."""
    from irpref.report.run_plots import difference_intervals

    rows = ctx.comparisons
    if rows is None:
        return None
    o = ctx.options
    verdicts = topic_verdicts(ctx.results[ctx.results["measure"].isin(ctx.tested(
        ctx.measures))], o.alpha, o.beta)
    rows = rows.merge(verdicts[["measure", "min_diff"]], on="measure", how="left", sort=False)
    rows["below_min_diff"] = rows["diff"].abs() < rows["min_diff"]
    texts = []
    for row in verdicts.itertuples(index=False):
        mine = rows[rows["measure"] == row.measure]
        below = [f"{r} vs {b}" for r, b, x in zip(mine["run"], mine["baseline"],
                                                   mine["below_min_diff"]) if x]
        texts.append(Block("text", verdict_sentence(row, below, len(mine), topics_why(ctx))))
    figures = []
    for m in pd.unique(rows["measure"]):
        part = rows[rows["measure"] == m].drop(columns="mean").rename(columns={
            "diff": "mean", "adjusted_low": "ci_low", "adjusted_high": "ci_high"})
        family = ctx.verdicts.tests.loc[ctx.verdicts.tests["measure"] == m, "family"].iloc[0]
        words = ctx.verdicts.interval_level(family)[1]
        figures.append(Block("details", f"{m}: differences with their intervals",
                             open=not ctx.many, children=[Block(
                                 "figure", f"{m}: differences against the baselines",
                                 draw=lambda part=part, m=m, words=words: difference_intervals(
                                     ctx.short(part, "run", "baseline"), m, words))]))
    table = rows[_shown(rows, o.bootstrap)]
    return Section("how-sure", "How sure are we", _sentence(ctx), [
        *texts,
        Block("table", "Topic-set-size verdict per measure (V_E from the two-way ANOVA of "
              "the runs over the topics every run has; min_diff: raw difference detected "
              "with power 1 - beta)", table=verdicts),
        *figures,
        Block("details", f"All {len(rows)} comparisons", open=not ctx.many,
              children=[Block("table", table=table)])])


def _shown(rows: pd.DataFrame, bootstrap: int) -> list[str]:
    cols = list(SHOWN)
    if bootstrap:
        at = cols.index("unadjusted_high") + 1
        cols[at:at] = ["bootstrap_unadjusted_low", "bootstrap_unadjusted_high"]
    if not rows["agrees"].all():
        rows["note"] = np.where(rows["agrees"], "", "Holm rejects it; its Bonferroni "
                                "interval covers 0")
        cols.append("note")
    return cols


def _sentence(ctx) -> str:
    o = ctx.options
    boot = (f"; bootstrap_unadjusted_low/high the paired bootstrap percentile interval "
            f"({o.bootstrap} resamples, seed {o.seed}), unadjusted" if o.bootstrap else "")
    return (
        "Each run against each baseline, diff = run - baseline over the queries both have "
        f"(paired): adjusted_low/adjusted_high the interval that agrees with the verdict "
        f"(level: its confidence, see the figure's legend); unadjusted_low/unadjusted_high "
        f"the {o.confidence:g} t interval of the difference alone, not adjusted for the "
        f"other comparisons{boot}; the paired standardized mean difference (effect = diff / "
        "sd) and Sakai's ES_E (es_anova = diff / sqrt(V_E), Laboratory Experiments in IR, "
        "2018); p, p_adjusted and verdict from the report's one test of each pair (the rule "
        "at the top); and the topic-set-size verdict (Sakai, Topic set size design, "
        "Information Retrieval Journal, 2016): the smallest difference this collection's "
        f"topics detect with power {1 - o.beta:g}, and which observed differences are "
        "below it (below_min_diff).")
