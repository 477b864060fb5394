"""Ranking and tie policies, the depth cut and the join with the qrels.

:func:`judge` ranks every run of a :class:`~irpref.judging.interning.Collection`
under a tie policy (:data:`irpref.params.TIES`: ``docid`` as trec_eval, score
descending then docid descending; ``input``: file order among equal scores;
``expected``: every ordering of tied items, read by the tie-aware kernels),
cuts it at a depth (trec_eval ``-M``, after the tie-break) and joins it with
the qrels, producing the full :class:`~irpref.judging.judged.JudgedRankings`.

The compact layout is built block by block: :func:`judge_block` judges a few
runs and keeps only the items the qrels mention (a :class:`CompactBlock`;
:mod:`irpref.judging.scan` produces the same block for a run file in one C pass, the
twin of this module's Python path), and :func:`concat_blocks` joins the
blocks into one compact :class:`~irpref.judging.judged.JudgedRankings`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pyarrow as pa

import irpref.runtime.threads as threads
from irpref.io.hashing import PairIndex
from irpref.io.records import Qrels
from irpref.judging.interning import Collection, intern, refuse_repeated_names
from irpref.judging.judged import NONPOOL, JudgedRankings, deferred_rankings
from irpref.params import DEFAULT_MISSING, DEFAULT_SETTINGS, Settings

__all__ = ["CompactBlock", "concat_blocks", "judge", "judge_block"]


def _docid_desc_in_ties(
    tied: np.ndarray, wrong: np.ndarray, doc: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the tie groups that are not in docid-descending order, and
    their document keys in that order.

    ``tied[i]``: items ``i`` and ``i + 1`` form part of one tie group (same
    segment, same score); ``wrong[i]``: and ``doc[i] < doc[i + 1]`` (``doc``:
    uint64 keys, ordered as the ids). Works on the tied pairs only, and sorts
    the bad groups by packed 64-bit keys (group label, key descending)
    instead of a two-key lexsort: as many groups per sort as the labels'
    spare bits allow.
    """
    t = np.flatnonzero(tied)  # pair k joins items t[k] and t[k] + 1
    first = np.ones(len(t), bool)
    np.not_equal(t[1:], t[:-1] + 1, out=first[1:])
    group = np.cumsum(first) - 1
    bad = np.zeros(int(group[-1]) + 1, bool)
    bad[group[wrong[t]]] = True
    head = np.flatnonzero(first)
    tail = np.append(head[1:], len(t)) - 1
    lo, hi = t[head[bad]], t[tail[bad]] + 1  # item range of every bad group
    length = hi - lo + 1
    # positions and group labels of the items, by cumulative sums (np.repeat
    # with many small counts is several times slower)
    begin = (np.cumsum(length) - length)[1:]
    label = np.zeros(int(length.sum()), np.int64)
    label[begin] = 1
    np.cumsum(label, out=label)
    sel = np.ones(len(label), np.int64)
    sel[0] = lo[0]
    sel[begin] = lo[1:] - hi[:-1]
    np.cumsum(sel, out=sel)
    key = doc[sel]
    low, span = key.min(), int(key.max() - key.min())
    bits = max(span.bit_length(), 1)
    if bits > 53:  # too wide to pack with a useful number of labels
        return sel, key[np.lexsort((~key, label))]
    # descending key within [0, span], then (label, desc) in 63 bits, sorted
    # chunk by chunk of 2**(63 - bits) consecutive labels
    desc = (np.uint64(span) - (key - low)).view(np.int64)
    per = 1 << (63 - bits)
    chunks = int(label[-1]) // per + 1
    cuts = [0, *np.searchsorted(label, np.arange(1, chunks, dtype=np.int64) * per), len(key)]
    values = np.empty(len(key), np.uint64)
    for a, b in zip(cuts[:-1], cuts[1:]):
        if b > a:
            packed = ((label[a:b] - label[a]) << bits) | desc[a:b]
            packed.sort()
            packed &= (1 << bits) - 1
            values[a:b] = (np.uint64(span) - packed.view(np.uint64)) + low
    return sel, values


