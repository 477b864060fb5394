"""The meta experiments as records: one :class:`Experiment` per ``irpref meta``
subcommand, declared once with its name, one-line help, options (each with the
rule that checks it, :mod:`irpref.params` where one exists), the Python
functions :mod:`irpref.meta` exports for it and the function that runs it.

Everything else is generated from :data:`EXPERIMENTS`: the subcommands and
their argument parsers (:mod:`irpref.cli.meta`), the lazy attribute table of
:mod:`irpref.meta` (which only spares ``import irpref.meta`` the cost of
loading every experiment module), and the README's list of experiments
(:func:`readme_list`, on the documentation's Meta-evaluation page;
``python -m irpref.meta.catalog docs/reference/meta-evaluation.md`` rewrites it).

An experiment on real runs (``reads_runs``) takes the inputs every command
takes (QRELS RUN... or a file saved by ``irpref judge``, ``--rel``,
``--depth``, ``--corpus-size``, ``--ties``, ``--missing``, ``--tag-names``,
``--format``, ``-o``); its ``run(options, judged, subtopics)`` gets the judged
collection. One that works on random rankings gets ``judged=None``.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import irpref.params as params
from irpref.errors import UsageError

__all__ = ["EXPERIMENTS", "Experiment", "Option", "exports", "readme_list"]


@dataclass(frozen=True)
class Option:
    """One command-line option of an experiment.

    ``kind``: ``value`` (one value, checked by ``check(text, flag)`` or
    restricted to ``choices``; refused when given twice), ``flag`` (on/off)
    or ``list`` (``nargs="+"``; every occurrence adds to the list)."""

    flags: tuple[str, ...]
    help: str
    kind: str = "value"
    check: Callable[[Any, str], Any] | None = None
    default: Any = None
    choices: tuple[str, ...] | None = None
    dest: str | None = None
    metavar: str | None = None
    required: bool = False
    group: str | None = None  # options of one group exclude each other


@dataclass(frozen=True)
class Experiment:
    """One ``irpref meta NAME`` experiment (see the module docstring)."""

    name: str
    help: str
    run: Callable[..., Any]  # (options, judged or None, subtopic qrels or None) -> DataFrame
    functions: tuple[tuple[str, tuple[str, ...]], ...]  # (module of irpref.meta, names)
    usage: str  # the README's example arguments
    readme: str  # the README's "what it tells you"
    options: tuple[Option, ...] = ()
    description: str | None = None
    reads_runs: bool = True
    measures: str = "required"  # -m/--measure: required, optional or none
    measure_help: str = ("metrics (AP, RR, nDCG@10, ...) and preferences (sgnLP, rrLP, "
                         "sgnLR, RPP, ...), any mix")
    measure_metavar: str = "MEASURE"
    subtopics: bool = False  # --subtopics FILE
    aggregate: bool = False  # --aggregate winrate|mc4|borda
    needs_full: bool = False  # needs every retrieved item: a compact saved file is refused
    why_full: str = ""
    check: Callable[[Any], None] | None = None  # option checks before any input is read


# ------------------------------------------------------------------ option rules
# Each rule has the form of irpref.params: (value, flag) -> value, UsageError
# ``--flag value: problem`` otherwise.


def _who(flag: str, value) -> str:
    return f"{flag} {value}" if flag.startswith("-") else f"{flag}={value}"


def check_fractions(value, flag: str = "--fractions") -> list[float]:
    """Comma-separated fractions, each in (0, 1)."""
    try:
        out = [float(x) for x in str(value).split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"{_who(flag, value)}: expected numbers a,b,...") from None
    if not out or any(not 0 < f < 1 for f in out):
        raise UsageError(f"{_who(flag, value)}: every fraction must be in (0, 1)")
    return out


def check_positive_ints(value, flag: str) -> list[int]:
    """Comma-separated integers, each >= 1."""
    try:
        out = [int(x) for x in str(value).split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"{_who(flag, value)}: expected integers a,b,...") from None
    if not out or any(k < 1 for k in out):
        raise UsageError(f"{_who(flag, value)}: every value must be >= 1")
    return out


def check_m(value, flag: str = "--m") -> int | tuple[int, int]:
    """``10`` or ``5:50`` (m ~ U(5, 50)), 1 <= a <= b."""
    text = str(value)
    try:
        if ":" in text:
            a, b = (int(x) for x in text.split(":"))
            if a < 1 or b < a:
                raise ValueError
            return (a, b)
        out = int(text)
    except ValueError:
        raise UsageError(f"{_who(flag, value)}: expected a positive integer or a range a:b "
                         "with 1 <= a <= b") from None
    if out < 1:
        raise UsageError(f"{_who(flag, value)}: must be >= 1")
    return out


def check_m_range(value, flag: str = "--m") -> tuple[int, int]:
    """``a:b`` or ``a`` (= ``a:a``), 1 <= a <= b."""
    m = check_m(value, flag)
    return (m, m) if isinstance(m, int) else m


def check_nonnegative(value, flag: str) -> float:
    """A number >= 0."""
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise UsageError(f"{_who(flag, value)}: must be a number") from None
    if not out >= 0:
        raise UsageError(f"{_who(flag, value)}: must be >= 0")
    return out


def _positive(value, flag: str) -> int:
    return params.check_positive_int(value, flag)


def _samples(default: int) -> Option:
    return Option(("--samples",), f"random samples (default {default})", check=_positive,
                  default=default)


SEED = Option(("--seed",), "random seed >= 0 (default 0)", check=params.check_seed, default=0)
POWER = (
    Option(("--power",), "add discriminative_power (percent of run pairs significant, Holm "
           "over pairs) and its sd over samples", kind="flag"),
    Option(("--alpha",), "significance level for --power, in (0, 1) (default 0.05)",
           check=params.check_alpha, default=0.05),
    Option(("--test",), "test for --power (default paired: t for metrics and real "
           "preferences, sign test for sign preferences)",
           choices=("paired", "t", "sign", "wilcoxon"), default="paired"),
)


# ------------------------------------------------------------------ runners
# Each imports its experiment module when run: `irpref meta --help` and
# `import irpref.meta` load no experiment (start-up time only, no circle).


def _run_ties(o, judged, sub):
    from irpref.meta.comparisons import tie_rates

    return tie_rates(measures=o.measures, judged=judged, subtopics=sub)


def _run_agreement(o, judged, sub):
    from irpref.meta.comparisons import agreement, conditional_agreement

    if o.conditional:
        return conditional_agreement(measures=o.measures, judged=judged, subtopics=sub)
    return agreement(measures=o.measures, aggregate=o.aggregate, judged=judged, subtopics=sub)


def _check_reference(o) -> None:
    from irpref.meta.pairwise import check_measures

    if o.reference is not None:
        check_measures([o.reference], subtopics=o.subtopics is not None)


def _run_degrade(o, judged, sub):
    from irpref.meta.degradation import degrade

    return degrade(measures=o.measures, fractions=o.fractions, samples=o.samples,
                   method=o.method, seed=o.seed, aggregate=o.aggregate, reference=o.reference,
                   judged=judged, power=o.power, alpha=o.alpha, test=o.test, subtopics=sub)


def _run_subsample(o, judged, sub):
    from irpref.meta.subsampling import subsample

    return subsample(measures=o.measures, sizes=o.sizes, samples=o.samples, seed=o.seed,
                     aggregate=o.aggregate, judged=judged, power=o.power, alpha=o.alpha,
                     test=o.test, subtopics=sub)


def _run_suffix(o, judged, sub):
    from irpref.meta.recall_levels import suffix_agreement

    return suffix_agreement(judged=judged)


def _run_recall_levels(o, judged, sub):
    from irpref.meta.recall_levels import recall_level_needed, recall_level_ties, tie_given_p1

    if o.needed:
        return recall_level_needed(judged=judged)
    if o.given_p1:
        return tie_given_p1(judged=judged)
    return recall_level_ties(levels=o.levels, judged=judged)


def _run_locality(o, judged, sub):
    from irpref.meta.recall_levels import recall_level_correlation, recall_level_regression

    if o.regression:
        return recall_level_regression(predictors=o.predictors, judged=judged)
    return recall_level_correlation(levels=o.levels, judged=judged)


def _discounts_option(o) -> None:
    from irpref.meta.disaggregate import DISCOUNTS, check_discounts

    o.discounts = check_discounts(o.discounts or DISCOUNTS)


def _run_disaggregate(o, judged, sub):
    from irpref.meta.disaggregate import disaggregated_by_level, disaggregated_ecdf

    if o.ecdf:
        return disaggregated_ecdf(discounts=o.discounts, points=o.points, judged=judged)
    return disaggregated_by_level(discounts=o.discounts, levels=o.levels, judged=judged)


def _run_interleaving(o, judged, sub):
    from irpref.meta.interleaving import MODELS, interleaving_agreement

    return interleaving_agreement(measures=o.measures or ["RPP"], models=o.models or list(MODELS),
                                  depth=o.depth or 100, samples=o.samples, seed=o.seed,
                                  judged=judged)


def _run_asl_reorder(o, judged, sub):
    from irpref.meta.asl_reorder import asl_effective_share, asl_reordering

    if o.share:
        return asl_effective_share(judged=judged)
    return asl_reordering(margin=o.margin, alpha=o.alpha, judged=judged)


def _run_worst_case(o, judged, sub):
    from irpref.meta.stochastic import worst_case_optimal

    lo, hi = o.m_range
    return worst_case_optimal(o.measures or ["RR"], range(lo, hi + 1))


def _m_high(m) -> int:
    return m if isinstance(m, int) else m[1]


def _run_worst_case_agreement(o, judged, sub):
    from irpref.meta.closed_forms import parse_tie_measure
    from irpref.meta.simulate import worst_case_agreement

    for name in o.measures:
        if name not in ("random", "nDCG"):
            parse_tie_measure(name)  # a UsageError names the measures it knows
    if _m_high(o.m_rel) > o.n:
        raise UsageError(f"--m {_m_high(o.m_rel)}: m must be <= n={o.n}")
    return worst_case_agreement(o.measures, o.n, o.m_rel, o.samples, seed=o.seed)


def _run_tie_probability(o, judged, sub):
    from irpref.meta.simulate import tie_table

    if _m_high(o.m_rel) > o.n:
        raise UsageError(f"--m {_m_high(o.m_rel)}: m must be <= n={o.n}")
    if o.depth is not None and o.depth > o.n:
        raise UsageError(f"--depth {o.depth}: depth must be <= n={o.n}")
    return tie_table(o.measures, o.n, o.m_rel, depth=o.depth, simulate=o.simulate, seed=o.seed)


def _run_rr_given_p1(o, judged, sub):
    from irpref.meta.simulate import rr_tie_table

    if o.m_rel > o.n:
        raise UsageError(f"--m {o.m_rel}: m must be <= n={o.n}")
    if max(o.p1) > o.n:
        raise UsageError(f"--p1 {max(o.p1)}: p1 must be <= n={o.n}")
    return rr_tie_table(o.n, o.m_rel, o.p1, simulate=o.simulate, seed=o.seed)


# ------------------------------------------------------------------ the records

_N = Option(("--n",), "items ranked", check=_positive, required=True)
_SIMULATE = Option(("--simulate",), "also estimate by K random rankings", check=_positive,
                   metavar="K")

EXPERIMENTS: tuple[Experiment, ...] = (
    Experiment(
        "ties", "percent of (run pair, query) comparisons tied, per measure", _run_ties,
        (("comparisons", ("tie_rates",)),),
        usage="QRELS RUN... -m RR sgnLP AP --rel 2",
        readme="how often each measure cannot tell two runs apart on a query; a measure "
        "that ties often orders systems on few queries.",
        subtopics=True,
    ),
    Experiment(
        "agreement", "sign agreement, Pearson r and Kendall tau between measures",
        _run_agreement, (("comparisons", ("agreement", "conditional_agreement")),),
        usage="QRELS RUN... -m RPP AP nDCG RR --aggregate mc4 [--conditional]",
        readme="per pair of measures, sign agreement and Pearson r of the per-query "
        "differences and Kendall's τ of the system orderings; whether a new measure says "
        "something the old ones do not. `--conditional`: lexirecall Fig. 8, the share of "
        "the comparisons measure b does not tie where measure a prefers the same run.",
        options=(Option(("--conditional",), "instead: lexirecall Fig. 8, for every ordered "
                        "pair (a, b) the share of the comparisons b does not tie where a "
                        "prefers the same run: measure_a, measure_b, comparisons, agreement",
                        kind="flag"),),
        subtopics=True, aggregate=True,
    ),
    Experiment(
        "degrade", "ties, agreement and tau as relevance labels are removed", _run_degrade,
        (("degradation", ("degrade", "degraded_grades")),),
        usage="QRELS RUN... -m RR rrLP sgnLP --fractions 0.1,0.5,0.9 --samples 10 "
        "--method uniform|frequency --seed 0 [--reference RR]",
        readme="ties, agreement with the complete-label comparisons and τ with the "
        "complete-label ordering as relevant labels are removed (uniformly or by pool "
        "frequency; runs are judged once, only grades change); how far you can trust a "
        "measure on a pool with missing judgments.",
        options=(
            Option(("--fractions",), "fractions of each query's relevant labels to remove, "
                   "in (0, 1) (default 0.1,0.3,0.5,0.7,0.9)", check=check_fractions,
                   default=[0.1, 0.3, 0.5, 0.7, 0.9]),
            Option(("--method",), "remove uniformly, or weighted by how many runs retrieve "
                   "the item", choices=("uniform", "frequency"), default="uniform"),
            Option(("--reference",), "agreement and tau with this measure on complete "
                   "labels (default: each measure's own complete-label values)",
                   metavar="MEASURE"),
            _samples(10), SEED, *POWER,
        ),
        subtopics=True, aggregate=True, check=_check_reference,
    ),
    Experiment(
        "subsample", "tau of orderings on k sampled queries vs all queries", _run_subsample,
        (("subsampling", ("subsample",)),),
        usage="QRELS RUN... -m RR sgnLP --sizes 5,10,20 --samples 50 --seed 0",
        readme="τ of the ordering on k sampled queries with the ordering on all; how many "
        "queries a measure needs for a stable ordering.",
        options=(
            Option(("--sizes",), "numbers of queries to sample (default 5,10,20,30)",
                   check=check_positive_ints, default=[5, 10, 20, 30]),
            _samples(50), SEED, *POWER,
        ),
        subtopics=True, aggregate=True,
    ),
    Experiment(
        "suffix-agreement", "lexiprecision Table 1: suffix p_2:m predicts dRR_1",
        _run_suffix, (("recall_levels", ("suffix_agreement",)),),
        usage="QRELS RUN... --rel 1",
        readme="lexiprecision Table 1, how often the rest of the ranking (p_2..p_m) "
        "predicts the sign of an RR difference; whether breaking RR's ties by the next "
        "relevant items is consistent with RR.",
        measures="none",
    ),
    Experiment(
        "recall-levels", "lexiprecision Fig. 5, 6, 3: ties of dRR_i per level, ECDF of i*, "
        "Pr(tie | p_1)", _run_recall_levels,
        (("recall_levels", ("recall_level_ties", "recall_level_needed", "tie_given_p1")),),
        usage="QRELS RUN... [--levels 20 | --needed | --given-p1]",
        readme="lexiprecision Fig. 5, 6, 3, ties of δRR_i per recall level, the ECDF of the "
        "first level where two rankings differ, Pr(tie | p_1); how deep lexiprecision must "
        "look to separate your runs.",
        options=(
            Option(("--levels",), "ties of dRR_1..dRR_N (default 20)", check=_positive,
                   default=20),
            Option(("--needed",), "instead: ECDF of i*, the first level where two rankings "
                   "differ (Fig. 6): level, fraction", kind="flag", group="what"),
            Option(("--given-p1",), "instead: empirical Pr(p'_1 = p_1 | p_1) (Fig. 3): p1, "
                   "comparisons, probability", kind="flag", group="what"),
        ),
        measures="none",
    ),
    Experiment(
        "locality", "lexiprecision Fig. 7: Pearson r / regressions of dRR_i", _run_locality,
        (("recall_levels", ("recall_level_correlation", "recall_level_regression")),),
        usage="QRELS RUN... [--levels 8] [--regression --predictors 4]",
        readme="lexiprecision Fig. 7, Pearson r between δRR_i and δRR_j and fits of δRR_i "
        "on δRR_{i+1..i+k}; whether the next recall level is a good stand-in for the first.",
        options=(
            Option(("--levels",), "Pearson matrix of dRR_1..dRR_N, N >= 2 (default 8)",
                   check=_positive, default=8),
            Option(("--regression",), "instead: regress dRR_i (i = 1..4) on dRR_i+1..i+k",
                   kind="flag"),
            Option(("--predictors",), "k for --regression (default 4)", check=_positive,
                   default=4),
        ),
        measures="none",
    ),
    Experiment(
        "disaggregate", "RPP Fig. 2, 4a: Delta mu_i per recall level, ECDF",
        _run_disaggregate, (("disaggregate", ("disaggregated_by_level", "disaggregated_ecdf")),),
        usage="QRELS RUN... [--discounts RBP(p=0.5) nDCG AP RR sgn] [--levels 20] [--ecdf]",
        readme="RPP Fig. 2 and 4a, the per-recall-level terms Δμ_i of a metric difference; "
        "which recall levels a metric actually listens to.",
        options=(
            Option(("--discounts",), "RBP(p=...), DCG, nDCG, AP, RR, sgn (default all, RBP "
                   "p=0.5)", kind="list", metavar="D"),
            Option(("--levels",), "recall levels 1..N of the per-level table (default 20)",
                   check=_positive, default=20),
            Option(("--ecdf",), "instead: the ECDF of Delta mu_i over all levels",
                   kind="flag"),
            Option(("--points",), "ECDF points (default 201)", check=_positive, default=201),
        ),
        measures="none", check=_discounts_option,
    ),
    Experiment(
        "interleaving", "RPP Fig. 5: offline interleaving (simulated users) vs measures",
        _run_interleaving, (("interleaving", ("interleaving_agreement",
                                              "offline_interleaving")),),
        usage="QRELS RUN... -m RPP AP [--model uniform dcg] [--depth 100] "
        "[--samples 10 --seed 0]",
        readme="RPP §6.1, offline team-draft interleaving with simulated users, its sign "
        "agreement and r with each measure; which offline measure best predicts an "
        "interleaving experiment. `--depth N` cuts every ranking at N (as for every "
        "command) and interleaves the top N (default: the top 100 of uncut rankings).",
        description="Offline team-draft interleaving of every run pair with simulated users "
        "(RPP section 6.1, Fig. 5): its sign agreement and Pearson r with each measure. "
        "--depth N cuts every ranking at N, as for every command, and interleaves the top N "
        "(default: the top 100 of the uncut rankings).",
        options=(
            Option(("--model",), "browsing models (default: uniform dcg)", kind="list",
                   dest="models", choices=("uniform", "dcg")),
            _samples(10), SEED,
        ),
        measures="optional", measure_help="metrics and preferences to compare with "
        "interleaving (default RPP)",
        needs_full=True, why_full="it interleaves the rankings",
    ),
    Experiment(
        "asl-reorder", "ASL Table 2: MAP -> ASL reordering (tau, dValue, dSort); --share",
        _run_asl_reorder, (("asl_reorder", ("asl_reordering", "asl_effective_share")),),
        usage="QRELS RUN... [--share]",
        readme="ASL Table 2, how the system ordering moves from MAP to ASL step by step "
        "(τ, ΔValue, ΔSort with the 10 % + t-test rule), or MAP's effective share of the "
        "top; how much of MAP is really about the top.",
        options=(
            Option(("--share",), "instead: per run, MAP's effective share of the top "
                   "(Appendix A.1)", kind="flag"),
            Option(("--margin",), "relative margin of 'better' for dSort, >= 0 (default "
                   "0.10)", check=check_nonnegative, default=0.10),
            Option(("--alpha",), "t-test level of 'better' for dSort, in (0, 1) (default "
                   "0.05)", check=params.check_alpha, default=0.05),
        ),
        measures="none", needs_full=True,
        why_full="search lengths count the non-relevant items ranked above each relevant one",
    ),
    Experiment(
        "worst-case", "lexirecall Fig. 14: deterministic vs stochastic worst case",
        _run_worst_case, (("stochastic", ("worst_case_optimal",)),),
        usage="-m RR AP nDCG --m 1:25",
        readme="lexirecall Fig. 14, the worst-off user's performance under an optimal "
        "deterministic and the optimal stochastic ranker (exact); what randomizing a "
        "ranker buys the worst-off user.",
        description="Worst-off-user performance of an optimal deterministic ranking and of "
        "the uniform optimal stochastic ranker (lexirecall section 7.2.4, Fig. 14), exact.",
        options=(Option(("--m",), "numbers of relevant items, a range a:b or one integer "
                        "(default 1:25)", check=check_m_range, default=(1, 25),
                        dest="m_range", metavar="A:B"),),
        reads_runs=False, measures="optional", measure_metavar="METRIC",
        measure_help="RR, AP, nDCG, RBP(p=...) (default RR)",
    ),
    Experiment(
        "worst-case-agreement", "lexirecall Table 2: agreement with the worst-off user",
        _run_worst_case_agreement, (("simulate", ("worst_case_agreement",)),),
        usage="-m TSE R@1000 Rprec AP nDCG RR random --n 1000 --m 5:50 --samples 10000 "
        "--seed 0",
        readme="lexirecall Table 2, how often a metric orders random rankings as the "
        "worst-off user does; which metrics measure robustness (only TSE always does).",
        description="Lexirecall Table 2 (section 4.3): over K pairs of random complete "
        "rankings of n items with m relevant, how often a metric orders them as the "
        "worst-off user does (p_m < p'_m); a metric tie disagrees. 'random' is a fair coin.",
        options=(
            _N,
            Option(("--m",), "relevant items: an integer, or a:b for m ~ U(a, b) (default "
                   "5:50)", check=check_m, default=(5, 50), dest="m_rel", metavar="M"),
            _samples(10_000), SEED,
        ),
        reads_runs=False, measure_help="TSE, R@k, Rprec, AP, nDCG, RR, sgnLR, random",
    ),
    Experiment(
        "tie-probability", "tie probabilities of random rankings", _run_tie_probability,
        (("simulate", ("tie_table", "simulate_ties", "random_rankings")),
         ("closed_forms", ("tie_probability",))),
        usage="-m TSE R@1000 Rprec AP sgnLR --n 1000 --m 10 [--depth 100] "
        "[--simulate 10000 --seed 0]",
        readme="Pr(tie) of two random rankings in closed form beside Monte Carlo "
        "(lexirecall Tables 3-4, Fig. 6); how coarse a measure is by construction, before "
        "any data.",
        description="Pr(tie) of two uniformly random rankings of n items with m relevant, "
        "in closed form (lexirecall Appendix D, lexiprecision section 2) and, with "
        "--simulate K, by Monte Carlo over K ranking pairs (with its standard error).",
        options=(
            _N,
            Option(("--m",), "relevant items: an integer, or a:b for m ~ U(a, b)",
                   check=check_m, required=True, dest="m_rel", metavar="M"),
            Option(("--depth",), "retrieval depth ñ (pessimistic imputation below it; "
                   "default n)", check=params.check_depth),
            _SIMULATE, SEED,
        ),
        reads_runs=False, measure_help="TSE, R@k, Rprec, AP, sgnLR, sgnLP, RR",
    ),
    Experiment(
        "rr-given-p1", "lexiprecision Fig. 2: Pr(RR tie | p_1) of random rankings",
        _run_rr_given_p1, (("simulate", ("rr_tie_table",)),
                           ("closed_forms", ("rr_tie_given_p1",))),
        usage="--n 50000 --m 10 --p1 1,2,10 [--simulate 100000 --seed 0]",
        readme="lexiprecision Fig. 2, Pr(RR tie | p_1); the chance of an RR tie is largest "
        "when the first relevant item is at the top, where good systems put it.",
        description="Pr(p'_1 = p_1 | p_1) = C(n - p_1, m - 1) / C(n, m): the chance that a "
        "uniformly random ranking ties RR with a ranking whose first relevant item is at "
        "p_1 (lexiprecision section 2, Fig. 2), in closed form and, with --simulate K, by "
        "Monte Carlo.",
        options=(
            _N,
            Option(("--m",), "relevant items", check=_positive, required=True, dest="m_rel",
                   metavar="M"),
            Option(("--p1",), "positions of the first relevant item, e.g. 1,2,5,10",
                   check=check_positive_ints, required=True, metavar="P,..."),
            _SIMULATE, SEED,
        ),
        reads_runs=False, measures="none",
    ),
)


def exports() -> dict[str, str]:
    """Public function name -> module of :mod:`irpref.meta` defining it (from the records)."""
    return {fn: module for e in EXPERIMENTS for module, names in e.functions for fn in names}


# ------------------------------------------------------------------ README

README_BEGIN = ("<!-- the list below is generated from irpref.meta.catalog: "
                "python -m irpref.meta.catalog docs/reference/meta-evaluation.md -->\n")
README_END = "<!-- end of the generated list -->\n"


def readme_list() -> str:
    """The README's list of experiments: example, Python functions, what it tells you."""
    out = []
    for e in EXPERIMENTS:
        names = ", ".join(f"`{fn}`" for _, fns in e.functions for fn in fns)
        head = f"- `irpref meta {e.name} {e.usage}` ({names}):"
        out.append(head + "\n" + textwrap.fill(e.readme, 78, initial_indent="  ",
                                               subsequent_indent="  ", break_long_words=False,
                                               break_on_hyphens=False) + "\n")
    return "".join(out)


def write_readme(path) -> bool:
    """Rewrite the generated list in the README at ``path``; True if it changed."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    head, rest = text.split(README_BEGIN, 1)
    _, tail = rest.split(README_END, 1)
    new = head + README_BEGIN + readme_list() + README_END + tail
    if new != text:
        p.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":
    sys.exit(0 if not write_readme(sys.argv[1] if len(sys.argv) > 1
                                   else "docs/reference/meta-evaluation.md") else 0)
