"""Verdicts and ranks that follow the test.

- a verdict's direction is its test's statistic: Wilcoxon by its signed ranks, not
  the mean (the two-run case of the issue, through the installed command; every
  view: significance, evaluate --baseline marks, the significance matrix);
- ``rank`` refuses the sign and Wilcoxon tests (their verdicts can cycle), and
  every run's rank lies in its interval;
- equal means tie: the same per-query values in another query order (P@10 =
  199/540 for 8 runs), and different values with equal rational sums, in rank,
  mean column, TSV, JSON and evaluate's means;
- the intervals are the one-sided R(R-1) family (Mogstad et al. 2024) under each
  correction, against a brute force with SciPy's one-sided t tests and
  statsmodels' corrections; ``--family all``, Parquet, rank-group ranges;
- a hypothesis property test over random families for every test and correction
  ``rank`` accepts: rank in interval, rejections in the direction of the test's
  statistic, equal means tie (and the significance verdicts of every test).
"""

from __future__ import annotations

import io
import json
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from helpers import QRELS, RUNS, irpref_cli, write_qrels, write_run
from hypothesis import given, settings
from hypothesis import strategies as st

from irpref.stats import Pairwise, significance
from irpref.stats.directions import row_directions
from irpref.stats.letters import group_ranges
from irpref.stats.rank_family import rank_rejections, rejection_matrix
from irpref.stats.ranks import leaderboard, rank_tables


def _tsv(proc) -> pd.DataFrame:
    assert proc.returncode == 0, proc.stderr
    return pd.read_csv(io.StringIO(proc.stdout), sep="\t", keep_default_na=False,
                       dtype={"mean": str})


# --------------------------------------------------------------- the two-run case

@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """RR: A finds the relevant document at rank 2 on 25 queries and at rank 100 on 5;
    B at rank 3 and at rank 1. A - B: +1/6 on 25 queries, -0.99 on 5: the mean favours
    B (-0.026), the signed ranks favour A (W+ 325, W- 140, rank-biserial +0.398)."""
    tmp = tmp_path_factory.mktemp("two")
    queries = [f"q{i:02d}" for i in range(30)]
    qrels = write_qrels(tmp / "qrels.txt", [(q, "rel", 1) for q in queries])

    def ranking(q, at):
        docs = [f"n{k}" for k in range(at - 1)] + ["rel"]
        return [(q, d, 1000.0 - k) for k, d in enumerate(docs)]

    a_rows, b_rows = [], []
    for i, q in enumerate(queries):
        a_rows += ranking(q, 2 if i < 25 else 100)
        b_rows += ranking(q, 3 if i < 25 else 1)
    a = write_run(tmp / "A.run", a_rows, tag="A")
    b = write_run(tmp / "B.run", b_rows, tag="B")
    return str(qrels), str(a), str(b)


@pytest.mark.slow
def test_wilcoxon_verdict_follows_the_signed_ranks(two_runs):
    from scipy.stats import wilcoxon

    qrels, a, b = two_runs
    rows = _tsv(irpref_cli("significance", qrels, a, b, "-m", "RR", "--test", "wilcoxon",
                           "t", "--correction", "none", "--format", "tsv"))
    w = rows[rows["test"] == "wilcoxon"].iloc[0]
    assert (w["run_a"], w["run_b"]) == ("A", "B")
    assert float(w["mean"]) < 0 and w["effect"] == pytest.approx(185 / 465)  # +0.398
    d = np.array([1 / 6] * 25 + [-0.99] * 5)
    one_sided = wilcoxon(d, alternative="greater", correction=False, method="approx").pvalue
    assert w["p"] / 2 == pytest.approx(one_sided, rel=1e-9)
    assert round(one_sided, 3) == 0.020
    assert w["verdict"] == "better"  # was "worse": the mean's direction
    assert rows[rows["test"] == "t"].iloc[0]["verdict"] == "n.s."


