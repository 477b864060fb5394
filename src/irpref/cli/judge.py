"""``irpref judge QRELS RUN... -o judged.parquet``: judge once, analyse many times."""

from __future__ import annotations

import argparse
import sys
import time

from irpref.cli.common import add_inputs, add_judging, judge_args
from irpref.errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_inputs(parser)
    add_judging(parser)
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="Parquet file to write; give it in place of QRELS RUN... to "
                             "evaluate, compare, significance and ties (with the same "
                             "--rel/--depth/--ties/--corpus-size/--tag-names)")


def run(args: argparse.Namespace) -> int:
    from irpref.store import is_judged_file, save

    if is_judged_file(args.qrels):
        raise UsageError(f"{args.qrels} is already a saved judged file: judge QRELS RUN...")
    start = time.perf_counter()
    judged = judge_args(args)
    save(judged, args.output, qrels=args.qrels, runs=args.runs, use_tag=args.tag_names)
    print(f"{args.output}: {judged.n_runs} runs x {judged.n_queries} queries, "
          f"{judged.n_items} judged items ({time.perf_counter() - start:.1f} s)",
          file=sys.stderr)
    return 0
