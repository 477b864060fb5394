"""``irpref significance QRELS RUN... -m MEASURE... [--test ...] [--baseline RUN ...]
[--family F] [--ci t|bootstrap|bca|none] [--compact] [--summary]``

Tests every pair of runs under each measure: metrics (``evaluate``) are
compared by their per-query differences, preferences (``compare``) by their
per-query values. Prints, per run pair, the raw and adjusted p-values,
effect sizes (``effect``, ``es_anova``) and an interval of the mean
difference; with ``--summary``, the discriminative power of each measure and
test (percentage of pairs with adjusted p < alpha). ``--baseline RUN``
(repeatable, or a comma-separated list) tests each run against each baseline
only (``mean`` = run - baseline); ``--family`` picks the comparisons one
correction runs over. ``significant`` is p_adjusted < alpha and ``verdict``
says whether run_a is better or worse by the measure's orientation (its
record: higher, lower or no better at all). ``--compact`` (implied by
``--baseline`` for the terminal table) keeps the columns a reader needs.
"""

from __future__ import annotations

import argparse
from typing import TextIO

import numpy as np
import pandas as pd

from irpref import params
from irpref.cli import human_qrels
from irpref.cli.baseline_view import FAMILY_TEXT, add_family_options, baselines, run_list
from irpref.cli.common import (
    add_dask,
    add_format,
    add_inputs,
    add_judging,
    add_measures,
    add_missing,
    add_output,
    checked,
    judge_args,
    open_output,
    settings_from_args,
)
from irpref.errors import UsageError
from irpref.inference import DEFAULT_MEASURES, scored_tables, split_names
from irpref.meta.discriminative import discriminative_power
from irpref.params import Settings
from irpref.report.formats import write_frame as write_any
from irpref.report.orientation import better_word, orientation_sign
from irpref.stats import (
    CI_METHODS,
    TESTS,
    as_pairwise,
    assign_families,
    significance,
)
from irpref.stats.bootstrap import DEFAULT_BOOTSTRAP
from irpref.stats.directions import DIRECTION_OF, orientation_signs, row_directions
from irpref.stats.families import check_family
from irpref.stats.table import check_ci, check_correction


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_inputs(parser)
    add_dask(parser)
    add_measures(parser, "metrics (AP, RR, nDCG@10, ...) and/or preferences (sgnLP, rrLP, "
                         f"RPP, ...) (default: {' '.join(DEFAULT_MEASURES)})")
    add_judging(parser)
    add_missing(parser)
    parser.add_argument("--test", dest="tests", nargs="+", action="extend", choices=TESTS,
                        metavar="TEST",
                        help="paired (t for metrics and real preferences, sign for sign "
                             "preferences; default), t, sign, wilcoxon, hsd (randomized Tukey "
                             "HSD), tukey (parametric Tukey HSD after the two-way ANOVA; "
                             "metrics only); several may be given")
    add_family_options(parser, correction=None,
                       correction_note="; default holm, none for hsd / tukey (family-wise "
                                       "already: another correction beside them is refused)")
    parser.add_argument("--alpha", **checked(params.check_alpha), default=0.05,
                        help="significance level for --summary (default 0.05)")
    parser.add_argument("--permutations", **checked(params.check_positive_int), default=10_000,
                        metavar="B",
                        help="permutations of the randomized HSD (default 10000)")
    parser.add_argument("--hsd-strict", action="store_true",
                        help="HSD: count only permuted maxima strictly above the observed value "
                             "(as the lexiprecision paper; anti-conservative for sign preferences)")
    parser.add_argument("--seed", **checked(params.check_seed), default=0, metavar="S",
                        help="seed of the HSD permutations and bootstrap (default 0; written "
                             "in the seed column of the rows that used it)")
    parser.add_argument("--ci", choices=CI_METHODS, default="t",
                        help="interval of mean in ci_low/ci_high: t (default), bootstrap "
                             "(seeded paired bootstrap, percentile), bca (bootstrap BCa), none")
    parser.add_argument("--bootstrap", **checked(params.check_nonnegative_int),
                        default=DEFAULT_BOOTSTRAP, metavar="N",
                        help=f"resamples of --ci bootstrap / bca (default {DEFAULT_BOOTSTRAP}: "
                             "Efron & Tibshirani 1993 advise ~1000 for percentile intervals "
                             "and more for BCa, which reads the far tails)")
    parser.add_argument("--confidence", **checked(params.check_probability), default=0.95,
                        help="level of the intervals (default 0.95)")
    parser.add_argument("--summary", action="store_true",
                        help="one row per (measure, test): discriminative power in percent")
    parser.add_argument("--anova", action="store_true",
                        help="one row per metric: the two-way ANOVA without replication "
                             "(systems x topics; V_E behind es_anova and the tukey test)")
    parser.add_argument("--baseline", metavar="RUN", action="append", type=run_list,
                        default=None,
                        help="test each run against RUN only (mean = run - RUN); repeat it "
                             "or give a comma-separated list for several baselines")
    parser.add_argument("--compact", action="store_true",
                        help="compact view: measure, test, runs, mean, W/L/T, p_adjusted and a "
                             "significant column (default for the table with --baseline)")
    add_format(parser, binary=True)
    add_output(parser)
    human_qrels.add_arguments(parser)  # --human-qrels H, --ppi-lambda


