"""Tie probabilities of random rankings: closed forms against brute-force
enumeration of all pairs of rankings, Monte Carlo within 3 standard errors,
the lexirecall paper's Tables 3-4 to the printed precision, and the CLI."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from helpers import irpref_cli

from irpref.errors import UsageError
from irpref.meta.closed_forms import rr_tie_given_p1, tie_probability
from irpref.meta.simulate import random_rankings, simulate_ties, tie_table

MEASURES = ["TSE", "R@1", "R@2", "R@4", "Rprec", "AP", "sgnLR", "sgnLP", "RR"]


def _value(measure: str, ranking: tuple[int, ...], m: int, depth: int):
    """Brute force from a ranking (item at each position); items 0..m-1 relevant."""
    n = len(ranking)
    pos = [i + 1 for i, item in enumerate(ranking) if item < m]
    kept = [p for p in pos if p <= depth]
    # pessimistic imputation: the unretrieved relevant items go to the bottom
    pos = kept + list(range(n - (m - len(kept)) + 1, n + 1))
    if measure == "TSE":
        return pos[-1]
    if measure == "RR":
        return Fraction(1, pos[0])
    if measure.startswith("R@"):
        return sum(p <= int(measure[2:]) for p in pos)
    if measure == "Rprec":
        return sum(p <= m for p in pos)
    if measure == "AP":
        return sum(Fraction(i + 1, p) for i, p in enumerate(pos)) / m
    return tuple(pos)  # lexirecall / lexiprecision: tied only when p = p'


def _brute(measure: str, n: int, m: int, depth: int) -> Fraction:
    perms = list(itertools.permutations(range(n)))
    values = [_value(measure, r, m, depth) for r in perms]
    tied = sum(a == b for a, b in itertools.product(values, values))  # all pairs
    return Fraction(tied, len(perms) ** 2)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_closed_forms_equal_enumeration_of_all_ranking_pairs(n):
    for m in range(1, n + 1):
        for depth in range(1, n + 1):
            for measure in MEASURES:
                want = float(_brute(measure, n, m, depth))
                got = tie_probability(measure, n, m, depth)
                assert got == pytest.approx(want, rel=1e-9, abs=1e-12), (measure, n, m, depth)


def test_closed_form_m_range_is_the_mean_over_m():
    want = np.mean([float(_brute("TSE", 5, m, 3)) for m in (2, 3, 4)])
    assert tie_probability("TSE", 5, (2, 4), 3) == pytest.approx(want)


def test_rr_given_p1_is_the_probability_of_that_p1():
    n, m = 6, 3
    perms = list(itertools.permutations(range(n)))
    p1 = [min(i + 1 for i, item in enumerate(r) if item < m) for r in perms]
    for p in range(1, n + 1):
        want = p1.count(p) / len(perms)
        assert rr_tie_given_p1(p, n, m) == pytest.approx(want)
    # the lexiprecision Fig. 2 setting: a pmf over p1 that decreases in p1
    probs = rr_tie_given_p1(np.arange(1, 50001), 50000, 16)
    assert probs.sum() == pytest.approx(1.0)
    assert np.all(np.diff(probs) <= 0)


@pytest.mark.parametrize(
    ("n", "m", "depth"), [(12, 4, None), (12, 4, 6), (50, 5, 20), (300, (2, 8), 100)]
)
def test_monte_carlo_within_three_standard_errors(n, m, depth):
    k = 20000
    measures = ["TSE", "R@10", "Rprec", "sgnLR", "RR"] + (["AP"] if n <= 12 else [])
    table = tie_table(measures, n, m, depth=depth, simulate=k, seed=7)
    for row in table.itertuples():
        p = row.closed_form
        se = math.sqrt(p * (1 - p) / k)
        assert abs(row.simulated - p) <= 3 * se + 1e-12, row


def test_random_rankings_are_seeded_uniform_subsets():
    a = random_rankings(30, (3, 7), 500, depth=10, seed=3)
    b = random_rankings(30, (3, 7), 500, depth=10, seed=3)
    assert np.array_equal(a.a, b.a) and np.array_equal(a.b, b.b) and np.array_equal(a.m, b.m)
    c = random_rankings(30, (3, 7), 500, depth=10, seed=4)
    assert not np.array_equal(a.a, c.a)
    for row, m in zip(a.a, a.m):
        pos = row[:m]
        assert np.all(np.diff(pos) > 0) and pos[0] >= 1 and pos[-1] <= 30
        kept = pos[pos <= 10]
        assert np.array_equal(pos[kept.size:], np.arange(30 - (m - kept.size) + 1, 31))
    # every 2-subset of [1..4] about equally often (Floyd's algorithm is uniform)
    r = random_rankings(4, 2, 60000, seed=1)
    _, counts = np.unique(r.a[:, 0] * 10 + r.a[:, 1], return_counts=True)
    assert counts.size == 6 and np.all(np.abs(counts / 60000 - 1 / 6) < 0.01)


# lexirecall (Diaz & Mitra 2023) Table 3 (m = 10) and Table 4 (n = 10^6), 3 decimals.
TABLE3 = {  # n: (TSE, R@1000, RP, LR)
    10**3: (0.005, 1.000, 0.825, 0.000),
    10**4: (0.001, 0.313, 0.980, 0.000),
    10**5: (0.000, 0.826, 0.998, 0.000),
    10**6: (0.000, 0.980, 1.000, 0.000),
}
TABLE4 = {  # m: (TSE, R@1000, RP, LR)
    1: (0.000, 0.998, 1.000, 0.000),
    5: (0.000, 0.990, 1.000, 0.000),
    10: (0.000, 0.981, 1.000, 0.000),
    25: (0.000, 0.952, 0.999, 0.000),
    50: (0.000, 0.907, 0.995, 0.000),
}
# Two printed cells are not the formula of Appendix D rounded: Table 3's RP at
# n = 10^3 is 0.82566 (prints 0.826; 0.825 is a truncation) and Table 4's
# R@1000 at m = 10 is 0.98029 (prints 0.980, as Table 3 itself has it).
DIFFERS = {(3, 10**3, "Rprec"): 0.82566, (4, 10, "R@1000"): 0.98029}


@pytest.mark.parametrize("table", [3, 4])
def test_lexirecall_tables_3_and_4(table):
    rows = TABLE3 if table == 3 else TABLE4
    for key, printed in rows.items():
        n, m = (key, 10) if table == 3 else (10**6, key)
        for measure, value in zip(["TSE", "R@1000", "Rprec", "sgnLR"], printed):
            got = tie_probability(measure, n, m)
            if (table, key, measure) in DIFFERS:
                assert got == pytest.approx(DIFFERS[table, key, measure], abs=5e-6)
            else:
                assert round(got, 3) == value, (table, key, measure, got)


def test_lexirecall_tables_ap_column_by_simulation():
    """AP has no closed form at these sizes: 0 ties in 20000 pairs (< 0.0005)."""
    for n in (10**3, 10**4):
        p, _ = simulate_ties("AP", n, 10, 20000, seed=1)
        assert p == 0.0
    assert math.isnan(tie_probability("AP", 1000, 10))


def test_bad_parameters_are_usage_errors():
    with pytest.raises(UsageError, match="m must be"):
        tie_probability("TSE", 5, 6)
    with pytest.raises(UsageError, match="depth"):
        tie_probability("TSE", 5, 2, depth=9)
    with pytest.raises(UsageError, match="unknown measure"):
        tie_probability("nDCG", 5, 2)
    with pytest.raises(UsageError, match="samples"):
        random_rankings(5, 2, 0)


def test_cli_tie_probability_tsv():
    r = irpref_cli("meta", "tie-probability", "-m", "TSE", "R@1000", "Rprec", "AP", "sgnLR",
             "--n", "1000", "--m", "10", "--simulate", "2000", "--seed", "5")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split("\t")[:6] == ["measure", "n", "m", "depth", "closed_form", "simulated"]
    rows = {ln.split("\t")[0]: ln.split("\t") for ln in lines[1:]}
    assert set(rows) == {"TSE", "R@1000", "Rprec", "AP", "sgnLR"}
    assert float(rows["Rprec"][4]) == tie_probability("Rprec", 1000, 10)  # full precision
    assert rows["TSE"][1:4] == ["1000", "10", "1000"]
    again = irpref_cli("meta", "tie-probability", "-m", "TSE", "R@1000", "Rprec", "AP", "sgnLR",
                 "--n", "1000", "--m", "10", "--simulate", "2000", "--seed", "5")
    assert again.stdout == r.stdout


@pytest.mark.parametrize(
    "args",
    [["--n", "10", "--m", "11"], ["--n", "10", "--m", "0"], ["--n", "10", "--m", "2",
     "--depth", "20"], ["--n", "10", "--m", "2", "--simulate", "0"], ["--n", "0", "--m", "1"]],
)
def test_cli_tie_probability_bad_options_exit_2(args):
    r = irpref_cli("meta", "tie-probability", "-m", "TSE", *args)
    assert r.returncode == 2
    assert "error" in r.stderr and "Traceback" not in r.stderr


def test_worst_case_agreement_lexirecall_table2():
    """Lexirecall Table 2 (Monte Carlo on both sides, 10,000 pairs): TSE always
    agrees with the worst-off user, R@1000 never at n = 1000, the tie share is
    the closed form of Theorem D.2, the rest within 3.5 se of a difference."""
    from irpref.meta.simulate import worst_case_agreement

    paper = {10**3: (0.285, 0.541, 0.535, 0.492), 10**4: (0.077, 0.552, 0.549, 0.497)}
    for n, (rp, ap, ndcg, rnd) in paper.items():
        t = worst_case_agreement(["TSE", "R@1000", "Rprec", "AP", "nDCG", "random"], n,
                                 (5, 50), 10_000, seed=0).set_index("measure")
        assert t.agreement["TSE"] == 1.0
        cf = tie_probability("TSE", n, (5, 50))
        assert abs(t.tied.iloc[0] - cf) <= 3 * math.sqrt(cf * (1 - cf) / 10_000)
        for name, want in (("Rprec", rp), ("AP", ap), ("nDCG", ndcg), ("random", rnd)):
            se = max(t.agreement_se[name], 1e-3)
            assert abs(t.agreement[name] - want) <= 3.5 * math.sqrt(2) * se, (n, name)
        if n == 10**3:
            assert t.agreement["R@1000"] == 0.0  # R@1000 ties every complete ranking
    a = worst_case_agreement(["AP", "random"], 500, (5, 50), 2000, seed=3)
    assert a.equals(worst_case_agreement(["AP", "random"], 500, (5, 50), 2000, seed=3))


def test_cli_worst_case_agreement_equals_api_and_is_seeded():
    from irpref.meta.simulate import worst_case_agreement

    args = ("worst-case-agreement", "-m", "TSE", "R@1000", "AP", "nDCG", "random",
            "--n", "1000", "--m", "5:50", "--samples", "3000", "--seed", "4")
    r = irpref_cli("meta", *args)
    assert r.returncode == 0, r.stderr
    lines = [ln.split("\t") for ln in r.stdout.splitlines()]
    assert lines[0] == ["measure", "n", "m", "tied", "agreement", "agreement_se", "seed"]
    assert {ln[-1] for ln in lines[1:]} == {"4"}
    api = worst_case_agreement(["TSE", "R@1000", "AP", "nDCG", "random"], 1000, (5, 50), 3000,
                               seed=4)
    assert [float(ln[4]) for ln in lines[1:]] == api["agreement"].tolist()
    assert lines[1][:3] == ["TSE", "1000", "5:50"] and float(lines[1][4]) == 1.0
    assert irpref_cli("meta", *args).stdout == r.stdout
    bad = irpref_cli("meta", "worst-case-agreement", "-m", "XX", "--n", "100")
    assert bad.returncode == 2 and "unknown measure" in bad.stderr


def test_rr_given_p1_table_closed_form_and_monte_carlo():
    """Lexiprecision Fig. 2: closed form = enumeration for small n, m; Monte
    Carlo within 3 standard errors; same seed, same table (API and CLI)."""
    from irpref.meta.simulate import rr_tie_table

    n, m = 7, 3
    subsets = list(itertools.combinations(range(1, n + 1), m))
    t = rr_tie_table(n, m, range(1, n + 1))
    for p1, cf in zip(t["p1"], t["closed_form"]):
        assert cf == pytest.approx(sum(s[0] == p1 for s in subsets) / len(subsets), abs=1e-12)
    sim = rr_tie_table(1000, 10, [1, 2, 5, 20], simulate=20_000, seed=1)
    for row in sim.itertuples():
        assert abs(row.simulated - row.closed_form) <= 3 * max(row.simulated_se, 1e-4)
    assert sim.equals(rr_tie_table(1000, 10, [1, 2, 5, 20], simulate=20_000, seed=1))
    r = irpref_cli("meta", "rr-given-p1", "--n", "1000", "--m", "10", "--p1", "1,2,5,20",
                   "--simulate", "20000", "--seed", "1")
    assert r.returncode == 0, r.stderr
    lines = [ln.split("\t") for ln in r.stdout.splitlines()]
    assert lines[0] == ["p1", "n", "m", "closed_form", "simulated", "simulated_se", "seed"]
    assert {ln[-1] for ln in lines[1:]} == {"1"}  # the table names its own seed
    assert [float(ln[4]) for ln in lines[1:]] == sim["simulated"].tolist()
    assert [float(ln[3]) for ln in lines[1:]] == sim["closed_form"].tolist()
    for bad in (["--p1", "0"], ["--p1", "2000"], ["--m", "2000", "--p1", "1"]):
        args = ["--n", "1000", "--m", "10", *bad] if bad[0] == "--p1" else \
            ["--n", "1000", *bad]
        r = irpref_cli("meta", "rr-given-p1", *args)
        assert r.returncode == 2 and "Traceback" not in r.stderr, args
