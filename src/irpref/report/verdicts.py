"""The one test result of a report: every verdict it states, under one family rule.

A report tests every pair of runs once (:func:`test_pairs`: the paired test of
:func:`irpref.significance`, Student's t for measures and real-valued
preferences, the exact sign test for sign preferences) and corrects the
p-values within one family rule: ``measure`` (all run pairs of each measure or
preference) or ``all`` (all run pairs of all of them together). Its summary
marks, the "How sure are we" rows, the figure of differences, the pairs of the
significance section, discriminative power and the agreement section's swaps
all read this one result (:class:`Verdicts`), so a comparison has one adjusted
p-value and one verdict wherever it is shown. A run against a baseline is one
of these pairs (:meth:`Verdicts.against`); the report never forms a second,
smaller family of the baseline comparisons alone.

A verdict is said from the point of view of the run: ``better`` or ``worse``
(p_adjusted < alpha, the direction by the measure's record: a lower ASL is
better; for the sign test, wins against losses), ``n.s.``, or ``untested``
(no query both runs have, or a measure without a better direction, such as
``NumRet``, which the report does not test).

Intervals drawn beside a verdict agree with it (:meth:`Verdicts.interval_level`):
the t interval of each difference at the per-comparison level the family's
correction implies. ``none``: 1 - alpha; ``bonferroni``: 1 - alpha / m over the
m comparisons of the family, simultaneous coverage 1 - alpha; ``bh`` and
``by``: the false-coverage-rate intervals of Benjamini & Yekutieli (JASA 2005)
at 1 - R alpha / m (BY: / (m sum 1/i)), R the comparisons the family rejects.
For these the interval excludes 0 exactly when the verdict is significant (a
t interval at level 1 - g excludes 0 iff p < g; Bonferroni rejects iff
p < alpha / m, BH iff p < R alpha / m). ``holm``: the Bonferroni intervals,
simultaneous at 1 - alpha; Holm's step-down can reject a comparison whose
Bonferroni interval still covers 0, and such a row is marked (``agrees`` is
false) rather than drawn as if it agreed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["REPORT_FAMILIES", "VERDICTS", "Verdicts", "check_report_family", "family_rule",
           "test_pairs"]

VERDICTS = ("better", "worse", "n.s.", "untested")
MARKS = {"better": "▲", "worse": "▼"}
FLIPPED = {"better": "worse", "worse": "better"}

REPORT_FAMILIES = ("measure", "all")
"""Families a report can test under: each covers every pair of runs, as the significance
section and discriminative power need (``baseline`` is ``irpref significance --baseline``'s)."""

CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg",
                    "by": "Benjamini-Yekutieli", "none": "no correction"}

PAIR_COLUMNS = ["measure", "test", "run_a", "run_b", "n", "mean", "p", "p_adjusted",
                "family_size", "verdict"]


