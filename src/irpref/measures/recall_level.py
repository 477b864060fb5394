"""Recall-level metrics, total search efficiency and Cooper/Rocchio search lengths.

Diaz & Mitra 2023, "Recall, Robustness, and Lexicographic Evaluation":

- §2.3.1, Def. 2.1: a *recall-level metric* is ``mu(p) = sum_{i=1..m} e(p_i) z(i, m)``
  for an exposure ``e`` (strictly decreasing in position) and a normalization
  ``z`` of recall level ``i`` and ``m`` relevant items. The paper's pairs:

  ======  ==========================  ===============================
  name    e(i)                        z(i, m)
  ======  ==========================  ===============================
  ap      1/i                         i/m
  rr      1/i                         1 if i = 1 else 0
  ndcg    1/log2(i+1)                 1 / sum_{k<=m} 1/log2(k+1)
  rbp     (1-γ) γ^(i-1)               1
  lin     1 - i/n  (needs n)          (no z in the paper; use any)
  sl3     (TSE, Eq. 3)                1 if i = m else 0
  mean    (Rocchio's average)         1/m
  ======  ==========================  ===============================

- §3.2, Eq. 3: total search efficiency ``TSE_e = e(p_m)``; Cooper's (1968)
  type-3 search length ``SL3 = p_m - m`` and type-1 ``SL1 = p_1 - 1``;
  Rocchio's (1964) recall error ``RE = mean(p) - (m+1)/2``.
- §2.2: unretrieved relevant items are imputed (``impute=``, see
  :mod:`irpref.measures.positions`), pessimistically by default.

Registered families (``rel=`` and an ``@k`` cut-off, which treats items
below rank k as unretrieved, apply to all):

``RL(e=E,z=Z)``, ``RL-AP``, ``RL-RR``, ``RL-nDCG``, ``RL-RBP(p=γ)``,
``TSE(e=E)``, ``SL1``, ``SL3``, ``RE``. Search lengths are *lower is better*.
A query without relevant documents scores 0 for RL sums (as trec_eval) and
NaN for TSE/SL1/SL3/RE (undefined; means skip NaN).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from irpref.judging.judged import JudgedRankings
from irpref.measures.base import (
    REL,
    Measure,
    Param,
    attach_kernel,
    register,
)
from irpref.measures.positions import (
    IMPUTATIONS,
    RelevantPositions,
    relevant_positions,
    resolve_corpus_size,
    tie_counts,
)
from irpref.measures.recall_level_bounds import (
    re_bounds,
    rl_bounds,
    sl1_bounds,
    sl3_bounds,
    tse_bounds,
)
from irpref.measures.recall_metrics import (
    EXPOSURES,
    NORMALIZATIONS,
    RecallLevelMetric,
    named_metric,
)

__all__ = ["positions_for", "recall_level_values"]

# ---- kernels -------------------------------------------------------------

IMPUTE = {
    "impute": Param(
        str,
        "pessimistic",
        "unretrieved relevant items: pessimistic (bottom of a corpus of --corpus-size n), "
        "optimistic (right after the last retrieved item) or none (exposure 0)",
        IMPUTATIONS,
    )
}
IMPUTE_POSITIONS = {
    "impute": Param(
        str,
        "pessimistic",
        "unretrieved relevant items: pessimistic (bottom of a corpus of --corpus-size n) "
        "or optimistic (right after the last retrieved item)",
        IMPUTATIONS[:2],
    )
}
GAMMA = {"p": Param(float, 0.8, "RBP persistence γ (exposure rbp)", range="(0, 1)")}
E_PARAM = {"e": Param(str, None, "exposure: " + ", ".join(EXPOSURES), tuple(EXPOSURES),
                      required=True)}
Z_PARAM = {"z": Param(str, None, "normalization: " + ", ".join(NORMALIZATIONS),
                      tuple(NORMALIZATIONS), required=True)}
SOURCE = "Diaz & Mitra 2023, Recall, Robustness, and Lexicographic Evaluation"


def positions_for(judged: JudgedRankings, m: Measure) -> RelevantPositions:
    """Relevant positions under the measure's ``rel``, cut-off and ``impute``."""
    impute = m.get("impute")
    n = (
        resolve_corpus_size(judged, str(m))
        if impute == "pessimistic"
        else (float(judged.corpus_size) if judged.corpus_size is not None else None)
    )
    return relevant_positions(judged, rel=m.rel(judged), cutoff=m.cutoff, impute=impute, n=n)