@pytest.mark.slow
def test_wilcoxon_marks_follow_the_signed_ranks_in_every_view(two_runs):
    qrels, a, b = two_runs
    table = _tsv(irpref_cli("evaluate", qrels, a, b, "-m", "RR", "--baseline", "B", "--test",
                            "wilcoxon", "--correction", "none", "--format", "tsv"))
    assert table.set_index("run").loc["A", "marker"] == "▲"
    import irpref
    from irpref.report.run_plots import significance_data

    sig = irpref.significance(qrels=qrels, runs=[a, b], measures=["RR"], test="wilcoxon",
                              correction="none")
    matrix = significance_data(sig, "RR")
    assert matrix.loc["A", "B"] == 1 and matrix.loc["B", "A"] == -1


@pytest.mark.slow
def test_sign_test_verdict_and_rank_refusal(two_runs):
    qrels, a, b = two_runs
    rows = _tsv(irpref_cli("significance", qrels, a, b, "-m", "RR", "--test", "sign",
                           "--format", "tsv"))
    assert rows.iloc[0]["verdict"] == "better" and rows.iloc[0]["wins"] == 25
    for test in ("sign", "wilcoxon"):
        proc = irpref_cli("rank", qrels, a, b, "-m", "RR", "--test", test)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert "can cycle" in proc.stderr and "--test t" in proc.stderr
    board = _tsv(irpref_cli("rank", qrels, a, b, "-m", "RR", "--format", "tsv"))
    by_run = board.set_index("run")
    assert (by_run.loc["B", "rank"], by_run.loc["A", "rank"]) == (1, 2)  # B's mean is higher
    assert ((board["rank_low"] <= board["rank"]) & (board["rank"] <= board["rank_high"])).all()


# --------------------------------------------------------------- exact ties

def _hits_run(path, tag, hits, queries):
    """A run retrieving 10 documents per query, ``hits[q]`` of them relevant (P@10 = k/10)."""
    rows = []
    for q, k in zip(queries, hits):
        docs = [f"r{j}" for j in range(k)] + [f"n{j}" for j in range(10 - k)]
        rows += [(q, d, 100.0 - j) for j, d in enumerate(docs)]
    return str(write_run(path, rows, tag=tag))


@pytest.fixture(scope="module")
def permuted(tmp_path_factory):
    """8 runs with the same 54 per-query P@10 values (sum 199/10, mean 199/540) in other
    query orders (np.mean: three different doubles, ranks 6 6 2 2 6 2 2 1), and two runs
    whose P@10 differ on two queries, 0.0 + 0.3 against 0.1 + 0.2 (0 elsewhere: means
    0.005555555555555556 and 0.005555555555555557 even when summed exactly)."""
    tmp = tmp_path_factory.mktemp("ties")
    rng = np.random.default_rng(0)
    k = rng.integers(0, 11, 54)
    while k.sum() != 199:
        i = rng.integers(54)
        if k.sum() > 199 and k[i] > 0:
            k[i] -= 1
        elif k.sum() < 199 and k[i] < 10:
            k[i] += 1
    orders = [k] + [rng.permutation(k) for _ in range(7)]
    queries = [f"q{i:02d}" for i in range(54)]
    qrels = write_qrels(tmp / "qrels.txt",
                        [(q, f"r{j}", 1) for q in queries for j in range(10)])
    runs = [_hits_run(tmp / f"p{i}.run", f"p{i}", o, queries) for i, o in enumerate(orders)]
    assert len({np.mean(o / 10) for o in orders}) > 1  # float summation order differs
    x = np.array([0, 3] + [0] * 52)
    y = np.array([1, 2] + [0] * 52)
    means = {math.fsum((v / 10).tolist()) / 54 for v in (x, y)}
    assert len(means) == 2  # equal rationals, different doubles even summed exactly
    pair = [_hits_run(tmp / f"{n}.run", n, v, queries) for n, v in (("x", x), ("y", y))]
    return str(qrels), runs, pair


