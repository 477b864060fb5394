"""The gains of grades and the ideal ranking's gains: what the graded measures
(nDCG, NCG, DCG, Q) and their bounds rules share.

The gain of a grade g > 0 is g (``gain=linear``, trec_eval, Jarvelin &
Kekalainen 2002) or 2^g - 1 (``gain=exp``, Burges et al. 2005); grades <= 0
gain nothing, and ``gains=1:3;2:9`` sets the gain of listed grades
(:class:`Gains`, trec_eval's ``-m ndcg.1=3,2=9``). The ideal ranking sorts the
judged documents by gain: :func:`ideal_dcg`, :func:`custom_ideal_dcg` (its
DCG), :func:`ideal_cg` (its cumulative gain within a cut-off) and
:func:`ideal_gain_prefix` (its cumulative gain at every rank).
"""

from __future__ import annotations

import numpy as np

from irpref.judging.judged import JudgedRankings
from irpref.measures.arithmetic import exact_cumsum, log2_table
from irpref.measures.base import Param
from irpref.runtime.native import native

__all__ = ["GAIN", "Gains", "custom_ideal_dcg", "gains", "ideal_cg", "ideal_dcg",
           "ideal_gain_prefix"]


class Gains:
    """Custom gains of some grades, as trec_eval's ``-m ndcg.1=3,2=9``
    (m_ndcg.c, gain_init.c): a listed grade gains its value (zero and
    negative gains allowed, grade 0 may gain), every other grade keeps its
    default gain (the ``gain`` kind). Text form ``LEVEL:GAIN;LEVEL:GAIN``,
    e.g. ``nDCG(gains=1:3;2:9;4:4.5)``, printed sorted by grade."""

    expected = ("LEVEL:GAIN pairs separated by ';', each grade >= 0 at most once, finite gains "
                "(e.g. 1:3;2:9.5)")
    __slots__ = ("pairs",)

    def __init__(self, text: str | dict[int, float] | Gains) -> None:
        if isinstance(text, Gains):
            pairs = dict(text.pairs)
        elif isinstance(text, dict):
            pairs = {int(k): float(v) for k, v in text.items()}
        else:
            pairs = {}
            for item in str(text).split(";"):
                level, colon, value = item.partition(":")
                level, value = level.strip(), value.strip()
                if not colon or not level.isdigit() or not level.isascii():
                    raise ValueError(item)
                if int(level) in pairs:
                    raise ValueError(f"grade {level} twice")
                pairs[int(level)] = float(value)
        if not pairs or any(k < 0 or not np.isfinite(v) for k, v in pairs.items()):
            raise ValueError(text)
        self.pairs: tuple[tuple[int, float], ...] = tuple(sorted(pairs.items()))

    def __str__(self) -> str:
        return ";".join(f"{k}:{int(v) if float(v).is_integer() else repr(v)}"
                        for k, v in self.pairs)

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Gains) and self.pairs == other.pairs

    def __hash__(self) -> int:
        return hash(self.pairs)

    def of(self, grades: np.ndarray, kind: str = "linear") -> np.ndarray:
        """Gain of each grade (negative grades, i.e. unjudged, gain 0)."""
        grades = np.asarray(grades)
        out = np.where(grades > 0, gains(np.maximum(grades, 0), kind), 0.0)
        for level, value in self.pairs:
            out[grades == level] = value
        return out


GAIN = {
    "gain": Param(
        str,
        "linear",
        "gain of a grade g > 0: linear (g: trec_eval, Jarvelin & Kekalainen 2002) or exp "
        "(2^g - 1: Burges et al. 2005, ranx's ndcg_burges)",
        ("linear", "exp"),
    ),
    "gains": Param(
        Gains,
        None,
        "custom gains of listed grades, LEVEL:GAIN;... (trec_eval -m ndcg.1=3,2=9): other "
        "grades keep the gain kind's; the ideal ranks the judged grades by gain",
    ),
}


def gains(grades: np.ndarray, kind: str = "linear") -> np.ndarray:
    """Gains of positive grades: ``g`` (linear) or ``2^g - 1`` (exp)."""
    g = np.asarray(grades).astype(np.float64)
    return np.exp2(g) - 1.0 if kind == "exp" else g


