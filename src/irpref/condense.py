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
import weakref
from collections.abc import Callable

import numpy as np
import pyarrow as pa

from irpref.interning import DocumentIds
from irpref.judged import JudgedRankings

__all__ = ["FOLLOWERS", "condense", "condensed"]

_CONDENSED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # judged -> its copy
_ALREADY: weakref.WeakSet = weakref.WeakSet()  # condensed copies (condensed: themselves)
FOLLOWERS: list[Callable[[JudgedRankings, JudgedRankings], None]] = []
"""Called as ``follow(judged, copy)`` whenever :func:`condensed` hands out a
copy: what is attached to judged rankings elsewhere (a diversity measure's
subtopic judgments) follows them to their condensed lists."""


def condensed(judged: JudgedRankings) -> JudgedRankings:
    """:func:`condense` of ``judged``, computed once per judged rankings: every
    ``judged_only=true`` measure and preference reads this one copy (the
    condensed lists of condensed lists are themselves)."""
    if judged in _ALREADY:
        return judged
    copy = _CONDENSED.get(judged)
    if copy is None:
        copy = _CONDENSED[judged] = condense(judged)
    for follow in FOLLOWERS:
        follow(judged, copy)
    return copy


def _judged_documents(ids: DocumentIds, qrels_doc_key: np.ndarray) -> DocumentIds:
    """The documents of the condensed collection: those of the qrels (every
    retrieved item left is one), numbered densely in byte order as
    :func:`irpref.interning.intern` numbers the documents of runs from which
    the unjudged ones were deleted. Lazy: nothing is computed until asked."""
    if ids.dense is None:
        return DocumentIds(qrels_doc_key, ids.decode)
    strings = ids.dense
    return DocumentIds(qrels_doc_key,
                       lambda keys: strings.take(pa.array(keys.astype(np.int64))))


def condense(judged: JudgedRankings) -> JudgedRankings:
    """The condensed lists of ``judged``: items with a grade < 0 (absent from
    the qrels, or negative grade: unjudged) removed, the others renumbered
    0, 1, ... within their segment; ``num_ret`` becomes the number of judged
    items retrieved. Queries keep being "present" (a run that retrieved only
    unjudged documents for a query scores it as an empty ranking, as trec_eval
    -J does). The qrels, depth, tie policy, relevance level and corpus size
    are kept; the documents are those of the qrels (``n_docs``, the fallback
    corpus size of ``ASL(missing=corpus)``, counts them, as for runs whose
    unjudged documents were deleted).

    Full layout: the kept items' arrays (ranks are positions, tie groups are
    runs of equal scores, so both follow). Compact layout: ranks are
    renumbered by counting the judged items above; under ``ties="expected"``
    each tie group shrinks to its judged members. Condensing condensed lists
    returns them unchanged.
    """
    if judged in _ALREADY:
        return judged
    kept = np.flatnonzero(judged.grade >= 0)
    starts = np.searchsorted(kept, judged.offsets).astype(np.int64)  # (S+1,) new offsets
    counts = np.diff(starts)
    changes: dict = {
        "offsets": starts,
        "doc_key": judged.doc_key[kept],
        "grade": judged.grade[kept],
        "doc_ids": _judged_documents(judged.doc_ids, judged.qrels_doc_key),
    }
    if judged.distinct_docs is not None:
        changes["distinct_docs"] = len(np.unique(judged.qrels_doc_key))
    if judged.layout == "full":
        changes["score"] = judged.score[kept]
        return _itself(dataclasses.replace(judged, **changes))
    # compact: explicit ranks and per-segment counts. Every judged retrieved
    # item is kept in this layout, so a kept item's new rank is its position
    # among the kept items of its segment.
    seg = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    rank = np.arange(len(kept), dtype=np.int64) - starts[:-1][seg]
    changes["item_rank"] = rank
    changes["seg_num_ret"] = counts
    if judged.tie_first is not None:
        # a group is (segment, old first rank); its judged members are
        # consecutive among the kept items
        first_old = judged.tie_first[kept]
        new = np.ones(len(rank), bool)
        new[1:] = (seg[1:] != seg[:-1]) | (first_old[1:] != first_old[:-1])
        group_starts = np.flatnonzero(new)
        group = np.cumsum(new) - 1
        sizes = np.diff(np.append(group_starts, len(rank)))
        changes["tie_first"] = rank[group_starts][group]
        changes["tie_size"] = sizes[group].astype(np.int64)
    return _itself(dataclasses.replace(judged, **changes))


def _itself(copy: JudgedRankings) -> JudgedRankings:
    _ALREADY.add(copy)
    return copy