@dataclass(frozen=True)
class Verdicts:
    """The tests of every run pair of every measure and preference the report tests.

    ``tests``: the rows of :func:`irpref.significance` (one per measure and run
    pair) with ``significant`` and ``verdict`` (run_a's point of view);
    ``untested``: the measures without a better direction, left out."""

    tests: pd.DataFrame
    alpha: float
    correction: str
    family: str
    untested: tuple[str, ...] = ()

    @property
    def rule(self) -> str:
        """The family rule in words, as the report states it once near the top."""
        return family_rule(self.correction, self.family, self.alpha, self.tests)

    def pairs(self) -> pd.DataFrame:
        """Every tested pair: :data:`PAIR_COLUMNS` (verdict from run_a's point of view)."""
        return self.tests[PAIR_COLUMNS].reset_index(drop=True)

    def power(self) -> pd.DataFrame:
        """Discriminative power of each measure: the share of its pairs significant here."""
        from irpref.meta.discriminative import discriminative_power

        return discriminative_power(self.tests, alpha=self.alpha)

    def against(self, results: pd.DataFrame, baselines: Sequence[str]) -> pd.DataFrame:
        """One row per (measure, baseline, run != baseline) of the per-query metric table
        ``results``, with the columns of :meth:`oriented`."""
        grid = []
        for measure, table in results.groupby("measure", sort=False):
            runs = list(pd.unique(table["run"].astype(str)))
            for base in baselines:
                others = [r for r in runs if r != base]
                grid.append(pd.DataFrame({"measure": str(measure), "run": others,
                                          "baseline": base}))
        cols = ["measure", "run", "baseline"]
        return self.oriented(pd.concat(grid, ignore_index=True) if grid
                             else pd.DataFrame(columns=cols))

    def oriented(self, frame: pd.DataFrame, run: str = "run", other: str = "baseline"
                 ) -> pd.DataFrame:
        """``frame`` (measure, ``run``, ``other`` columns) with p, p_adjusted, family,
        family_size, significant, verdict (from ``run``'s point of view) and marker (▲ /
        ▼), read from the pair's row of :attr:`tests` (the same numbers in either
        orientation; ``untested`` where the pair was not tested)."""
        out = frame.copy()
        at = pd.Index(_pair_keys(self.tests, "run_a", "run_b")).get_indexer(
            _pair_keys(out, run, other))
        found = at >= 0
        rows = self.tests.iloc[np.where(found, at, 0)].reset_index(drop=True) if len(
            self.tests) else pd.DataFrame(index=range(len(out)), columns=self.tests.columns)
        for col in ("p", "p_adjusted", "family", "family_size"):
            out[col] = rows[col].where(found).to_numpy()
        flip = found & (rows["run_a"].astype(str).to_numpy(object)
                        != out[run].astype(str).to_numpy(object))
        verdict = rows["verdict"].where(found, "untested").to_numpy(object)
        verdict = np.where(flip, [FLIPPED.get(v, v) for v in verdict], verdict)
        out["significant"] = np.isin(verdict, list(MARKS))
        out["verdict"] = verdict
        out["marker"] = [MARKS.get(v, "") for v in verdict]
        return out

    def interval_level(self, family: str) -> tuple[float, str]:
        """(g, words): the per-comparison level g of the intervals that agree with the
        verdicts of ``family`` (see the module doc) and how to name them."""
        rows = self.tests[self.tests["family"] == family]
        # a family with nothing testable (one query: no t) has size 0; its intervals are
        # NaN anyway, and the level is the unadjusted one
        m = max(int(pd.to_numeric(rows["family_size"]).fillna(0).max()) if len(rows) else 0, 1)
        rejected = int(rows["significant"].sum())
        a = self.alpha
        if self.correction == "none":
            return a, f"unadjusted {1 - a:g} t intervals (no correction)"
        if self.correction in ("bonferroni", "holm"):
            words = (f"Bonferroni-adjusted t intervals, each at {1 - a / m:.4g} "
                     f"(simultaneous {1 - a:g} over the {m} comparisons of the family)")
            if self.correction == "holm":
                words += ("; Holm's step-down may reject a comparison whose interval still "
                          "covers 0: such a comparison is marked")
            return a / m, words
        c = float(np.sum(1.0 / np.arange(1, m + 1))) if self.correction == "by" else 1.0
        g = a * max(rejected, 1) / (m * c)
        return g, (f"false-coverage-rate adjusted t intervals (Benjamini & Yekutieli 2005), "
                   f"each at {1 - g:.4g} = 1 - R alpha / m{' / c(m)' if c != 1 else ''} "
                   f"with R = {rejected} rejected of m = {m}")


