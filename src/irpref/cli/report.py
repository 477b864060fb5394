"""``irpref report QRELS RUN... [-m ...] [--baseline RUN]... [--rel N] [--qrels-b FILE]
-o report.html|report.md|report.json``.

One self-contained HTML file (inline PNG images and CSS, no network needed),
Markdown with the PNG figures beside it when ``-o`` ends in ``.md``, or the
report as JSON data when it ends in ``.json``: summary with the verdicts
against each baseline, "How sure are we" (intervals, effect sizes, adjusted
p-values, the topic-set-size verdict), per-query views, preference matrices
and system orderings, discriminative power, ties, how much was judged, with
``--qrels-b`` the agreement between the two judgments, search lengths,
robustness to missing labels. Every verdict comes from one test of each pair
of runs under one family rule (:mod:`irpref.report.verdicts`).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from irpref import params
from irpref.cli import human_qrels
from irpref.cli.baseline_view import add_family_options, baselines, run_list
from irpref.cli.common import (
    add_inputs,
    add_judging,
    add_measures,
    add_missing,
    checked,
    load_judged_file,
    once,
    require_matplotlib,
    settings_from_args,
)
from irpref.errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_inputs(parser)
    add_measures(parser, "measures (default: AP nDCG@10 P@10 RR); --judged-only: they and "
                         "the preferences (sgnLP, RPP) on the condensed lists")
    parser.add_argument("--baseline", metavar="RUN", action="append", type=run_list,
                        default=None,
                        help="baseline run: its name or its file (default: the first run); "
                             "repeat it or give a comma-separated list for several")
    add_judging(parser)
    add_missing(parser)
    parser.add_argument("--alpha", **checked(params.check_alpha), default=0.05,
                        help="significance level (default 0.05)")
    add_family_options(parser, family_note=" (a report tests every pair of runs: measure or "
                                           "all)")
    parser.add_argument("--confidence", **checked(params.check_probability), default=0.95,
                        help="level of the intervals of the differences (default 0.95)")
    parser.add_argument("--bootstrap", **checked(params.check_nonnegative_int), default=0,
                        metavar="N",
                        help="also a paired bootstrap percentile interval from N resamples "
                             "(default 0: none)")
    parser.add_argument("--seed", **checked(params.check_seed), default=0, metavar="S",
                        help="seed of the --bootstrap resamples (default 0)")
    parser.add_argument("--beta", **checked(params.check_alpha), default=0.20,
                        help="topic-set-size verdict: the difference detected with power "
                             "1 - beta (default 0.20)")
    parser.add_argument("--qrels-b", **once(), default=None, metavar="QRELS_B",
                        help="a second set of qrels (e.g. LLM labels): adds the agreement "
                             "between the two judgments, as irpref agree QRELS QRELS_B RUN...")
    human_qrels.add_arguments(parser)  # --human-qrels H, --ppi-lambda
    parser.add_argument("--title", **once(), default="irpref report", help="report title")
    parser.add_argument("-o", "--output", **once(), required=True, metavar="FILE",
                        help="report.html (self-contained), report.md (figures beside it) or "
                             "report.json (the report as data)")


def _check(args: argparse.Namespace) -> tuple[Path, str]:
    out = Path(args.output)
    kind = out.suffix.lower()
    if kind not in (".html", ".htm", ".md", ".json"):
        raise UsageError(f"-o {args.output}: the report is .html, .md or .json, not "
                         f"{kind or 'no suffix'}")
    if not out.parent.is_dir():
        raise UsageError(f"-o {args.output}: directory {out.parent} does not exist")
    return out, kind


def run(args: argparse.Namespace) -> int:
    out, kind = _check(args)  # a UsageError: usage and exit 2 (irpref.cli.main)
    from irpref.judging.store import is_judged_file
    from irpref.report import ReportOptions, build_report, write_report
    from irpref.report.build import DEFAULT_MEASURES
    from irpref.report.verdicts import check_report_family

    check_report_family(args.family)
    if kind != ".json":  # JSON draws no figure
        require_matplotlib("report")
    saved = is_judged_file(args.qrels)
    if saved and args.qrels_b is not None:
        raise UsageError("--qrels-b needs QRELS RUN... (the runs are judged again under it), "
                         "not a file saved by irpref judge")
    judged = None
    if saved:  # saved by irpref judge: no RUN after it
        judged = load_judged_file(args, settings_from_args(args))
    elif not args.runs:
        raise UsageError("no RUN file given (give QRELS RUN..., or a file saved by irpref "
                         "judge)")
    options = ReportOptions(alpha=args.alpha, correction=args.correction, family=args.family,
                            confidence=args.confidence, bootstrap=args.bootstrap,
                            seed=args.seed, beta=args.beta, title=args.title)
    human = None
    if human_qrels.wanted(args):  # checked before any input is read (cli/human_qrels.py)
        human, ppi = human_qrels.report_options(args, list(DEFAULT_MEASURES))
        options = dataclasses.replace(options, **ppi)
    report = build_report(args.qrels, args.runs, args.measures, baseline=baselines(args) or None,
                          settings=settings_from_args(args), judged=judged,
                          qrels_b=args.qrels_b, human_qrels=human, options=options)
    figures = write_report(report, out)
    print(f"wrote {out}" + (f" and {len(figures)} figures beside it" if kind == ".md" else ""),
          file=sys.stderr)
    return 0