@pytest.mark.slow
def test_permuted_values_tie_in_every_view(permuted):
    qrels, runs, _ = permuted
    board = _tsv(irpref_cli("rank", qrels, *runs, "-m", "P@10", "--format", "tsv"))
    assert list(board["rank"]) == [1] * 8  # was 1, 2, 2, 2, 2, 6, 6, 6
    assert board["mean"].nunique() == 1  # one double, the same in every view
    assert float(board["mean"].iloc[0]) == pytest.approx(199 / 540, abs=1e-15)
    assert (board["rank_low"] == 1).all() and (board["rank_high"] == 8).all()
    rows = json.loads(irpref_cli("rank", qrels, *runs, "-m", "P@10", "--format", "json").stdout)
    assert len({r["mean"] for r in rows}) == 1 and {r["rank"] for r in rows} == {1}
    means = pd.read_csv(io.StringIO(irpref_cli("evaluate", qrels, *runs, "-m", "P@10",
                                               "--format", "tsv").stdout), sep="\t", dtype=str)
    assert len(means) == 8 and set(means["value"]) == set(board["mean"])


@pytest.mark.slow
def test_equal_rational_sums_tie(permuted):
    qrels, _, (x, y) = permuted
    board = _tsv(irpref_cli("rank", qrels, x, y, "-m", "P@10", "--format", "tsv"))
    assert list(board["rank"]) == [1, 1] and board["mean"].nunique() == 1


# --------------------------------------------------------------- the one-sided family

def _one_sided(sig: pd.DataFrame, measure: str):
    """The R(R-1) one-sided hypotheses of a measure: runs, (j, k) pairs, and their p-values
    by SciPy's one-sided paired t (or hsd's family-wise p in the direction observed, 1
    against it)."""
    from scipy.stats import ttest_rel

    rows = sig[sig["measure"] == measure]
    runs = sorted(set(rows["run_a"]) | set(rows["run_b"]))
    index = {r: i for i, r in enumerate(runs)}
    lower = rows["orientation"].iloc[0] == "lower"
    hyps, ps = [], []
    for a, b, p, test, per_a, per_b in zip(rows["run_a"], rows["run_b"], rows["p"],
                                           rows["test"], rows["_a"], rows["_b"]):
        for j, k, x, y in ((a, b, per_a, per_b), (b, a, per_b, per_a)):
            hyps.append((index[j], index[k]))
            if test == "t":
                ps.append(ttest_rel(x, y, alternative="less" if lower else "greater").pvalue)
            else:
                up = (np.mean(x) - np.mean(y)) * (-1 if lower else 1) > 0
                ps.append(p if up else 1.0)
    return runs, hyps, np.array(ps)


def _reject(ps: np.ndarray, alpha: float, correction: str) -> np.ndarray:
    """statsmodels' correction (none: each pair's two-sided test, one-sided at alpha/2)."""
    from statsmodels.stats.multitest import multipletests

    if correction == "none":
        return ps < alpha / 2
    if correction == "hsd":
        return ps < alpha
    method = {"bh": "fdr_bh", "by": "fdr_by"}.get(correction, correction)
    return multipletests(ps, alpha, method)[0]


def _bounds(runs, hyps, reject) -> dict:
    better = np.zeros((len(runs), len(runs)), bool)
    for (j, k), r in zip(hyps, reject):
        better[j, k] |= bool(r)
    return {r: (1 + better[:, i].sum(), len(runs) - better[i].sum())
            for i, r in enumerate(runs)}


def _with_scores(tests: pd.DataFrame, tables) -> pd.DataFrame:
    """The tests with each pair's per-query scores (``_a``, ``_b``)."""
    scores = {pw.measure: pw for pw in rank_tables(tables)}
    names = {m: list(map(str, pw.runs)) for m, pw in scores.items()}
    tests = tests.copy()
    for side, col in (("_a", "run_a"), ("_b", "run_b")):
        tests[side] = [scores[m].scores[names[m].index(r)]
                       for m, r in zip(tests["measure"], tests[col])]
    return tests


def _got(board: pd.DataFrame, measure: str) -> dict:
    rows = board[board["measure"] == measure]
    return {r: (lo, hi) for r, lo, hi in zip(rows["run"], rows["rank_low"], rows["rank_high"])}


