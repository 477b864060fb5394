"""How often runs tie, and how much the tie-break moves each measure.

McSherry & Najork (ECIR 2008, section 1) motivate tie-aware measures by the
observation that "different well-sorted permutations of result vectors can
have appreciably different performance values, large enough to affect the
relative ordering" of systems. This module measures exactly that on real
runs: per run, how many queries have tied scores among the retrieved items
and how many items sit in tie groups; per run and measure, the per-query
difference between trec_eval's docid tie-break and the tie-aware expected
value (mean over all orderings of tied items, :mod:`irpref.measures.ties`):

    diff(q) = expected(q) - docid(q);   mean |diff|, max |diff|, #{q : |diff| > tol}

and, per measure, how many run pairs the two policies order differently.

Coverage (:func:`coverage`): how much of each ranking the qrels judge, from
the ``Judged`` record (ir_measures' Judged@k, any grade, negatives included):
per run and query Judged@k at a few cut-offs and the unjudged share of the
whole ranking kept after ``depth``, 1 - Judged@N with N the longest ranking
(so Judged@N = judged / retrieved for every query).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from irpref.errors import UsageError
from irpref.evaluate import announce_missing, judge_inputs
from irpref.judging.judged import JudgedRankings
from irpref.measures import Measure, parse_measures
from irpref.params import DEFAULT_MISSING, Settings

__all__ = ["DEFAULT_JUDGED_AT", "DEFAULT_MEASURES", "Coverage", "TiesReport", "coverage",
           "tie_counts", "ties_report"]

DEFAULT_MEASURES = ["AP", "nDCG", "nDCG@10", "P@10", "RR"]
DEFAULT_JUDGED_AT = (10, 100)

TIE_COLUMNS = ["queries", "tied_queries", "items", "tied_items", "tie_groups", "largest_group"]
EFFECT_COLUMNS = [
    "docid", "expected", "mean_diff", "mean_abs_diff", "max_abs_diff", "changed", "queries",
]
ORDER_COLUMNS = ["pairs", "swapped", "kendall_tau"]


def tie_counts(judged: JudgedRankings, missing: str = "skip") -> pd.DataFrame:
    """One row per run: queries evaluated, queries with a tie among the retrieved
    items, items retrieved, items in tie groups (of size >= 2), such groups, and
    the largest group. Counts ties among the items kept after the depth cut-off."""
    mask = judged.query_mask(missing)
    sizes = np.diff(judged.tie_offsets)
    tied = sizes > 1
    seg = judged.tie_segment
    n = judged.n_segments
    tied_items = np.bincount(seg, weights=np.where(tied, sizes, 0), minlength=n)
    groups = np.bincount(seg, weights=tied, minlength=n)
    largest = np.zeros(n, np.int64)
    np.maximum.at(largest, seg, sizes)

    def per_run(values: np.ndarray) -> np.ndarray:
        return np.where(mask, values.reshape(judged.n_runs, judged.n_queries), 0).sum(axis=1)

    largest_run = np.where(mask, largest.reshape(mask.shape), 0).max(axis=1, initial=0)
    return pd.DataFrame(
        {
            "run": judged.run_names,
            "queries": mask.sum(axis=1),
            "tied_queries": per_run(groups > 0),
            "items": per_run(np.diff(judged.offsets)),
            "tied_items": per_run(tied_items).astype(np.int64),
            "tie_groups": per_run(groups).astype(np.int64),
            "largest_group": largest_run,
        }
    )


@dataclass(frozen=True)
class TiesReport:
    """The ties report: three tables (see :func:`ties_report`)."""

    ties: pd.DataFrame  # one row per run: TIE_COLUMNS
    effects: pd.DataFrame  # one row per (run, measure): EFFECT_COLUMNS
    orderings: pd.DataFrame  # one row per measure: ORDER_COLUMNS
    swaps: pd.DataFrame  # the run pairs whose order flips: measure, run_a, run_b, means
    per_query: pd.DataFrame  # run, query, measure, docid, expected, diff
    coverage: Coverage | None = None  # judged shares per run and query (:func:`coverage`)

    def tidy(self) -> pd.DataFrame:
        """Everything as one long table (run, measure, statistic, value); run-level
        tie counts have measure ``-``, system-ordering rows have run ``-``; coverage
        rows are (run, ``Judged@k``, ``mean``) and (run, ``-``, ``retrieved`` /
        ``unjudged`` / ``unjudged_rate``)."""
        ties = self.ties.melt(id_vars="run", var_name="statistic").assign(measure="-")
        effects = self.effects.melt(id_vars=["run", "measure"], var_name="statistic")
        orders = self.orderings.melt(id_vars="measure", var_name="statistic").assign(run="-")
        cols = ["run", "measure", "statistic", "value"]
        parts = [ties[cols], effects[cols], orders[cols]]
        if self.coverage is not None:
            parts.append(self.coverage.tidy()[cols])
        out = pd.concat(parts, ignore_index=True)
        out["value"] = out["value"].astype(np.float64)
        return out


def _aggregate(measure: Measure, values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    agg = measure.family.aggregate or np.mean
    return np.array([float(agg(v[m])) if m.any() else np.nan for v, m in zip(values, mask)])


def _orderings(
    measure: str, names: list[str], docid: np.ndarray, expected: np.ndarray
) -> tuple[dict[str, float], pd.DataFrame]:
    """Run pairs ordered differently by the docid and expected means (a tie in a
    mean counts as an order of its own), and Kendall's tau-b between the two."""
    i, j = np.triu_indices(len(names), k=1)
    a = np.sign(docid[i] - docid[j])
    b = np.sign(expected[i] - expected[j])
    pairs = len(i)
    den = np.sqrt(float(np.count_nonzero(a)) * float(np.count_nonzero(b)))  # tau-b
    swapped = np.flatnonzero(a != b)
    i, j = i[swapped], j[swapped]
    runs = np.asarray(names, dtype=object)
    swaps = pd.DataFrame(
        {
            "measure": measure,
            "run_a": runs[i],
            "run_b": runs[j],
            "docid_a": docid[i],
            "docid_b": docid[j],
            "expected_a": expected[i],
            "expected_b": expected[j],
        }
    )
    summary = {
        "pairs": pairs,
        "swapped": len(swapped),
        "kendall_tau": float(np.sum(a * b) / den) if den else np.nan,
    }
    return summary, swaps


