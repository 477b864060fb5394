"""``irpref evaluate`` options for a baseline view and paper formats.

``--baseline RUN [--test paired|t|wilcoxon|sign] [--correction holm|bonferroni|bh|none]
[--alpha 0.05] [--ci [t|bootstrap]] [--bootstrap N]`` and the layout of
``--format markdown|latex|html``
(the choices are :data:`irpref.report.formats.FORMATS`).
The subcommand calls :func:`add_arguments` from its own ``add_arguments`` and
returns :func:`write` from ``run`` when :func:`wanted` (see
``src/irpref/cli/evaluate.py``); the numbers come from
:mod:`irpref.report.baseline`, the layouts from :mod:`irpref.report.formats`.
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

import numpy as np
import pandas as pd

from irpref import params
from irpref.cli.common import checked, once
from irpref.errors import UsageError
from irpref.report.formats import PAPER_FORMATS

TESTS = ("paired", "t", "wilcoxon", "sign")
CORRECTIONS = ("holm", "bonferroni", "bh", "none")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("baseline and significance")
    g.add_argument("--baseline", **once(), metavar="RUN",
                   help="compare every run with RUN: difference, wins/losses/ties, marker")
    g.add_argument("--test", **once(), choices=TESTS, default="paired",
                   help="test against the baseline (default paired = Student's t)")
    g.add_argument("--correction", **once(), choices=CORRECTIONS, default="holm",
                   help="multiple-comparison correction over the runs (default holm)")
    g.add_argument("--alpha", **checked(params.check_alpha), default=0.05,
                   help="significance level (0.05)")
    g.add_argument("--ci", **once(), nargs="?", const="t", choices=("t", "bootstrap"),
                   help="confidence interval of each mean: t (default) or bootstrap")
    g.add_argument("--confidence", **checked(params.check_probability), default=0.95,
                   help="CI level (0.95)")
    g.add_argument("--bootstrap", **checked(params.check_positive_int), default=1000,
                   metavar="N", help="resamples of the bootstrap CI (1000)")
    g.add_argument("--seed", **checked(params.check_seed), default=0, help="bootstrap seed (0)")


def wanted(args: argparse.Namespace) -> bool:
    return bool(args.baseline or args.ci or args.format in PAPER_FORMATS)


def _legend(args: argparse.Namespace, table: pd.DataFrame) -> str:
    """What the marks mean, which direction is better for which measure, and on
    which queries runs are paired (stated whenever a run lacks some)."""
    from irpref.report.orientation import sign_of

    test = "Student's paired t" if args.test in ("paired", "t") else args.test
    measures = [str(m) for m in pd.unique(table["measure"])]
    lower = [m for m in measures if sign_of(m) < 0]
    none = [m for m in measures if sign_of(m) == 0]
    text = (f"▲/▼: significantly better/worse than {args.baseline} ({test} test, "
            f"{args.correction} correction over the runs, alpha = {args.alpha:g})")
    if lower:
        text += f"; lower is better for {', '.join(lower)}"
    if none:
        text += f"; {', '.join(none)}: no better direction, no mark"
    text += ("; diff = run - baseline; W/L/T = queries won/lost/tied; diff, W/L/T and the "
             "test use the paired queries (those both the run and the baseline have)")
    short = table[table["paired"].notna() & (table["paired"] < table["n"].max())]
    if len(short):
        runs = ", ".join(dict.fromkeys(short["run"].astype(str)))
        text += f"; fewer paired queries than evaluated for {runs}"
    return text + "."


def table_of(args: argparse.Namespace, results: pd.DataFrame) -> pd.DataFrame:
    """The tidy baseline/CI table: one row per (run, measure)."""
    from irpref.report.baseline import baseline_table, mean_ci

    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha {args.alpha}: alpha must be in (0, 1)")
    if not 0 < args.confidence < 1:
        raise UsageError(f"--confidence {args.confidence}: confidence must be in (0, 1)")
    if args.baseline:
        table = baseline_table(results, args.baseline, test=args.test,
                               correction=args.correction, alpha=args.alpha)
    else:
        table = mean_ci(results)[["run", "measure", "mean"]]
    if args.ci:
        ci = mean_ci(results, method=args.ci, confidence=args.confidence,
                     resamples=args.bootstrap, seed=args.seed)
        table = table.merge(ci[["run", "measure", "ci_low", "ci_high"]], on=["run", "measure"],
                            how="left", sort=False)
    return table


def write(args: argparse.Namespace, results: pd.DataFrame, out: TextIO) -> int:
    from irpref.report.baseline import wide
    from irpref.report.formats import render, render_text

    table = table_of(args, results)
    fmt = args.format
    if fmt in PAPER_FORMATS or fmt == "table":
        values = wide(table, "mean")
        markers = wide(table, "marker") if args.baseline else None
        legend = _legend(args, table) if args.baseline else None
        if fmt in PAPER_FORMATS:
            out.write(render(values, fmt, markers, legend=legend))
            if args.ci:
                lo, hi = wide(table, "ci_low"), wide(table, "ci_high")
                out.write("\n" + render(lo.round(4).astype(str) + " – " + hi.round(4)
                                        .astype(str), fmt, bold_best=False,
                                        caption=f"{args.confidence:.0%} CI ({args.ci})"))
            return 0
        shown = table.copy()
        if args.baseline:
            shown["W/L/T"] = [
                "" if pd.isna(w) else f"{w}/{lo}/{t}"
                for w, lo, t in zip(shown["wins"], shown["losses"], shown["ties"])]
            shown = shown.drop(columns=["wins", "losses", "ties", "significant"])
            shown["paired"] = ["" if pd.isna(v) else str(v) for v in shown["paired"]]
            for col in ("p", "p_adjusted"):
                shown[col] = ["" if np.isnan(v) else f"{v:.3g}" for v in shown[col]]
        out.write(render_text(shown, na_rep="", float_format=lambda v: f"{v:.4f}", width=80)
                  + "\n")
        if legend:
            out.write(legend + "\n")
        return 0
    if fmt == "json":
        records = [{k: (None if (v is pd.NA or (isinstance(v, float) and np.isnan(v)))
                        else v.item() if isinstance(v, np.generic) else v)
                    for k, v in rec.items()} for rec in table.to_dict("records")]
        json.dump(records, out, indent=1, ensure_ascii=False)
        out.write("\n")
        return 0
    from irpref.report.records import write_tsv

    write_tsv(table, out, empty_nan=True)  # shortest round-trip text, as every irpref TSV
    return 0