def _required(m: Measure, key: str) -> str:
    value = m.get(key)
    if value is None:
        choices = ", ".join(m.family.params[key].choices or ())
        raise ValueError(f"{m.name} needs {key}=..., one of {choices} (e.g. {m.name}({key}=ap))")
    return value


def recall_level_values(judged: JudgedRankings, m: Measure, metric: RecallLevelMetric):
    """(R, Q) values of ``metric`` under the measure's imputation."""
    pos = positions_for(judged, m)
    w = metric.exposure(pos.position, pos.n) * metric.norm(pos.level, pos.m_of_slot)
    return pos.segment_sum(w).reshape(judged.n_runs, judged.n_queries)


RL_TIES = ("not derived for the recall-level metrics (z depends on the recall level of each "
           "position); TSE, SL1, SL3 and RE have one")


@register(
    "RL",
    ties_note=RL_TIES,
    compact=True,
    examples=("RL(e=ap,z=ap)", "RL(e=rbp,z=rbp,impute=optimistic)@5"),
    range="[0, inf)",
    formula="RL(e,z) = sum_{i=1..m} e(p_i) z(i, m) over the sorted positions p of the m "
    "relevant items (unretrieved ones imputed)",
    source=SOURCE + ", §2.3.1 Def. 2.1, Eq. 1",
    params={**E_PARAM, **Z_PARAM, **GAMMA, **IMPUTE, **REL},
    description="generic recall-level metric; e and z are required",
    bounds=rl_bounds,
)
def rl_generic(judged: JudgedRankings, m: Measure) -> np.ndarray:
    metric = RecallLevelMetric(_required(m, "e"), _required(m, "z"), m.get("p"))
    return recall_level_values(judged, m, metric)


def _register_named(name: str, key: str, formula: str, extra: dict[str, Any],
                    examples: tuple[str, ...], bounds: Any = "monotone") -> None:
    def kernel(judged: JudgedRankings, m: Measure) -> np.ndarray:
        gamma = m.get("p") if "p" in extra else 0.8
        return recall_level_values(judged, m, named_metric(key, gamma))

    register(
        name,
        range="[0, 1]",
        examples=examples,
        compact=True,
        formula=formula,
        source=SOURCE + ", §2.3.1",
        params={**extra, **IMPUTE, **REL},
        description=f"RL(e={key},z={key}); with impute=none it equals trec_eval's form",
        bounds=bounds,
        ties_note=RL_TIES,
    )(kernel)


_register_named("RL-AP", "ap", "sum_i (1/p_i)(i/m) = AP with p imputed", {},
                ("RL-AP", "RL-AP(impute=optimistic)"), rl_bounds)
_register_named("RL-RR", "rr", "1/p_1 = RR with p imputed", {}, ("RL-RR(impute=none)",))
_register_named(
    "RL-nDCG", "ndcg", "sum_i 1/log2(p_i+1) / sum_{k<=m} 1/log2(k+1) = binary nDCG", {},
    ("RL-nDCG@5",), rl_bounds,
)
_register_named("RL-RBP", "rbp", "sum_i (1-γ) γ^(p_i-1) = RBP(γ) with p imputed", GAMMA,
                ("RL-RBP(p=0.5)",))


