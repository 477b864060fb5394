"""Ties and agreement between measures on real runs.

- :func:`tie_rates`: percent of tied comparisons per measure (lexiprecision
  Table 2; lexirecall Fig. 10).
- :func:`agreement`: per pair of measures, sign agreement (share of
  comparisons whose signs, -1/0/+1, are equal), Pearson r of the values
  (RPP Fig. 5 "sa" and "r"; lexirecall Fig. 8) and Kendall's tau-b between
  the system orderings (metric: mean over queries; preference: win rate, MC4
  or Borda of :mod:`irpref.preferences.aggregate`; RPP Table 2, lexirecall Fig. 9).
- :func:`conditional_agreement`: lexirecall Fig. 8, agreement over the
  comparisons the second measure does not tie.

Comparisons, orientation and subtopics: :mod:`irpref.meta.pairwise`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from irpref.judging.judged import JudgedRankings
from irpref.meta.pairwise import (
    TOL,
    Pairwise,
    judged_with_subtopics,
    kendall_tau,
    pairwise,
    tolerant_signs,
)

__all__ = ["agreement", "conditional_agreement", "tie_rates"]


def tie_rates(
    qrels=None, runs=None, measures: Sequence[str] = ("RR", "sgnLP"), *, rel: int = 1,
    judged: JudgedRankings | None = None, subtopics=None,
) -> pd.DataFrame:
    """``measure, percent_tied``: percent of (run pair, query) comparisons tied."""
    judged, sub = judged_with_subtopics(qrels, runs, judged, rel, measures, subtopics)
    pw = pairwise(judged, measures, subtopics=sub)
    return pd.DataFrame({
        "measure": pw.names,
        "percent_tied": [_percent_tied(pw, n) for n in pw.names],
    })


def _percent_tied(pw: Pairwise, name: str) -> float:
    v = pw.values[name][pw.valid]
    return 100.0 * float(np.mean(np.abs(v) <= TOL)) if v.size else float("nan")


def agreement(
    qrels=None, runs=None, measures: Sequence[str] = ("RR", "sgnLP"), *, rel: int = 1,
    aggregate: str = "winrate", judged: JudgedRankings | None = None, subtopics=None,
) -> pd.DataFrame:
    """``measure_a, measure_b, sign_agreement, pearson, kendall_tau`` for every
    pair of measures (input order, a before b)."""
    judged, sub = judged_with_subtopics(qrels, runs, judged, rel, measures, subtopics)
    pw = pairwise(judged, measures, aggregate=aggregate, subtopics=sub)
    rows = []
    scores = {n: pw.scores(n) for n in pw.names}
    for i, x in enumerate(pw.names):
        for y in pw.names[i + 1:]:
            vx, vy = pw.values[x][pw.valid], pw.values[y][pw.valid]
            sa = (float(np.mean(tolerant_signs(vx) == tolerant_signs(vy))) if vx.size
                  else float("nan"))
            if vx.size > 1 and np.std(vx) > 0 and np.std(vy) > 0:
                r = float(np.corrcoef(vx, vy)[0, 1])
            else:
                r = float("nan")
            rows.append({"measure_a": x, "measure_b": y, "sign_agreement": sa,
                         "pearson": r, "kendall_tau": kendall_tau(scores[x], scores[y])})
    return pd.DataFrame(rows, columns=["measure_a", "measure_b", "sign_agreement",
                                       "pearson", "kendall_tau"])


def conditional_agreement(
    qrels=None, runs=None, measures: Sequence[str] = ("sgnLR", "AP"), *, rel: int = 1,
    judged: JudgedRankings | None = None, subtopics=None,
) -> pd.DataFrame:
    """``measure_a, measure_b, comparisons, agreement``: lexirecall (Diaz &
    Mitra 2023) section 6.2.1, Fig. 8, for every ordered pair of measures:
    over the comparisons that ``measure_b`` does not tie (``comparisons``),
    the share where ``measure_a`` prefers the same run,
    sum I(a >_b b and a >_a b) / sum I(a >_b b) (a tie of ``measure_a``
    disagrees). Unlike ``sign_agreement`` of :func:`agreement`, ties of
    ``measure_b`` are left out."""
    judged, sub = judged_with_subtopics(qrels, runs, judged, rel, measures, subtopics)
    pw = pairwise(judged, measures, subtopics=sub)
    signs = {n: tolerant_signs(pw.values[n][pw.valid]) for n in pw.names}
    rows = []
    for x in pw.names:
        for y in pw.names:
            if x == y:
                continue
            k = signs[y] != 0
            n = int(k.sum())
            rows.append({"measure_a": x, "measure_b": y, "comparisons": n,
                         "agreement": float(np.mean(signs[x][k] == signs[y][k]))
                         if n else float("nan")})
    return pd.DataFrame(rows, columns=["measure_a", "measure_b", "comparisons", "agreement"])
