"""Condensed lists: judged rankings without their unjudged documents.

Sakai (SIGIR 2007, "Alternatives to bpref") evaluates a run on its
*condensed list*: the ranking with every unjudged document removed and the
judged ones moved up, ranked 1, 2, ... in their original order. trec_eval's
``-J`` does the same (form_res_rels.c, ``judged_docs_only_flag``): after the
``-M`` depth cut it keeps the retrieved documents with a qrels grade >= 0,
in rank order, and the number retrieved becomes the number kept.

:func:`condense` is that transform on :class:`~irpref.judging.judged.JudgedRankings`,
for both layouts and every tie policy, so every measure evaluates the
condensed lists unchanged. Under ``ties="expected"`` a tie group keeps only
its judged members (the orderings averaged over are those of the judged
documents that share a score).
"""

from __future__ import annotations

import dataclasses
from functools import cached_property

import numpy as np
import pyarrow as pa

from irpref.judging.doc_keys import DocumentIds
from irpref.judging.judged import JudgedRankings

__all__ = ["condense", "condensed"]


def condensed(judged: JudgedRankings) -> JudgedRankings:
    """:func:`condense` of ``judged``, computed once per judged rankings (kept
    with them, :meth:`~irpref.judging.judged.JudgedRankings.derived`): every
    ``judged_only=true`` measure and preference reads this one copy (the
    condensed lists of condensed lists are themselves)."""
    if judged.condensed:
        return judged
    return judged.derived(("condensed",), lambda: condense(judged))


def _judged_documents(ids: DocumentIds, qrels_doc_key: np.ndarray) -> DocumentIds:
    """The documents of the condensed collection: those of the qrels (every
    retrieved item left is one), numbered densely in byte order as
    :func:`irpref.judging.interning.intern` numbers the documents of runs from which
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

    One pass over the items: ``kept = flatnonzero(grade >= 0)`` (or the judged
    items ``judged`` already listed), new offsets ``o'[s] = #{kept < o[s]}``,
    the grades taken at ``kept``. The order is kept, so nothing is sorted; full
    layout: ranks are positions and tie groups runs of equal scores, so both
    follow. Compact layout: rank ``r' = i' - o'[seg]`` (every judged retrieved
    item is kept there, so a kept item's rank is its position among the kept
    items of its segment); under ``ties="expected"`` each tie group shrinks to
    its judged members. What many measures never read (documents, scores, tie
    groups, the distinct documents) is taken only when first read
    (:class:`_Condensed`). Condensing condensed lists returns them unchanged.
    """
    if judged.condensed:
        return judged
    listed = judged.derived(("items", 0))  # items_with_grade(0): the judged items
    if listed is not None:
        kept, starts = listed.index, listed.offsets
    else:
        kept = _judged_items(judged)
        starts = np.searchsorted(kept, judged.offsets).astype(np.int64)  # (S+1,)
    fields = {f.name: getattr(judged, f.name) for f in dataclasses.fields(judged)
              if f.name not in _Condensed.LAZY}
    fields.update(offsets=starts, grade=judged.grade.take(kept), condensed=True,
                  doc_ids=_judged_documents(judged.doc_ids, judged.qrels_doc_key))
    source = {"kept": kept, "doc_key": judged.doc_key, "score": judged.score,
              "tie_first": judged.tie_first, "tie_size": judged.tie_size,
              "distinct_docs": judged.distinct_docs}
    if judged.layout != "full":
        fields["score"] = judged.score  # the compact layout keeps no scores per item
        counts = np.diff(starts)
        fields["seg_num_ret"] = counts
        fields["item_rank"] = (np.arange(len(kept), dtype=np.int64)
                               - np.repeat(starts[:-1], counts))
    copy = object.__new__(_Condensed)
    vars(copy).update(fields, _source=source)
    return copy


def _judged_items(judged: JudgedRankings) -> np.ndarray:
    """``flatnonzero(grade >= 0)``, ascending item indices of the judged items.

    NumPy's ``nonzero`` on a boolean array takes a ``memchr`` loop when at most
    a tenth of it is true (numpy gh-4370), one call per true item: slow when
    about a tenth is (deep runs over shallow pools, 90% unjudged: 2x the
    branch-free loop it takes above a tenth). Between 2% and 10% judged, the
    mask is built with n / 8 + 1 trues appended so that the branch-free loop
    runs, and they are cut off the result.
    """
    n = len(judged.grade)
    pad = n // 8 + 1
    keep = np.empty(n + pad, bool)
    cached = vars(judged).get("judged")  # JudgedRankings.judged, if it was read
    if cached is None:
        np.greater_equal(judged.grade, 0, out=keep[:n])
    else:
        keep[:n] = cached
    count = np.count_nonzero(keep[:n])
    if not 0.02 * n < count <= 0.1 * n:
        return np.flatnonzero(keep[:n])
    keep[n:] = True
    return np.flatnonzero(keep)[:count]


class _Condensed(JudgedRankings):
    """Condensed lists (:func:`condense`) whose arrays many measures never read
    are taken from the judged rankings they condense on first read.

    Built by :func:`condense` only: the fields outside :attr:`LAZY` are set at
    once, these (as cached properties) from ``_source`` (arrays, never the
    judged rankings themselves, which keep this copy: :func:`condensed`). A copy
    made by :func:`dataclasses.replace` holds every field and reads none of this.
    """

    LAZY = ("doc_key", "score", "tie_first", "tie_size", "distinct_docs")

    def _take(self, name: str) -> np.ndarray:
        return self._source[name].take(self._source["kept"])

    @cached_property
    def doc_key(self) -> np.ndarray:  # type: ignore[override]
        return self._take("doc_key")

    @cached_property
    def score(self) -> np.ndarray:  # type: ignore[override]
        return self._take("score")

    @cached_property
    def distinct_docs(self) -> int | None:  # type: ignore[override]
        if self._source["distinct_docs"] is None:
            return None
        return len(np.unique(self.qrels_doc_key))

    @cached_property
    def _tie_groups(self) -> tuple[np.ndarray, np.ndarray] | tuple[None, None]:
        """(tie_first, tie_size) of the compact layout under ``ties="expected"``.

        An item alone in its old group stays alone (its rank, size 1). The
        others: a group is (segment, old first rank) and its judged members are
        consecutive among the kept items, so a new group starts where the old
        first rank changes or a segment starts; each member gets its group's
        first new rank and size.
        """
        if self._source["tie_first"] is None:
            return None, None
        kept = self._source["kept"]
        tied = np.flatnonzero(self._source["tie_size"].take(kept) > 1)
        first, size = self.item_rank.copy(), np.ones(len(kept), np.int64)
        if len(tied):
            first_old = self._source["tie_first"].take(kept.take(tied))
            new = np.ones(len(tied), bool)
            # tied items that follow each other in the item arrays and share
            # their old first rank and their segment
            np.not_equal(first_old[1:], first_old[:-1], out=new[1:])
            new[1:] |= tied[1:] != tied[:-1] + 1
            starts = np.searchsorted(tied, self.offsets[:-1])
            new[starts[starts < len(tied)]] = True
            group_starts = np.flatnonzero(new)
            sizes = np.diff(group_starts, append=len(tied))
            first[tied] = np.repeat(self.item_rank.take(tied.take(group_starts)), sizes)
            size[tied] = np.repeat(sizes, sizes)
        return first, size

    @cached_property
    def tie_first(self) -> np.ndarray | None:  # type: ignore[override]
        return self._tie_groups[0]

    @cached_property
    def tie_size(self) -> np.ndarray | None:  # type: ignore[override]
        return self._tie_groups[1]
