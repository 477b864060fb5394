"""The optional C kernels of the randomized Tukey HSD (irpref._native.kernels) against NumPy.

Both paths must give the same permutations, the same per-permutation maxima
bit for bit, and so the same p-values for a seed (``IRPREF_KERNELS=numpy``
forces the NumPy kernels).
"""

from __future__ import annotations

import numpy as np
import pytest
from environment import setenv
from hypothesis import given, settings
from hypothesis import strategies as st

import irpref
from irpref import stats as S
from irpref.compare import compare_matrices
from irpref.runtime import native
from irpref.stats import Pairwise
from irpref.stats import hsd as H

try:
    from irpref._native import kernels as C
except ImportError:  # tests/test_stats.py::test_c_extension_is_built fails then
    C = None

pytestmark = pytest.mark.skipif(C is None,
                                reason="the C extension irpref._native.kernels is not built")


def kernels(mode: str):
    """Run with ``IRPREF_KERNELS=mode``."""
    return setenv(native.ENV, mode)


def both(fn):
    """fn() under the NumPy kernels and under the C kernels."""
    with kernels("numpy"):
        a = fn()
    with kernels("c"):
        b = fn()
    return a, b


# ------------------------------------------------------------------ selection


def test_environment_variable_selects_the_kernels():
    with kernels("numpy"):
        assert H._kernels() is None
    with kernels("c"):
        assert H._kernels() is C
    with kernels(""):
        assert H._kernels() is C
    with kernels("fortran"), pytest.raises(ValueError, match="IRPREF_KERNELS must be"):
        H._kernels()


# ------------------------------------------------------------ permutations

BIT_GENERATORS = [np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox,
                  np.random.SFC64]


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 300), st.integers(1, 6), st.sampled_from([np.int16, np.int32]),
       st.sampled_from(BIT_GENERATORS), st.integers(0, 2**32 - 1), st.integers(0, 3))
def test_permute_is_numpys_permuted_draw_for_draw(r, rows, dtype, kind, seed, skip):
    """Same rows as Generator.permuted of arange(r), and the generator ends in the same state."""
    ref, ours = np.random.Generator(kind(seed)), np.random.Generator(kind(seed))
    for g in (ref, ours):  # start with a buffered 32-bit half on some examples
        g.integers(0, 2**32, size=skip, dtype=np.uint32)
    want = ref.permuted(np.broadcast_to(np.arange(r, dtype=dtype), (rows, r)), axis=-1)
    got = np.empty((rows, r), dtype)
    C.permute(ours.bit_generator.capsule, got, r)
    np.testing.assert_array_equal(got, want)
    assert H._same(ours.bit_generator.state, ref.bit_generator.state)
    assert ours.integers(0, 2**32, dtype=np.uint32) == ref.integers(0, 2**32, dtype=np.uint32)


@pytest.mark.parametrize("batch", [1, 5, 64])
def test_hsd_permutations_are_the_same_stream(batch):
    a, b = both(lambda: np.concatenate(list(
        S.hsd_permutations(np.random.default_rng(9), 70, 6, 11, batch))))
    np.testing.assert_array_equal(a, b)


def test_a_shuffle_that_differs_from_numpy_is_not_used(monkeypatch):
    """The run-time check: a C shuffle that disagrees with permuted falls back to NumPy."""

    class Wrong:
        @staticmethod
        def permute(capsule, out, r):
            out[...] = np.arange(r)

    monkeypatch.setattr(H, "_PERMUTE_OK", {})
    assert not H._c_permute_ok(np.random.default_rng(0), Wrong)
    monkeypatch.setattr(H, "_PERMUTE_OK", {})
    for kind in BIT_GENERATORS:
        assert H._c_permute_ok(np.random.Generator(kind(0)), C), kind

    class Sub(np.random.Generator):
        pass

    assert not H._c_permute_ok(Sub(np.random.PCG64(0)), C)


# ------------------------------------------------------------------ maxima


def _matrices(seed, q, r, ties):
    rng = np.random.default_rng(seed)
    u = rng.random((q, r))
    if ties:
        u = np.round(u * 4) / 4
    scale = 10.0 ** rng.uniform(-3, 3, (q, 1, 1))
    real = (u[:, :, None] - u[:, None, :]) * scale
    skew = rng.normal(size=(q, r, r))  # not antisymmetric: every cell summed
    sign = np.sign(rng.integers(-1, 2, (q, r, r))).astype(np.float64)
    sign = np.triu(sign, 1) - np.transpose(np.triu(sign, 1), (0, 2, 1))  # no order
    keys = np.argsort(np.argsort(u, axis=1, kind="stable"), axis=1).astype(np.int8)
    return u, real, skew, sign, keys


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(2, 13), st.booleans(),
       st.sampled_from([None, 1, 3, 16]))
def test_maxima_are_bit_identical(seed, q, r, ties, batch):
    u, real, skew, sign, keys = _matrices(seed, q, r, ties)
    a, b = np.triu_indices(r, 1)
    n = 37
    cases = {
        "metric": lambda: H._hsd_metric_maxima(u * 10.0 ** (seed % 7 - 3), np.random.default_rng(
            seed), n, batch),
        "real": lambda: H._hsd_matrix_maxima(real, False, np.random.default_rng(seed), n, batch,
                                             a, b),
        "skew": lambda: H._hsd_matrix_maxima(skew, False, np.random.default_rng(seed), n, batch,
                                             a, b),
        "sign": lambda: H._hsd_matrix_maxima(sign, True, np.random.default_rng(seed), n, batch,
                                             a, b),
        "order": lambda: H._hsd_order_maxima(keys, np.random.default_rng(seed), n, batch),
    }
    for name, fn in cases.items():
        x, y = both(fn)
        assert x.shape == y.shape == (n,)
        np.testing.assert_array_equal(np.asarray(x, np.float64), y, err_msg=name)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.integers(2, 9), st.booleans())
