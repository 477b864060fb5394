"""Preferences by blocks of run pairs: every block size gives the all-at-once numbers.

A :class:`~irpref.preferences.Comparison` computes the values of any block of
run pairs from its per-run state; its matrices, means, tidy tables, per-query
frames and win rates must be the same doubles, bit for bit, whatever the
sizes of the population blocks (``pairs.BUDGET``) and of the pair blocks
(``comparison.PAIR_BUDGET``). The rrLP range minima are checked against the
scalar rrLP, the win rates against the report's sum over its permuted
matrices, RPP against itself computed with other pairs and weightings.
"""

from __future__ import annotations

import io
from contextlib import contextmanager

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irpref.compare import compare_matrices
from irpref.preferences import comparison as comparison_module
from irpref.preferences import pairs as pairs_module
from irpref.preferences.aggregate import win_rates
from irpref.preferences.engines import RangeMinima, RPPState
from irpref.preferences.lexicographic import SENTINEL, lexicographic_ranks, rr_lp
from irpref.preferences.populations import graded_populations
from irpref.report.records import natural_key, sort_queries, write_json, write_tsv
from irpref.runtime.pairblocks import n_pairs, pair_blocks, pair_index, pair_range
from irpref.stats import Pairwise, significance

PREFS = ["sgnLP", "rrLP", "sgnLR", "RPP", "RPP(p=dcg)", "RPP(p=inverse)",
         "RPP(grades=binary,p=dcg)", "rrLP(rel=2)"]
QUERY_NAMES = ["q2", "q10", "1", "01", "q1", "b", "a", "q02", "10", "2"]


