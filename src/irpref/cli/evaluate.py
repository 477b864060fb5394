"""``irpref evaluate QRELS RUN... -m MEASURE...``"""

from __future__ import annotations

import argparse

import pandas as pd

from irpref.cli import baseline_view, human_qrels
from irpref.cli.common import (
    add_dask,
    add_format,
    add_inputs,
    add_judging,
    add_measures,
    add_missing,
    add_output,
    as_usage,
    judge_args,
    once,
    open_output,
    settings_from_args,
)
from irpref.errors import UsageError
from irpref.evaluate import evaluate, summarize
from irpref.measures import parse_measures
from irpref.measures.names import canonical_name
from irpref.measures.subtopic_judgments import check_subtopics, use_subtopics
from irpref.measures.trec_prefs import use_preferences
from irpref.report.formats import PAPER_FORMATS, write_json, write_table, write_tsv
from irpref.report.records import write_parquet

DEFAULT_MEASURES = ["AP", "nDCG", "nDCG@10", "P@10", "RR", "R@1000"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_inputs(parser)
    add_measures(
        parser,
        f"measures, e.g. AP nDCG@10 'RBP(p=0.5)' or trec_eval names "
        f"(default: {' '.join(DEFAULT_MEASURES)})",
    )
    add_judging(parser)
    add_missing(parser)
    parser.add_argument("--subtopics", **once(), metavar="FILE", default=None,
                        help="ndeval-format subtopic qrels (topic subtopic docid grade) for "
                        "alpha-nDCG@k, ERR-IA@k, nERR-IA@k, MAP-IA, S-recall@k; QRELS may "
                        "be the same file")
    add_dask(parser)
    parser.add_argument("--per-query", action="store_true",
                        help="also print per-query values (mean rows then have an empty query "
                             "in tsv, null in json)")
    parser.add_argument("--bounds", action="store_true",
                        help="add columns lower and upper: the least and greatest value over "
                        "every grade (0 to the highest in the qrels) the unjudged documents "
                        "each run retrieved could have (NaN where a measure has no bound; "
                        "judges every retrieved document)")
    add_format(parser, binary=True)
    add_output(parser)
    baseline_view.add_arguments(parser)  # --baseline, --ci, --format markdown/latex/html
    human_qrels.add_arguments(parser)  # --human-qrels H, --ppi-lambda


def run(args: argparse.Namespace) -> int:
    if human_qrels.wanted(args):  # prediction-powered inference (cli/human_qrels.py)
        return human_qrels.run_evaluate(args, DEFAULT_MEASURES)
    settings = settings_from_args(args)
    # canonical names, refused before any input is read (exit 2)
    measures = as_usage(lambda: [canonical_name(t, judged_only=settings.judged_only)
                                 for m in args.measures or DEFAULT_MEASURES for t in m.split()])
    as_usage(lambda: check_subtopics(parse_measures(measures), args.subtopics))
    if args.bounds and args.dask:
        raise UsageError("--bounds is not available with --dask (the workers compute values "
                         "only): run without --dask")
    if args.per_query and (args.baseline or args.ci or args.format in PAPER_FORMATS):
        raise UsageError("--per-query does not combine with --baseline, --ci or a paper "
                         "format (one row per run and measure): ask for the per-query values "
                         "in a table of their own")
    if args.bounds and (args.baseline or args.ci):
        raise UsageError("--bounds does not combine with --baseline or --ci: ask for the "
                         "bounds in a table of their own")
    if args.dask:
        results = _on_dask(args, measures, settings)
    else:
        args.qrels, sub = use_subtopics(args.qrels, args.subtopics)
        args.qrels, prefs = use_preferences(args.qrels, parse_measures(measures))  # .prefs
        judged = judge_args(args, settings, measures=measures, subtopics=sub,
                            layout="full" if args.bounds and settings.ties == "expected"
                            else None)
        judged = judged.with_preferences(prefs)
        results = evaluate(None, None, measures, settings=settings, judged=judged,
                           subtopics=sub, bounds=args.bounds)
    if args.bounds:
        with open_output(args.output) as out:
            _write_bounds(args, results, summarize(results), out)
        return 0
    if baseline_view.wanted(args):  # --baseline / --ci / markdown, latex, html tables
        with open_output(args.output) as out:
            return baseline_view.write(args, results, out)
    means = summarize(results)
    with open_output(args.output) as out:
        if not args.per_query:
            keys = ["run", "measure"]
            write_table(means, keys, args.format, out, wide_index=["run"])
            if args.format == "table":
                out.write(population_note(results))
        else:
            write_table([results, means], ["run", "query", "measure"], args.format, out)
    return 0


def population_note(results: pd.DataFrame) -> str:
    """A line under a means table when its runs' means are not all over the same
    queries (a run lacks some under --missing skip): each such run and its count."""
    n = results[results["query"].notna()].groupby("run", sort=False)["query"].nunique()
    if n.nunique() <= 1:
        return ""
    most = int(n.max())
    short = ", ".join(f"{run} over {int(k)}" for run, k in n.items() if k < most)
    return f"queries: {short}, the other runs over {most} (--missing skip)\n"


def _on_dask(args: argparse.Namespace, measures: list[str], settings) -> pd.DataFrame:
    """``--dask``: QRELS RUN... evaluated one run per task (:mod:`irpref.distributed`)."""
    from irpref.distributed import client_for, close, evaluate, refuse_collection_wide
    from irpref.judging.store import is_judged_file

    if is_judged_file(args.qrels):
        raise UsageError("--dask reads QRELS RUN...; a saved judged file is evaluated "
                         "without --dask")
    if not args.runs:
        raise UsageError("no RUN file given")
    refuse_collection_wide(measures, settings.corpus_size)  # before starting a cluster
    client = client_for(args.dask)
    try:
        return evaluate(args.qrels, args.runs, measures, client=client, settings=settings,
                        subtopics=args.subtopics)
    finally:
        close(client)


def _write_bounds(args: argparse.Namespace, results: pd.DataFrame, means: pd.DataFrame,
                  out) -> None:
    """Values with their columns lower and upper: tsv/json as columns; the
    terminal and paper tables as three columns per measure (M, M lower, M upper)."""
    keys = ["run", "query", "measure"] if args.per_query else ["run", "measure"]
    frames = [results, means] if args.per_query else means
    sort_by = "query" if args.per_query else None
    if args.format in ("tsv", "json", "parquet"):
        write = {"tsv": write_tsv, "json": write_json, "parquet": write_parquet}[args.format]
        write(frames, out, [*keys, "value", "lower", "upper"], sort_by=sort_by)
        return
    wide = [_spread(f) for f in (frames if isinstance(frames, list) else [frames])]
    write_table(wide if args.per_query else wide[0], keys, args.format, out,
                wide_index=None if args.per_query else ["run"])


def _spread(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows of M, ``M lower``, ``M upper`` (value column only), measure by measure."""
    parts = []
    for measure, group in frame.groupby("measure", sort=False):
        parts.append(group.drop(columns=["lower", "upper"]))
        for col in ("lower", "upper"):
            part = group.drop(columns=["value", "lower", "upper"]).assign(
                value=group[col].to_numpy(), measure=f"{measure} {col}")
            parts.append(part)
    return pd.concat(parts, ignore_index=True) if parts else frame