def measure_tables(args: argparse.Namespace, settings: Settings) -> list:
    """Tidy tables for the requested metrics (evaluate) and preferences (compare),
    from one judging of the inputs under ``settings`` (its ``missing`` rule holds
    for metrics and preferences alike: :func:`irpref.inference.scored_tables`)."""
    names = args.measures or list(DEFAULT_MEASURES)
    metrics, preferences = split_names(names, judged_only=settings.judged_only)
    judged = judge_args(args, settings, measures=metrics, preferences=preferences)
    return scored_tables(None, None, [*metrics, *preferences], settings, judged=judged)


def run(args: argparse.Namespace) -> int:
    if human_qrels.wanted(args):  # prediction-powered inference (cli/human_qrels.py)
        return write_results(args, human_qrels.significance_results(args, DEFAULT_MEASURES))
    tests = args.tests or ["paired"]
    seed = args.seed
    base = baselines(args)
    args.correction = check_correction(tests, args.correction)  # before any input is read
    check_family(args.family, args.correction, bool(base))
    ci = "none" if args.summary else args.ci
    check_ci(ci, args.bootstrap)
    tables = measure_tables(args, settings_from_args(args))
    if args.anova:
        with open_output(args.output) as out:
            write_any(anova_table(tables), args.format, out, digits=4)
        return 0
    if "tukey" in tests:
        _metrics_only(tables)
    options = dict(
        correction=args.correction, permutations=args.permutations, seed=seed,
        bootstrap=args.bootstrap, confidence=args.confidence, ci=ci,
        strict=args.hsd_strict, baseline=base or None, family=args.family,
    )
    if args.dask:
        from irpref.distributed import client_for, close
        from irpref.distributed import significance as dask_significance

        client = client_for(args.dask)
        try:
            results = dask_significance(tables, tests, client=client, **options)
        finally:
            close(client)  # and the LocalCluster that local:N started
        # one task per measure: families across measures are formed here
        results = assign_families(results, args.family, args.correction, bool(base))
    else:
        results = significance(tables, tests, **options)
    return write_results(args, results)


def write_results(args: argparse.Namespace, results: pd.DataFrame) -> int:
    """Write the tests' rows (or, with ``--summary``, the discriminative power)."""
    base = baselines(args)
    if args.summary:
        with open_output(args.output) as out:
            write_any(discriminative_power(results, args.alpha), args.format, out)
        return 0
    results = results.copy()
    results["significant"] = (results["p_adjusted"] < args.alpha).to_numpy()
    results["verdict"] = verdicts(results)
    compact = args.compact or (bool(base) and args.format != "tsv" and args.format != "json")
    frame = compact_view(results) if compact else results
    with open_output(args.output) as out:
        write_any(frame, args.format, out, digits=4, legend=legend(args, compact, results))
    return 0


def anova_table(tables) -> pd.DataFrame:
    """Per metric: SS, df, V_E, F and p of the two-way ANOVA without replication."""
    rows = []
    for table in tables:
        if not isinstance(table, pd.DataFrame):
            continue  # preferences have no per-run scores
        for pw in as_pairwise(table):
            a = pw.anova
            rows.append({
                "measure": pw.measure, "systems": a.n_systems, "topics": a.n_topics,
                "ss_systems": a.ss_systems, "ss_topics": a.ss_topics, "ss_error": a.ss_error,
                "df_systems": a.df_systems, "df_topics": a.df_topics, "df_error": a.df_error,
                "V_E": a.v_e, "F": a.f, "p": a.p,
            })
    if not rows:
        raise UsageError("--anova needs a metric (per-run scores), not only preferences")
    return pd.DataFrame(rows)


