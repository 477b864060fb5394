"""``irpref evaluate`` options for a baseline view and paper formats.

``--baseline RUN [--baseline RUN2 | RUN,RUN2] [--test paired|t|wilcoxon|sign]
[--correction holm|bonferroni|bh|by|none] [--family measure|baseline|all] [--effects]
[--alpha 0.05] [--ci [t|bootstrap|bca]] [--confidence 0.95] [--bootstrap N] [--seed S]``
and the layout of ``--format markdown|latex|html`` (the choices are
:data:`irpref.report.formats.FORMATS`).

Two layouts of the same numbers (:func:`irpref.stats.against_baselines`):

- one baseline (the layout ``evaluate --baseline RUN`` has always printed):
  one row per run and measure, ``run, measure, n, paired, mean, diff, wins,
  losses, ties, p, p_adjusted, significant, marker``;
- several baselines, ``--effects`` or ``--family``: one row per run, measure
  and baseline with the interval of the difference (``diff_low``/``diff_high``,
  by ``--ci``, t by default), effect sizes and their intervals, the family.

``--ci`` adds ``ci_low``/``ci_high``, the interval of each run's mean; in the
second layout it also names the method of the difference's interval (the same
seeded draws as ``irpref significance --ci`` for the same ``--seed``). The
terminal table and the paper formats with several baselines show each run's
mean with one mark per baseline (``▲ᵃ▼ᵇ``: better than baseline a, worse than
b, by each measure's orientation), baselines lettered in the legend.
The subcommand calls :func:`add_arguments` from its own ``add_arguments`` and
returns :func:`write` from ``run`` when :func:`wanted` (see
``src/irpref/cli/evaluate.py``).
"""

from __future__ import annotations

import argparse
from typing import TextIO

import numpy as np
import pandas as pd

from irpref import params
from irpref.cli.common import checked, once
from irpref.report.formats import PAPER_FORMATS
from irpref.stats.baselines import BASELINE_TESTS
from irpref.stats.bootstrap import DEFAULT_BOOTSTRAP
from irpref.stats.corrections import CORRECTIONS
from irpref.stats.families import FAMILIES, FAMILY_TEXT

TESTS = BASELINE_TESTS


CORRECTION_HELP = ("multiple-comparison correction within each family: holm (default), "
                   "bonferroni, bh (Benjamini-Hochberg), by (Benjamini-Yekutieli), none")
FAMILY_HELP = ("comparisons one correction runs over: measure (default: each measure's pairs, "
               "or its runs x baselines), baseline (each measure and baseline), all (runs x "
               "baselines x measures)")


def _correction(value, flag: str) -> str:
    return params.check_choice(value, flag, CORRECTIONS)


def _family(value, flag: str) -> str:
    return params.check_choice(value, flag, FAMILIES)


def add_family_options(parser, *, family: str | None = "measure", correction_note: str = "",
                       family_note: str = "", correction: str | None = "holm") -> None:
    """``--correction`` and ``--family``, declared once for evaluate, significance
    and report (same words, same checks; ``family`` is the default family,
    ``correction`` the default correction: None lets the command choose by its tests)."""
    parser.add_argument("--correction", **checked(_correction), default=correction,
                        metavar="{" + ",".join(CORRECTIONS) + "}",
                        help=CORRECTION_HELP + correction_note)
    parser.add_argument("--family", **checked(_family), default=family,
                        metavar="{" + ",".join(FAMILIES) + "}", help=FAMILY_HELP + family_note)


def run_list(text: str) -> list[str]:
    """``A,B`` -> [A, B] (one --baseline may name several runs)."""
    names = [t.strip() for t in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"empty run name in {text!r}")
    return names


def baselines(args: argparse.Namespace) -> list[str]:
    """Every --baseline given, in order, without repeats."""
    return list(dict.fromkeys(n for group in (args.baseline or []) for n in group))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("baseline and significance")
    g.add_argument("--baseline", action="append", type=run_list, default=None, metavar="RUN",
                   help="compare every run with RUN: difference, wins/losses/ties, marker; "
                        "repeat it or give a comma-separated list for several baselines")
    g.add_argument("--test", **once(), choices=TESTS, default="paired",
                   help="test against the baseline (default paired = Student's t)")
    add_family_options(g, family=None, family_note="; implies --effects")
    g.add_argument("--effects", action="store_true",
                   help="one row per run, measure and baseline with the interval of the "
                        "difference, effect sizes (effect, es_anova) and their intervals and "
                        "the family (implied by several baselines)")
    g.add_argument("--alpha", **checked(params.check_alpha), default=0.05,
                   help="significance level (0.05)")
    g.add_argument("--ci", **once(), nargs="?", const="t", choices=("t", "bootstrap", "bca"),
                   help="confidence interval of each mean (ci_low/ci_high) and, with "
                        "--effects or several baselines, of each difference: t (default), "
                        "bootstrap (seeded, percentile) or bca (bootstrap BCa)")
    g.add_argument("--confidence", **checked(params.check_probability), default=0.95,
                   help="CI level (0.95)")
    g.add_argument("--bootstrap", **checked(params.check_positive_int), default=DEFAULT_BOOTSTRAP,
                   metavar="N", help=f"resamples of the bootstrap CI ({DEFAULT_BOOTSTRAP}: Efron & "
                                     "Tibshirani 1993 advise more than a percentile interval's "
                                     "~1000 for BCa)")
    g.add_argument("--seed", **checked(params.check_seed), default=0, help="bootstrap seed (0)")


