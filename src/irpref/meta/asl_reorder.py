"""System reordering from MAP to atomized search length (Alex, Hall &
Metzler, "Atomized Search Length: Beyond User Models", section 4.4, Table 2)
and MAP's effective share of the top of the ranking (section 3.2, Appendix
A.1).

The MAP -> ASL path of :data:`irpref.asl.ABLATION`, each metric being an
``across``-mean over queries of a ``within``-mean over a query's relevant
documents of a per-document rate (:func:`irpref.asl.search_lengths`):

    MAP                      precision (rel+1)/rank, arithmetic / arithmetic
    atomize P                1/ASL_{q,d},            arithmetic / arithmetic
    harmonic within queries  1/ASL_{q,d},            harmonic   / arithmetic
    harmonic across queries  1/ASL_{q,d},            harmonic   / harmonic  (= 1/ASL)
    ASL                      ASL_{q,d},              arithmetic / arithmetic (lower better)

Table 2 rows compare each step with the previous one ("atomize P": MAP ->
atomize P; ...; "harmonic across queries": harmonic within -> 1/ASL) and
``cumulative`` MAP -> ASL:

- ``kendall_tau``: Kendall's tau-b between the two system orderings;
- ``delta_value``: mean over systems of new / old (cumulative: 1/ASL / MAP,
  as the paper compares AP with 1/ASL);
- ``delta_sort_max`` / ``delta_sort_mean``: ``ΔSort_s = 100 |n_0 - n_1| / |S|``
  with n the number of systems *better* than s under the old / new metric,
  max (the paper's per-track figure) and mean over systems. t is better than
  s when its value is at least 10 % better (relative to s's, in the metric's
  direction) and a two-tailed paired Student t test on the per-query values
  gives p <= 0.05. Per-query values: the within-query means (for
  ``harmonic across queries`` too: the harmonic mean over queries is a
  function of them); ASL: the per-query mean search length.

:func:`asl_effective_share`: per run, the fraction of its smallest search
lengths whose plain mean equals its P-space (harmonic) mean
(:func:`irpref.asl.effective_fraction`; the paper: MAP averages "the top 57 %
± 16" of the relevant documents across TREC tracks).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from irpref.errors import UsageError
from irpref.judging.judged import JudgedRankings
from irpref.meta.pairwise import judged_for
from irpref.stats import paired_t

__all__ = ["asl_effective_share", "asl_reordering", "asl_steps", "better_counts"]

STEPS = (
    ("MAP", "precision", "arithmetic", "arithmetic"),
    ("atomize P", "atomized", "arithmetic", "arithmetic"),
    ("harmonic within queries", "atomized", "harmonic", "arithmetic"),
    ("harmonic across queries", "atomized", "harmonic", "harmonic"),
    ("ASL", "search_length", "arithmetic", "arithmetic"),
)
# the measure record giving each step's direction; the atomized steps average
# rates 1/ASL_{q,d} (a reciprocal search length: higher is better by construction)
RECORDS = {"MAP": "AP", "ASL": "ASL"}


def _higher_is_better(step: str) -> bool:
    """A step's direction: from its measure record (``orientation``), else a rate."""
    from irpref.measures import parse_measure

    name = RECORDS.get(step)
    return True if name is None else parse_measure(name).orientation == "higher"


def _table(qrels, runs, judged, rel, table):
    from irpref.asl import search_lengths

    if table is not None:
        return table
    return search_lengths(judged=judged_for(qrels, runs, judged, rel))


