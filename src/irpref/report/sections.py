"""The report's sections on runs, preferences, tests, ties, search lengths and robustness.

One builder per section, each taking the one
:class:`~irpref.report.context.ReportContext` and returning its
:class:`~irpref.report.blocks.Section` (or None when it has nothing to show).
Every verdict a section states (a mark, a table's ``verdict``, a figure's
colour) is read from the context's one test result; every table that shows
runs says over how many queries a run that lacks some is taken
(:meth:`~irpref.report.context.Population.with_queries`). The "How sure are
we", "How much was judged" and "Agreement" sections live in
:mod:`irpref.report.trust` and :mod:`irpref.report.judgments`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from irpref.report.blocks import Block, Section
from irpref.report.orientation import better_word, direction_note, sign_of

__all__ = ["CHUNK", "DEGRADE_FRACTIONS", "DEGRADE_SAMPLES", "baseline_tags", "means_table",
           "leaderboard_section", "per_query_section", "preferences_section", "robustness_section",
           "search_lengths_section", "significance_section", "summary_section",
           "ties_section"]

CHUNK = 10  # runs per per-query difference figure
DEGRADE_FRACTIONS = (0.3, 0.6, 0.9)
DEGRADE_SAMPLES = 3  # cheap: 9 pairwise comparisons of RR and sgnLP


def baseline_tags(baselines: list[str]) -> dict[str, str]:
    """'' for a single baseline, else a, b, c, ... (aa, ab, ... past 26)."""
    if len(baselines) == 1:
        return {baselines[0]: ""}
    letters = "abcdefghijklmnopqrstuvwxyz"
    return {b: (letters[i] if i < 26 else letters[i // 26 - 1] + letters[i % 26])
            for i, b in enumerate(baselines)}


def means_table(ctx) -> tuple[pd.DataFrame, list[pd.DataFrame], str]:
    """(run x measure cells: the mean, ``(baseline a)`` on a baseline's row and each
    significant verdict's mark with the baseline's letter (▲a ▼b); the same as tidy rows
    for JSON: run, measure, mean, queries, and the verdict behind each mark, measure,
    run, baseline, p_adjusted, verdict, mark; the caption)."""
    from irpref.evaluate import summarize

    means = summarize(ctx.results, counts=True)
    tags = baseline_tags(ctx.baselines)
    comp = ctx.comparisons
    marks = {}
    if comp is not None:
        for rec in comp.itertuples(index=False):
            if rec.marker:
                marks.setdefault((rec.run, rec.measure), []).append(rec.marker + tags[rec.baseline])
    cells: dict = {}
    for rec in means.itertuples(index=False):
        parts = [f"{rec.value:.4f}"]
        if rec.run in tags:
            parts.append(f"(baseline{' ' + tags[rec.run] if tags[rec.run] else ''})")
        parts += marks.get((rec.run, rec.measure), [])
        cells.setdefault(rec.run, {})[rec.measure] = " ".join(parts)
    table = pd.DataFrame.from_dict(cells, orient="index").rename_axis("run").reset_index()
    caption, ranked = "Means", next((m for m in ctx.measures if sign_of(m) != 0), None)
    if ctx.many and ranked is not None:  # best first by the first ranked measure
        first = means[means["measure"] == ranked].set_index("run")["value"]
        key = -sign_of(ranked) * first.loc[table["run"]].to_numpy()
        table = table.iloc[np.argsort(key, kind="stable")].reset_index(drop=True)
        table.insert(0, "rank", np.arange(1, len(table) + 1))
        caption = f"Means, best {ranked} first ({better_word(sign_of(ranked))})"
    tidy = [means.rename(columns={"value": "mean", "n": "queries"})]
    if comp is not None:
        shown = comp[comp["marker"] != ""]
        tidy.append(shown[["measure", "run", "baseline", "p_adjusted", "verdict"]].assign(
            mark=shown["marker"] + shown["baseline"].map(tags)))
    return ctx.population.with_queries(table), tidy, caption


def summary_section(ctx) -> Section:
    """"Summary against the baseline(s)": each run's means with the verdict marks, and
    the differences, wins/losses/ties, p-values and verdicts behind them."""
    table, tidy, caption = means_table(ctx)
    several = len(ctx.baselines) > 1
    tags = baseline_tags(ctx.baselines)
    which = (f"the baseline{'s ' if several else ' '}"
             + ", ".join(f"{t} = {b}" if t else b for b, t in tags.items())
             + (" (▲a: better than baseline a)" if several else ""))
    blocks = [Block("table", caption, table=table, rows=tidy)]
    if ctx.comparisons is not None:
        stats = ctx.comparisons[["measure", "run", "baseline", "n", "paired", "diff", "wins",
                                 "losses", "ties", "p", "p_adjusted", "verdict"]]
        blocks.append(Block("details", "Differences, wins/losses/ties and p-values",
                            open=not ctx.many, children=[Block("table", table=stats)]))
    marks = (f"▲/▼ marks a run significantly better/worse than {which} by the rule at the "
             f"top{_direction(ctx.measures)}" if ctx.verdicts is not None
             else "a single run: nothing to compare")
    return Section(
        "summary", f"Summary against the baseline{'s' if several else ''}",
        f"Mean of each measure per run; {marks}; reported as Sakai recommends (Statistical "
        "reform in IR?, SIGIR Forum 2014).", blocks)


def _direction(measures) -> str:
    """``direction_note`` as a clause joined with ``"; "`` (or nothing)."""
    note = direction_note(measures)
    return f"; {note}" if note else ""


def per_query_section(ctx) -> Section:
    """Sorted per-query differences to the baseline and per-query distributions."""
    from irpref.report import plots

    short_results = ctx.short(ctx.results, "run")
    base = ctx.labels[ctx.baseline]
    others = [ctx.labels[r] for r in ctx.names if r != ctx.baseline]
    step = max(len(others) if ctx.many else CHUNK, 1)  # many runs: one heatmap of them all
    blocks = []
    for m in ctx.measures:
        figs = [Block("figure", f"{m}: differences to {ctx.baseline} (runs {start + 1}-"
                      f"{min(start + step, len(others))})",
                      draw=lambda m=m, chosen=[base, *others[start:start + step]]:
                      plots.differences(short_results[short_results["run"].isin(chosen)],
                                        base, m))
                for start in range(0, len(others), step)]
        figs.append(Block("figure", f"{m}: per-query distributions",
                          draw=lambda m=m: plots.distributions(short_results, m)))
        blocks.append(Block("details", m, children=figs, open=not ctx.many))
    return Section(
        "per-query", "Per-query views",
        "Sorted per-query differences to the baseline and the distribution of per-query "
        "values of each run, which a mean hides (Sakai, SIGIR Forum 2014).", blocks)


def preferences_section(ctx) -> Section | None:
    """Mean preference matrices in system order and the orderings by mean win rate."""
    from irpref.report import plots

    if ctx.prefs is None or ctx.prefs.empty:
        return None
    blocks = []
    full = {v: k for k, v in ctx.labels.items()}
    short = ctx.short(ctx.prefs, "run_a", "run_b")
    for p in ctx.preferences:
        order = [full[r] for r in plots.preference_data(short, p).attrs["ordering"]]
        ordering = Block("table", f"{p} system ordering (mean win rate)",
                         table=ctx.population.with_queries(pd.DataFrame({
                             "rank": np.arange(1, len(order) + 1),
                             "label": [ctx.labels[r] for r in order], "run": order})))
        blocks.append(Block("details", f"{p}: preference matrix and system ordering",
                            open=not ctx.many, children=[
            Block("figure", f"{p} mean preferences", wide=ctx.many,
                  draw=lambda p=p: plots.preference_heatmap(short, p)),
            Block("details", f"{p} system ordering", open=False, children=[ordering])
            if ctx.many else ordering]))
    pairs = (" A pair of runs is compared on the queries both have (--missing skip)."
             if ctx.population.lacks and ctx.settings.missing == "skip" else "")
    return Section(
        "preferences", "Preferences and system orderings",
        "Mean per-query preferences between runs, rows over columns, and the ordering by mean "
        "win rate: sgnLP is lexicographic precision (Diaz, SIGIR 2023), RPP the recall-paired "
        f"preference (Diaz & Ferraro, SIGIR 2022).{pairs}", blocks)


def significance_section(ctx) -> Section | None:
    """Discriminative power and every pair's verdict, from the one test result."""
    from irpref.report import plots

    if ctx.verdicts is None:
        return None
    power = ctx.verdicts.power()
    pairs = ctx.verdicts.pairs()
    rows = pairs.rename(columns={"run_a": "run", "run_b": "baseline"})
    if ctx.many:  # 4950 pairs per measure: a matrix per measure, not a table
        blocks = [Block("details", f"{m}: which pairs differ", open=False, children=[
            Block("figure", f"{m}: significant differences", wide=True,
                  draw=lambda m=m: plots.significance_matrix(
                      ctx.short(ctx.verdicts.tests, "run_a", "run_b"), m, ctx.options.alpha))])
            for m in pd.unique(pairs["measure"])]
        o = ctx.options
        blocks.append(Block("text", f"The table of all {len(pairs)} pairs (mean = a - b): "
                            f"irpref significance QRELS RUN... --test paired --correction "
                            f"{o.correction} --family {o.family}, or this report with -o "
                            "FILE.json.", rows=rows))
    else:
        blocks = [Block("details", "All pairs (mean = a - b; verdict: run_a's)", open=False,
                        children=[Block("table", table=pairs, rows=rows)])]
    untested = (f" Not tested (no better direction): {', '.join(ctx.verdicts.untested)}."
                if ctx.verdicts.untested else "")
    return Section(
        "significance", "Significance and discriminative power",
        "Share of run pairs each measure separates, i.e. discriminative power (Sakai, SIGIR "
        "2006; as in Diaz, SIGIR 2023, Table 3), from the report's one test of each pair "
        f"(the rule at the top).{untested}",
        [Block("figure", "Discriminative power",
               draw=lambda: plots.discriminative_bars(power)),
         Block("table", "Discriminative power", table=power), *blocks])


