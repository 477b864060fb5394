"""Preferences for two rankings of one query: sgnLP, rrLP, sgnLR, RPP.

Oracles follow the reference implementation's conventions (pref_eval): a
ranking is the list of its relevant items' positions, padded with ``None``
for the unretrieved ones (which tie with each other and lose to any
retrieved item). Paper identities are checked by brute force over user
populations and over all position vectors.
"""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irpref.preferences import (
    PREFERENCES,
    lexiprecision_key,
    lexirecall_key,
    parse_preference,
    parse_preferences,
    preference_kind,
    rpp,
    rpp_mixture,
    rr_lp,
    sgn_lp,
    sgn_lr,
)

# ---------------------------------------------------------------- oracles


def padded(p, m):
    return sorted(p) + [None] * (m - len(p))


def oracle_lp(x, y):
    """pref_eval lexiprecision on None-padded vectors: first difference from the top."""
    for a, b in zip(x, y):
        if a is None and b is None:
            continue
        if a is None or b is None:
            return 1 if b is None else -1
        if a != b:
            return 1 if a < b else -1
    return 0


def oracle_rrlp(x, y):
    for a, b in zip(x, y):
        if a is None and b is None:
            continue
        ra = 0.0 if a is None else 1.0 / a
        rb = 0.0 if b is None else 1.0 / b
        if a != b:
            return ra - rb
    return 0.0


def oracle_lr(x, y):
    """pref_eval lexirecall: first difference from the bottom."""
    for a, b in zip(reversed(x), reversed(y)):
        if a is None and b is None:
            continue
        if a is None or b is None:
            return 1 if b is None else -1
        if a != b:
            return 1 if a < b else -1
    return 0


def oracle_rpp(x, y, p="uniform"):
    m = len(x)
    if m == 0:
        return 0.0
    w = [1.0 if p == "uniform" else 1 / math.log2(i + 2) if p == "dcg" else 1 / (i + 1)
         for i in range(m)]
    total = sum(w)
    out = 0.0
    for i, (a, b) in enumerate(zip(x, y)):
        a = math.inf if a is None else a
        b = math.inf if b is None else b
        out += (w[i] / total) * ((b > a) - (b < a))
    return out


positions = st.integers(1, 40)


@st.composite
def two_rankings(draw, max_m=8):
    m = draw(st.integers(0, max_m))
    x = draw(st.lists(positions, max_size=m, unique=True))
    y = draw(st.lists(positions, max_size=m, unique=True))
    return m, x, y


# ---------------------------------------------------------------- registry


def test_registry_kinds_and_text():
    assert {n: f.kind for n, f in PREFERENCES.items()} == {
        "sgnLP": "sign", "rrLP": "real", "sgnLR": "sign", "RPP": "real", "ST-RPP": "real",
    }
    assert str(parse_preference("RPP(p=dcg)")) == "RPP(p=dcg)"
    assert str(parse_preference("RPP(p=uniform)")) == "RPP"
    text = "RPP( grades=binary , p=inverse )"
    assert str(parse_preference(text)) == "RPP(grades=binary,p=inverse)"
    assert str(parse_preference("sgnLP(rel=2)")) == "sgnLP(rel=2)"
    assert preference_kind("sgnLR") == "sign" and preference_kind("RPP(p=dcg)") == "real"
    for fam in PREFERENCES.values():  # the aliases each record declares
        for alias in fam.aliases:
            assert parse_preference(alias.spelling) == parse_preference(alias.target)
            assert alias.target.split("(")[0] == fam.name and alias.tools
    assert [str(p) for p in parse_preferences("sgnLP rrLP lexiprecision")] == ["sgnLP", "rrLP"]
    for p in PREFERENCES.values():
        assert p.source and p.formula


@pytest.mark.parametrize(
    "text, message",
    [
        ("nDCG", "irpref evaluate"),
        ("nDGC", "unknown preference"),
        ("RPP(p=geometric)", "must be one of"),
        ("RPP(q=1)", "unknown parameter"),
        ("RPP(p)", "not key=value"),
        ("sgnLP(rel=0)", ">= 1"),
        ("RPP((", "cannot parse"),
    ],
)
def test_registry_errors(text, message):
    with pytest.raises(ValueError, match=message):
        parse_preference(text)


