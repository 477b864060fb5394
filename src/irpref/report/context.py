"""What every section of a report reads: the data, the settings, the one test result.

:class:`ReportOptions` are the report's own choices (alpha, correction and
family of the one test result, interval level, bootstrap, topic-set-size
power, title, preferences); the judging settings are an
:class:`irpref.params.Settings`. :class:`ReportContext` holds them with the
judged rankings, the per-query tables of measures and preferences, the runs
and baselines, the figure labels, the population (:class:`Population`: over
how many queries each run's values are taken) and the one
:class:`irpref.report.verdicts.Verdicts`. Each section builder takes the
context and returns its section.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import pandas as pd

from irpref.params import Settings
from irpref.report.verdicts import Verdicts

__all__ = ["PREFERENCES", "Population", "ReportContext", "ReportOptions"]

PREFERENCES = ("sgnLP", "RPP")


@dataclass(frozen=True)
class ReportOptions:
    """The report's choices (those of ``irpref report``; the defaults of ``irpref
    significance``): ``alpha``; ``correction`` and ``family`` (``measure`` or ``all``)
    of the one test result; ``confidence`` of the unadjusted intervals; ``bootstrap``
    resamples (> 0: also a seeded paired bootstrap interval) from ``seed``; ``beta``
    (the topic-set-size verdict detects with power 1 - beta); ``title``;
    ``preferences`` compared; with human labels (``build_report(...,
    human_qrels=...)``), the PPI section's weight ``ppi_lambda`` (``"auto"``: PPI++),
    interval ``ppi_interval`` (``t`` or ``normal``) and level ``ppi_confidence``
    (None: ``confidence``)."""

    alpha: float = 0.05
    correction: str = "holm"
    family: str = "measure"
    confidence: float = 0.95
    bootstrap: int = 0
    seed: int = 0
    beta: float = 0.20
    title: str = "irpref report"
    preferences: tuple[str, ...] = PREFERENCES
    ppi_lambda: str | float = "auto"
    ppi_interval: str = "t"
    ppi_confidence: float | None = None

    def __post_init__(self) -> None:
        from irpref import params
        from irpref.llm_judged.ppi import check_interval, check_lambda
        from irpref.report.verdicts import check_report_family
        from irpref.stats.families import check_family

        params.check_alpha(self.alpha, "alpha")
        params.check_alpha(self.beta, "beta")
        params.check_probability(self.confidence, "confidence")
        params.check_nonnegative_int(self.bootstrap, "bootstrap")
        params.check_seed(self.seed, "seed")
        check_family(self.family, self.correction, by_baseline=True)
        check_report_family(self.family)
        check_lambda(self.ppi_lambda, "ppi_lambda")
        check_interval(self.ppi_interval, "ppi_interval")
        if self.ppi_confidence is not None:
            params.check_probability(self.ppi_confidence, "ppi_confidence")


@dataclass(frozen=True)
class Population:
    """Over how many queries each run's values are taken: ``judged`` queries in the
    qrels, the ones each run ``lacks`` (retrieved nothing for), and the rule
    ``missing`` (``skip``: a run's values are over the queries it has; ``zero``: the
    queries it lacks are scored as empty rankings)."""

    judged: int
    lacks: dict[str, list[str]] = field(default_factory=dict)
    missing: str = "skip"

    @classmethod
    def of(cls, judged, missing: str) -> Population:
        return cls(int(judged.n_queries), judged.lacking(), missing)

    def queries(self, run: str) -> int:
        """The queries behind a run's values."""
        return self.judged if self.missing == "zero" else self.judged - len(
            self.lacks.get(run, []))

    @property
    def common(self) -> int:
        """The topics every run has a value for (the two-way ANOVA's topics)."""
        if self.missing == "zero":
            return self.judged
        return self.judged - len(set().union(*self.lacks.values())) if self.lacks else self.judged

    def label(self, run: str) -> str:
        """``54``, or for a run that lacks queries ``49 of 54`` (skip) or ``54, 5
        scored 0`` (zero)."""
        lacks = len(self.lacks.get(run, []))
        if not lacks:
            return str(self.judged)
        if self.missing == "zero":
            return f"{self.judged}, {lacks} scored 0"
        return f"{self.judged - lacks} of {self.judged}"

    def with_queries(self, frame: pd.DataFrame, column: str = "run") -> pd.DataFrame:
        """``frame`` with a ``queries`` column after ``column`` (:meth:`label` of each
        run) when some run lacks queries; as it is otherwise."""
        if not self.lacks or column not in frame:
            return frame
        out = frame.copy()
        out.insert(list(out.columns).index(column) + 1, "queries",
                   [self.label(str(r)) for r in out[column]])
        return out

    def sentence(self) -> str:
        """The population in words, for the top of the report."""
        if not self.lacks:
            return f"Every run has all {self.judged} judged queries."
        parts = [f"{run} lacks {len(q)} of the {self.judged} judged queries"
                 for run, q in self.lacks.items()]
        rule = ("its values are over the queries it has, and a comparison uses the queries "
                "both runs have (--missing skip)" if self.missing == "skip" else
                "they are scored as empty rankings, so every value is over all "
                f"{self.judged} (--missing zero)")
        return ("; ".join(parts) + f": {rule}. Tables say over how many queries each run's "
                "values are taken (queries).")


@dataclass
class ReportContext:
    """The data, the settings and the one test result every section reads."""

    settings: Settings
    options: ReportOptions
    qrels: object
    runs: object
    judged: object  # irpref.judging.judged.JudgedRankings
    saved: bool  # judged rankings saved by irpref judge (no run files to judge again)
    results: pd.DataFrame  # per-query metric values (run, query, measure, value)
    prefs: pd.DataFrame  # per-query preferences (run_a, run_b, query, measure, value)
    measures: list[str]
    preferences: list[str]
    names: list[str]
    baselines: list[str]
    labels: dict[str, str]  # run -> its label in the figures
    population: Population
    verdicts: Verdicts | None  # None with a single run
    qrels_b: object = None
    name_b: str | None = None
    human_qrels: object = None  # human labels on some queries: the PPI section

    @property
    def baseline(self) -> str:
        """The first baseline: per-query views and search-length changes are against it."""
        return self.baselines[0]

    @property
    def many(self) -> bool:
        """Compact layouts and folded tables past this many runs."""
        from irpref.report.figure_kit import MANY

        return len(self.names) > MANY

    def short(self, frame: pd.DataFrame, *cols: str) -> pd.DataFrame:
        """``frame`` with the run names of ``cols`` replaced by their figure labels."""
        out = frame.copy()
        for col in cols:
            out[col] = out[col].astype(str).map(self.labels)
        return out

    @cached_property
    def comparisons(self) -> pd.DataFrame | None:
        """Every run against every baseline (:func:`irpref.report.trust.comparison_rows`),
        computed once for the summary and "How sure are we"; None with a single run."""
        from irpref.report.trust import comparison_rows

        return comparison_rows(self) if self.verdicts is not None else None

    def tested(self, names: Sequence[str]) -> list[str]:
        """The measures of ``names`` the one test result covers (a better direction)."""
        skip = set(self.verdicts.untested) if self.verdicts is not None else set(names)
        return [m for m in names if m not in skip]
