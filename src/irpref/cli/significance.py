"""``irpref significance QRELS RUN... -m MEASURE... [--test ...] [--baseline RUN] [--compact]
[--summary]``

Tests every pair of runs under each measure: metrics (``evaluate``) are
compared by their per-query differences, preferences (``compare``) by their
per-query values. Prints, per run pair, the raw and adjusted p-values and
effect sizes; with ``--summary``, the discriminative power of each measure
and test (percentage of pairs with adjusted p < alpha). ``--baseline RUN``
tests each run against RUN only (``mean`` = run - RUN, correction over those
comparisons); ``--compact`` (implied by ``--baseline`` for the terminal table)
keeps the columns a reader needs and adds ``significant`` (p_adjusted < alpha).
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

import numpy as np
import pandas as pd

from irpref import params
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
)
from irpref.errors import UsageError
from irpref.evaluate import evaluate
from irpref.meta.discriminative import discriminative_power
from irpref.report.tables import write_frame as write_any
from irpref.stats import CORRECTIONS, TESTS, significance

DEFAULT_MEASURES = ["AP", "nDCG@10", "RR"]


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
                             "HSD); several may be given")
    parser.add_argument("--correction", choices=CORRECTIONS, default="holm",
                        help="multiple-comparison correction over all run pairs "
                             "(default holm; hsd needs none)")
    parser.add_argument("--alpha", **checked(params.check_alpha), default=0.05,
                        help="significance level for --summary (default 0.05)")
    parser.add_argument("--permutations", **checked(params.check_positive_int), default=10_000,
                        metavar="B",
                        help="permutations of the randomized HSD (default 10000)")
    parser.add_argument("--hsd-strict", action="store_true",
                        help="HSD: count only permuted maxima strictly above the observed value "
                             "(as the lexiprecision paper; anti-conservative for sign preferences)")
    parser.add_argument("--seed", **checked(params.check_seed), default=None, metavar="S",
                        help="seed of the HSD permutations and bootstrap (default: random, "
                             "printed on stderr)")
    parser.add_argument("--bootstrap", **checked(params.check_nonnegative_int), default=1000,
                        metavar="N",
                        help="bootstrap resamples for the CI of the mean (0: none; default 1000)")
    parser.add_argument("--confidence", **checked(params.check_probability), default=0.95,
                        help="level of the bootstrap CI (default 0.95)")
    parser.add_argument("--summary", action="store_true",
                        help="one row per (measure, test): discriminative power in percent")
    parser.add_argument("--baseline", metavar="RUN", default=None,
                        help="test each run against RUN only (mean = run - RUN); the "
                             "correction is over those comparisons")
    parser.add_argument("--compact", action="store_true",
                        help="compact view: measure, test, runs, mean, W/L/T, p_adjusted and a "
                             "significant column (default for the table with --baseline)")
    add_format(parser)
    add_output(parser)


def measure_tables(args: argparse.Namespace) -> list[pd.DataFrame]:
    """Tidy tables for the requested metrics (evaluate) and preferences (compare)."""
    from irpref.measures import parse_measure

    measures = args.measures or DEFAULT_MEASURES
    metrics, preferences = [], []
    for m in measures:
        try:
            metrics.append(str(parse_measure(m)))
        except ValueError as metric_error:
            if not _is_preference(m):
                raise UsageError(str(metric_error)) from None
            preferences.append(m)
    judged = judge_args(args, measures=metrics, preferences=preferences)
    tables = []
    if metrics:
        tables.append(evaluate(None, None, metrics, missing=args.missing, judged=judged))
    if preferences:
        tables.append(_compare(args, judged, preferences))
    return tables


def _is_preference(name: str) -> bool:
    try:
        from irpref.preferences.registry import parse_preference
    except ImportError:
        return False
    try:
        parse_preference(name)
    except ValueError:
        return False
    return True


def _compare(args: argparse.Namespace, judged, preferences: list[str]):
    """Per-query preference matrices from the judged rankings shared with evaluate."""
    try:
        from irpref.compare import compare_matrices
    except ImportError:
        raise ValueError(f"preferences {', '.join(preferences)} need irpref.compare") from None
    return compare_matrices(None, None, preferences, rel=args.rel, judged=judged)


def run(args: argparse.Namespace) -> int:
    tests = args.tests or ["paired"]
    seed = args.seed
    tables = measure_tables(args)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
        if ("hsd" in tests or (args.bootstrap and not args.summary)) and not getattr(
            args, "quiet", False
        ):
            print(f"irpref: note: no --seed given; used --seed {seed}", file=sys.stderr)
    options = dict(
        correction=args.correction, permutations=args.permutations, seed=seed,
        bootstrap=0 if args.summary else args.bootstrap, confidence=args.confidence,
        strict=args.hsd_strict, baseline=args.baseline,
    )
    if args.dask:
        from irpref.distributed import client_for, close
        from irpref.distributed import significance as dask_significance

        client = client_for(args.dask)
        try:
            results = dask_significance(tables, tests, client=client, **options)
        finally:
            close(client)  # and the LocalCluster that local:N started
    else:
        results = significance(tables, tests, **options)
    if args.summary:
        with open_output(args.output) as out:
            write_any(discriminative_power(results, args.alpha), args.format, out)
        return 0
    results = results.copy()
    results["significant"] = (results["p_adjusted"] < args.alpha).to_numpy()
    compact = args.compact or (args.baseline is not None and args.format != "tsv"
                               and args.format != "json")
    frame = compact_view(results) if compact else results
    with open_output(args.output) as out:
        write_any(frame, args.format, out, digits=4, legend=legend(args, compact))
    return 0


def compact_view(results: pd.DataFrame) -> pd.DataFrame:
    """measure, test, run_a, run_b, mean (a - b), W/L/T, p_adjusted, significant."""
    view = results[["measure", "test", "run_a", "run_b", "mean"]].copy()
    view["W/L/T"] = [f"{w}/{lo}/{t}" for w, lo, t in
                     zip(results["wins"], results["losses"], results["ties"])]
    view["p_adjusted"] = results["p_adjusted"]
    view["significant"] = results["significant"]
    return view.rename(columns={"mean": "mean (a - b)"})


def legend(args: argparse.Namespace, compact: bool) -> str:
    """One line under the table: the sign convention of mean and the decision rule."""
    who = (f"run_a - run_b (run_b = baseline {args.baseline})" if args.baseline
           else "run_a - run_b")
    text = (f"mean = {who}: per-query difference for metrics, mean preference of run_a over "
            f"run_b for preferences; > 0 favours run_a. significant: p_adjusted < {args.alpha:g} "
            f"({args.correction} correction")
    text += " over the baseline comparisons)." if args.baseline else " over all run pairs)."
    if compact:
        text += " W/L/T: queries run_a wins/loses/ties."
    return text


def write_frame(frame: pd.DataFrame, fmt: str, out: TextIO) -> None:
    """A wide frame as an aligned table, TSV (full precision), JSON or a paper format."""
    write_any(frame, fmt, out)