@pytest.fixture(scope="module")
def dl19_tables():
    import irpref

    return irpref.evaluate(str(QRELS), [str(p) for p in RUNS], ["AP", "ASL"], rel=2)


@pytest.mark.parametrize("test, correction", [
    ("t", "holm"), ("t", "bonferroni"), ("t", "bh"), ("t", "by"), ("t", "none"), ("hsd", "none"),
])
def test_intervals_are_the_one_sided_family(dl19_tables, test, correction):
    board = leaderboard(dl19_tables, test, correction=correction, permutations=500, seed=3)
    tests = _with_scores(significance(rank_tables(dl19_tables), test, correction=correction,
                                      ci="none", bootstrap=0, permutations=500, seed=3),
                         dl19_tables)
    key = "hsd" if test == "hsd" else correction
    for measure in ("AP", "ASL"):
        runs, hyps, ps = _one_sided(tests, measure)
        assert _got(board, measure) == _bounds(runs, hyps, _reject(ps, 0.05, key)), measure
    assert set(board["simultaneous"]) == {correction in ("holm", "bonferroni") or test == "hsd"}


def test_family_all_is_one_correction_over_every_measure(dl19_tables):
    board = leaderboard(dl19_tables, "t", correction="holm", family="all", alpha=0.2)
    tests = _with_scores(significance(rank_tables(dl19_tables), "t", ci="none", bootstrap=0),
                         dl19_tables)
    parts = {m: _one_sided(tests, m) for m in ("AP", "ASL")}
    reject = _reject(np.concatenate([ps for _, _, ps in parts.values()]), 0.2, "holm")
    at = 0
    for measure, (runs, hyps, ps) in parts.items():
        assert _got(board, measure) == _bounds(runs, hyps, reject[at:at + len(ps)]), measure
        at += len(ps)
    alone = leaderboard(dl19_tables, "t", correction="holm", alpha=0.2)
    assert (board["rank_low"] <= alone["rank_low"]).all()  # a larger family: never narrower
    assert (board["rank_high"] >= alone["rank_high"]).all()
    assert set(board["family"]) == {"all"}


def test_holm_is_stricter_than_two_sided_holm_and_bonferroni_equal(dl19_tables):
    """Rank rejections are a subset of significance's (same test and correction, same
    direction); Bonferroni's coincide."""
    for correction in ("holm", "bonferroni", "bh", "by", "none"):
        tests = significance(dl19_tables, "t", correction=correction, ci="none", bootstrap=0)
        rank = rank_rejections(tests, 0.05, correction)
        two = tests["p_adjusted"].to_numpy() < 0.05
        assert not (rank & ~two).any()
        if correction in ("bonferroni", "bh", "none"):
            assert (rank == two).all(), correction


# --------------------------------------------------------------- CLI: family, formats, groups

@pytest.mark.slow
def test_family_all_parquet_and_columns(tmp_path):
    out = tmp_path / "board.parquet"
    proc = irpref_cli("rank", QRELS, *RUNS, "-m", "AP", "nDCG@10", "--rel", "2", "--family",
                      "all", "--format", "parquet", "-o", out)
    assert proc.returncode == 0, proc.stderr
    board = pd.read_parquet(out)
    assert {"test", "correction", "family", "alpha", "simultaneous"} <= set(board.columns)
    assert set(board["family"]) == {"all"} and board["simultaneous"].all()
    tsv = _tsv(irpref_cli("rank", QRELS, *RUNS, "-m", "AP", "nDCG@10", "--rel", "2",
                          "--family", "all", "--format", "tsv"))
    assert list(tsv["rank_low"]) == list(board["rank_low"])
    table = irpref_cli("rank", QRELS, *RUNS, "-m", "AP", "--rel", "2", "--correction", "bh",
                       "--quiet")
    assert "simultaneous: no" in table.stdout and "false discovery rate" in table.stdout
    for args, words in ((["--family", "baseline"], "every pair"),
                        (["--family", "all", "--test", "hsd"], "within each measure")):
        proc = irpref_cli("rank", QRELS, *RUNS, "-m", "AP", *args)
        assert proc.returncode == 2 and words in proc.stderr, proc.stderr


