"""Residual bounds of ASL (:mod:`irpref.measures.search_length`), by the
position scans of the recall-level rules (:class:`~irpref.measures.
recall_level_bounds.PositionCounts`: superset and exchange, proved in
:mod:`irpref.measures.recall_level_bounds`).
"""

from __future__ import annotations

import numpy as np

from irpref.judging.judged import JudgedRankings
from irpref.measures.base import Measure
from irpref.measures.bounds import assign, top_grade
from irpref.measures.recall_level_bounds import PositionCounts
from irpref.measures.unjudged_scan import Pair, scan_bounds

__all__ = ["asl_bounds"]


def asl_bounds(judged: JudgedRankings, m: Measure) -> Pair:
    """ASL (Alex, Hall & Metzler 2022): the sum of the search lengths is
    sum p - M(M-1)/2 over the M relevant retrieved plus, for each of the k
    below the cut-off or unretrieved, ñ - M (missing=retrieved), ñ - M + 1
    (after) or n - m + 1 (corpus). For a fixed m the exchange argument holds
    (each search length only falls as a relevant item moves up), so the scan
    over j of top-j and bottom-j is exact. ``golds=g``: with m <= g the value
    is the plain mean (scanned); with m >= g each of the first g search
    lengths only falls as documents become relevant, so there the most is at
    m = max(g, m0) (in the scan) and the least at every unjudged document
    relevant (one more evaluation). Exact, every tie policy."""
    missing = m.get("missing")
    plain = m.compute(judged)  # refusals first
    cnt = PositionCounts(judged, m, "optimistic", fallback=missing == "corpus")
    s = cnt.c.seg
    golds = m.get("golds")

    def value(seg, M, k, sp, j):
        mm = cnt.m0[seg] + j
        nret = cnt.nret[seg]
        if missing == "corpus":
            unret = cnt.n - mm + 1.0
        else:
            unret = nret - M + (1.0 if missing == "after" else 0.0)
        total = sp - M * (M - 1.0) / 2.0 + k * unret
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.where(mm > 0, total / mm, np.nan)
        if golds is not None:
            out = np.where(mm <= golds, out, np.nan)
        return out

    segs = np.arange(judged.n_segments)
    base = value(segs, *cnt.base) if golds is None else plain.reshape(-1)
    lower, upper = scan_bounds(judged, cnt.c, base, value(s, *cnt.top), value(s, *cnt.bottom))
    if golds is not None and cnt.c.movable and len(cnt.c.index):
        full = m.compute(assign(judged, top_grade(judged))).reshape(lower.shape)
        lower, upper = np.fmin(lower, full), np.fmax(upper, full)
    return lower, upper
