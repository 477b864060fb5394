"""``irpref rank QRELS RUN... -m MEASURE... [--test T] [--correction C] [--alpha A]
[--bootstrap N --seed S]``

The leaderboard of the runs under each measure, with the rank intervals of
Mogstad, Romano, Shaikh & Wilhelm (2024) and a compact letter display:
``run, measure, mean, rank, rank_low, rank_high, group`` (best first by the
measure's record: a lower ASL ranks first), plus ``marginal_low``,
``marginal_high`` (marginal bootstrap intervals) with ``--bootstrap N``, and
``seed`` when random draws were used. The intervals and letters read one
family of pairwise tests over all pairs of each measure: the same p-values as
``irpref significance --test T --correction C`` (see :mod:`irpref.stats.ranks`).
"""

from __future__ import annotations

import argparse
import sys

from irpref import params
from irpref.cli.baseline_view import add_family_options
from irpref.cli.common import (
    add_dask,
    add_format,
    add_inputs,
    add_judging,
    add_measures,
    add_missing,
    add_output,
    checked,
    open_output,
    settings_from_args,
)
from irpref.cli.significance import measure_tables
from irpref.report.formats import write_frame
from irpref.stats.ranks import FWER_CORRECTIONS, RANK_TESTS, leaderboard
from irpref.stats.table import FAMILY_WISE, check_correction

DEFAULT_MEASURES = ["AP", "nDCG@10", "RR"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_inputs(parser)
    add_measures(parser, "metrics and/or preferences to rank by (default: "
                         f"{' '.join(DEFAULT_MEASURES)})")
    add_judging(parser)
    add_missing(parser)
    parser.add_argument("--test", **checked(_test), default="paired", metavar="TEST",
                        help="pairwise test of the family: paired (default: t, or sign for a "
                             "sign preference), t, wilcoxon, sign, hsd (randomized Tukey HSD), "
                             "tukey (parametric)")
    add_family_options(parser, correction=None, family=None,
                       correction_note="; default holm, none for hsd / tukey (family-wise "
                                       "already); bh, by and none give intervals that are not "
                                       "simultaneous (a warning says so)")
    parser.add_argument("--alpha", **checked(params.check_alpha), default=0.05,
                        help="family-wise level of the rank intervals (default 0.05)")
    parser.add_argument("--permutations", **checked(params.check_positive_int), default=10_000,
                        metavar="B", help="permutations of --test hsd (default 10000)")
    parser.add_argument("--bootstrap", **checked(params.check_nonnegative_int), default=0,
                        metavar="N", help="add marginal bootstrap rank intervals from N "
                                          "resamples of the queries (default 0: none)")
    parser.add_argument("--seed", **checked(params.check_seed), default=0, metavar="S",
                        help="seed of --bootstrap and --test hsd (default 0; written in the "
                             "seed column)")
    parser.add_argument("--confidence", **checked(params.check_probability), default=0.95,
                        help="level of the marginal bootstrap intervals (default 0.95)")
    add_dask(parser)
    add_format(parser)
    add_output(parser)


def _test(value, flag: str) -> str:
    return params.check_choice(value, flag, RANK_TESTS)


def run(args: argparse.Namespace) -> int:
    if args.family not in (None, "measure"):
        from irpref.errors import UsageError

        raise UsageError(f"--family {args.family}: rank intervals read one family per "
                         "measure (all its run pairs)")
    args.correction = check_correction([args.test], args.correction)
    if args.test not in FAMILY_WISE and args.correction not in FWER_CORRECTIONS \
            and not getattr(args, "quiet", False):
        print(f"irpref rank: warning: --correction {args.correction} does not control the "
              "family-wise error: the rank intervals are not simultaneous (Mogstad et al. "
              "2024 need holm or bonferroni, or --test hsd / tukey)", file=sys.stderr)
    args.measures = args.measures or DEFAULT_MEASURES
    tables = measure_tables(args, settings_from_args(args))
    options = dict(correction=args.correction, alpha=args.alpha, bootstrap=args.bootstrap,
                   seed=args.seed, confidence=args.confidence, permutations=args.permutations)
    if args.dask:  # the tests of blocks of run pairs as Dask tasks: the same numbers
        from functools import partial

        from irpref.distributed import client_for, close, significance

        client = client_for(args.dask)
        try:
            board = leaderboard(tables, args.test, tester=partial(significance, client=client),
                                **options)
        finally:
            close(client)
    else:
        board = leaderboard(tables, args.test, **options)
    with open_output(args.output) as out:
        write_frame(board, args.format, out, digits=4, legend=legend(args))
    return 0


def legend(args: argparse.Namespace) -> str:
    """What the columns mean, under the terminal table and the paper formats."""
    test = {"paired": "paired t (sign for sign preferences)", "hsd": "randomized Tukey HSD",
            "tukey": "parametric Tukey HSD"}.get(args.test, args.test)
    text = (f"rank: 1 + the runs with a better mean (best first by each measure's "
            f"orientation). rank_low/rank_high: 1 + the runs significantly better / R - the "
            f"runs significantly worse (Mogstad et al. 2024), {test} test over all pairs of "
            f"each measure, {args.correction} correction, alpha = {args.alpha:g}. group: runs "
            "sharing a letter do not differ significantly.")
    if args.bootstrap:
        text += (f" marginal_low/marginal_high: {args.confidence:g} marginal bootstrap interval "
                 f"of each rank alone ({args.bootstrap} resamples of the queries, not "
                 "simultaneous).")
    return text
