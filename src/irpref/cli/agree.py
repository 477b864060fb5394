"""``irpref agree QRELS_A QRELS_B [RUN...]``: agreement between two sets of qrels
(e.g. human and LLM labels) and between the system orderings they induce."""

from __future__ import annotations

import argparse
import io

import numpy as np
import pandas as pd

from irpref import params
from irpref.cli.common import (
    add_depth,
    add_format,
    add_measures,
    add_missing,
    add_output,
    add_rel,
    as_usage,
    checked,
    open_output,
    settings_from_args,
    warn,
)
from irpref.errors import UsageError
from irpref.measures.base import split_names
from irpref.report.formats import write_frame

COUNTS = {"pairs", "pairs_only_a", "pairs_only_b", "pairs_unjudged_a", "pairs_unjudged_b",
          "queries", "relevant_only_a", "relevant_only_b", "runs", "swaps"}

COVERAGE_NOTE = (
    "pairs_only_a / pairs_only_b: judged by one side only; unjudged under the other, "
    "where most measures (AP, nDCG, P, RR) count them non-relevant and judged-only "
    "measures (bpref, Judged@k) as unjudged. Negative grades are unjudged."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels_a", metavar="QRELS_A",
                        help="reference qrels (e.g. human labels); tau_ap_a takes its ordering "
                             "as the truth")
    parser.add_argument("qrels_b", metavar="QRELS_B", help="qrels to compare (e.g. LLM labels)")
    parser.add_argument("runs", metavar="RUN", nargs="*",
                        help="runs to evaluate under both qrels (system orderings, swaps)")
    parser.add_argument("--tag-names", action="store_true",
                        help="name runs by their tag column instead of their file names")
    add_measures(parser, "measures and preferences evaluated under both qrels (with RUN; "
                         "default: nDCG@10 AP)")
    parser.add_argument("--thresholds", nargs="+", type=str, default=None, metavar="T",
                        action="extend",
                        help="binarization thresholds, grade >= T relevant, T >= 1 (default: "
                             "1 to the largest grade)")
    parser.add_argument("--scale", **checked(scale_option), default=None, metavar="LOW-HIGH",
                        help="the grade scale, e.g. 0-3: a grade of either qrels outside it is "
                             "refused (default: QRELS_A's lowest to highest grade; QRELS_B's "
                             "grades outside it are named in a warning)")
    add_rel(parser)
    add_depth(parser)
    parser.add_argument("--ties", **checked(params.check_ordering_ties), default="docid",
                        metavar="{" + ",".join(params.ORDERING_TIES) + "}",
                        help="tie policy: docid (trec_eval: score desc, docid desc) or input")
    add_missing(parser)
    parser.add_argument("--top", **checked(params.check_positive_int), default=5, metavar="K",
                        help="k of the top-k overlap of the system orderings (default 5)")
    parser.add_argument("--alpha", **checked(params.check_alpha), default=0.05, metavar="A",
                        help="significance level of the swapped pairs (paired test, Holm over "
                             "all run pairs of a measure; default 0.05)")
    view = parser.add_mutually_exclusive_group()
    view.add_argument("--confusion", action="store_true",
                      help="print the confusion matrix of grades (rows A, columns B)")
    view.add_argument("--confusion-at", **checked(params.check_positive_int), default=None,
                      metavar="T", help="print the confusion matrix of labels binarized at "
                                        "grade >= T")
    view.add_argument("--per-query", action="store_true",
                      help="print per-query agreement, the queries that disagree most first "
                           "(binarized at --rel)")
    view.add_argument("--swaps", action="store_true",
                      help="list the run pairs whose order swaps (with RUN), with their "
                           "significance under A and B")
    view.add_argument("--judged-at", **checked(params.check_positive_int), default=None,
                      metavar="K",
                      help="print Judged@K (share of each ranking's top K judged) per run "
                           "under A and under B (with RUN; tsv/json: per query too; never "
                           "judged-only)")
    view.add_argument("--scores", action="store_true",
                      help="print every run's value and rank under A and under B (with RUN)")
    add_format(parser)
    add_output(parser)


def scale_option(value: str, flag: str = "--scale") -> tuple[int, int]:
    """``LOW-HIGH`` -> (low, high), integers with 0 <= low < high."""
    low, sep, high = str(value).partition("-")
    if not sep:
        raise UsageError(f"{flag} {value}: expected LOW-HIGH, e.g. 0-3")
    low_i = params.check_nonnegative_int(low, flag)
    high_i = params.check_nonnegative_int(high, flag)
    if low_i >= high_i:
        raise UsageError(f"{flag} {value}: LOW must be below HIGH")
    return low_i, high_i


def _thresholds(values) -> list[int] | None:
    if values is None:
        return None
    return [params.check_positive_int(t, "--thresholds") for v in values for t in v.split()]


