"""Paired tests, corrections, randomized Tukey HSD and bootstrap CIs (irpref.stats)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from irpref import stats as S
from irpref.stats import Pairwise
from irpref.stats import hsd as H


def _scores(seed: int, runs: int = 6, queries: int = 20, levels: int | None = None) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.random((runs, queries)) + np.linspace(0, 0.3, runs)[:, None]
    if levels:  # discretized values: many ties and zero differences
        x = np.round(x * levels) / levels
    return x


# ---------------------------------------------------------------- paired tests


@pytest.mark.parametrize("seed", range(4))
def test_paired_t_matches_scipy(seed):
    x = _scores(seed)
    pw = Pairwise.from_scores(x)
    a, b = pw.pairs
    t, p, n = S.paired_t(pw.values)
    ref = sps.ttest_rel(x[a], x[b], axis=1)
    np.testing.assert_allclose(t, ref.statistic, rtol=1e-10)
    np.testing.assert_allclose(p, ref.pvalue, rtol=1e-10)
    assert (n == x.shape[1]).all()


def test_paired_t_identical_and_constant_differences():
    d = np.array([[0.0, 0.0, 0.0], [0.5, 0.5, 0.5], [1.0, np.nan, np.nan]])
    t, p, n = S.paired_t(d)
    assert t[0] == 0 and p[0] == 1.0  # scipy gives NaN: no difference, no evidence
    assert np.isinf(t[1]) and p[1] == 0.0  # as scipy
    assert np.isnan(p[2]) and n[2] == 1


def test_paired_t_ignores_missing_queries_pairwise():
    d = np.array([[0.1, 0.3, np.nan, -0.2, 0.4]])
    t, p, n = S.paired_t(d)
    ref = sps.ttest_1samp([0.1, 0.3, -0.2, 0.4], 0.0)
    assert n[0] == 4
    assert t[0] == pytest.approx(ref.statistic) and p[0] == pytest.approx(ref.pvalue)


def test_sign_test_matches_binomtest():
    wins, losses = np.meshgrid(np.arange(0, 25), np.arange(0, 25))
    wins, losses = wins.ravel(), losses.ravel()
    q = 60
    d = np.zeros((len(wins), q))
    cols = np.arange(q)[None, :]
    d[cols < wins[:, None]] = 1.0
    d[(cols >= wins[:, None]) & (cols < (wins + losses)[:, None])] = -1.0
    w, l, t, p = S.sign_test(d)
    assert (w == wins).all() and (l == losses).all() and (t == q - wins - losses).all()
    for i in range(len(wins)):
        n = wins[i] + losses[i]
        ref = 1.0 if n == 0 else sps.binomtest(int(wins[i]), int(n)).pvalue
        assert p[i] == pytest.approx(ref, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("seed", range(3))
def test_wilcoxon_exact_matches_scipy(seed):
    x = _scores(seed, queries=18)  # continuous: no ties, no zeros
    pw = Pairwise.from_scores(x)
    a, b = pw.pairs
    stat, p, n = S.wilcoxon(pw.values)
    ref = sps.wilcoxon(x[a], x[b], axis=1, method="exact")
    np.testing.assert_allclose(stat, ref.statistic)
    np.testing.assert_allclose(p, ref.pvalue, rtol=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_wilcoxon_asymptotic_with_ties_and_zeros_matches_scipy(seed):
    x = _scores(seed, queries=30, levels=4)
    pw = Pairwise.from_scores(x)
    a, b = pw.pairs
    stat, p, n = S.wilcoxon(pw.values, method="asymptotic")
    ref = sps.wilcoxon(x[a], x[b], axis=1, method="asymptotic")
    np.testing.assert_allclose(stat, ref.statistic)
    np.testing.assert_allclose(p, ref.pvalue, rtol=1e-9)
    # auto: tied pairs fall back to the normal approximation
    _, p_auto, _ = S.wilcoxon(pw.values)
    np.testing.assert_allclose(p_auto, p)


def test_wilcoxon_auto_is_exact_without_ties():
    d = np.array([[0.3, -0.1, 0.25, 0.7, 0.05, -0.02, 0.4, 0.9]])
    _, p, _ = S.wilcoxon(d)
    assert p[0] == pytest.approx(sps.wilcoxon(d[0], method="exact").pvalue)
    assert S.wilcoxon(np.zeros((1, 5)))[1][0] == 1.0


def test_no_paired_query_gives_nan_p_all_ties_give_one():
    """No paired query: the test cannot be computed, p = NaN in every test (scipy: NaN
    for an empty sample, binomtest refuses n = 0). Paired queries that all tie: p = 1
    (scipy's exact Wilcoxon: 1); one query: the t test cannot estimate sd (NaN)."""
    d = np.array([[np.nan] * 4, [0.0, 0.0, np.nan, 0.0], [0.0, np.nan, np.nan, np.nan]])
    t, p_t, n = S.paired_t(d)
    wins, losses, ties, p_s = S.sign_test(d)
    assert np.isnan(p_t[0]) and np.isnan(p_s[0]) and (wins[0], losses[0], ties[0]) == (0, 0, 0)
    assert p_t[1] == p_s[1] == 1.0 and np.isnan(p_t[2]) and p_s[2] == 1.0
    for method in ("auto", "exact", "asymptotic"):
        stat, p_w, n_w = S.wilcoxon(d, method)
        assert np.isnan(p_w[0]) and np.isnan(stat[0]) and n_w[0] == 0
        assert (p_w[1:] == 1.0).all() and (stat[1:] == 0).all()
    with warnings.catch_warnings():  # scipy warns: the sample is too small
        warnings.simplefilter("ignore")
        assert np.isnan(sps.ttest_1samp([], 0.0).pvalue)
        assert np.isnan(sps.wilcoxon([]).pvalue)
    assert sps.wilcoxon([0.0, 0.0, 0.0], method="exact").pvalue == 1.0
    with pytest.raises(ValueError):
        sps.binomtest(0, 0)


_VALUES = st.sampled_from([np.nan, 0.0, 1.0, -1.0, 0.5, -2.0, 3.0, -0.25])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(_VALUES, min_size=6, max_size=6), min_size=1, max_size=5))
def test_sign_and_exact_wilcoxon_equal_scipy_on_any_row(rows):
    """Brute force per row against scipy on the row's values (NaN = query not paired):
    binomtest on wins/losses (NaN without a value, 1 when all tie) and the exact
    signed-rank test (scipy: NaN for an empty sample, 1 when every value is 0)."""
    d = np.array(rows)
    wins, losses, ties, p_s = S.sign_test(d)
    stat, p_w, _ = S.wilcoxon(d, "exact")
    for i, row in enumerate(d):
        v = row[~np.isnan(row)]
        w, lo = int((v > 0).sum()), int((v < 0).sum())
        ref_s = np.nan if len(v) == 0 else 1.0 if w + lo == 0 else sps.binomtest(w, w + lo).pvalue
        np.testing.assert_allclose(p_s[i], ref_s, rtol=1e-9)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = sps.wilcoxon(v, method="exact") if len(v) else sps.wilcoxon(v)
        np.testing.assert_allclose([stat[i], p_w[i]], [ref.statistic, ref.pvalue], rtol=1e-9)


