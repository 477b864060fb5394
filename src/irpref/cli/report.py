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

from irpref.cli.common import checked
from irpref.errors import UsageError
from irpref.params import check_rel


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", metavar="QRELS", help="TREC qrels file (.gz ok)")
    parser.add_argument("runs", metavar="RUN", nargs="+", help="TREC run files (.gz ok)")
    parser.add_argument("-m", "--measure", dest="measures", nargs="+", action="extend",
                        metavar="MEASURE",
                        help="measures (default: AP nDCG@10 P@10 RR)")
    parser.add_argument("--baseline", metavar="RUN",
                        help="baseline run: its name or its file (default: the first run)")
    parser.add_argument("--rel", **checked(check_rel), default=1, metavar="N",
                        help="grade >= N is relevant (default 1)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level")
    parser.add_argument("--title", default="irpref report", help="report title")
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="report.html (self-contained) or report.md (figures beside it)")


def _check(args: argparse.Namespace) -> tuple[Path, str]:
    out = Path(args.output)
    kind = out.suffix.lower()
    if kind not in (".html", ".htm", ".md"):
        raise UsageError(f"-o {args.output}: the report is .html or .md, not {kind or 'no suffix'}")
    if not out.parent.is_dir():
        raise UsageError(f"-o {args.output}: directory {out.parent} does not exist")
    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha {args.alpha}: alpha must be in (0, 1)")
    return out, kind


def run(args: argparse.Namespace) -> int:
    try:
        out, kind = _check(args)
        from irpref.report.html import build_report, write_html, write_markdown

        report = build_report(args.qrels, args.runs, args.measures,
                              baseline=args.baseline, rel=args.rel, alpha=args.alpha,
                              title=args.title)
    except UsageError as exc:
        print(f"irpref report: error: {exc}", file=sys.stderr)
        return 2
    if kind == ".md":
        figures = write_markdown(report, out)
        print(f"wrote {out} and {len(figures)} figures beside it", file=sys.stderr)
    else:
        write_html(report, out)
        print(f"wrote {out}", file=sys.stderr)
    return 0
