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

from irpref.judging.judged import NONPOOL, JudgedRankings, LayoutError

__all__ = ["assign", "enumerate_bounds", "residual_bounds", "top_grade", "unjudged_items",
           "with_unjudged"]

_NEEDS = "residual bounds (the unjudged documents retrieved)"


def _holds_every_item(judged: JudgedRankings) -> bool:
    """Every retrieved item within the depth is an item: the full layout, or a
    compact one with as many items as retrieved (:func:`with_unjudged`)."""
    return not judged.compact or judged.n_items == int(judged.n_retrieved.sum())


def unjudged_items(judged: JudgedRankings) -> np.ndarray:
    """Flat indices (ascending) of the retrieved items with a grade < 0, within
    the depth (rankings holding every item: the full layout, or
    :func:`with_unjudged`; a plain compact one does not hold them)."""
    if not _holds_every_item(judged):
        judged._full_only(_NEEDS)
    return judged.derived(("unjudged_items",), lambda: np.flatnonzero(judged.grade < 0))


def with_unjudged(judged: JudgedRankings) -> JudgedRankings:
    """Compact rankings completed with their unjudged items (the full layout is
    returned as it is).

    The compact layout keeps every item the qrels mention with its rank and,
    per segment, the number retrieved n_s; the other ranks ``0 .. n_s - 1`` are
    exactly the retrieved documents absent from the qrels (grade
    :data:`~irpref.judging.judged.NONPOOL`). Placing the kept items at ``offsets[s] +
    rank`` gives every item in rank order, as the full layout holds them, with
    no run read again: what the rules need (grade and rank of each item), and
    still a compact layout for the kernels (explicit ``item_rank``). The
    unjudged items' documents are unknown (key 0; no kernel reads keys). Under
    ``ties="expected"`` their tie groups are unknown too: a
    :class:`~irpref.judging.judged.LayoutError` (judge the full layout)."""
    if _holds_every_item(judged):
        return judged
    if judged.ties == "expected":
        raise LayoutError(f"{_NEEDS} under ties='expected' need the tie groups of the "
                          "unjudged items: judge the full layout")
    n = judged.n_retrieved.astype(np.int64)
    offsets = np.zeros(len(n) + 1, np.int64)
    np.cumsum(n, out=offsets[1:])
    at = offsets[:-1][judged.segment] + judged.item_rank
    grade = np.full(int(offsets[-1]), NONPOOL, np.int32)
    grade[at] = judged.grade
    doc_key = np.zeros(len(grade), np.uint64)
    doc_key[at] = judged.doc_key
    rank = np.arange(len(grade), dtype=np.int64)
    rank -= np.repeat(offsets[:-1], n)
    return dataclasses.replace(judged, offsets=offsets, grade=grade, doc_key=doc_key,
                               item_rank=rank, tie_first=None, tie_size=None)


def top_grade(judged: JudgedRankings) -> int:
    """The highest grade in the qrels (0 when there is no grade >= 0)."""
    g = judged.qrels_grade
    return int(max(int(g.max()), 0)) if len(g) else 0


def assign(judged: JudgedRankings, grades: int | np.ndarray) -> JudgedRankings:
    """``judged`` with the unjudged items (:func:`unjudged_items`) given
    ``grades`` (one grade, or one per unjudged item in that order), as one run
    whose R x Q queries are the segments: query ``s = r * Q + q`` has the
    judged (grade >= 0) qrels rows of ``q`` followed by the assigned documents
    of segment ``s``. A measure computed on it returns (1, R x Q) values;
    reshape them to (R, Q). ``present`` and every other field follow.

    Built by index arithmetic, without a sort: the rows of a segment are not
    ordered by document (no kernel looks documents up in the qrels; only
    judging does). Negative qrels rows ("pooled, unjudged") are left out: a
    retrieved one is an assigned document, one not retrieved is as absent
    for every measure with a bound."""
    idx = unjudged_items(judged)
    new_grade = np.broadcast_to(np.asarray(grades, np.int32), idx.shape)
    n_q, n_s = judged.n_queries, judged.n_segments
    grade = judged.grade.copy()
    grade[idx] = new_grade
    added = np.diff(np.searchsorted(idx, judged.offsets))
    keep = np.flatnonzero(judged.qrels_grade >= 0)
    kept_per_query = np.bincount(judged.qrels_query[keep], minlength=n_q)
    base = np.tile(kept_per_query, judged.n_runs)  # (S,) kept rows of each segment's query
    offsets = np.zeros(n_s + 1, np.int64)
    np.cumsum(base + added, out=offsets[1:])
    key = np.empty(int(offsets[-1]), np.uint64)
    g = np.empty(int(offsets[-1]), np.int32)
    # run by run the segments' base rows are the kept rows in query order (a tile),
    # each shifted by the assigned documents of the segments before it
    at = np.arange(judged.n_runs * len(keep), dtype=np.int64)
    at += np.repeat(np.cumsum(added) - added, base)
    key[at] = np.tile(judged.qrels_doc_key[keep], judged.n_runs)
    g[at] = np.tile(judged.qrels_grade[keep], judged.n_runs)
    # the assigned documents follow their segment's base rows, in rank order
    at = np.arange(len(idx), dtype=np.int64)
    at += np.repeat(np.cumsum(base), added)
    key[at], g[at] = judged.doc_key[idx], new_grade
    return dataclasses.replace(
        judged,
        run_names=["assigned"],
        queries=np.tile(np.asarray(judged.queries), judged.n_runs),
        grade=grade,
        present=judged.present.reshape(1, n_s),
        qrels_offsets=offsets,
        qrels_doc_key=key,
        qrels_grade=g,
    )