def run(args: argparse.Namespace) -> int:
    from irpref.llm_judged.agreement import agree
    from irpref.llm_judged.agreement.systems import split_measures

    thresholds = _thresholds(args.thresholds)
    for flag, wanted in (("--swaps", args.swaps), ("--scores", args.scores),
                         ("--judged-at", args.judged_at is not None)):
        if wanted and not args.runs:
            raise UsageError(f"{flag} needs RUN files")
    if args.measures and not args.runs:
        raise UsageError("-m/--measure needs RUN files (QRELS_A QRELS_B RUN... -m MEASURE)")
    if args.judged_only and not args.runs:
        raise UsageError("--judged-only needs RUN files (QRELS_A QRELS_B RUN... "
                         "--judged-only): the label statistics read no rankings")
    settings = settings_from_args(args)
    measures = [t for m in args.measures or [] for t in split_names(m)] or None
    if args.runs and measures:  # refused before reading (exit 2)
        as_usage(lambda: split_measures(measures, judged_only=settings.judged_only))
    result = agree(args.qrels_a, args.qrels_b, args.runs or None, measures,
                   thresholds=thresholds, settings=settings, top=args.top, alpha=args.alpha,
                   judged_at=args.judged_at, scale=args.scale)
    only_a, only_b = len(result.labels.only_a), len(result.labels.only_b)
    if only_a or only_b:
        warn(f"{only_a} pairs judged only by QRELS_A, {only_b} only by QRELS_B: unjudged "
             "under the other side, which " + ("--judged-only removes from the rankings"
                                               if args.judged_only
                                               else "most measures score as non-relevant"))
    text = io.StringIO()  # the whole output is built before a line is printed
    fmt = args.format
    if args.confusion or args.confusion_at is not None:
        _write_confusion(result, args.confusion_at, fmt, text)
    elif args.per_query:
        table = result.per_query(args.rel if args.rel <= result.labels.values[-1] else None)
        _write(table, fmt, text, "queries where A and B disagree most first")
    elif args.swaps:
        _write(result.swaps, fmt, text,
               f"significant_under: Holm-adjusted p < {args.alpha} (paired test over all run "
               "pairs of the measure) under a, b, both or neither",
               empty="(no run pair changes order)")
    elif args.judged_at is not None:
        table = result.judged
        if fmt not in ("tsv", "json"):  # the terminal and paper views: per-run means
            table = table[table["query"].isna()].drop(columns="query")
        _write(table, fmt, text, f"Judged@{args.judged_at} under QRELS_A (judged_a) and "
               "QRELS_B (judged_b); unjudged documents count as non-relevant in most measures")
    elif args.scores:
        _write(result.scores, fmt, text, "rank 1 = best in the measure's own direction")
    elif args.runs:
        if fmt == "table":
            _write(_readable(result.statistics), fmt, text, COVERAGE_NOTE)
            text.write("\n")
        _write(_readable(result.orderings) if fmt != "tsv" and fmt != "json"
               else result.orderings, fmt, text,
               "tau_ap_a: ordering under B judged against A's as the truth; tau_ap_b the "
               "reverse; tau_ap their mean; ties averaged over every tie-break; --swaps lists "
               "the swapped pairs with their significance")
    else:
        table = result.statistics
        if fmt not in ("tsv", "json"):
            table = _readable(table)
        _write(table, fmt, text, COVERAGE_NOTE)
    with open_output(args.output) as out:
        out.write(text.getvalue())
    return 0


def _readable(frame: pd.DataFrame) -> pd.DataFrame:
    """Counts as integers, undefined values as 'undefined', no threshold as ''."""
    out = frame.copy().astype(object)
    stat = frame["statistic"].astype(str).to_numpy()
    vals = frame["value"].to_numpy(np.float64)
    out["value"] = pd.Series(
        [("undefined" if np.isnan(v) else int(v) if s in COUNTS else float(v))
         for s, v in zip(stat, vals)], index=frame.index, dtype=object)
    if "threshold" in out:
        out["threshold"] = pd.Series(["" if pd.isna(t) else int(t) for t in frame["threshold"]],
                                     index=frame.index, dtype=object)
    return out


def _write(frame: pd.DataFrame, fmt: str, out, legend: str | None = None,
           empty: str = "(none)") -> None:
    if fmt == "json" and "threshold" in frame:  # a missing threshold is null, not nan
        frame = frame.assign(threshold=frame["threshold"].astype("float64"))
    if fmt == "table" and frame.empty:
        out.write(empty + "\n")
        return
    view = frame
    if fmt == "table":  # fixed decimals, no scientific notation of counts
        view = frame.astype(object).map(
            lambda v: f"{v:.4f}" if isinstance(v, float) and v == v
            else ("undefined" if isinstance(v, float) else v))
    write_frame(view, fmt, out, legend=legend if fmt in ("table", "markdown") else None)


def _write_confusion(result, threshold: int | None, fmt: str, out) -> None:
    tidy = result.confusion(threshold)
    if fmt in ("tsv", "json"):
        write_frame(tidy, fmt, out)
        return
    wide = tidy.pivot(index="grade_a", columns="grade_b", values="pairs")
    if threshold is not None:
        labels = {0: f"< {threshold}", 1: f">= {threshold}"}
        wide = wide.rename(index=labels, columns=labels)
    wide.columns = [f"B {c}" for c in wide.columns]
    wide.index = [f"A {i}" for i in wide.index]
    frame = wide.reset_index().rename(columns={"index": "grade"})
    write_frame(frame.astype(object), fmt, out,
                legend="rows: grade under QRELS_A; columns: grade under QRELS_B")
