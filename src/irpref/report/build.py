"""A self-contained evaluation report: :func:`build_report` evaluates the runs once,
tests every pair of runs once, and collects the sections; :mod:`irpref.report.document`
writes it as HTML, Markdown or JSON.

The sections, in order: the summary against the baseline(s), "How sure are
we", per-query views, preferences and system orderings, significance and
discriminative power, ties, how much was judged, the agreement with a second
set of qrels (``qrels_b``), search lengths, robustness to missing labels, and with
human labels on a sample of the queries (``human_qrels``) the prediction-powered
estimates beside the human-only ones.
One family rule decides every verdict (:mod:`irpref.report.verdicts`); the
report states it once near the top, with the population (over how many
queries each run's values are taken).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence

import pandas as pd

from irpref.params import DEFAULT_MISSING, Settings
from irpref.report.blocks import Report
from irpref.report.context import Population, ReportContext, ReportOptions

__all__ = ["DEFAULT_MEASURES", "SECTIONS", "build_report", "resolve_baselines"]

DEFAULT_MEASURES = ("AP", "nDCG@10", "P@10", "RR")


def _sections():
    from irpref.report import judgments, sections, trust

    return (sections.summary_section, trust.trust_section, sections.per_query_section,
            sections.preferences_section, sections.significance_section,
            sections.leaderboard_section, sections.ties_section, judgments.coverage_section,
            judgments.agreement_section,
            sections.search_lengths_section, sections.robustness_section)


SECTIONS = ("summary", "how-sure", "per-query", "preferences", "significance", "leaderboard",
            "ties",
            "judged", "agreement", "search-lengths", "robustness", "ppi")
"""The section ids, in the order the report shows them (agreement only with qrels_b,
ppi only with human_qrels)."""


def build_report(qrels, runs: Sequence, measures: Sequence[str] | None = None, *,
                 baseline: str | Sequence[str] | None = None, rel: int = 1,
                 depth: int | None = None, ties: str = "docid",
                 missing: str = DEFAULT_MISSING, corpus_size: int | None = None,
                 judged_only: bool = False, use_tag: bool = False, columns=None,
                 settings: Settings | None = None, judged=None, qrels_b=None,
                 human_qrels=None, options: ReportOptions | None = None) -> Report:
    """Evaluate ``runs`` against ``qrels`` and assemble the report's sections.

    The judging settings are those of :func:`irpref.evaluate`, by the same names
    (``rel``, ``depth``, ``ties``, ``missing``, ``corpus_size``, ``judged_only``:
    every measure and preference on the condensed lists, ``use_tag``: runs named
    by their tag column, ``columns``: the columns of table inputs), or one
    :class:`irpref.params.Settings` as ``settings``.
    ``baseline``: a run name or several (default: the first run; a run's file
    names it too); an unknown name is a :class:`irpref.errors.UsageError`
    naming the runs. ``options``: :class:`irpref.report.context.ReportOptions`
    (alpha, correction and family of the one test result, interval level,
    bootstrap, power target, title, preferences). ``judged``: judged rankings
    already read (e.g. saved by ``irpref judge``) instead of ``qrels`` and
    ``runs``; the ties section, which judges the runs again, then says it
    needs the files. ``qrels_b``: a second set of qrels; adds "Agreement
    between the two judgments" (needs the run files). ``human_qrels``: human
    labels on a sample of the queries, ``qrels`` being a machine judge's on every
    query; adds "Machine labels with a human sample": per run and measure the
    prediction-powered estimate and interval beside the human-only ones
    (:func:`irpref.llm_judged.prediction_powered.ppi_evaluate`; ``options``'
    ``ppi_lambda``, ``ppi_interval``, ``ppi_confidence``), computed first (a bad
    sample stops the report before the other sections) on the runs judged once under
    ``qrels`` and again under ``human_qrels`` only (needs the run files).
    """
    import irpref.runtime.progress as progress
    from irpref.errors import UsageError

    settings = Settings.resolve(settings, judged.settings if judged is not None else None,
                                rel=rel, depth=depth, ties=ties, missing=missing,
                                corpus_size=corpus_size, judged_only=judged_only,
                                use_tag=use_tag, columns=columns)
    options = options or ReportOptions()
    if qrels_b is not None and judged is not None:
        raise UsageError("--qrels-b needs QRELS RUN... (the runs are judged again under it), "
                         "not a file saved by irpref judge")
    if human_qrels is not None and judged is not None:
        raise UsageError("--human-qrels needs QRELS RUN... (the runs are judged under both "
                         "qrels), not a file saved by irpref judge")
    from irpref.report.ppi_section import ppi_report_section

    builders = _sections()
    bar = progress.bar(len(builders) + 2, "report", "step")
    try:
        ctx = _context(qrels, runs, measures, baseline, settings, options, judged, qrels_b)
        ctx.human_qrels = human_qrels
        bar.update()
        ppi = ppi_report_section(ctx)  # first: a bad sample stops the report early
        bar.update()
        found = []
        for build in builders:
            section = build(ctx)
            if section is not None:
                found.append(section)
            bar.update()
        found += [ppi] if ppi is not None else []
    finally:
        bar.close()
    return Report(options.title, ctx.names, ctx.measures, ctx.baseline, found, ctx.labels,
                  ctx.baselines, rule=ctx.verdicts.rule if ctx.verdicts is not None else "",
                  population=ctx.population.sentence(),
                  settings={**settings.keywords(), "seed": options.seed,
                            "bootstrap": options.bootstrap})


def names_with(texts, parse, judged_only: bool) -> list[str]:
    """Canonical names of ``texts`` parsed by ``parse``; with ``judged_only`` each gets
    the modifier ``judged_only=true`` (the setting, applied here explicitly)."""
    from irpref.measures.base import with_params

    items = parse(list(texts))
    return [str(with_params(i, judged_only=True) if judged_only else i) for i in items]


def _context(qrels, runs, measures, baseline, settings: Settings, options: ReportOptions,
             judged, qrels_b) -> ReportContext:
    from irpref.compare import compare_table_with
    from irpref.errors import InputError, MissingQueries
    from irpref.evaluate import evaluate_with, judge_with
    from irpref.measures import parse_measures
    from irpref.preferences import parse_preferences
    from irpref.report import plots
    from irpref.report.verdicts import test_pairs

    # canonical names, the judged_only setting applied: every table is labelled by them
    measures = names_with(measures or DEFAULT_MEASURES, parse_measures, settings.judged_only)
    preferences = names_with(options.preferences, parse_preferences, settings.judged_only)
    name_b = None
    if qrels_b is not None:  # read first: a bad file stops the report before any work
        from irpref.io.frames import as_qrels
        from irpref.report.judgments import qrels_name

        name_b, qrels_b = qrels_name(qrels_b), as_qrels(qrels_b)
    saved = judged is not None
    if not saved:
        judged = judge_with(qrels, runs, settings)
    results = evaluate_with(None, None, measures, settings.replace(judged_only=False),
                            judged=judged)  # the names carry judged_only already
    names = [str(r) for r in judged.run_names]
    scored = set(results["run"].astype(str))
    empty = [r for r in names if r not in scored]
    if empty or not names:  # the judging refuses such a run first; never index an empty table
        files = ([str(r) for r in runs] if isinstance(runs, (list, tuple))
                 and len(runs) == len(names) else names)
        where = files[names.index(empty[0])] if empty else str(qrels)
        raise InputError(where, None, f"run {', '.join(empty) or '(none)'} shares no query "
                         "with the qrels: nothing to report")
    baselines = resolve_baselines(baseline, names, runs)
    prefs = None
    if len(names) >= 2:
        with warnings.catch_warnings():  # evaluate announced the queries a run lacks
            warnings.simplefilter("ignore", MissingQueries)
            prefs = compare_table_with(None, None, preferences, settings.replace(judged_only=False),
                                 judged=judged)
    verdicts = (test_pairs([results, prefs], correction=options.correction,
                           family=options.family, alpha=options.alpha)
                if len(names) >= 2 else None)
    return ReportContext(
        settings=settings, options=options, qrels=qrels, runs=runs, judged=judged,
        saved=saved, results=results, prefs=prefs, measures=measures,
        preferences=preferences, names=names, baselines=baselines,
        labels=plots.abbreviate(names), population=Population.of(judged, settings.missing),
        verdicts=verdicts, qrels_b=qrels_b, name_b=name_b)


def resolve_baselines(baseline, names: list[str], runs) -> list[str]:
    """The baselines as run names (a run's file names it too), without repeats;
    the first run when ``baseline`` is None."""
    from irpref.errors import UsageError

    given = ([str(r) for r in runs or []] if not isinstance(runs, (str, os.PathLike, pd.DataFrame))
             else [])
    wanted = ([names[0]] if baseline is None else
              [baseline] if isinstance(baseline, (str, os.PathLike)) else list(baseline))
    out = []
    for b in map(str, wanted):
        if b not in names and b in given and len(given) == len(names):
            b = names[given.index(b)]  # the baseline named by its file
        elif b not in names:
            raise UsageError(f"--baseline {b!r} is not one of the runs: {', '.join(names)}")
        out.append(b)
    return list(dict.fromkeys(out))
