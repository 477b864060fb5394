"""lexirecall section 7.2.4 / Fig. 14: deterministic vs stochastic worst case."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from helpers import irpref_cli

from irpref.errors import UsageError
from irpref.meta.stochastic import exposure_normalization, worst_case_optimal


def _mu(metric, positions):
    """The metric from its textbook definition for a user holding items at ``positions``."""
    p = np.sort(np.asarray(positions, dtype=float))
    j = p.size
    if metric == "RR":
        return 1 / p[0]
    if metric == "AP":
        return float(np.mean(np.arange(1, j + 1) / p))
    if metric == "nDCG":
        return float((1 / np.log2(p + 1)).sum() / (1 / np.log2(np.arange(2, j + 2))).sum())
    return float((1 - 0.5) * (0.5 ** (p - 1)).sum())  # RBP(p=0.5)


@pytest.mark.parametrize("metric", ["RR", "AP", "nDCG", "RBP(p=0.5)"])
@pytest.mark.parametrize("m", [1, 2, 3, 4, 5])
def test_closed_form_equals_enumeration(metric, m):
    name = metric.split("(")[0]
    users = [u for r in range(1, m + 1) for u in itertools.combinations(range(m), r)]
    perms = list(itertools.permutations(range(m)))  # item -> position - 1
    det = min(_mu(name, [perms[0][x] + 1 for x in u]) for u in users)
    sto = min(np.mean([_mu(name, [pi[x] + 1 for x in u]) for pi in perms]) for u in users)
    row = worst_case_optimal([metric], [m]).iloc[0]
    assert row.deterministic == pytest.approx(det)
    assert row.stochastic == pytest.approx(sto)
    assert row.stochastic >= row.deterministic - 1e-15  # Appendix C


def test_rr_closed_form_and_table():
    t = worst_case_optimal(["RR", "nDCG"], range(1, 26))
    assert len(t) == 50 and (t.difference >= -1e-15).all()
    rr = t[t.metric == "RR"]
    m = rr.m.to_numpy()
    assert np.allclose(rr.deterministic, 1 / m)
    assert np.allclose(rr.stochastic, [np.sum(1 / np.arange(1, k + 1)) / k for k in m])
    e, z = exposure_normalization("AP", 3)
    assert np.allclose(z, [[1, 0, 0], [0.5, 1, 0], [1 / 3, 2 / 3, 1]])


def test_bad_parameters():
    with pytest.raises(UsageError, match="metric"):
        worst_case_optimal(["P@10"], [3])
    with pytest.raises(UsageError, match="p must be"):
        worst_case_optimal(["RBP(p=1.5)"], [3])
    with pytest.raises(UsageError, match="m="):
        worst_case_optimal(["RR"], [0])


@pytest.mark.slow
def test_cli_worst_case():
    r = irpref_cli("meta", "worst-case", "-m", "RR", "nDCG", "--m", "1:4")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split("\t")[:5] == ["metric", "m", "deterministic", "stochastic",
                                         "difference"]
    assert len(lines) == 9
    assert float(lines[2].split("\t")[3]) == 0.75  # RR, m = 2: (1 + 1/2) / 2
    bad = irpref_cli("meta", "worst-case", "-m", "ERR")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
