"""``irpref ties QRELS RUN... [-m MEASURE...]``: ties in runs and what the tie-break costs.

For each run: queries with tied scores among the retrieved items, items in tie
groups; for each run and measure: the mean under trec_eval's docid tie-break
and the tie-aware expected value (McSherry & Najork 2008), the mean and
largest per-query difference and the number of queries that change; per
measure: run pairs whose order the two policies disagree on; per run, how much
of each ranking is judged (Judged@k at ``--judged-at`` cut-offs, the unjudged
retrieved documents and their share within the depth). ``--coverage`` prints
that table alone, per run and query with ``--per-query``.
"""

from __future__ import annotations

import argparse
import io
import json
from typing import TextIO

import pandas as pd

from irpref import params
from irpref.cli.common import (
    add_format,
    add_inputs,
    add_judging,
    add_measures,
    add_missing,
    add_output,
    as_usage,
    judge_args,
    open_output,
    settings_from_args,
)
from irpref.meta.ties import DEFAULT_JUDGED_AT, DEFAULT_MEASURES, TiesReport, ties_report
from irpref.report.formats import (
    PAPER_FORMATS,
    render_frame,
    render_text,
    write_json,
    write_table,
    write_tsv,
)
from irpref.report.records import sort_queries


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_inputs(parser)
    add_measures(parser, f"measures to compare (default: {' '.join(DEFAULT_MEASURES)})")
    add_judging(parser, ties=False)
    add_missing(parser)
    parser.add_argument(
        "--per-query",
        action="store_true",
        help="with --format tsv/json: per-query docid and expected values instead; with "
        "--coverage: the coverage of every run and query (any format)",
    )
    parser.add_argument(
        "--judged-at", nargs="+", action="extend", metavar="K",
        help="cut-offs k of the coverage table's Judged@k (share of the top k the qrels "
        f"judge; default {' '.join(map(str, DEFAULT_JUDGED_AT))})",
    )
    parser.add_argument(
        "--coverage", action="store_true",
        help="print only the coverage table: per run Judged@k, retrieved and unjudged "
        "documents within the depth and their share (per query with --per-query)",
    )
    add_format(parser)
    add_output(parser)


def write_json_tables(tables: dict[str, pd.DataFrame], out: TextIO) -> None:
    """One JSON object {name: [records]}: each table by the one JSON writer
    (:func:`irpref.report.records.write_json`: null for NaN or an infinite value)."""
    out.write("{")
    for i, (name, frame) in enumerate(tables.items()):
        text = io.StringIO()
        write_json(frame, text)
        out.write(("" if i == 0 else ",\n") + json.dumps(name) + ": " + text.getvalue().rstrip())
    out.write("}\n")


COVERAGE_CAPTION = ("Judged documents per run (Judged@k: share of the top k the qrels judge, "
                    "any grade; unjudged: retrieved documents without a judgment)")


def coverage_legend(report: TiesReport) -> str:
    """What the coverage columns mean (the depth N they are taken within)."""
    cov = report.coverage
    return (f"Judged@k: mean over queries of the judged share of the top k (ir_measures' "
            f"Judged, any grade). unjudged: retrieved documents the qrels do not judge, "
            f"within the rankings kept (up to {cov.depth} documents); unjudged_rate = "
            "1 - Judged@N per query, unjudged / retrieved per run.")


def write_coverage(report: TiesReport, fmt: str, out: TextIO, per_query: bool = False) -> None:
    """The coverage table alone: per run, or per run and query."""
    cov = report.coverage
    frame = sort_queries(cov.per_query) if per_query else cov.per_run
    if fmt == "tsv":
        write_tsv(frame, out, list(frame.columns))
    elif fmt == "json":
        write_json(frame, out, list(frame.columns))
    elif fmt in PAPER_FORMATS:
        out.write(render_frame(frame, fmt, caption=COVERAGE_CAPTION) + "\n")
    else:
        out.write(render_text(frame, digits=4) + "\n" + coverage_legend(report) + "\n")


def write_report(report: TiesReport, fmt: str, out: TextIO, per_query: bool = False,
                 coverage: bool = False) -> None:
    """Print ``report`` as terminal tables, one long TSV table or JSON."""
    if coverage:
        write_coverage(report, fmt, out, per_query)
        return
    if per_query and fmt != "table":
        frame = sort_queries(report.per_query)
        columns = ["run", "query", "measure", "docid", "expected", "diff"]
        if fmt == "tsv":
            write_tsv(frame, out, columns)
        elif fmt in PAPER_FORMATS:
            out.write(render_frame(frame[columns], fmt))
        else:
            write_json(frame, out, columns)
        return
    if fmt in PAPER_FORMATS:
        for caption, frame in (("Tied scores among retrieved items", report.ties),
                               ("Per-query effect of the docid tie-break (expected - docid)",
                                report.effects),
                               ("Run pairs ordered differently by docid and expected means",
                                report.orderings),
                               (COVERAGE_CAPTION, report.coverage.per_run)):
            out.write(render_frame(frame, fmt, caption=caption) + "\n")
        return
    if fmt == "tsv":
        write_table(report.tidy(), ["run", "measure", "statistic"], "tsv", out)
    elif fmt == "json":
        write_json_tables({"ties": report.ties, "effects": report.effects,
                           "orderings": report.orderings, "swaps": report.swaps,
                           "coverage": report.coverage.per_run}, out)
    else:
        out.write("Tied scores among retrieved items (groups of size >= 2):\n")
        out.write(render_text(report.ties) + "\n\n")
        out.write("Per-query effect of the docid tie-break (diff = expected - docid):\n")
        out.write(render_text(report.effects, digits=4) + "\n\n")
        out.write("Run pairs ordered differently by the docid and expected means:\n")
        out.write(render_text(report.orderings, digits=4) + "\n")
        if len(report.swaps):
            out.write("\nSwapped pairs:\n" + render_text(report.swaps, digits=4) + "\n")
        out.write("\nJudged documents per run:\n")
        out.write(render_text(report.coverage.per_run, digits=4) + "\n")
        out.write(coverage_legend(report) + "\n")


def judged_at_option(values: list[str] | None) -> tuple[int, ...]:
    """``--judged-at K...`` checked by the positive-integer rule (a UsageError, exit 2)."""
    if not values:
        return DEFAULT_JUDGED_AT
    return tuple(params.check_positive_int(k, "--judged-at") for k in values)


def run(args: argparse.Namespace) -> int:
    from irpref.measures import parse_measures

    settings = settings_from_args(args).replace(ties="docid")
    measures = [str(m) for m in as_usage(lambda: parse_measures(
        args.measures or DEFAULT_MEASURES, judged_only=settings.judged_only))]
    judged_at = judged_at_option(args.judged_at)  # refused before any input is read (exit 2)
    judged = judge_args(args, settings, layout="full")
    report = ties_report(measures=measures, settings=settings, judged=judged,
                         judged_at=judged_at)
    text = io.StringIO() if args.format == "table" else None
    with open_output(args.output) as out, pd.option_context(
        "display.width", 200, "display.max_rows", None, "display.max_columns", None
    ):
        write_report(report, args.format, text or out, per_query=args.per_query,
                     coverage=args.coverage)
        if text is not None:
            out.write(text.getvalue())
    return 0