def enumerate_bounds(judged: JudgedRankings, measure, limit: int = 100_000,
                     max_items: int = 2_000_000) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper), each (R, Q): the measure's extremes over *every*
    assignment, by enumeration (brute force, for small rankings and tests).

    Segments are independent, so assignment ``a`` gives the ``i``-th unjudged
    item of every segment digit ``i`` of ``a`` in base ``top_grade + 1``: the
    segment with the most unjudged items sees all of its assignments, the
    others each of theirs at least once. Many assignments are evaluated in one
    call, as copies of the runs (:func:`_replicate`). Refuses more than
    ``limit`` assignments (a ValueError). NaN where every assignment is undefined."""
    idx = unjudged_items(judged)
    shape = (judged.n_runs, judged.n_queries)
    base = top_grade(judged) + 1
    # position of each among its segment's unjudged items
    nth = np.arange(len(idx)) - np.searchsorted(idx, judged.offsets[judged.segment[idx]])
    width = int(nth.max()) + 1 if len(idx) else 0
    total = base ** width
    if total > limit:
        raise ValueError(f"{total} assignments to enumerate (more than {limit})")
    lower = np.full(shape, np.inf)
    upper = np.full(shape, -np.inf)
    step = max(1, max_items // max(judged.n_items, 1))
    for first in range(0, total, step):
        a = np.arange(first, min(total, first + step))
        grades = (a[:, None] // base ** nth[None, :]) % base
        copies = _replicate(judged, len(a))
        values = measure.compute(assign(copies, grades.ravel())).reshape(len(a), *shape)
        np.fmin(lower, np.fmin.reduce(values, axis=0), out=lower)  # NaN: undefined
        np.fmax(upper, np.fmax.reduce(values, axis=0), out=upper)
    lower[np.isinf(lower)] = np.nan  # every assignment undefined (e.g. nothing relevant)
    upper[np.isinf(upper)] = np.nan
    return lower, upper


def _replicate(judged: JudgedRankings, times: int) -> JudgedRankings:
    """``judged`` with its runs repeated ``times`` times (copy c of run r is run
    ``c * R + r``): unjudged items come copy by copy, each in the original order."""
    if times == 1:
        return judged
    n = judged.n_items
    offsets = (np.arange(times, dtype=np.int64)[:, None] * n + judged.offsets[None, :-1]).ravel()
    return dataclasses.replace(
        judged,
        run_names=[f"{c}:{r}" for c in range(times) for r in judged.run_names],
        offsets=np.append(offsets, times * n),
        doc_key=np.tile(judged.doc_key, times),
        score=np.tile(judged.score, times),
        grade=np.tile(judged.grade, times),
        present=np.tile(judged.present, (times, 1)),
    )


def residual_bounds(judged: JudgedRankings, measures, values: dict | None = None
                    ) -> dict:
    """``{measure: (lower, upper)}``, each (R, Q): the residual interval of every
    measure by the rule its record declares (:attr:`Family.bounds`): ``"monotone"``
    -> (the plain value, the value with every unjudged document at the top grade;
    one :func:`assign` shared by all such measures), a rule function -> its
    result (widened to hold the plain value when the rule says it does,
    ``holds_value``), ``None`` -> NaN both. ``values`` may hold the plain values
    already computed (``{measure: (R, Q)}``). Compact rankings are completed
    first (:func:`with_unjudged`: the same values, not under expected ties)."""
    judged = with_unjudged(judged)
    values = {} if values is None else values
    shape = (judged.n_runs, judged.n_queries)
    assigned = None
    out = {}

    def value(m):
        if m not in values:
            values[m] = m.compute(judged)
        return values[m]

    for asked in measures:
        # once every unjudged document has a grade, nothing is left for
        # judged_only=true to remove: its interval is the plain measure's
        # (the condensed value itself is an estimate, not one of the outcomes)
        m = dataclasses.replace(asked, params=tuple(
            (k, v) for k, v in asked.params if k != "judged_only")) if asked.judged_only else asked
        rule = m.family.bounds
        if rule is None:
            nan = np.full(shape, np.nan)
            out[asked] = (nan, nan)
        elif rule == "monotone":
            if assigned is None:
                assigned = assign(judged, top_grade(judged))
            out[asked] = (value(m), m.compute(assigned).reshape(shape))
        else:
            lower, upper = rule(judged, m)
            lower = np.asarray(lower, np.float64).reshape(shape)
            upper = np.asarray(upper, np.float64).reshape(shape)
            if getattr(rule, "holds_value", False):
                v = value(m)
                # a NaN bound (no bound for these parameters) stays NaN
                lower = np.where(np.isnan(lower), np.nan, np.fmin(lower, v))
                upper = np.where(np.isnan(upper), np.nan, np.fmax(upper, v))
            out[asked] = (lower, upper)
    return out
