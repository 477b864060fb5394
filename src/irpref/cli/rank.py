"""``irpref rank QRELS RUN... -m MEASURE... [--test T] [--correction C] [--family F]
[--alpha A] [--groups auto|letters|ranges] [--bootstrap N --seed S]``

The leaderboard of the runs under each measure, with the rank intervals of
Mogstad, Romano, Shaikh & Wilhelm (2024) and groups of runs that do not differ:
``run, measure, mean, rank, rank_low, rank_high, group, test, correction,
family, alpha, simultaneous`` (best first by the measure's record: a lower ASL
ranks first), plus ``marginal_low``, ``marginal_high`` (marginal bootstrap
intervals) with ``--bootstrap N``, and ``seed`` when random draws were used.
The intervals and groups read one family of one-sided tests of means over all
ordered pairs of each measure (:mod:`irpref.stats.ranks`,
:mod:`irpref.stats.rank_family`, whose ``LEVELS`` say what each correction
gives); every format carries the test, correction, family, alpha and whether
the intervals are simultaneous (columns; the legend under the terminal and
paper tables).
"""

from __future__ import annotations

import argparse

from irpref import params
from irpref.cli.baseline_view import CORRECTION_HELP
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
    warn,
)
from irpref.cli.significance import measure_tables
from irpref.report.formats import write_frame
from irpref.stats.corrections import CORRECTIONS
from irpref.stats.letters import GROUPS
from irpref.stats.rank_family import RANK_FAMILIES, check_rank_family, level, simultaneous
from irpref.stats.ranks import RANK_TESTS, REFUSED_TESTS, check_rank_test, leaderboard
from irpref.stats.table import check_correction

DEFAULT_MEASURES = ["AP", "nDCG@10", "RR"]

CONSTANT = ["test", "correction", "family", "alpha", "simultaneous"]
"""Columns the same on every row: the legend says them under the terminal and paper tables."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_inputs(parser)
    add_measures(parser, "metrics and/or preferences to rank by (default: "
                         f"{' '.join(DEFAULT_MEASURES)})")
    add_judging(parser)
    add_missing(parser)
    parser.add_argument("--test", **checked(_test), default="paired", metavar="TEST",
                        help="test of means over all pairs: paired (default) or t (Student's "
                             "paired t), hsd (randomized Tukey HSD), tukey (parametric); sign "
                             "and wilcoxon are refused (their pairwise verdicts can cycle: "
                             "no ranking lies behind them)")
    parser.add_argument("--correction", **checked(_correction), default=None,
                        metavar="{" + ",".join(CORRECTIONS) + "}",
                        help=CORRECTION_HELP + ", over the R(R-1) one-sided hypotheses of "
                             "the family; default holm, none for hsd / tukey (family-wise "
                             "already); only holm and bonferroni (and hsd / tukey) give "
                             "simultaneous intervals")
    parser.add_argument("--family", **checked(_family), default="measure",
                        metavar="{" + ",".join(RANK_FAMILIES) + "}",
                        help="hypotheses one correction runs over: measure (default: each "
                             "measure's, its intervals hold together) or all (every "
                             "measure's: all intervals of all measures hold together)")
    parser.add_argument("--alpha", **checked(params.check_alpha), default=0.05,
                        help="level of the rank intervals (default 0.05)")
    parser.add_argument("--groups", **checked(_groups), default="auto",
                        metavar="{" + ",".join(GROUPS) + "}",
                        help="runs that do not differ: letters (a compact letter display; "
                             "past 76 letters it uses CJK ideographs), ranges (the board rows "
                             "of the runs each does not differ from, e.g. 3-17,19) or auto "
                             "(default: letters up to 76 runs and 76 letters, else ranges)")
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
    add_format(parser, binary=True)
    add_output(parser)


def _test(value, flag: str) -> str:
    return check_rank_test(params.check_choice(value, flag, (*RANK_TESTS, *REFUSED_TESTS)))


def _correction(value, flag: str) -> str:
    return params.check_choice(value, flag, CORRECTIONS)


def _family(value, flag: str) -> str:
    return check_rank_family(value)


def _groups(value, flag: str) -> str:
    return params.check_choice(value, flag, GROUPS)


def run(args: argparse.Namespace) -> int:
    args.correction = check_correction([args.test], args.correction)
    if not simultaneous(args.test, args.correction):
        warn(f"--correction {args.correction}: the rank intervals are not simultaneous (the "
             "simultaneous column says so; holm or bonferroni, or --test hsd / tukey, give "
             "intervals that hold together)")
    args.measures = args.measures or DEFAULT_MEASURES
    tables = measure_tables(args, settings_from_args(args))
    options = dict(correction=args.correction, family=args.family, alpha=args.alpha,
                   groups=args.groups, bootstrap=args.bootstrap, seed=args.seed,
                   confidence=args.confidence, permutations=args.permutations)
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
    text = legend(args, board)
    if args.format not in ("tsv", "json", "parquet"):  # the legend says them once
        board = board.drop(columns=CONSTANT)
    with open_output(args.output) as out:
        write_frame(board, args.format, out, digits=4, legend=text)
    return 0


def legend(args: argparse.Namespace, board) -> str:
    """What the columns mean and under what the intervals were made, under the terminal
    table and the paper formats (TSV, JSON and Parquet carry it in columns)."""
    test = {"paired": "paired t", "t": "paired t", "hsd": "randomized Tukey HSD",
            "tukey": "parametric Tukey HSD"}[args.test]
    scope = "each measure" if args.family == "measure" else "all measures together"
    text = (f"rank: 1 + the runs with a better mean (best first by each measure's "
            f"orientation; equal means tie). rank_low/rank_high: 1 + the runs significantly "
            f"better / R - the runs significantly worse (Mogstad et al. 2024): test {test} "
            f"(one-sided, every ordered pair), correction {args.correction} over "
            f"{scope}, alpha = {args.alpha:g}; simultaneous: "
            f"{'yes' if simultaneous(args.test, args.correction) else 'no'} "
            f"({level(args.test, args.correction)}).")
    if board.attrs.get("groups") == "ranges":
        text += (" group: the board rows (1 = the measure's first) of the runs each does not "
                 "differ from.")
    else:
        text += " group: runs sharing a letter do not differ significantly."
    if args.bootstrap:
        text += (f" marginal_low/marginal_high: {args.confidence:g} marginal bootstrap interval "
                 f"of each rank alone ({args.bootstrap} resamples of the queries, not "
                 "simultaneous).")
    return text