def ties_report(
    qrels=None,
    runs=None,
    measures: str | Measure | Sequence[str | Measure] = tuple(DEFAULT_MEASURES),
    *,
    settings: Settings | None = None,
    rel: int = 1,
    depth: int | None = None,
    ties: str = "docid",
    missing: str = DEFAULT_MISSING,
    corpus_size: int | None = None,
    judged_only: bool = False,
    use_tag: bool = False,
    columns=None,
    tolerance: float = 1e-12,
    judged: JudgedRankings | None = None,
    judged_at: Sequence[int] = DEFAULT_JUDGED_AT,
) -> TiesReport:
    """Ties in ``runs`` and the effect of trec_eval's docid tie-break on ``measures``.

    Every measure is computed under ``ties="docid"`` and ``ties="expected"``
    (McSherry & Najork 2008) on the same judged rankings; a query *changes*
    when the two differ by more than ``tolerance``. ``judged`` (docid order)
    may be given instead of ``qrels`` and ``runs``. ``judged_at``: the
    cut-offs of the coverage tables (:func:`coverage`). The judging settings
    (``settings`` or the keywords, as :func:`irpref.evaluate` takes them) are
    those of the docid order (``ties`` must be ``docid``).
    """
    settings = Settings.resolve(settings, judged.settings if judged is not None else None,
                                rel=rel, depth=depth, ties=ties, missing=missing,
                                corpus_size=corpus_size, judged_only=judged_only,
                                use_tag=use_tag, columns=columns)
    missing = settings.missing
    parsed = parse_measures(list(measures) if not isinstance(measures, str) else measures,
                            judged_only=settings.judged_only)
    if judged is None:
        if settings.ties != "docid":
            raise UsageError(f"ties_report compares the docid order with the expected "
                             f"values: ties={settings.ties!r} is not taken")
        judged = judge_inputs(qrels, runs, settings)
    elif judged.ties not in ("docid", "expected"):
        raise ValueError(
            f"ties_report needs rankings judged with ties='docid', not {judged.ties!r}"
        )
    # judge() orders items canonically (docid) for both policies: same arrays
    docid_view = dataclasses.replace(judged, settings=judged.settings.replace(ties="docid"))
    expected_view = dataclasses.replace(judged,
                                        settings=judged.settings.replace(ties="expected"))
    announce_missing(judged, missing, stacklevel=3)
    mask = judged.query_mask(missing)
    effects, orders, swaps, per_query = [], [], [], []
    for m in parsed:
        a, b = m.compute(docid_view), m.compute(expected_view)
        effect, queries = _effect(judged, m, a, b, mask, tolerance)
        effects.append(effect)
        per_query.append(queries)
        summary, flipped = _orderings(str(m), judged.run_names, effect["docid"].to_numpy(),
                                      effect["expected"].to_numpy())
        orders.append({"measure": str(m), **summary})
        swaps.append(flipped)
    empty = pd.DataFrame(columns=["run", "measure", *EFFECT_COLUMNS])
    return TiesReport(
        ties=tie_counts(judged, missing),
        effects=pd.concat(effects, ignore_index=True) if effects else empty,
        orderings=pd.DataFrame(orders, columns=["measure", *ORDER_COLUMNS]),
        swaps=pd.concat(swaps, ignore_index=True) if swaps else pd.DataFrame(),
        per_query=pd.concat(per_query, ignore_index=True) if per_query else pd.DataFrame(),
        coverage=coverage(docid_view, judged_at, missing),
    )


