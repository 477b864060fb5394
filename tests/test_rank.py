"""``irpref rank`` and :func:`irpref.stats.ranks.leaderboard`.

- the Mogstad et al. rank intervals equal a brute-force reading of
  ``irpref significance``'s verdicts under the same --test / --correction where the
  one-sided family decides alike (bonferroni, bh, none, hsd), and are never narrower
  under Holm (the one-sided R(R-1) step-down is stricter; tests/test_rank_verdicts.py);
- the letter display's defining property (two runs share a letter exactly when
  their difference is not significant) over random families (hypothesis);
- orientation from the record: a lower ASL ranks first;
- every output format through the installed command; bad input and options.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from helpers import QRELS, RUNS, irpref_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic_runs import write_collection

from irpref.stats.ranks import letter_display, point_ranks, rank_bounds, run_scores


def _tsv(proc) -> pd.DataFrame:
    assert proc.returncode == 0, proc.stderr
    return pd.read_csv(io.StringIO(proc.stdout), sep="\t", keep_default_na=False)


def _brute_force(sig: pd.DataFrame, measure: str) -> dict[str, tuple[int, int]]:
    """rank_low / rank_high of every run, read from significance's verdict column."""
    rows = sig[sig["measure"] == measure]
    runs = sorted(set(rows["run_a"]) | set(rows["run_b"]))
    above = {r: 0 for r in runs}  # runs significantly better than r
    below = {r: 0 for r in runs}  # runs significantly worse than r
    for a, b, verdict in zip(rows["run_a"], rows["run_b"], rows["verdict"]):
        if verdict == "better":
            above[b] += 1
            below[a] += 1
        elif verdict == "worse":
            above[a] += 1
            below[b] += 1
    return {r: (1 + above[r], len(runs) - below[r]) for r in runs}


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    qrels, runs, _ = write_collection(tmp_path_factory.mktemp("rank"), n_runs=9, n_queries=25,
                                      n_docs=30, seed=3)
    return [str(qrels), *map(str, runs)]


@pytest.mark.slow
@pytest.mark.parametrize("test, correction", [
    ("t", "holm"), ("t", "bonferroni"), ("t", "bh"), ("t", "none"), ("hsd", None),
])
def test_intervals_read_significance_verdicts(collection, test, correction):
    """Bonferroni, BH, none and hsd decide as significance does (the one-sided family of
    R(R-1) gives the same decisions); Holm's one-sided step-down over R(R-1) is stricter
    than the two-sided one over the pairs: never a narrower interval."""
    opts = ["--test", test] + (["--correction", correction] if correction else [])
    opts += ["--permutations", "300", "--seed", "4"] if test == "hsd" else []
    sig = _tsv(irpref_cli("significance", *collection, "-m", "AP", "ASL", *opts,
                          "--format", "tsv"))
    board = _tsv(irpref_cli("rank", *collection, "-m", "AP", "ASL", *opts, "--format", "tsv"))
    assert list(board.columns[:7]) == ["run", "measure", "mean", "rank", "rank_low",
                                       "rank_high", "group"]
    for measure in ("AP", "ASL"):
        expected = _brute_force(sig, measure)
        rows = board[board["measure"] == measure]
        got = {r: (lo, hi) for r, lo, hi in zip(rows["run"], rows["rank_low"], rows["rank_high"])}
        if correction == "holm":
            assert all(got[r][0] <= lo and got[r][1] >= hi for r, (lo, hi) in expected.items())
        else:
            assert got == expected
        assert ((rows["rank_low"] <= rows["rank"]) & (rows["rank"] <= rows["rank_high"])).all()


@pytest.mark.slow
def test_lower_is_better_ranks_first():
    board = _tsv(irpref_cli("rank", QRELS, *RUNS, "-m", "ASL", "AP", "--rel", "2",
                            "--format", "tsv"))
    for measure, ascending in (("ASL", True), ("AP", False)):
        rows = board[board["measure"] == measure]
        assert list(rows["rank"]) == sorted(rows["rank"])
        means = rows["mean"].to_numpy()
        assert (np.diff(means) >= 0).all() if ascending else (np.diff(means) <= 0).all()
        assert rows["rank"].iloc[0] == 1


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 9).flatmap(lambda r: st.tuples(
    st.just(r), st.lists(st.booleans(), min_size=r * r, max_size=r * r))))
def test_letter_display_property(case):
    r, bits = case
    m = np.array(bits, bool).reshape(r, r)
    different = (m | m.T) & ~np.eye(r, dtype=bool)
    groups = letter_display(different)
    assert len(groups) == r and all(g and g.isalpha() for g in groups)
    for i in range(r):
        assert len(set(groups[i])) == len(groups[i])  # a letter at most once per run
        for j in range(r):
            if i != j:
                assert bool(set(groups[i]) & set(groups[j])) == (not different[i, j])