def _metrics_only(tables) -> None:
    """--test tukey: refuse preferences (they have no per-run scores) before any work."""
    for table in tables:
        if not isinstance(table, pd.DataFrame):
            names = ", ".join(map(str, table.values))
            raise UsageError(f"{names}: the parametric Tukey HSD (tukey) needs a metric "
                             "(per-run scores); use hsd for preferences")


def verdicts(results: pd.DataFrame) -> np.ndarray:
    """Per row: ``better`` / ``worse`` (run_a against run_b, by the measure's orientation),
    ``differs`` (significant, but the measure has no better or worse), ``n.s.``, or
    ``untested`` (no p-value: the two runs share no query the test can use).

    The direction is the one of the statistic the test used
    (:func:`irpref.stats.directions.row_directions`: the mean for t, hsd, tukey and
    ppi, wins - losses for the sign test, the signed ranks W+ - W- for Wilcoxon).
    """
    orient = orientation_signs(results["orientation"])
    direction = row_directions(results)
    significant = results["significant"].to_numpy(bool)
    out = np.where(direction > 0, "better", np.where(direction < 0, "worse", "n.s."))
    out = np.where(orient == 0, "differs", out)
    untested = np.isnan(results["p"].to_numpy(np.float64, na_value=np.nan))
    return np.where(significant, out, np.where(untested, "untested", "n.s.")).astype(object)


def compact_view(results: pd.DataFrame) -> pd.DataFrame:
    """measure, test, run_a, run_b, mean (a - b), W/L/T, p_adjusted, significant, verdict."""
    view = results[["measure", "test", "run_a", "run_b", "mean"]].copy()
    view["W/L/T"] = [f"{_count(w)}/{_count(lo)}/{t}" for w, lo, t in
                     zip(results["wins"], results["losses"], results["ties"])]
    view["p_adjusted"] = results["p_adjusted"]
    view["significant"] = results["significant"]
    view["verdict"] = results["verdict"]
    if "note" in results and results["note"].astype(bool).any():  # PPI: what a row can't claim
        view["note"] = results["note"]
    return view.rename(columns={"mean": "mean (a - b)"})


def _count(value) -> str:
    return "-" if pd.isna(value) else str(int(value))


def legend(args: argparse.Namespace, compact: bool, results: pd.DataFrame | None = None) -> str:
    """Lines under the table: sign conventions, orientation, family and decision rule."""
    base = baselines(args)
    if base:
        who = f"run_a - run_b (run_b = baseline {', '.join(base)})"
        scope = "runs x baselines"
    else:
        who = "run_a - run_b"
        scope = "run pairs"
    text = (f"mean = {who}: per-query difference for metrics, mean preference of run_a over "
            f"run_b for preferences (raw: > 0 means run_a scores higher or is preferred).")
    if results is not None and "orientation" in results:
        by = results.drop_duplicates("measure")
        text += (" better/worse (verdict, W/L) follow each measure's orientation: "
                 + "; ".join(f"{m}: {better_word(orientation_sign(o))}"
                             for m, o in zip(by["measure"], by["orientation"])) + ".")
    if results is not None and "test" in results:
        tests = [t for t in pd.unique(results["test"]) if t in DIRECTION_OF]
        text += (" A verdict's direction is its test's statistic: "
                 + "; ".join(f"{t}: {DIRECTION_OF[t]}" for t in tests) + ".")
    text += (f" significant: p_adjusted < {args.alpha:g} ({args.correction} correction over the "
             f"{scope} of {FAMILY_TEXT[args.family]}, per test; hsd and tukey are family-wise "
             "over all pairs).")
    if compact:
        text += " W/L/T: queries run_a wins/loses/ties."
    elif not args.summary and args.ci != "none":
        text += f" ci_low/ci_high: {args.ci} interval of mean at {args.confidence:g}."
    return text


def write_frame(frame: pd.DataFrame, fmt: str, out: TextIO) -> None:
    """A wide frame as an aligned table, TSV (full precision), JSON or a paper format."""
    write_any(frame, fmt, out)