def _effect(judged: JudgedRankings, m: Measure, a: np.ndarray, b: np.ndarray,
            mask: np.ndarray, tolerance: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per run, per query) effect of the docid tie-break on ``m``: values ``a``
    (docid) and ``b`` (expected), (R, Q), over the queries of ``mask``."""
    n_q = mask.sum(axis=1)
    raw = b - a  # differences within ``tolerance`` are rounding, not a tie's effect: 0
    diff = np.where(mask & (np.abs(raw) > tolerance), raw, 0.0)
    absd = np.abs(diff)

    def per_run_mean(x: np.ndarray) -> np.ndarray:
        return np.divide(x.sum(axis=1), n_q, where=n_q > 0, out=np.full(len(n_q), np.nan))

    effect = pd.DataFrame({
        "run": judged.run_names, "measure": str(m),
        "docid": _aggregate(m, a, mask), "expected": _aggregate(m, b, mask),
        "mean_diff": per_run_mean(diff), "mean_abs_diff": per_run_mean(absd),
        "max_abs_diff": absd.max(axis=1, initial=0.0),
        "changed": (absd > tolerance).sum(axis=1), "queries": n_q,
    })
    r_idx, q_idx = np.nonzero(mask)
    queries = pd.DataFrame({
        "run": np.asarray(judged.run_names, dtype=object)[r_idx],
        "query": judged.queries[q_idx], "measure": str(m),
        "docid": a[r_idx, q_idx], "expected": b[r_idx, q_idx], "diff": diff[r_idx, q_idx],
    })
    return effect, queries


@dataclass(frozen=True)
class Coverage:
    """How much of each ranking the qrels judge (see :func:`coverage`)."""

    cutoffs: tuple[int, ...]
    depth: int  # N: the longest ranking kept; unjudged_rate is 1 - Judged@N
    per_run: pd.DataFrame  # run, queries, retrieved, Judged@k..., unjudged, unjudged_rate
    per_query: pd.DataFrame  # run, query, retrieved, Judged@k..., unjudged, unjudged_rate

    def tidy(self) -> pd.DataFrame:
        """run, measure, statistic, value: (run, Judged@k, mean) and (run, -, retrieved /
        unjudged / unjudged_rate)."""
        judged = [f"Judged@{k}" for k in self.cutoffs]
        means = self.per_run.melt(id_vars="run", value_vars=judged, var_name="measure")
        counts = self.per_run.melt(id_vars="run", value_vars=["retrieved", "unjudged",
                                                             "unjudged_rate"],
                                   var_name="statistic")
        out = pd.concat([means.assign(statistic="mean"), counts.assign(measure="-")],
                        ignore_index=True)
        return out[["run", "measure", "statistic", "value"]]


def coverage(judged: JudgedRankings, cutoffs: Sequence[int] = DEFAULT_JUDGED_AT,
             missing: str = "skip") -> Coverage:
    """Judged@k per run and query (the ``Judged`` record's kernel, through
    :func:`irpref.evaluate`) and the unjudged part of each ranking kept:

        unjudged_rate(q) = 1 - Judged@N(q),  unjudged(q) = retrieved(q) * unjudged_rate(q)

    N = the longest ranking (at least 1), so Judged@N = judged / min(N, n) is
    the judged share of the whole ranking (within ``depth``); ``retrieved`` is
    ``NumRet``; unjudged_rate is undefined (NaN) where nothing is retrieved.
    Per run: Judged@k averaged over the run's queries (``missing``, as every
    mean), ``retrieved`` and ``unjudged`` summed, and ``unjudged_rate`` =
    unjudged / retrieved over all those queries. Queries follow ``missing``.
    """
    from irpref.errors import MissingQueries
    from irpref.evaluate import evaluate_with

    cuts = tuple(dict.fromkeys(int(k) for k in cutoffs))
    depth = max(int(judged.n_retrieved.max(initial=0)), 1)
    names = [f"Judged@{k}" for k in cuts]
    every = list(dict.fromkeys([*names, "NumRet", f"Judged@{depth}"]))
    with warnings.catch_warnings():  # the caller announces the queries a run lacks
        warnings.simplefilter("ignore", MissingQueries)
        tidy = evaluate_with(None, None, every, judged.evaluation(missing), judged=judged)
    wide = tidy.pivot_table(index=["run", "query"], columns="measure", values="value",
                            aggfunc="first", sort=False)
    per_query = pd.DataFrame({"run": wide.index.get_level_values(0).astype(object),
                              "query": wide.index.get_level_values(1).astype(object)})
    retrieved = wide["NumRet"].to_numpy(np.float64)
    rate = np.where(retrieved > 0, 1.0 - wide[f"Judged@{depth}"].to_numpy(np.float64), np.nan)
    per_query["retrieved"] = retrieved.astype(np.int64)
    for name in names:
        per_query[name] = wide[name].to_numpy(np.float64)
    per_query["unjudged"] = np.rint(np.nan_to_num(rate) * retrieved).astype(np.int64)
    per_query["unjudged_rate"] = rate
    order = {r: i for i, r in enumerate(judged.run_names)}
    grouped = per_query.groupby("run", sort=False)
    per_run = grouped[names].mean()
    per_run.insert(0, "queries", grouped.size())
    per_run.insert(1, "retrieved", grouped["retrieved"].sum())
    per_run["unjudged"] = grouped["unjudged"].sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        per_run["unjudged_rate"] = np.where(per_run["retrieved"] > 0, per_run["unjudged"]
                                            / per_run["retrieved"], np.nan)
    per_run = per_run.reset_index()
    per_run = per_run.iloc[np.argsort(per_run["run"].map(order).to_numpy(), kind="stable")]
    return Coverage(cuts, depth, per_run.reset_index(drop=True), per_query)
