"""The C kernels of the residual bounds (irpref._native.kernels.ap_bounds and
largest_ratio) give the NumPy rules' values, on random rankings; the rules
themselves are checked against every assignment in tests/test_bounds.py."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_bounds import _judge, collections

from irpref.measures import parse_measure
from irpref.measures.bounds import residual_bounds
from irpref.runtime.native import ENV, native

pytestmark = pytest.mark.skipif(native("kernels") is None, reason="the C extension is not built")


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(top=3), depth=st.one_of(st.none(), st.integers(2, 6)),
       k=st.integers(1, 6), rel=st.integers(1, 2), ties=st.sampled_from(["docid", "input"]))
def test_c_and_numpy_bounds_agree(data, depth, k, rel, ties):
    texts = ["AP", f"AP@{k}", "nDCG", f"nDCG@{k}", f"nDCG(gain=exp)@{k}", f"NCG@{k}"]
    got = {}
    for kernel in ("c", "numpy"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv(ENV, kernel)
            judged = _judge(data, ties, depth, rel)
            ms = [parse_measure(t) for t in texts]
            got[kernel] = residual_bounds(judged, ms)
    for m in got["c"]:
        for a, b in zip(got["c"][m], got["numpy"][m]):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=str(m))