def _hmean(x: np.ndarray, axis: int) -> np.ndarray:
    """Harmonic mean ignoring NaN: 1 / mean(1/x); a zero gives 0, inf adds 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.nanmean(1.0 / x, axis=axis)
        return np.where(inv == 0, np.inf, 1.0 / inv)


def asl_steps(table: pd.DataFrame) -> dict[str, tuple[np.ndarray, np.ndarray, bool]]:
    """name -> (scores (R,), per-query values (R, Q) NaN where a run lacks the
    query, higher_is_better), runs in first-appearance order."""
    from irpref.asl import rates

    runs = pd.unique(table["run"])
    queries = pd.unique(table["query"])
    ri = pd.Index(runs).get_indexer(table["run"])
    qi = pd.Index(queries).get_indexer(table["query"])
    cell = ri * len(queries) + qi
    size = len(runs) * len(queries)
    count = np.bincount(cell, minlength=size).astype(np.float64)
    out = {}
    for name, rate, within, across in STEPS:
        x = rates(table, rate)
        with np.errstate(divide="ignore", invalid="ignore"):
            if within == "arithmetic":
                per = np.bincount(cell, weights=x, minlength=size) / count
            else:
                inv = np.bincount(cell, weights=1.0 / x, minlength=size) / count
                per = np.where(inv == 0, np.inf, 1.0 / inv)
        per = np.where(count > 0, per, np.nan).reshape(len(runs), len(queries))
        score = np.nanmean(per, axis=1) if across == "arithmetic" else _hmean(per, 1)
        out[name] = (score, per, _higher_is_better(name))
    return out


def better_counts(score: np.ndarray, per_query: np.ndarray, higher: bool, *,
                  margin: float = 0.10, alpha: float = 0.05) -> np.ndarray:
    """(R,) number of systems better than each system: at least ``margin``
    relatively better and paired two-tailed t p <= ``alpha`` (Table 2)."""
    r = len(score)
    a, b = np.triu_indices(r, 1)
    with np.errstate(invalid="ignore"):
        d = per_query[a] - per_query[b]  # inf - inf: NaN, left out of the test
    _, p, _ = paired_t(d)
    pm = np.ones((r, r))
    pm[a, b] = pm[b, a] = np.where(np.isnan(p), 1.0, p)
    s = score if higher else -score
    with np.errstate(invalid="ignore"):
        gain = s[:, None] - s[None, :]  # [t, s]: how much t beats s
        rel_ok = gain >= margin * np.abs(score)[None, :]
    better = rel_ok & (pm <= alpha)
    np.fill_diagonal(better, False)
    return better.sum(axis=0)


def kendall_tau(x, y):
    return float(stats.kendalltau(x, y).statistic)


def asl_reordering(
    qrels=None, runs=None, *, rel: int = 1, margin: float = 0.10, alpha: float = 0.05,
    judged: JudgedRankings | None = None, table: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """``step, from, to, kendall_tau, delta_value, delta_sort_max,
    delta_sort_mean`` (Table 2 on one collection; see module docstring)."""
    if not 0 < alpha < 1:
        raise UsageError(f"alpha={alpha}: must be in (0, 1)")
    if not margin >= 0:
        raise UsageError(f"margin={margin}: must be >= 0")
    steps = asl_steps(_table(qrels, runs, judged, rel, table))
    names = [s[0] for s in STEPS]
    pairs = [(names[i + 1], names[i], names[i + 1]) for i in range(3)]
    pairs.append(("cumulative", "MAP", "ASL"))
    counts = {n: better_counts(*steps[n], margin=margin, alpha=alpha) for n in names}
    n_sys = len(steps["MAP"][0])
    rows = []
    for label, old, new in pairs:
        so, _, ho = steps[old]
        sn, _, hn = steps[new]
        oriented_o = so if ho else -so
        oriented_n = sn if hn else -sn
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = (1.0 / sn) / so if new == "ASL" else sn / so
        ds = 100.0 * np.abs(counts[old] - counts[new]) / n_sys
        rows.append({"step": label, "from": old, "to": new,
                     "kendall_tau": kendall_tau(oriented_o, oriented_n),
                     "delta_value": float(np.mean(ratio[np.isfinite(ratio)])),
                     "delta_sort_max": float(ds.max()), "delta_sort_mean": float(ds.mean())})
    return pd.DataFrame(rows)


def asl_effective_share(
    qrels=None, runs=None, *, rel: int = 1, judged: JudgedRankings | None = None,
    table: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """``run, documents, effective_share``: Appendix A.1 per run over all its
    relevant documents (every query)."""
    from irpref.asl import effective_fraction

    t = _table(qrels, runs, judged, rel, table)
    rows = [{"run": run, "documents": len(g),
             "effective_share": effective_fraction(g["search_length"].to_numpy(np.float64))}
            for run, g in t.groupby("run", sort=False)]  # one call per run
    return pd.DataFrame(rows, columns=["run", "documents", "effective_share"])
