"""Offline interleaving with simulated users (RPP, Diaz & Ferraro 2022,
section 3 Eq. 2 and section 6.1, Figure 5 bottom row).

For each run pair a < b and query, the top ``depth`` of the two rankings are
team-draft interleaved (Radlinski, Kurup & Joachims, CIKM 2008): at each
step the team with fewer picks (a fair coin when equal) appends its highest
ranked document not yet in the list; when one ranking is exhausted the
other continues. A simulated user scans the interleaved list to a cutoff k
drawn from a browsing model and clicks every relevant document (grade >=
rel) at positions <= k; each click credits the team that contributed the
document. The offline-interleaving preference is Eq. 2,

    OI(a, b) = E_interleaving E_k [ sgn(c_a(k) - c_b(k)) ],

with c_t(k) the clicks credited to team t in the top k. The expectation over
k is exact (``uniform``: p(k) = 1/L; ``dcg``: p(k) proportional to
1/log2(k + 1), k = 1..L, L the interleaved length); the one over
interleavings is the mean over ``samples`` seeded coin sequences.

:func:`interleaving_agreement` compares OI with any measure / preference of
:mod:`irpref.meta.pairwise` per (run pair, query): sign agreement and
Pearson r (RPP Fig. 5 bottom row: RPP vs OI, uniform and DCG users).
Comparisons are those of :func:`irpref.meta.pairwise.pairwise` (queries
with a relevant item that both runs have).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from irpref.errors import UsageError
from irpref.judging.judged import JudgedRankings
from irpref.meta.pairwise import check_measures, judged_for, pairwise, tolerant_signs

__all__ = ["MODELS", "interleaving_agreement", "offline_interleaving"]

MODELS = ("uniform", "dcg")


def _top(judged: JudgedRankings, qidx: np.ndarray, depth: int):
    """(R, Q, D) dense document codes (-1 padded), relevance, and lengths."""
    r, nq = judged.n_runs, judged.n_queries
    seg = np.repeat(np.arange(judged.n_segments), np.diff(judged.offsets))
    rank = np.arange(judged.n_items) - judged.offsets[:-1][seg]
    qpos = np.full(nq, -1)
    qpos[qidx] = np.arange(qidx.size)
    run_of, q_of = seg // nq, qpos[seg % nq]
    keep = (rank < depth) & (q_of >= 0)
    docs = np.full((r, qidx.size, depth), -1, dtype=np.int64)
    rel = np.zeros((r, qidx.size, depth), dtype=bool)
    docs[run_of[keep], q_of[keep], rank[keep]] = judged.doc[keep]
    rel[run_of[keep], q_of[keep], rank[keep]] = judged.grade[keep] >= judged.rel
    return docs, rel, (docs >= 0).sum(axis=2)


def _cross_ranks(docs: np.ndarray) -> np.ndarray:
    """(R, R, Q, D): cross[t, s, q, k] = rank in run t of run s's k-th document (D if absent)."""
    r, nq, d = docs.shape
    big = int(docs.max()) + 2 if docs.size else 1
    key = np.where(docs >= 0, np.arange(nq)[None, :, None] * big + docs, -1)
    out = np.full((r, r, nq, d), d, dtype=np.int32)
    for t in range(r):  # one search per target run, over every run's documents at once
        kt = key[t].ravel()
        order = np.argsort(kt, kind="stable")
        sk = kt[order]
        pos = np.clip(np.searchsorted(sk, key), 0, sk.size - 1)
        found = (sk[pos] == key) & (key >= 0)
        out[t] = np.where(found, (order[pos] % d), d)
    return out