def test_letter_display_chain_and_names():
    # a chain of 4 runs where only neighbours are alike: ab, bc, cd -> letters a b c
    different = np.ones((4, 4), bool)
    for i in range(3):
        different[i, i + 1] = different[i + 1, i] = False
    np.fill_diagonal(different, False)
    assert letter_display(different) == ["a", "ab", "bc", "c"]
    assert letter_display(np.zeros((3, 3), bool)) == ["a", "a", "a"]
    assert letter_display(~np.eye(3, dtype=bool)) == ["a", "b", "c"]
    # many letters stay one character each
    assert all(len(g) == 1 for g in letter_display(~np.eye(120, dtype=bool)))


def test_rank_bounds_and_point_ranks():
    better = np.zeros((3, 3), bool)
    better[0, 2] = True
    low, high = rank_bounds(better)
    assert list(low) == [1, 1, 2] and list(high) == [2, 3, 3]
    assert list(point_ranks(np.array([0.5, 0.5, 0.1, np.nan]), 1)) == [1, 1, 3, 4]
    assert list(point_ranks(np.array([3.0, 1.0, 2.0]), -1)) == [3, 1, 2]


def test_borda_and_mean_order_sign_preferences_alike():
    """For a sign preference from per-query orders the two ranking rules agree."""
    import irpref
    from irpref.stats import as_pairwise

    table = irpref.compare(str(QRELS), [str(p) for p in RUNS], ["sgnLP"], rel=2)
    pw = as_pairwise(table)[0]
    mean = np.nanmean(run_scores(pw, "mean"), 1)
    borda = np.nanmean(run_scores(pw, "borda"), 1)
    assert list(point_ranks(mean, 1)) == list(point_ranks(borda, 1))


@pytest.mark.slow
def test_marginal_bootstrap_is_seeded(collection):
    a = _tsv(irpref_cli("rank", *collection, "-m", "AP", "--bootstrap", "200", "--seed", "5",
                        "--format", "tsv"))
    b = _tsv(irpref_cli("rank", *collection, "-m", "AP", "--bootstrap", "200", "--seed", "5",
                        "--format", "tsv"))
    pd.testing.assert_frame_equal(a, b)
    assert {"marginal_low", "marginal_high", "seed"} <= set(a.columns)
    assert (a["seed"] == 5).all()
    assert ((a["marginal_low"] <= a["marginal_high"]) & (a["marginal_low"] >= 1)).all()


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["table", "tsv", "json", "markdown", "latex", "html"])
def test_every_format(fmt):
    proc = irpref_cli("rank", QRELS, *RUNS, "-m", "AP", "--rel", "2", "--format", fmt)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    if fmt == "json":
        rows = json.loads(out)
        assert {"run", "rank", "rank_low", "rank_high", "group"} <= set(rows[0])
    else:
        assert ("rank_low" in out or r"rank\_low" in out) and "idst" in out


@pytest.mark.slow
def test_fdr_correction_warns_that_intervals_are_not_simultaneous():
    proc = irpref_cli("rank", QRELS, *RUNS, "-m", "AP", "--correction", "bh", "--format", "tsv")
    assert proc.returncode == 0
    assert proc.stderr.count("irpref: warning: --correction bh: the rank intervals are not "
                             "simultaneous") == 1  # the one warning path of every command
    quiet = irpref_cli("rank", QRELS, *RUNS, "-m", "AP", "--correction", "bh", "--format",
                       "tsv", "--quiet")
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout == proc.stdout


@pytest.mark.slow
@pytest.mark.parametrize("args, code, words", [
    (["-m", "AP", "--alpha", "2"], 2, "--alpha 2"),
    (["-m", "AP", "--test", "hsd", "--correction", "holm"], 2, "family-wise"),
    (["-m", "AP", "--test", "ttest"], 2, "--test ttest"),
    (["-m", "NumRet"], 2, "no better direction"),
    (["-m", "AP", "--family", "baseline"], 2, "every pair of the runs"),
    (["-m", "AP", "--test", "sign"], 2, "can cycle"),
    (["-m", "AP", "--test", "wilcoxon"], 2, "signed ranks"),
    (["-m", "nDGC@10"], 2, "unknown measure"),
])
def test_bad_requests(args, code, words):
    proc = irpref_cli("rank", QRELS, *RUNS, *args)
    assert proc.returncode == code, proc.stderr
    assert words in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_file_names_the_line(tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 n/a tag\n")
    proc = irpref_cli("rank", QRELS, RUNS[0], bad, "-m", "AP")
    assert proc.returncode == 1
    assert "bad.run:1" in proc.stderr


def test_rank_interval_figure(tmp_path):
    pytest.importorskip("matplotlib")
    import irpref
    from irpref.report.rank_plots import rank_intervals
    from irpref.stats.ranks import leaderboard

    results = irpref.evaluate(str(QRELS), [str(p) for p in RUNS], ["AP", "ASL"], rel=2)
    board = leaderboard(results, bootstrap=100)
    fig = rank_intervals(board, "ASL")
    data = fig.irpref_data
    assert list(data["rank"]) == sorted(data["rank"]) and len(data) == len(RUNS)
    assert {"marginal_low", "marginal_high"} <= set(data.columns)
    fig.savefig(tmp_path / "ranks.png")
    assert (tmp_path / "ranks.png").stat().st_size > 1000
    with pytest.raises(ValueError, match="several measures"):
        rank_intervals(board)
