"""Condensed lists: judged rankings without their unjudged documents.

Sakai (SIGIR 2007, "Alternatives to bpref") evaluates a run on its
*condensed list*: the ranking with every unjudged document removed and the
judged ones moved up, ranked 1, 2, ... in their original order. trec_eval's
``-J`` does the same (form_res_rels.c, ``judged_docs_only_flag``): after the
``-M`` depth cut it keeps the retrieved documents with a qrels grade >= 0,
in rank order, and the number retrieved becomes the number kept.

:func:`condense` is that transform on :class:`~irpref.judged.JudgedRankings`,
for both layouts and every tie policy, so every measure evaluates the
condensed lists unchanged. Under ``ties="expected"`` a tie group keeps only
its judged members (the orderings averaged over are those of the judged
documents that share a score).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from irpref.judged import JudgedRankings

__all__ = ["condense"]


def _segment_counts(keep: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Kept items per segment (``offsets`` delimit the segments of ``keep``)."""
    before = np.concatenate(([0], np.cumsum(keep, dtype=np.int64)))
    return before[offsets[1:]] - before[offsets[:-1]]


def condense(judged: JudgedRankings) -> JudgedRankings:
    """The condensed lists of ``judged``: items with a grade < 0 (absent from
    the qrels, or negative grade: unjudged) removed, the others renumbered
    0, 1, ... within their segment; ``num_ret`` becomes the number of judged
    items retrieved. Queries keep being "present" (a run that retrieved only
    unjudged documents for a query scores it as an empty ranking, as trec_eval
    -J does). The qrels, depth, tie policy and relevance level are kept.

    Full layout: the kept items' arrays (ranks are positions, tie groups are
    runs of equal scores, so both follow). Compact layout: ranks are
    renumbered by counting the judged items above; under ``ties="expected"``
    each tie group shrinks to its judged members.
    """
    keep = judged.grade >= 0
    counts = _segment_counts(keep, judged.offsets)
    offsets = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    changes: dict = {
        "offsets": offsets,
        "doc_key": judged.doc_key[keep],
        "grade": judged.grade[keep],
    }
    if judged.layout == "full":
        changes["score"] = judged.score[keep]
        return dataclasses.replace(judged, **changes)
    # compact: explicit ranks and per-segment counts. Every judged retrieved
    # item is kept in this layout, so a kept item's new rank is its position
    # among the kept items of its segment.
    seg = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    rank = np.arange(int(offsets[-1]), dtype=np.int64) - offsets[:-1][seg]
    changes["item_rank"] = rank
    changes["seg_num_ret"] = counts.astype(np.int64)
    if judged.tie_first is not None:
        # a group is (segment, old first rank); its judged members are
        # consecutive among the kept items
        first_old = judged.tie_first[keep]
        new = np.ones(len(rank), bool)
        new[1:] = (seg[1:] != seg[:-1]) | (first_old[1:] != first_old[:-1])
        starts = np.flatnonzero(new)
        group = np.cumsum(new) - 1
        sizes = np.diff(np.append(starts, len(rank)))
        changes["tie_first"] = rank[starts][group]
        changes["tie_size"] = sizes[group].astype(np.int64)
    return dataclasses.replace(judged, **changes)