@register(
    "TSE",
    compact=True,
    examples=("TSE(e=lin)", "TSE(e=ap,impute=optimistic)"),
    range="[0, 1]",
    formula="TSE_e = e(p_m): exposure of the lowest-ranked relevant item",
    source=SOURCE + ", §3.2 Eq. 3",
    params={**E_PARAM, **GAMMA, **IMPUTE, **REL},
    aggregate=np.nanmean,
    bounds=tse_bounds,
    description="total search efficiency; e is required, e.g. TSE(e=ap); "
    "equals the worst-off searcher and provider (Theorems B.1-B.2); ties=expected: exact E[e(p_m)]",
)
def total_search_efficiency(judged: JudgedRankings, m: Measure) -> np.ndarray:
    metric = RecallLevelMetric(_required(m, "e"), "sl3", m.get("p"))
    pos = positions_for(judged, m)
    value = metric.exposure(pos.last(), pos.n)
    value[pos.m == 0] = np.nan
    return value.reshape(judged.n_runs, judged.n_queries)


@register(
    "SL1",
    compact=True,
    examples=("SL1", "SL1(impute=optimistic)"),
    range="[0, inf)",
    orientation="lower",
    formula="SL1 = p_1 - 1 (Cooper's type-1 search length; lower is better)",
    bounds=sl1_bounds,
    source=SOURCE + ", §3.2 (Cooper 1968)",
    params={**IMPUTE_POSITIONS, **REL},
    aggregate=np.nanmean,
)
def search_length_1(judged: JudgedRankings, m: Measure) -> np.ndarray:
    pos = positions_for(judged, m)
    return (pos.first() - 1.0).reshape(judged.n_runs, judged.n_queries)


@register(
    "SL3",
    compact=True,
    examples=("SL3",),
    range="[0, inf)",
    orientation="lower",
    formula="SL3 = p_m - m (Cooper's type-3 search length; lower is better)",
    bounds=sl3_bounds,
    source=SOURCE + ", §3.2 (Cooper 1968)",
    params={**IMPUTE_POSITIONS, **REL},
    aggregate=np.nanmean,
)
def search_length_3(judged: JudgedRankings, m: Measure) -> np.ndarray:
    pos = positions_for(judged, m)
    return (pos.last() - pos.m).reshape(judged.n_runs, judged.n_queries)


@register(
    "RE",
    compact=True,
    examples=("RE", "RE(impute=optimistic)"),
    range="[0, inf)",
    orientation="lower",
    formula="RE = (1/m) sum_i p_i - (m+1)/2 (Rocchio's recall error; lower is better)",
    bounds=re_bounds,
    source=SOURCE + ", §3.2 (Rocchio 1964)",
    params={**IMPUTE_POSITIONS, **REL},
    aggregate=np.nanmean,
)
def recall_error(judged: JudgedRankings, m: Measure) -> np.ndarray:
    pos = positions_for(judged, m)
    return _recall_error(pos, pos.segment_sum(pos.position), judged)


def _recall_error(pos: RelevantPositions, total: np.ndarray, judged: JudgedRankings):
    with np.errstate(invalid="ignore", divide="ignore"):
        value = total / pos.m - (pos.m + 1) / 2.0
    value[pos.m == 0] = np.nan
    return value.reshape(judged.n_runs, judged.n_queries)


# ---- exact expectations over tied scores (ties="expected") ---------------
# A tie group of g items holding r relevant ones, starting after rank s, puts
# a random r-subset of positions s+1..s+g: E[min] = s + (g+1)/(r+1),
# E[max] = s + r(g+1)/(r+1), E[each] = s + (g+1)/2.


def _no_cutoff(m: Measure) -> None:
    if m.cutoff is not None:
        raise ValueError(
            f"{m} with ties='expected' is not supported: a tie group may straddle the "
            "cut-off; use --depth instead of @k, or ties='docid'"
        )


