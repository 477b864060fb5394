"""MC4 with many runs: squaring the chain must not drift into overflow / NaN."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from irpref.preferences.aggregate import majority, mc4


@pytest.mark.parametrize("runs", [10, 30, 100])
def test_mc4_is_the_stationary_distribution_for_many_runs(runs):
    s = np.random.default_rng(runs).random((20, runs))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow / invalid value in the squaring
        pi = mc4(s)
    move = (majority(s) > 0).astype(np.float64) / runs
    np.fill_diagonal(move, 0.0)
    np.fill_diagonal(move, 1.0 - move.sum(axis=1))
    chain = 0.95 * move + 0.05 / runs
    v = np.full(runs, 1.0 / runs)
    for _ in range(2000):  # plain power iteration from the uniform start
        v = v @ chain
    assert not np.isnan(pi).any()
    np.testing.assert_allclose(pi, v, atol=1e-12)
    np.testing.assert_allclose(pi @ chain, pi, atol=1e-12)
