"""``--human-qrels H``: evaluate with machine labels (QRELS) on every query and human
labels on some, by prediction-powered inference over queries
(:mod:`irpref.llm_judged.prediction_powered`).

The subcommands call in here from a few lines of their own:

- ``irpref evaluate QRELS RUN... -m M... --human-qrels H [--ppi-lambda auto|0|1|X]
  [--ppi-interval t|normal] [--confidence C | --alpha A]``: per run and measure
  the PPI estimate and interval (``value``, ``low``, ``high``), the queries
  behind it, the weight, the human-only mean with its t interval, the
  machine-only mean and a ``note`` on what the row cannot claim;
- ``irpref significance ... --human-qrels H [--baseline B]``: the significance
  table with ``test`` = ``ppi`` (:func:`significance_results`);
- ``irpref design --human-qrels H QRELS RUN... -m M --half-width W``: the
  human-judged queries an interval of half-width W needs;
- ``irpref report ... --human-qrels H``: a section with the PPI estimates next
  to the human-only ones (:func:`report_options`; the report builds it).

One level per interval (:func:`ppi_level`): ``--alpha A`` and ``--confidence C``
both set it (1 - A or C; given both, they must agree), in every subcommand.
Options that do nothing under ``--human-qrels`` are refused (exit 2) with the
reason: ``evaluate``'s ``--test``, ``--correction``, ``--bootstrap``, ``--seed``
(it prints intervals, no test); ``significance``'s ``--test`` (its test is
``ppi``), ``--permutations``, ``--bootstrap``, ``--seed`` (the interval is
closed-form).
"""

from __future__ import annotations

import argparse
import math

import pandas as pd

from irpref.cli.common import (
    as_usage,
    checked,
    given,
    once,
    open_output,
    settings_from_args,
)
from irpref.errors import UsageError
from irpref.llm_judged.ppi import check_interval, check_lambda
from irpref.report.formats import write_frame

__all__ = ["add_arguments", "ppi_level", "report_options", "run_design", "run_evaluate",
           "significance_results", "wanted"]


