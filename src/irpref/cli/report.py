"""``irpref report QRELS RUN... [-m ...] [--baseline RUN]... [--rel N] [--qrels-b FILE]
-o report.html``.

One self-contained HTML file (inline PNG images and CSS, no network needed),
or Markdown with the PNG figures beside it when ``-o`` ends in ``.md``:
summary with significance against each baseline, "How sure are we"
(intervals, effect sizes, corrected p-values, the topic-set-size verdict),
per-query views, preference matrices and system orderings, discriminative
power, ties, how much was judged, with ``--qrels-b`` the agreement between
the two judgments, search lengths, robustness to missing labels.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from irpref import params
from irpref.cli import human_qrels
from irpref.cli.baseline_view import add_family_options, baselines, run_list
from irpref.cli.common import (
    add_inputs,
    add_measures,
    add_missing,
    add_rel,
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
    add_rel(parser)
    add_missing(parser)
    parser.add_argument("--alpha", **checked(params.check_alpha), default=0.05,
                        help="significance level (default 0.05)")
    add_family_options(parser)
    parser.add_argument("--confidence", **checked(params.check_probability), default=0.95,
                        help="level of the intervals of the differences (default 0.95)")
    parser.add_argument("--bootstrap", **checked(params.check_nonnegative_int), default=0,
                        metavar="N",
                        help="also a paired bootstrap percentile interval from N resamples "
                             "(default 0: none)")
    parser.add_argument("--seed", **checked(params.check_seed), default=None, metavar="S",
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
                        help="report.html (self-contained) or report.md (figures beside it)")


def _check(args: argparse.Namespace) -> tuple[Path, str]:
    out = Path(args.output)
    kind = out.suffix.lower()
    if kind not in (".html", ".htm", ".md"):
        raise UsageError(f"-o {args.output}: the report is .html or .md, not {kind or 'no suffix'}")
    if not out.parent.is_dir():
        raise UsageError(f"-o {args.output}: directory {out.parent} does not exist")
    return out, kind


def run(args: argparse.Namespace) -> int:
    out, kind = _check(args)  # a UsageError: usage and exit 2 (irpref.cli.main)
    require_matplotlib("report")
    from irpref.report.html import DEFAULT_MEASURES, build_report, write_html, write_markdown
    from irpref.report.trust import TrustOptions
    from irpref.store import is_judged_file

    if args.seed is not None and not args.bootstrap:
        raise UsageError(f"--seed {args.seed}: it seeds the bootstrap only; give --bootstrap N")
    saved = is_judged_file(args.qrels)
    if saved and args.qrels_b is not None:
        raise UsageError("--qrels-b needs QRELS RUN... (the runs are judged again under it), "
                         "not a file saved by irpref judge")
    judged = None
    if saved:  # saved by irpref judge: no RUN after it
        judged = load_judged_file(args, settings_from_args(args).replace(ties="docid"))
    elif not args.runs:
        raise UsageError("no RUN file given (give QRELS RUN..., or a file saved by irpref "
                         "judge)")
    base = baselines(args) or None
    trust = TrustOptions(correction=args.correction, family=args.family,
                         confidence=args.confidence, bootstrap=args.bootstrap,
                         seed=args.seed or 0, beta=args.beta)
    ppi = (human_qrels.report_section(args, list(DEFAULT_MEASURES))  # cli/human_qrels.py
           if human_qrels.wanted(args) else None)
    report = build_report(args.qrels, args.runs, args.measures,
                          baseline=base, alpha=args.alpha, title=args.title, judged=judged,
                          trust=trust, qrels_b=args.qrels_b, settings=settings_from_args(args))
    if ppi is not None:
        report.sections.append(ppi)
    if kind == ".md":
        figures = write_markdown(report, out)
        print(f"wrote {out} and {len(figures)} figures beside it", file=sys.stderr)
    else:
        write_html(report, out)
        print(f"wrote {out}", file=sys.stderr)
    return 0
