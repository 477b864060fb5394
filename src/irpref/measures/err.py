"""Expected reciprocal rank (graded) and the share of the top k that is judged.

``ERR`` (Chapelle, Metzler, Zhang & Grinspan, CIKM 2009, section 4, Eq. 3-4):
a user scans down the ranking and stops at rank i, satisfied, with
probability R_i, so ERR = sum_i (1/i) R_i prod_{j<i} (1 - R_j), with
R = (2^g - 1) / 2^g_max (Eq. 2).

Conventions (irpref's decisions, stated so they can be argued with):

- ``g_max`` is the largest grade in the qrels (over all queries), as in the
  paper, where it is the top of the grading scale. ``gdeval.pl`` (the TREC Web
  track tool) fixes it to 4 instead (its ``-j`` option): ``ERR(gmax=4)`` gives
  its convention. A grade above ``gmax`` is refused.
- Grades below the relevance level ``rel`` (the evaluation's ``--rel`` unless
  the measure says ``ERR(rel=N)``) satisfy nobody (R = 0), as do unjudged
  documents and negative grades. At ``rel=1`` (the default) this is gdeval's
  treatment of grades <= 0; on qrels where ``--rel 2`` marks relevance (TREC
  DL), grade 1 then counts as not relevant, as it does for every other measure.
- The product runs over the ranking as ranked (score descending, docid
  descending under ``--ties docid``); ``ERR@k`` keeps the top k.

``Judged@k`` (ir_measures' ``Judged``): the fraction of the top k that has a
judgment of any grade (negative grades included: the document is in the
qrels), divided by min(k, number retrieved) as ir_measures does (its
``JudgedProvider``): a ranking of 28 documents all judged scores 1 at k = 100,
and an empty ranking scores 0. trec_eval's
``unj`` (``Unj@k``) counts negative grades as unjudged, so the two need not sum
to one.
"""

from __future__ import annotations

import numpy as np

from irpref.errors import UsageError
from irpref.judging.judged import NONPOOL, JudgedRankings
from irpref.measures.arithmetic import divide
from irpref.measures.base import REL, Measure, Param, attach_kernel, register
from irpref.measures.ties import TieGroups, expected_marked

__all__ = ["err", "judged_at_k", "satisfaction"]


