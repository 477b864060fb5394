"""Agreement between two sets of relevance labels over the (query, document) pairs both judge.

Every statistic is computed from confusion matrices: ``O[i, j]`` = the number
of pairs graded ``v_i`` by A and ``v_j`` by B, where ``v_0 < v_1 < ...`` are
the grades either side gives to a pair both judge. Matrices are built with
one ``bincount`` (per query: one ``bincount`` over ``(query, i, j)``), so the
cost is a join and a count, whatever the number of queries.

**Cohen's kappa** (Cohen 1960; weighted: Cohen 1968):
``kappa_w = 1 - sum(w * O) / sum(w * E)``, ``E[i, j] = O[i, .] O[., j] / n``
(agreement expected from the two marginals), disagreement weights on the
category positions ``i, j`` (as scikit-learn's ``cohen_kappa_score``):
``kappa`` w = [i != j], ``kappa_linear`` w = |i - j|, ``kappa_quadratic``
w = (i - j)^2.

**Krippendorff's alpha** (Krippendorff 2011, "Computing Krippendorff's
Alpha-Reliability", Sec. C and E), two coders and no missing value in the
pairs both judge: the coincidence matrix ``o = O + O^T`` (each pair is a unit
with two pairable values), ``n_c = sum_k o[c, k]``, ``n = sum_c n_c = 2 N``,
``alpha = 1 - (n - 1) sum_{c,k} o[c, k] d2[c, k] / sum_{c,k} n_c n_k d2[c, k]``
with ``d2`` nominal [c != k], interval (v_c - v_k)^2 (on the grade values),
ordinal ``(sum_{g=c}^{k} n_g - (n_c + n_k) / 2)^2``, which is
``(m_k - m_c)^2`` with the mid-ranks ``m_g = sum_{h<=g} n_h - n_g / 2``.

**Binarized** at threshold t: grade >= t is relevant; one 2 x 2 matrix, where
every weighting gives the same kappa (``kappa_binary``) and every metric the
same alpha (``alpha_binary``).

A statistic whose expected disagreement is 0 (both sides use one category
only) is undefined: NaN, never a number.

Negative grades mean "pooled, unjudged" (as in trec_eval): a pair with a
negative grade is not judged by that side.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from irpref.errors import InputError
from irpref.io import Qrels
from irpref.io.hashing import hash_strings, mix

__all__ = [
    "Labels",
    "alpha_from_confusion",
    "binarize",
    "join_labels",
    "kappa_from_confusion",
]

KAPPA_WEIGHTS = {"kappa": "unweighted", "kappa_linear": "linear",
                 "kappa_quadratic": "quadratic"}
ALPHA_METRICS = {"alpha_nominal": "nominal", "alpha_ordinal": "ordinal",
                 "alpha_interval": "interval"}


# --------------------------------------------------------------------------- formulas


def _disagreement_weights(k: int, weights: str) -> np.ndarray:
    i = np.arange(k, dtype=np.float64)
    diff = i[:, None] - i[None, :]
    if weights == "unweighted":
        return (diff != 0).astype(np.float64)
    if weights == "linear":
        return np.abs(diff)
    if weights == "quadratic":
        return diff * diff
    raise ValueError(f"weights must be unweighted, linear or quadratic, not {weights!r}")


def kappa_from_confusion(confusion: np.ndarray, weights: str = "unweighted") -> np.ndarray:
    """Cohen's kappa of (..., K, K) confusion matrices (rows A, columns B):
    ``1 - sum(w O) / sum(w E)``, ``E = rows x columns / n``; NaN when ``sum(w E) = 0``.

    The weights of linear and quadratic kappa are distances between category
    *positions* ``|i - j|`` (as scikit-learn's ``cohen_kappa_score``): grades 0, 1,
    3 used on the pairs are 0, 1, 2 apart, not 0, 1, 3. Interval alpha
    (:func:`alpha_from_confusion`) uses the grade *values*."""
    o = np.asarray(confusion, dtype=np.float64)
    w = _disagreement_weights(o.shape[-1], weights)
    n = o.sum(axis=(-2, -1))
    rows, cols = o.sum(axis=-1), o.sum(axis=-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.einsum("...i,ij,...j->...", rows, w, cols) / n
        observed = np.einsum("...ij,ij->...", o, w)
        out = 1.0 - observed / expected
    return np.where(expected > 0, out, np.nan)


def alpha_from_confusion(confusion: np.ndarray, values: np.ndarray,
                         metric: str = "nominal") -> np.ndarray:
    """Krippendorff's alpha of (..., K, K) confusion matrices of two coders with
    no missing values; ``values`` (K,) the grade of each category.
    ``1 - (n - 1) sum(o d2) / sum(n_c n_k d2)`` on the coincidence matrix
    ``o = O + O^T``; NaN when the expected disagreement is 0."""
    o = np.asarray(confusion, dtype=np.float64)
    o = o + np.swapaxes(o, -1, -2)
    n_c = o.sum(axis=-1)
    n = n_c.sum(axis=-1)
    if metric == "nominal":
        d2 = _disagreement_weights(o.shape[-1], "unweighted")
    elif metric == "interval":
        v = np.asarray(values, dtype=np.float64)
        d2 = (v[:, None] - v[None, :]) ** 2
    elif metric == "ordinal":
        mid = np.cumsum(n_c, axis=-1) - n_c / 2.0
        d2 = (mid[..., :, None] - mid[..., None, :]) ** 2
    else:
        raise ValueError(f"metric must be nominal, ordinal or interval, not {metric!r}")
    d2 = np.broadcast_to(d2, o.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (o * d2).sum(axis=(-2, -1))
        expected = np.einsum("...c,...ck,...k->...", n_c, d2, n_c)
        out = 1.0 - (n - 1.0) * observed / expected
    return np.where(expected > 0, out, np.nan)


def binarize(confusion: np.ndarray, values: np.ndarray, threshold: int) -> np.ndarray:
    """(..., 2, 2) matrices of grade >= ``threshold`` (index 1) vs below (index 0)."""
    m = np.zeros((len(values), 2))
    m[np.arange(len(values)), (np.asarray(values) >= threshold).astype(np.int64)] = 1.0
    return np.einsum("ki,...kl,lj->...ij", m, np.asarray(confusion, dtype=np.float64), m)


# --------------------------------------------------------------------------- the join


def _codes(a: pa.Array, b: pa.Array) -> tuple[np.ndarray, np.ndarray, pa.Array]:
    """Interned codes of two string arrays over one shared dictionary."""
    both = pa.chunked_array([a, b], type=pa.string()).combine_chunks()
    enc = pc.dictionary_encode(both)
    codes = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    return codes[: len(a)], codes[len(a):], enc.dictionary


def _match_exact(qa, qb, da, db) -> tuple[np.ndarray, np.ndarray]:
    """Rows (ia, ib) of equal (query, doc) pairs, by interned codes (exact)."""
    ca, cb, _ = _codes(da, db)
    width = int(max(ca.max(initial=-1), cb.max(initial=-1))) + 1
    _, ia, ib = np.intersect1d(qa * width + ca, qb * width + cb, assume_unique=True,
                               return_indices=True)
    return ia, ib


def _match(qa: np.ndarray, qb: np.ndarray, da: pa.Array, db: pa.Array):
    """Rows (ia, ib) of equal (query, doc) pairs (pairs are distinct on each side).

    One 64-bit key per pair (query code mixed with the document's string hash,
    :mod:`irpref.io.hashing`), a sort and a binary search; every match is confirmed
    on the document strings, and a key seen twice on one side or a match that
    is not one sends the join to :func:`_match_exact` (a collision costs time,
    never a wrong result)."""
    seed_a = mix(qa.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1))
    seed_b = mix(qb.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1))
    ka, kb = hash_strings(da) ^ seed_a, hash_strings(db) ^ seed_b
    order = np.argsort(ka)
    sorted_a = ka[order]
    if len(sorted_a) > 1 and (sorted_a[1:] == sorted_a[:-1]).any():
        return _match_exact(qa, qb, da, db)
    order_b = np.argsort(kb)
    kb_sorted = kb[order_b]
    if len(kb_sorted) > 1 and (kb_sorted[1:] == kb_sorted[:-1]).any():
        return _match_exact(qa, qb, da, db)
    # sorted needles: the binary searches walk the table in order (cache friendly)
    pos = np.minimum(np.searchsorted(sorted_a, kb_sorted), max(len(sorted_a) - 1, 0))
    hit = (np.flatnonzero(sorted_a[pos] == kb_sorted) if len(sorted_a)
           else np.zeros(0, np.int64))
    ia, ib = order[pos[hit]], order_b[hit]
    same = (qa[ia] == qb[ib]) & pc.equal(da.take(pa.array(ia)), db.take(pa.array(ib))) \
        .to_numpy(zero_copy_only=False)
    if not same.all():
        return _match_exact(qa, qb, da, db)
    return ia, ib


@dataclass(frozen=True, eq=False)
class Labels:
    """The pairs both sides judge (grade >= 0 on both), with what only one judges."""

    grade_a: np.ndarray  # (N,) int64 grades of the common pairs under A
    grade_b: np.ndarray  # (N,) under B
    query: np.ndarray  # (N,) int64 index into ``queries``
    queries: np.ndarray  # (Q,) object, queries with a common pair, in A's order
    only_a: np.ndarray  # (M_a,) grades A gives to pairs B does not judge
    only_b: np.ndarray  # (M_b,) grades B gives to pairs A does not judge
    unjudged_a: int  # pairs A lists with a negative grade (pooled, unjudged)
    unjudged_b: int
    source_a: str = "<qrels A>"
    source_b: str = "<qrels B>"

    @property
    def n(self) -> int:
        return len(self.grade_a)

    @cached_property
    def values(self) -> np.ndarray:
        """(K,) the grades used on the common pairs, ascending."""
        return np.union1d(np.unique(self.grade_a), np.unique(self.grade_b))

    @cached_property
    def _index(self) -> tuple[np.ndarray, np.ndarray]:
        return (np.searchsorted(self.values, self.grade_a),
                np.searchsorted(self.values, self.grade_b))

    @cached_property
    def confusion(self) -> np.ndarray:
        """(K, K) counts: rows A's grade, columns B's (one bincount)."""
        k = len(self.values)
        ia, ib = self._index
        return np.bincount(ia * k + ib, minlength=k * k).reshape(k, k)

    @cached_property
    def query_confusion(self) -> np.ndarray:
        """(Q, K, K) counts per query (one bincount)."""
        k, q = len(self.values), len(self.queries)
        ia, ib = self._index
        flat = (self.query * k + ia) * k + ib
        return np.bincount(flat, minlength=q * k * k).reshape(q, k, k)

    def thresholds(self) -> list[int]:
        """1 .. the largest grade either side gives to a common pair."""
        top = int(self.values[-1]) if len(self.values) else 0
        return list(range(1, top + 1))


def _take(values: pa.Array, rows: np.ndarray, keep: np.ndarray) -> pa.Array:
    return values if keep.all() else values.take(pa.array(rows))


def join_labels(a: Qrels, b: Qrels) -> Labels:
    """Join two qrels on (query, document) pairs (:func:`_match`; no loop per pair).

    A pair is judged by a side when it lists it with a grade >= 0."""
    qa, qb, qdict = _codes(a.query, b.query)
    ga, gb = np.asarray(a.grade, np.int64), np.asarray(b.grade, np.int64)
    judged_a, judged_b = ga >= 0, gb >= 0
    sel_a, sel_b = np.flatnonzero(judged_a), np.flatnonzero(judged_b)
    qa_j, ga_j, gb_j = qa[sel_a], ga[sel_a], gb[sel_b]
    ia, ib = _match(qa_j, qb[sel_b], _take(a.doc, sel_a, judged_a),
                    _take(b.doc, sel_b, judged_b))
    ia_order = np.sort(ia)  # the common pairs in A's file order
    ib_order = ib[np.argsort(ia, kind="stable")]
    in_b = np.zeros(len(sel_b), dtype=bool)
    in_b[ib] = True
    in_a = np.zeros(len(sel_a), dtype=bool)
    in_a[ia] = True
    qcodes = qa_j[ia_order]
    used, first = np.unique(qcodes, return_index=True)
    order = np.argsort(first, kind="stable")  # queries in A's order
    rank = np.empty(len(used), dtype=np.int64)
    rank[order] = np.arange(len(used))
    query = rank[np.searchsorted(used, qcodes)]
    names = np.asarray(qdict.take(pa.array(used[order])).to_pylist(), dtype=object)
    return Labels(
        grade_a=ga_j[ia_order], grade_b=gb_j[ib_order], query=query, queries=names,
        only_a=ga_j[~in_a], only_b=gb_j[~in_b],
        unjudged_a=int((~judged_a).sum()), unjudged_b=int((~judged_b).sum()),
        source_a=a.source, source_b=b.source,
    )


def refuse_disjoint(labels: Labels) -> None:
    """No pair in common: every statistic would be undefined; say so."""
    if labels.n == 0:
        raise InputError(
            labels.source_b, None,
            f"judges no (query, document) pair that {labels.source_a} judges (grade >= 0 on "
            f"both): agreement is undefined ({len(labels.only_a)} pairs judged only by "
            f"{labels.source_a}, {len(labels.only_b)} only by {labels.source_b})")


# --------------------------------------------------------------------------- tables


def statistics(labels: Labels, thresholds: list[int] | None = None) -> pd.DataFrame:
    """One row per statistic: columns statistic, threshold (empty: all grades), value."""
    conf, values = labels.confusion, labels.values
    n = labels.n
    ga, gb = labels.grade_a, labels.grade_b
    rows: list[tuple[str, int | None, float]] = [
        ("pairs", None, n),
        ("pairs_only_a", None, len(labels.only_a)),
        ("pairs_only_b", None, len(labels.only_b)),
        ("pairs_unjudged_a", None, labels.unjudged_a),
        ("pairs_unjudged_b", None, labels.unjudged_b),
        ("queries", None, len(labels.queries)),
        ("agreement", None, float(np.trace(conf)) / n),
    ]
    rows += [(name, None, float(kappa_from_confusion(conf, w)))
             for name, w in KAPPA_WEIGHTS.items()]
    rows += [(name, None, float(alpha_from_confusion(conf, values, m)))
             for name, m in ALPHA_METRICS.items()]
    rows += [
        ("mean_grade_a", None, float(ga.mean())),
        ("mean_grade_b", None, float(gb.mean())),
        ("share_b_higher", None, float((gb > ga).mean())),
        ("share_b_lower", None, float((gb < ga).mean())),
    ]
    for t in labels.thresholds() if thresholds is None else thresholds:
        two = binarize(conf, values, t)
        rows += [
            ("agreement_binary", t, float(np.trace(two)) / n),
            ("kappa_binary", t, float(kappa_from_confusion(two))),
            ("alpha_binary", t, float(alpha_from_confusion(two, np.array([0, 1])))),
            ("relevant_a", t, float(two[1].sum()) / n),
            ("relevant_b", t, float(two[:, 1].sum()) / n),
            ("relevant_only_a", t, int((labels.only_a >= t).sum())),
            ("relevant_only_b", t, int((labels.only_b >= t).sum())),
        ]
    return pd.DataFrame({
        "statistic": [r[0] for r in rows],
        "threshold": pd.array([r[1] for r in rows], dtype="Int64"),
        "value": np.array([r[2] for r in rows], dtype=np.float64),
    })


def confusion_table(labels: Labels, threshold: int | None = None) -> pd.DataFrame:
    """Tidy confusion matrix: grade_a, grade_b, pairs (every cell, zeros included);
    at ``threshold`` the grades are 0 (below) and 1 (grade >= threshold)."""
    conf, values = labels.confusion, labels.values
    if threshold is not None:
        conf, values = binarize(conf, values, threshold).astype(np.int64), np.array([0, 1])
    k = len(values)
    return pd.DataFrame({
        "grade_a": np.repeat(values, k), "grade_b": np.tile(values, k),
        "pairs": conf.ravel().astype(np.int64),
    })


def per_query(labels: Labels, threshold: int | None = None) -> pd.DataFrame:
    """One row per query with a common pair, those that disagree most first
    (lowest exact agreement, then lowest ordinal alpha): pairs, agreement,
    mean grades, shares B grades higher / lower, kappa, kappa_quadratic,
    alpha_ordinal, alpha_interval, and at ``threshold`` kappa_binary, alpha_binary."""
    conf, values = labels.query_confusion, labels.values
    n = conf.sum(axis=(1, 2)).astype(np.float64)
    k = len(values)
    i = np.arange(k)
    upper = (i[:, None] < i[None, :]).astype(np.float64)  # B higher
    frame = pd.DataFrame({
        "query": labels.queries,
        "pairs": n.astype(np.int64),
        "agreement": np.trace(conf, axis1=1, axis2=2) / n,
        "mean_grade_a": (conf.sum(axis=2) @ values) / n,
        "mean_grade_b": (conf.sum(axis=1) @ values) / n,
        "share_b_higher": np.einsum("qij,ij->q", conf, upper) / n,
        "share_b_lower": np.einsum("qij,ij->q", conf, upper.T) / n,
        "kappa": kappa_from_confusion(conf),
        "kappa_quadratic": kappa_from_confusion(conf, "quadratic"),
        "alpha_ordinal": alpha_from_confusion(conf, values, "ordinal"),
        "alpha_interval": alpha_from_confusion(conf, values, "interval"),
    })
    if threshold is not None:
        two = binarize(conf, values, threshold)
        frame[f"kappa_binary@{threshold}"] = kappa_from_confusion(two)
        frame[f"alpha_binary@{threshold}"] = alpha_from_confusion(two, np.array([0, 1]))
    order = np.lexsort((np.nan_to_num(frame["alpha_ordinal"].to_numpy(), nan=np.inf),
                        frame["agreement"].to_numpy()))
    return frame.iloc[order].reset_index(drop=True)