def test_auto_groups_switch_to_ranges_past_76_letters():
    rng = np.random.default_rng(1)
    scores = np.arange(90, dtype=float)[:, None] + rng.normal(0, 0.01, (90, 20))
    board = leaderboard(Pairwise.from_scores(scores, measure="x"))
    assert board.attrs["groups"] == "ranges"
    assert list(board["group"][:3]) == ["1", "2", "3"]  # every pair differs
    letters = leaderboard(Pairwise.from_scores(scores, measure="x"), groups="letters")
    assert any(len(g) == 1 and ord(g) >= 0x4E00 for g in letters["group"])


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 9).flatmap(lambda r: st.tuples(
    st.just(r), st.lists(st.booleans(), min_size=r * r, max_size=r * r),
    st.permutations(range(r)))))
def test_group_ranges_property(case):
    r, bits, order = case
    m = np.array(bits, bool).reshape(r, r)
    different = (m | m.T) & ~np.eye(r, dtype=bool)
    groups = group_ranges(different, order)
    row = {run: i + 1 for i, run in enumerate(order)}

    def rows(text):
        out = set()
        for part in text.split(","):
            lo, _, hi = part.partition("-")
            out |= set(range(int(lo), int(hi or lo) + 1))
        return out

    for i in range(r):
        assert row[i] in rows(groups[i])
        for j in range(r):
            assert (row[j] in rows(groups[i])) == (i == j or not different[i, j])



# --------------------------------------------------------------- property test

GRID = st.integers(0, 10)


def _family(draw_values, r, q, missing):
    values = np.array(draw_values, dtype=float).reshape(r, q) / 10
    if missing:
        values[0, 0] = np.nan  # a run lacking a query: paired tests and means read apart
    return values


@st.composite
def families(draw):
    r = draw(st.integers(2, 6))
    q = draw(st.integers(2, 9))
    values = draw(st.lists(GRID, min_size=r * q, max_size=r * q))
    if draw(st.booleans()) and r > 2:  # force ties: a permuted copy of run 0
        perm = draw(st.permutations(range(q)))
        values[q:2 * q] = [values[p] for p in perm]
    return r, q, values, draw(st.booleans()), draw(st.sampled_from(["higher", "lower"]))


def _exact_means(values: np.ndarray) -> list[Fraction | None]:
    out = []
    for row in values:
        kept = [Fraction(round(v * 10), 10) for v in row if not np.isnan(v)]
        out.append(sum(kept) / len(kept) if kept else None)
    return out


RANK_CASES = [("t", c) for c in ("holm", "bonferroni", "bh", "by", "none")] + [
    ("hsd", "none"), ("tukey", "none")]


@pytest.mark.slow
@pytest.mark.parametrize("test, correction", RANK_CASES)
@settings(max_examples=40, deadline=None)
@given(case=families(), alpha=st.sampled_from([0.05, 0.2, 0.5]))
def test_rank_properties(test, correction, case, alpha):
    r, q, values, missing, orientation = case
    x = _family(values, r, q, missing)
    pw = Pairwise("x", "metric", np.array([f"r{i}" for i in range(r)], dtype=object),
                  np.array([f"q{i}" for i in range(q)], dtype=object), scores=x,
                  orientation_=orientation)
    board = leaderboard(pw, test, correction=correction, alpha=alpha, permutations=40)
    by_run = board.set_index("run")
    assert ((board["rank_low"] <= board["rank"]) & (board["rank"] <= board["rank_high"])).all()
    exact = _exact_means(x)
    sign = 1 if orientation == "higher" else -1
    for i in range(r):
        for j in range(r):
            a, b = by_run.loc[f"r{i}"], by_run.loc[f"r{j}"]
            if exact[i] == exact[j]:
                assert a["rank"] == b["rank"] and a["mean"] == b["mean"]
            elif sign * (exact[i] - exact[j]) > 0:
                assert a["rank"] < b["rank"]
    tests = significance(pw, test, correction=correction, ci="none", bootstrap=0,
                         permutations=40)
    rejected = rank_rejections(tests, alpha, correction)
    better = rejection_matrix(tests, rejected, pw.runs)
    for i, j in zip(*np.nonzero(better)):
        d = x[i] - x[j]
        d = d[~np.isnan(d)]
        if test == "t":
            assert sign * d.mean() > 0  # the t statistic's direction
        else:
            both = ~np.isnan(x).any(0)
            assert sign * (x[i, both].mean() - x[j, both].mean()) > 0


