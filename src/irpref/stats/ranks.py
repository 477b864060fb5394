"""Ranks with intervals: the leaderboard of ``irpref rank``.

For each measure, runs are ranked by their score (a metric's mean; a
preference's mean preference over the other runs or its Borda count, as its
record's ``ranking`` says), best first by the record's orientation (a lower ASL
ranks first). Beside the rank:

- **rank interval** [``rank_low``, ``rank_high``] (Mogstad, Romano, Shaikh &
  Wilhelm, "Inference for ranks with applications to mobility across
  neighbourhoods and academic achievement across countries", Rev. Econ. Stud.
  2024, Sec. 3): from one family of pairwise tests over all run pairs of the
  measure (:func:`irpref.stats.significance` with the chosen test and
  correction), rank_low = 1 + the number of runs significantly better,
  rank_high = R - the number of runs significantly worse. With a correction
  that controls the family-wise error at alpha (holm, bonferroni; hsd and
  tukey are family-wise already) the intervals of all runs hold together with
  probability >= 1 - alpha; bh / by control the false discovery rate and none
  nothing, so their intervals are not simultaneous (``rank`` says so);
- **group**: a compact letter display (:func:`letter_display`): two runs
  share a letter exactly when their difference is not significant in that
  same family;
- with ``bootstrap`` > 0, **marginal** bootstrap intervals of each run's rank
  alone (``marginal_low``, ``marginal_high``): the (1 - c) / 2 and (1 + c) / 2
  quantiles of the run's rank over resamples of the queries (Efron &
  Tibshirani 1993; not simultaneous, and not a test).

A point rank is 1 + the number of runs with a strictly better score (tied
runs share the best rank). A measure without a better direction (a count such
as NumRet) cannot be ranked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from irpref.errors import UsageError
from irpref.stats.bootstrap import draw_counts
from irpref.stats.pairwise import Pairwise
from irpref.stats.seeds import reseed
from irpref.stats.table import check_correction, pairwise_list, significance

__all__ = ["FWER_CORRECTIONS", "RANK_COLUMNS", "RANK_TESTS", "leaderboard", "letter_display",
           "measure_board", "point_ranks", "rank_bounds", "ranks_from_tests", "run_scores",
           "significant_matrix"]

RANK_COLUMNS = ["run", "measure", "mean", "rank", "rank_low", "rank_high", "group"]

RANK_TESTS = ("paired", "t", "wilcoxon", "sign", "hsd", "tukey")
"""Tests a leaderboard may read (``paired``: t, or sign for a sign preference)."""

FWER_CORRECTIONS = ("holm", "bonferroni")
"""Corrections that control the family-wise error (with hsd / tukey: none)."""


def leaderboard(
    tables,
    test: str = "paired",
    *,
    correction: str | None = None,
    alpha: float = 0.05,
    bootstrap: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
    permutations: int = 10_000,
    kinds: dict[str, str] | None = None,
    tester: Callable[..., pd.DataFrame] | None = None,
) -> pd.DataFrame:
    """The leaderboard of the runs in ``tables`` (as :func:`irpref.stats.significance`
    reads them): one row per measure and run, best first, columns
    :data:`RANK_COLUMNS` (plus ``marginal_low``, ``marginal_high`` with ``bootstrap``
    > 0, and ``seed`` when hsd or the bootstrap drew random numbers).

    ``test`` and ``correction`` (default: holm, none for hsd / tukey) form one
    family over all pairs of each measure; a pair is significant when its adjusted
    p < ``alpha``. See the module doc for the columns. ``tester``: what runs the
    tests, with :func:`irpref.stats.significance`'s signature (default: it; the
    CLI's ``--dask`` passes :func:`irpref.distributed.significance`).
    """
    if test not in RANK_TESTS:
        raise UsageError(f"test must be one of {', '.join(RANK_TESTS)}, not {test!r}")
    correction = check_correction([test], correction)
    tests = (tester or significance)(tables, test, correction=correction, family="measure",
                                     ci="none", bootstrap=0, seed=seed,
                                     permutations=permutations, kinds=kinds)
    board = ranks_from_tests(tables, tests, alpha, bootstrap=bootstrap, seed=seed,
                             confidence=confidence, kinds=kinds)
    if test in ("hsd",) or bootstrap:
        board["seed"] = seed
    board.attrs.update(test=test, correction=correction, alpha=alpha, bootstrap=bootstrap,
                       seed=seed, confidence=confidence)
    return board


def ranks_from_tests(tables, tests: pd.DataFrame, alpha: float, *, bootstrap: int = 0,
                     seed: int = 0, confidence: float = 0.95,
                     kinds: dict[str, str] | None = None) -> pd.DataFrame:
    """The leaderboard of ``tables`` read from ``tests``, the rows of
    :func:`irpref.stats.significance` over every pair of each measure (whatever
    their family): a pair is significant when its ``p_adjusted`` < ``alpha``. The
    one test result that decides a report's verdicts ranks its runs too."""
    pairwise = {pw.measure: pw for pw in pairwise_list(tables, kinds)}
    parts = [measure_board(pairwise[str(measure)], rows, alpha, bootstrap, seed, confidence)
             for measure, rows in tests.groupby("measure", sort=False)]
    if not parts:
        return pd.DataFrame(columns=RANK_COLUMNS)
    return pd.concat(parts, ignore_index=True)