def _rank_order(
    coll: Collection, ties: str, in_place: bool = False
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """The judged-query rows in (run, query, rank) order.

    Returns the permutation of the rows (``None``: the identity, every row
    kept in file order), the segment offsets (segment ``s = r * Q + q`` holds
    permuted rows ``offsets[s]:offsets[s + 1]``) and the documents of the
    permuted rows (docid-descending within tie groups unless ``ties ==
    "input"``). Documents are their uint64 keys (:class:`DocumentIds`).

    Sorting cost is paid only where a file is not already in the required
    order, and then only on the segments or tie groups that are out of order;
    a tie group's score and query are equal, so only its documents are
    reordered. When every run lists its queries in order and every query is
    judged (the usual case), no per-row array is built: the segments are
    found by binary search in each run and the tie groups fixed block by
    block. ``in_place``: tie groups may be reordered in the collection's own
    key array (no copy).
    """
    offsets = _segment_offsets(coll)
    if offsets is not None:
        doc = _docid_ties(coll.run_score, coll.run_doc_key, offsets, ties, in_place)
        if doc is not None:
            return None, offsets, doc
    return _rank_order_general(coll, ties)


def _segment_offsets(coll: Collection) -> np.ndarray | None:
    """Segment offsets over the rows in file order, if every row's query is
    judged and every run lists its queries in ascending code order (else
    ``None``)."""
    q, bounds, n_q = coll.run_query, coll.run_offsets, coll.n_queries
    if len(q) == 0 or q.min() < 0:
        return None if len(q) else np.zeros(coll.n_runs * n_q + 1, np.int64)

    def run_offsets(r: int) -> np.ndarray | None:
        rq = q[bounds[r] : bounds[r + 1]]
        if np.any(rq[1:] < rq[:-1]):
            return None
        return bounds[r] + np.searchsorted(rq, np.arange(n_q), side="left")

    parts = threads.in_threads(run_offsets, range(coll.n_runs), weight=[len(q)])
    if any(p is None for p in parts):
        return None
    return np.append(np.concatenate(parts), len(q)).astype(np.int64)


def _docid_ties(
    score: np.ndarray, doc: np.ndarray, offsets: np.ndarray, ties: str, in_place: bool
) -> np.ndarray | None:
    """``doc`` with every tie group in docid-descending order (``ties ==
    "docid"``), or ``doc`` itself when nothing is out of order or ``ties ==
    "input"``; ``None`` if some segment's scores are not descending.

    Block by block on a pool of threads (blocks start at segment starts, as
    tie groups never span segments; their temporaries stay in cache). The
    result is a new array unless ``in_place``.
    """
    n = len(doc)
    if n < 2:
        return doc
    cut = offsets[np.searchsorted(offsets, np.arange(0, n, _TIE_BLOCK))]
    bounds = np.unique(np.append(cut, n))
    blocks = range(len(bounds) - 1)

    def check(b: int) -> tuple[np.ndarray, np.ndarray] | bool | None:
        """False: scores rise somewhere; else the block's fix (or None)."""
        lo, hi = bounds[b], bounds[b + 1]
        starts = offsets[np.searchsorted(offsets, lo, "right") : np.searchsorted(offsets, hi)]
        same = np.ones(hi - lo - 1, bool)
        same[starts - lo - 1] = False  # the first item of a segment
        s, d = score[lo:hi], doc[lo:hi]
        if np.any(same & (s[1:] > s[:-1])):
            return False
        if ties == "input":
            return None
        tied = same & (s[1:] == s[:-1])
        wrong = tied & (d[1:] > d[:-1])
        return _docid_desc_in_ties(tied, wrong, d) if wrong.any() else None

    fixes = threads.in_threads(check, blocks, weight=[n])
    if any(f is False for f in fixes):
        return None
    if all(f is None for f in fixes):
        return doc
    out = doc if in_place else np.empty_like(doc)

    def apply(b: int) -> None:
        lo, hi = bounds[b], bounds[b + 1]
        if out is not doc:
            out[lo:hi] = doc[lo:hi]
        if fixes[b] is not None:
            sel, values = fixes[b]
            out[lo:hi][sel] = values

    threads.in_threads(apply, blocks, weight=[n])
    return out


def _rank_order_general(
    coll: Collection, ties: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_rank_order` for any file order: rows of unjudged queries
    dropped, rows sorted by segment (stable), segments whose scores are not
    descending sorted by score (stable), then the docid tie-break."""
    n_seg = coll.n_runs * coll.n_queries
    dtype = np.int32 if n_seg < 2**31 else np.int64
    seg = coll.run_query.astype(dtype)  # a copy: + run * n_queries, run by run
    for r in range(1, coll.n_runs):
        seg[coll.run_offsets[r] : coll.run_offsets[r + 1]] += r * coll.n_queries
    rows = np.flatnonzero(coll.run_query >= 0)
    seg = seg[rows]
    if len(seg) > 1 and np.any(seg[1:] < seg[:-1]):
        order = np.argsort(seg, kind="stable")
        rows, seg = rows[order], seg[order]
    score = coll.run_score[rows]
    # score descending within each segment (stable: keeps file order on ties)
    rising = (seg[1:] == seg[:-1]) & (score[1:] > score[:-1])
    if rising.any():
        bad = np.zeros(n_seg, bool)
        bad[seg[1:][rising]] = True
        sel = np.flatnonzero(bad[seg])
        rows[sel] = rows[sel][np.lexsort((-score[sel], seg[sel]))]
        score = coll.run_score[rows]
    offsets = np.searchsorted(seg, np.arange(n_seg + 1, dtype=seg.dtype)).astype(np.int64)
    doc = _docid_ties(score, coll.run_doc_key[rows], offsets, ties, in_place=True)
    return rows, offsets, doc


_TIE_BLOCK = 1 << 18  # items per block of the tie sort (cut at segment starts)


def _join_grades(
    coll: Collection, query: np.ndarray, doc_key: np.ndarray, rows: bool = False
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Grade of every (query, document key) item in the qrels, :data:`NONPOOL`
    if absent: one probe of a hash table of the judged pairs (small: it stays
    in cache) per item, block by block on a pool of threads. ``rows=True``:
    also the qrels row of each item (int32, -1 if absent)."""
    if len(doc_key) == 0 or len(coll.qrels_doc_key) == 0:
        grade = np.full(len(doc_key), NONPOOL, np.int32)
        return (grade, np.full(len(doc_key), -1, np.int32)) if rows else grade
    grade = np.empty(len(doc_key), np.int32)  # written block by block, in parallel
    row_type = np.int32 if len(coll.qrels_doc_key) < 2**31 else np.int64
    where = np.empty(len(doc_key), row_type) if rows else None
    qrels_q = np.repeat(np.arange(coll.n_queries), np.diff(coll.qrels_offsets))
    index = PairIndex(qrels_q, coll.qrels_doc_key)
    # blocks of 2**18 items: the temporaries stay in cache (no page faults)
    block = 1 << 18

    def join(lo: int) -> None:
        hi = min(lo + block, len(doc_key))
        row = index.find(query[lo:hi], doc_key[lo:hi])
        found = row >= 0
        out = grade[lo:hi]
        out[:] = NONPOOL
        out[found] = coll.qrels_grade[row[found]]
        if where is not None:
            where[lo:hi] = row

    threads.in_threads(join, range(0, len(doc_key), block), weight=[len(doc_key)])
    return (grade, where) if rows else grade



def judge(
    coll: Collection,
    settings: Settings | None = None,
    *,
    rel: int = 1,
    depth: int | None = None,
    ties: str = "docid",
    missing: str = DEFAULT_MISSING,
    corpus_size: int | None = None,
    judged_only: bool = False,
    use_tag: bool = False,
    columns=None,
    in_place: bool = False,
) -> JudgedRankings:
    """Rank every run of an interned collection and join it with the qrels.

    Rankings are sorted by the tie policy, cut at ``depth`` (trec_eval
    ``-M``) and joined with the qrels; they carry the judging settings, which
    every measure reads.

    Parameters
    ----------
    coll : Collection
        Qrels and runs from `intern`.
    settings : Settings, optional
        The judging settings as one value, or the keywords below.
    rel, depth, ties, missing, corpus_size, judged_only, use_tag, columns : see Settings
        The judging settings as keywords, by the names, defaults (trec_eval's)
        and rules of `Settings`; a keyword beside a different ``settings`` is
        refused.
    in_place : bool, default False
        Let the docid tie-break reorder tied documents in ``coll`` itself
        instead of a copy (for a collection judged once).

    Returns
    -------
    JudgedRankings
        The judged rankings, carrying their settings.

    Raises
    ------
    UsageError
        An invalid setting.

    Examples
    --------
    >>> import irpref
    >>> from irpref import examples
    >>> coll = irpref.intern(irpref.read_qrels(examples.qrels_path()),
    ...                      [irpref.read_run(p) for p in examples.run_paths()[:2]])
    >>> judged = irpref.judge(coll, rel=2)
    >>> judged.rel, judged.run_names
    (2, ['TUA1-1', 'UNH_bm25'])
    >>> means = irpref.summarize(irpref.evaluate(None, None, ["AP"], judged=judged))
    >>> print(means.round(4).to_string(index=False))
         run measure  value
      TUA1-1      AP 0.4149
    UNH_bm25      AP 0.2115
    """
    settings = Settings.resolve(settings, rel=rel, depth=depth, ties=ties, missing=missing,
                                corpus_size=corpus_size, judged_only=judged_only,
                                use_tag=use_tag, columns=columns)
    return judge_with(coll, settings, in_place=in_place)


def judge_with(coll: Collection, settings: Settings, *, in_place: bool = False
               ) -> JudgedRankings:
    """:func:`judge` under settings already resolved (the library's own callers: the
    public entry points resolve their keywords once, and pass the value on)."""
    offsets, doc, score, query, present = _ranked(coll, settings.ties, settings.depth, in_place)
    grade = _join_grades(coll, query, doc)
    return JudgedRankings(
        run_names=list(coll.run_names),
        queries=coll.queries,
        offsets=offsets,
        doc_key=doc,
        score=score,
        grade=grade,
        present=present,
        qrels_offsets=coll.qrels_offsets,
        qrels_doc_key=coll.qrels_doc_key,
        qrels_grade=coll.qrels_grade,
        doc_ids=coll.doc_ids,
        settings=settings,
    )


def _ranked(
    coll: Collection, ties: str, depth: int | None, in_place: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every run ranked (``ties``) and cut at ``depth``: segment offsets and
    the documents, scores and query codes of the items; ``present`` (R, Q). ``ties``
    and ``depth`` were checked by :class:`~irpref.params.Settings` (or by the reader
    of :mod:`irpref.judging.scan`)."""
    rows, offsets, doc = _rank_order(coll, "input" if ties == "input" else "docid", in_place)
    if rows is None:  # files already in rank order: no gather
        score, query = coll.run_score, coll.run_query
    else:
        score, query = coll.run_score[rows], coll.run_query[rows]
    counts = np.diff(offsets)
    present = (counts > 0).reshape(coll.n_runs, coll.n_queries)
    if depth is not None and counts.max(initial=0) > depth:
        # keep the first `depth` items of every segment: +1 at its start,
        # -1 after its last kept item, summed
        kept = np.minimum(counts, depth)
        step = np.zeros(len(doc) + 1, np.int32)
        np.add.at(step, offsets[:-1], 1)
        np.add.at(step, offsets[:-1] + kept, -1)
        keep = np.cumsum(step[:-1], dtype=np.int32) > 0
        doc, score, query = doc[keep], score[keep], query[keep]
        offsets = np.zeros(len(counts) + 1, np.int64)
        np.cumsum(kept, out=offsets[1:])
    return offsets, doc, score, query, present



class CompactBlock(NamedTuple):
    """Some runs judged and reduced to what the compact layout keeps (see
    :func:`judge_block`): per segment the number retrieved; per item the
    qrels mention, its rank, qrels row and (``ties="expected"``) tie group,
    int32 each (ranks and rows below 2**31; the grades are the rows' grades,
    taken by :func:`concat_blocks`)."""

    run_names: list[str]
    present: np.ndarray  # (R_b, Q) bool
    num_ret: np.ndarray  # (R_b * Q,) int64
    counts: np.ndarray  # (R_b * Q,) int64 kept items per segment
    rank: np.ndarray  # int32 per kept item
    row: np.ndarray  # int32: row of the (query, document) in the sorted qrels
    tie_first: np.ndarray | None  # int32 rank of the first item of the item's tie group
    tie_size: np.ndarray | None  # int32 size of that group (unjudged members counted)
    docs: pa.Array | None  # distinct document ids of the qrels and runs (count_docs)


def judge_block(
    coll: Collection, settings: Settings = DEFAULT_SETTINGS, *, count_docs: bool = False
) -> CompactBlock:
    """:func:`judge` ``coll`` and keep only what the compact layout needs:
    the items the qrels mention (any grade), with their rank, qrels row and
    tie group, and per segment the number retrieved. The ranking is the one
    :func:`judge` computes (same tie-break, same depth cut), so every kept
    item has the rank it has in the full layout (``settings``: ties and depth)."""
    ties = settings.ties
    offsets, doc, score, query, present = _ranked(coll, ties, settings.depth, in_place=True)
    _, row = _join_grades(coll, query, doc, rows=True)
    keep = np.flatnonzero(row >= 0)
    num_ret = np.diff(offsets)
    counts = np.diff(np.searchsorted(keep, offsets))
    seg = np.repeat(np.arange(len(num_ret), dtype=np.int64), counts)
    rank = keep - offsets[:-1][seg]
    tie_first = tie_size = None
    if ties == "expected":
        starts = np.ones(len(score) + 1, bool)
        if len(score):
            np.not_equal(score[1:], score[:-1], out=starts[1:-1])
            starts[offsets[:-1][num_ret > 0]] = True
        bounds = np.flatnonzero(starts)
        g = np.searchsorted(bounds, keep, side="right") - 1
        tie_first = _int32(bounds[g] - offsets[:-1][seg])
        tie_size = _int32(bounds[g + 1] - bounds[g])
    docs = coll.doc_ids.strings if count_docs else None
    return CompactBlock(
        run_names=list(coll.run_names), present=present, num_ret=num_ret, counts=counts,
        rank=_int32(rank), row=_int32(row[keep]), tie_first=tie_first, tie_size=tie_size,
        docs=docs,
    )


def _int32(values: np.ndarray) -> np.ndarray:
    """``values`` as int32 (ranks, rows and tie groups: a segment or the qrels
    of 2**31 items or more is refused rather than wrapped)."""
    if len(values) and (values.max() > np.iinfo(np.int32).max or values.min() < 0):
        raise OverflowError("a ranking or the qrels hold 2**31 items or more")
    return values.astype(np.int32)


def concat_blocks(
    blocks: Sequence[CompactBlock],
    qrels: Qrels | Collection,
    settings: Settings,
    *,
    distinct_docs: int | None = None,
) -> JudgedRankings:
    """The compact :class:`JudgedRankings` of all ``blocks`` (in order), judged
    with ``settings``; ``qrels`` may be given already interned (``intern(qrels, [])``).

    Each item's grade is its qrels row's. The query strings and the document
    keys (of the qrels, and of every item: its row is kept as its place among
    its query's qrels rows, in the narrowest integer type) are taken from the
    qrels when first read (:func:`~irpref.judging.judged.deferred_rankings`): the
    kernels read ranks, grades and counts only."""
    coll = qrels if isinstance(qrels, Collection) else intern(qrels, [])
    names = [n for b in blocks for n in b.run_names]
    refuse_repeated_names(names)
    n_q = coll.n_queries
    counts = np.concatenate([b.counts for b in blocks]) if blocks else np.zeros(0, np.int64)
    offsets = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    del counts
    expected = settings.ties == "expected"
    rank, grade, place = _item_columns(blocks, coll)
    values = dict(
        run_names=names,
        offsets=offsets,
        score=np.zeros(0, np.float64),
        grade=grade,
        present=np.concatenate([b.present for b in blocks]) if blocks
        else np.zeros((0, n_q), bool),
        qrels_offsets=coll.qrels_offsets,
        qrels_grade=coll.qrels_grade,
        settings=settings,
        layout="compact",
        item_rank=rank,
        seg_num_ret=np.concatenate([b.num_ret for b in blocks]).astype(np.int64, copy=False)
        if blocks else np.zeros(0, np.int64),
        tie_first=_joined([b.tie_first for b in blocks]) if expected else None,
        tie_size=_joined([b.tie_size for b in blocks]) if expected else None,
        distinct_docs=distinct_docs,
    )

    def doc_key() -> np.ndarray:
        first_row = np.tile(coll.qrels_offsets[:-1], len(names))  # of each segment's query
        return coll.qrels_doc_key[np.repeat(first_row, np.diff(offsets)) + place]

    compute = {"queries": lambda: coll.queries, "query_ids": lambda: coll.query_ids,
               "qrels_doc_key": lambda: coll.qrels_doc_key, "doc_ids": lambda: coll.doc_ids,
               "doc_key": doc_key}
    return deferred_rankings(values, compute)


def _joined(parts: list[np.ndarray]) -> np.ndarray:
    """The int32 arrays ``parts`` one after the other (the one part itself)."""
    if len(parts) == 1 and parts[0].dtype == np.int32:
        return parts[0]
    return np.concatenate(parts, dtype=np.int32) if parts else np.zeros(0, np.int32)


def _item_columns(blocks: Sequence[CompactBlock], coll: Collection
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The items' ranks, grades and places among their query's qrels rows, filled
    block by block (no array of every item's row)."""
    rank = _joined([b.rank for b in blocks])
    widest = int(np.diff(coll.qrels_offsets).max(initial=0))
    place_type = np.uint8 if widest <= 1 << 8 else np.uint16 if widest <= 1 << 16 else np.int32
    grade = np.empty(len(rank), np.int32)
    place = np.empty(len(rank), place_type)
    at = 0
    for b in blocks:
        n = len(b.row)
        # rows are the qrels' own (mode="clip" writes to out directly, unbuffered)
        np.take(coll.qrels_grade, b.row, out=grade[at : at + n], mode="clip")
        _places(b.row, b.counts, coll.qrels_offsets, place[at : at + n])
        at += n
    return rank, grade, place


_PLACE_SEGMENTS = 1 << 16  # segments per step of _places (temporaries stay small)


def _places(row: np.ndarray, counts: np.ndarray, qrels_offsets: np.ndarray,
            out: np.ndarray) -> None:
    """``out[i] = row[i] - qrels_offsets[q]``, q the query of item i's segment
    (segments ``counts`` items each, run after run), a few segments at a time."""
    n_q = len(qrels_offsets) - 1
    ends = np.cumsum(counts)
    for lo in range(0, len(counts), _PLACE_SEGMENTS):
        hi = min(lo + _PLACE_SEGMENTS, len(counts))
        a, b = int(ends[lo - 1]) if lo else 0, int(ends[hi - 1])
        first = np.repeat(qrels_offsets[np.arange(lo, hi) % n_q], counts[lo:hi])
        np.subtract(row[a:b], first, out=out[a:b], casting="unsafe")