def _brute_direction(test: str, d: np.ndarray, k: np.ndarray, sign: int) -> int:
    """The direction of ``test``'s statistic on the per-query differences: ``d`` as
    doubles (what the test ranks), ``k`` exactly (tenths, as integers)."""
    from scipy.stats import rankdata

    if test == "sign":
        return int(np.sign(sign * ((k > 0).sum() - (k < 0).sum())))
    if test == "wilcoxon":
        nz = d[d != 0]
        ranks = rankdata(np.abs(nz))
        return int(np.sign(sign * (ranks[nz > 0].sum() - ranks[nz < 0].sum())))
    return int(np.sign(sign * k.sum()))  # the mean difference, exactly


@pytest.mark.slow
@pytest.mark.parametrize("test", ["t", "sign", "wilcoxon", "hsd", "tukey"])
@settings(max_examples=40, deadline=None)
@given(case=families())
def test_significance_verdicts_follow_the_statistic(test, case):
    from irpref.cli.significance import verdicts

    r, q, values, _, orientation = case
    x = _family(values, r, q, False)
    k = np.array(values).reshape(r, q)
    pw = Pairwise("x", "metric", np.array([f"r{i}" for i in range(r)], dtype=object),
                  np.array([f"q{i}" for i in range(q)], dtype=object), scores=x,
                  orientation_=orientation)
    rows = significance(pw, test, correction="none", ci="none", bootstrap=0, permutations=40)
    rows["significant"] = rows["p_adjusted"] < 0.5
    rows["verdict"] = verdicts(rows)
    sign = 1 if orientation == "higher" else -1
    index = {f"r{i}": i for i in range(r)}
    for a, b, verdict, direction in zip(rows["run_a"], rows["run_b"], rows["verdict"],
                                        row_directions(rows)):
        i, j = index[a], index[b]
        want = _brute_direction(test, x[i] - x[j], k[i] - k[j], sign)
        if test in ("sign", "wilcoxon"):
            assert direction == want  # every row, significant or not
        if verdict in ("better", "worse"):
            assert want != 0 and (verdict == "better") == (want > 0)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(st.integers(3, 6).flatmap(lambda r: st.tuples(
    st.just(r), st.integers(2, 8), st.randoms(use_true_random=False))))
def test_preference_ranks_lie_in_their_intervals(case):
    r, q, rnd = case
    keys = np.array([[rnd.randint(0, 3) for _ in range(r)] for _ in range(q)], float)
    m = np.sign(keys[:, :, None] - keys[:, None, :])  # a sign preference from per-query keys
    pw = Pairwise.from_matrix(m, "sign", measure="pref")
    for test, correction in (("t", "holm"), ("t", "none"), ("hsd", "none")):
        board = leaderboard(pw, test, correction=correction, alpha=0.3, permutations=30)
        assert ((board["rank_low"] <= board["rank"])
                & (board["rank"] <= board["rank_high"])).all()
        means = board.set_index("run")["mean"]
        for a in means.index:
            for b in means.index:
                if means[a] == means[b]:
                    assert board.set_index("run").loc[a, "rank"] == board.set_index(
                        "run").loc[b, "rank"]


def test_bad_rank_option_values_are_one_line_refusals():
    for args, words in ((["--groups", "bogus"], "--groups bogus: must be one of auto, letters"),
                        (["--family", "bogus"], "--family"),
                        (["--alpha", "1.5"], "--alpha")):
        proc = irpref_cli("rank", QRELS, *RUNS, "-m", "AP", *args)
        assert proc.returncode == 2 and words in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr and proc.stdout == ""
