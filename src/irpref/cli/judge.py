"""``irpref judge QRELS RUN... -o judged.parquet``: judge once, analyse many times."""

from __future__ import annotations

import argparse
import sys
import time

from irpref.cli.common import add_inputs, add_judging, judge_args, settings_from_args
from irpref.errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_inputs(parser)
    add_judging(parser)
    parser.add_argument("--layout", choices=("full", "compact"), default="full",
                        help="full (default): every retrieved item, read by every command; "
                             "compact: only the retrieved items the qrels mention (a "
                             "fraction of the size), read by evaluate, compare and "
                             "significance for every measure and preference except Unj, "
                             "RBPResid, nDCGRel, RnDCG, the diversity measures, ST-RPP and "
                             "the tie-aware recall-level ones (refused for those)")
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="Parquet file to write; give it in place of QRELS RUN... to "
                             "evaluate, compare, significance and ties (with the same "
                             "--rel/--depth/--ties/--corpus-size/--tag-names)")


def run(args: argparse.Namespace) -> int:
    from irpref.judging.store import is_judged_file, save

    if is_judged_file(args.qrels):
        raise UsageError(f"{args.qrels} is already a saved judged file: judge QRELS RUN...")
    start = time.perf_counter()
    judged = judge_args(args, settings_from_args(args), layout=args.layout)
    save(judged, args.output, qrels=args.qrels, runs=args.runs)
    print(f"{args.output}: {judged.n_runs} runs x {judged.n_queries} queries, "
          f"{judged.n_items} judged items ({time.perf_counter() - start:.1f} s)",
          file=sys.stderr)
    return 0
