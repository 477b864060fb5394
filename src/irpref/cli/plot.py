"""``irpref plot KIND QRELS RUN... -o FILE.png|svg|pdf``: one figure, format by extension.

KIND is one of :data:`KINDS` (the functions of :mod:`irpref.report.plots`):
``differences`` (sorted per-query differences to ``--baseline``),
``distributions`` (per-query values per run), ``preferences`` (mean preference
heatmap in system order), ``search-lengths`` (per-item search lengths; with
``--run R`` the per-item change of R against ``--baseline``), ``ties`` (docid
vs expected means), ``discriminative`` (share of run pairs separated per
measure and test), ``degrade`` / ``subsample`` (meta-evaluation curves with one
standard deviation shaded).
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
    as_usage,
    checked,
    load_judged_file,
    once,
    require_matplotlib,
    settings_from_args,
)
from irpref.errors import UsageError

KINDS = ("differences", "distributions", "preferences", "search-lengths", "ties",
         "discriminative", "degrade", "subsample")
EXTENSIONS = (".png", ".svg", ".pdf")
DEFAULTS = {"differences": ["AP"], "distributions": ["AP"], "preferences": ["sgnLP"],
            "ties": ["AP", "nDCG@10", "RR"], "discriminative": ["AP", "nDCG@10", "RR", "sgnLP"],
            "degrade": ["RR", "sgnLP"], "subsample": ["RR", "sgnLP"]}
ONE_MEASURE = ("differences", "distributions", "preferences")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", metavar="KIND", choices=KINDS,
                        help=f"the plot: {', '.join(KINDS)}")
    add_inputs(parser)
    parser.add_argument("-m", "--measure", dest="measures", nargs="+", action="extend",
                        metavar="MEASURE",
                        help="measure(s) or preference(s); one for differences, distributions "
                             "and preferences (defaults per kind, e.g. AP, sgnLP)")
    add_rel(parser)
    add_missing(parser)
    parser.add_argument("--baseline", **once(), metavar="RUN", default=None,
                        help="baseline run for differences and search-length change "
                             "(default: the first run)")
    parser.add_argument("--run", **once(), metavar="RUN", default=None,
                        help="search-lengths: plot the per-item change of RUN vs the baseline")
    parser.add_argument("--test", dest="tests", nargs="+", action="extend",
                        choices=("paired", "t", "sign", "wilcoxon"), metavar="TEST",
                        help="discriminative: tests (default paired sign)")
    parser.add_argument("--alpha", **checked(params.check_alpha), default=0.05,
                        help="discriminative: significance level (default 0.05)")
    parser.add_argument("--samples", **checked(params.check_positive_int), default=5,
                        metavar="N", help="degrade/subsample: samples per point (default 5)")
    parser.add_argument("--seed", **checked(params.check_seed), default=0, metavar="S",
                        help="degrade/subsample: seed (default 0)")
    parser.add_argument("-o", "--output", **once(), required=True, metavar="FILE",
                        help="FILE.png, FILE.svg or FILE.pdf")


def _check(args: argparse.Namespace) -> Path:
    out = Path(args.output)
    if out.suffix.lower() not in EXTENSIONS:
        raise UsageError(f"-o {args.output}: the plot is written as .png, .svg or .pdf, "
                         f"not {out.suffix or 'no extension'}")
    if not out.parent.is_dir():
        raise UsageError(f"-o {args.output}: directory {out.parent} does not exist")
    from irpref.judging.store import is_judged_file

    if not args.runs and not is_judged_file(args.qrels):
        raise UsageError("no RUN file given (give QRELS RUN..., or a file saved by irpref "
                         "judge)")
    measures = args.measures or DEFAULTS.get(args.kind, [])
    if args.kind in ONE_MEASURE and len(measures) != 1:
        raise UsageError(f"{args.kind} plots one measure; got {len(measures)}: "
                         + " ".join(measures))
    if args.run and args.kind != "search-lengths":
        raise UsageError("--run is for search-lengths only")
    args.measures = measures
    return out


def _resolve(name: str | None, names: list[str], given: list[str], what: str) -> str:
    """A run by its name or its file (default: the first run)."""
    if name is None:
        return names[0]
    if name in names:
        return name
    if name in given and len(given) == len(names):
        return names[given.index(name)]
    raise UsageError(f"{what} {name!r} is not one of the runs: {', '.join(names)}")


def figure(args: argparse.Namespace):
    """The requested figure (a matplotlib Figure with ``irpref_data``)."""
    from irpref.evaluate import judge_inputs
    from irpref.judging.store import is_judged_file

    settings = settings_from_args(args).replace(ties="docid", depth=None, corpus_size=None)
    saved = is_judged_file(args.qrels)
    if saved:  # saved by irpref judge (no RUN after it)
        judged = load_judged_file(args, settings)
    else:
        judged = judge_inputs(args.qrels, args.runs, settings)
    return FIGURES[args.kind](args, judged, saved)


def _runs(args: argparse.Namespace, judged) -> tuple[list[str], list[str]]:
    """(the run names, the run files given): a run is named by either."""
    return [str(r) for r in judged.run_names], [str(r) for r in args.runs]


def _per_query(args: argparse.Namespace, judged, saved: bool):
    """differences (to --baseline) or distributions of one measure's per-query values."""
    from irpref.evaluate import evaluate
    from irpref.measures.names import canonical_name
    from irpref.report import plots

    settings = judged.settings.replace(missing=args.missing,
                                       judged_only=bool(getattr(args, "judged_only", False)))
    measure = as_usage(lambda: canonical_name(args.measures[0],
                                              judged_only=settings.judged_only))
    results = evaluate(None, None, [measure], settings=settings, judged=judged)
    if args.kind == "distributions":
        return plots.distributions(results, measure)
    return plots.differences(results, _resolve(args.baseline, *_runs(args, judged),
                                               "--baseline"), measure)