# ---------------------------------------------------------------- two rankings


@settings(max_examples=300, deadline=None)
@given(two_rankings())
def test_scalar_functions_match_reference_conventions(case):
    m, x, y = case
    px, py = padded(x, m), padded(y, m)
    assert sgn_lp(x, y, m) == oracle_lp(px, py)
    assert rr_lp(x, y, m) == pytest.approx(oracle_rrlp(px, py), abs=1e-15)
    assert sgn_lr(x, y, m) == oracle_lr(px, py)
    for p in ("uniform", "dcg", "inverse"):
        assert rpp(x, y, m, p) == pytest.approx(oracle_rpp(px, py, p), abs=1e-12)
        assert rpp(x, y, m, p) == pytest.approx(-rpp(y, x, m, p), abs=1e-15)
        assert -1 - 1e-12 <= rpp(x, y, m, p) <= 1 + 1e-12
    # antisymmetry and the sign of rrLP
    assert sgn_lp(x, y) == -sgn_lp(y, x) and sgn_lr(x, y) == -sgn_lr(y, x)
    assert np.sign(rr_lp(x, y)) == sgn_lp(x, y)


def test_lexiprecision_preserves_reciprocal_rank():
    """Diaz 2023 §3.4 / Diaz & Mitra §7.3.1: RR(π) > RR(π') implies π ≻_LP π'."""
    for m in range(1, 4):
        subsets = [list(c) for k in range(m + 1) for c in itertools.combinations(range(1, 7), k)]
        for x, y in itertools.product(subsets, repeat=2):
            rrx = 1 / x[0] if x else 0
            rry = 1 / y[0] if y else 0
            if rrx != rry:
                assert sgn_lp(x, y) == (1 if rrx > rry else -1)
            # a tie only when relevant items sit at exactly the same positions
            assert (sgn_lp(x, y) == 0) == (x == y)


def _utilities(p_full, users, worst):
    e = [Fraction(1, p) for p in p_full]
    return sorted(((min if worst else max)(e[i] for i in u) for u in users), reverse=True)


def test_lexirecall_is_leximin_over_possible_users():
    """Diaz & Mitra 2023 Eq. 10-11: leximin over the utilities (exposure of the
    last needed item) of every non-empty subset of relevant items equals the
    bottom-up comparison of positions (pessimistic imputation, corpus n)."""
    n, m = 9, 3
    users = [u for k in range(1, m + 1) for u in itertools.combinations(range(m), k)]
    rankings = [list(c) for k in range(m + 1) for c in itertools.combinations(range(1, 6), k)]
    for x, y in itertools.product(rankings, repeat=2):
        fx = x + [n - m + i + 1 for i in range(len(x), m)]
        fy = y + [n - m + i + 1 for i in range(len(y), m)]
        ux, uy = _utilities(fx, users, worst=True), _utilities(fy, users, worst=True)
        expected = 0
        for a, b in zip(reversed(ux), reversed(uy)):  # leximin: from the worst-off
            if a != b:
                expected = 1 if a > b else -1
                break
        assert sgn_lr(x, y, m) == expected


def test_lexiprecision_is_leximax_over_possible_users():
    """Diaz 2023 §3.4: over psychological-relevance users (subsets of relevant
    items, each satisfied by its first item), leximax from the best-off user
    decides exactly as sgnLP."""
    n, m = 9, 3
    users = [u for k in range(1, m + 1) for u in itertools.combinations(range(m), k)]
    rankings = [list(c) for k in range(m + 1) for c in itertools.combinations(range(1, 6), k)]
    for x, y in itertools.product(rankings, repeat=2):
        fx = x + [n - m + i + 1 for i in range(len(x), m)]
        fy = y + [n - m + i + 1 for i in range(len(y), m)]
        ux, uy = _utilities(fx, users, worst=False), _utilities(fy, users, worst=False)
        expected = 0
        for a, b in zip(ux, uy):
            if a != b:
                expected = 1 if a > b else -1
                break
        assert sgn_lp(x, y, m) == expected