# ------------------------------------------------------------------ corrections


def _holm_loop(p):
    m = len(p)
    order = np.argsort(p, kind="stable")
    out = np.empty(m)
    running = 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, (m - i) * p[j]))
        out[j] = running
    return out


def _bh_loop(p):
    m = len(p)
    order = np.argsort(p, kind="stable")
    out = np.empty(m)
    running = 1.0
    for i in range(m - 1, -1, -1):
        j = order[i]
        running = min(running, min(1.0, m * p[j] / (i + 1)))
        out[j] = running
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_corrections_match_their_definitions(ps):
    p = np.array(ps)
    np.testing.assert_allclose(S.adjust_pvalues(p, "holm"), _holm_loop(p))
    np.testing.assert_allclose(S.adjust_pvalues(p, "bh"), _bh_loop(p))
    np.testing.assert_allclose(S.adjust_pvalues(p, "bonferroni"), np.minimum(1, len(p) * p))
    np.testing.assert_array_equal(S.adjust_pvalues(p, "none"), p)
    holm = S.adjust_pvalues(p, "holm")
    assert (holm >= p - 1e-15).all() and (holm <= S.adjust_pvalues(p, "bonferroni") + 1e-15).all()


def test_corrections_leave_nan_out_of_m():
    p = np.array([0.01, np.nan, 0.02])
    out = S.adjust_pvalues(p, "bonferroni")
    assert np.isnan(out[1]) and out[0] == pytest.approx(0.02)
    with pytest.raises(ValueError, match="correction"):
        S.adjust_pvalues(p, "sidak")