def _half_width(value, flag: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        x = math.nan
    if not (x > 0 and math.isfinite(x)):
        raise UsageError(f"{flag} {value}: must be a positive number")
    return x


def add_arguments(parser: argparse.ArgumentParser, *, design: bool = False) -> None:
    """``--human-qrels H``, ``--ppi-lambda``, ``--ppi-interval``; for design also
    ``--half-width W``."""
    g = parser.add_argument_group("human labels on some queries (prediction-powered inference)")
    g.add_argument("--human-qrels", **once(), default=None, metavar="H",
                   help="human qrels for a random sample of QRELS' queries (QRELS: machine "
                        "labels, e.g. an LLM judge, on every query): estimates and intervals "
                        "by prediction-powered inference over queries (PPI++); the level is "
                        "--confidence C or 1 - --alpha A")
    g.add_argument("--ppi-lambda", **checked(check_lambda), default="auto",
                   metavar="auto|0|1|X",
                   help="PPI weight of the machine labels: auto (PPI++'s tuned weight, "
                        "default, cross-fitted under --ppi-interval t), 1 (classical PPI), 0 "
                        "(the human labels alone), or a number")
    g.add_argument("--ppi-interval", **checked(check_interval), default="t",
                   metavar="t|normal",
                   help="t (default): Student t with n - 1 degrees of freedom, the weight "
                        "cross-fitted, Hall's skewness correction, which holds its level from "
                        "10 human-judged queries; normal: ppi_py's interval (z, the weight "
                        "tuned on the same queries), which needs about 30")
    if design:
        g.add_argument("--half-width", **checked(_half_width), default=None, metavar="W",
                       help="with --human-qrels: the half-width of the PPI interval to plan "
                            "for (the level is 1 - --alpha)")


def wanted(args: argparse.Namespace) -> bool:
    """Whether ``--human-qrels`` was given."""
    return getattr(args, "human_qrels", None) is not None


def _refuse(args: argparse.Namespace, flags: dict[str, object]) -> None:
    """A usage error for the first option given that ``--human-qrels`` does not combine with
    (``flags``: attribute -> its value when not given)."""
    for attr, unset in flags.items():
        value = getattr(args, attr, unset)
        if value != unset and value is not None and value is not False:
            flag = "--" + attr.replace("_", "-")
            raise UsageError(f"{flag} does not combine with --human-qrels")


def _inputs(args: argparse.Namespace) -> None:
    from irpref.judging.store import is_judged_file

    if is_judged_file(args.qrels):
        raise UsageError(f"{args.qrels} holds judged rankings: --human-qrels judges the runs "
                         "under both qrels, give QRELS RUN...")
    if not args.runs:
        raise UsageError("no RUN file given")


def _measures(args: argparse.Namespace, default: list[str], kind: str = "measure"
              ) -> list[str]:
    """The ``-m`` names (several per argument allowed), or ``default``, checked before
    any input is read: canonical measure names (``kind="measure"``), or as given."""
    from irpref.measures.names import canonical_name

    judged_only = bool(getattr(args, "judged_only", False))
    names = [t for m in args.measures or default for t in m.split()]
    return names if kind == "any" else as_usage(
        lambda: [canonical_name(t, judged_only=judged_only) for t in names])


def _lambda_text(lam) -> str:
    return "PPI++ (tuned lambda)" if lam == "auto" else f"lambda {lam:g}"


def _interval_text(interval: str, lam) -> str:
    """The legend's words for the interval."""
    if interval == "normal":
        return "normal interval as ppi_py (z, divisor n, weight tuned on the same queries)"
    weight = ("the jackknife variance with the weight re-tuned without each human-judged "
              "query, " if lam == "auto" else "")
    return (f"small-sample interval ({weight}Student t with n_labeled - 1 degrees of "
            "freedom, Hall's skewness correction; all-equal human values: the range bound)")


def ppi_level(args: argparse.Namespace) -> float:
    """The level of the PPI intervals: ``--confidence C`` or ``1 - --alpha A``, whichever
    was given (a usage error when both were and they differ); otherwise the
    command's default ``--confidence`` (or ``1 - --alpha``)."""
    has_c, has_a = hasattr(args, "confidence"), hasattr(args, "alpha")
    gave_c, gave_a = has_c and given(args, "confidence"), has_a and given(args, "alpha")
    if gave_c and gave_a and not math.isclose(args.confidence, 1.0 - args.alpha,
                                              abs_tol=1e-12):
        raise UsageError(f"--alpha {args.alpha:g} and --confidence {args.confidence:g} ask "
                         f"for two levels of one PPI interval (1 - alpha = "
                         f"{1.0 - args.alpha:g}): give one of them")
    if gave_a or not has_c:
        return 1.0 - args.alpha
    return args.confidence


def _refuse_given(args: argparse.Namespace, dests: dict[str, str]) -> None:
    """A usage error for the first option given (``dests``: destination -> why it does
    not apply under ``--human-qrels``)."""
    for dest, why in dests.items():
        if given(args, dest):
            flag = "--" + dest.replace("_", "-")
            raise UsageError(f"{flag} does not combine with --human-qrels ({why})")


def run_evaluate(args: argparse.Namespace, default_measures: list[str]) -> int:
    """``irpref evaluate QRELS RUN... --human-qrels H``: one row per run and measure."""
    from irpref.llm_judged.prediction_powered import ppi_evaluate

    _refuse(args, {"per_query": False, "bounds": False, "dask": None, "subtopics": None,
                   "baseline": None, "ci": None, "effects": False, "family": None})
    no_test = "evaluate --human-qrels prints intervals, it runs no test"
    _refuse_given(args, {"test": no_test, "correction": no_test,
                         "bootstrap": "the PPI interval is closed-form",
                         "seed": "the PPI interval is closed-form"})
    level = ppi_level(args)
    _inputs(args)
    measures = _measures(args, default_measures)
    frame = ppi_evaluate(args.qrels, args.human_qrels, args.runs, measures,
                         lam=args.ppi_lambda, confidence=level, interval=args.ppi_interval,
                         settings=settings_from_args(args))
    legend = (f"value, low, high: {_lambda_text(args.ppi_lambda)} estimate of the mean and its "
              f"{level:g} {_interval_text(args.ppi_interval, args.ppi_lambda)} from "
              "n_labeled human-judged and n_unlabeled machine-only queries "
              "(prediction-powered inference, Angelopoulos et al. 2023); lambda: the weight; "
              f"human: the human-judged queries alone "
              f"(Student t interval at {level:g}); machine: the machine labels on every "
              "query; note: what the row's interval cannot claim.")
    with open_output(args.output) as out:
        write_frame(frame, args.format, out, digits=4, legend=legend)
    return 0


def significance_results(args: argparse.Namespace, default_measures: list[str]) -> pd.DataFrame:
    """``irpref significance ... --human-qrels H``: the table of
    :func:`irpref.llm_judged.prediction_powered.ppi_significance` (``test`` = ``ppi``); the
    command writes it as it writes every test (``significant``, ``verdict``,
    ``--compact``, ``--summary``)."""
    from irpref.cli.baseline_view import baselines
    from irpref.llm_judged.prediction_powered import ppi_significance

    if args.tests:
        raise UsageError(f"--test {' '.join(args.tests)} does not combine with --human-qrels "
                         "(its test is ppi)")
    _refuse(args, {"dask": None, "anova": False, "hsd_strict": False})
    closed = "the PPI interval and p-value are closed-form"
    _refuse_given(args, {"permutations": closed, "bootstrap": closed, "seed": closed})
    if args.ci not in ("t", "ppi"):
        raise UsageError(f"--ci {args.ci} does not combine with --human-qrels (its interval "
                         "is the PPI one)")
    level = ppi_level(args)
    args.confidence, args.alpha = level, 1.0 - level  # one level: interval and significant
    args.correction = args.correction or "holm"
    _inputs(args)
    frame = ppi_significance(
        args.qrels, args.human_qrels, args.runs, _measures(args, default_measures, "any"),
        baseline=baselines(args) or None, correction=args.correction, family=args.family,
        lam=args.ppi_lambda, confidence=level, interval=args.ppi_interval,
        settings=settings_from_args(args))
    args.ci = "ppi"  # the legend names the interval
    return frame


def run_design(args: argparse.Namespace) -> int:
    """``irpref design --human-qrels H QRELS RUN... -m M --half-width W``."""
    from irpref.llm_judged.prediction_powered import ppi_design

    if args.half_width is None:
        raise UsageError("--human-qrels plans an interval: give --half-width W")
    _refuse(args, {"std": False, "variance": None, "systems": None, "ci_width": None,
                   "min_diff": None})
    args.qrels = args.inputs[0] if args.inputs else None
    args.runs = args.inputs[1:]
    if args.qrels is None:
        raise UsageError("give QRELS RUN... (the machine qrels and the runs)")
    _inputs(args)
    if not args.measures:
        raise UsageError("-m MEASURE is needed")
    confidence = ppi_level(args)
    frame = ppi_design(args.qrels, args.human_qrels, args.runs, _measures(args, []),
                       half_width=args.half_width, confidence=confidence,
                       lam=args.ppi_lambda, interval=args.ppi_interval,
                       settings=settings_from_args(args))
    # a run that no number of queries serves (NA) makes the largest plan unreachable too
    most = frame.groupby("measure", sort=False)[["n_ppi", "n_ppi_low", "n_ppi_high"]].agg(
        lambda s: s.max(skipna=False))
    worst = "; ".join(f"{m}: {_plan(r)}" for m, r in most.iterrows())
    legend = (f"n_ppi: human-judged queries (of queries, the rest machine-judged) whose "
              f"{confidence:g} PPI interval ({_lambda_text(args.ppi_lambda)}, "
              f"{'normal' if args.ppi_interval == 'normal' else 't'} critical value) is "
              f"expected no wider than +-{args.half_width:g}, planned from the pilot's pilot_n "
              "human-judged queries (variances var_human, var_machine, correlation rho); "
              "n_ppi_low-n_ppi_high: the plan with the pilot's variances at the ends of their "
              f"{confidence:g} chi-square interval (pilot_n - 1 degrees of freedom); empty: "
              "not reachable below all queries. n_human: the human labels alone. Largest "
              f"over the runs: {worst}.")
    with open_output(args.output) as out:
        write_frame(frame, args.format, out, digits=4, legend=legend)
    return 0


def _count(n) -> str:
    return "more than the collection has" if pd.isna(n) else str(int(n))


def _plan(row) -> str:
    """The largest plan of a measure and its range, in words."""
    if pd.isna(row.n_ppi_low):
        return _count(row.n_ppi)
    return f"{_count(row.n_ppi)} ({_count(row.n_ppi_low)} to {_count(row.n_ppi_high)})"


def report_options(args: argparse.Namespace, measures: list[str]) -> tuple[str, dict]:
    """``irpref report ... --human-qrels H``: the inputs and ``-m`` (default ``measures``)
    checked before any is read, then H and the PPI options of
    :class:`irpref.report.ReportOptions`; :func:`irpref.report.build_report` builds the
    section on the runs it judged."""
    _inputs(args)
    _measures(args, measures)
    return args.human_qrels, dict(ppi_lambda=args.ppi_lambda, ppi_interval=args.ppi_interval,
                                  ppi_confidence=ppi_level(args))
