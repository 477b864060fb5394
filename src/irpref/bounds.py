"""Residual bounds: what the unjudged documents a run retrieved could change.

For one run and query, the *residual interval* of a measure is the smallest
and the largest value it takes over every assignment of grades
``0 .. top_grade`` (the highest grade in the qrels) to the unjudged documents
the run retrieved within the evaluation depth (grade < 0: absent from the
qrels, or judged "unjudged" by a negative grade), the number of relevant
documents counting those made relevant.

This module holds the shared machinery: which items are unjudged
(:func:`unjudged_items`), the highest grade (:func:`top_grade`) and
:func:`assign`, which evaluates any measure under a per-run assignment by
turning every run x query segment into a query of its own whose qrels are the
query's qrels plus that segment's assigned documents (one run, R x Q queries):
every kernel then evaluates the assignment unchanged.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from irpref.judged import JudgedRankings

__all__ = ["assign", "enumerate_bounds", "top_grade", "unjudged_items"]


def unjudged_items(judged: JudgedRankings) -> np.ndarray:
    """Flat indices (ascending) of the retrieved items with a grade < 0, within
    the depth (full layout: the compact one does not hold them)."""
    judged._full_only("residual bounds (the unjudged documents retrieved)")
    return np.flatnonzero(judged.grade < 0)


def top_grade(judged: JudgedRankings) -> int:
    """The highest grade in the qrels (0 when there is no grade >= 0)."""
    g = judged.qrels_grade
    return int(max(int(g.max()), 0)) if len(g) else 0


def assign(judged: JudgedRankings, grades: int | np.ndarray) -> JudgedRankings:
    """``judged`` with the unjudged items (:func:`unjudged_items`) given
    ``grades`` (one grade, or one per unjudged item in that order), as one run
    whose R x Q queries are the segments: query ``s = r * Q + q`` has the
    qrels of ``q`` plus the assigned documents of segment ``s``. A measure
    computed on it returns (1, R x Q) values; reshape them to (R, Q).
    ``present`` and every other field follow."""
    idx = unjudged_items(judged)
    new_grade = np.broadcast_to(np.asarray(grades, np.int32), idx.shape)
    n_q, n_s = judged.n_queries, judged.n_segments
    grade = judged.grade.copy()
    grade[idx] = new_grade
    # qrels of each segment: its query's rows (those the assignment re-grades
    # replaced) plus the assigned documents
    q_counts = np.diff(judged.qrels_offsets)
    seg_query = np.arange(n_s, dtype=np.int64) % n_q
    rows_per_seg = q_counts[seg_query]
    base_seg = np.repeat(np.arange(n_s, dtype=np.int64), rows_per_seg)
    starts = judged.qrels_offsets[:-1][seg_query]
    base_row = (np.arange(len(base_seg), dtype=np.int64)
                - np.repeat(np.cumsum(rows_per_seg) - rows_per_seg, rows_per_seg)
                + np.repeat(starts, rows_per_seg))
    add_seg = judged.segment[idx]
    seg = np.concatenate([base_seg, add_seg])
    key = np.concatenate([judged.qrels_doc_key[base_row], judged.doc_key[idx]])
    g = np.concatenate([judged.qrels_grade[base_row], new_grade])
    added = np.concatenate([np.zeros(len(base_seg), bool), np.ones(len(idx), bool)])
    # sort by (segment, document, added first) and keep the first of each pair:
    # an assigned document replaces its negative qrels row
    order = np.lexsort((~added, key, seg))
    seg, key, g = seg[order], key[order], g[order]
    first = np.ones(len(seg), bool)
    first[1:] = (seg[1:] != seg[:-1]) | (key[1:] != key[:-1])
    seg, key, g = seg[first], key[first], g[first]
    offsets = np.zeros(n_s + 1, np.int64)
    np.cumsum(np.bincount(seg, minlength=n_s), out=offsets[1:])
    names = np.asarray(judged.queries)
    return dataclasses.replace(
        judged,
        run_names=["assigned"],
        queries=np.tile(names, judged.n_runs),
        grade=grade,
        present=judged.present.reshape(1, n_s),
        qrels_offsets=offsets,
        qrels_doc_key=key,
        qrels_grade=g.astype(np.int32, copy=False),
    )


def enumerate_bounds(judged: JudgedRankings, measure, limit: int = 100_000
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper), each (R, Q): the measure's extremes over *every*
    assignment, by enumeration (brute force, for small rankings and tests).

    Segments are independent, so assignment ``a`` gives the ``i``-th unjudged
    item of every segment digit ``i`` of ``a`` in base ``top_grade + 1``: the
    segment with the most unjudged items sees all of its assignments, the
    others each of theirs at least once. Refuses more than ``limit``
    assignments (a ValueError)."""
    idx = unjudged_items(judged)
    shape = (judged.n_runs, judged.n_queries)
    base = top_grade(judged) + 1
    nth = np.arange(len(idx)) - np.searchsorted(idx, judged.offsets[judged.segment[idx]])
    width = int(nth.max()) + 1 if len(idx) else 0
    total = base ** width
    if total > limit:
        raise ValueError(f"{total} assignments to enumerate (more than {limit})")
    lower = np.full(shape, np.inf)
    upper = np.full(shape, -np.inf)
    for a in range(total):
        grades = (a // base ** nth) % base
        values = measure.compute(assign(judged, grades)).reshape(shape)
        np.fmin(lower, values, out=lower)
        np.fmax(upper, values, out=upper)
    return lower, upper
