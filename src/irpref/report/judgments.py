"""The report's sections on the judgments: how much of each ranking is judged, and,
with a second set of qrels, how far the two agree.

- :func:`coverage_section`: Judged@k per run (the ``Judged`` record's kernel,
  ir_measures' Judged: MacAvaney et al., ECIR 2022) and the unjudged retrieved
  documents within the rankings kept, from :func:`irpref.meta.ties.coverage`
  (the table ``irpref ties --coverage`` prints), and the queries with the most
  unjudged retrieved documents over all runs.
- :func:`agreement_section`: :func:`irpref.llm_judged.agreement.agree` of QRELS (A) and
  ``--qrels-b`` (B) on the report's runs and measures, its tables named as
  ``irpref agree`` names them: the label statistics (Cohen's kappa,
  Krippendorff's alpha, binarized at each threshold, leniency, coverage), the
  ordering statistics (tau_b, tau_ap_a, tau_ap_b, tau_ap, top_overlap@k,
  swaps), the swapped run pairs and Judged@k under each. A swapped pair's
  verdict under A is the report's own (its one test result); under B it is the
  same rule applied to the evaluation under B (``p_adjusted_b``, ``verdict_b``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from irpref.report.blocks import Block, Section

__all__ = ["JUDGED_AT", "agreement_section", "coverage_section", "most_unjudged"]

JUDGED_AT = (10, 100)  # the report's cut-offs of Judged@k
TOP_QUERIES = 10

COUNTS = {"pairs", "pairs_only_a", "pairs_only_b", "pairs_unjudged_a", "pairs_unjudged_b",
          "queries", "relevant_only_a", "relevant_only_b", "runs", "swaps"}


def most_unjudged(per_query: pd.DataFrame, top: int = TOP_QUERIES) -> pd.DataFrame:
    """The ``top`` queries with the most unjudged retrieved documents summed over the runs
    (of :attr:`irpref.meta.ties.Coverage.per_query`): query, runs, retrieved, unjudged,
    unjudged_rate (unjudged / retrieved), and each Judged@k averaged over the runs."""
    judged = [c for c in per_query.columns if str(c).startswith("Judged@")]
    grouped = per_query.groupby("query", sort=False)
    out = grouped[["retrieved", "unjudged"]].sum()
    out.insert(0, "runs", grouped.size())
    with np.errstate(invalid="ignore", divide="ignore"):
        out["unjudged_rate"] = np.where(out["retrieved"] > 0,
                                        out["unjudged"] / out["retrieved"], np.nan)
    out = out.join(grouped[judged].mean())
    out = out.reset_index().sort_values(["unjudged", "unjudged_rate"], ascending=False,
                                        kind="stable")
    return out.head(top).reset_index(drop=True)


def coverage_section(ctx, cutoffs: Sequence[int] = JUDGED_AT) -> Section:
    """"How much was judged": per-run coverage and the queries with most unjudged."""
    from irpref.meta.ties import coverage

    cov = coverage(ctx.judged, cutoffs, ctx.settings.missing)
    worst = most_unjudged(cov.per_query)
    ks = ", ".join(str(k) for k in cov.cutoffs)
    return Section(
        "judged", "How much was judged",
        f"Judged@k, the share of each ranking's top k that the qrels judge (any grade; "
        f"ir_measures' Judged, MacAvaney et al., ECIR 2022) at k = {ks}, and the retrieved "
        f"documents without a judgment within the rankings kept (up to {cov.depth}); most "
        "measures count an unjudged document as non-relevant (Buckley & Voorhees, SIGIR "
        "2004), so a run with many of them may be underrated.",
        [Block("table", "Judged documents per run (unjudged_rate = unjudged / retrieved)",
               table=cov.per_run),
         Block("details", f"The {len(worst)} queries with the most unjudged retrieved "
               "documents (summed over the runs)", open=not ctx.many,
               children=[Block("table", table=worst)])])


def _readable(frame: pd.DataFrame) -> pd.DataFrame:
    """Counts as integers, an undefined value as 'undefined', no threshold as ''."""
    out = frame.copy().astype(object)
    stat = frame["statistic"].astype(str).to_numpy()
    vals = frame["value"].to_numpy(np.float64)
    out["value"] = pd.Series([("undefined" if np.isnan(v) else int(v) if s in COUNTS
                               else float(v)) for s, v in zip(stat, vals)],
                             index=frame.index, dtype=object)
    if "threshold" in out:
        out["threshold"] = pd.Series(["" if pd.isna(t) else int(t)
                                      for t in frame["threshold"]],
                                     index=frame.index, dtype=object)
    return out


def qrels_name(path) -> str:
    """How the report names a set of qrels: its file name, or "the qrels"."""
    from pathlib import Path

    if isinstance(path, str) or hasattr(path, "__fspath__"):
        return Path(path).name
    return "the qrels"


def agreement_section(ctx, judged_at: int = JUDGED_AT[0]) -> Section | None:
    """"Agreement between the two judgments": :func:`irpref.llm_judged.agreement.agree` of the
    report's qrels and ``ctx.qrels_b`` on its runs under the measures that order
    systems (a better direction in their record; the others are left out)."""
    from irpref.llm_judged.agreement import agree
    from irpref.measures import parse_measure

    if ctx.qrels_b is None:
        return None
    s = ctx.settings
    ordered = [m for m in ctx.measures if parse_measure(m).sign != 0]
    result = agree(ctx.qrels, ctx.qrels_b, ctx.runs if ordered else None, ordered or None,
                   rel=s.rel, depth=s.depth, ties=s.ties, missing=s.missing,
                   alpha=ctx.options.alpha, use_tag=s.use_tag,
                   judged_at=judged_at if ordered else None)
    a, b = qrels_name(ctx.qrels), ctx.name_b or qrels_name(ctx.qrels_b)
    blocks = [Block("table", f"Label agreement over the (query, document) pairs both judge "
                    f"(A = {a}, B = {b})", table=_readable(result.statistics))]
    if ordered:
        blocks += _ordering_blocks(ctx, result, judged_at)
    else:
        blocks.append(Block("text", "No measure of the report has a better direction, so "
                            "no system ordering is compared."))
    return Section(
        "agreement", "Agreement between the two judgments",
        f"Agreement of the labels of {a} (A) and {b} (B), as irpref agree reports it: Cohen's "
        "kappa (1960; weighted 1968) and Krippendorff's alpha (2011), also binarized at each "
        "threshold (grade >= t relevant); the system orderings each induces compared by "
        "Kendall's tau-b and tau_AP (Yilmaz, Aslam & Robertson, SIGIR 2008; tau_ap_a takes "
        "A's ordering as the truth); a swapped run pair's verdict under A (verdict_a, from "
        "better_under_a's point of view) is the report's own, under B (verdict_b) the rule at "
        "the top applied to the evaluation under B. A pair judged by one side only is "
        "unjudged under the other.", blocks)


def _ordering_blocks(ctx, result, judged_at: int) -> list[Block]:
    """The orderings under A and B, the swapped pairs with their verdicts, Judged@k."""
    orders = result.orderings.pivot(index="measure", columns="statistic", values="value")
    orders = orders.reindex(index=list(dict.fromkeys(result.orderings["measure"])),
                            columns=list(dict.fromkeys(result.orderings["statistic"])))
    orders.columns.name = None
    orders = orders.reset_index()
    for col in ("runs", "swaps"):
        orders[col] = orders[col].astype(np.int64)
    shown, rows = _swaps(ctx, result)
    judged = result.judged
    judged = judged[judged["query"].isna()].drop(columns="query").reset_index(drop=True)
    return [
        Block("table", "System orderings under A and under B", table=orders),
        Block("details", f"Swapped run pairs ({len(shown)})", open=not ctx.many, children=[
            Block("table", table=shown, rows=rows) if len(shown)
            else Block("text", "No run pair changes order.")]),
        Block("table", f"Judged@{judged_at} under A (judged_a) and B (judged_b)",
              table=ctx.population.with_queries(judged))]


def _swaps(ctx, result) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the swapped pairs with p_adjusted_a / verdict_a from the report's one test result
    and p_adjusted_b / verdict_b from the same rule under B; the same as JSON rows:
    run = better_under_a, baseline = better_under_b, p_adjusted and verdict under A)."""
    from irpref.report.verdicts import test_pairs

    o = ctx.options
    swaps = result.swaps.drop(columns=["p_adjusted_a", "p_adjusted_b", "significant_under"])
    under_a = ctx.verdicts.oriented(swaps, "better_under_a", "better_under_b")
    under_b = test_pairs([s.pairwise_b for s in result.scored if s.pairwise_b.n_runs > 1],
                         correction=o.correction, family=o.family, alpha=o.alpha
                         ).oriented(swaps, "better_under_a", "better_under_b")
    shown = swaps.assign(p_adjusted_a=under_a["p_adjusted"], verdict_a=under_a["verdict"],
                         p_adjusted_b=under_b["p_adjusted"], verdict_b=under_b["verdict"])
    rows = shown.rename(columns={"better_under_a": "run", "better_under_b": "baseline",
                                 "p_adjusted_a": "p_adjusted", "verdict_a": "verdict"})
    return shown, rows