def custom_ideal_dcg(judged: JudgedRankings, cutoff: int | None, custom: Gains,
                     kind: str = "linear") -> np.ndarray:
    """(Q,) ideal DCG under custom gains (trec_eval m_ndcg.c with gain_init.c):
    every judged qrels document (grade >= 0) sorted by decreasing gain, summed
    rank by rank while the gain is positive (a gain <= 0 ends the ideal)."""
    keep = judged.qrels_grade >= 0
    q = judged.qrels_query[keep]
    g = custom.of(judged.qrels_grade[keep], kind)
    order = np.lexsort((-g, q))
    q, g = q[order], g[order]
    offsets = np.zeros(judged.n_queries + 1, np.int64)
    np.cumsum(np.bincount(q, minlength=judged.n_queries), out=offsets[1:])
    rank0 = np.arange(len(g)) - offsets[:-1][q]
    # the ideal stops at the first gain <= 0 of its query (sorted descending)
    take = g > 0
    if cutoff is not None:
        take &= rank0 < cutoff
    return np.bincount(q[take], weights=g[take] / np.log2(rank0[take] + 2.0),
                       minlength=judged.n_queries)


def ideal_dcg(judged: JudgedRankings, cutoff: int | None, gain: str = "linear") -> np.ndarray:
    """(Q,) DCG of the ideal ranking: every judged grade > 0, sorted descending.

    Summed rank by rank as trec_eval does (m_ndcg_cut.c), so the value is
    bit-identical to trec_eval's ``ideal_dcg``; ``gain="exp"`` uses 2^g - 1.
    Linear gains: one C pass over the qrels rows when the C kernels are on.
    """
    kernels = native("kernels") if gain == "linear" else None
    if kernels is not None:
        offsets = np.ascontiguousarray(judged.qrels_offsets, np.int64)
        widest = int(np.diff(offsets).max(initial=0))
        out = np.empty(judged.n_queries)
        kernels.ideal_dcg(offsets, np.ascontiguousarray(judged.qrels_grade, np.int32),
                          -1 if cutoff is None else int(cutoff),
                          log2_table(widest if cutoff is None else min(cutoff, widest)), out)
        return out
    offsets, grades = judged.ideal_grades(1)
    q = np.repeat(np.arange(judged.n_queries), np.diff(offsets))
    rank0 = np.arange(len(grades)) - offsets[:-1][q]
    keep = rank0 < cutoff if cutoff is not None else np.ones(len(grades), bool)
    return np.bincount(
        q[keep], weights=gains(grades[keep], gain) / np.log2(rank0[keep] + 2.0),
        minlength=judged.n_queries,
    )


def ideal_cg(judged: JudgedRankings, cutoff: int | None) -> np.ndarray:
    """(Q,) cumulative gain of the ideal ranking within the cut-off: the top k
    positive grades of the qrels, summed."""
    offsets, grades = judged.ideal_grades(1)
    q = np.repeat(np.arange(judged.n_queries), np.diff(offsets))
    rank0 = np.arange(len(grades)) - offsets[:-1][q]
    keep = rank0 < cutoff if cutoff is not None else np.ones(len(grades), bool)
    return np.bincount(q[keep], weights=grades[keep].astype(np.float64),
                       minlength=judged.n_queries)


def ideal_gain_prefix(judged: JudgedRankings, rel: int, kind: str = "linear"
                      ) -> tuple[np.ndarray, np.ndarray]:
    """The ideal ranking of the documents with grade >= ``rel`` (sorted by gain)
    and its cumulative gain, summed rank by rank: (offsets (Q + 1,), prefix),
    ``prefix[offsets[q] + q + c]`` the gain of the first c ideal documents of
    query q (c = 0 .. R_q; a 0 before each query)."""
    offsets, grades = judged.ideal_grades(rel)
    n_q = judged.n_queries
    out = np.zeros(len(grades) + n_q)
    if len(grades):
        q = np.repeat(np.arange(n_q), np.diff(offsets))
        out[np.arange(len(grades)) + q + 1] = exact_cumsum(gains(grades, kind), offsets)
    return offsets, out