def measure_board(pw: Pairwise, rows: pd.DataFrame, alpha: float, bootstrap: int = 0,
                  seed: int = 0, confidence: float = 0.95) -> pd.DataFrame:
    """The leaderboard rows of one measure, from its tests ``rows``."""
    sign = pw.sign
    if sign == 0:
        raise UsageError(f"{pw.measure} has no better direction (its record says so): "
                         "nothing to rank")
    scores = run_scores(pw)
    with np.errstate(invalid="ignore"):
        mean = np.nanmean(scores, axis=1) if scores.shape[1] else np.full(pw.n_runs, np.nan)
    better = significant_matrix(rows, pw.runs, alpha)
    low, high = rank_bounds(better)
    rank = point_ranks(mean, sign)
    order = np.lexsort((np.arange(pw.n_runs), rank))
    board = pd.DataFrame({
        "run": pw.runs, "measure": pw.measure, "mean": mean, "rank": rank,
        "rank_low": low, "rank_high": high,
        "group": letter_display(better | better.T, order),
    })
    if bootstrap:
        m_low, m_high = marginal_ranks(scores, sign, bootstrap,
                                       reseed(seed, f"rank:{pw.measure}"), confidence)
        board["marginal_low"], board["marginal_high"] = m_low, m_high
    return board.iloc[order].reset_index(drop=True)


def run_scores(pw: Pairwise, ranking: str | None = None) -> np.ndarray:
    """(R, Q) per-query scores whose mean over queries ranks the runs: a metric's values;
    a preference's per-query mean preference over the other runs (``ranking="mean"``:
    sum_b Delta_q(a, b) / (R - 1)) or Borda points (``ranking="borda"``: the runs below
    plus half the runs tied, over the per-query mean-preference order; as
    :func:`irpref.aggregate.borda`), as the preference's record says (``ranking``
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


def significant_matrix(rows: pd.DataFrame, runs: Sequence[str], alpha: float) -> np.ndarray:
    """(R, R) boolean: ``better[i, j]`` when run i is significantly better than run j
    (adjusted p < alpha, in the direction of the test by the measure's orientation:
    the oriented mean difference, wins - losses for the sign test)."""
    index = {str(r): k for k, r in enumerate(runs)}
    a = rows["run_a"].astype(str).map(index).to_numpy(np.intp)
    b = rows["run_b"].astype(str).map(index).to_numpy(np.intp)
    direction = test_directions(rows)
    significant = (rows["p_adjusted"].to_numpy(np.float64) < alpha) & (direction != 0)
    better = np.zeros((len(runs), len(runs)), bool)
    up = significant & (direction > 0)
    down = significant & (direction < 0)
    better[a[up], b[up]] = True
    better[b[down], a[down]] = True
    return better


def test_directions(rows: pd.DataFrame) -> np.ndarray:
    """+1 / -1 / 0 per significance row: run_a better / worse than run_b by the
    measure's orientation (the sign of the mean, of wins - losses for the sign test)."""
    from irpref.measures.base import ORIENTATION_SIGNS

    orient = rows["orientation"].map(ORIENTATION_SIGNS).fillna(0).to_numpy(np.float64)
    mean = np.sign(rows["mean"].to_numpy(np.float64)) * orient
    wins = rows["wins"].to_numpy(np.float64, na_value=np.nan)
    losses = rows["losses"].to_numpy(np.float64, na_value=np.nan)
    with np.errstate(invalid="ignore"):
        direction = np.where(rows["test"].to_numpy(object) == "sign", np.sign(wins - losses),
                             mean)
    return np.where(orient == 0, 0.0, np.nan_to_num(direction))