def _relevant_groups(judged: JudgedRankings, rel: int):
    g = tie_counts(judged, rel)
    keep = g.n_rel > 0
    return g.segment[keep], g.start[keep], g.size[keep], g.n_rel[keep]


@attach_kernel("SL1")
def search_length_1_expected(judged: JudgedRankings, m: Measure) -> np.ndarray:
    _no_cutoff(m)
    pos = positions_for(judged, m)
    value = pos.first() - 1.0
    seg, start, size, r = _relevant_groups(judged, m.rel(judged))
    first = np.ones(len(seg), bool)
    first[1:] = seg[1:] != seg[:-1]
    value[seg[first]] = start[first] + (size[first] + 1.0) / (r[first] + 1.0) - 1.0
    return value.reshape(judged.n_runs, judged.n_queries)


@attach_kernel("SL3")
def search_length_3_expected(judged: JudgedRankings, m: Measure) -> np.ndarray:
    _no_cutoff(m)
    pos = positions_for(judged, m)
    value = pos.last() - pos.m
    seg, start, size, r = _relevant_groups(judged, m.rel(judged))
    last = np.ones(len(seg), bool)
    last[:-1] = seg[1:] != seg[:-1]
    seg, start, size, r = seg[last], start[last], size[last], r[last]
    complete = pos.m_ret[seg] == pos.m[seg]  # otherwise p_m is imputed, not tied
    seg, start, size, r = seg[complete], start[complete], size[complete], r[complete]
    value[seg] = start + r * (size + 1.0) / (r + 1.0) - pos.m[seg]
    return value.reshape(judged.n_runs, judged.n_queries)


@attach_kernel("TSE")
def total_search_efficiency_expected(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[e(p_m)]: the last relevant item of a tie group of g items holding r
    relevant ones, after rank s, is at s + j with probability
    C(j-1, r-1) / C(g, r), j = r..g."""
    from scipy.special import gammaln  # lazy: keeps `import irpref` fast

    _no_cutoff(m)
    metric = RecallLevelMetric(_required(m, "e"), "sl3", m.get("p"))
    pos = positions_for(judged, m)
    value = metric.exposure(pos.last(), pos.n)
    value[pos.m == 0] = np.nan
    seg, start, size, r = _relevant_groups(judged, m.rel(judged))
    last = np.ones(len(seg), bool)
    last[:-1] = seg[1:] != seg[:-1]
    seg, start, size, r = seg[last], start[last], size[last], r[last]
    complete = pos.m_ret[seg] == pos.m[seg]
    seg, start, size, r = seg[complete], start[complete], size[complete], r[complete]
    count = size - r + 1  # j = r..g
    owner = np.repeat(np.arange(len(seg)), count)
    j = np.arange(len(owner)) - np.repeat(np.cumsum(count) - count, count) + r[owner]
    log_p = (gammaln(j) - gammaln(r[owner]) - gammaln(j - r[owner] + 1)
             - (gammaln(size[owner] + 1) - gammaln(r[owner] + 1)
                - gammaln(size[owner] - r[owner] + 1)))
    w = np.exp(log_p) * metric.exposure(start[owner] + j, pos.n)
    value[seg] = np.bincount(owner, weights=w, minlength=len(seg))
    return value.reshape(judged.n_runs, judged.n_queries)


@attach_kernel("RE")
def recall_error_expected(judged: JudgedRankings, m: Measure) -> np.ndarray:
    _no_cutoff(m)
    pos = positions_for(judged, m)
    imputed = pos.segment_sum(np.where(pos.retrieved, 0.0, pos.position))
    seg, start, size, r = _relevant_groups(judged, m.rel(judged))
    tied = np.bincount(seg, weights=r * (start + (size + 1.0) / 2.0), minlength=len(pos.m))
    return _recall_error(pos, imputed + tied, judged)


# the docid/input kernels read relevant_positions only (ranks, counts); the
# tie-aware ones read positions.tie_counts, which needs every item

