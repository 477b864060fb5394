"""Ranks with intervals: the leaderboard of ``irpref rank``.

**What is ranked.** Each run's mean over queries of the measure's per-query
scores: a metric's values; a preference's per-query mean preference over the
other runs (its win rate, the RPP paper's Eq. 7) or Borda points, as its
record's ``ranking`` says (:func:`run_scores`). Best first by the record's
orientation (a lower ASL ranks first); a measure without a better direction
(``NumRet``) cannot be ranked. ``rank`` = 1 + the runs with a better mean.

**Equal means tie** (:func:`tied_means`): a mean is the exact sum of the
values rounded once (:func:`irpref.measures.arithmetic.exact_mean`), so the
same values in any query order give the same mean; means within
:data:`TIE_TOLERANCE` x (mean |value| of both runs) of each other (different
values whose exact rational sums are equal, 0.3 + 0.1 and 0.2 + 0.2 as doubles)
are one group, which shares its rank and prints one mean, its median member's.

**Tests.** Intervals compare what is ranked, means, with tests of means over
the per-query scores that are averaged: ``t`` (``paired``), ``hsd`` or
``tukey``. A preference's intervals therefore test its per-query win rates,
not its head-to-head values (``irpref significance`` tests those). ``sign``
and ``wilcoxon`` are refused (:func:`check_rank_test`): they test the signs or
signed ranks of each pair's differences, not a difference of one number per
run, so their verdicts can cycle (a beats b beats c beats a, each
significantly) and no ranking lies behind them; three runs in such a cycle
would all get the interval [2, 2], whatever point rank is printed.

**Intervals** (Mogstad, Romano, Shaikh & Wilhelm 2024; :mod:`irpref.stats.rank_family`):
the R(R - 1) one-sided hypotheses "run j is not better than run k", each tested
by the one-sided version of the test, corrected over each measure's family (or
all measures' with ``family="all"``); ``rank_low`` = 1 + the runs rejected
better, ``rank_high`` = R - the runs rejected worse. A rejection that the
means contradict (possible only when runs lack different queries: a paired
test reads the queries both runs have, a mean each run's own; or when the
means tie) narrows no interval, so every run's rank lies in its interval. The
columns ``test``, ``correction``, ``family``, ``alpha`` and ``simultaneous``
say under what the intervals were made (:data:`irpref.stats.rank_family.LEVELS`).

**Groups**: runs that do not differ in that family, as a compact letter
display or as ranges of board rows (:mod:`irpref.stats.letters`).

With ``bootstrap`` > 0, **marginal** bootstrap intervals of each run's rank
alone (``marginal_low``, ``marginal_high``): the (1 - c) / 2 and (1 + c) / 2
quantiles of the run's rank over resamples of the queries (Efron & Tibshirani
1993; not simultaneous, and not a test).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from irpref.errors import UsageError
from irpref.measures.arithmetic import exact_means
from irpref.stats.bootstrap import draw_counts
from irpref.stats.families import FAMILY_WISE
from irpref.stats.letters import GROUPS, LETTERS, group_ranges, letter_display
from irpref.stats.pairwise import Pairwise
from irpref.stats.rank_family import (
    check_rank_family,
    rank_bounds,
    rank_rejections,
    rejection_matrix,
    simultaneous,
)
from irpref.stats.seeds import reseed
from irpref.stats.table import check_correction, pairwise_list, significance

__all__ = ["RANK_COLUMNS", "RANK_TESTS", "REFUSED_TESTS", "TIE_TOLERANCE", "check_rank_test",
           "leaderboard", "letter_display", "measure_board", "point_ranks", "rank_bounds",
           "rank_tables", "ranks_from_tests", "report_leaderboard", "run_scores", "tied_means"]

RANK_COLUMNS = ["run", "measure", "mean", "rank", "rank_low", "rank_high", "group", "test",
                "correction", "family", "alpha", "simultaneous"]

RANK_TESTS = ("paired", "t", "hsd", "tukey")
"""Tests of means a leaderboard reads (``paired`` is t: every ranked score is a mean)."""

REFUSED_TESTS = ("sign", "wilcoxon")
"""Tests a leaderboard refuses, saying why (:func:`check_rank_test`)."""

TIE_TOLERANCE = 2.0 ** -40
"""Means tie when they differ by at most this (about 9.1e-13) times the sum of both runs'
mean |value|: 4096 units of roundoff (u = 2^-53), room for per-query values each within
about 4,000 roundings of their exact value (AP's sum over 4,000 relevant documents, a win
rate over 4,000 runs) and the two roundings of an exact mean. Runs whose exact sums are
equal then always tie; no two different means of DL 2019's 37 runs come closer than
1.1e-7 (relative) under ten measures."""


def check_rank_test(test: str) -> str:
    """The one rule for a leaderboard's test: one of :data:`RANK_TESTS`; ``sign`` and
    ``wilcoxon`` refused with the reason (see the module doc)."""
    if test in REFUSED_TESTS:
        what = "the signs" if test == "sign" else "the signed ranks"
        raise UsageError(
            f"--test {test}: it compares each pair by {what} of its per-query differences, "
            "not by a difference of one number per run, so its verdicts can cycle (a beats "
            "b beats c beats a) and no ranking of the runs lies behind them; rank compares "
            "means: use --test t (paired), hsd or tukey (irpref significance --test "
            f"{test} tests the pairs)")
    if test not in RANK_TESTS:
        raise UsageError(f"test must be one of {', '.join(RANK_TESTS)}, not {test!r}")
    return test


def leaderboard(
    tables,
    test: str = "paired",
    *,
    correction: str | None = None,
    family: str = "measure",
    alpha: float = 0.05,
    groups: str = "auto",
    bootstrap: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
    permutations: int = 10_000,
    kinds: dict[str, str] | None = None,
    tester: Callable[..., pd.DataFrame] | None = None,
) -> pd.DataFrame:
    """The leaderboard of the runs in ``tables`` (as :func:`irpref.stats.significance`
    reads them): one row per measure and run, best first, columns :data:`RANK_COLUMNS`
    (plus ``marginal_low``, ``marginal_high`` with ``bootstrap`` > 0, and ``seed`` when
    hsd or the bootstrap drew random numbers); see the module doc.

    ``test`` (:data:`RANK_TESTS`) runs over every pair of each measure's ranked scores
    (:func:`rank_tables`); ``correction`` (default holm, none for hsd / tukey) over the
    R(R-1) one-sided hypotheses of each measure (``family="measure"``) or of all of them
    (``"all"``); a hypothesis is rejected when its adjusted p < ``alpha``. ``groups``:
    ``letters``, ``ranges`` or ``auto`` (:data:`irpref.stats.letters.GROUPS`).
    ``tester``: what runs the tests, with :func:`irpref.stats.significance`'s signature
    (default: it; the CLI's ``--dask`` passes :func:`irpref.distributed.significance`).
    """
    check_rank_test(test)
    correction = check_correction([test], correction)
    check_rank_family(family)
    if family == "all" and test in FAMILY_WISE:
        raise UsageError(f"--family all with --test {test}: its p-values are family-wise "
                         "within each measure, not across measures; use --family measure, "
                         "or --test t with --correction holm over all measures")
    _check_groups(groups)
    pairwise = rank_tables(tables, kinds)
    tests = (tester or significance)(pairwise, test, correction=correction, family="measure",
                                     ci="none", bootstrap=0, seed=seed,
                                     permutations=permutations, effects=False)
    board = ranks_from_tests(pairwise, tests, alpha, correction=correction, family=family,
                             groups=groups, bootstrap=bootstrap, seed=seed,
                             confidence=confidence)
    if test == "hsd" or bootstrap:
        board["seed"] = seed
    board.attrs.update(test=test, correction=correction, family=family, alpha=alpha,
                       bootstrap=bootstrap, seed=seed, confidence=confidence)
    return board


def rank_tables(tables, kinds: dict[str, str] | None = None) -> list[Pairwise]:
    """One metric :class:`Pairwise` per measure of ``tables``: the per-query scores that
    are ranked (:func:`run_scores`: a metric's values, a preference's per-query win rates
    or Borda points), which the leaderboard's tests compare. A measure without a better
    direction is refused (UsageError)."""
    out = []
    for pw in pairwise_list(tables, kinds):
        if pw.sign == 0:
            raise UsageError(f"{pw.measure} has no better direction (its record says so): "
                             "nothing to rank")
        out.append(pw if pw.kind == "metric" else Pairwise(
            pw.measure, "metric", pw.runs, pw.queries, scores=run_scores(pw),
            orientation_=pw.orientation))
    return out


def ranks_from_tests(pairwise: list[Pairwise], tests: pd.DataFrame, alpha: float, *,
                     correction: str, family: str = "measure", groups: str = "auto",
                     bootstrap: int = 0, seed: int = 0, confidence: float = 0.95
                     ) -> pd.DataFrame:
    """The leaderboard of the ranked scores ``pairwise`` (:func:`rank_tables`) read from
    ``tests``, the rows of :func:`irpref.stats.significance` over every pair of them:
    their raw p-values, corrected here over the one-sided family (see the module doc)."""
    _check_groups(groups)
    by_name = {pw.measure: pw for pw in pairwise}
    tests = tests.reset_index(drop=True)
    rejected = rank_rejections(tests, alpha, correction, family)
    parts, differ = [], []
    for measure, rows in tests.groupby("measure", sort=False):
        board, different = measure_board(by_name[str(measure)], rows, rejected[rows.index],
                                         bootstrap, seed, confidence)
        parts.append(board)
        differ.append(different)
    if not parts:
        return pd.DataFrame(columns=RANK_COLUMNS)
    kind, shown = _groups(differ, groups)
    for board, g in zip(parts, shown):
        board["group"] = g
    board = pd.concat(parts, ignore_index=True)
    test = tests.groupby("measure", sort=False)["test"].first()
    board["test"] = board["measure"].map(test).to_numpy(object)
    board["correction"], board["family"], board["alpha"] = correction, family, float(alpha)
    board["simultaneous"] = [simultaneous(t, correction) for t in board["test"]]
    extra = [c for c in board.columns if c not in RANK_COLUMNS]
    board = board[RANK_COLUMNS + extra]
    board.attrs["groups"] = kind
    return board


def _groups(differ: list[np.ndarray], groups: str) -> tuple[str, list[list[str]]]:
    """(``letters`` or ``ranges``, each measure's groups) for the ``different`` matrices
    in board order, as ``groups`` asks (:data:`irpref.stats.letters.GROUPS`)."""
    if groups == "ranges" or (groups == "auto" and max(map(len, differ)) > len(LETTERS)):
        return "ranges", [group_ranges(d) for d in differ]
    letters = [letter_display(d) for d in differ]
    if groups == "auto" and max(len(set("".join(g))) for g in letters) > len(LETTERS):
        return "ranges", [group_ranges(d) for d in differ]
    return "letters", letters


def report_leaderboard(tables, tests: pd.DataFrame, alpha: float, *, correction: str,
                       family: str = "measure") -> pd.DataFrame:
    """A report's leaderboard: the metrics of ``tables`` read the report's own paired
    tests ``tests`` (Student's t on their per-query differences, what :func:`leaderboard`
    runs); a preference is ranked by its win rates, which the report does not test, so
    they are tested here (t, the same correction)."""
    pairwise = rank_tables(tables)
    metrics = {pw.measure for pw in pairwise_list(tables, None) if pw.kind == "metric"}
    rows = tests[tests["measure"].astype(str).isin(metrics) & (tests["test"] == "t")]
    others = [pw for pw in pairwise if pw.measure not in metrics]
    if others:
        rows = pd.concat([rows, significance(others, "t", correction=correction, ci="none",
                                             bootstrap=0, seed=0, effects=False)],
                         ignore_index=True)
    return ranks_from_tests(pairwise, rows, alpha, correction=correction, family=family)


def measure_board(pw: Pairwise, rows: pd.DataFrame, rejected: np.ndarray, bootstrap: int = 0,
                  seed: int = 0, confidence: float = 0.95) -> tuple[pd.DataFrame, np.ndarray]:
    """The leaderboard rows of one measure, best first, without the group, and the
    (R, R) matrix of the pairs that differ in board order; ``rows``: its tests,
    ``rejected``: which of them are rejected (:func:`rank_rejections`)."""
    scores = pw.scores
    mean = tied_means(exact_means(scores), exact_means(np.abs(scores)))
    key = np.where(np.isnan(mean), np.inf, -pw.sign * mean)  # smaller is better
    better = rejection_matrix(rows, rejected, pw.runs) & (key[:, None] < key[None, :])
    low, high = rank_bounds(better)
    rank = point_ranks(mean, pw.sign)
    order = np.lexsort((np.arange(pw.n_runs), rank))
    board = pd.DataFrame({"run": pw.runs, "measure": pw.measure, "mean": mean, "rank": rank,
                          "rank_low": low, "rank_high": high})
    if bootstrap:
        m_low, m_high = marginal_ranks(scores, pw.sign, bootstrap,
                                       reseed(seed, f"rank:{pw.measure}"), confidence)
        board["marginal_low"], board["marginal_high"] = m_low, m_high
    different = (better | better.T)[np.ix_(order, order)]
    return board.iloc[order].reset_index(drop=True), different


def tied_means(mean: np.ndarray, scale: np.ndarray, tolerance: float = TIE_TOLERANCE
               ) -> np.ndarray:
    """``mean`` with the means that tie made equal: sorted, two neighbours within
    ``tolerance`` x (scale_a + scale_b) are one group (``scale``: each run's mean |value|,
    the size of what its sum rounds); each group takes its lower-median member's mean
    (the same value whatever the runs' order). NaN stays NaN."""
    mean = np.asarray(mean, dtype=np.float64).copy()
    ok = np.flatnonzero(~np.isnan(mean))
    if len(ok) < 2:
        return mean
    order = ok[np.argsort(mean[ok], kind="stable")]
    m, s = mean[order], np.asarray(scale, dtype=np.float64)[order]
    new = np.concatenate([[True], np.diff(m) > tolerance * (s[1:] + s[:-1])])
    group = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    sizes = np.diff(np.append(starts, len(m)))
    mean[order] = m[(starts + (sizes - 1) // 2)[group]]
    return mean


def point_ranks(score: np.ndarray, sign: int) -> np.ndarray:
    """1 + the number of runs with a strictly better score along axis 0 (``sign`` +1:
    higher is better, -1: lower); ties share the best rank; a NaN score ranks last."""
    from scipy.stats import rankdata

    s = np.asarray(score, dtype=np.float64) * -sign  # smaller is better now
    s = np.where(np.isnan(s), np.inf, s)
    return rankdata(s, axis=0, method="min").astype(np.int64)


def _check_groups(groups: str) -> None:
    if groups not in GROUPS:
        raise UsageError(f"groups must be one of {', '.join(GROUPS)}, not {groups!r}")


def run_scores(pw: Pairwise, ranking: str | None = None) -> np.ndarray:
    """(R, Q) per-query scores whose mean over queries ranks the runs: a metric's values;
    a preference's per-query mean preference over the other runs (``ranking="mean"``:
    sum_b Delta_q(a, b) / (R - 1)) or Borda points (``ranking="borda"``: the runs below
    plus half the runs tied, over the per-query mean-preference order; as
    :func:`irpref.preferences.aggregate.borda`), as the preference's record says (``ranking``
    overrides it)."""
    if pw.kind == "metric":
        return pw.scores
    w = pw.win_rates()  # (Q, R)
    if (ranking or _ranking(pw.measure)) == "borda":
        from scipy.stats import rankdata

        gaps = np.isnan(w)
        points = rankdata(np.where(gaps, -np.inf, w), axis=1, method="average")
        points = points - 1.0 - gaps.sum(1, keepdims=True)  # runs lacking the query: none
        return np.where(gaps, np.nan, points).T
    return (w / max(pw.n_runs - 1, 1)).T


def _ranking(measure: str) -> str:
    """``mean`` or ``borda``: the ranking rule of a preference's record (``mean`` when
    no record knows the name)."""
    try:
        from irpref.preferences.registry import PREFERENCES, parse_preference

        return PREFERENCES[parse_preference(measure).name].ranking
    except (ValueError, KeyError):
        return "mean"


def marginal_ranks(scores: np.ndarray, sign: int, samples: int, seed, confidence: float
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Marginal bootstrap rank intervals: resample the queries (``samples`` multinomial
    resamples from ``seed``), rank the runs' mean scores in each, and take the lower
    (1 - c) / 2 and upper (1 + c) / 2 order statistics of each run's ranks."""
    x = np.asarray(scores, dtype=np.float64)
    counts = draw_counts(x.shape[1], samples, seed)  # (B, Q)
    valid = ~np.isnan(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (np.where(valid, x, 0.0) @ counts.T) / (valid.astype(np.float64) @ counts.T)
    ranks = point_ranks(means, sign)  # (R, B)
    tail = (1.0 - confidence) / 2.0
    low = np.quantile(ranks, tail, axis=1, method="lower")
    high = np.quantile(ranks, 1.0 - tail, axis=1, method="higher")
    return low.astype(np.int64), high.astype(np.int64)