def test_pairs(tables: Sequence, *, correction: str = "holm",
               family: str = "measure", alpha: float = 0.05) -> Verdicts:
    """Test every run pair of the per-query tables ``tables`` (metric tables of
    :func:`irpref.evaluate`, preference tables of :func:`irpref.compare`, or
    :class:`irpref.stats.Pairwise` objects) once, with the
    paired test and ``correction`` within ``family`` (:data:`REPORT_FAMILIES`).
    Measures without a better direction are left out (their comparisons are
    ``untested``)."""
    from irpref.report.orientation import sign_of
    from irpref.stats import Pairwise, significance

    check_report_family(family)
    kept, untested = [], []
    for table in tables:
        if isinstance(table, Pairwise):
            names, keep = [table.measure], sign_of(table.measure) != 0
            kept += [table] if keep else []
            untested += [] if keep else names
            continue
        names = [str(m) for m in pd.unique(table["measure"])]
        skip = [m for m in names if sign_of(m) == 0]
        untested += skip
        table = table[~table["measure"].astype(str).isin(skip)]
        if len(table) and len(names) > len(skip):
            kept.append(table)
    if kept:
        tests = significance(kept, "paired", correction=correction, family=family,
                             bootstrap=0, ci="none", seed=0).reset_index(drop=True)
    else:
        tests = pd.DataFrame(columns=[*PAIR_COLUMNS[:-1], "wins", "losses", "orientation",
                                      "family"])
    significant = (tests["p_adjusted"].to_numpy(np.float64) < alpha)
    tests["significant"] = significant
    tests["verdict"] = _verdicts(tests, significant)
    return Verdicts(tests, alpha, correction, family, tuple(dict.fromkeys(untested)))


def check_report_family(family: str) -> str:
    """``family`` if a report can test under it (:data:`REPORT_FAMILIES`), else a
    UsageError saying why."""
    from irpref.errors import UsageError

    if family not in REPORT_FAMILIES:
        raise UsageError(f"--family {family}: a report tests every pair of runs (its "
                         "significance section and discriminative power), so its family is "
                         "measure (each measure's pairs) or all (every measure's pairs "
                         "together); for a family of the comparisons with the baselines "
                         "alone, use irpref significance --baseline")
    return family


def _verdicts(tests: pd.DataFrame, significant: np.ndarray) -> np.ndarray:
    """better / worse / n.s. / untested from run_a's point of view, the direction that
    of each test's statistic (:func:`irpref.stats.directions.row_directions`: the sign
    test by wins against losses, t by the oriented mean difference)."""
    from irpref.stats.directions import row_directions

    direction = row_directions(tests) if len(tests) else np.zeros(0)
    p = tests["p"].to_numpy(np.float64)
    return np.select([np.isnan(p), significant & (direction > 0), significant & (direction < 0)],
                     ["untested", "better", "worse"], "n.s.").astype(object)


def _pair_keys(frame: pd.DataFrame, a: str, b: str) -> np.ndarray:
    """measure + the unordered run pair, one text key per row."""
    x = frame[a].astype(str).to_numpy(object)
    y = frame[b].astype(str).to_numpy(object)
    low, high = np.where(x <= y, x, y), np.where(x <= y, y, x)
    return frame["measure"].astype(str).to_numpy(object) + "\x00" + low + "\x00" + high


def family_rule(correction: str, family: str, alpha: float, tests: pd.DataFrame) -> str:
    """"Every verdict: paired tests (...), p adjusted by Holm over the 15 run pairs of each
    measure and preference, significant below alpha = 0.05"."""
    sizes = sorted({int(s) for s in tests["family_size"]}) if len(tests) else [0]
    if family == "measure":
        scope = f"the {' or '.join(map(str, sizes))} run pairs of each measure and preference"
    else:
        per_test = tests.groupby("test", sort=False)["family_size"].max() if len(tests) else {}
        scope = ("all run pairs of every measure and preference together, one family per "
                 "test (" + "; ".join(f"{int(n)} {t} tests" for t, n in per_test.items())
                 + ")")
    adjust = ("p not adjusted (no correction)" if correction == "none"
              else f"p adjusted by {CORRECTION_NAMES[correction]} over {scope}")
    return (f"Every verdict in this report (marks, tables, figures) comes from one test per "
            f"pair of runs: paired tests (Student's t for measures and real-valued "
            f"preferences, the exact sign test for sign preferences), {adjust}; "
            f"significant when p_adjusted < alpha = {alpha:g}; a verdict's direction is its "
            f"test's statistic (the mean difference; wins against losses). The leaderboard's "
            f"rank intervals test the one-sided hypotheses of every ordered pair (its "
            f"section says how).")
