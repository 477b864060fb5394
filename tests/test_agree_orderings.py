"""``irpref agree`` with runs: tau-b, tau_AP (both ways, ties), top-k overlap, swaps
and their significance, orientation from the measure records."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from helpers import QRELS, RUN_NAMES, RUNS, irpref_cli, write_qrels
from hypothesis import given, settings
from hypothesis import strategies as st

import irpref
from irpref.llm_judged.agreement.orderings import swapped_pairs, tau_ap, tau_b, top_overlap


def _tau_ap_no_ties(reference, estimate) -> float:
    """Yilmaz, Aslam & Robertson 2008, Eq. 3, literally (no ties)."""
    order = sorted(range(len(estimate)), key=lambda i: -estimate[i])
    n, total = len(order), 0.0
    for i in range(1, n):
        x = order[i]
        total += sum(reference[y] > reference[x] for y in order[:i]) / i
    return 2.0 / (n - 1) * total - 1.0


def _tie_breaks(scores) -> list[list[float]]:
    """Every strict score vector that keeps the strict order of ``scores``."""
    groups: dict[float, list[int]] = {}
    for i, s in enumerate(scores):
        groups.setdefault(s, []).append(i)
    out = []
    for perms in itertools.product(*(itertools.permutations(g) for g in groups.values())):
        broken = [0.0] * len(scores)
        for perm in perms:
            for k, i in enumerate(perm):
                broken[i] = scores[i] - k * 1e-3
        out.append(broken)
    return out


def test_tau_ap_worked_example_both_directions():
    """A orders s1 > s2 > s3 > s4; B moves s4 to the top: s4 > s1 > s2 > s3.

    B against A as truth: rank 2 (s1): s4 above, not above in A -> 0/1; rank 3
    (s2): s4, s1 above, s1 correct -> 1/2; rank 4 (s3): s4, s1, s2 -> 2/3;
    tau_ap_a = 2/3 (0 + 1/2 + 2/3) - 1 = -2/9.
    A against B as truth: rank 2 (s2): s1 above, correct in B -> 1; rank 3
    (s3): s1, s2 -> 2/2; rank 4 (s4): none of s1, s2, s3 above s4 in B -> 0;
    tau_ap_b = 2/3 (1 + 1 + 0) - 1 = 1/3. Kendall's tau: 3 concordant, 3
    discordant pairs -> 0."""
    a = [4.0, 3.0, 2.0, 1.0]
    b = [3.0, 2.0, 1.0, 4.0]
    assert tau_ap(a, b) == pytest.approx(-2 / 9)
    assert tau_ap(b, a) == pytest.approx(1 / 3)
    assert tau_b(a, b) == pytest.approx(0.0)
    assert tau_ap(a, a) == pytest.approx(1.0)
    assert tau_ap(a, a[::-1]) == pytest.approx(-1.0)


def test_tau_ap_tie_in_reference_worked_example():
    """Reference s1 > s2 = s3, estimate s3 > s2 > s1: rank 2 (s2) has s3 above,
    tied in the reference -> 1/2; rank 3 (s1): s3, s2 above, neither above s1 in
    the reference -> 0; tau_AP = 2/2 (1/2 + 0) - 1 = -1/2, the mean of the two
    tie-breaks of the reference (-1 and 0)."""
    assert tau_ap([3.0, 2.0, 2.0], [1.0, 2.0, 3.0]) == pytest.approx(-0.5)
    assert tau_ap([3.0, 2.0, 2.01], [1.0, 2.0, 3.0]) == pytest.approx(0.0)
    assert tau_ap([3.0, 2.01, 2.0], [1.0, 2.0, 3.0]) == pytest.approx(-1.0)


scores = st.lists(st.integers(0, 3), min_size=2, max_size=6)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_tau_ap_is_the_mean_over_tie_breaks(data):
    x = data.draw(scores)
    y = data.draw(st.lists(st.integers(0, 3), min_size=len(x), max_size=len(x)))
    x, y = [float(v) for v in x], [float(v) for v in y]
    brute = [_tau_ap_no_ties(xb, yb) for xb in _tie_breaks(x) for yb in _tie_breaks(y)]
    assert tau_ap(x, y) == pytest.approx(float(np.mean(brute)), abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_tau_b_equals_scipy(data):
    x = data.draw(st.lists(st.integers(0, 4), min_size=2, max_size=12))
    y = data.draw(st.lists(st.integers(0, 4), min_size=len(x), max_size=len(x)))
    ref = scipy.stats.kendalltau(x, y).statistic
    got = tau_b(x, y)
    assert (math.isnan(got) and math.isnan(ref)) or got == pytest.approx(ref, abs=1e-12)


def test_top_overlap_and_swaps():
    a = [5.0, 4.0, 3.0, 2.0, 1.0]
    b = [5.0, 1.0, 3.0, 4.0, 2.0]
    assert top_overlap(a, b, 2) == pytest.approx(1 / 2)  # {0, 1} vs {0, 3}
    assert top_overlap(a, b, 5) == 1.0
    assert top_overlap(a, [1.0, 1.0, 1.0, 0.0, 0.0], 1) == pytest.approx(1 / 3)  # tie at the cut
    first, second = swapped_pairs(a, b)
    assert sorted(zip(first.tolist(), second.tolist())) == [(1, 2), (1, 3), (1, 4), (2, 3)]


# --------------------------------------------------------------------------- with runs


@pytest.fixture(scope="module")
def noisy_qrels(tmp_path_factory) -> Path:
    """The example qrels with a seeded 30% of the grades redrawn."""
    qrels = irpref.read_qrels(QRELS)
    rng = np.random.default_rng(7)
    grades = qrels.grade.copy()
    flip = rng.random(len(grades)) < 0.3
    grades[flip] = rng.integers(0, 4, int(flip.sum()))
    rows = zip(qrels.query.to_pylist(), qrels.doc.to_pylist(), grades.tolist())
    return write_qrels(tmp_path_factory.mktemp("agree") / "noisy.qrels", rows)


def _tsv(text: str) -> list[list[str]]:
    return [line.split("\t") for line in text.splitlines()]


@pytest.mark.slow
def test_cli_orderings_interface_and_values(noisy_qrels):
    measures = ["AP", "ASL", "sgnLP"]
    out = irpref_cli("agree", QRELS, noisy_qrels, *RUNS, "-m", *measures, "--rel", "2",
                     "--format", "tsv")
    assert out.returncode == 0, out.stderr
    rows = _tsv(out.stdout)
    assert rows[0] == ["measure", "statistic", "value"]
    got = {(m, s): float(v) for m, s, v in rows[1:]}
    for m in measures:
        for s in ("tau_b", "tau_ap_a", "tau_ap_b", "tau_ap", "swaps"):
            assert (m, s) in got
        assert got[(m, "tau_ap")] == pytest.approx((got[(m, "tau_ap_a")] +
                                                    got[(m, "tau_ap_b")]) / 2)
    # the same numbers from the public API, by hand
    ev_a = irpref.summarize(irpref.evaluate(QRELS, RUNS, ["AP", "ASL"], rel=2))
    ev_b = irpref.summarize(irpref.evaluate(noisy_qrels, RUNS, ["AP", "ASL"], rel=2))
    for m, sign in (("AP", 1), ("ASL", -1)):
        assert irpref.parse_measure(m).sign == sign
        va = ev_a[ev_a["measure"] == m].set_index("run")["value"].reindex(RUN_NAMES).to_numpy()
        vb = ev_b[ev_b["measure"] == m].set_index("run")["value"].reindex(RUN_NAMES).to_numpy()
        assert got[(m, "tau_b")] == pytest.approx(scipy.stats.kendalltau(va, vb).statistic)
        assert got[(m, "tau_ap_a")] == pytest.approx(_tau_ap_no_ties(sign * va, sign * vb))
        assert got[(m, "tau_ap_b")] == pytest.approx(_tau_ap_no_ties(sign * vb, sign * va))
        swaps = sum((va[i] - va[j]) * (vb[i] - vb[j]) < 0
                    for i in range(len(va)) for j in range(i + 1, len(va)))
        assert got[(m, "swaps")] == swaps


@pytest.mark.slow
def test_cli_scores_orient_lower_is_better_ascending(noisy_qrels):
    out = irpref_cli("agree", QRELS, noisy_qrels, *RUNS, "-m", "AP", "ASL", "--scores",
                     "--format", "tsv")
    assert out.returncode == 0, out.stderr
    rows = _tsv(out.stdout)
    head = rows[0]
    assert head == ["measure", "run", "value_a", "value_b", "rank_a", "rank_b"]
    for m, best in (("AP", max), ("ASL", min)):
        mine = [r for r in rows[1:] if r[0] == m]
        top = [r for r in mine if r[4] == "1"]
        assert float(top[0][2]) == best(float(r[2]) for r in mine)


@pytest.mark.slow
def test_cli_swaps_are_listed_with_holm_significance(noisy_qrels):
    args = ("agree", QRELS, noisy_qrels, *RUNS, "-m", "P@10", "ASL", "--rel", "2")
    counts = _tsv(irpref_cli(*args, "--format", "tsv").stdout)
    swaps = irpref_cli(*args, "--swaps", "--format", "tsv")
    assert swaps.returncode == 0, swaps.stderr
    rows = _tsv(swaps.stdout)
    head = rows[0]
    assert head[:3] == ["measure", "better_under_a", "better_under_b"]
    assert head[-1] == "significant_under"
    for m in ("P@10", "ASL"):
        n = float(next(r[2] for r in counts if r[0] == m and r[1] == "swaps"))
        assert n == len([r for r in rows[1:] if r[0] == m])
    assert len(rows) > 1, "the seeded noise swaps at least one pair"
    col = {name: i for i, name in enumerate(head)}
    for side, qrels in (("a", QRELS), ("b", noisy_qrels)):
        sig = irpref.significance(irpref.evaluate(qrels, RUNS, ["P@10", "ASL"], rel=2),
                                  "t", correction="holm", bootstrap=0)
        for r in rows[1:]:
            pair = sig[(sig["measure"] == r[0]) & (
                ((sig["run_a"] == r[1]) & (sig["run_b"] == r[2]))
                | ((sig["run_a"] == r[2]) & (sig["run_b"] == r[1])))]
            assert float(r[col[f"p_adjusted_{side}"]]) == pytest.approx(
                float(pair["p_adjusted"].iloc[0]))
    for r in rows[1:]:
        sa = float(r[col["p_adjusted_a"]]) < 0.05
        sb = float(r[col["p_adjusted_b"]]) < 0.05
        assert r[-1] == {(True, True): "both", (True, False): "a", (False, True): "b",
                         (False, False): "neither"}[(sa, sb)]


def test_identical_qrels_agree_perfectly():
    result = irpref.agree(QRELS, QRELS, RUNS, ["nDCG@10", "RPP"])
    stats = result.statistics.set_index("statistic")["value"]
    assert stats["kappa"] == 1.0 and stats["alpha_ordinal"] == 1.0
    orderings = result.orderings
    for s in ("tau_b", "tau_ap_a", "tau_ap_b", "tau_ap", "top_overlap@5"):
        assert (orderings.loc[orderings["statistic"] == s, "value"] == 1.0).all()
    assert (orderings.loc[orderings["statistic"] == "swaps", "value"] == 0).all()
    assert result.swaps.empty


@pytest.mark.slow
@pytest.mark.parametrize("args, message", [
    (["-m", "nope"], "nope"),
    (["-m", "num_ret"], "neither higher nor lower is better"),
    (["--ties", "expected"], "--ties expected: must be one of docid, input"),
])
def test_cli_measure_errors(noisy_qrels, args, message):
    out = irpref_cli("agree", QRELS, noisy_qrels, *RUNS, *args)
    assert out.returncode == 2, out.stderr
    assert message in out.stderr and "Traceback" not in out.stderr
    assert out.stdout == ""


@pytest.mark.slow
def test_cli_readable_and_paper_formats_with_runs(noisy_qrels):
    table = irpref_cli("agree", QRELS, noisy_qrels, *RUNS, "-m", "AP")
    assert table.returncode == 0, table.stderr
    assert "alpha_ordinal" in table.stdout and "tau_ap_a" in table.stdout
    for fmt, needle in (("markdown", "| AP | tau_ap_b |"), ("latex", r"AP & tau\_ap\_b &"),
                        ("json", '"statistic": "tau_ap_b"')):
        out = irpref_cli("agree", QRELS, noisy_qrels, *RUNS, "-m", "AP", "--format", fmt)
        assert out.returncode == 0 and needle in out.stdout, out.stdout


@pytest.mark.slow
def test_cli_judged_at_per_run_and_query(tmp_path):
    """B judges 60% of A's pairs: Judged@10 under each side, per query and per run."""
    qrels = irpref.read_qrels(QRELS)
    keep = np.random.default_rng(3).random(len(qrels.grade)) < 0.6
    rows = [r for r, k in zip(zip(qrels.query.to_pylist(), qrels.doc.to_pylist(),
                                  qrels.grade.tolist()), keep) if k]
    sparse = write_qrels(tmp_path / "sparse.qrels", rows)
    out = irpref_cli("agree", QRELS, sparse, *RUNS, "-m", "AP", "--judged-at", "10",
                     "--format", "tsv")
    assert out.returncode == 0, out.stderr
    table = _tsv(out.stdout)
    assert table[0] == ["run", "query", "judged_a", "judged_b"]
    for side, q in (("a", QRELS), ("b", sparse)):
        ref = irpref.evaluate(q, RUNS, ["Judged@10"])
        means = irpref.summarize(ref).set_index("run")["value"]
        ref = ref.set_index(["run", "query"])["value"]
        col = table[0].index(f"judged_{side}")
        for r in table[1:]:
            if r[1] == "":
                assert float(r[col]) == pytest.approx(means[r[0]])
            elif r[col] not in ("", "nan"):
                assert float(r[col]) == pytest.approx(ref[(r[0], r[1])])
    assert sum(r[1] == "" for r in table[1:]) == len(RUNS)
    readable = irpref_cli("agree", QRELS, sparse, *RUNS, "--judged-at", "10")
    assert readable.returncode == 0 and "judged_b" in readable.stdout
    alone = irpref_cli("agree", QRELS, sparse, "--judged-at", "10")
    assert alone.returncode == 2 and "--judged-at needs RUN files" in alone.stderr