def leaderboard_section(ctx) -> Section | None:
    """Ranks with intervals (Mogstad, Romano, Shaikh & Wilhelm 2024, "Inference for
    ranks") and groups of runs that do not differ, from the report's tests
    (:func:`irpref.stats.ranks.report_leaderboard`): the one-sided hypotheses of every
    ordered pair, the report's correction over them; a run's interval runs from 1 +
    the runs significantly better to R - the runs significantly worse."""
    from irpref.report.rank_plots import rank_intervals
    from irpref.stats.rank_family import level, simultaneous
    from irpref.stats.ranks import report_leaderboard

    if ctx.verdicts is None or not len(ctx.verdicts.tests):
        return None
    tables = [t for t in (ctx.results, ctx.prefs) if t is not None and len(t)]
    tested = set(ctx.verdicts.tests["measure"].astype(str))
    tables = [t[t["measure"].astype(str).isin(tested)] for t in tables]
    v = ctx.verdicts
    board = report_leaderboard(tables, v.tests, v.alpha, correction=v.correction,
                               family=v.family)
    same = ["measure", "test", "correction", "family", "alpha", "simultaneous"]
    blocks = []
    for measure in pd.unique(board["measure"]):
        rows = board[board["measure"] == measure].drop(columns=same)
        blocks.append(Block("figure", f"{measure}: rank intervals",
                            draw=lambda m=measure: rank_intervals(ctx.short(board, "run"), m)))
        blocks.append(Block("details", f"{measure}: leaderboard", open=not ctx.many,
                            children=[Block("table", table=ctx.population.with_queries(rows),
                                            rows=board[board["measure"] == measure])]))
    scope = "each measure" if v.family == "measure" else "all measures together"
    together = "yes" if simultaneous("t", v.correction) else "no"
    return Section(
        "leaderboard", "Leaderboard",
        "Which ranks the data support: each run's rank by its mean (equal means tie), and "
        "the interval of ranks it may hold (Mogstad, Romano, Shaikh & Wilhelm 2024: 1 + the "
        "runs significantly better, R - the runs significantly worse), with letters shared "
        "by runs that do not differ. Test: one-sided paired t of every ordered pair of runs "
        "(a preference: of each run's per-query mean preference over the other runs, which "
        f"is what ranks it); correction: {v.correction}, on the R(R-1) one-sided hypotheses "
        f"of {scope}; alpha = {v.alpha:g}; simultaneous: {together} "
        f"({level('t', v.correction)}). A metric's intervals read the p-values of the "
        "report's own tests and separate no pair that its marks do not (the marks' "
        "two-sided family can separate a few more).",
        blocks)