def wanted(args: argparse.Namespace) -> bool:
    """Whether the baseline/CI view writes the output; ``--effects`` or ``--family``
    without ``--baseline`` is a usage error (they would change nothing)."""
    from irpref.errors import UsageError

    if not args.baseline and (args.effects or args.family is not None):
        flag = "--effects" if args.effects else f"--family {args.family}"
        raise UsageError(f"{flag} needs --baseline")
    return bool(args.baseline or args.ci or args.format in PAPER_FORMATS)


def extended(args: argparse.Namespace) -> bool:
    """One row per run, measure and baseline (several baselines, --effects, --family)."""
    return bool(baselines(args)) and (len(baselines(args)) > 1 or args.effects
                                      or args.family is not None)


def _legend(args: argparse.Namespace, table: pd.DataFrame) -> str:
    """What the marks mean, which direction is better for which measure, and on
    which queries runs are paired (stated whenever a run lacks some)."""
    from irpref.report.baseline import baseline_letters
    from irpref.report.orientation import direction_note

    test = "Student's paired t" if args.test in ("paired", "t") else args.test
    base = baselines(args)
    if len(base) == 1:
        scope = ("the runs" if args.family is None
                 else f"the runs of {FAMILY_TEXT[args.family]}")
        text = (f"▲/▼: significantly better/worse than {base[0]} ({test} test, "
                f"{args.correction} correction over {scope}, alpha = {args.alpha:g})")
    else:
        letters = ", ".join(f"{k} = {b}" for b, k in baseline_letters(base).items())
        family = args.family or "measure"
        text = (f"▲/▼ with a baseline's letter: significantly better/worse than that baseline "
                f"(baselines {letters}; a baseline's row shows its letter and it is never "
                f"compared with itself; {test} test, {args.correction} correction over the "
                f"runs x baselines of {FAMILY_TEXT[family]}, alpha = {args.alpha:g})")
    note = direction_note(pd.unique(table["measure"]))
    if note:
        text += "; " + note
    text += ("; diff = run - baseline; W/L/T = queries won/lost/tied; diff, W/L/T and the "
             "test use the paired queries (those both the run and the baseline have)")
    short = table[table["paired"].notna() & (table["paired"] < table["n"].max())]
    if len(short):
        runs = ", ".join(dict.fromkeys(short["run"].astype(str)))
        text += f"; fewer paired queries than evaluated for {runs}"
    if len(base) > 1:
        text += ("; --format tsv or json: one row per run, measure and baseline with the "
                 "difference, its interval, effect sizes and p-values")
    return text + "."


def table_of(args: argparse.Namespace, results: pd.DataFrame) -> pd.DataFrame:
    """The tidy baseline/CI table: one row per (run, measure), or per (run,
    measure, baseline) in the extended layout."""
    from irpref.report.baseline import baseline_table, mean_ci
    from irpref.stats import against_baselines

    base = baselines(args)
    if base and extended(args):
        table = against_baselines(
            results, base, test=args.test, correction=args.correction,
            family=args.family or "measure", alpha=args.alpha, ci=args.ci or "t",
            confidence=args.confidence, bootstrap=args.bootstrap, seed=args.seed)
    elif base:
        table = baseline_table(results, base[0], test=args.test, correction=args.correction,
                               alpha=args.alpha)
    else:
        table = mean_ci(results)[["run", "measure", "mean"]]
    if args.ci:
        ci = mean_ci(results, method=args.ci, confidence=args.confidence,
                     resamples=args.bootstrap, seed=args.seed)
        table = table.merge(ci[["run", "measure", "ci_low", "ci_high"]], on=["run", "measure"],
                            how="left", sort=False)
    return table


def _interval(lo: pd.DataFrame, hi: pd.DataFrame) -> pd.DataFrame:
    """Cells ``low – high`` (4 decimals; empty where there is no interval)."""
    text = lo.round(4).astype(str) + " – " + hi.round(4).astype(str)
    return text.where(lo.notna() & hi.notna(), "")


