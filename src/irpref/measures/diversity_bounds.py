"""Residual bounds of the intent-aware (diversity) measures.

On subtopic qrels an *unjudged* document is one with no row in its topic's
subtopic qrels; an assignment gives it a grade 0 .. T (T: the subtopic
qrels' top grade) for every subtopic label Z of its topic, so it becomes
relevant to some labels (grade >= ``rel``; none when T < ``rel``). Of the |Z|
labels, S0 have a judged relevant document; an assigned document relevant to
one of the z = |Z| - S0 others makes it a subtopic (S grows by z', 0 <= z'
<= z, possible as soon as the run retrieved an unjudged document, U >= 1).

Three facts carry the proofs.
(1) Per subtopic t, sum_i J_t(i) (1 - alpha)^c_t(i) d(i) (d non-increasing:
1/i for ERR, 1/log2(i + 1) for alpha-nDCG) never falls when a document at
rank i becomes relevant to t: its term (1 - alpha)^c d(i) outweighs the loss
of the later ones, sum_l alpha (1 - alpha)^(c + l) d(i_l) <= (1 - alpha)^c
d(i) (1 - (1 - alpha)^n). Its least value is the judged one, its largest is
with every unjudged document within the cut-off relevant to t (A_max).
(2) Assignments to different (document, subtopic) pairs are independent, so a
sum over subtopics takes its extremes where each subtopic takes its own.
(3) The new subtopics enter as (sum over S0 + sum over the z' new) / (S0 +
z'), linear-fractional in z': its extremes are at z' = 0 or z' = z.
"""

from __future__ import annotations

import numpy as np

from irpref.judging.judged import JudgedRankings
from irpref.measures.arithmetic import divide
from irpref.measures.base import Measure
from irpref.measures.subtopic_judgments import alpha_of, ideal_gain, joined, labels
from irpref.measures.unjudged_scan import holds_value

__all__ = ["ap_ia_bounds", "err_ia_bounds", "ideal_ratio_bounds", "s_recall_bounds"]

OUTER_NOTE = ("the numerator is bounded exactly (facts 1-3 of irpref.measures."
              "diversity_bounds), the greedy ideal ranking only from below by its first gain and "
              "from above per subtopic")
EXACT_NOTE = "per subtopic extremes, and the new subtopics all or none"


def _frame(judged: JudgedRankings, m: Measure) -> _Frame:
    """The :class:`_Frame` of ``judged`` at ``m``'s relevance level and cut-off,
    shared by the diversity measures computed on the same judged rankings."""
    key = ("diversity_frame", max(m.rel(judged), 1), m.cutoff)
    return judged.derived(key, lambda: _Frame(judged, m))