def rank_bounds(better: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rank_low, rank_high) of every run from ``better[i, j]`` (i significantly better
    than j): 1 + the runs significantly better, R - the runs significantly worse."""
    better = np.asarray(better, bool)
    r = better.shape[0]
    return 1 + better.sum(0), r - better.sum(1)


def point_ranks(score: np.ndarray, sign: int) -> np.ndarray:
    """1 + the number of runs with a strictly better score along axis 0 (``sign`` +1:
    higher is better, -1: lower); ties share the best rank; a NaN score ranks last."""
    from scipy.stats import rankdata

    s = np.asarray(score, dtype=np.float64) * -sign  # smaller is better now
    s = np.where(np.isnan(s), np.inf, s)
    return rankdata(s, axis=0, method="min").astype(np.int64)


LETTERS = ("abcdefghijklmnopqrstuvwxyz" "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
           + "".join(chr(c) for c in range(0x3B1, 0x3CA) if c != 0x3C2))
"""The first letters of a display; beyond them, CJK ideographs (one character each)."""


def letter(k: int) -> str:
    """The k-th letter (0-based): a-z, A-Z, Greek, then CJK ideographs."""
    return LETTERS[k] if k < len(LETTERS) else chr(0x4E00 + k - len(LETTERS))


def letter_display(different: np.ndarray, order: Sequence[int] | None = None) -> list[str]:
    """A compact letter display: per run, a string of letters such that two runs share
    a letter exactly when ``different[i, j]`` is False (their difference is not
    significant).

    The letters are the maximal cliques of the graph of not-significantly-different
    runs, the sets the insert-absorb algorithm converges to (Piepho, "An algorithm
    for a letter-based representation of all-pairwise comparisons", J. Comput.
    Graph. Stat. 13, 2004: start from one letter holding every run, split each
    letter holding a significant pair in two, absorb letters inside others); they
    are found here directly by Bron-Kerbosch with pivoting (Tomita, Tanaka &
    Takahashi 2006), which stays fast when most pairs differ. Piepho's sweep then
    drops, smallest first, every letter whose pairs and runs other letters still
    cover. A significant pair never shares a letter (a clique holds none) and a
    non-significant pair always does (it lies in a maximal clique, and the sweep
    keeps it covered). Letters are named in ``order`` (default: run order): ``a``
    is the letter of the first run. Few letters, not a proven minimum (finding that
    is NP-hard).
    """
    diff = np.asarray(different, bool)
    r = diff.shape[0]
    if r == 0:
        return []
    alike = ~diff
    np.fill_diagonal(alike, False)
    neighbours = [_bits(np.flatnonzero(alike[i])) for i in range(r)]
    letters = _sweep(_maximal_cliques(neighbours, r), r)
    order = np.arange(r) if order is None else np.asarray(order, dtype=np.intp)
    position = np.empty(r, np.intp)
    position[order] = np.arange(r)
    members = [list(_members(c)) for c in letters]
    letters = [c for _, c in sorted(zip((min(position[m]) for m in members), letters),
                                    key=lambda x: x[0])]
    groups = [""] * r
    for k, c in enumerate(letters):
        name = letter(k)
        for j in _members(c):
            groups[j] += name
    return groups


def _bits(indices) -> int:
    """A Python int with the bits ``indices`` set."""
    out = 0
    for i in indices:
        out |= 1 << int(i)
    return out


def _members(bits: int):
    """The set bits of ``bits``, ascending."""
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


def _maximal_cliques(neighbours: list[int], r: int) -> list[int]:
    """Every maximal clique (as a bitset) of the graph ``neighbours`` (bitsets), by
    Bron-Kerbosch with Tomita's pivot, without recursion."""
    out = []
    stack = [(0, (1 << r) - 1, 0)]  # (clique, candidates, excluded)
    while stack:
        clique, cand, excluded = stack.pop()
        if not cand:
            if not excluded:
                out.append(clique)
            continue
        pivot = max(_members(cand | excluded), key=lambda u: (cand & neighbours[u]).bit_count())
        for v in _members(cand & ~neighbours[pivot]):
            bit = 1 << v
            stack.append((clique | bit, cand & neighbours[v], excluded & neighbours[v]))
            cand &= ~bit
            excluded |= bit
    return out


def _sweep(cliques: list[int], r: int) -> list[int]:
    """Drop, smallest first, each letter whose every run and pair of runs another kept
    letter still holds: ``count[i, j]`` letters hold both i and j (``count[i, i]``: i)."""
    kept = sorted(cliques, key=lambda c: (c.bit_count(), c))
    runs = [np.fromiter(_members(c), np.intp) for c in kept]
    count = np.zeros((r, r), np.int32)
    for idx in runs:
        count[np.ix_(idx, idx)] += 1
    alive = []
    for c, idx in zip(kept, runs):
        block = np.ix_(idx, idx)
        if count[block].min() >= 2:  # every run and pair of c is in another letter
            count[block] -= 1
        else:
            alive.append(c)
    return alive


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