def ties_section(ctx) -> Section:
    """Means under docid tie-breaking against their expected values (the runs judged
    again with ``ties="expected"``)."""
    from irpref.errors import MissingQueries
    from irpref.evaluate import judge_with
    from irpref.report import plots
    from irpref.report.meta_plots import tie_means

    if ctx.saved:
        return Section(
            "ties", "Ties", "Tie effects need the runs judged again with tied scores "
            "averaged (McSherry & Najork, ECIR 2008).",
            [Block("text", "Not shown for saved judged rankings: irpref report QRELS RUN... "
                   "or irpref ties QRELS RUN... shows them.")])
    s = ctx.settings
    again = {}
    with warnings.catch_warnings():  # the report announced the queries a run lacks once
        warnings.simplefilter("ignore", MissingQueries)
        for ties in ("docid", "expected"):
            again[ties] = ctx.judged if ties == s.ties else judge_with(
                ctx.qrels, ctx.runs, s.replace(ties=ties), warn=False)
        data = tie_means(again, ctx.measures, s.missing)
    return Section(
        "ties", "Ties",
        "Mean of each measure with trec_eval's docid tie-break against its expected value "
        "over all orderings of tied items (McSherry & Najork, ECIR 2008).",
        [Block("figure", "Tie effects",
               draw=lambda: plots.tie_effects(ctx.short(data, "run"))),
         Block("details", "Means by tie policy", open=not ctx.many,
               children=[Block("table", table=ctx.population.with_queries(data))])])


