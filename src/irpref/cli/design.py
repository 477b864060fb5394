"""``irpref design --alpha A --beta B --min-diff D (--std | QRELS RUN... -m M | --variance V)``

Topic set size design (Sakai 2016; :mod:`irpref.design`): the topics a
paired t-test needs to detect a minimum difference D at level alpha with
power 1 - beta (row ``paired-t``), a one-way ANOVA over m systems
(``anova``, with ``--systems M`` or the runs given), and an expected CI no
wider than ``--ci-width W`` (``ci``). ``--std``: D and W are standardized
(in standard deviations). Otherwise they are raw differences of the measure
and the variance is V_E, the residual variance of the two-way ANOVA without
replication over the runs given (or ``--variance V``); the rows ``V_E``,
``topics`` (of the collection), ``power`` (of the paired t-test with those
topics at D) and ``min-diff`` (smallest raw difference detected with power
1 - beta) describe the collection at hand.
"""

from __future__ import annotations

import argparse
import math

import pandas as pd

from irpref import design, params
from irpref.cli.common import (
    add_format,
    add_judging,
    add_missing,
    add_output,
    checked,
    judge_args,
    open_output,
)
from irpref.errors import UsageError
from irpref.evaluate import evaluate
from irpref.measures import parse_measure
from irpref.report.formats import write_frame
from irpref.stats import Pairwise, anova_two_way


def _positive(value, flag: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise UsageError(f"{flag} must be a positive number, got {value!r}") from None
    if not (x > 0 and math.isfinite(x)):
        raise UsageError(f"{flag} must be a positive number, got {value!r}")
    return x


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", metavar="QRELS RUN", nargs="*",
                        help="TREC qrels file (or a file saved by irpref judge) and TREC run "
                             "files (.gz ok): the variance comes from these runs")
    parser.add_argument("--tag-names", action="store_true",
                        help="name runs by their tag column instead of their file names")
    parser.add_argument("-m", "--measure", dest="measure", default=None, metavar="MEASURE",
                        help="the measure whose variance is estimated from the runs")
    add_judging(parser)
    add_missing(parser)
    parser.add_argument("--alpha", **checked(params.check_alpha), default=0.05,
                        help="significance level (default 0.05)")
    parser.add_argument("--beta", **checked(params.check_alpha), default=0.20,
                        help="type II error rate: power is 1 - beta (default 0.20)")
    parser.add_argument("--min-diff", **checked(_positive), required=True, metavar="D",
                        help="minimum difference to detect (standardized with --std, else in "
                             "units of the measure)")
    parser.add_argument("--std", action="store_true",
                        help="--min-diff and --ci-width are in standard deviations")
    parser.add_argument("--variance", **checked(_positive), default=None, metavar="V",
                        help="the variance V_E (instead of estimating it from runs)")
    parser.add_argument("--systems", **checked(params.check_positive_int), default=None,
                        metavar="M",
                        help="systems of the one-way ANOVA design (default: the runs given)")
    parser.add_argument("--ci-width", **checked(_positive), default=None, metavar="W",
                        help="also the topics for an expected CI of the mean difference no "
                             "wider than W")
    add_format(parser)
    add_output(parser)


def _variance(args: argparse.Namespace) -> tuple[float, int, int]:
    """(V_E, topics, runs) from the runs given (two-way ANOVA without replication)."""
    if not args.measure:
        raise UsageError("-m MEASURE is needed to estimate the variance from runs")
    try:
        measure = str(parse_measure(args.measure))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    judged = judge_args(args, measures=[measure])
    table = evaluate(None, None, [measure], missing=args.missing, judged=judged)
    scores = Pairwise.from_metric(table, measure).scores
    anova = anova_two_way(scores)
    if anova.n_topics < 2:
        raise UsageError(f"{measure}: fewer than 2 topics that every run has: no variance")
    return anova.v_e, anova.n_topics, anova.n_systems


def rows(args: argparse.Namespace) -> pd.DataFrame:
    """The design table: columns ``design``, ``value``."""
    args.qrels = args.inputs[0] if args.inputs else None
    args.runs = args.inputs[1:]
    if args.std and (args.qrels or args.variance is not None):
        raise UsageError("--std takes standardized differences: give no QRELS RUN... "
                         "or --variance")
    if not args.std and args.qrels is None and args.variance is None:
        raise UsageError("give --std (standardized --min-diff), QRELS RUN... -m MEASURE, "
                         "or --variance V")
    if args.qrels is not None and args.variance is not None:
        raise UsageError("give QRELS RUN... or --variance, not both")
    out: list[tuple[str, float]] = []
    topics = runs = None
    if args.std:
        v_e = None
        d_t = d_a = args.min_diff
        width = args.ci_width
    else:
        if args.variance is not None:
            v_e = args.variance
        else:
            v_e, topics, runs = _variance(args)
        if not v_e > 0:
            raise UsageError("the variance V_E is 0: every difference is detected")
        d_t = args.min_diff / math.sqrt(2 * v_e)
        d_a = args.min_diff / math.sqrt(v_e)
        width = None if args.ci_width is None else args.ci_width / math.sqrt(2 * v_e)
        out.append(("V_E", v_e))
    out.append(("paired-t", design.paired_t_topics(d_t, args.alpha, args.beta)))
    systems = args.systems or runs
    if systems is not None:
        if systems < 2:
            raise UsageError("the ANOVA design needs --systems 2 or more")
        out.append(("anova", design.anova_topics(d_a, systems, args.alpha, args.beta)))
    if width is not None:
        out.append(("ci", design.ci_topics(width, args.alpha)))
    if topics is not None:
        out.append(("topics", topics))
        out.append(("power", float(design.paired_t_power(topics, d_t, args.alpha))))
        d_min = design.min_detectable_difference(topics, args.alpha, args.beta)
        out.append(("min-diff", d_min * math.sqrt(2 * v_e)))
    values = pd.Series([r[1] for r in out], dtype=object)  # topic counts stay integers
    return pd.DataFrame({"design": [r[0] for r in out], "value": values})


def run(args: argparse.Namespace) -> int:
    frame = rows(args)
    legend = (f"alpha {args.alpha:g}, beta {args.beta:g} (power {1 - args.beta:g}), "
              f"min-diff {args.min_diff:g}{' (standardized)' if args.std else ''}. "
              "paired-t / anova / ci: topics needed (exact noncentral t / F; Sakai 2016); "
              "power and min-diff: of the paired t-test on this collection's topics.")
    legend = legend if "power" in set(frame["design"]) else legend.split("; power and")[0] + "."
    with open_output(args.output) as out:
        write_frame(frame, args.format, out, digits=4, legend=legend)
    return 0
