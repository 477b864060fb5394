"""Judged rankings: the one picture every measure and preference reads.

A :class:`JudgedRankings` holds, for every run x query *segment*, the
retrieved items in rank order with their document, score and grade, in flat
arrays covering all runs and queries at once (segment
``s = r * n_queries + q`` holds items ``offsets[s]:offsets[s + 1]``). It is
built by :func:`irpref.judging.ranking.judge` from the ids
:func:`irpref.judging.interning.intern` numbered, and saved and loaded by
:mod:`irpref.judging.store`.

Grades follow trec_eval (form_res_rels.c): a retrieved document absent from
the qrels has grade :data:`NONPOOL`; a negative qrels grade means "in the
pool, unjudged" for trec_eval's judged-only measures and simply non-relevant
for every other measure. An item is relevant when ``grade >= rel``.

Two layouts hold the same rankings. The *full* one
(:func:`irpref.judging.ranking.judge`) keeps every retrieved item. The *compact* one
(:func:`irpref.judging.ranking.judge_block` on a few runs at a time,
:func:`irpref.judging.ranking.concat_blocks`; ``judge_inputs(..., layout="compact")``)
keeps only the items the qrels mention (any grade) with their explicit
``rank``, per segment the number retrieved (:attr:`JudgedRankings.num_ret`)
and, under ``ties="expected"``, each item's tie group
(:meth:`JudgedRankings.tie_group`): what every measure and preference
declaring it reads (``Family.compact``), with the same numbers. Asking
compact rankings for what only the full layout holds raises
:class:`LayoutError`. Run *files* reach the compact layout without interning
at all: :mod:`irpref.judging.scan` reads each one in a single C pass that produces
its :class:`~irpref.judging.ranking.CompactBlock` directly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa

from irpref.io.prefs import Preferences
from irpref.io.subtopics import SubtopicQrels
from irpref.judging.doc_keys import DocumentIds
from irpref.judging.interning import Deferred, Documents, deferred_field
from irpref.params import Settings, check_missing
from irpref.runtime.native import native

__all__ = [
    "LAYOUTS",
    "NONPOOL",
    "Items",
    "JudgedRankings",
    "LayoutError",
    "deferred_rankings",
    "matching_rows",
]


class LayoutError(ValueError):
    """A computation asked compact judged rankings for something only the
    full layout holds (unjudged items, their documents, tie groups)."""


LAYOUTS = ("full", "compact")
"""Layouts of :class:`JudgedRankings`: every retrieved item, or only those
the qrels mention (see :func:`judge_block`)."""

NONPOOL = np.iinfo(np.int32).min
"""Grade of a retrieved document that the qrels do not mention."""


class Items(NamedTuple):
    """A subset of the items (e.g. the relevant ones), in item order.

    ``index``: flat item index; ``offsets`` (S+1,): the subset's items of
    segment s are ``index[offsets[s]:offsets[s + 1]]``; ``segment`` and
    ``rank`` (0-based rank in the whole ranking) of each; ``nth``: 0-based
    position of each among the subset's items of its segment.
    """

    index: np.ndarray
    offsets: np.ndarray
    segment: np.ndarray
    rank: np.ndarray

    @property
    def nth(self) -> np.ndarray:
        return np.arange(len(self.index), dtype=np.int64) - self.offsets[:-1][self.segment]


@dataclass(frozen=True, eq=False)
class JudgedRankings(Documents):
    """Every run x query ranking, ranked, cut and joined with the qrels: what every measure reads.

    Made by `judge_inputs` (or `judge`), evaluated any number of
    times with ``judged=`` (`evaluate`, `compare`,
    `significance`). Item arrays are flat over all segments; segment
    ``s = r * n_queries + q`` holds run r's ranking of query q. The rankings
    carry the settings they were judged with; evaluating them under another
    ``rel``, ``depth``, ``ties``, ``corpus_size``, tag or column rule is
    refused.

    Parameters
    ----------
    run_names : list of str
        The runs' names.
    queries : numpy.ndarray
        (Q,) query ids.
    offsets : numpy.ndarray
        (R*Q+1,) where each segment's items start.
    doc_key : numpy.ndarray
        uint64 document key of each item.
    score : numpy.ndarray
        float64 score of each item.
    grade : numpy.ndarray
        int32 grade of each item (a sentinel where the qrels do not judge it).
    present : numpy.ndarray
        (R, Q) bool: the run retrieved something for the query.
    qrels_offsets : numpy.ndarray
        (Q+1,) where each query's judgments start.
    qrels_doc_key : numpy.ndarray
        uint64 key of each judgment, ascending within each query.
    qrels_grade : numpy.ndarray
        int32 grade of each judgment.
    doc_ids : DocumentIds
        Document keys to dense codes and back to strings.
    settings : Settings, optional
        The judging settings.
    layout : {"full", "compact"}, default "full"
        ``compact``: only the items the qrels mention, with explicit ranks.
    item_rank : numpy.ndarray, optional
        0-based rank of each item (compact layout).
    seg_num_ret : numpy.ndarray, optional
        Documents retrieved per segment (compact layout).
    tie_first : numpy.ndarray, optional
        Rank of each item's tie group start (tie-aware compact layout).
    tie_size : numpy.ndarray, optional
        Size of each item's tie group (tie-aware compact layout).
    distinct_docs : int, optional
        Documents in the qrels and all runs (compact layout).
    subtopics : SubtopicQrels, optional
        ndeval's subtopic judgments, for the diversity measures.
    preferences : Preferences, optional
        trec_eval's preference judgments, for the Prefs* measures.
    condensed : bool, default False
        These are the condensed lists of other rankings (judged documents only).

    Examples
    --------
    >>> import irpref
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 1}}
    >>> runs = {"bm25": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0},
    ...                  "q2": {"d4": 1.0, "d6": 0.5}}}
    >>> judged = irpref.judge_inputs(qrels, runs)
    >>> judged.run_names, list(judged.queries), judged.layout
    (['bm25'], ['q1', 'q2'], 'full')
    >>> judged.num_rel().tolist()
    [2, 2]
    """

    run_names: list[str]
    queries: np.ndarray  # (Q,) str
    offsets: np.ndarray  # (R*Q+1,) int64
    doc_key: np.ndarray  # uint64 document key per item (see DocumentIds)
    score: np.ndarray  # float64 per item
    grade: np.ndarray  # int32 per item; NONPOOL if not in the qrels
    present: np.ndarray  # (R, Q) bool: the run retrieved something for q
    qrels_offsets: np.ndarray  # (Q+1,)
    qrels_doc_key: np.ndarray  # uint64, ascending within each query
    qrels_grade: np.ndarray  # int32
    doc_ids: DocumentIds  # keys -> dense codes and strings
    settings: Settings = Settings()  # the judging settings (rel, depth, ties, ...)
    # ---- the compact layout (layout="compact", see judge_block) -----------
    # items are only those the qrels mention (any grade): their rank is
    # explicit, the number retrieved is per segment, unjudged items are gone
    layout: str = "full"  # "full" | "compact"
    item_rank: np.ndarray | None = None  # int64 0-based rank per item (compact)
    seg_num_ret: np.ndarray | None = None  # (S,) int64 number retrieved (compact)
    tie_first: np.ndarray | None = None  # int64 rank of the item's tie group start
    tie_size: np.ndarray | None = None  # int64 size of the item's tie group
    distinct_docs: int | None = None  # documents in the qrels and all runs (compact)
    # ---- judgments beside the qrels, and what the rankings are -----------
    subtopics: SubtopicQrels | None = None  # ndeval's, for the diversity measures
    preferences: Preferences | None = None  # trec_eval's, for the Prefs* measures
    condensed: bool = False  # the condensed lists of other rankings (irpref.judging.condense)

    def with_subtopics(self, subtopics: SubtopicQrels | None) -> JudgedRankings:
        """These rankings with the subtopic judgments the diversity measures read."""
        if subtopics is self.subtopics:
            return self
        return dataclasses.replace(self, subtopics=subtopics)

    def with_preferences(self, preferences: Preferences | None) -> JudgedRankings:
        """These rankings with the preference judgments the Prefs* measures read."""
        if preferences is self.preferences:
            return self
        return dataclasses.replace(self, preferences=preferences)

    # ---- values derived from these rankings, computed once ----------------
    @cached_property
    def _derived(self) -> dict:
        return {}

    def derived(self, key: tuple, compute: Callable[[], Any] | None = None) -> Any:
        """A value derived from these rankings and kept with them, computed once by
        ``compute`` (None: the value if it was computed, else None). ``key`` names
        it, its owner first: ``("condensed",)``, ``("tie_groups", rel)``,
        ``("unjudged", level)``, ``("subtopic_join", rel)``, ... Every measure
        computed on the same rankings shares them; they go when the rankings go."""
        store = self._derived
        if key not in store and compute is not None:
            store[key] = compute()
        return store.get(key)

    # ---- the judging settings (read by every measure and preference) ------
    @property
    def rel(self) -> int:
        """Grade >= rel is relevant (``settings.rel``)."""
        return self.settings.rel

    @property
    def ties(self) -> str:
        """The tie policy the rankings were ranked with (``settings.ties``)."""
        return self.settings.ties

    @property
    def depth(self) -> int | None:
        """The depth cut applied (``settings.depth``)."""
        return self.settings.depth

    @property
    def corpus_size(self) -> int | None:
        """Documents in the collection, if known (``settings.corpus_size``)."""
        return self.settings.corpus_size

    @property
    def compact(self) -> bool:
        """True for the compact layout (only items the qrels mention)."""
        return self.layout == "compact"

    def _full_only(self, what: str) -> None:
        if self.layout != "full":
            raise LayoutError(
                f"{what} needs every retrieved item (the full layout); these judged "
                "rankings are compact (only the items the qrels mention)"
            )

    # ---- shape -----------------------------------------------------------
    @property
    def n_runs(self) -> int:
        return len(self.run_names)

    @property
    def n_queries(self) -> int:
        return len(self.qrels_offsets) - 1

    @cached_property
    def query_ids(self) -> pa.Array:
        """The queries as an Arrow string array (no Python string per query for
        rankings judged from files: :func:`deferred_rankings`)."""
        return pa.array(list(self.queries), pa.string())

    @property
    def n_segments(self) -> int:
        return len(self.offsets) - 1

    @property
    def n_items(self) -> int:
        """Items in the item arrays (compact layout: only those the qrels mention)."""
        return len(self.grade)

    @cached_property
    def doc(self) -> np.ndarray:
        """Dense document code of each item (int32; codes ascend with the ids)."""
        self._full_only("dense document codes of the retrieved items")
        return self.doc_ids.codes(self.doc_key)

    @property
    def n_docs(self) -> int:
        """Distinct documents in the qrels and all runs (before any depth cut)."""
        if self.layout == "full":
            return len(self.doc_ids)
        if self.distinct_docs is None:
            raise LayoutError(
                "the number of distinct documents was not counted for these compact "
                "judged rankings (judge them with count_docs=True, or pass corpus_size)"
            )
        return self.distinct_docs

    @property
    def docs(self) -> pa.Array:
        """Every document named anywhere, by dense code (byte order)."""
        self._full_only("the strings of every retrieved document")
        return self.doc_ids.strings

    # ---- per item --------------------------------------------------------
    @cached_property
    def segment(self) -> np.ndarray:
        """Segment id of each item (int64)."""
        return np.repeat(np.arange(self.n_segments, dtype=np.int64), np.diff(self.offsets))

    @cached_property
    def rank(self) -> np.ndarray:
        """0-based rank of each item within its segment (int64)."""
        if self.item_rank is not None:
            return self.item_rank
        return np.arange(self.n_items, dtype=np.int64) - self.offsets[:-1][self.segment]

    def rank_of(self, index: np.ndarray, segment: np.ndarray) -> np.ndarray:
        """0-based rank of the items ``index`` (of segments ``segment``)."""
        if self.item_rank is not None:
            return self.item_rank[index]
        return index - self.offsets[:-1][segment]

    @cached_property
    def query_of_item(self) -> np.ndarray:
        return self.segment % self.n_queries

    def relevant(self, rel: int | None = None) -> np.ndarray:
        """Boolean per item: ``grade >= rel`` (default: the judging level)."""
        return self.grade >= (self.rel if rel is None else rel)

    def items_with_grade(self, at_least: int | None = None) -> Items:
        """The items with ``grade >= at_least`` (default: the judging level),
        as a sparse :class:`Items` view (cached per level).

        Measures that only read relevant items work on these instead of on
        every item: about a tenth of the items, and no full-size temporaries.
        """
        level = self.rel if at_least is None else int(at_least)
        cached = self.derived(("items", level))
        if cached is None:
            index = np.flatnonzero(self.grade >= level)
            offsets = np.searchsorted(index, self.offsets).astype(np.int64)
            counts = np.diff(offsets)
            segment = np.zeros(len(index), np.int64)
            starts = offsets[:-1][counts > 0]
            if len(index):
                # segment ids by a cumulative sum of steps at segment starts
                nonempty = np.flatnonzero(counts > 0)
                segment[starts[1:]] = np.diff(nonempty)
                segment[0] = nonempty[0]
                np.cumsum(segment, out=segment)
            rank = self.rank_of(index, segment)
            cached = self.derived(("items", level),
                                  lambda: Items(index, offsets, segment, rank))
        return cached

    @cached_property
    def judged(self) -> np.ndarray:
        """Boolean per item: judged with a grade >= 0 (trec_eval's notion)."""
        return self.grade >= 0

    # ---- tie groups (items of equal score within a segment) --------------
    @cached_property
    def tie_start(self) -> np.ndarray:
        """(n_items + 1,) bool: item i starts a tie group (the last entry,
        the end, is True too).

        A tie group is a maximal run of equal scores within a segment; with
        depth cut-offs only retrieved (kept) items belong to groups. Full
        layout only (the compact one keeps :meth:`tie_group` per item).
        """
        self._full_only("tie groups over every item")
        starts = np.ones(self.n_items + 1, bool)
        if self.n_items:
            np.not_equal(self.score[1:], self.score[:-1], out=starts[1:-1])
            starts[self.offsets[:-1][np.diff(self.offsets) > 0]] = True
        return starts

    @cached_property
    def tie_offsets(self) -> np.ndarray:
        """Start of every tie group in the item arrays, plus the end (int64)."""
        return np.flatnonzero(self.tie_start).astype(np.int64, copy=False)

    @cached_property
    def tie_segment(self) -> np.ndarray:
        """Segment id of each tie group."""
        return self.segment[self.tie_offsets[:-1]]

    def tie_group(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(0-based rank of the first item, size) of the tie group holding each
        item of ``index`` (ascending item indices), in both layouts."""
        if self.layout == "compact":
            if self.tie_first is None:
                raise LayoutError("tie groups are kept in compact judged rankings only "
                                  "under ties='expected'")
            return self.tie_first[index], self.tie_size[index]
        bounds = self.tie_offsets
        # most items are untied (a group of their own): binary search the others
        is_start = self.tie_start
        first, end = index.copy(), index + 1
        tied = np.flatnonzero(~(is_start[index] & is_start[index + 1]))
        gid = np.searchsorted(bounds, index[tied], side="right") - 1
        first[tied], end[tied] = bounds[gid], bounds[gid + 1]
        seg = np.searchsorted(self.offsets, index, side="right") - 1
        return first - self.offsets[seg], end - first

    # ---- per segment / per query -----------------------------------------
    @cached_property
    def n_retrieved(self) -> np.ndarray:
        """(S,) number of retrieved items of each segment (after the depth cut)."""
        if self.seg_num_ret is not None:
            return self.seg_num_ret
        return np.diff(self.offsets)

    @cached_property
    def num_ret(self) -> np.ndarray:
        """(R, Q) number of retrieved items (after the depth cut)."""
        return self.n_retrieved.reshape(self.n_runs, self.n_queries)

    def segment_sum(self, values: np.ndarray) -> np.ndarray:
        """(R, Q) sum of a per-item array within each segment."""
        sums = np.bincount(self.segment, weights=values, minlength=self.n_segments)
        return sums.reshape(self.n_runs, self.n_queries)

    def segment_count(self, mask: np.ndarray) -> np.ndarray:
        """(R, Q) number of items where ``mask`` is true."""
        counts = np.bincount(self.segment[mask], minlength=self.n_segments)
        return counts.reshape(self.n_runs, self.n_queries)

    def num_rel(self, rel: int | None = None) -> np.ndarray:
        """(Q,) number of judged documents with ``grade >= rel``."""
        rel = self.rel if rel is None else rel
        kernels = native("kernels")
        if kernels is not None:  # one pass over the qrels rows, no per-row array
            out = np.empty(self.n_queries, np.int64)
            kernels.segment_scan(np.ascontiguousarray(self.qrels_offsets, np.int64), None,
                                 np.ascontiguousarray(self.qrels_grade, np.int32), int(rel),
                                 -1, 3, np.zeros(0), out)
            return out
        q = np.repeat(np.arange(self.n_queries), np.diff(self.qrels_offsets))
        return np.bincount(q[self.qrels_grade >= rel], minlength=self.n_queries)

    def max_grade(self) -> np.ndarray:
        """(Q,) highest judged grade >= 0 of each query (0 if none)."""
        out = np.zeros(self.n_queries, np.int64)
        keep = self.qrels_grade >= 0
        np.maximum.at(out, self.qrels_query[keep], self.qrels_grade[keep])
        return out

    @cached_property
    def qrels_query(self) -> np.ndarray:
        """Query id of each qrels row."""
        return np.repeat(np.arange(self.n_queries, dtype=np.int64), np.diff(self.qrels_offsets))

    def ideal_grades(self, rel: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Judged grades ``>= rel`` of each query, sorted descending, as (offsets, grades)."""
        rel = self.rel if rel is None else rel
        keep = self.qrels_grade >= rel
        q = self.qrels_query[keep]
        g = self.qrels_grade[keep]
        offsets = np.zeros(self.n_queries + 1, np.int64)
        np.cumsum(np.bincount(q, minlength=self.n_queries), out=offsets[1:])
        if not len(g):
            return offsets, g
        top = int(g.max())
        span = top - int(g.min()) + 1
        if span * self.n_queries > 4 * len(g) + 4096:  # many distinct grades: sort
            return offsets, g[np.lexsort((-g, q))]
        # few grades (the usual 0-4): count each grade per query, then repeat them in
        # descending order, query by query (no sort of the qrels rows)
        counts = np.bincount(q * span + (top - g), minlength=self.n_queries * span)
        levels = np.tile(np.arange(top, top - span, -1, dtype=g.dtype), self.n_queries)
        return offsets, np.repeat(levels, counts)

    def evaluation(self, missing: str) -> Settings:
        """The settings of an evaluation of these rankings by names already parsed:
        their judging settings, queries a run lacks following ``missing``, and no
        ``judged_only`` modifier applied again (the names carry it)."""
        return self.settings.replace(missing=missing, judged_only=False)

    def query_mask(self, missing: str) -> np.ndarray:
        """(R, Q) which run x query values enter means under the rule ``missing``
        (the evaluation's: ``Settings.missing``): ``skip`` -> queries the run
        retrieved; ``zero`` -> every qrels query (trec_eval ``-c``)."""
        if check_missing(missing, "missing") == "skip":
            return self.present
        return np.ones_like(self.present)

    def lacking(self) -> dict[str, list[str]]:
        """Per run that lacks some, the judged (qrels) queries it retrieved
        nothing for, in query order (see :func:`irpref.evaluate.missing_message`)."""
        absent = ~self.present
        return {self.run_names[r]: list(self.queries[absent[r]])
                for r in np.flatnonzero(absent.any(axis=1))}



class _DeferredRankings(Deferred, JudgedRankings):
    """Judged rankings whose query strings and document keys wait until read."""

    queries = deferred_field("queries")
    query_ids = deferred_field("query_ids", JudgedRankings.query_ids.func)
    doc_key = deferred_field("doc_key")
    qrels_doc_key = deferred_field("qrels_doc_key")
    doc_ids = deferred_field("doc_ids")


def deferred_rankings(values: dict[str, Any], compute: dict[str, Callable[[], Any]]
                      ) -> JudgedRankings:
    """Judged rankings with the fields ``values`` and, computed when first read
    (:class:`~irpref.judging.interning.Deferred`), any of ``queries``, ``query_ids``,
    ``doc_key``, ``qrels_doc_key`` and ``doc_ids`` by the functions ``compute``
    (the compact layout of files read by the C passes, :mod:`irpref.judging.scan`:
    most evaluations read none of them). Fields in neither take their defaults."""
    return _DeferredRankings.deferred(values, compute)


def matching_rows(sorted_keys: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every match of ``keys`` in ``sorted_keys`` (ascending, repeats allowed):
    ``(i, j)`` with ``keys[i] == sorted_keys[j]``, in order of ``i`` then ``j``."""
    lo = np.searchsorted(sorted_keys, keys, side="left")
    count = np.searchsorted(sorted_keys, keys, side="right") - lo
    found = np.flatnonzero(count)
    count = count[found]
    i = np.repeat(found, count)
    within = np.arange(len(i)) - np.repeat(np.cumsum(count) - count, count)
    return i, np.repeat(lo[found], count) + within