def _team_draft(cross_a, cross_b, rel_a, rel_b, len_a, len_b, coins, model):
    """OI per (P, Q, S) for given coin flips (P, Q, S, 2D) -> mean over S: (P, Q)."""
    p, q, d = cross_a.shape
    s = coins.shape[2]
    shape = (p, q, s)
    ia = np.zeros(shape, np.int64)
    ib = np.zeros(shape, np.int64)
    na = np.zeros(shape, np.int64)
    nb = np.zeros(shape, np.int64)
    ca = np.zeros(shape)
    cb = np.zeros(shape)
    total = np.zeros(shape)
    norm = np.zeros(shape)
    la, lb = len_a[:, :, None], len_b[:, :, None]
    ca_r, cb_r = cross_a[:, :, None, :], cross_b[:, :, None, :]
    ra_r, rb_r = rel_a[:, :, None, :], rel_b[:, :, None, :]

    def at(arr, idx, fill):
        safe = np.minimum(idx, d - 1)[..., None]
        return np.where(idx < d, np.take_along_axis(arr, safe, axis=3)[..., 0], fill)

    for t in range(2 * d):
        # skip documents the other team already took (passed by its pointer)
        while True:
            skip_a = (ia < la) & (at(ca_r, ia, d) < ib)
            skip_b = (ib < lb) & (at(cb_r, ib, d) < ia)
            if not (skip_a.any() or skip_b.any()):
                break
            ia += skip_a
            ib += skip_b
        has_a, has_b = ia < la, ib < lb
        if not (has_a.any() or has_b.any()):
            break
        pick_a = (na < nb) | ((na == nb) & coins[:, :, :, t])
        pick_a = np.where(has_a & has_b, pick_a, has_a)
        append = has_a | has_b
        take_a = append & pick_a
        take_b = append & ~pick_a
        ca += take_a & at(ra_r, ia, False)
        cb += take_b & at(rb_r, ib, False)
        ia += take_a
        ib += take_b
        na += take_a
        nb += take_b
        w = 1.0 if model == "uniform" else 1.0 / np.log2(t + 2)
        total += append * w * np.sign(ca - cb)
        norm += append * w
    with np.errstate(invalid="ignore", divide="ignore"):
        oi = np.where(norm > 0, total / norm, 0.0)
    return oi.mean(axis=2)


def _check(model: str, depth: int, samples: int) -> None:
    if model not in MODELS:
        raise UsageError(f"model={model!r}: must be one of {', '.join(MODELS)}")
    if int(depth) != depth or depth < 1:
        raise UsageError(f"depth={depth}: must be an integer >= 1")
    if int(samples) != samples or samples < 1:
        raise UsageError(f"samples={samples}: must be an integer >= 1")


def _oi_matrix(judged, model, depth, samples, seed):
    """(P, Q) OI of the pairs a < b on the queries with a relevant item, and the pairs."""
    qidx = np.flatnonzero(judged.num_rel() > 0)
    docs, rel, length = _top(judged, qidx, int(depth))
    cross = _cross_ranks(docs)
    a, b = np.triu_indices(judged.n_runs, 1)
    rng = np.random.default_rng(seed)
    coins = rng.random((len(a), qidx.size, int(samples), 2 * int(depth))) < 0.5
    oi = _team_draft(cross[b, a], cross[a, b], rel[a], rel[b], length[a], length[b], coins,
                     model)
    return oi, a, b, qidx


def offline_interleaving(
    qrels=None, runs=None, *, model: str = "uniform", depth: int = 100, samples: int = 10,
    seed: int | None = 0, rel: int = 1, judged: JudgedRankings | None = None,
) -> pd.DataFrame:
    """``run_a, run_b, query, value``: OI(a, b) per run pair a < b and query
    with a relevant item that both runs have (see module docstring)."""
    _check(model, depth, samples)
    judged = judged_for(qrels, runs, judged, rel)
    oi, a, b, qidx = _oi_matrix(judged, model, depth, samples, seed)
    valid = judged.present[a][:, qidx] & judged.present[b][:, qidx]
    pi, qi = np.nonzero(valid)
    names = np.asarray(judged.run_names, dtype=object)
    return pd.DataFrame({"run_a": names[a[pi]], "run_b": names[b[pi]],
                         "query": judged.queries[qidx][qi], "value": oi[pi, qi]})


def interleaving_agreement(
    qrels=None, runs=None, measures: Sequence[str] = ("RPP",), *,
    models: Sequence[str] = MODELS, depth: int = 100, samples: int = 10,
    seed: int | None = 0, rel: int = 1, judged: JudgedRankings | None = None,
) -> pd.DataFrame:
    """``model, measure, sign_agreement, pearson``: OI under each browsing
    model against each measure / preference, per (run pair, query)."""
    models = [models] if isinstance(models, str) else list(models)
    for mdl in models:
        _check(mdl, depth, samples)
    check_measures(measures)
    judged = judged_for(qrels, runs, judged, rel)
    pw = pairwise(judged, measures)
    rows = []
    for mdl in models:
        oi, *_ = _oi_matrix(judged, mdl, depth, samples, seed)
        x = oi[pw.valid]
        for name in pw.names:
            y = pw.values[name][pw.valid]
            ok = x.size > 1 and np.std(x) > 0 and np.std(y) > 0
            rows.append({"model": mdl, "measure": name,
                         "sign_agreement": float(np.mean(tolerant_signs(x) == tolerant_signs(y)))
                         if x.size else np.nan,
                         "pearson": float(np.corrcoef(x, y)[0, 1]) if ok else np.nan})
    return pd.DataFrame(rows, columns=["model", "measure", "sign_agreement", "pearson"])