class _Frame:
    """Unjudged items, relevant (item, subtopic) pairs and per-segment counts
    (no reference to the judged rankings: it is cached beside them)."""

    def __init__(self, judged: JudgedRankings, m: Measure) -> None:
        self.n_runs, self.n_queries, self.n_segments = (judged.n_runs, judged.n_queries,
                                                         judged.n_segments)
        lab = labels(judged)
        self.jn = jn = joined(judged, m)
        rel = max(m.rel(judged), 1)
        k = np.inf if m.cutoff is None else m.cutoff
        self.k = k
        assignable = ~lab.judged_item if lab.top >= rel else np.zeros(judged.n_items, bool)
        self.ui = ui = np.flatnonzero(assignable)
        self.useg, self.urank = judged.segment[ui], judged.rank[ui]
        n_s = judged.n_segments
        within = self.urank < k
        self.u_in = np.bincount(self.useg[within], minlength=n_s)
        self.u_all = np.bincount(self.useg, minlength=n_s)
        self.u_out = self.u_all - self.u_in
        uoff = np.searchsorted(ui, judged.offsets)
        self.nth = np.arange(len(ui)) - uoff[:-1][self.useg]  # unjudged above, same segment
        self.seg_q = np.tile(np.arange(judged.n_queries), judged.n_runs)
        self.s0 = jn.n_sub[self.seg_q].astype(np.float64)
        self.z = np.maximum(lab.n_labels - jn.n_sub, 0)[self.seg_q].astype(np.float64)
        self.grow = (self.z >= 1) & (self.u_all >= 1)  # z' = z is possible
        # relevant (item, subtopic) pairs, sorted by (segment, subtopic, rank)
        self.n_t = max(len(jn.nrel), 1)
        self.big = int(judged.rank.max(initial=0)) + 2
        self.pseg = judged.segment[jn.pair_item]
        self.prank = judged.rank[jn.pair_item]
        self.pkey = (self.pseg * self.n_t + jn.pair_t) * self.big + self.prank
        self.order = np.argsort(self.pkey, kind="stable")
        self.keys = self.pkey[self.order]
        self.t_start = np.cumsum(jn.n_sub) - jn.n_sub  # a query's subtopics are contiguous
        unj = np.zeros(judged.n_items)
        unj[ui] = 1.0
        before = np.cumsum(unj) - unj
        self.unj_before = before - np.concatenate(([0.0], np.cumsum(unj)))[
            judged.offsets[:-1]][judged.segment]  # unjudged above each item, same segment

    def group_of(self, s: np.ndarray, t: np.ndarray) -> np.ndarray:
        return (s * self.n_t + t) * self.big

    def expand(self, items_seg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For every entry (its segment), one row per actual subtopic of the
        segment's query: (entry index, subtopic id)."""
        n = self.jn.n_sub[self.seg_q[items_seg]]
        entry = np.repeat(np.arange(len(items_seg)), n)
        within = np.arange(len(entry)) - np.repeat(np.cumsum(n) - n, n)
        return entry, self.t_start[self.seg_q[items_seg]][entry] + within

    def seg_sum(self, seg: np.ndarray, w: np.ndarray) -> np.ndarray:
        return np.bincount(seg, weights=w, minlength=self.n_segments)

    def shape(self, values: np.ndarray) -> np.ndarray:
        return values.reshape(self.n_runs, self.n_queries)


def _discounted(f: _Frame, m: Measure, d) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(S,) A0 (the judged numerator), A_max (every unjudged document within the
    cut-off relevant to every actual subtopic) and E_u (one new subtopic with
    all of them), for sum_t sum_i J_t(i) (1 - alpha)^c_t(i) d(rank i)."""
    jn = f.jn
    a = 1.0 - alpha_of(m)
    inside = f.prank < f.k
    ps, pr, pc_ = f.pseg[inside], f.prank[inside], jn.pair_c[inside]
    a0 = f.seg_sum(ps, np.power(a, pc_) * d(pr))
    shifted = pc_ + f.unj_before[jn.pair_item[inside]]
    judged_part = f.seg_sum(ps, np.power(a, shifted) * d(pr))
    win = f.urank < f.k
    us, ur, un = f.useg[win], f.urank[win], f.nth[win]
    e_u = f.seg_sum(us, np.power(a, un) * d(ur))
    entry, t = f.expand(us)
    base = f.group_of(us[entry], t)
    above = np.searchsorted(f.keys, base + ur[entry]) - np.searchsorted(f.keys, base)
    unj_part = f.seg_sum(us[entry], np.power(a, above + un[entry]) * d(ur[entry]))
    return a0, judged_part + unj_part, e_u


@holds_value
def err_ia_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """ERR-IA@k = sum_t ERR_t / (S N_k), N_k = sum_{i<=k} (1 - alpha)^(i-1) / i.

    Upper: max(A_max / (S0 N_k), (A_max + z E_u) / ((S0 + z) N_k)): every
    unjudged document within k relevant to every actual subtopic (and, in the
    second, to every label; with none within k, one beyond k makes the new
    subtopics at no gain). Lower: min(plain, (A0 + z e) / ((S0 + z) N_k)): the
    z labels made subtopics by an unjudged document beyond k (e = 0) or, with
    none there, by the deepest one within k alone (e = 1 / its rank, the least
    ERR of a new subtopic). Exact (facts 1-3)."""
    f = _frame(judged, m)
    a = 1.0 - alpha_of(m)
    k = np.arange(m.cutoff)
    norm = float(np.sum(np.power(a, k) / (k + 1.0)))
    a0, a_max, e_u = _discounted(f, m, lambda r: 1.0 / (r + 1.0))
    s0, z, grow = f.s0, f.z, f.grow
    upper = np.maximum(divide(a_max, s0 * norm),
                       np.where(grow, divide(a_max + z * e_u, (s0 + z) * norm), 0.0))
    deepest = np.zeros(judged.n_segments)
    win = f.urank < f.k
    np.maximum.at(deepest, f.useg[win], f.urank[win] + 1.0)
    e = np.where(f.u_out >= 1, 0.0, divide(1.0, deepest))
    plain = divide(a0, s0 * norm)
    lower = np.where(grow, np.minimum(plain, divide(a0 + z * e, (s0 + z) * norm)), plain)
    return f.shape(lower), f.shape(upper)


@holds_value
def s_recall_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """S-recall@k = covered / S. Upper: 1 when an unjudged document lies within k
    (relevant to every label, it covers them all), else the plain value (no
    assignment covers more; new subtopics only add to S). Lower: covered0 / (S0
    + z) when an unjudged document lies beyond k (relevant to the z labels, it
    makes them subtopics it does not cover), else the plain value (a new
    subtopic is then covered too: (c + y) / (S0 + y) >= c / S0). Exact."""
    f = _frame(judged, m)
    first = f.jn.pair_c == 0
    inside = first & (f.prank < f.k)
    covered = f.seg_sum(f.pseg[inside], np.ones(int(inside.sum())))
    plain = divide(covered, f.s0)
    upper = np.where((f.u_in >= 1) & (f.s0 + f.z >= 1), 1.0, plain)
    lower = np.where((f.u_out >= 1) & (f.z >= 1), divide(covered, f.s0 + f.z), plain)
    return f.shape(lower), f.shape(upper)


@holds_value
def ap_ia_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """MAP-IA = (1/S) sum_t AP_t. Each actual subtopic's AP_t takes its extremes by
    the AP rule (:func:`irpref.measures.rank_bounds.ap_bounds`: for j unjudged
    documents made relevant to t, the top j give the largest value and the
    bottom j the least; every j scanned), independently of the others (fact 2);
    a new subtopic's AP ranges over the same scan with no judged relevant
    document (j >= 1). Then the extremes of (sum + z' new) / (S0 + z') at z' in
    {0, z} (fact 3). Exact."""
    f = _frame(judged, m)
    g_seg, new, lower_g, upper_g = _subtopic_ap_extremes(judged, f)
    n_s = judged.n_segments
    real_g = ~new
    a_max = np.bincount(g_seg[real_g], weights=upper_g[real_g], minlength=n_s)
    a_min = np.bincount(g_seg[real_g], weights=lower_g[real_g], minlength=n_s)
    new_max, new_min = upper_g[new], lower_g[new]
    s0_seg, z, grow = f.s0, f.z, f.grow
    upper = np.maximum(divide(a_max, s0_seg),
                       np.where(grow, divide(a_max + z * np.where(grow, new_max, 0.0),
                                             s0_seg + z), 0.0))
    lower = divide(a_min, s0_seg)
    lower = np.where(grow, np.minimum(lower, divide(a_min + z * np.where(grow, new_min, 0.0),
                                                    s0_seg + z)), lower)
    return f.shape(lower), f.shape(upper)


def _subtopic_ap_extremes(judged: JudgedRankings, f: _Frame
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The AP scan of :func:`ap_ia_bounds` per group, every (segment, actual
    subtopic) then one new subtopic per segment: (segment of each group, new
    or not, least and largest AP over j)."""
    jn = f.jn
    n_s = judged.n_segments
    inv_of = np.where(judged.rank < f.k, 1.0 / (judged.rank + 1.0), 0.0)
    # groups: every (segment, actual subtopic), then one new subtopic per segment
    seg_ids = np.arange(n_s)
    entry, t = f.expand(seg_ids)
    g_seg = np.concatenate((seg_ids[entry], seg_ids))
    g_t = np.concatenate((t, np.full(n_s, -1)))
    new = np.arange(len(g_seg)) >= len(entry)
    n_g = len(g_seg)
    inside = f.prank < f.k
    gkey = np.where(new, -1, f.group_of(g_seg, np.maximum(g_t, 0)))
    actual_keys = gkey[~new]  # sorted: segments ascending, subtopics ascending
    # the group of each relevant pair (its segment and subtopic are an actual group)
    pgroup = np.searchsorted(actual_keys, f.group_of(f.pseg, jn.pair_t))
    s0 = np.bincount(pgroup[inside], weights=(jn.pair_c[inside] + 1.0) / (f.prank[inside] + 1.0),
                     minlength=n_g)
    nrel = np.append(jn.nrel, 0.0)  # g_t = -1 (a new subtopic) reads the 0 at the end
    r0 = np.where(new, 0.0, nrel[g_t])
    # (group, unjudged item of its segment) rows, group-major, items in rank order
    u_count = f.u_all[g_seg]
    row_g = np.repeat(np.arange(n_g), u_count)
    uoff = np.concatenate(([0], np.cumsum(f.u_all)))
    row_l = np.arange(len(row_g)) - np.repeat(np.cumsum(u_count) - u_count, u_count)
    item = f.ui[uoff[g_seg[row_g]] + row_l]
    inv = inv_of[item]
    rank = judged.rank[item]
    real = ~new[row_g]
    # judged relevant pairs of the group above each row's item, and their 1/rank
    # within the cut-off below it (new subtopics have none)
    lo_g = np.searchsorted(f.keys, gkey)
    end_g = np.searchsorted(f.keys, gkey + f.big)
    pos = lo_g[row_g]
    pos[real] = np.searchsorted(f.keys, gkey[row_g[real]] + rank[real])
    inv_sorted = np.where(inside, 1.0 / (f.prank + 1.0), 0.0)[f.order]
    cum = np.concatenate(([0.0], np.cumsum(inv_sorted)))
    above = pos - lo_g[row_g]
    tail = np.where(real, cum[end_g[row_g]] - cum[pos], 0.0)
    # below: the deeper unjudged items' 1/rank within the cut-off (same segment)
    u_inv = inv_of[f.ui]
    u_cum = np.cumsum(u_inv)
    u_tot = np.concatenate(([0.0], u_cum))
    seg_end = u_tot[uoff[1:]]
    below_u = seg_end[f.useg] - u_cum
    below = below_u[uoff[g_seg[row_g]] + row_l]
    add_top = inv * (above + row_l + 1) + tail
    add_bottom = inv * (above + 1) + tail + below
    start = np.repeat(np.cumsum(u_count) - u_count, u_count)
    top_cum = np.cumsum(add_top)
    prefix_top = top_cum - np.concatenate(([0.0], top_cum))[start]  # inclusive, within group
    bot_cum = np.cumsum(add_bottom)
    excl_bottom = bot_cum - add_bottom - np.concatenate(([0.0], bot_cum))[start]
    tot_bottom = np.bincount(row_g, weights=add_bottom, minlength=n_g)
    up_j = divide(s0[row_g] + prefix_top, r0[row_g] + row_l + 1.0)  # j = l + 1
    lo_j = divide(s0[row_g] + tot_bottom[row_g] - excl_bottom, r0[row_g] + u_count[row_g] - row_l)
    upper_g = np.where(new, -np.inf, divide(s0, r0))  # j = 0 (none for a new subtopic)
    lower_g = np.where(new, np.inf, divide(s0, r0))
    has = np.flatnonzero(u_count)
    if len(has):
        first_row = (np.cumsum(u_count) - u_count)[has]
        upper_g[has] = np.maximum(upper_g[has], np.maximum.reduceat(up_j, first_row))
        lower_g[has] = np.minimum(lower_g[has], np.minimum.reduceat(lo_j, first_row))
    return g_seg, new, lower_g, upper_g


def _ideal_sums(f: _Frame, m: Measure, d) -> tuple[np.ndarray, np.ndarray]:
    """(S,) a lower bound of the greedy ideal's sum under every assignment (its
    first gain, at least the judged one, then at least (1 - alpha)^(i-1) at rank
    i while relevant documents remain: D0 of them are judged) and an upper bound
    with z' = z (each subtopic's documents count at most sum_{l<=n} (1 -
    alpha)^(l-1) d(l), n = min(its relevant documents + U, k))."""
    jn = f.jn
    a = 1.0 - alpha_of(m)
    k = int(m.cutoff)
    steps = np.arange(k)
    mc = np.concatenate(([0.0], np.cumsum(np.power(a, steps) * d(steps))))
    gain = ideal_gain(jn, alpha_of(m), k)
    g1 = gain[:, 0] if gain.shape[1] else np.zeros(f.n_queries)
    q, code = jn.rows[0], jn.rows[1]
    n_code = int(code.max(initial=0)) + 1
    docs = np.unique(q * n_code + code)
    d0 = np.bincount(docs // n_code, minlength=f.n_queries)
    n_lo = np.minimum(d0, k)
    rest = mc[np.maximum(n_lo, 1)] - mc[1]  # ranks 2 .. min(D0, k)
    lo_q = np.where(d0 >= 1, g1 * d(np.zeros(1))[0] + rest, 0.0)
    lo = np.where(lo_q[f.seg_q] > 0, lo_q[f.seg_q], d(np.zeros(1))[0])
    # upper: per actual subtopic, then z new ones
    entry, t = f.expand(np.arange(f.n_segments))
    n = np.minimum(jn.nrel[t] + f.u_all[entry], k).astype(np.int64)
    hi = f.seg_sum(entry, mc[n])
    hi = hi + np.where(f.grow, f.z * mc[np.minimum(f.u_all, k)], 0.0)
    return lo, hi


@holds_value
def ideal_ratio_bounds(judged: JudgedRankings, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """alpha-nDCG@k and nERR-IA@k: the run's sum_t sum_i J_t(i) (1 - alpha)^c_t(i)
    d(i) over the greedy ideal's. The numerator lies in [A0, A_max + z E_u]
    (facts 1-3); the greedy ideal (not a maximum: no exchange holds) is bounded
    from below by its first gain (at least the judged first gain, or 1) and (1
    - alpha)^(i-1) d(i) per later rank while judged relevant documents remain,
    from above per subtopic (:func:`_ideal_sums`). Outer bounds."""
    f = _frame(judged, m)
    if m.name == "alpha-nDCG":
        def d(r):
            return 1.0 / np.log2(np.asarray(r, np.float64) + 2.0)
    else:
        def d(r):
            return 1.0 / (np.asarray(r, np.float64) + 1.0)
    a0, a_max, e_u = _discounted(f, m, d)
    lo_ideal, hi_ideal = _ideal_sums(f, m, d)
    top = a_max + np.where(f.grow, f.z * e_u, 0.0)
    upper = np.where(f.s0 + np.where(f.grow, f.z, 0.0) >= 1, divide(top, lo_ideal), 0.0)
    lower = divide(a0, hi_ideal)
    return f.shape(lower), f.shape(upper)
