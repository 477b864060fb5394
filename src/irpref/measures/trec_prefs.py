"""trec_eval's preference measures (``-m all_prefs``), from preference counts.

Definitions (m_prefs_*.c of trec_eval 10.0). For a query, each judgment
group (JG, a user) holds preferences ``A > B``; with the counts of
:mod:`irpref.judged_prefs` (``ful``: fulfilled, ``poss``: possible):

- ``prefs_num_prefs_poss``: preferences of all JGs (a count; summed over queries);
- ``prefs_num_prefs_ful``: those fulfilled: A ranked above B, or A retrieved
  and B not (summed); ``prefs_num_prefs_ful_ret``: fulfilled with both retrieved;
- ``prefs_simp``: fulfilled / possible, over all JGs' preferences; a pair of
  documents neither retrieved counts as a failure;
- ``prefs_pair``: the mean over document pairs with a preference of the share
  of JGs whose preference the ranking fulfils (pairs neither retrieved score 0);
- ``prefs_avgjg``: fulfilled / possible within each JG, averaged over JGs;
- ``prefs_avgjg_Rnonrel``: as prefs_avgjg with each JG's nonrelevant documents
  (level 0) cut or padded to R, its number of relevant ones (akin to bpref);
- ``_ret``: only preferences between two retrieved documents count;
  ``_imp``: preferences with at least one retrieved document count.

Each value is 0 where its denominator is 0, as in trec_eval; an average over
JGs whose sum is not positive is 0 (prefs_avgjg_Rnonrel is 0 for a query
with a JG whose possible count is 0, where trec_eval's sum becomes NaN).
"""

from __future__ import annotations

import numpy as np

from irpref.measures.pref_judgments import JudgedPreferences
from irpref.measures.trec_arith import exact_cumsum

__all__ = ["PREFS_MEASURES", "prefs_values"]

PREFS_MEASURES = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
    "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
    "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp",
)
"""trec_eval's preference measures, in its print order (measures.c)."""


def _per_query(jp: JudgedPreferences, per_group: np.ndarray) -> np.ndarray:
    """(R, Q) sums over each query's JGs of an (R, G) array (integers: exact)."""
    n_r, n_q = per_group.shape[0], jp.n_queries
    idx = (np.arange(n_r)[:, None] * n_q + jp.pairs.group_query[None, :]).ravel()
    out = np.bincount(idx, weights=per_group.ravel().astype(np.float64), minlength=n_r * n_q)
    return out.reshape(n_r, n_q)


def _ordered_sum(jp: JudgedPreferences, per_group: np.ndarray) -> np.ndarray:
    """(R, Q) sums over each query's JGs added in JG order, as trec_eval's loop."""
    counts = np.bincount(jp.pairs.group_query, minlength=jp.n_queries)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    out = np.zeros((per_group.shape[0], jp.n_queries))
    for r, row in enumerate(per_group):  # one pass per run, not per query
        sums = exact_cumsum(row, offsets)
        out[r] = np.where(counts > 0, sums[np.maximum(offsets[1:] - 1, 0)], 0.0)
    return out


def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, 0 where den is 0."""
    den = np.asarray(den, np.float64)
    return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den != 0)


def _avg_over_groups(jp: JudgedPreferences, ful: np.ndarray, poss: np.ndarray,
                     nan_when_empty: bool = False) -> np.ndarray:
    """Mean over JGs of ful/poss (a JG without preferences adds 0, or NaN when
    ``nan_when_empty``); 0 when the sum is not positive."""
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = ful / poss.astype(np.float64)
    if not nan_when_empty:
        ratio = np.where(poss != 0, ratio, 0.0)
    total = _ordered_sum(jp, ratio)
    n_groups = np.bincount(jp.pairs.group_query, minlength=jp.n_queries)
    with np.errstate(invalid="ignore"):
        return np.where(total > 0, total / np.maximum(n_groups, 1), 0.0)


def prefs_values(jp: JudgedPreferences, name: str) -> np.ndarray:
    """(R, Q) per-query value of trec_eval measure ``name`` (one of PREFS_MEASURES)."""
    g = jp.groups
    ful_ret, ful_imp = g["ful_ret"], g["ful_imp"]
    poss_ret, poss_imp, notoccur = g["poss_ret"], g["poss_imp"], g["notoccur"]
    s = jp.pair_stats
    if name == "prefs_num_prefs_poss":
        return _per_query(jp, poss_ret + poss_imp + notoccur)
    if name == "prefs_num_prefs_ful":
        return _per_query(jp, ful_ret + ful_imp)
    if name == "prefs_num_prefs_ful_ret":
        return _per_query(jp, ful_ret)
    if name == "prefs_simp":
        return _div(_per_query(jp, ful_ret + ful_imp),
                    _per_query(jp, poss_ret + poss_imp + notoccur))
    if name == "prefs_simp_ret":
        return _div(_per_query(jp, ful_ret), _per_query(jp, poss_ret))
    if name == "prefs_simp_imp":
        return _div(_per_query(jp, ful_ret + ful_imp), _per_query(jp, poss_ret + poss_imp))
    if name == "prefs_pair":
        return _div(s["sum_imp"], s["n_all"])
    if name == "prefs_pair_ret":
        return _div(s["sum_ret"], s["n_ret"])
    if name == "prefs_pair_imp":
        return _div(s["sum_imp"], s["n_imp"])
    if name == "prefs_avgjg":
        return _avg_over_groups(jp, ful_ret + ful_imp, poss_ret + poss_imp + notoccur)
    if name == "prefs_avgjg_ret":
        return _avg_over_groups(jp, ful_ret, poss_ret)
    if name == "prefs_avgjg_imp":
        return _avg_over_groups(jp, ful_ret + ful_imp, poss_ret + poss_imp)
    if name == "prefs_avgjg_Rnonrel":
        return _avg_over_groups(jp, jp.rnonrel["ful"], jp.rnonrel["poss"], nan_when_empty=True)
    if name == "prefs_avgjg_Rnonrel_ret":
        return _avg_over_groups(jp, jp.rnonrel["ful_ret"], jp.rnonrel["poss_ret"],
                                nan_when_empty=True)
    raise KeyError(name)