def _preferences(args: argparse.Namespace, judged, saved: bool):
    from irpref.compare import compare
    from irpref.preferences import parse_preferences
    from irpref.report import plots

    settings = judged.settings.replace(missing=args.missing,
                                       judged_only=bool(getattr(args, "judged_only", False)))
    as_usage(lambda: parse_preferences(args.measures, judged_only=settings.judged_only))
    return plots.preference_heatmap(compare(None, None, args.measures, settings=settings,
                                            judged=judged), args.measures[0])


def _search_lengths(args: argparse.Namespace, judged, saved: bool):
    """Per-item search lengths, or with --run the change of that run against --baseline."""
    from irpref.asl import search_lengths
    from irpref.report import plots

    table = search_lengths(judged=judged)
    if args.run is None:
        return plots.search_length_distributions(table)
    names, given = _runs(args, judged)
    run = _resolve(args.run, names, given, "--run")
    base = _resolve(args.baseline, names, given, "--baseline")
    if run == base:
        raise UsageError(f"--run {args.run!r} is the baseline: pick another run")
    return plots.search_length_change(table, run, base)


def _ties(args: argparse.Namespace, judged, saved: bool):
    """Means under docid tie-breaking against their expected values."""
    from irpref.evaluate import judge_inputs
    from irpref.measures import parse_measures
    from irpref.report import plots

    as_usage(lambda: parse_measures(args.measures))
    if saved:
        raise UsageError("the ties plot judges the runs again with tied scores averaged: "
                         "give QRELS RUN..., not a saved judged file")
    expected = judge_inputs(args.qrels, args.runs, judged.settings.replace(ties="expected"))
    return plots.tie_effects(plots.tie_data(None, None, args.measures, rel=args.rel,
                                            judged={"docid": judged, "expected": expected},
                                            missing=args.missing))


def _discriminative(args: argparse.Namespace, judged, saved: bool):
    from irpref.cli.significance import measure_tables
    from irpref.report import plots

    tables = measure_tables(args, judged.settings.replace(missing=args.missing))
    return plots.discriminative_bars(plots.discriminative_data(
        tables, tests=args.tests or ["paired", "sign"], alpha=args.alpha, seed=args.seed))


def _meta(args: argparse.Namespace, judged, saved: bool):
    """degrade / subsample curves (subsample sizes above the queries with a relevant
    item are dropped)."""
    from irpref.meta.degradation import degrade
    from irpref.meta.pairwise import check_measures
    from irpref.meta.subsampling import subsample
    from irpref.report import plots

    measures = args.measures
    as_usage(lambda: check_measures(measures))
    if args.kind == "degrade":
        return plots.meta_curves(degrade(measures=measures, samples=args.samples,
                                         seed=args.seed, judged=judged))
    n = judged.n_queries
    sizes = sorted({max(1, round(f * n)) for f in (0.1, 0.25, 0.5, 0.75, 0.9)})
    while True:
        try:
            return plots.meta_curves(subsample(measures=measures, sizes=sizes,
                                               samples=args.samples, seed=args.seed,
                                               judged=judged))
        except UsageError:
            if len(sizes) == 1:
                raise
            sizes = sizes[:-1]


FIGURES = {"differences": _per_query, "distributions": _per_query,
           "preferences": _preferences, "search-lengths": _search_lengths, "ties": _ties,
           "discriminative": _discriminative, "degrade": _meta, "subsample": _meta}
"""KIND -> the function drawing it from (args, judged rankings, saved)."""


def run(args: argparse.Namespace) -> int:
    out = _check(args)
    require_matplotlib("plot")
    from irpref.report import plots

    fig = figure(args)
    tmp = out.with_name(f".{out.name}.tmp{out.suffix}")
    try:
        plots.save(fig, tmp)
        tmp.replace(out)
    finally:
        if tmp.exists():
            tmp.unlink()
    if not getattr(args, "quiet", False):
        print(f"wrote {out}", file=sys.stderr)
    return 0
