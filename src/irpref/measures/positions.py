"""Positions of the relevant items of every ranking, with imputation.

Diaz & Mitra 2023 (lexirecall), §2.1-2.2: for a query with ``m`` relevant
items, ``p`` is the ``m``-vector of their sorted positions (1-based) in the
ranking. A run ranks only its top ``ñ`` items, so the positions of the
``k = m - m̃`` relevant items it did not retrieve are *imputed*:

- ``pessimistic``: at the bottom of a corpus of ``n`` items, positions
  ``n-k+1, ..., n`` (the paper's choice; needs ``n``);
- ``optimistic``: right after the last retrieved item, ``ñ+1, ..., ñ+k``;
- ``none``: left undefined (NaN); exposure-based measures then give those
  items exposure 0, the limit ``n -> inf`` of §2.2 and trec_eval's convention.

Every measure of :mod:`recall_level` and :mod:`search_length` reads this one
flat layout: for segment ``s`` (run x query) the ``m_q`` *slots*
``offsets[s]:offsets[s+1]`` hold recall levels ``1..m_q`` in order, the
retrieved relevant items first (in rank order), then the unretrieved ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from irpref.errors import UsageError
from irpref.judging.judged import JudgedRankings

__all__ = [
    "IMPUTATIONS",
    "RelevantPositions",
    "TieCounts",
    "impute",
    "relevant_positions",
    "resolve_corpus_size",
    "tie_counts",
]

IMPUTATIONS = ("pessimistic", "optimistic", "none")


@dataclass(frozen=True)
class RelevantPositions:
    """Positions ``p`` of the relevant items of every segment (flat slots)."""

    offsets: np.ndarray  # (S+1,) slots of segment s at [offsets[s], offsets[s+1])
    segment: np.ndarray  # int64 per slot
    level: np.ndarray  # int64 per slot: recall level i (1-based)
    position: np.ndarray  # float64 per slot: p_i (imputed; NaN if impute="none")
    retrieved: np.ndarray  # bool per slot
    m: np.ndarray  # (S,) relevant items of the segment's query
    m_ret: np.ndarray  # (S,) relevant items retrieved (within the cut-off)
    n_ret: np.ndarray  # (S,) items retrieved (within the cut-off): ñ
    n: float | None  # corpus size used for pessimistic imputation

    @property
    def m_of_slot(self) -> np.ndarray:
        return self.m[self.segment]

    def segment_sum(self, values: np.ndarray) -> np.ndarray:
        """(S,) sum of a per-slot array within each segment."""
        return np.bincount(self.segment, weights=values, minlength=len(self.m))

    def first(self) -> np.ndarray:
        """(S,) p_1 (NaN where m = 0)."""
        return self._at(self.offsets[:-1], self.m > 0)

    def last(self) -> np.ndarray:
        """(S,) p_m (NaN where m = 0)."""
        return self._at(self.offsets[1:] - 1, self.m > 0)

    def _at(self, idx: np.ndarray, ok: np.ndarray) -> np.ndarray:
        out = np.full(len(self.m), np.nan)
        out[ok] = self.position[idx[ok]]
        return out


def resolve_corpus_size(judged: JudgedRankings, what: str, *, fallback: bool = False) -> float:
    """The corpus size ``n``: ``judged.corpus_size``; else ``judged.n_docs``
    when ``fallback`` (the RPP paper's convention), else a ValueError."""
    if judged.corpus_size is not None:
        if judged.corpus_size < 1:
            raise ValueError(f"corpus_size must be positive, not {judged.corpus_size}")
        return float(judged.corpus_size)
    if fallback:
        return float(judged.n_docs)
    raise UsageError(  # a request irpref cannot honour (exit 2), not bad data
        f"{what} imputes unretrieved relevant documents at the bottom of the corpus and "
        "needs its size n: pass corpus_size=N (CLI: --corpus-size N), "
        "or use impute=optimistic"
    )


def relevant_positions(
    judged: JudgedRankings,
    *,
    rel: int,
    cutoff: int | None = None,
    impute: str = "pessimistic",
    n: float | None = None,
) -> RelevantPositions:
    """Sorted positions of the relevant items (grade >= ``rel``) of every
    segment; items ranked at ``cutoff`` or below count as unretrieved;
    unretrieved items are placed by ``impute`` (``n`` for ``pessimistic``).
    """
    if impute not in IMPUTATIONS:
        raise ValueError(f"impute must be one of {', '.join(IMPUTATIONS)}, not {impute!r}")
    n_seg = judged.n_segments
    rel_item = judged.relevant(rel)
    if cutoff is not None:
        rel_item = rel_item & (judged.rank < cutoff)
    m_ret = np.bincount(judged.segment[rel_item], minlength=n_seg)
    n_ret = judged.n_retrieved
    if cutoff is not None:
        n_ret = np.minimum(n_ret, cutoff)
    m = np.tile(judged.num_rel(rel), judged.n_runs)
    offsets = np.zeros(n_seg + 1, np.int64)
    np.cumsum(m, out=offsets[1:])
    segment = np.repeat(np.arange(n_seg, dtype=np.int64), m)
    level = np.arange(len(segment), dtype=np.int64) - offsets[:-1][segment] + 1
    retrieved = level <= m_ret[segment]
    position = np.empty(len(segment), np.float64)
    position[retrieved] = judged.rank[rel_item] + 1.0
    miss = ~retrieved
    j = (level - m_ret[segment])[miss]  # 1..k among the unretrieved
    if impute == "pessimistic":
        if n is None:
            raise ValueError("pessimistic imputation needs the corpus size n")
        k = (m - m_ret)[segment][miss]
        position[miss] = n - k + j
        short = n_ret + (m - m_ret) > n
        if np.any(short):
            s = int(np.flatnonzero(short)[0])
            raise ValueError(
                f"corpus size {int(n)} is smaller than the {int(n_ret[s])} retrieved plus "
                f"{int(m[s] - m_ret[s])} unretrieved relevant documents of run "
                f"{judged.run_names[s // judged.n_queries]!r}, query "
                f"{judged.queries[s % judged.n_queries]!r}"
            )
    elif impute == "optimistic":
        position[miss] = n_ret[segment][miss] + j
    else:
        position[miss] = np.nan
    return RelevantPositions(
        offsets=offsets,
        segment=segment,
        level=level,
        position=position,
        retrieved=retrieved,
        m=m,
        m_ret=m_ret,
        n_ret=n_ret,
        n=n,
    )


@dataclass(frozen=True)
class TieCounts:
    """Per tie group (equal scores in a segment), every group, the counts the
    position measures' exact expectations over the orderings of tied items read
    (McSherry & Najork 2008; the groups holding a relevant item, with their
    items, are :class:`irpref.measures.ties.TieGroups`)."""

    segment: np.ndarray  # (G,) segment of the group
    start: np.ndarray  # (G,) 0-based rank of the group's first item
    size: np.ndarray  # (G,) items in the group
    n_rel: np.ndarray  # (G,) relevant items in the group
    nonrel_before: np.ndarray  # (G,) non-relevant items ranked above the group


def tie_counts(judged: JudgedRankings, rel: int) -> TieCounts:
    """:class:`TieCounts` of ``judged`` at relevance level ``rel``."""
    starts = judged.tie_offsets[:-1]
    size = np.diff(judged.tie_offsets)
    group = np.repeat(np.arange(len(size), dtype=np.int64), size)
    is_rel = judged.relevant(rel)
    n_rel = np.bincount(group[is_rel], minlength=len(size)) if len(size) else size
    nonrel = (~is_rel).astype(np.int64)
    cum = np.cumsum(nonrel)
    seg_start = judged.offsets[:-1][judged.tie_segment]
    before_seg = np.concatenate(([0], cum))[seg_start]
    before_group = np.concatenate(([0], cum))[starts]
    return TieCounts(
        segment=judged.tie_segment,
        start=judged.rank[starts] if len(starts) else starts,
        size=size,
        n_rel=n_rel,
        nonrel_before=before_group - before_seg,
    )


def impute(
    retrieved: np.ndarray, m: int, n_ret: int, impute: str = "pessimistic", n: float | None = None
) -> np.ndarray:
    """Reference (one query) form of :func:`relevant_positions`: the sorted
    positions ``retrieved`` (1-based, ``<= n_ret``) of the retrieved relevant
    items completed to ``m`` positions (Diaz & Mitra 2023 §2.2, Fig. 1)."""
    p = np.sort(np.asarray(retrieved, dtype=np.float64))
    k = m - len(p)
    if k < 0:
        raise ValueError(f"{len(p)} retrieved relevant items but only m = {m}")
    j = np.arange(1, k + 1, dtype=np.float64)
    if impute == "pessimistic":
        if n is None:
            raise ValueError("pessimistic imputation needs the corpus size n")
        if n < n_ret + k:
            raise ValueError(f"corpus size {n} < {n_ret} retrieved + {k} unretrieved relevant")
        rest = n - k + j
    elif impute == "optimistic":
        rest = n_ret + j
    elif impute == "none":
        rest = np.full(k, np.nan)
    else:
        raise ValueError(f"impute must be one of {', '.join(IMPUTATIONS)}, not {impute!r}")
    return np.concatenate((p, rest))
