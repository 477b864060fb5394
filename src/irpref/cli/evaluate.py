"""``irpref evaluate QRELS RUN... -m MEASURE...``"""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from irpref.cli import baseline_view
from irpref.cli.common import (
    add_format,
    add_inputs,
    add_judging,
    add_measures,
    add_missing,
    judge_args,
)
from irpref.evaluate import evaluate, summarize
from irpref.measures.names import canonical_name
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
    parser.add_argument("--per-query", action="store_true", help="also print per-query values")
    add_format(parser)
    baseline_view.add_arguments(parser)  # --baseline, --ci, --format markdown/latex/html


def run(args: argparse.Namespace) -> int:
    measures = [canonical_name(t) for m in args.measures or DEFAULT_MEASURES for t in m.split()]
    judged = judge_args(args)
    results = evaluate(None, None, measures, missing=args.missing, judged=judged)
    if baseline_view.wanted(args):
        return baseline_view.write(args, results, sys.stdout)
    means = summarize(results)
    table = pd.concat([results, means], ignore_index=True) if args.per_query else means
    if args.format == "table" and not args.per_query:
        write_table(table, ["run", "measure"], "table", sys.stdout, wide_index=["run"])
    else:
        write_table(table, ["run", "query", "measure"], args.format, sys.stdout)
    return 0
