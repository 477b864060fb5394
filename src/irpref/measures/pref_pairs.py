"""Preference judgments as pairs: trec_eval's judgment groups, closed.

A judgment group (JG) with one judgment subgroup (JSG) prefers every
document to every document of a lower level; a JG with several JSGs prefers
within each JSG, and the union is closed transitively (a contradiction is
refused, naming a line: trec_eval aborts). :func:`preference_pairs` builds
them once per judgment set, vectorized over all queries and groups
(form_prefs_counts.c); :mod:`irpref.measures.pref_judgments` joins runs with them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from irpref.errors import InputError
from irpref.io.prefs import Preferences

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["KEY_SHIFT", "PrefPairs", "dense_codes", "preference_pairs", "run_starts"]


KEY_SHIFT = np.int64(1) << 40


def _expand(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(owner, partner) for every owner i and partner in ``lo[i]:hi[i]``."""
    n = np.maximum(hi - lo, 0)
    owner = np.repeat(np.arange(len(lo)), n)
    start = np.repeat(lo - np.concatenate([[0], np.cumsum(n)[:-1]]), n)
    return owner, start + np.arange(int(n.sum()))


def run_starts(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end index (per element) of the run of equal keys holding it."""
    if not len(keys):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    change = np.flatnonzero(np.diff(keys) != 0) + 1
    starts = np.concatenate([[0], change])
    ends = np.concatenate([change, [len(keys)]])
    idx = np.repeat(np.arange(len(starts)), np.diff(np.concatenate([starts, [len(keys)]])))
    return starts[idx], ends[idx]


@dataclass(frozen=True)
class PrefPairs:
    """The preferences of a judgment set, independent of any run.

    Judged documents are numbered 0..J-1 sorted by (query, document id);
    JGs 0..G-1 sorted by (query, JG id)."""

    queries: np.ndarray  # (Q,) str, sorted
    group_names: np.ndarray  # (G,) str
    group_query: np.ndarray  # (G,) int64
    judged_offsets: np.ndarray  # (Q+1,) judged documents of query q
    judged_doc: np.ndarray  # (J,) str document ids
    pair_group: np.ndarray  # (P,) JG of preference A > B
    pair_a: np.ndarray  # (P,) judged index of A
    pair_b: np.ndarray  # (P,) judged index of B
    member_group: np.ndarray  # (M,) a document of a JG ...
    member_doc: np.ndarray  # (M,) ... its judged index
    member_class: np.ndarray  # (M,) 1 relevant (level > 0), 0 nonrelevant, -1 neither
    member_ec: np.ndarray  # (M,) EC index (0 = highest level); -1 for a multi-JSG JG
    group_ecs: np.ndarray  # (G,) number of ECs; 0 for a multi-JSG JG
    pair_b_last_ec: np.ndarray  # (P,) B is in the JG's lowest EC (EC JGs)
    # pairs: every preference of a multi-JSG JG (closed), and of an EC JG whose query
    # has other JGs; an EC JG's counts come from its classes (member_ec)

    @property
    def n_groups(self) -> int:
        return len(self.group_names)


def dense_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense codes in byte order of the distinct strings, and those strings."""
    uniq, code = np.unique(values.astype(str), return_inverse=True)
    return code.astype(np.int64), uniq.astype(object)


def preference_pairs(prefs: Preferences) -> PrefPairs:
    """Every preference of ``prefs`` (closed per JG), and each JG's documents."""
    import pandas as pd

    q, queries = dense_codes(prefs.query)
    qg = np.char.add(np.char.add(q.astype(str), "\x00"), prefs.group.astype(str))
    order0 = np.lexsort((prefs.group.astype(str), q))
    g_raw = np.empty(len(q), np.int64)
    keys = qg[order0]
    new = np.concatenate([[True], keys[1:] != keys[:-1]])
    g_raw[order0] = np.cumsum(new) - 1
    group_query = q[order0][new]
    group_names = prefs.group[order0][new]
    # judged documents: distinct (query, doc), sorted by query then document id
    qd = pd.DataFrame({"q": q, "d": prefs.doc.astype(str)})
    judged = qd.drop_duplicates().sort_values(["q", "d"], kind="stable")
    judged_q = judged["q"].to_numpy()
    judged_doc = judged["d"].to_numpy(object)
    idx = pd.MultiIndex.from_frame(judged)
    j = idx.get_indexer(pd.MultiIndex.from_frame(qd))
    judged_offsets = np.searchsorted(judged_q, np.arange(len(queries) + 1))
    s_code, _ = dense_codes(prefs.subgroup)
    n_sub = pd.Series(s_code).groupby(g_raw).nunique().to_numpy()
    multi = n_sub[g_raw] > 1
    # direct preferences within each JSG: entries by (group, subgroup, level desc)
    order = np.lexsort((-prefs.level, s_code, g_raw))
    block = g_raw[order] * (s_code.max() + 1) + s_code[order]
    lvl_key = _level_ranks(block, prefs.level[order])
    _, lvl_end = run_starts(lvl_key)
    _, blk_end = run_starts(block)
    g_o, j_o = g_raw[order], j[order].astype(np.int32)
    # an EC JG is counted from its classes (closed forms): its pairs are listed only
    # where its query has other JGs (their preferences on a pair are merged)
    shared = (np.bincount(group_query, minlength=len(queries)) > 1)[group_query]
    listed = multi[order] | shared[g_o]
    a_i, b_i = _expand(lvl_end, np.where(listed, blk_end, lvl_end))
    ec_of = _ec_index(g_o, prefs.level[order])
    keep_ec = ~multi[order][a_i]
    ec_a, ec_b = a_i[keep_ec], b_i[keep_ec]  # JGs of one JSG: their pairs as they are
    b_last = ec_of[ec_b] == _last_ec(g_o, ec_of)[ec_b]
    pa_, pb_ = a_i[~keep_ec], b_i[~keep_ec]  # the others: closed transitively
    closed = _closure(g_o[pa_], j_o[pa_].astype(np.int64), j_o[pb_].astype(np.int64), prefs,
                      g_raw, j)
    pair_group = np.concatenate([g_o[ec_a].astype(np.int32), closed[0].astype(np.int32)])
    pair_a = np.concatenate([j_o[ec_a], closed[1].astype(np.int32)])
    pair_b = np.concatenate([j_o[ec_b], closed[2].astype(np.int32)])
    pair_b_last = np.concatenate([b_last, np.zeros(len(closed[0]), bool)])
    members = _members(prefs, g_raw, j, multi, ec_of, order)
    n_groups = len(group_names)
    group_ecs = np.zeros(n_groups, np.int64)
    ec_members = members[3] >= 0
    np.maximum.at(group_ecs, members[0][ec_members], members[3][ec_members] + 1)
    return PrefPairs(queries, group_names, group_query, judged_offsets, judged_doc,
                     pair_group, pair_a, pair_b, *members, group_ecs, pair_b_last)


def _level_ranks(block: np.ndarray, level: np.ndarray) -> np.ndarray:
    """A key equal for entries of one block with equal level (input sorted by
    block, level descending)."""
    new = np.ones(len(level), bool)
    new[1:] = (block[1:] != block[:-1]) | (level[1:] != level[:-1])
    return np.cumsum(new)


def _ec_index(group: np.ndarray, level: np.ndarray) -> np.ndarray:
    """Equivalence-class index within the group (0 = highest level), input
    sorted by group then level descending."""
    key = _level_ranks(group, level)
    start, _ = run_starts(group)
    return key - key[start]


def _last_ec(group: np.ndarray, ec: np.ndarray) -> np.ndarray:
    """The group's largest EC index, per element (input sorted by group)."""
    _, end = run_starts(group)
    return ec[end - 1]


def _members(prefs: Preferences, g: np.ndarray, j: np.ndarray, multi: np.ndarray,
             ec_of: np.ndarray, order: np.ndarray):
    """(group, judged doc, class, EC) of each JG document (see PrefPairs)."""
    import pandas as pd

    ec = np.full(len(g), -1, np.int64)
    ec[order] = ec_of
    one = ~multi
    cls = np.where(prefs.level > 0, 1, 0)
    # a multi-JSG JG: the level in the last JSG (byte order) naming the document
    frame = pd.DataFrame({"g": g[multi], "j": j[multi], "s": prefs.subgroup[multi].astype(str),
                          "lvl": prefs.level[multi], "line": prefs.line[multi]})
    _refuse_zero_and_positive(frame, prefs)
    last = frame.sort_values(["g", "j", "s"], kind="stable").drop_duplicates(["g", "j"],
                                                                             keep="last")
    lv = last["lvl"].to_numpy()
    m_cls = np.where(lv > 0, 1, np.where(lv == 0, 0, -1))
    mg = np.concatenate([g[one], last["g"].to_numpy()])
    mj = np.concatenate([j[one], last["j"].to_numpy()])
    mc = np.concatenate([cls[one], m_cls])
    me = np.concatenate([ec[one], np.full(len(last), -1, np.int64)])
    sort = np.lexsort((mj, mg))
    return mg[sort], mj[sort], mc[sort], me[sort]


def _refuse_zero_and_positive(frame: pd.DataFrame, prefs: Preferences) -> None:
    """A document of level 0 in one JSG and > 0 in another of the same JG (get_prefs.c)."""
    if frame.empty:
        return
    key = frame["g"].to_numpy() * KEY_SHIFT + frame["j"].to_numpy()
    uniq, inv = np.unique(key, return_inverse=True)
    zero = np.bincount(inv, weights=frame["lvl"].to_numpy() == 0, minlength=len(uniq)) > 0
    pos = np.bincount(inv, weights=frame["lvl"].to_numpy() > 0, minlength=len(uniq)) > 0
    bad = zero[inv] & pos[inv]
    if bad.any():
        first = uniq[inv[np.flatnonzero(bad)[0]]]
        line = int(frame["line"].to_numpy()[key == first].max())
        i = int(np.flatnonzero(prefs.line == line)[0])
        raise InputError(prefs.source, line,
                         f"document {prefs.doc[i]} has level 0 and a level > 0 in judgment "
                         f"group {prefs.group[i]} of query {prefs.query[i]}",
                         f"{prefs.query[i]} {prefs.group[i]} {prefs.subgroup[i]} "
                         f"{prefs.doc[i]} {prefs.level[i]:g}")


def _closure(g: np.ndarray, a: np.ndarray, b: np.ndarray, prefs: Preferences,
             g_raw: np.ndarray, j: np.ndarray, max_cells: int = 1 << 23):
    """The transitive closure of the preferences of multi-JSG JGs, refusing a
    contradiction (A > B and B > A, or a cycle).

    Each JG's documents get local numbers; JGs of similar size are stacked as
    boolean matrices (at most ``max_cells`` cells a batch) and squared with
    closed by :func:`_warshall` on packed bits."""
    if not len(g):
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    docs = np.unique(np.concatenate([g * KEY_SHIFT + a, g * KEY_SHIFT + b]))
    dg, dj = docs // KEY_SHIFT, docs % KEY_SHIFT
    start = np.searchsorted(dg, dg, side="left")
    local = np.arange(len(docs)) - start  # local number of each (JG, document)
    groups, first, size = np.unique(dg, return_index=True, return_counts=True)
    la = local[np.searchsorted(docs, g * KEY_SHIFT + a)]
    lb = local[np.searchsorted(docs, g * KEY_SHIFT + b)]
    slot = np.searchsorted(groups, g)
    out_g, out_a, out_b = [], [], []
    order = np.argsort(size, kind="stable")
    i = 0
    while i < len(order):
        n = int(size[order[min(i + max(1, max_cells // max(int(size[order[i]]) ** 2, 1)) - 1,
                               len(order) - 1)]])
        batch = order[i: i + max(1, max_cells // max(n * n, 1))]
        n = int(size[batch].max())
        pos = np.full(len(groups), -1)
        pos[batch] = np.arange(len(batch))
        mine = pos[slot] >= 0
        m = np.zeros((len(batch), n, n), bool)
        m[pos[slot[mine]], la[mine], lb[mine]] = True
        m = _warshall(m)
        k, x, y = np.nonzero(m)
        out_g.append(groups[batch][k])
        out_a.append(dj[first[batch][k] + x])
        out_b.append(dj[first[batch][k] + y])
        i += len(batch)
    cg, ca, cb = (np.concatenate(v).astype(np.int64) for v in (out_g, out_a, out_b))
    _refuse_contradictions(cg, ca, cb, prefs, g_raw, j)
    return cg, ca, cb


def _warshall(m: np.ndarray) -> np.ndarray:
    """Transitive closure of a stack of boolean matrices (B, n, n): Warshall's
    algorithm over k, every matrix of the stack at once, rows packed 8 to a byte."""
    n = m.shape[1]
    bits = np.packbits(m, axis=2)
    for k in range(n):  # one step per document position, for all JGs together
        reaches_k = ((bits[:, :, k >> 3] >> (7 - (k & 7))) & 1).astype(bool)
        bits |= np.where(reaches_k[:, :, None], bits[:, k : k + 1, :], 0).astype(np.uint8)
    return np.unpackbits(bits, axis=2, count=n).astype(bool)


def _refuse_contradictions(g: np.ndarray, a: np.ndarray, b: np.ndarray, prefs: Preferences,
                           g_raw: np.ndarray, j: np.ndarray) -> None:
    """A closed JG holding A > B and B > A (or A > A through a cycle): refused,
    naming a line of one of those documents (trec_eval aborts)."""
    width = np.int64(max(int(j.max(initial=0)) + 1, 1))
    key = (g * width + a) * width + b
    back = (g * width + b) * width + a
    bad = np.flatnonzero((a == b) | np.isin(back, key))
    if not len(bad):
        return
    gkey, doc = int(g[bad[0]]), int(a[bad[0]])
    hit = np.flatnonzero((g_raw == gkey) & (j == doc))
    i = int(hit[np.argmax(prefs.line[hit])])
    raise InputError(prefs.source, int(prefs.line[i]),
                     f"judgment group {prefs.group[i]} of query {prefs.query[i]} "
                     f"contradicts itself: document {prefs.doc[i]} is both preferred "
                     "and not preferred to another (through its subgroups)",
                     f"{prefs.query[i]} {prefs.group[i]} {prefs.subgroup[i]} "
                     f"{prefs.doc[i]} {prefs.level[i]:g}")