def same_bits(x, y) -> bool:
    """Equal arrays, bit for bit (-0.0 differs from 0.0; NaN equals NaN)."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    return x.shape == y.shape and bool((x.view(np.int64) == y.view(np.int64)).all())


def collection(seed: int, n_runs: int, n_queries: int, docs: int = 20) -> tuple[dict, dict]:
    """Qrels (grades 0-3) and runs with tied scores; some runs lack some queries."""
    rng = np.random.default_rng(seed)
    names = QUERY_NAMES[:n_queries]
    qrels = {q: {f"d{d}": int(rng.integers(0, 4))
                 for d in rng.choice(docs, int(rng.integers(1, 10)), replace=False)}
             for q in names}
    runs = {}
    for r in range(n_runs):
        run = {}
        for i, q in enumerate(names):
            if i and rng.random() < 0.15:  # the run lacks q (every run has the first)
                continue
            k = int(rng.integers(1, docs))
            run[q] = {f"d{d}": float(rng.integers(0, 5))
                      for d in rng.choice(docs, k, replace=False)}
        runs[f"run{r}"] = run
    return qrels, runs


@contextmanager
def budgets(kernel: int, pair: int):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pairs_module, "BUDGET", kernel)
        mp.setattr(comparison_module, "PAIR_BUDGET", pair)
        yield


def natural_order(queries: list) -> list[int]:
    return sorted(range(len(queries)), key=lambda i: (natural_key(queries[i]), i))


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n_runs=st.integers(2, 9), n_queries=st.integers(1, 10),
       kernel=st.integers(1, 400), pair=st.integers(1, 60),
       missing=st.sampled_from(["skip", "zero"]))
def test_blocks_give_the_all_at_once_values(seed, n_runs, n_queries, kernel, pair, missing):
    qrels, runs = collection(seed, n_runs, n_queries)
    whole = compare_matrices(qrels, runs, PREFS, missing=missing)
    with budgets(kernel, pair):
        parts = compare_matrices(qrels, runs, PREFS, missing=missing)
        assert len(parts.blocks()) >= min(n_pairs(n_runs), n_pairs(n_runs) // pair)
        assert parts.names == whole.names
        means_whole, means_parts = whole.means(), parts.means()
        order = np.random.default_rng(seed).permutation(n_runs)
        for name in whole.names:
            assert same_bits(parts.values[name], whole.values[name]), name
            assert same_bits(means_parts[name], means_whole[name]), name
            assert same_bits(parts.win_rates(name, order), whole.win_rates(name, order)), name
        pd.testing.assert_frame_equal(parts.tidy(), whole.tidy())
        queries = parts.all_queries()
        frames = list(parts.tidy_frames(natural_order(queries), rows=7))
    expected = sort_queries(whole.tidy()).reset_index(drop=True)
    got = pd.concat(frames, ignore_index=True) if frames else expected.iloc[:0]
    pd.testing.assert_frame_equal(got, expected)


def test_matrices_are_antisymmetric_bit_for_bit():
    """``matrix[q, b, a]`` is ``-matrix[q, a, b]``; a sign preference's 0 is +0.0 both
    ways (``sgn(rank_a - rank_b)``, as the all-pairs kernel gave it), another's
    lower 0 is -0.0 (the negated upper value, as before)."""
    qrels, runs = collection(11, 8, 6)
    comp = compare_matrices(qrels, runs, ["sgnLP", "sgnLR", "rrLP", "RPP"], missing="zero")
    a, b = np.triu_indices(8, 1)
    for p in comp.preferences:
        m = comp.values[str(p)]
        upper, lower = m[:, a, b], m[:, b, a]
        assert np.array_equal(lower, -upper) and (upper == 0).any()
        if p.family.value == "sign":
            assert not np.signbit(lower[upper == 0]).any(), p
        else:
            assert np.signbit(lower[upper == 0]).all(), p


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n_runs=st.integers(2, 12), n_queries=st.integers(1, 6))
def test_win_rates_are_the_reports_sums(seed, n_runs, n_queries):
    """The report summed the rows of its run-permuted matrices, left to right."""
    qrels, runs = collection(seed, n_runs, n_queries)
    comp = compare_matrices(qrels, runs, ["rrLP", "RPP(p=dcg)", "sgnLP"])
    perm = list(np.random.default_rng(seed).permutation(n_runs))
    for name in comp.names:
        matrices = comp.values[name][:, perm][:, :, perm]
        assert same_bits(comp.win_rates(name, perm), win_rates(matrices)), name


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), g=st.integers(1, 5), r=st.integers(2, 14),
       width=st.integers(1, 6))
def test_range_minima_give_rrlp_of_every_pair(seed, g, r, width):
    """rrLP from the sorted order's range minima is the scalar rrLP of the two
    position lists, the same double (1/p of the deciding level)."""
    rng = np.random.default_rng(seed)
    count = rng.integers(0, width + 1, size=(g, r))
    pos = np.full((g, r, width), SENTINEL)
    for i in range(g):
        for j in range(r):
            picks = np.sort(rng.choice(np.arange(1, 3 * width + 2), count[i, j], replace=False))
            pos[i, j, : count[i, j]] = picks
    rank, order, lcp = lexicographic_ranks(pos, count, "precision")
    a, b = np.triu_indices(r, 1)
    got = RangeMinima(np.arange(g), pos, order, lcp).values(np.arange(g), a, b)
    want = [[rr_lp(pos[i, x, : count[i, x]], pos[i, y, : count[i, y]]) for x, y in zip(a, b)]
            for i in range(g)]
    assert same_bits(got, np.array(want).reshape(g, len(a)))


def test_rpp_values_do_not_depend_on_their_company():
    """A weighting's value of a pair is the same computed alone, with other
    weightings, with other pairs or with other populations in a block."""
    from irpref.evaluate import judge_inputs

    qrels, runs = collection(7, 9, 8)
    pops = graded_populations(judge_inputs(qrels, runs, warn=False), 1)
    cols = np.searchsorted(np.unique(pops.query), pops.query)
    n_cols = len(np.unique(pops.query))
    weightings = ["dcg", "inverse", "uniform"]
    big = RPPState(pops, weightings, cols, n_cols, 1 << 22)
    small = RPPState(pops, weightings, cols, n_cols, 5)
    a, b = np.triu_indices(9, 1)
    whole = big.values(a, b, None)
    assert same_bits(small.values(a, b, None), whole)
    assert same_bits(big.values(a, b, None, [1])[0], whole[1])
    some = np.array([3, 17, 5, 30])
    assert same_bits(small.values(a[some], b[some], None, [2, 0]), whole[[2, 0]][:, some])
    picked = np.array([1, 4, 5])
    assert same_bits(small.values(a, b, picked), whole[:, :, picked])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), g=st.integers(0, 4), r=st.integers(1, 9),
       width=st.integers(0, 7), v=st.integers(1, 3))
def test_level_sums_c_and_numpy_agree(seed, g, r, width, v):
    from irpref.preferences.engines import PAST, level_sums
    from irpref.runtime.native import native

    if native("prefs") is None:
        pytest.skip("the C extension irpref._native.prefs is not built")
    rng = np.random.default_rng(seed)
    pos = np.sort(rng.integers(1, 12, size=(g, r, width)), axis=2).astype(np.int32)
    pos[rng.random(pos.shape) < 0.3] = PAST
    pos.sort(axis=2)
    a, b = (x.astype(np.int64) for x in np.triu_indices(r, 1))
    weights = rng.random((width + 2, v)) + 0.01
    weights[0] = 1.0
    fast = level_sums(pos, a, b, weights)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("IRPREF_KERNELS", "numpy")
        slow = level_sums(pos, a, b, weights)
    assert same_bits(fast, slow)


def test_pair_numbering_is_row_major():
    for r in (1, 2, 3, 7, 40):
        a, b = np.triu_indices(r, 1)
        got_a, got_b = pair_range(r, 0, n_pairs(r))
        assert np.array_equal(got_a, a) and np.array_equal(got_b, b)
        assert np.array_equal(pair_index(b, a, r), np.arange(len(a)))
        blocks = pair_blocks(r, 4)
        assert [s for s, _ in blocks] == list(range(0, n_pairs(r), 4))
        if blocks:
            s, e = blocks[-1]
            assert np.array_equal(pair_range(r, s, e)[1], b[s:e])


@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_tests_read_pairs_block_by_block(missing):
    """A preference's Pairwise reads its comparison by blocks of pairs, with the
    numbers of its whole matrix (every test and the randomized HSD)."""
    qrels, runs = collection(3, 7, 9)
    comp = compare_matrices(qrels, runs, ["sgnLP", "rrLP", "RPP"], missing=missing)
    lazy = [Pairwise.from_comparison(comp, n) for n in comp.names]
    whole = [Pairwise.from_matrix(comp.values[n], p.kind, comp.runs, comp.queries[n], n)
             for n, p in zip(comp.names, lazy)]
    assert lazy[0].matrix_ is None and lazy[0].source is not None
    options = dict(seed=4, permutations=200, bootstrap=50, ci="bca")
    tests = ["paired", "wilcoxon", "hsd"]
    pd.testing.assert_frame_equal(significance(lazy, tests, **options),
                                  significance(whole, tests, **options))
    a, b = np.array([0, 3, 6, 2]), np.array([5, 1, 6, 4])
    for x, y in zip(lazy, whole):
        assert same_bits(x.pair_values(a, b), y.pair_values(a, b))


def test_writers_take_frames_one_at_a_time():
    frames = [pd.DataFrame({"query": [f"q{i}", f"q{i + 1}"], "value": [i / 3, -0.0]})
              for i in range(4)]
    for write in (write_tsv, write_json):
        eager, lazy = io.StringIO(), io.StringIO()
        write(frames, eager, ["query", "value"])
        write(iter(frames), lazy, ["query", "value"])
        assert lazy.getvalue() == eager.getvalue()
        empty, none = io.StringIO(), io.StringIO()
        write([], empty, ["query", "value"])
        write(iter([]), none, ["query", "value"])
        assert none.getvalue() == empty.getvalue()