def search_lengths_section(ctx) -> Section:
    """Per-item atomized search lengths and their change against the baseline."""
    from irpref.asl import search_lengths_with
    from irpref.report import plots

    sl = search_lengths_with(ctx.judged, ctx.settings.missing)
    per_run = plots.search_length_data(sl).groupby("run", sort=False)["search_length"].agg(
        ["count", "mean", "median"]).reset_index()
    changed = [r for r in ctx.names if r != ctx.baseline]
    title = f"Per-item change against {ctx.baseline} (Fig. 6)"
    if ctx.many:  # the two runs with the shortest and the two with the longest mean
        ranked = [r for r in per_run.sort_values("mean", kind="stable")["run"]
                  if r != ctx.baseline]
        changed = list(dict.fromkeys(ranked[:2] + ranked[-2:]))
        title += (", for the two runs with the shortest and the two with the longest mean "
                  "search length")
    short = ctx.short(sl, "run")
    base = ctx.labels[ctx.baseline]
    return Section(
        "search-lengths", "Search lengths",
        "Distribution of the atomized search length of every retrieved relevant item per run "
        "(Alex, Hall & Metzler, Atomized Search Length, 2022, Figs. 5-6).",
        [Block("figure", "Search-length distributions",
               draw=lambda: plots.search_length_distributions(short)),
         Block("details", "Per-item search lengths (count: items)", open=not ctx.many,
               children=[Block("table", table=ctx.population.with_queries(per_run))]),
         Block("details", title, open=not ctx.many, children=[
             Block("figure", f"{r} vs {ctx.baseline}: search-length change",
                   draw=lambda r=r: plots.search_length_change(short, ctx.labels[r], base))
             for r in changed])])


def robustness_section(ctx) -> Section | None:
    """Ties, sign agreement and tau of RR and sgnLP as relevance labels are removed."""
    from irpref.measures import parse_measure
    from irpref.measures.base import with_params
    from irpref.meta.degradation import degrade
    from irpref.preferences import parse_preference
    from irpref.report import plots

    if len(ctx.names) < 2:
        return None
    only = ctx.settings.judged_only  # the setting, said explicitly: no hidden modifier
    names = [str(with_params(parse_measure("RR"), judged_only=only)),
             str(with_params(parse_preference("sgnLP"), judged_only=only))]
    curves = degrade(measures=names, fractions=DEGRADE_FRACTIONS, samples=DEGRADE_SAMPLES,
                     seed=0, judged=ctx.judged)
    return Section(
        "robustness", "Robustness to missing labels",
        f"Ties, sign agreement and Kendall's tau with the full-label comparisons as a "
        f"fraction of relevance labels is removed ({DEGRADE_SAMPLES} seeded samples per "
        "point, mean ± 1 sd shaded), after Diaz, lexiprecision (2023), Fig. 8a.",
        [Block("figure", "Label degradation", draw=lambda: plots.meta_curves(curves)),
         Block("details", "Degradation table", open=False,
               children=[Block("table", table=curves)])])
