"""Residual bounds of the recall-level family (:mod:`irpref.measures.recall_level`:
RL, TSE, SL1, SL3, RE) and the position scans ASL's rule shares
(:mod:`irpref.measures.search_length_bounds`).

The measures of :mod:`irpref.measures.recall_level` and
:mod:`irpref.measures.search_length` read the sorted positions
``p_1 < ... < p_m`` of the relevant items (Diaz & Mitra 2023 §2.1-2.2), those
ranked below an ``@k`` cut-off imputed after the retrieved ones (pessimistic:
the bottom ``n-k+1..n`` of a corpus of n, assumed at least the retrieved plus
the relevant documents; optimistic: ``ñ+1..ñ+k``; none: unseen). Making an
unjudged document relevant adds one position: its rank if within the
cut-off, else one more imputed slot (the block of imputed positions grows the
same whichever document it is). Two facts give every rule:

- *superset*: the new position set contains the old one, so ``p_1`` never
  grows and ``p_m`` never falls (RL-RR, RL-RBP, SL1, TSE are monotone in the
  set of relevant documents);
- *exchange*: for a fixed number m of relevant items, moving one relevant
  item up (to a smaller position) never lowers ``sum_i e(p_i) z(i, m)`` for a
  decreasing exposure e and any z of the paper (z = i/m: the moved term
  loses at most (L+1)(e(a) - e(b)) >= 0 against the t items passed, each
  gaining e(p) >= e(b)); never raises p_m, sum p_i or any search length
  p_i - (i - 1). So for j newly relevant documents the first j unjudged in
  rank order (``top-j``) and the last j (``bottom-j``) are the extremes, and
  the exact interval is a scan over j (:func:`irpref.measures.unjudged_scan.scan_bounds`).

Under ``ties="expected"`` the same hold for every ordering of the tied items
(a tie group's items precede the next group's in every ordering), hence for
the expectation; the scans then read each item's tie group.
"""

from __future__ import annotations

import numpy as np

from irpref.judging.judged import JudgedRankings
from irpref.measures.arithmetic import within_segment_cumsum
from irpref.measures.base import Measure
from irpref.measures.bounds import assign, top_grade
from irpref.measures.positions import relevant_positions, resolve_corpus_size
from irpref.measures.recall_metrics import RecallLevelMetric, named_metric
from irpref.measures.unjudged_scan import Candidates, Pair, candidates, scan_bounds

__all__ = [
    "PositionCounts",
    "re_bounds",
    "rl_bounds",
    "sl1_bounds",
    "sl3_bounds",
    "tse_bounds",
]


def _singleton(judged: JudgedRankings, c: Candidates, first: bool) -> np.ndarray:
    """Grades making only the first (or the last) unjudged item of each segment relevant."""
    pick = c.nth == 0 if first else c.nth == c.count[c.seg] - 1
    return np.where(pick, top_grade(judged), 0)


def _shape(judged: JudgedRankings, values: np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).reshape(judged.n_runs, judged.n_queries)


def _set_antitone(judged: JudgedRankings, m: Measure, first: bool) -> Pair:
    """Bounds of a value that never rises as documents become relevant and is
    undefined (NaN) or 0 with none relevant: lower = all of the top grade,
    upper = the plain value, or, where no document is relevant, the best
    singleton (``first``: the first unjudged item, else the last)."""
    plain, full, one, c = _antitone_parts(judged, m, first)
    if full is None:
        return plain, plain.copy()
    empty = (judged.num_rel(m.rel(judged)) == 0)[None, :] & (c.count.reshape(plain.shape) > 0)
    return np.fmin(plain, full), np.where(empty, np.fmax(plain, one), plain)


def _antitone_parts(judged: JudgedRankings, m: Measure, first: bool):
    """(plain value, value with every unjudged item relevant, value with one
    relevant: the ``first`` or last unjudged item, the candidates); the two
    assignments None when nothing can become relevant."""
    c = candidates(judged, m.rel(judged))
    plain = m.compute(judged)
    if not c.movable or not len(c.index):
        return plain, None, None, c
    shape = plain.shape
    full = _shape(judged, m.compute(assign(judged, top_grade(judged))).reshape(shape))
    one = _shape(judged, m.compute(assign(judged, _singleton(judged, c, first))).reshape(shape))
    return plain, full, one, c