def _interval_tables(args: argparse.Namespace, table: pd.DataFrame
                     ) -> list[tuple[str, pd.DataFrame]]:
    """(caption, run x measure cells): the interval of each mean, and in the
    extended layout one table per baseline of the interval of run - baseline."""
    from irpref.report.baseline import wide

    if not args.ci:
        return []
    means = table.drop_duplicates(["run", "measure"])
    out = [(f"{args.confidence:.0%} CI ({args.ci})",
            _interval(wide(means, "ci_low"), wide(means, "ci_high")))]
    if extended(args):
        for base in baselines(args):
            rows = table[table["baseline"] == base]
            out.append((f"{args.confidence:.0%} CI ({args.ci}) of run - {base}",
                        _interval(wide(rows, "diff_low"), wide(rows, "diff_high"))))
    return out


def _marked(args: argparse.Namespace, table: pd.DataFrame
            ) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """Run x measure means and marks; with several baselines, each baseline's row
    is labelled with its letter (``TUA1-1 (a)``)."""
    from irpref.report.baseline import baseline_letters, wide, wide_marks

    values = wide(table, "mean")
    if not baselines(args):
        return values, None
    markers = wide_marks(table)
    if len(baselines(args)) > 1:
        letters = baseline_letters(baselines(args))
        label = [f"{r} ({letters[r]})" if r in letters else r for r in values.index]
        values.index = markers.index = pd.Index(label, name=values.index.name)
    return values, markers


def write(args: argparse.Namespace, results: pd.DataFrame, out: TextIO) -> int:
    from irpref.report.formats import escape_text, render, render_text

    table = table_of(args, results)
    fmt = args.format
    base = baselines(args)
    if fmt in PAPER_FORMATS or fmt == "table":
        legend = _legend(args, table) if base else None
        if fmt in PAPER_FORMATS:
            values, markers = _marked(args, table)
            out.write(render(values, fmt, markers, legend=legend))
            for caption, cells in _interval_tables(args, table):
                out.write("\n" + render(cells, fmt, bold_best=False, caption=caption))
            return 0
        if len(base) > 1:
            values, markers = _marked(args, table)
            cells = values.map(lambda v: "" if pd.isna(v) else f"{v:.4f}") + (
                " " + markers).where(markers != "", "")
            cells.index.name = None
            out.write(render_text(cells.reset_index(names="run"), width=250) + "\n")
            for caption, frame in _interval_tables(args, table):
                frame.index.name = None
                out.write(f"\n{escape_text(caption, 'table')}:\n"
                          + render_text(frame.reset_index(names="run"), width=250) + "\n")
            out.write(escape_text(legend, "table") + "\n")
            return 0
        out.write(render_text(_long_view(args, table), na_rep="",
                              float_format=lambda v: f"{v:.4f}",
                              width=250 if extended(args) else 80) + "\n")
        if legend:
            out.write(escape_text(legend, "table") + "\n")
        return 0
    from irpref.report.records import write_json, write_parquet, write_tsv

    if args.ci in ("bootstrap", "bca"):  # the table says how to draw its resamples again
        table = table.assign(seed=args.seed)
    if fmt == "json":  # null for NaN, a missing count or an infinite value, as every irpref JSON
        write_json(table, out)
    elif fmt == "parquet":
        write_parquet(table, out)
    else:
        write_tsv(table, out, empty_nan=True)  # shortest round-trip text, as every irpref TSV
    return 0


LONG_HIDDEN = ["baseline", "test", "ci", "effect_low", "effect_high", "es_anova_low",
               "es_anova_high", "statistic", "family", "family_size", "orientation"]
"""Columns of the extended table the one-baseline terminal view leaves to tsv/json."""


def _long_view(args: argparse.Namespace, table: pd.DataFrame) -> pd.DataFrame:
    """The one-baseline terminal table: W/L/T in one column, p-values with 3 digits."""
    shown = table.copy()
    if not baselines(args):
        return shown
    shown["W/L/T"] = [
        "" if pd.isna(w) else f"{w}/{lo}/{t}"
        for w, lo, t in zip(shown["wins"], shown["losses"], shown["ties"])]
    shown = shown.drop(columns=["wins", "losses", "ties", "significant"])
    shown = shown.drop(columns=[c for c in LONG_HIDDEN if c in shown])
    shown["paired"] = ["" if pd.isna(v) else str(v) for v in shown["paired"]]
    for col in ("p", "p_adjusted"):
        shown[col] = ["" if np.isnan(v) else f"{v:.3g}" for v in shown[col]]
    return shown
