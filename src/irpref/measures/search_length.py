"""Atomized search length (Alex, Hall & Metzler 2022).

Per relevant document d of query q (§3.1):

- Eq. 1-2: ``ASL_{q,d} = irrel_{q,d} + 1 = rank_{q,d} - rel_{q,d}``: the
  non-relevant documents ranked above d, plus one. "Non-relevant" is every
  retrieved document that is not relevant (grade < rel), *unjudged ones
  included*: Eq. 2 counts ranks, and §3.3 stresses that ASL does not
  "confine its calculations to judged documents only" (unlike bpref).
- Eq. 3 (``missing=retrieved``, the default): a relevant document the run did
  not retrieve scores ``irrel_q``, the number of non-relevant documents the
  run retrieved (no "+1", as printed; a run retrieving no non-relevant
  document scores 0 there).
- ``missing=after``: unretrieved relevant documents sit right after the last
  retrieved one, scoring ``irrel_q + 1`` (the optimistic imputation of Diaz &
  Mitra 2023 §2.2; Eq. 3 plus one, so never better than a retrieved one).
- ``missing=corpus``: unretrieved relevant documents sit at the bottom of a
  corpus of n documents, so each scores ``n - m + 1`` (Diaz & Ferraro 2022,
  §5.1, the RPP paper's ASL baseline). n is ``corpus_size`` when given,
  else the number of distinct documents in the qrels and all runs
  (``JudgedRankings.n_docs``), as that paper does.
- Eq. 4: mean over the query's m relevant documents, then over queries.
- Eq. 5 (``golds=g``, ASL@g1-g): the first g relevant documents in rank
  order (unretrieved ones after the retrieved), divided by ``min(g, m)``
  (the paper divides by g, assuming m >= g).

Lower is better; 1 is optimal. A query without relevant documents is NaN
(undefined), skipped by the mean. An ``@k`` cut-off treats documents below
rank k as unretrieved. ``ties="expected"``: the exact expectation over all
orderings of tied scores (linear: each tied non-relevant document is above a
relevant one of its group with probability 1/2), without ``golds``/``@k``.
"""

from __future__ import annotations

import numpy as np

from irpref.judging.judged import JudgedRankings
from irpref.measures.base import (
    Measure,
    Param,
    attach_kernel,
    register,
    rel_param,
)
from irpref.measures.positions import (
    RelevantPositions,
    relevant_positions,
    resolve_corpus_size,
    tie_counts,
)
from irpref.measures.search_length_bounds import asl_bounds

__all__ = ["MISSING", "search_length_slots"]

MISSING = ("retrieved", "after", "corpus")


def search_length_slots(
    judged: JudgedRankings,
    *,
    rel: int,
    cutoff: int | None = None,
    missing: str = "retrieved",
) -> tuple[RelevantPositions, np.ndarray]:
    """Per relevant item (slot, see :mod:`positions`) its atomized search length."""
    if missing == "corpus":
        n = resolve_corpus_size(judged, "ASL(missing=corpus)", fallback=True)
        pos = relevant_positions(judged, rel=rel, cutoff=cutoff, impute="pessimistic", n=n)
        return pos, pos.position - (pos.level - 1)  # = n - m + 1 when unretrieved
    if missing not in MISSING:
        raise ValueError(f"missing must be one of {', '.join(MISSING)}, not {missing!r}")
    pos = relevant_positions(judged, rel=rel, cutoff=cutoff, impute="optimistic")
    sl = pos.position - (pos.level - 1)  # rank - relevant above (Eq. 2)
    if missing == "after":  # optimistic imputation: irrel_q + 1
        return pos, sl
    irrel = (pos.n_ret - pos.m_ret)[pos.segment]  # Eq. 3
    return pos, np.where(pos.retrieved, sl, irrel.astype(np.float64))


def _mean_over_golds(pos: RelevantPositions, sl: np.ndarray, golds, judged) -> np.ndarray:
    if golds is not None:
        if golds < 1:
            raise ValueError(f"ASL: golds must be a positive integer, not {golds}")
        sl = np.where(pos.level <= golds, sl, 0.0)
        count = np.minimum(pos.m, golds)
    else:
        count = pos.m
    with np.errstate(invalid="ignore", divide="ignore"):
        value = pos.segment_sum(sl) / count
    value[pos.m == 0] = np.nan
    return value.reshape(judged.n_runs, judged.n_queries)


@register(
    "ASL",
    compact=True,
    examples=("ASL", "ASL(missing=after)", "ASL(missing=corpus)", "ASL(golds=2)", "ASL@3"),
    uses_n_docs=lambda m: m.get("missing") == "corpus",
    range="[0, inf)",
    orientation="lower",
    formula="ASL = mean over relevant d of (non-relevant retrieved above d) + 1; unretrieved "
    "d: the non-relevant retrieved (missing=retrieved, Eq. 3), that + 1 (missing=after) or "
    "n - m + 1 (missing=corpus); "
    "golds=g: the first g relevant documents only, / min(g, m) (lower is better)",
    source="Alex, Hall & Metzler 2022, Atomized Search Length, §3.1 Eq. 1-5; "
    "missing=corpus: Diaz & Ferraro 2022 (RPP) §5.1",
    params={
        "golds": Param(
            int, None, "only the first g relevant documents (ASL@g1-g, Eq. 5)", range="[1, inf)"
        ),
        "missing": Param(
            str,
            "retrieved",
            "unretrieved relevant documents: retrieved (Eq. 3: non-relevant retrieved), "
            "after (non-relevant retrieved + 1) or corpus (bottom of a corpus of "
            "--corpus-size n, default: documents seen)",
            MISSING,
        ),
        "rel": rel_param(),
    },
    aggregate=np.nanmean,
    bounds=asl_bounds,
    description="atomized search length; lower is better",
)
def atomized_search_length(judged: JudgedRankings, m: Measure) -> np.ndarray:
    pos, sl = search_length_slots(
        judged, rel=m.rel(judged), cutoff=m.cutoff, missing=m.get("missing")
    )
    return _mean_over_golds(pos, sl, m.get("golds"), judged)


@attach_kernel("ASL")
def atomized_search_length_expected(judged: JudgedRankings, m: Measure) -> np.ndarray:
    if m.cutoff is not None or m.get("golds") is not None:
        raise ValueError(
            f"{m} with ties='expected' is not supported (golds= and @k are not linear in "
            "the order of tied items); use ties='docid' or plain ASL"
        )
    rel = m.rel(judged)
    pos, sl = search_length_slots(judged, rel=rel, missing=m.get("missing"))
    unretrieved = pos.segment_sum(np.where(pos.retrieved, 0.0, sl))
    g = tie_counts(judged, rel)
    per_item = g.nonrel_before + (g.size - g.n_rel) / 2.0 + 1.0
    tied = np.bincount(g.segment, weights=g.n_rel * per_item, minlength=len(pos.m))
    with np.errstate(invalid="ignore", divide="ignore"):
        value = (unretrieved + tied) / pos.m
    value[pos.m == 0] = np.nan
    return value.reshape(judged.n_runs, judged.n_queries)


# the docid/input kernels read relevant_positions only (ranks, counts); the
# tie-aware ones read positions.tie_counts, which needs every item

