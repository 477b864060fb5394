"""``irpref evaluate QRELS RUN... -m MEASURE...``"""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from irpref.cli.common import (
    add_format,
    add_inputs,
    add_judging,
    add_measures,
    add_missing,
    judge_args,
)
from irpref.evaluate import evaluate, summarize
from irpref.measures import parse_measures
from irpref.measures.diversity import check_subtopics, use_subtopics
from irpref.report.tables import write_table

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
    parser.add_argument("--subtopics", metavar="FILE", default=None,
                        help="ndeval-format subtopic qrels (topic subtopic docid grade) for "
                        "alpha-nDCG@k, ERR-IA@k, nERR-IA@k, MAP-IA, S-recall@k; QRELS may "
                        "be the same file")
    parser.add_argument("--per-query", action="store_true", help="also print per-query values")
    add_format(parser)


def run(args: argparse.Namespace) -> int:
    measures = args.measures or DEFAULT_MEASURES
    check_subtopics(parse_measures(measures), args.subtopics)
    args.qrels, sub = use_subtopics(args.qrels, args.subtopics)
    judged = judge_args(args)
    results = evaluate(
        None, None, measures, missing=args.missing, judged=judged, subtopics=sub
    )
    means = summarize(results)
    table = pd.concat([results, means], ignore_index=True) if args.per_query else means
    if args.format == "table" and not args.per_query:
        write_table(table, ["run", "measure"], "table", sys.stdout, wide_index=["run"])
    else:
        write_table(table, ["run", "query", "measure"], args.format, sys.stdout)
    return 0
