"""``irpref design --alpha A --beta B --min-diff D (--std | QRELS RUN... -m M... | --variance V)``

Topic set size design (Sakai 2016; :func:`irpref.design`): the topics a
paired t-test needs to detect a minimum difference D at level alpha with
power 1 - beta (row ``paired-t``), a one-way ANOVA over m systems
(``anova``, with ``--systems M`` or the runs given), and an expected CI no
wider than ``--ci-width W`` (``ci``). ``--std``: D and W are standardized,
by the sd of the per-topic differences for paired-t and ci, by the sd of the
scores (sqrt V_E) for anova (the ``unit`` column says which). Otherwise they
are raw differences of each measure and the variance is V_E, the residual
variance of the two-way ANOVA without replication over the runs given (or
``--variance V``); the rows ``V_E``, ``runs``, ``topics`` (the topics every
run has: those V_E is taken over), ``power`` (of the paired t-test with
those topics at D) and ``min-diff`` (smallest raw difference detected with
power 1 - beta) describe the collection at hand.
"""

from __future__ import annotations

import argparse
import math

from irpref import params
from irpref.cli import human_qrels
from irpref.cli.common import (
    add_format,
    add_judged_only,
    add_judging,
    add_missing,
    add_output,
    checked,
    judge_args,
    open_output,
    settings_from_args,
)
from irpref.errors import UsageError
from irpref.report.formats import write_frame
from irpref.topic_sets import METHODS, design


def _positive(value, flag: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise UsageError(f"{flag} must be a positive number, got {value!r}") from None
    if not (x > 0 and math.isfinite(x)):
        raise UsageError(f"{flag} must be a positive number, got {value!r}")
    return x


def _systems(value, flag: str) -> int:
    """The systems of the ANOVA design: an integer >= 2."""
    n = params.check_positive_int(value, flag)
    if n < 2:
        raise UsageError(f"{flag} {value}: must be >= 2 (the ANOVA design compares systems)")
    return n


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", metavar="QRELS RUN", nargs="*",
                        help="TREC qrels file (or a file saved by irpref judge) and TREC run "
                             "files (.gz ok): the variance comes from these runs")
    parser.add_argument("--tag-names", action="store_true",
                        help="name runs by their tag column instead of their file names")
    parser.add_argument("-m", "--measure", dest="measures", nargs="+", action="extend",
                        default=None, metavar="MEASURE",
                        help="the measures whose variance is estimated from the runs (several "
                             "give one block of rows each)")
    add_judged_only(parser)
    add_judging(parser)
    add_missing(parser)
    parser.add_argument("--alpha", **checked(params.check_alpha), default=0.05,
                        help="significance level (default 0.05)")
    parser.add_argument("--beta", **checked(params.check_alpha), default=0.20,
                        help="type II error rate: power is 1 - beta (default 0.20)")
    parser.add_argument("--min-diff", **checked(_positive), default=None, metavar="D",
                        help="minimum difference to detect (standardized with --std, else in "
                             "units of the measure)")
    parser.add_argument("--std", action="store_true",
                        help="--min-diff and --ci-width are standardized: in sds of the "
                             "per-topic differences for paired-t and ci, in sds of the scores "
                             "(sqrt V_E) for anova (Sakai 2016)")
    parser.add_argument("--variance", **checked(_positive), default=None, metavar="V",
                        help="the variance V_E (instead of estimating it from runs)")
    parser.add_argument("--systems", **checked(_systems), default=None,
                        metavar="M",
                        help="systems of the one-way ANOVA design (default: the runs given)")
    parser.add_argument("--ci-width", **checked(_positive), default=None, metavar="W",
                        help="also the topics for an expected CI of the mean difference no "
                             "wider than W")
    parser.add_argument("--method", **checked(lambda v, f: params.check_choice(v, f, METHODS)),
                        default="exact", metavar="{" + ",".join(METHODS) + "}",
                        help="power of the paired t-test: exact (noncentral t; default) or "
                             "sakai (his normal approximation, as his spreadsheets)")
    add_format(parser)
    add_output(parser)
    human_qrels.add_arguments(parser, design=True)  # --human-qrels H, --half-width W


def rows(args: argparse.Namespace):
    """The design table: columns ``measure, design, value, unit``."""
    args.qrels = args.inputs[0] if args.inputs else None
    args.runs = args.inputs[1:]
    if args.min_diff is None:
        raise UsageError("the following arguments are required: --min-diff")
    if args.std and (args.qrels or args.variance is not None):
        raise UsageError("--std takes standardized differences: give no QRELS RUN... "
                         "or --variance")
    if not args.std and args.qrels is None and args.variance is None:
        raise UsageError("give --std (standardized --min-diff), QRELS RUN... -m MEASURE, "
                         "or --variance V")
    if args.qrels is not None and args.variance is not None:
        raise UsageError("give QRELS RUN... or --variance, not both")
    options = dict(min_diff=args.min_diff, alpha=args.alpha, beta=args.beta,
                   systems=args.systems, ci_width=args.ci_width, method=args.method)
    if args.qrels is None:
        return design(standardized=args.std, variance=args.variance, **options)
    if not args.measures:
        raise UsageError("-m MEASURE is needed to estimate the variance from runs")
    settings = settings_from_args(args)
    judged = judge_args(args, settings, measures=args.measures)
    return design(measures=args.measures, settings=settings, judged=judged, **options)


def run(args: argparse.Namespace) -> int:
    if human_qrels.wanted(args):  # planning the human judging (cli/human_qrels.py)
        return human_qrels.run_design(args)
    frame = rows(args)
    if not frame["measure"].astype(bool).any():
        frame = frame.drop(columns="measure")
    legend = (f"alpha {args.alpha:g}, beta {args.beta:g} (power {1 - args.beta:g}), "
              f"min-diff {args.min_diff:g}{' (standardized)' if args.std else ''}; "
              f"paired-t / anova / ci: topics needed ({args.method}: "
              f"{'exact noncentral t / F' if args.method == 'exact' else 'normal approximation'}"
              "; Sakai 2016).")
    if "topics" in set(frame["design"]):
        legend += (" V_E is the residual variance of the two-way ANOVA without replication "
                   "(systems x topics) over the topics every run has (topics; a run lacking "
                   "a query drops it from every run under --missing skip); power and min-diff "
                   "are those of the paired t-test on these topics.")
    with open_output(args.output) as out:
        write_frame(frame, args.format, out, digits=4, legend=legend)
    return 0
