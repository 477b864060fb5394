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

Each is also a measure family (``PrefsSimp``, ``PrefsAvgJG``, ...; the
trec_eval names are its spellings). Its judgments: the preference judgments
attached to the judged rankings (:func:`attach_preferences`, which
``irpref.evaluate`` does for a :class:`~irpref.io.prefs.Preferences` or a
``.prefs`` file), else the graded qrels themselves read as preferences (one
JG per query, a document preferred to every document of a lower grade:
trec_eval's ``-R qrels_prefs``). Rankings are the judged rankings' own (their
tie policy and depth).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from irpref.errors import UsageError
from irpref.io.prefs import Preferences, read_prefs
from irpref.io.records import Qrels, Run
from irpref.judging.judged import JudgedRankings
from irpref.measures.arithmetic import exact_cumsum
from irpref.measures.base import Measure, TrecName, register
from irpref.measures.pref_judgments import JudgedPreferences, judge_preferences
from irpref.measures.pref_pairs import preference_pairs

__all__ = ["PREFS_MEASURES", "preference_counts", "prefs_values",
           "use_preferences"]

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


# ---- the judgments a family reads: the rankings' preferences, or their qrels as such --


def use_preferences(qrels, measures: Sequence[Measure]):
    """``(qrels, None)``, or for preference judgments (a
    :class:`~irpref.io.prefs.Preferences`, or a path ending ``.prefs`` or
    ``.prefs.gz``, read by :func:`~irpref.io.prefs.read_prefs`): qrels naming
    their judged documents (grade 0, to judge the runs against) and the
    preferences (the judged rankings' ``preferences``:
    :meth:`~irpref.judging.judged.JudgedRankings.with_preferences`).
    Preference judgments give the Prefs* measures only: another measure is
    refused (it would read the grade-0 placeholder)."""
    import pandas as pd

    if isinstance(qrels, (str, os.PathLike)) and str(qrels).endswith((".prefs", ".prefs.gz")):
        qrels = read_prefs(qrels)
    if not isinstance(qrels, Preferences):
        return qrels, None
    other = [str(m) for m in measures if not m.family.preferences]
    if other:
        raise UsageError(f"{other[0]} needs relevance judgments: preference judgments "
                         f"({qrels.source}) give the Prefs* measures only")
    pairs = pd.DataFrame({"q": qrels.query.astype(str), "d": qrels.doc.astype(str)})
    pairs = pairs.drop_duplicates()
    return Qrels(pa.array(pairs["q"].tolist(), pa.string()),
                 pa.array(pairs["d"].tolist(), pa.string()), np.zeros(len(pairs), np.int64),
                 source=qrels.source), qrels


def preference_counts(judged: JudgedRankings) -> JudgedPreferences:
    """The preference counts of ``judged`` (its rankings as ranked): from its
    preference judgments, else from its qrels read as preferences (once per
    judged rankings)."""
    if judged.preferences is not None:
        return judged.derived(("preference_counts",), lambda: judge_preferences(
            preference_pairs(judged.preferences), _runs_of(judged, False)))
    return judged.derived(("qrels_preference_counts",), lambda: _from_qrels(judged))


def _doc_text(keys: np.ndarray) -> np.ndarray:
    """Document keys as text that sorts as they do (keys sort as the ids do)."""
    return np.char.zfill(keys.astype(str), 20).astype(object)


def _runs_of(judged: JudgedRankings, keys: bool) -> list[Run]:
    """The judged rankings as runs, in their order (score: minus the position);
    documents as key text (``keys``) or as their ids."""
    n_q = judged.n_queries
    queries = np.asarray(judged.queries, dtype=object)
    runs = []
    for r, name in enumerate(judged.run_names):  # one pass per run
        lo, hi = judged.offsets[r * n_q], judged.offsets[(r + 1) * n_q]
        seg = judged.segment[lo:hi] - r * n_q
        doc_key = judged.doc_key[lo:hi]
        if keys:
            docs = pa.array(_doc_text(doc_key).tolist(), pa.string())
        else:
            docs = judged.docs.take(pa.array(judged.doc_ids.codes(doc_key)))
        runs.append(Run(name, pa.array(queries[seg].tolist(), pa.string()), docs,
                        -np.arange(hi - lo, dtype=np.float64)))
    return runs


def _from_qrels(judged: JudgedRankings) -> JudgedPreferences:
    """The qrels as preferences: one JG a query, levels = grades."""
    q_rows = np.repeat(np.arange(judged.n_queries), np.diff(judged.qrels_offsets))
    queries = np.asarray(judged.queries, dtype=object)
    prefs = Preferences(queries[q_rows], np.full(len(q_rows), "0", object),
                        np.full(len(q_rows), "0", object), _doc_text(judged.qrels_doc_key),
                        judged.qrels_grade.astype(np.float64), np.arange(1, len(q_rows) + 1),
                        source="<qrels>")
    return judge_preferences(preference_pairs(prefs), _runs_of(judged, True))


def _kernel(name: str):
    def kernel(judged: JudgedRankings, m: Measure) -> np.ndarray:
        counts = preference_counts(judged)
        values = prefs_values(counts, name)
        order = np.searchsorted(counts.queries, np.asarray(judged.queries, dtype=object))
        return values[:, order] if len(values) else values

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


_RECORDS = {  # trec_eval name: (family, what it counts)
    "prefs_num_prefs_poss": ("PrefsNumPoss", "preferences A > B of all JGs"),
    "prefs_num_prefs_ful": ("PrefsNumFul", "preferences fulfilled: A ranked above B, or A "
                            "retrieved and B not"),
    "prefs_num_prefs_ful_ret": ("PrefsNumFulRet", "preferences fulfilled with A and B retrieved"),
    "prefs_simp": ("PrefsSimp", "fulfilled / possible over all JGs' preferences"),
    "prefs_pair": ("PrefsPair", "mean over preferred document pairs of the share of the JGs' "
                   "preferences fulfilled (pairs neither retrieved: 0)"),
    "prefs_avgjg": ("PrefsAvgJG", "mean over JGs of fulfilled / possible"),
    "prefs_avgjg_Rnonrel": ("PrefsAvgJGRnonrel", "mean over JGs of fulfilled / possible, "
                            "nonrelevant documents cut or padded to R"),
    "prefs_simp_ret": ("PrefsSimpRet", "fulfilled / possible, A and B retrieved"),
    "prefs_pair_ret": ("PrefsPairRet", "PrefsPair over pairs with both retrieved"),
    "prefs_avgjg_ret": ("PrefsAvgJGRet", "PrefsAvgJG, A and B retrieved"),
    "prefs_avgjg_Rnonrel_ret": ("PrefsAvgJGRnonrelRet", "PrefsAvgJGRnonrel, A and B retrieved"),
    "prefs_simp_imp": ("PrefsSimpImp", "fulfilled / possible, A or B retrieved"),
    "prefs_pair_imp": ("PrefsPairImp", "PrefsPair over pairs with A or B retrieved"),
    "prefs_avgjg_imp": ("PrefsAvgJGImp", "PrefsAvgJG, A or B retrieved"),
}


def _register_all() -> None:
    for trec_name, (family, counts) in _RECORDS.items():
        count = trec_name.startswith("prefs_num")
        register(
            family,
            examples=(family,),
            range="[0, inf)" if count else "[0, 1]",
            trec=(TrecName(trec_name, family, value="long" if count else "float",
                           average="sum" if count else "mean"),),
            orientation="none" if trec_name == "prefs_num_prefs_poss" else "higher",
            formula=f"{family} = {counts}",
            source=f"trec_eval m_{trec_name}.c (Buckley 2008)",
            cutoff="none",
            kind="count" if count else "real",
            aggregate=np.sum if count else None,
            follows=("trec_eval",),
            description="preference judgments (trec_eval -R prefs), or the qrels read as "
                        "preferences (-R qrels_prefs)",
            bounds=None,
            bounds_note="no residual bound: a preference involves judged documents only",
            preferences=True,
            ties_note="no expected form derived: trec_eval's preference counts read one "
                      "ordering of the retrieved documents (ties by docid)",
        )(_kernel(trec_name))


_register_all()