def satisfaction(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """(items with R > 0 as flat item indices, their R = (2^g - 1) / 2^g_max)."""
    rel = max(m.rel(judged), 1)
    gmax = m.get("gmax")
    top = int(judged.qrels_grade.max(initial=0))
    if gmax is None:
        gmax = top
    elif gmax < 1:
        raise UsageError(f"{m}: gmax must be >= 1")
    elif top > gmax:
        raise UsageError(f"{m}: the qrels have grade {top} > gmax={gmax}")
    items = judged.items_with_grade(rel)
    g = judged.grade[items.index].astype(np.float64)
    return items.index, (np.exp2(g) - 1.0) / np.exp2(float(max(gmax, 1)))


ERR_TIES = ("a product over the ranks above (the cascade): not linear in the orderings of a tie "
            "group, no closed form known")


@register(
    "ERR",
    ties_note=ERR_TIES,
    bounds="monotone",
    notes="ir_measures' ERR is gdeval's (gmax fixed at 4): compare with ERR(gmax=4); the "
    "default gmax here is the largest grade in the qrels",
    compact=True,
    examples=("ERR", "ERR@3", "ERR(gmax=4)"),
    range="[0, 1]",
    formula="ERR@k = sum_{i<=k} (1/i) R_i prod_{j<i} (1 - R_j), R = (2^g - 1) / 2^gmax; "
    "grades below rel, unjudged and negative grades give R = 0",
    source="Chapelle, Metzler, Zhang & Grinspan, Expected reciprocal rank for graded "
    "relevance, CIKM 2009, section 4 (Eq. 2-4); gdeval.pl's ERR with gmax=4",
    params={
        **REL,
        "gmax": Param(int, None, "top grade of the scale (default: the largest grade in the "
                      "qrels; gdeval uses 4)"),
    },
    description="Expected reciprocal rank of a user who stops at a document with a "
    "probability growing with its grade. Tie policies: docid, input (no expected form).",
)
def err(judged: JudgedRankings, m: Measure) -> np.ndarray:
    index, r = satisfaction(judged, m)
    seg = judged.segment[index]
    rank = judged.rank[index]
    # prod_{j<i} (1 - R_j) over the satisfying items above i, multiplied out in
    # rank order one level at a time (a loop over the n-th satisfying item of
    # every ranking at once, never over queries); other items have R = 0
    if len(index):
        first = np.ones(len(index), bool)
        first[1:] = seg[1:] != seg[:-1]
        start = np.flatnonzero(first)
        nth = np.arange(len(index)) - np.repeat(start, np.diff(np.append(start, len(index))))
        order = np.argsort(nth, kind="stable")
        bounds = np.searchsorted(nth[order], np.arange(int(nth.max()) + 2))
        stay = np.ones(len(index))
        for level in range(1, len(bounds) - 1):
            at = order[bounds[level] : bounds[level + 1]]
            stay[at] = stay[at - 1] * (1.0 - r[at - 1])
        terms = r * stay / (rank + 1.0)
    else:
        terms = np.zeros(0)
    if m.cutoff is not None:
        keep = rank < m.cutoff
        seg, terms = seg[keep], terms[keep]
    sums = np.bincount(seg, weights=terms, minlength=judged.n_segments)
    return sums.reshape(judged.n_runs, judged.n_queries)


def _judged_items(judged: JudgedRankings) -> np.ndarray:
    return judged.grade != NONPOOL


@register(
    "Judged",
    bounds_note="describes the judging, not relevance: no assignment of grades to "
    "the unjudged documents applies (they would all be judged)",
    compact=True,
    compact_expected=True,
    examples=("Judged@1", "Judged@4"),
    range="[0, 1]",
    ir_measures="Judged",
    notes="ir_measures' definition (divided by min(k, number retrieved)); ir_measures breaks "
    "score ties by document id ascending, irpref as trec_eval (descending), so on rankings "
    "tied across rank k the two can differ",
    orientation="none",
    follows=("ir_measures",),
    formula="Judged@k = |documents in the top k with a judgment (any grade)| / min(k, n), "
    "n = number retrieved (0 when nothing is retrieved)",
    source="ir_measures Judged (MacAvaney et al., ECIR 2022); trec_eval's unj is the "
    "complement for qrels without negative grades",
    cutoff="required",
    description="Share of the top k that the qrels judge: a red flag for unjudged "
    "documents. Tie policies: docid, input, expected (exact: linear in the ranking).",
)
def judged_at_k(judged: JudgedRankings, m: Measure) -> np.ndarray:
    mask = _judged_items(judged) & (judged.rank < m.cutoff)
    return _per_shown(judged, judged.segment_count(mask), m.cutoff)


def _per_shown(judged: JudgedRankings, count: np.ndarray, k: int) -> np.ndarray:
    """``count / min(k, n)`` per segment, n the number retrieved; 0 where n = 0."""
    shown = np.minimum(judged.n_retrieved, k).astype(np.float64)
    return divide(np.asarray(count, dtype=np.float64).reshape(-1), shown)


@attach_kernel("Judged")
def expected_judged_at_k(judged: JudgedRankings, m: Measure) -> np.ndarray:
    """E[Judged@k] = (J_c + (k - t_c) j_c / n_c) / min(k, n), the count of judged
    items in the top k averaged over the orderings of the tie group V_c holding
    rank k (McSherry & Najork 2008, section 2.1, with "judged" for "relevant");
    min(k, n) does not depend on the ordering."""
    groups = TieGroups(judged, np.flatnonzero(_judged_items(judged)))
    return _per_shown(judged, expected_marked(judged, groups, m.cutoff), m.cutoff)


# ERR and Judged@k read the items the qrels mention only (ranks, grades)