# ------------------------------------------------------------ randomized HSD


def _hsd_brute_range(x, perms):
    """Carterette's classic form: range of run means under each permutation, a loop."""
    r, q = x.shape
    means = x.mean(1)
    maxima = []
    for perm in perms:  # (Q, R)
        y = np.empty_like(x)
        for qi in range(q):
            for ri in range(r):
                y[ri, qi] = x[perm[qi, ri], qi]
        m = y.mean(1)
        maxima.append(m.max() - m.min())
    maxima = np.array(maxima)
    out = []
    for a in range(r):
        for b in range(a + 1, r):
            obs = abs(means[a] - means[b])
            out.append(np.mean(maxima >= obs - 1e-12))
    return np.array(out)


def _hsd_brute_matrix(m, perms):
    """Permute rows and columns of each query's matrix; max |mean| over pairs, a loop."""
    q, r, _ = m.shape
    obs = m.mean(0)
    maxima = []
    for perm in perms:
        s = np.zeros((r, r))
        for qi in range(q):
            p = perm[qi]
            for a in range(r):
                for b in range(r):
                    s[a, b] += m[qi, p[a], p[b]]
        maxima.append(np.abs(s / q).max())
    maxima = np.array(maxima)
    return np.array([
        np.mean(maxima >= abs(obs[a, b]) - 1e-12) for a in range(r) for b in range(a + 1, r)
    ])


def _perms(seed, n, q, r):
    return np.concatenate(list(S.hsd_permutations(np.random.default_rng(seed), n, q, r, 7)))


@pytest.mark.parametrize("seed", range(3))
def test_hsd_metric_equals_classic_range_of_means(seed):
    x = _scores(seed, runs=5, queries=8)
    p, obs = S.tukey_hsd(Pairwise.from_scores(x), 200, seed=seed)
    np.testing.assert_allclose(p, _hsd_brute_range(x, _perms(seed, 200, 8, 5)))
    a, b = np.triu_indices(5, 1)
    np.testing.assert_allclose(obs, np.abs(x.mean(1)[a] - x.mean(1)[b]))


def test_hsd_on_difference_matrix_equals_metric_form():
    x = _scores(3, runs=6, queries=10)
    metric = Pairwise.from_scores(x)
    as_matrix = Pairwise.from_matrix(metric.matrix, "real")
    p1, _ = S.tukey_hsd(metric, 500, seed=11)
    p2, _ = S.tukey_hsd(as_matrix, 500, seed=11)
    np.testing.assert_array_equal(p1, p2)


@pytest.mark.parametrize("kind", ["sign", "real"])
def test_hsd_preference_matrix_matches_brute_force(kind):
    rng = np.random.default_rng(5)
    q, r = 7, 5
    upper = rng.integers(-1, 2, (q, r, r)) if kind == "sign" else rng.normal(size=(q, r, r))
    m = np.triu(upper, 1)
    m = m - m.transpose(0, 2, 1)
    p, _ = S.tukey_hsd(Pairwise.from_matrix(m, kind), 150, seed=2)
    np.testing.assert_allclose(p, _hsd_brute_matrix(m, _perms(2, 150, q, r)))