def tse_bounds(judged: JudgedRankings, m: Measure) -> Pair:
    """TSE = e(p_m): p_m never falls as documents become relevant (superset), so
    TSE never rises: the least is every unjudged document relevant, the most
    the plain value; with no relevant document (undefined) the most is one
    document made relevant, the first unjudged (the smallest p_m), every tie
    policy. Exact."""
    return _set_antitone(judged, m, first=True)


def sl1_bounds(judged: JudgedRankings, m: Measure) -> Pair:
    """SL1 = p_1 - 1: p_1 never grows as documents become relevant (superset):
    the least is every unjudged document relevant, the most the plain value;
    with no relevant document (undefined) the most is one relevant document,
    the last unjudged (the largest p_1), every tie policy. Exact."""
    plain, full, one, _ = _antitone_parts(judged, m, first=False)
    if full is None:
        return plain, plain.copy()
    return np.fmin(plain, full), np.where(np.isnan(plain), one, plain)


# ---- the scan over j for positional measures -------------------------------
class _PositionSteps:
    """Per candidate (unjudged item, in rank order) what the top-j and bottom-j
    scans need: tie group of the item, imputed positions beyond the cut-off."""

    def __init__(self, judged: JudgedRankings, m: Measure, impute: str) -> None:
        rel = m.rel(judged)
        self.judged, self.rel = judged, rel
        self.c = c = candidates(judged, rel)
        if impute == "pessimistic":
            n = resolve_corpus_size(judged, str(m))
        else:
            n = float(judged.corpus_size) if judged.corpus_size is not None else None
        self.pos = pos = relevant_positions(judged, rel=rel, cutoff=m.cutoff, impute=impute, n=n)
        self.impute, self.n = impute, n
        s = c.seg
        self.m0 = pos.m.astype(np.float64)
        self.k0 = (pos.m - pos.m_ret).astype(np.float64)
        self.nret = pos.n_ret.astype(np.float64)
        rank = judged.rank[c.index]
        inside = rank < m.cutoff if m.cutoff is not None else np.ones(len(c.index), bool)
        self.inside = inside
        self.u_in = np.bincount(s[inside], minlength=judged.n_segments).astype(np.float64)
        self.x = rank + 1.0  # position when within the cut-off
        # imputed position of the t-th document made relevant beyond the cut-off
        t_top = c.nth - self.u_in[s] + 1.0
        t_bot = c.count[s] - c.nth.astype(np.float64)
        self.y_top, self.y_bot = self._imputed(t_top, s), self._imputed(t_bot, s)
        self.t_top, self.t_bot = t_top, t_bot
        self.is_rel = (judged.grade >= rel)
        if m.cutoff is not None:
            self.is_rel = self.is_rel & (judged.rank < m.cutoff)

    def _imputed(self, t: np.ndarray, s: np.ndarray) -> np.ndarray:
        if self.impute == "pessimistic":
            return self.n - self.k0[s] - t + 1.0
        if self.impute == "optimistic":
            return self.nret[s] + self.k0[s] + t
        return np.full(len(t), np.nan)

    def top_positions(self) -> np.ndarray:
        return np.where(self.inside, self.x, self.y_top)

    def bottom_positions(self) -> np.ndarray:
        return np.where(self.inside, self.x, self.y_bot)


def _exposure(metric, p: np.ndarray, n) -> np.ndarray:
    return metric.exposure(p, n)


