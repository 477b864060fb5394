"""Runs evaluated under two sets of qrels: scores, orderings, swapped pairs.

Each measure is evaluated through the public API (:func:`irpref.evaluate`,
:func:`irpref.compare`) on rankings judged once per qrels. A metric orders
the runs by its mean over queries (the family's aggregate), in the direction
its record gives (``Measure.sign``); a preference by its mean win rate (Diaz &
Ferraro 2022, Eq. 7: the row sums of the per-query preference matrix,
averaged over queries), larger is better.

Significance of a swapped pair: the paired test of :mod:`irpref.stats`
(``test="paired"``: Student's paired t test on metric differences and on real
preferences, the sign test on sign preferences), Holm-corrected over the
family of all R(R-1)/2 run pairs of one measure under one qrels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from irpref.compare import compare_table_with
from irpref.errors import UsageError
from irpref.evaluate import evaluate_with, judge_with, layout_for, summarize
from irpref.llm_judged.agreement.orderings import swapped_pairs, tau_ap, tau_b, top_overlap
from irpref.measures import parse_measure
from irpref.measures.base import with_params
from irpref.params import Settings
from irpref.preferences import parse_preference
from irpref.stats import Pairwise, pair_tests

__all__ = ["Scored", "evaluate_both", "ordering_statistics", "scores_table", "split_measures",
           "swaps_table"]

SIDES = ("a", "b")


def split_measures(names: Sequence[str], *, judged_only: bool = False
                   ) -> tuple[list[str], list[str]]:
    """(metrics, preferences) of ``names`` by their canonical names (``map`` ->
    ``AP``; under ``judged_only`` (``--judged-only``) with the modifier:
    ``AP(judged_only=true)``), the names every table is matched by and prints;
    refuses a measure with no better direction."""
    metrics, prefs = [], []
    for name in names:
        try:
            m = parse_measure(name, judged_only=judged_only)
        except UsageError as exc:
            try:
                p = parse_preference(name, judged_only=judged_only)
            except ValueError:
                raise exc from None
            prefs.append(str(p))
            continue
        if m.sign == 0:
            raise UsageError(f"{name}: its record says neither higher nor lower is better "
                             f"(orientation {m.orientation!r}), so it orders no systems")
        metrics.append(str(m))
    return list(dict.fromkeys(metrics)), list(dict.fromkeys(prefs))


@dataclass(frozen=True, eq=False)
class Scored:
    """One measure under both qrels: per-run oriented scores and per-query tables."""

    measure: str
    kind: str  # "metric" or "preference"
    sign: int
    runs: list[str]
    value_a: np.ndarray  # (R,) mean (metric) or mean win rate (preference)
    value_b: np.ndarray
    pairwise_a: Pairwise
    pairwise_b: Pairwise

    @property
    def key_a(self) -> np.ndarray:
        """Scores with larger = better under A."""
        return self.sign * self.value_a

    @property
    def key_b(self) -> np.ndarray:
        return self.sign * self.value_b


def _win_rates(pw: Pairwise, runs: list[str]) -> np.ndarray:
    """Mean over queries of the row sums of (Q, R, R) preferences (Eq. 7)."""
    at = pd.Index(pw.runs).get_indexer(runs)
    m = pw.matrix[:, at][:, :, at]
    if len(m) == 0:
        return np.full(len(runs), np.nan)
    return np.nanmean(np.nansum(m, axis=2), axis=0)


def evaluate_both(qrels_a, qrels_b, runs, measures: Sequence[str], settings: Settings,
                  extra: Sequence[str] = ()) -> tuple[list[Scored], dict[str, pd.DataFrame]]:
    """Every measure and preference of ``measures`` under ``qrels_a`` and ``qrels_b``,
    each qrels judged once with ``settings`` (its ``missing`` rule for metrics and
    preferences alike); ``extra`` metrics are evaluated on the same judged rankings
    and returned per side as tidy tables (run, query, measure, value), named as
    given and never judged-only (they describe the judging itself)."""
    metrics, prefs = split_measures(measures, judged_only=settings.judged_only)
    plain = [with_params(parse_measure(e), judged_only=False) for e in extra]
    every = list(dict.fromkeys([*metrics, *plain]))
    tables, extras = {}, {}
    as_given = settings.replace(judged_only=False)  # the names above carry the modifier
    for side, qrels in zip(SIDES, (qrels_a, qrels_b)):
        layout, count_docs = layout_for(every, prefs, settings=settings)
        judged = judge_with(qrels, runs, settings, layout=layout, count_docs=count_docs)
        results = (evaluate_with(None, None, every, as_given, judged=judged)
                   if every else None)
        tables[side] = (
            results,
            compare_table_with(None, None, prefs, as_given, judged=judged) if prefs else None,
        )
        if extra:
            got = results[results["measure"].isin([str(m) for m in plain])]
            extras[side] = got.assign(measure=got["measure"].map(
                {str(m): e for m, e in zip(plain, extra)}))
        names = list(judged.run_names)
    out = []
    for name in metrics:
        means = {s: summarize(tables[s][0][tables[s][0]["measure"] == name]) for s in SIDES}
        runs_ = [r for r in names if r in set(means["a"]["run"]) and r in set(means["b"]["run"])]
        vals = {s: means[s].set_index("run")["value"].reindex(runs_).to_numpy(np.float64)
                for s in SIDES}
        pws = {s: Pairwise.from_metric(tables[s][0], name) for s in SIDES}
        out.append(Scored(name, "metric", parse_measure(name).sign, runs_, vals["a"], vals["b"],
                          pws["a"], pws["b"]))
    for name in prefs:
        pws = {s: Pairwise.from_preference(tables[s][1], name) for s in SIDES}
        out.append(Scored(name, "preference", 1, names, _win_rates(pws["a"], names),
                          _win_rates(pws["b"], names), pws["a"], pws["b"]))
    return out, extras


def judged_table(extras: dict[str, pd.DataFrame], measure: str) -> pd.DataFrame:
    """run, query, judged_a, judged_b: ``measure`` (a Judged@k) per run and query under
    each qrels (NaN where a side does not evaluate the query), then one mean row per
    run (query null) over the queries each side evaluates."""
    parts = []
    for side in SIDES:
        t = extras[side]
        t = t[t["measure"] == measure][["run", "query", "value"]]
        parts.append(t.rename(columns={"value": f"judged_{side}"}).astype({"run": object,
                                                                          "query": object}))
    per_query = parts[0].merge(parts[1], on=["run", "query"], how="outer", sort=False)
    means = per_query.groupby("run", sort=False)[["judged_a", "judged_b"]].mean().reset_index()
    means.insert(1, "query", None)
    return pd.concat([per_query, means], ignore_index=True)


def ordering_statistics(scored: Sequence[Scored], top: int = 5) -> pd.DataFrame:
    """One row per (measure, statistic): runs, tau_b, tau_ap_a, tau_ap_b, tau_ap,
    top_overlap@k and swaps (run pairs ordered strictly one way under A and the other
    under B; their significance: :func:`swaps_table`, which runs the tests)."""
    rows = []
    for s in scored:
        ka, kb = s.key_a, s.key_b
        ta, tb = tau_ap(ka, kb), tau_ap(kb, ka)
        rows += [
            (s.measure, "runs", float(len(s.runs))),
            (s.measure, "tau_b", tau_b(ka, kb)),
            (s.measure, "tau_ap_a", ta),
            (s.measure, "tau_ap_b", tb),
            (s.measure, "tau_ap", (ta + tb) / 2.0),
            (s.measure, f"top_overlap@{top}", top_overlap(ka, kb, top)),
            (s.measure, "swaps", float(len(swapped_pairs(ka, kb)[0]))),
        ]
    return pd.DataFrame(rows, columns=["measure", "statistic", "value"])


def _adjusted_p(pw: Pairwise, runs: list[str], first: np.ndarray, second: np.ndarray):
    """Holm-adjusted p of the paired test of each pair (first[i], second[i]) (indices
    into ``runs``), read from the R x R matrix of one :func:`irpref.stats.pair_tests`."""
    if pw.n_runs < 2 or len(first) == 0:
        return np.full(len(first), np.nan)
    tests = pair_tests(pw, "paired", correction="holm", bootstrap=0)
    a, b = pw.pairs
    p = np.full((pw.n_runs, pw.n_runs), np.nan)
    p[a, b] = p[b, a] = tests["p_adjusted"].to_numpy(np.float64)
    at = pd.Index(pw.runs).get_indexer(list(runs))
    found = (at[first] >= 0) & (at[second] >= 0)
    return np.where(found, p[at[first], at[second]], np.nan)


SWAP_COLUMNS = ["measure", "better_under_a", "better_under_b", "value_a_1", "value_a_2",
                "value_b_1", "value_b_2", "p_adjusted_a", "p_adjusted_b", "significant_a",
                "significant_b"]


def _significant_swaps(s: Scored, alpha: float = 0.05) -> pd.DataFrame:
    i, j = swapped_pairs(s.key_a, s.key_b)
    names = np.asarray(s.runs, dtype=object)
    p_a = _adjusted_p(s.pairwise_a, s.runs, i, j)
    p_b = _adjusted_p(s.pairwise_b, s.runs, i, j)
    return pd.DataFrame({
        "measure": s.measure,
        "better_under_a": names[i], "better_under_b": names[j],
        "value_a_1": s.value_a[i], "value_a_2": s.value_a[j],
        "value_b_1": s.value_b[i], "value_b_2": s.value_b[j],
        "p_adjusted_a": p_a, "p_adjusted_b": p_b,
        "significant_a": p_a < alpha, "significant_b": p_b < alpha,
    }, columns=SWAP_COLUMNS)


def swaps_table(scored: Sequence[Scored], alpha: float = 0.05) -> pd.DataFrame:
    """Every swapped pair: ``better_under_a`` is ordered above ``better_under_b``
    under A and below it under B; value_a_1 / value_a_2 the two runs' scores under
    A (1 = better_under_a), value_b_1 / value_b_2 under B; Holm-adjusted p of the
    paired test under each; ``significant_under``: a, b, both or neither (p < alpha)."""
    frames = [_significant_swaps(s, alpha) for s in scored]
    out = (pd.concat(frames, ignore_index=True) if frames
           else pd.DataFrame(columns=SWAP_COLUMNS))
    sa, sb = out["significant_a"].to_numpy(bool), out["significant_b"].to_numpy(bool)
    out["significant_under"] = np.select([sa & sb, sa, sb], ["both", "a", "b"], "neither")
    return out.drop(columns=["significant_a", "significant_b"])


def scores_table(scored: Sequence[Scored]) -> pd.DataFrame:
    """measure, run, value_a, value_b, rank_a, rank_b (1 = best; ties share the best rank)."""
    frames = []
    for s in scored:
        ka, kb = s.key_a, s.key_b
        frames.append(pd.DataFrame({
            "measure": s.measure, "run": s.runs, "value_a": s.value_a, "value_b": s.value_b,
            "rank_a": (ka[None, :] > ka[:, None]).sum(axis=1) + 1,
            "rank_b": (kb[None, :] > kb[:, None]).sum(axis=1) + 1,
        }))
    return pd.concat(frames, ignore_index=True)
