"""``irpref evaluate QRELS RUN... -m MEASURE...``"""

from __future__ import annotations

import argparse

from irpref.cli import baseline_view
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
)
from irpref.evaluate import evaluate, summarize
from irpref.measures import parse_measures
from irpref.measures.diversity import check_subtopics, use_subtopics
from irpref.measures.names import canonical_name
from irpref.report.tables import write_table  # the one writer (report.formats)

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
    add_format(parser)
    add_output(parser)
    baseline_view.add_arguments(parser)  # --baseline, --ci, --format markdown/latex/html


def run(args: argparse.Namespace) -> int:
    # canonical names, refused before any input is read (exit 2)
    measures = as_usage(
        lambda: [canonical_name(t) for m in args.measures or DEFAULT_MEASURES for t in m.split()]
    )
    as_usage(lambda: check_subtopics(parse_measures(measures), args.subtopics))
    if args.dask:
        from irpref.distributed import evaluate_args

        results = evaluate_args(args, measures)
    else:
        args.qrels, sub = use_subtopics(args.qrels, args.subtopics)
        judged = judge_args(args, measures=measures, subtopics=sub)
        results = evaluate(
            None, None, measures, missing=args.missing, judged=judged, subtopics=sub
        )
    if baseline_view.wanted(args):  # --baseline / --ci / markdown, latex, html tables
        with open_output(args.output) as out:
            return baseline_view.write(args, results, out)
    means = summarize(results)
    with open_output(args.output) as out:
        if not args.per_query:
            keys = ["run", "measure"]
            write_table(means, keys, args.format, out, wide_index=["run"])
        else:
            write_table([results, means], ["run", "query", "measure"], args.format, out)
    return 0