def rl_bounds(judged: JudgedRankings, m: Measure) -> Pair:
    """RL(e, z) = sum_i e(p_i) z(i, m) (Diaz & Mitra 2023, Def. 2.1).

    z = rr, rbp (one): the value only grows with the set of relevant items
    (superset, e >= 0): plain and all-relevant are the extremes. z = sl3
    (e(p_m)): never rises on a non-empty set: as TSE, 0 with none relevant.
    z = ap, ndcg, mean: the exchange argument; the scan adds one position at a
    time, the sum of e (ndcg, mean) by e(x), the sum of i e(p_i) (ap) by
    e(x) (1 + positions above x) + (sum of e below x). Exact."""

    if m.name == "RL":
        z = m.get("z")
        metric = RecallLevelMetric(m.get("e"), z, m.get("p"))
    else:
        key = {"RL-AP": "ap", "RL-nDCG": "ndcg"}[m.name]
        z, metric = key, named_metric(key)
    if z in ("rr", "rbp"):
        plain = m.compute(judged)
        full = m.compute(assign(judged, top_grade(judged))).reshape(plain.shape)
        return np.fmin(plain, full), np.fmax(plain, full)
    if z == "sl3":
        return _set_antitone(judged, m, first=True)
    st = _PositionSteps(judged, m, m.get("impute"))
    c, pos, s = st.c, st.pos, st.c.seg
    e_slot = _exposure(metric, pos.position, pos.n)
    sum_e0 = pos.segment_sum(e_slot)
    e_top = _exposure(metric, st.top_positions(), pos.n)
    e_bot = _exposure(metric, st.bottom_positions(), pos.n)
    j_top, j_bot = c.j.astype(np.float64), c.j_bottom.astype(np.float64)
    if z in ("ndcg", "mean"):
        tot0 = sum_e0
        tot_top = sum_e0[s] + c.prefix(e_top)
        tot_bot = sum_e0[s] + c.suffix(e_bot)
    else:  # ap: sum_i i e(p_i)
        tot0 = pos.segment_sum(pos.level * e_slot)
        tot_top, tot_bot = _ap_like(judged, st, metric, e_slot, e_top, e_bot)

    def norm(total, mm):
        return np.where(mm > 0, total * metric.norm(np.ones_like(mm), mm), 0.0) \
            if z != "ap" else np.where(mm > 0, total / np.maximum(mm, 1), 0.0)

    base = norm(tot0, st.m0)
    return scan_bounds(judged, c, base, norm(tot_top, st.m0[s] + j_top),
                       norm(tot_bot, st.m0[s] + j_bot))


def _ap_like(judged, st: _PositionSteps, metric, e_slot, e_top, e_bot):
    """Per candidate, sum_i i e(p_i) of the top-j and bottom-j position sets."""
    c, pos, s = st.c, st.pos, st.c.seg
    i = c.index
    e_item = np.where(st.is_rel, _exposure(metric, judged.rank + 1.0, pos.n), 0.0)
    cum_e = within_segment_cumsum(judged, e_item)
    total_e_ret = np.bincount(judged.segment, weights=e_item, minlength=judged.n_segments)
    h = within_segment_cumsum(judged, st.is_rel)[i].astype(np.float64)  # relevant above
    r_ret = pos.m_ret.astype(np.float64)[s]
    e_after = total_e_ret[s] - cum_e[i]
    block0 = pos.segment_sum(np.where(pos.retrieved, 0.0, e_slot))[s]
    u_in = st.u_in[s]
    k0 = st.k0[s]
    # top order: within the cut-off, then imputed slots
    in_top = st.inside
    t = c.nth.astype(np.float64) + 1.0
    grow_top = c.prefix(np.where(in_top, 0.0, e_top)) - np.where(in_top, 0.0, e_top)
    if st.impute == "pessimistic":
        below_y, above_y = r_ret + u_in, block0 + grow_top
    else:
        below_y, above_y = r_ret + u_in + k0 + st.t_top - 1.0, 0.0
    d_top = np.where(in_top, e_top * (1.0 + h + t - 1.0) + e_after + block0,
                     e_top * (1.0 + below_y) + above_y)
    # bottom order: imputed slots first, then within the cut-off from the bottom
    grow_bot = c.suffix(np.where(in_top, 0.0, e_bot)) - np.where(in_top, 0.0, e_bot)
    if st.impute == "pessimistic":
        below_yb, above_yb = r_ret, block0 + grow_bot
    else:
        below_yb, above_yb = r_ret + k0 + st.t_bot - 1.0, 0.0
    v_block = block0 + _segment_total(c, np.where(in_top, 0.0, e_bot))
    chosen_below = c.suffix(np.where(in_top, e_bot, 0.0)) - np.where(in_top, e_bot, 0.0)
    d_bot = np.where(in_top, e_bot * (1.0 + h) + e_after + chosen_below + v_block,
                     e_bot * (1.0 + below_yb) + above_yb)
    if st.impute == "none":
        d_top = np.where(in_top, d_top, 0.0)
        d_bot = np.where(in_top, d_bot, 0.0)
    tot0 = pos.segment_sum(pos.level * e_slot)
    return tot0[s] + c.prefix(d_top), tot0[s] + c.suffix(d_bot)


