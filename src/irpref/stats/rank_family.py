"""The family of tests behind rank intervals: R(R - 1) one-sided hypotheses, corrected.

Mogstad, Romano, Shaikh & Wilhelm ("Inference for ranks with applications to
mobility across neighbourhoods and academic achievement across countries",
Rev. Econ. Stud. 91, 2024, doi:10.1093/restud/rdad006; the authors' R package
csranks) test, for every ordered pair (j, k) of the R
runs, H_jk: "run j is not better than run k" (theta_j <= theta_k by the
measure's orientation), and read a run's rank interval from the rejections:
rank_low = 1 + the runs rejected better than it, rank_high = R - the runs it is
rejected better than. When the rejections hold together with probability
1 - alpha, every run's rank lies in its interval together with probability at
least 1 - alpha (no false rejection, no wrong bound). csranks corrects with a
parametric bootstrap of the studentized differences (max-t, single step or
step-down); here the correction is Holm's step-down (or another, below) over
the p-values of the chosen paired test.

Each hypothesis is tested with the one-sided version of the pair's test: in
the direction its statistic points (:mod:`irpref.stats.directions`) the
one-sided p is p / 2 (t, sign and Wilcoxon double their smaller tail); against
it the one-sided p is at least 1/2 and is counted as 1 (never rejected, and it
changes no decision of a step-down). The randomized (hsd) and parametric
(tukey) Tukey HSD are single-step max statistics over all pairs: the max of
|T| over the unordered pairs is the max of T over the ordered ones, so their
p is already the family-wise one-sided p of the direction observed.

What each correction gives (:data:`LEVELS`; the ``simultaneous`` column):

=================  ===================================================  ============
correction         family and level                                     simultaneous
=================  ===================================================  ============
holm (default)     Holm's step-down over the R(R-1) one-sided p         yes
bonferroni         Bonferroni over the R(R-1) (= two-sided over pairs)  yes
hsd / tukey, none  single-step max statistic over all pairs             yes
bh                 Benjamini-Hochberg over the R(R-1): an FDR claim     no
by                 Benjamini-Yekutieli over the R(R-1): an FDR claim    no
none (t)           each pair's two-sided test at alpha                  no
=================  ===================================================  ============

Two-sided Holm over the R(R-1)/2 pairs with the direction read afterwards
(``irpref significance``) rejects at least as much: its step i threshold
alpha / (P - i + 1) on p is at least the one-sided 2 alpha / (2P - i + 1); it
controls directional errors only under conditions (independence, Shaffer 1980)
that pairs sharing a run do not meet, so ranks use the one-sided family. With
every correction, a rank rejection is also a rejection of ``irpref
significance`` with the same test and correction, in the same direction.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from irpref.errors import UsageError
from irpref.stats.corrections import adjust_pvalues
from irpref.stats.directions import row_directions
from irpref.stats.families import FAMILY_WISE

__all__ = ["LEVELS", "RANK_FAMILIES", "check_rank_family", "level", "rank_bounds",
           "rank_rejections", "rejection_matrix", "simultaneous"]

RANK_FAMILIES = ("measure", "all")
"""The hypotheses one correction runs over: each measure's R(R-1), or every measure's
together (then every interval of every measure holds together)."""

LEVELS = {
    "holm": (True, "P(every interval holds) >= 1 - alpha: Holm's step-down over the "
                   "R(R-1) one-sided hypotheses controls the family-wise error (Holm 1979; "
                   "Mogstad, Romano, Shaikh & Wilhelm 2024)"),
    "bonferroni": (True, "P(every interval holds) >= 1 - alpha: the Bonferroni correction of "
                         "the R(R-1) one-sided hypotheses (the decisions two-sided Bonferroni "
                         "makes on the pairs; Mogstad et al. 2024)"),
    "hsd": (True, "P(every interval holds) >= 1 - alpha when the runs are exchangeable "
                  "within each query (the randomized Tukey HSD's max statistic over all "
                  "pairs, Carterette 2012; strong control under partial nulls is not "
                  "proven for permutations)"),
    "tukey": (True, "P(every interval holds) >= 1 - alpha under the two-way ANOVA model "
                    "(normal errors of equal variance: Tukey's simultaneous intervals of "
                    "all differences)"),
    "bh": (False, "Benjamini-Hochberg over the R(R-1) one-sided hypotheses: a false "
                  "discovery rate of the claims 'j better than k' of alpha, proven under "
                  "positive dependence only, which pairs sharing runs do not have; not a "
                  "confidence set for the ranks"),
    "by": (False, "Benjamini-Yekutieli over the R(R-1) one-sided hypotheses: a false "
                  "discovery rate of the claims 'j better than k' of at most alpha under any "
                  "dependence; not a confidence set for the ranks"),
    "none": (False, "each pair's two-sided test at alpha, uncorrected: one claim 'j better "
                    "than k' alone is wrong with probability at most alpha / 2; nothing holds "
                    "jointly"),
}
"""(simultaneous, level) per correction (hsd and tukey: per test)."""


def _key(test: str, correction: str) -> str:
    return test if test in FAMILY_WISE else correction


def simultaneous(test: str, correction: str) -> bool:
    """Whether the rank intervals of ``test`` under ``correction`` hold together with
    probability at least 1 - alpha (:data:`LEVELS`)."""
    return LEVELS[_key(test, correction)][0]


def level(test: str, correction: str) -> str:
    """What the rank intervals of ``test`` under ``correction`` guarantee, in words."""
    return LEVELS[_key(test, correction)][1]


def check_rank_family(family: str) -> str:
    """The one rule for a rank family: one of :data:`RANK_FAMILIES` (UsageError)."""
    if family not in RANK_FAMILIES:
        why = (": a rank interval needs every pair of the runs, not the comparisons with "
               "baselines" if family == "baseline" else "")
        raise UsageError(f"--family {family}: rank families are {', '.join(RANK_FAMILIES)}"
                         + why)
    return family


def rank_rejections(rows: pd.DataFrame, alpha: float, correction: str,
                    family: str = "measure") -> np.ndarray:
    """Per row of a test table (:func:`irpref.stats.significance`: ``test``, ``p``,
    ``measure`` and the direction's columns): whether the one-sided hypothesis "run_a
    is not better than run_b" in the direction the row's statistic points is rejected
    at ``alpha``, ``correction`` running over the R(R-1) one-sided hypotheses of each
    measure (``family="measure"``) or of all rows together (``"all"``); see the module
    doc. A row without a direction or a p-value is never rejected."""
    check_rank_family(family)
    direction = row_directions(rows)
    p = rows["p"].to_numpy(np.float64)
    wise = np.isin(rows["test"].to_numpy(object), FAMILY_WISE)
    if correction == "none" or wise.all():
        adjusted = p  # the pair's two-sided test, or the family-wise max statistic
    else:
        one = np.where(direction == 0, np.where(np.isnan(p), np.nan, 1.0), p / 2.0)
        against = np.where(np.isnan(one), np.nan, 1.0)  # the hypotheses the data oppose
        label = (rows["measure"].astype(str).to_numpy(object) if family == "measure"
                 else np.zeros(len(rows), dtype=object))
        adjusted = np.full(len(rows), np.nan)
        for idx in pd.Series(np.arange(len(rows))).groupby(label, sort=False).groups.values():
            idx = np.asarray(idx, dtype=np.intp)
            both = adjust_pvalues(np.concatenate([one[idx], against[idx]]), correction)
            adjusted[idx] = both[:len(idx)]
    with np.errstate(invalid="ignore"):
        return (adjusted < alpha) & (direction != 0)


def rejection_matrix(rows: pd.DataFrame, rejected: np.ndarray, runs: Sequence[str]
                     ) -> np.ndarray:
    """(R, R) boolean ``better[i, j]``: run i is rejected better than run j, from the
    ``rejected`` rows (:func:`rank_rejections`) in their direction."""
    index = {str(r): k for k, r in enumerate(runs)}
    a = rows["run_a"].astype(str).map(index).to_numpy(np.intp)
    b = rows["run_b"].astype(str).map(index).to_numpy(np.intp)
    direction = row_directions(rows)
    better = np.zeros((len(runs), len(runs)), bool)
    up = rejected & (direction > 0)
    down = rejected & (direction < 0)
    better[a[up], b[up]] = True
    better[b[down], a[down]] = True
    return better


def rank_bounds(better: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rank_low, rank_high) of every run from ``better[i, j]`` (i rejected better than
    j): 1 + the runs better, R - the runs worse."""
    better = np.asarray(better, bool)
    r = better.shape[0]
    return 1 + better.sum(0), r - better.sum(1)
