"""``irpref report QRELS RUN... [-m ...] [--baseline RUN] [--rel N] -o report.html``.

One self-contained HTML file (inline PNG images and CSS, no network needed),
or Markdown with the PNG figures beside it when ``-o`` ends in ``.md``:
summary with significance against the baseline, per-query views, preference
matrices and system orderings, discriminative power, ties, search lengths.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from irpref import params
from irpref.cli.common import (
    add_inputs,
    add_missing,
    add_rel,
    checked,
    once,
    require_matplotlib,
)
from irpref.errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_inputs(parser)
    parser.add_argument("-m", "--measure", dest="measures", nargs="+", action="extend",
                        metavar="MEASURE",
                        help="measures (default: AP nDCG@10 P@10 RR)")
    parser.add_argument("--baseline", **once(), metavar="RUN",
                        help="baseline run: its name or its file (default: the first run)")
    add_rel(parser)
    add_missing(parser)
    parser.add_argument("--alpha", **checked(params.check_alpha), default=0.05,
                        help="significance level (default 0.05)")
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
    from irpref.report.html import build_report, write_html, write_markdown
    from irpref.store import is_judged_file, load_for_args

    judged = None
    if is_judged_file(args.qrels):  # saved by irpref judge: no RUN after it
        judged = load_for_args(args, "docid")
    elif not args.runs:
        raise UsageError("no RUN file given (give QRELS RUN..., or a file saved by irpref "
                         "judge)")
    report = build_report(args.qrels, args.runs, args.measures,
                          baseline=args.baseline, rel=args.rel, alpha=args.alpha,
                          title=args.title, missing=args.missing, judged=judged,
                          use_tag=args.tag_names)
    if kind == ".md":
        figures = write_markdown(report, out)
        print(f"wrote {out} and {len(figures)} figures beside it", file=sys.stderr)
    else:
        write_html(report, out)
        print(f"wrote {out}", file=sys.stderr)
    return 0