def test_tukey_hsd_p_values_are_identical(seed, q, r, ties):
    u, real, _, sign, keys = _matrices(seed, q, r, ties)
    order = np.sign(keys[:, :, None].astype(int) - keys[:, None, :]).astype(np.float64)
    tables = [Pairwise.from_scores(u.T), Pairwise.from_matrix(real, "real"),
              Pairwise.from_matrix(sign, "sign"), Pairwise.from_matrix(order, "sign")]
    for pw in tables:
        for strict in (False, True):
            (p1, o1), (p2, o2) = both(lambda pw=pw, strict=strict: S.tukey_hsd(
                pw, 120, seed=seed, strict=strict))
            np.testing.assert_array_equal(p1, p2)
            np.testing.assert_array_equal(o1, o2)


def test_long_columns_sum_pairwise_like_numpy():
    """Over 128 queries NumPy's mean sums in blocks (pairwise): the C kernel does the same."""
    for q in (127, 128, 129, 250, 1000, 9000):
        x = np.random.default_rng(q).random((q, 3)) * 10.0 ** np.random.default_rng(1).uniform(
            -4, 4, (q, 3))
        a, b = both(lambda x=x: H._hsd_metric_maxima(x, np.random.default_rng(2), 9, None))
        np.testing.assert_array_equal(a, b)


def test_non_finite_tables_use_the_numpy_kernel():
    _, real, _, _, _ = _matrices(3, 6, 4, False)
    real[2, 0, 1], real[2, 1, 0] = np.inf, -np.inf
    a_, b_ = np.triu_indices(4, 1)
    x, y = both(lambda: H._hsd_matrix_maxima(real, False, np.random.default_rng(0), 20, None,
                                             a_, b_))
    np.testing.assert_array_equal(x, y)


def test_threads_and_batches_do_not_change_the_result(monkeypatch):
    _, real, _, _, _ = _matrices(5, 20, 9, False)
    pw = Pairwise.from_matrix(real, "real")
    with kernels("c"):
        base, _ = S.tukey_hsd(pw, 300, seed=4)
        again, _ = S.tukey_hsd(pw, 300, seed=4, batch=7)
        monkeypatch.setenv("IRPREF_THREADS", "1")
        one, _ = S.tukey_hsd(pw, 300, seed=4)
    np.testing.assert_array_equal(base, again)
    np.testing.assert_array_equal(base, one)


# ------------------------------------------------------------ bad arguments


def test_kernel_arguments_are_checked():
    perm = np.zeros((2, 3, 4), np.int16)
    out = np.empty(2)
    table = np.zeros((3, 4, 4))
    C.matrix_maxima(table, perm, 3, 4, True, out)
    with pytest.raises(TypeError, match="table"):
        C.matrix_maxima(table.astype(np.float32), perm, 3, 4, True, out)
    with pytest.raises(ValueError, match="table: expected 48 items"):
        C.matrix_maxima(table[:2], perm, 3, 4, True, out)
    with pytest.raises(ValueError, match="perm"):
        C.matrix_maxima(table, perm.astype(np.float64), 3, 4, True, out)
    with pytest.raises(ValueError, match="perm: values"):
        C.matrix_maxima(table, perm + 4, 3, 4, True, out)
    with pytest.raises(ValueError, match="out: expected 2 items"):
        C.matrix_maxima(table, perm, 3, 4, True, np.empty(3))
    with pytest.raises(ValueError, match="n_queries"):
        C.order_maxima(np.zeros(0, np.int8), perm, 0, 4, out)
    with pytest.raises(ValueError, match="contiguous"):
        C.metric_maxima(np.zeros((4, 3)).T, perm, 3, 4, out)  # not C-contiguous
    with pytest.raises(ValueError, match="permute"):
        C.permute(np.random.default_rng(0).bit_generator.capsule, np.empty((2, 5)), 5)
    with pytest.raises(TypeError, match="BitGenerator"):
        C.permute(object(), np.empty((2, 5), np.int16), 5)


# ------------------------------------------------------------ real collection


def test_real_collection_gives_the_same_p_values(data_dir):
    """TREC DL 2019 passage (tests/data): AP, sgnLP (order keys and gather), rrLP, RPP."""
    d = data_dir / "dl19-passage"
    runs = sorted((d / "runs").glob("*.gz"))[:14]
    judged = irpref.judge_inputs(d / "qrels.txt", runs, rel=2, warn=False)
    metrics = irpref.evaluate(None, None, ["AP"], judged=judged)
    prefs = compare_matrices(None, None, ["sgnLP", "rrLP", "RPP"], rel=2, judged=judged)
    tables = S.as_pairwise(metrics) + [Pairwise.from_comparison(prefs, m)
                                       for m in ("sgnLP", "rrLP", "RPP")]
    for pw in tables:
        for exploit in (True, False):
            if not exploit and pw.kind != "sign":
                continue
            (p1, o1), (p2, o2) = both(lambda pw=pw, exploit=exploit: S.tukey_hsd(
                pw, 500, seed=7, exploit_order=exploit))
            np.testing.assert_array_equal(p1, p2, err_msg=pw.measure)
            np.testing.assert_array_equal(o1, o2)
            assert (p1 < 1).any()