def test_hsd_order_induced_sign_preference_fast_path():
    rng = np.random.default_rng(9)
    keys = rng.integers(0, 4, (9, 6))  # per-query orders with ties, as sgnLP / sgnLR give
    m = np.sign(keys[:, :, None] - keys[:, None, :]).astype(float)
    assert H._order_keys(m) is not None
    pw = Pairwise.from_matrix(m, "sign")
    fast, _ = S.tukey_hsd(pw, 300, seed=4)
    slow, _ = S.tukey_hsd(pw, 300, seed=4, exploit_order=False)
    np.testing.assert_array_equal(fast, slow)
    np.testing.assert_allclose(fast, _hsd_brute_matrix(m, _perms(4, 300, 9, 6)))
    for x, y in [(0, 1), (1, 2), (2, 0)]:  # a cycle: no order
        m[0, x, y], m[0, y, x] = 1.0, -1.0
    assert H._order_keys(m) is None


def test_hsd_identical_runs_give_p_one():
    x = _scores(0, runs=4, queries=12)
    x[2] = x[1]
    p, _ = S.tukey_hsd(Pairwise.from_scores(x), 300, seed=0)
    a, b = Pairwise.from_scores(x).pairs
    assert p[(a == 1) & (b == 2)][0] == 1.0
    same = np.tile(x[:1], (3, 1))
    assert (S.tukey_hsd(Pairwise.from_scores(same), 100, seed=0)[0] == 1.0).all()


def test_hsd_is_seeded_and_batch_invariant():
    pw = Pairwise.from_scores(_scores(1, runs=8, queries=15))
    p1, _ = S.tukey_hsd(pw, 400, seed=42)
    p2, _ = S.tukey_hsd(pw, 400, seed=42, batch=13)
    p3, _ = S.tukey_hsd(pw, 400, seed=43)
    np.testing.assert_array_equal(p1, p2)
    assert not np.array_equal(p1, p3)
    with pytest.raises(ValueError, match="permutations"):
        S.tukey_hsd(pw, 0)


def test_hsd_strict_differs_only_on_ties_of_the_maximum():
    rng = np.random.default_rng(1)
    keys = rng.integers(0, 3, (12, 5))
    m = np.sign(keys[:, :, None] - keys[:, None, :]).astype(float)
    pw = Pairwise.from_matrix(m, "sign")
    ge, obs = S.tukey_hsd(pw, 400, seed=3)
    gt, _ = S.tukey_hsd(pw, 400, seed=3, strict=True)
    maxima = np.array([np.abs(np.sign(
        (k := keys[np.arange(12)[:, None], p])[:, :, None] - k[:, None, :]).sum(0)).max()
        for p in _perms(3, 400, 12, 5)]) / 12
    np.testing.assert_allclose(gt, [(maxima > o + 1e-12).mean() for o in obs])
    assert (gt <= ge).all() and (gt < ge).any()


def test_hsd_drops_queries_some_run_lacks():
    x = _scores(2, runs=4, queries=10)
    y = x.copy()
    y[1, 3] = np.nan
    p_nan, _ = S.tukey_hsd(Pairwise.from_scores(y), 200, seed=1)
    p_cut, _ = S.tukey_hsd(Pairwise.from_scores(np.delete(x, 3, axis=1)), 200, seed=1)
    np.testing.assert_array_equal(p_nan, p_cut)


def test_c_extension_is_built():
    """``pip install -e .`` compiles irpref._native.kernels (tests/test_kernels.py compares it
to NumPy).

    The extension is optional for users (a failed build still installs, with
    the NumPy kernels); the test suite insists on it so that CI tests it.
    """
    try:
        import irpref._native.kernels  # noqa: F401
    except ImportError as exc:
        pytest.fail(f"irpref._native.kernels is not built ({exc}); reinstall with a C compiler")


# ------------------------------------------------------------------- bootstrap


def test_bootstrap_matches_loop_and_is_seeded():
    d = np.random.default_rng(0).normal(0.2, 1, (3, 12))
    low, high = S.bootstrap_ci(d, 300, 0.9, seed=5)
    rng = np.random.default_rng(5)
    counts = rng.multinomial(12, np.full(12, 1 / 12), size=300)
    for i in range(3):
        means = [np.repeat(d[i], c).mean() for c in counts]
        assert low[i] == pytest.approx(np.quantile(means, 0.05))
        assert high[i] == pytest.approx(np.quantile(means, 0.95))
    again = S.bootstrap_ci(d, 300, 0.9, seed=5)
    np.testing.assert_array_equal(low, again[0])
    assert (low <= d.mean(1)).all() and (d.mean(1) <= high).all()