def test_lexirecall_tie_probability():
    """Diaz & Mitra 2023 §5.3: for complete rankings drawn uniformly,
    Pr(π =_LR π') = m!(n-m)!/n!."""
    for n, m in [(6, 2), (7, 3), (8, 1)]:
        subsets = list(itertools.combinations(range(1, n + 1), m))
        ties = sum(sgn_lr(x, y, m) == 0 for x, y in itertools.product(subsets, repeat=2))
        assert Fraction(ties, len(subsets) ** 2) == Fraction(
            math.factorial(m) * math.factorial(n - m), math.factorial(n)
        )


def test_lexirecall_imputation_example():
    """Diaz & Mitra 2023 §2.2: 3 of 6 relevant items at 2, 3, 8 -> p = 2,3,8,n-2,n-1,n."""
    n = 100
    a = lexirecall_key([2, 3, 8], 6, n)
    # the same ranking written out with its imputed positions retrieved
    assert a == lexirecall_key([2, 3, 8, n - 2, n - 1, n], 6, n)
    # retrieving a fourth relevant item anywhere above the imputed block wins (Eq. 11)
    assert lexirecall_key([2, 3, 8, 50], 6, n) > a
    assert sgn_lr([2, 3, 8, 50], [2, 3, 8], 6) == 1


def test_rpp_graded_reduces_to_binary():
    """Diaz & Ferraro 2022 Eq. 5: one grade -> Eq. 4."""
    assert rpp_mixture([([1, 5], [2, 3], 4)]) == rpp([1, 5], [2, 3], 4)
    # p(λ) ∝ m_λ: two populations of sizes 4 and 1
    mixed = rpp_mixture([([1, 5], [2, 3], 4), ([5], [2], 1)])
    assert mixed == pytest.approx((4 * rpp([1, 5], [2, 3], 4) + 1 * rpp([5], [2], 1)) / 5)


def test_rpp_paper_weights():
    """§5.3: p_dcg(i) ∝ 1/log2(i+1), p_inverse(i) ∝ 1/i over recall levels."""
    # f wins level 1, loses level 2, ties level 3 (both unretrieved)
    w_dcg = [1 / math.log2(i + 1) for i in (1, 2, 3)]
    assert rpp([1, 9], [2, 3], 3, "dcg") == pytest.approx((w_dcg[0] - w_dcg[1]) / sum(w_dcg))
    assert rpp([1, 9], [2, 3], 3, "inverse") == pytest.approx((1 - 1 / 2) / (1 + 1 / 2 + 1 / 3))
    assert rpp([1, 9], [2, 3], 3) == 0.0


def test_scalar_errors():
    with pytest.raises(ValueError, match="1-based"):
        sgn_lp([0], [1])
    with pytest.raises(ValueError, match="share a position"):
        sgn_lr([1, 1], [2])
    with pytest.raises(ValueError, match="than m"):
        rpp([1, 2, 3], [1], 2)
    with pytest.raises(ValueError, match="deeper"):
        lexiprecision_key([5], 4)
    with pytest.raises(ValueError, match="eps"):
        lexirecall_key([1], 2, 10, eps=1)
    with pytest.raises(ValueError, match="no room"):
        lexirecall_key([9], 3, 10)


# ---------------------------------------------------------------- exact keys


@st.composite
def ranking_sets(draw):
    m = draw(st.integers(0, 6))
    depth = draw(st.integers(max(m, 1), 30))
    rankings = draw(
        st.lists(st.lists(st.integers(1, depth), max_size=m, unique=True), min_size=2,
                 max_size=8)
    )
    return m, depth, rankings


def _sorted_by_preference(rankings, pref):
    return sorted(rankings, key=functools.cmp_to_key(lambda a, b: -pref(a, b)))


