"""``irpref meta SUBCOMMAND``: meta-evaluation experiments (ties, agreement,
label degradation and query subsampling with discriminative power, suffix
agreement, locality of δRR_i, disaggregated Δμ_i, offline interleaving, ASL
reordering), tie probabilities of random rankings (closed form beside Monte
Carlo) and the deterministic vs stochastic worst case.

Every subcommand prints one tidy table: ``tsv`` (default; header row, values
at full double precision), ``json`` (records, NaN as null) or ``table``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import TextIO

import numpy as np
import pandas as pd

from irpref.cli.common import checked
from irpref.errors import UsageError
from irpref.params import check_rel
from irpref.report.tables import FORMATS, PAPER_FORMATS
from irpref.report.tables import write_frame as write_any

# subcommand -> (function name in this module, one-line help)
_SUB = {
    "ties": ("_run_ties", "percent of (run pair, query) comparisons tied, per measure"),
    "agreement": ("_run_agreement", "sign agreement, Pearson r and Kendall tau between measures"),
    "degrade": ("_run_degrade", "ties, agreement and tau as relevance labels are removed"),
    "subsample": ("_run_subsample", "tau of orderings on k sampled queries vs all queries"),
    "suffix-agreement": ("_run_suffix", "lexiprecision Table 1: suffix p_2:m predicts dRR_1"),
    "locality": ("_run_locality", "lexiprecision Fig. 7: Pearson r / regressions of dRR_i"),
    "disaggregate": ("_run_disaggregate", "RPP Fig. 2, 4a: Delta mu_i per recall level, ECDF"),
    "interleaving": ("_run_interleaving",
                     "RPP Fig. 5: offline interleaving (simulated users) vs measures"),
    "asl-reorder": ("_run_asl_reorder",
                    "ASL Table 2: MAP -> ASL reordering (tau, dValue, dSort); --share"),
    "recall-levels": ("_run_recall_levels",
                      "lexiprecision Fig. 5, 6, 3: ties of dRR_i per level, ECDF of i*, "
                      "Pr(tie | p_1)"),
    "worst-case": ("_run_worst_case", "lexirecall Fig. 14: deterministic vs stochastic worst case"),
    "worst-case-agreement": ("_run_worst_case_agreement",
                             "lexirecall Table 2: agreement with the worst-off user"),
    "tie-probability": ("_run_tie_probability", "tie probabilities of random rankings"),
    "rr-given-p1": ("_run_rr_given_p1",
                    "lexiprecision Fig. 2: Pr(RR tie | p_1) of random rankings"),
}


def _add_format(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=FORMATS, default="tsv",
                   help="output format (default tsv: full precision)")


def _m_arg(text: str):
    """``10`` or ``5:50`` (m ~ U(5, 50))."""
    try:
        if ":" in text:
            a, b = (int(x) for x in text.split(":"))
            if a < 1 or b < a:
                raise ValueError
            return (a, b)
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--m {text}: expected a positive integer or a range a:b with 1 <= a <= b"
        ) from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"--m {text}: m must be >= 1")
    return v


def _positive_int(name: str):
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} {text}: expected an integer") from None
        if v < 1:
            raise argparse.ArgumentTypeError(f"{name} {text}: must be >= 1")
        return v

    return parse


def _m_range(text: str) -> tuple[int, int]:
    parts = text.split(":")
    try:
        lo, hi = (int(parts[0]), int(parts[-1])) if len(parts) <= 2 else (0, -1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--m {text}: expected an integer or a:b") from None
    if lo < 1 or hi < lo:
        raise argparse.ArgumentTypeError(f"--m {text}: expected 1 <= a <= b")
    return lo, hi


def _fractions(text: str) -> list[float]:
    try:
        out = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--fractions {text}: expected numbers a,b,...") from None
    if not out or any(not 0 < f < 1 for f in out):
        raise argparse.ArgumentTypeError(f"--fractions {text}: every fraction must be in (0, 1)")
    return out


def _sizes_named(option: str):
    def parse(text: str) -> list[int]:
        try:
            out = [int(x) for x in text.split(",") if x.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{option} {text}: expected integers a,b,...") from None
        if not out or any(k < 1 for k in out):
            raise argparse.ArgumentTypeError(f"{option} {text}: every value must be >= 1")
        return out

    return parse


def _sizes(text: str) -> list[int]:
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--sizes {text}: expected integers a,b,...") from None
    if not out or any(k < 1 for k in out):
        raise argparse.ArgumentTypeError(f"--sizes {text}: every size must be >= 1")
    return out


def _real(p: argparse.ArgumentParser, help: str, *, measures: bool = True,
          aggregate: bool = False, subtopics: bool = False) -> None:
    from irpref.cli.common import add_inputs

    add_inputs(p)
    if measures:
        p.add_argument("-m", "--measure", dest="measures", nargs="+", action="extend",
                       required=True, metavar="MEASURE",
                       help="metrics (AP, RR, nDCG@10, ...) and preferences (sgnLP, rrLP, "
                       "sgnLR, RPP, ...), any mix")
    p.add_argument("--rel", **checked(check_rel), default=1, metavar="N",
                   help="grade >= N is relevant (default 1; DL 2019 uses 2)")
    if aggregate:
        p.add_argument("--aggregate", choices=("winrate", "mc4", "borda"), default="winrate",
                       help="how preferences order the systems (metrics: mean; default winrate)")
    if subtopics:
        p.add_argument("--subtopics", metavar="FILE", default=None,
                       help="ndeval-format subtopic qrels (topic subtopic docid grade) for "
                       "MAP-IA, ERR-IA@k, S-recall@k, alpha-nDCG@k and ST-RPP; QRELS may be "
                       "the same file (then collapsed: max grade over subtopics)")
    _add_format(p)
    p.set_defaults(meta_parser=p)


def _seeded(p: argparse.ArgumentParser, samples: int) -> None:
    p.add_argument("--samples", type=_positive_int("--samples"), default=samples,
                   help=f"random samples (default {samples})")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="meta_command", metavar="EXPERIMENT")
    sub.required = True
    for name in ("ties", "agreement", "degrade", "subsample", "suffix-agreement",
                 "recall-levels", "locality", "disaggregate", "interleaving", "asl-reorder"):
        p = sub.add_parser(name, help=_SUB[name][1], description=_SUB[name][1])
        _real(p, _SUB[name][1],
              measures=name not in ("suffix-agreement", "recall-levels", "locality",
                                    "disaggregate", "asl-reorder"),
              aggregate=name in ("agreement", "degrade", "subsample"),
              subtopics=name in ("ties", "agreement", "degrade", "subsample"))
        if name == "degrade":
            p.add_argument("--fractions", type=_fractions, default=[0.1, 0.3, 0.5, 0.7, 0.9],
                           help="fractions of each query's relevant labels to remove, in (0, 1) "
                           "(default 0.1,0.3,0.5,0.7,0.9)")
            p.add_argument("--method", choices=("uniform", "frequency"), default="uniform",
                           help="remove uniformly, or weighted by how many runs retrieve the item")
            p.add_argument("--reference", default=None, metavar="MEASURE",
                           help="agreement and tau with this measure on complete labels "
                           "(default: each measure's own complete-label values)")
            _seeded(p, 10)
        if name == "subsample":
            p.add_argument("--sizes", type=_sizes, default=[5, 10, 20, 30],
                           help="numbers of queries to sample (default 5,10,20,30)")
            _seeded(p, 50)
        if name == "agreement":
            p.add_argument("--conditional", action="store_true",
                           help="instead: lexirecall Fig. 8, for every ordered pair (a, b) "
                           "the share of the comparisons b does not tie where a prefers the "
                           "same run: measure_a, measure_b, comparisons, agreement")
        if name == "recall-levels":
            p.add_argument("--levels", type=_positive_int("--levels"), default=20,
                           help="ties of dRR_1..dRR_N (default 20)")
            what = p.add_mutually_exclusive_group()
            what.add_argument("--needed", action="store_true",
                              help="instead: ECDF of i*, the first level where two rankings "
                              "differ (Fig. 6): level, fraction")
            what.add_argument("--given-p1", action="store_true",
                              help="instead: empirical Pr(p'_1 = p_1 | p_1) (Fig. 3): "
                              "p1, comparisons, probability")
        if name == "locality":
            p.add_argument("--levels", type=_positive_int("--levels"), default=8,
                           help="Pearson matrix of dRR_1..dRR_N (default 8)")
            p.add_argument("--regression", action="store_true",
                           help="instead: regress dRR_i (i = 1..4) on dRR_i+1..i+k")
            p.add_argument("--predictors", type=_positive_int("--predictors"), default=4,
                           help="k for --regression (default 4)")
        if name == "asl-reorder":
            p.add_argument("--share", action="store_true",
                           help="instead: per run, MAP's effective share of the top "
                           "(Appendix A.1)")
            p.add_argument("--margin", type=float, default=0.10,
                           help="relative margin of 'better' for dSort (default 0.10)")
            p.add_argument("--alpha", type=float, default=0.05,
                           help="t-test level of 'better' for dSort (default 0.05)")
        if name == "interleaving":
            p.add_argument("--model", dest="models", nargs="+", choices=("uniform", "dcg"),
                           default=None, help="browsing models (default: uniform dcg)")
            p.add_argument("--depth", type=_positive_int("--depth"), default=100,
                           help="interleave the top N of each ranking (default 100)")
            _seeded(p, 10)
        if name == "disaggregate":
            p.add_argument("--discounts", nargs="+", default=None, metavar="D",
                           help="RBP(p=...), DCG, nDCG, AP, RR, sgn (default all, RBP p=0.5)")
            p.add_argument("--levels", type=_positive_int("--levels"), default=20,
                           help="recall levels 1..N of the per-level table (default 20)")
            p.add_argument("--ecdf", action="store_true",
                           help="instead: the ECDF of Delta mu_i over all levels")
            p.add_argument("--points", type=_positive_int("--points"), default=201,
                           help="ECDF points (default 201)")
        if name in ("degrade", "subsample"):
            p.add_argument("--power", action="store_true",
                           help="add discriminative_power (percent of run pairs significant, "
                           "Holm over pairs) and its sd over samples")
            p.add_argument("--alpha", type=float, default=0.05,
                           help="significance level for --power (default 0.05)")
            p.add_argument("--test", choices=("paired", "t", "sign", "wilcoxon"),
                           default="paired", help="test for --power (default paired: t for "
                           "metrics and real preferences, sign test for sign preferences)")

    p = sub.add_parser("worst-case", help=_SUB["worst-case"][1],
                       description="Worst-off-user performance of an optimal deterministic "
                       "ranking and of the uniform optimal stochastic ranker (lexirecall "
                       "section 7.2.4, Fig. 14), exact.")
    p.add_argument("-m", "--measure", dest="measures", nargs="+", action="extend",
                   default=None, metavar="METRIC", help="RR, AP, nDCG, RBP(p=...) (default RR)")
    p.add_argument("--m", type=_m_range, default=(1, 25), dest="m_range", metavar="A:B",
                   help="numbers of relevant items, a range a:b or one integer (default 1:25)")
    _add_format(p)
    p.set_defaults(meta_parser=p)

    p = sub.add_parser("worst-case-agreement", help=_SUB["worst-case-agreement"][1],
                       description="Lexirecall Table 2 (section 4.3): over K pairs of random "
                       "complete rankings of n items with m relevant, how often a metric orders "
                       "them as the worst-off user does (p_m < p'_m); a metric tie disagrees. "
                       "'random' is a fair coin.")
    p.add_argument("-m", "--measure", dest="measures", nargs="+", action="extend",
                   required=True, metavar="MEASURE",
                   help="TSE, R@k, Rprec, AP, nDCG, RR, sgnLR, random")
    p.add_argument("--n", type=_positive_int("--n"), required=True, help="items ranked")
    p.add_argument("--m", type=_m_arg, default=(5, 50), dest="m_rel", metavar="M",
                   help="relevant items: an integer, or a:b for m ~ U(a, b) (default 5:50)")
    _seeded(p, 10_000)
    _add_format(p)
    p.set_defaults(meta_parser=p)

    p = sub.add_parser("rr-given-p1", help=_SUB["rr-given-p1"][1],
                       description="Pr(p'_1 = p_1 | p_1) = C(n - p_1, m - 1) / C(n, m): the chance "
                       "that a uniformly random ranking ties RR with a ranking whose first "
                       "relevant item is at p_1 (lexiprecision section 2, Fig. 2), in closed form "
                       "and, with --simulate K, by Monte Carlo.")
    p.add_argument("--n", type=_positive_int("--n"), required=True, help="items ranked")
    p.add_argument("--m", type=_positive_int("--m"), required=True, dest="m_rel", metavar="M",
                   help="relevant items")
    p.add_argument("--p1", type=_sizes_named("--p1"), required=True, metavar="P,...",
                   help="positions of the first relevant item, e.g. 1,2,5,10")
    p.add_argument("--simulate", type=_positive_int("--simulate"), default=None, metavar="K",
                   help="also estimate by K random rankings")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    _add_format(p)
    p.set_defaults(meta_parser=p)

    p = sub.add_parser(
        "tie-probability",
        help=_SUB["tie-probability"][1],
        description="Pr(tie) of two uniformly random rankings of n items with m relevant, "
        "in closed form (lexirecall Appendix D, lexiprecision section 2) and, with "
        "--simulate K, by Monte Carlo over K ranking pairs (with its standard error).",
    )
    p.add_argument("-m", "--measure", dest="measures", nargs="+", action="extend",
                   required=True, metavar="MEASURE",
                   help="TSE, R@k, Rprec, AP, sgnLR, sgnLP, RR")
    p.add_argument("--n", type=_positive_int("--n"), required=True, help="items ranked")
    p.add_argument("--m", type=_m_arg, required=True, dest="m_rel", metavar="M",
                   help="relevant items: an integer, or a:b for m ~ U(a, b)")
    p.add_argument("--depth", type=_positive_int("--depth"), default=None,
                   help="retrieval depth ñ (pessimistic imputation below it; default n)")
    p.add_argument("--simulate", type=_positive_int("--simulate"), default=None, metavar="K",
                   help="also estimate by K random ranking pairs")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    _add_format(p)
    p.set_defaults(meta_parser=p)
    from irpref.cli.main import _add_global

    for experiment in sub.choices.values():  # --quiet/--debug after the experiment too
        _add_global(experiment)


def run(args: argparse.Namespace) -> int:
    fn = globals()[_SUB[args.meta_command][0]]
    try:
        frame = fn(args)
    except UsageError as exc:
        args.meta_parser.error(str(exc))  # usage line, exit 2
    write_frame(frame, args.format, sys.stdout)
    return 0


def _judged(args):
    """Judge the runs once; with ``--subtopics``, read them once (``args.sub``)
    and use them collapsed as the qrels if QRELS names the same file."""
    from irpref.evaluate import judge_inputs
    from irpref.measures.diversity import use_subtopics
    from irpref.meta.experiments import check_measures

    subtopics = getattr(args, "subtopics", None)
    if getattr(args, "measures", None) is not None:
        check_measures(args.measures, subtopics=subtopics is not None)
    if getattr(args, "reference", None) is not None:
        check_measures([args.reference], subtopics=subtopics is not None)
    qrels, args.sub = use_subtopics(args.qrels, subtopics)
    return judge_inputs(qrels, args.runs, rel=args.rel, use_tag=args.tag_names)


def _run_ties(args):
    from irpref.meta.experiments import tie_rates

    judged = _judged(args)
    return tie_rates(measures=args.measures, judged=judged, subtopics=args.sub)


def _run_agreement(args):
    from irpref.meta.experiments import agreement, conditional_agreement

    judged = _judged(args)
    if args.conditional:
        return conditional_agreement(measures=args.measures, judged=judged, subtopics=args.sub)
    return agreement(measures=args.measures, aggregate=args.aggregate, judged=judged,
                     subtopics=args.sub)


def _run_degrade(args):
    from irpref.meta.experiments import degrade

    judged = _judged(args)
    return degrade(measures=args.measures, fractions=args.fractions, samples=args.samples,
                   method=args.method, seed=args.seed, aggregate=args.aggregate,
                   reference=args.reference, judged=judged, power=args.power,
                   alpha=args.alpha, test=args.test, subtopics=args.sub)


def _run_subsample(args):
    from irpref.meta.experiments import subsample

    judged = _judged(args)
    return subsample(measures=args.measures, sizes=args.sizes, samples=args.samples,
                     seed=args.seed, aggregate=args.aggregate, judged=judged,
                     power=args.power, alpha=args.alpha, test=args.test, subtopics=args.sub)


def _run_suffix(args):
    from irpref.meta.experiments import suffix_agreement

    return suffix_agreement(judged=_judged(args))


def _run_recall_levels(args):
    from irpref.meta.experiments import recall_level_needed, recall_level_ties, tie_given_p1

    if args.needed:
        return recall_level_needed(judged=_judged(args))
    if args.given_p1:
        return tie_given_p1(judged=_judged(args))
    return recall_level_ties(levels=args.levels, judged=_judged(args))


def _run_locality(args):
    from irpref.meta.experiments import recall_level_correlation, recall_level_regression

    if args.regression:
        return recall_level_regression(predictors=args.predictors, judged=_judged(args))
    return recall_level_correlation(levels=args.levels, judged=_judged(args))


def _run_disaggregate(args):
    from irpref.meta.disaggregate import (
        DISCOUNTS,
        _check_discounts,
        disaggregated_by_level,
        disaggregated_ecdf,
    )

    discounts = _check_discounts(args.discounts or DISCOUNTS)  # before reading files
    if args.ecdf:
        return disaggregated_ecdf(discounts=discounts, points=args.points, judged=_judged(args))
    return disaggregated_by_level(discounts=discounts, levels=args.levels, judged=_judged(args))


def _run_interleaving(args):
    from irpref.meta.interleaving import MODELS, interleaving_agreement

    return interleaving_agreement(measures=args.measures or ["RPP"],
                                  models=args.models or list(MODELS), depth=args.depth,
                                  samples=args.samples, seed=args.seed, judged=_judged(args))


def _run_asl_reorder(args):
    from irpref.meta.asl_reorder import asl_effective_share, asl_reordering

    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha {args.alpha}: must be in (0, 1)")
    if not args.margin >= 0:
        raise UsageError(f"--margin {args.margin}: must be >= 0")
    if args.share:
        return asl_effective_share(judged=_judged(args))
    return asl_reordering(margin=args.margin, alpha=args.alpha, judged=_judged(args))


def _run_worst_case(args):
    from irpref.meta.stochastic import worst_case_optimal

    lo, hi = args.m_range
    return worst_case_optimal(args.measures or ["RR"], range(lo, hi + 1))


def _run_worst_case_agreement(args):
    from irpref.meta.closed_forms import parse_tie_measure
    from irpref.meta.simulate import worst_case_agreement

    for name in args.measures:
        if name not in ("random", "nDCG"):
            parse_tie_measure(name)  # a UsageError names the measures it knows
    hi = args.m_rel if isinstance(args.m_rel, int) else args.m_rel[1]
    if hi > args.n:
        raise UsageError(f"--m {hi}: m must be <= n={args.n}")
    return worst_case_agreement(args.measures, args.n, args.m_rel, args.samples, seed=args.seed)


def _run_rr_given_p1(args):
    from irpref.meta.simulate import rr_tie_table

    if args.m_rel > args.n:
        raise UsageError(f"--m {args.m_rel}: m must be <= n={args.n}")
    if max(args.p1) > args.n:
        raise UsageError(f"--p1 {max(args.p1)}: p1 must be <= n={args.n}")
    return rr_tie_table(args.n, args.m_rel, args.p1, simulate=args.simulate, seed=args.seed)


def _run_tie_probability(args: argparse.Namespace) -> pd.DataFrame:
    from irpref.meta.simulate import tie_table

    n = args.n
    lo = args.m_rel if isinstance(args.m_rel, int) else args.m_rel[1]
    if lo > n:
        raise UsageError(f"--m {lo}: m must be <= n={n}")
    if args.depth is not None and args.depth > n:
        raise UsageError(f"--depth {args.depth}: depth must be <= n={n}")
    return tie_table(args.measures, n, args.m_rel, depth=args.depth,
                     simulate=args.simulate, seed=args.seed)


def _cell(v) -> str:
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, np.integer):
        return str(int(v))
    return str(v)


def write_frame(frame: pd.DataFrame, fmt: str, out: TextIO) -> None:
    """``frame`` as TSV (header, ``repr`` floats), JSON records (NaN -> null) or a table."""
    if fmt in PAPER_FORMATS:
        write_any(frame, fmt, out)
    elif fmt == "tsv":
        out.write("\t".join(frame.columns) + "\n")
        for row in frame.itertuples(index=False):
            out.write("\t".join(_cell(v) for v in row) + "\n")
    elif fmt == "json":
        recs = []
        for rec in frame.to_dict("records"):
            recs.append({
                k: (None if isinstance(v, float) and math.isnan(v)
                    else v.item() if isinstance(v, np.generic) else v)
                for k, v in rec.items()
            })
        json.dump(recs, out, indent=1)
        out.write("\n")
    else:
        out.write(frame.to_string(index=False, float_format=lambda x: f"{x:.4f}") + "\n")