# ------------------------------------------------------------ tidy tables, API


def _metric_table(x, measure="M"):
    r, q = x.shape
    return pd.DataFrame({
        "run": np.repeat([f"r{i}" for i in range(r)], q),
        "query": np.tile([f"q{j:02d}" for j in range(q)], r),
        "measure": measure,
        "value": x.ravel(),
    })


def _preference_table(m, measure="P"):
    q, r, _ = m.shape
    a, b = np.triu_indices(r, 1)
    rows = [
        {"run_a": f"r{i}", "run_b": f"r{j}", "query": f"q{k:02d}", "measure": measure,
         "value": m[k, i, j]}
        for i, j in zip(a, b) for k in range(q)
    ]
    return pd.DataFrame(rows)


def test_metric_table_round_trip_and_paired_is_t():
    x = _scores(4, runs=4, queries=9)
    res = S.significance(_metric_table(x), seed=0, bootstrap=50)
    assert list(res.columns) == S.COLUMNS
    assert (res["test"] == "t").all() and len(res) == 6
    ref = sps.ttest_rel(x[0], x[1])
    row = res.iloc[0]
    assert (row.run_a, row.run_b) == ("r0", "r1")
    assert row.p == pytest.approx(ref.pvalue) and row["mean"] == pytest.approx((x[0] - x[1]).mean())
    assert row.p_adjusted == pytest.approx(S.adjust_pvalues(res["p"].to_numpy())[0])


def test_preference_table_sign_kind_uses_sign_test():
    rng = np.random.default_rng(3)
    m = np.triu(rng.integers(-1, 2, (25, 4, 4)), 1).astype(float)
    m = m - m.transpose(0, 2, 1)
    table = _preference_table(m, "sgnX")
    res = S.significance(table, ["paired", "hsd"], seed=1, permutations=200, bootstrap=0)
    assert set(res["test"]) == {"sign", "hsd"}
    sign = res[res["test"] == "sign"].iloc[0]
    w, l = int((m[:, 0, 1] > 0).sum()), int((m[:, 0, 1] < 0).sum())
    assert (sign.wins, sign.losses) == (w, l)
    assert sign.p == pytest.approx(sps.binomtest(w, w + l).pvalue)
    assert sign.effect == pytest.approx(w / (w + l))
    # mirrored orientation gives the same matrix
    flipped = table.rename(columns={"run_a": "run_b", "run_b": "run_a"}).assign(
        value=-table["value"])
    pw1, pw2 = Pairwise.from_preference(table), Pairwise.from_preference(flipped)
    order = pd.Index(pw2.runs).get_indexer(pw1.runs)
    np.testing.assert_array_equal(pw1.matrix, pw2.matrix[:, order][:, :, order])


def test_real_preference_uses_one_sample_t():
    rng = np.random.default_rng(8)
    m = np.triu(rng.normal(0.1, 0.5, (15, 3, 3)), 1)
    m = m - m.transpose(0, 2, 1)
    res = S.significance(_preference_table(m, "rr"), seed=0, bootstrap=0)
    assert (res["test"] == "t").all()
    assert res.iloc[0].p == pytest.approx(sps.ttest_1samp(m[:, 0, 1], 0).pvalue)


def test_bad_inputs_raise_value_errors():
    with pytest.raises(ValueError, match="columns"):
        S.significance(pd.DataFrame({"x": [1]}))
    with pytest.raises(ValueError, match="test"):
        S.significance(_metric_table(_scores(0)), "anova")
    with pytest.raises(ValueError, match="at least 2 runs"):
        Pairwise.from_scores(np.ones((1, 4)))
    dup = _metric_table(_scores(0, runs=2, queries=3))
    with pytest.raises(ValueError, match="duplicate"):
        Pairwise.from_metric(pd.concat([dup, dup.iloc[:1]]))
    with pytest.raises(ValueError, match="sign preference"):
        Pairwise.from_matrix(np.full((2, 2, 2), 0.5), "sign")
    with pytest.raises(ValueError, match="several measures"):
        Pairwise.from_metric(pd.concat([dup, dup.assign(measure="N")]))