@settings(max_examples=200, deadline=None)
@given(ranking_sets())
def test_lexiprecision_key_orders_as_the_preference(case):
    """§6: μ_LP(π) > μ_LP(π') exactly when sgnLP(π, π') > 0."""
    m, depth, rankings = case
    for x, y in itertools.combinations(rankings, 2):
        kx, ky = lexiprecision_key(x, depth), lexiprecision_key(y, depth)
        assert (kx > ky) - (kx < ky) == sgn_lp(x, y, m)
    by_key = sorted(rankings, key=lambda p: -lexiprecision_key(p, depth))
    by_pref = _sorted_by_preference(rankings, sgn_lp)
    assert [lexiprecision_key(p, depth) for p in by_key] == [
        lexiprecision_key(p, depth) for p in by_pref
    ]


@settings(max_examples=200, deadline=None)
@given(ranking_sets(), st.sampled_from([Fraction(1, 2), Fraction(1, 7), Fraction(9, 10)]))
def test_lexirecall_key_orders_as_the_preference(case, eps):
    """§7.3.2: Yager's weights in exact arithmetic give LR(p) > LR(p') exactly
    when sgnLR(π, π') > 0 (pessimistic imputation in a corpus of n items)."""
    m, depth, rankings = case
    n = depth + m + 3
    for x, y in itertools.combinations(rankings, 2):
        kx, ky = lexirecall_key(x, m, n, eps), lexirecall_key(y, m, n, eps)
        assert (kx > ky) - (kx < ky) == sgn_lr(x, y, m)
    keys = sorted(lexirecall_key(p, m, n, eps) for p in rankings)
    by_pref = _sorted_by_preference(rankings, lambda a, b: sgn_lr(a, b, m))
    assert [lexirecall_key(p, m, n, eps) for p in reversed(by_pref)] == keys


def test_lexirecall_float_weights_lose_the_order():
    """The paper's warning (§7.3.2): in floating point metric lexirecall cannot
    separate rankings that differ only at the top; the exact key can."""
    n, m = 10**6, 40
    x, y = [1, *range(3, 42)], list(range(2, 42))  # differ at level 1 only
    assert sgn_lr(x, y, m) == 1
    assert lexirecall_key(x, m, n) > lexirecall_key(y, m, n)
    delta = 1 / (n + 0.5)
    r = delta / (1 + delta)
    w = [r ** (m - 1)] + [r ** (m - i) / (1 + delta) for i in range(2, m + 1)]
    fx = sum(wi * (n - p) / n for wi, p in zip(w, x))
    fy = sum(wi * (n - p) / n for wi, p in zip(w, y))
    assert fx == fy  # float64 ties them


def test_the_engine_dispatches_on_the_records(monkeypatch):
    """A new record computes through the engine with no name anywhere else: a copy
    of sgnLP's record under another name gives sgnLP's values (and of RPP's, RPP's)."""
    import dataclasses

    from irpref import examples

    copies = {"sgnLPcopy": "sgnLP", "rrLPcopy": "rrLP", "sgnLRcopy": "sgnLR",
              "RPPcopy": "RPP"}
    for new, old in copies.items():
        rec = dataclasses.replace(PREFERENCES[old], name=new, aliases=())
        monkeypatch.setitem(PREFERENCES, new, rec)
    runs = [str(p) for p in examples.run_paths()[:3]]
    names = [*copies, *copies.values(), "RPPcopy(p=dcg)", "RPP(p=dcg)"]
    from irpref.compare import compare_matrices

    comp = compare_matrices(str(examples.qrels_path()), runs, names)
    for new, old in [*copies.items(), ("RPPcopy(p=dcg)", "RPP(p=dcg)")]:
        np.testing.assert_array_equal(comp.values[new], comp.values[old])


def test_no_module_dispatches_on_preference_or_measure_names():
    """The engine, the resolver and the measure record type read records, never names:
    no string literal there spells a preference or measure family."""
    import ast
    import inspect

    from irpref.measures import REGISTRY, base, names
    from irpref.preferences import comparison, engines, pairs, populations

    families = set(PREFERENCES) | set(REGISTRY)
    for module in (pairs, engines, comparison, populations, names, base):
        tree = ast.parse(inspect.getsource(module))
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef))
                      and n.body and isinstance(n.body[0], ast.Expr)}
        spelled = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
                   and isinstance(n.value, str) and id(n) not in docstrings}
        assert not spelled & families, (module.__name__, spelled & families)