def _segment_total(c: Candidates, values: np.ndarray) -> np.ndarray:
    return np.bincount(c.seg, weights=values, minlength=len(c.count))[c.seg]


# ---- search lengths: linear in the positions -------------------------------
def _groups(judged: JudgedRankings) -> tuple[np.ndarray, np.ndarray]:
    """Per item (0-based rank of its tie group's first item, group size):
    singletons unless ties="expected"."""
    if judged.ties == "expected":
        return judged.tie_group(np.arange(judged.n_items))
    return judged.rank, np.ones(judged.n_items, np.int64)


class PositionCounts:
    """Per candidate, for the top-j and bottom-j sets: M (relevant within the
    cut-off), k (relevant imputed below it) and the sum of the (expected)
    positions of the M; and the same at j = 0 per segment.

    Under ties="expected" an item of a tie group starting after rank s with g
    items sits on average at s + (g+1)/2, and the sum of the search lengths
    p_i - (i-1) over the M is sum p - M(M-1)/2 in every ordering (Alex, Hall &
    Metzler 2022, Eq. 2), so the expectations are linear in the items too."""

    def __init__(self, judged: JudgedRankings, m: Measure, impute: str,
                 fallback: bool = False) -> None:
        st = _PositionSteps(judged, m, impute) if not fallback else None
        rel = m.rel(judged)
        if st is None:
            n = resolve_corpus_size(judged, str(m), fallback=True)
            pos = relevant_positions(judged, rel=rel, cutoff=m.cutoff, impute="pessimistic", n=n)
            c = candidates(judged, rel)
        else:
            pos, c, n = st.pos, st.c, st.n
        self.c, self.pos, self.n = c, pos, n
        first, size = _groups(judged)
        ep = first + (size + 1.0) / 2.0
        is_rel = judged.grade >= rel
        if m.cutoff is not None:
            is_rel = is_rel & (judged.rank < m.cutoff)
        s = c.seg
        inside = (judged.rank[c.index] < m.cutoff) if m.cutoff is not None \
            else np.ones(len(c.index), bool)
        self.sp0 = np.bincount(judged.segment, weights=np.where(is_rel, ep, 0.0),
                               minlength=judged.n_segments)
        self.M0 = pos.m_ret.astype(np.float64)
        self.k0 = (pos.m - pos.m_ret).astype(np.float64)
        self.m0 = pos.m.astype(np.float64)
        self.nret = pos.n_ret.astype(np.float64)
        e_in = np.where(inside, ep[c.index], 0.0)
        n_in = inside.astype(np.float64)
        self.top = (self.M0[s] + c.prefix(n_in), self.k0[s] + c.prefix(1.0 - n_in),
                    self.sp0[s] + c.prefix(e_in), c.j.astype(np.float64))
        self.bottom = (self.M0[s] + c.suffix(n_in), self.k0[s] + c.suffix(1.0 - n_in),
                       self.sp0[s] + c.suffix(e_in), c.j_bottom.astype(np.float64))
        self.base = (self.M0, self.k0, self.sp0, np.zeros(judged.n_segments))


def _block_sum(n, nret, k, impute: str) -> np.ndarray:
    """Sum of the k imputed positions: n-k+1..n or ñ+1..ñ+k."""
    if impute == "pessimistic":
        return k * n - k * (k - 1.0) / 2.0
    return k * nret + k * (k + 1.0) / 2.0


def re_bounds(judged: JudgedRankings, m: Measure) -> Pair:
    """RE = (1/m) sum_i p_i - (m+1)/2: for a fixed m the exchange argument
    (sum p never rises as a relevant item moves up; an item below the cut-off
    sits in the imputed block, after every retrieved one), top-j the least,
    bottom-j the most; the scan adds positions. Every tie policy (expected
    positions are linear). Exact."""
    impute = m.get("impute")
    m.compute(judged)  # refusals first (e.g. a cut-off under ties="expected")
    cnt = PositionCounts(judged, m, impute)
    s = cnt.c.seg

    def value(seg, M, k, sp, j):
        mm = cnt.m0[seg] + j
        total = sp + _block_sum(cnt.n, cnt.nret[seg], k, impute)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(mm > 0, total / mm - (mm + 1.0) / 2.0, np.nan)

    segs = np.arange(judged.n_segments)
    return scan_bounds(judged, cnt.c, value(segs, *cnt.base), value(s, *cnt.top),
                       value(s, *cnt.bottom))


def sl3_bounds(judged: JudgedRankings, m: Measure) -> Pair:
    """SL3 = p_m - m. For a fixed m the exchange argument (p_m never rises as a
    relevant item moves up): top-j the least, bottom-j the most, scanned. p_m
    is the last imputed position when one relevant item is imputed (n, or
    ñ + k), else the last relevant item's; ties="expected": a tie group after
    rank s with g items holding r relevant ones ends them at
    s + r(g+1)/(r+1) on average (the SL3 kernel), r counting the unjudged items
    of the group made relevant. Exact."""
    impute = m.get("impute")
    plain = m.compute(judged)  # refusals first
    st = _PositionSteps(judged, m, impute)
    c, pos, s = st.c, st.pos, st.c.seg
    if not c.movable or not len(s):
        return plain, plain.copy()
    first, size = _groups(judged)
    is_rel = st.is_rel
    # the last tie group holding a judged relevant item (within the cut-off)
    idx = np.flatnonzero(is_rel)
    seg_r = judged.segment[idx]
    last_rel = np.full(judged.n_segments, -1, np.int64)
    np.maximum.at(last_rel, seg_r, idx)
    has_r = last_rel >= 0
    g_first = np.where(has_r, first[np.maximum(last_rel, 0)], -1)
    g_size = np.where(has_r, size[np.maximum(last_rel, 0)], 0).astype(np.float64)
    same = has_r[seg_r] & (first[idx] == g_first[seg_r])
    r_in = np.bincount(seg_r[same], minlength=judged.n_segments).astype(np.float64)
    # per candidate: its group, and the unjudged items of that group before / after it
    cf, cs = first[c.index], size[c.index].astype(np.float64)
    new = np.r_[True, (s[1:] != s[:-1]) | (cf[1:] != cf[:-1])]
    gid = np.cumsum(new) - 1
    g_start = np.flatnonzero(new)
    in_group = np.arange(len(s)) - g_start[gid]
    g_count = np.diff(np.r_[g_start, len(s)])[gid]

    def expected_last(start, g, r):
        return start + r * (g + 1.0) / (r + 1.0)

    def p_last(cand_first, cand_size, chosen):
        """E[p_m] with ``chosen`` unjudged of the candidate's group relevant, none later."""
        gf, gs, rr = g_first[s], g_size[s], r_in[s]
        after = cand_first > gf
        same_g = cand_first == gf
        r = np.where(same_g, rr + chosen, chosen)
        own = expected_last(cand_first, cand_size, r)
        base = expected_last(gf, gs, rr)
        return np.where(after | same_g, own, base)

    k0 = (pos.m - pos.m_ret).astype(np.float64)[s]
    nret = pos.n_ret.astype(np.float64)[s]
    u_in = st.u_in[s]

    def block_last(k):
        return np.full(len(k), st.n) if impute == "pessimistic" else nret + k

    m0 = pos.m.astype(np.float64)[s]
    # top-j: within the cut-off in rank order, then imputed slots
    t_top = c.nth + 1.0
    p_top = np.where(st.inside, p_last(cf, cs, in_group + 1.0), np.nan)
    p_top = np.where(st.inside & (k0 > 0), block_last(k0), p_top)
    p_top = np.where(~st.inside, block_last(k0 + st.t_top), p_top)
    # bottom-j: imputed slots first, then within the cut-off from the bottom
    v = c.count[s] - u_in
    seg_last = np.full(judged.n_segments, -1, np.int64)
    np.maximum.at(seg_last, s[st.inside], np.flatnonzero(st.inside))  # last within the cut-off
    lu = seg_last[s]
    lu0 = np.maximum(lu, 0)
    chosen_last = np.where(gid == gid[lu0], g_count - in_group, g_count[lu0])
    p_bot = p_last(cf[lu0], cs[lu0], chosen_last)
    p_bot = np.where(k0 + v > 0, block_last(k0 + np.minimum(st.t_bot, v)), p_bot)
    lower, upper = scan_bounds(judged, c, plain.reshape(-1), p_top - (m0 + t_top),
                               p_bot - (m0 + c.j_bottom))
    return lower, upper
