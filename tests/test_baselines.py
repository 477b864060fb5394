"""Several baselines: ``irpref.stats.against_baselines`` and ``irpref evaluate --baseline A
--baseline B``; intervals of differences, effect sizes and their intervals, families.

Cross-checked against SciPy (t interval of a paired difference), statsmodels
(``multipletests``) and the ANOVA interval of Sakai's book (tests/data/sakai-book).
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import QRELS, RUN_NAMES, RUNS, irpref_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

import irpref
from irpref import stats as S
from irpref.errors import UsageError
from irpref.report.baseline import baseline_letters, baseline_table, wide_marks
from irpref.report.formats import render
from irpref.report.orientation import direction_note
from irpref.stats import Pairwise, against_baselines

BASES = ["bm25base_p", "TUA1-1"]
SAKAI = Path(__file__).parent / "data" / "sakai-book"
STATSMODELS = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh", "by": "fdr_by"}


@pytest.fixture(scope="module")
def results() -> pd.DataFrame:
    return irpref.evaluate(str(QRELS), [str(p) for p in RUNS], ["AP", "ASL"], rel=2)


@pytest.fixture(scope="module")
def table(results) -> pd.DataFrame:
    return against_baselines(results, BASES, ci="t", confidence=0.9)


def _scores(results, measure) -> pd.DataFrame:
    return results[results.measure == measure].pivot(index="query", columns="run",
                                                      values="value")


# ------------------------------------------------------------- the tidy table


def test_one_row_per_run_measure_baseline(table):
    r = len(RUN_NAMES)
    assert len(table) == 2 * len(BASES) * r
    assert list(table.columns) == S.BASELINE_COLUMNS
    assert list(pd.unique(table.baseline)) == BASES
    own = table[table.run == table.baseline]
    assert len(own) == 2 * len(BASES)  # each baseline's own row, once per measure
    assert own.p.isna().all() and own["diff"].isna().all() and (own.marker == "").all()
    assert own.family.isna().all() and own.significant.eq(False).all()
    # a baseline IS compared with the other baseline
    assert len(table[(table.run == "TUA1-1") & (table.baseline == "bm25base_p")]) == 2


def test_differences_intervals_and_effects_equal_scipy(results, table):
    for measure in ("AP", "ASL"):
        w = _scores(results, measure)
        v_e = S.anova_two_way(w.T.to_numpy()).v_e
        half_es = sps.t.ppf(0.95, (len(RUN_NAMES) - 1) * (len(w) - 1)) * np.sqrt(2 / len(w))
        rows = table[(table.measure == measure) & (table.run != table.baseline)]
        for row in rows.itertuples():
            d = (w[row.run] - w[row.baseline]).to_numpy()
            ref = sps.ttest_rel(w[row.run], w[row.baseline])
            low, high = ref.confidence_interval(0.9)
            assert row.diff == pytest.approx(d.mean(), rel=1e-12)
            assert row.mean == pytest.approx(w[row.run].mean(), rel=1e-12)
            assert (row.diff_low, row.diff_high) == (pytest.approx(low, rel=1e-10),
                                                     pytest.approx(high, rel=1e-10))
            assert row.p == pytest.approx(ref.pvalue, rel=1e-9)
            assert row.effect == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
            assert row.effect_low < row.effect < row.effect_high
            assert row.es_anova == pytest.approx(d.mean() / np.sqrt(v_e), rel=1e-10)
            assert row.es_anova_high - row.es_anova == pytest.approx(half_es, rel=1e-12)
            assert row.es_anova - row.es_anova_low == pytest.approx(half_es, rel=1e-12)


def test_wins_and_marks_follow_the_orientation(results, table):
    w = _scores(results, "ASL")
    rows = table[(table.measure == "ASL") & (table.run != table.baseline)]
    for row in rows.itertuples():
        d = w[row.run] - w[row.baseline]
        assert (row.wins, row.losses, row.ties) == ((d < 0).sum(), (d > 0).sum(), (d == 0).sum())
        want = "" if not row.p_adjusted < 0.05 else ("▲" if row.diff < 0 else "▼")
        assert row.marker == want  # lower ASL is better
    assert (rows.orientation == "lower").all()


def distinct(tested: pd.DataFrame) -> pd.DataFrame:
    """The first row of each hypothesis: baseline A vs B and B vs A are one comparison."""
    pair = [frozenset(p) for p in zip(tested["run"], tested["baseline"])]
    return tested[~pd.Series(list(zip(tested["measure"], pair)), index=tested.index
                             ).duplicated()]


@pytest.mark.slow
@pytest.mark.parametrize("family", ["measure", "baseline", "all"])
@pytest.mark.parametrize("correction", ["holm", "by"])
def test_adjusted_p_equal_statsmodels_per_family(results, family, correction):
    frame = against_baselines(results, BASES, family=family, correction=correction, ci="none")
    tested = distinct(frame[frame.run != frame.baseline])
    keys = {"measure": ["measure"], "baseline": ["measure", "baseline"], "all": []}[family]
    groups = tested.groupby(keys) if keys else [("all", tested)]
    r = len(RUN_NAMES)  # the two baselines' comparison counts once, in the first's family
    sizes = {"measure": [2 * (r - 1) - 1], "baseline": [r - 1, r - 2],
             "all": [2 * (2 * (r - 1) - 1)]}
    for _, group in groups:
        assert len(group) in sizes[family] and (group.family_size == len(group)).all()
        np.testing.assert_allclose(group.p_adjusted,
                                   multipletests(group.p, method=STATSMODELS[correction])[1],
                                   rtol=1e-12)
    assert tested.family.nunique() == len(groups)


def test_one_implementation_with_significance(results):
    """The same seed gives the same paired bootstrap intervals as ``significance``."""
    for ci in ("bootstrap", "bca"):
        ours = against_baselines(results, BASES, ci=ci, bootstrap=300, seed=5, test="sign")
        again = against_baselines(results, BASES, ci=ci, bootstrap=300, seed=5, test="sign")
        pd.testing.assert_frame_equal(ours, again)
        theirs = S.significance(results, "sign", baseline=BASES, ci=ci, bootstrap=300, seed=5)
        ours = ours[ours.run != ours.baseline].reset_index(drop=True)
        np.testing.assert_array_equal(ours.diff_low, theirs.ci_low)
        np.testing.assert_array_equal(ours.diff_high, theirs.ci_high)
        np.testing.assert_array_equal(ours.effect, theirs.effect)  # the win share
        np.testing.assert_array_equal(ours.p_adjusted, theirs.p_adjusted)
        assert (ours.diff_low <= ours["diff"]).all() and (ours["diff"] <= ours.diff_high).all()
    other = against_baselines(results, BASES, ci="bootstrap", bootstrap=300, seed=6)
    assert not np.array_equal(other.diff_low.dropna(), ours.diff_low.dropna())


def test_also_t_is_the_t_interval_beside_a_bootstrap_one(results):
    """``also_t``: one call gives the bootstrap interval (diff_low/diff_high) and the
    t interval (t_low/t_high) that ``ci="t"`` gives; every other column unchanged."""
    both = against_baselines(results, BASES, ci="bootstrap", bootstrap=200, seed=3, also_t=True)
    boot = against_baselines(results, BASES, ci="bootstrap", bootstrap=200, seed=3)
    t = against_baselines(results, BASES, ci="t")
    assert list(both.columns) == [*S.BASELINE_COLUMNS, "t_low", "t_high"]
    pd.testing.assert_frame_equal(both[S.BASELINE_COLUMNS], boot)
    np.testing.assert_array_equal(both.t_low, t.diff_low)
    np.testing.assert_array_equal(both.t_high, t.diff_high)
    assert both.t_low.notna().sum() == both.diff_low.notna().sum() > 0
    assert not np.array_equal(both.t_low.dropna(), both.diff_low.dropna())


def test_one_table_names_the_families():
    """evaluate's and significance's legends read one FAMILY_TEXT (the report states its
    own rule: every pair of runs, tests/test_report_verdicts.py)."""
    import irpref.cli.baseline_view as view
    import irpref.cli.significance as sig
    from irpref.stats.families import FAMILIES, FAMILY_TEXT

    assert set(FAMILY_TEXT) == set(FAMILIES)
    assert view.FAMILY_TEXT is sig.FAMILY_TEXT is FAMILY_TEXT


@pytest.fixture(scope="module")
def disjoint(tmp_path_factory):
    """A and B share no query (no test can be computed), B and C tie on every shared
    query, A is below C on each of its queries: (qrels, run paths, AP results)."""
    from helpers import write_trec

    from irpref.errors import MissingQueries

    qrels = {f"q{i}": {"d1": 1, "d2": 0, "d3": 2} for i in range(1, 7)}
    runs = {"A": {f"q{i}": {"d1": 3, "d2": 2, "d3": 1} for i in range(1, 4)},
            "B": {f"q{i}": {"d3": 3, "d1": 2} for i in range(4, 7)},
            "C": {f"q{i}": {"d3": 3, "d1": 2, "d2": 1} for i in range(1, 7)}}
    q, paths = write_trec(tmp_path_factory.mktemp("disjoint"), qrels, runs)
    with pytest.warns(MissingQueries):
        return q, paths, irpref.evaluate(str(q), [str(p) for p in paths], ["AP"])


@pytest.mark.parametrize("test", ["t", "sign", "wilcoxon"])
def test_untestable_comparison_has_nan_p_and_no_mark(disjoint, test):
    """NaN p (no paired query) stays out of the family and never marks; all ties: p = 1."""
    _, _, results = disjoint
    sig = S.significance(results, test, ci="none").set_index(["run_a", "run_b"])
    assert sig.loc[("A", "B"), "n"] == 0 and sig.loc[("A", "B"), ["statistic", "p",
                                                                   "p_adjusted"]].isna().all()
    assert sig.loc[("B", "C"), "p"] == 1.0 and (sig["family_size"] == 2).all()
    table = against_baselines(results, "A", test=test, alpha=0.99).set_index("run")
    assert table.loc["B", "paired"] == 0 and np.isnan(table.loc["B", "p"])
    assert not table.loc["B", "significant"] and table.loc["B", "marker"] == ""
    assert table.loc["C", "marker"] == "▲"  # a computed p below alpha does mark
    marks = wide_marks(table.reset_index())
    assert marks.loc["B", "AP"] == "" and marks.loc["C", "AP"] == "▲"


def test_untestable_comparison_in_the_evaluate_views(disjoint):
    from irpref.cli.main import main as cli_main

    q, paths, _ = disjoint
    for fmt in ("json", "table"):
        out = io.StringIO()
        with redirect_stdout(out):  # the CLI prints the missing-query warnings to stderr
            assert cli_main(["evaluate", str(q), *map(str, paths), "-m", "AP", "--baseline",
                             "A", "--test", "sign", "--alpha", "0.99", "--format", fmt]) == 0
        if fmt == "json":
            rows = {r["run"]: r for r in json.loads(out.getvalue())}
            assert rows["B"]["p"] is None and rows["B"]["marker"] == ""
            assert rows["C"]["marker"] == "▲"
        else:
            line = next(t for t in out.getvalue().splitlines() if t.split()[:1] == ["B"])
            assert "▲" not in line and "▼" not in line and line.split()[-1] == "0/0/0"


def test_single_baseline_view_is_the_same_numbers(results):
    one = baseline_table(results, "bm25base_p", test="wilcoxon", correction="by")
    full = against_baselines(results, "bm25base_p", test="wilcoxon", correction="by", ci="none")
    pd.testing.assert_frame_equal(one, full[one.columns])
    assert list(one.columns) == ["run", "measure", "n", "paired", "mean", "diff", "wins",
                                 "losses", "ties", "p", "p_adjusted", "significant", "marker"]


def test_bad_requests(results):
    with pytest.raises(UsageError, match="TUA1-1"):
        against_baselines(results, ["bm25base_p", "nope"])
    for kwargs, match in [({"test": "hsd"}, "test must be one of"),
                          ({"family": "run"}, "family must be one of"),
                          ({"correction": "fdr"}, "correction must be one of"),
                          ({"ci": "bootstrap", "bootstrap": 0}, "needs --bootstrap"),
                          ({"alpha": 0}, "alpha=0: must be in"),
                          ({"confidence": 2}, "confidence=2: must be in")]:
        with pytest.raises(UsageError, match=match):
            against_baselines(results, BASES, **kwargs)
    with pytest.raises(UsageError, match="no baseline"):
        against_baselines(results, [])


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(st.lists(st.lists(st.floats(0, 1, width=16), min_size=4, max_size=4),
                min_size=3, max_size=5), st.sampled_from(["holm", "bh", "bonferroni"]))
def test_brute_force_diffs_and_family(rows, correction):
    runs = [f"r{i}" for i in range(len(rows))]
    frame = pd.DataFrame([{"run": r, "query": f"q{j}", "measure": "AP", "value": v}
                          for r, vals in zip(runs, rows) for j, v in enumerate(vals)])
    out = against_baselines(frame, ["r1", "r0"], correction=correction, ci="none")
    tested = distinct(out[out.run != out.baseline])
    for row in tested.itertuples():
        d = np.array(rows[runs.index(row.run)]) - np.array(rows[runs.index(row.baseline)])
        assert row.diff == pytest.approx(d.mean(), abs=1e-12)
        assert (row.wins, row.losses) == ((d > 0).sum(), (d < 0).sum())
    np.testing.assert_allclose(tested.p_adjusted,
                               multipletests(tested.p, method=STATSMODELS[correction])[1],
                               rtol=1e-12)


# ----------------------------------------------------------------- ES_E interval


def test_es_e_interval_is_the_anova_interval_of_the_book_over_sqrt_v_e():
    """Sakai 2018 Ch. 5: after the ANOVA, diff +- t(df_E) sqrt(2 V_E / n); over sqrt(V_E)."""
    x = np.vstack([pd.read_csv(SAKAI / f"{s}.csv")["ndcg@5"].to_numpy() for s in "XYZ"])
    rows = S.pair_tests(Pairwise.from_scores(x, runs=list("XYZ"), measure="nDCG@5"), "t",
                        ci="none")
    table = S.anova_two_way(x)
    moe = sps.t.ppf(0.975, 38) * np.sqrt(2 * table.v_e / 20)
    for row, (i, j) in zip(rows.itertuples(), [(0, 1), (0, 2), (1, 2)]):
        diff = x[i].mean() - x[j].mean()
        assert row.es_anova_low == pytest.approx((diff - moe) / np.sqrt(table.v_e), rel=1e-12)
        assert row.es_anova_high == pytest.approx((diff + moe) / np.sqrt(table.v_e), rel=1e-12)
    assert round(rows.es_anova.iloc[0], 3) == 0.507  # the book's X-Y


# ------------------------------------------------------------ cleanups of stats


def test_anova_once_per_measure(results, monkeypatch):
    import irpref.stats.pairwise as P

    calls = []
    real = P.anova_two_way
    monkeypatch.setattr(P, "anova_two_way", lambda s: calls.append(1) or real(s))
    S.significance(results, ["t", "tukey", "sign"], ci="none")
    assert len(calls) == 2  # AP and ASL, not once per test


def test_p_adjusted_computed_once(results, monkeypatch):
    import irpref.stats.families as F

    calls = []
    real = F.adjust_pvalues
    monkeypatch.setattr(F, "adjust_pvalues", lambda p, m: calls.append(len(p)) or real(p, m))
    S.significance(results, "t", ci="none", family="all")
    assert calls == [2 * len(RUN_NAMES) * (len(RUN_NAMES) - 1) // 2]


def test_preference_orientation_from_its_record(monkeypatch):
    from irpref.preferences import registry

    m = np.zeros((3, 2, 2))
    assert Pairwise.from_matrix(m, "sign", measure="sgnLP").orientation == "higher"
    monkeypatch.setitem(registry.PREFERENCES, "sgnLP",
                        replace(registry.PREFERENCES["sgnLP"], orientation="lower"))
    pw = Pairwise.from_matrix(m, "sign", measure="sgnLP")
    assert pw.orientation == "lower" and pw.sign == -1
    assert Pairwise.from_matrix(m, "real", measure="unknown").orientation == "higher"


def test_direction_note():
    assert direction_note(["AP", "nDCG@10"]) == ""
    assert direction_note(["AP", "ASL", "num_ret", "ASL"]) == (
        "lower is better for ASL; num_ret: no better direction, no mark")


# ------------------------------------------------------------------ marks


def test_lettered_marks_and_latex(table):
    assert baseline_letters(BASES) == {"bm25base_p": "a", "TUA1-1": "b"}
    marks = wide_marks(table)
    ap = table[table.measure == "AP"].set_index(["run", "baseline"]).marker
    want = ("▲ᵃ" if ap[("bm25tuned_rm3_p", "bm25base_p")] == "▲" else "") + (
        "▼ᵇ" if ap[("bm25tuned_rm3_p", "TUA1-1")] == "▼" else "")
    assert marks.at["bm25tuned_rm3_p", "AP"] == want == "▲ᵃ▼ᵇ"
    values = pd.DataFrame({"AP": [0.5]}, index=pd.Index(["r"], name="run"))
    latex = render(values, "latex", pd.DataFrame({"AP": ["▲ᵃ▼ᵇ"]}, index=values.index),
                   bold_best=False)
    assert r"0.5000$^{\uparrow\mathrm{a}\downarrow\mathrm{b}}$" in latex
    with pytest.raises(UsageError, match="at most 25"):
        baseline_letters([f"r{i}" for i in range(26)])


# ------------------------------------------------------------------- CLI


def _tsv(proc) -> pd.DataFrame:
    assert proc.returncode == 0, proc.stderr
    return pd.read_csv(io.StringIO(proc.stdout), sep="\t", keep_default_na=False,
                       na_values=[""])


@pytest.mark.slow
def test_cli_several_baselines_tsv_equals_library(results):
    args = ["evaluate", QRELS, *RUNS, "-m", "AP", "ASL", "--rel", "2", "--format", "tsv",
            "--correction", "by", "--family", "all", "--ci", "bootstrap", "--bootstrap", "200",
            "--seed", "4"]
    got = _tsv(irpref_cli(*args, "--baseline", "bm25base_p,TUA1-1"))
    want = against_baselines(results, BASES, correction="by", family="all", ci="bootstrap",
                             bootstrap=200, seed=4)
    assert list(got.columns) == [*S.BASELINE_COLUMNS, "ci_low", "ci_high"]
    assert list(got.run) == list(want.run) and list(got.baseline) == list(want.baseline)
    for col in ("diff", "diff_low", "diff_high", "effect", "es_anova_low", "p_adjusted"):
        np.testing.assert_array_equal(got[col].to_numpy(float), want[col].to_numpy(float))
    assert list(got.marker.fillna("")) == list(want.marker)


@pytest.mark.slow
def test_cli_table_letters_and_legend():
    proc = irpref_cli("evaluate", QRELS, *RUNS, "-m", "AP", "ASL", "--rel", "2",
                      "--baseline", "bm25base_p", "--baseline", "TUA1-1", "--ci")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "bm25base_p (a)" in out and "TUA1-1 (b)" in out and "▲ᵃ▼ᵇ" in out
    assert "baselines a = bm25base_p, b = TUA1-1" in out and "lower is better for ASL" in out
    assert "95% CI (t) of run - TUA1-1:" in out


@pytest.mark.slow
def test_cli_json_and_bad_values():
    proc = irpref_cli("evaluate", QRELS, *RUNS[:3], "-m", "AP", "--baseline", RUN_NAMES[0],
                      "--effects", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert len(rows) == 3 and rows[0]["p"] is None and rows[1]["family"] == "AP"
    for extra, needle in [(["--family", "bogus"], "--family"),
                          (["--baseline", "nope"], "'nope' is not one of the runs")]:
        proc = irpref_cli("evaluate", QRELS, *RUNS[:2], "-m", "AP", "--baseline",
                          RUN_NAMES[0], *extra)
        assert proc.returncode == 2 and needle in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_effects_and_family_need_a_baseline():
    from argparse import Namespace

    from irpref.cli.baseline_view import wanted

    base = dict(baseline=None, ci=None, format="table", effects=False, family=None)
    assert not wanted(Namespace(**base))
    with pytest.raises(UsageError, match="--effects needs --baseline"):
        wanted(Namespace(**{**base, "effects": True}))
    with pytest.raises(UsageError, match="--family all needs --baseline"):
        wanted(Namespace(**{**base, "family": "all"}))
    assert wanted(Namespace(**{**base, "baseline": [["a"]], "effects": True}))


def test_untestable_pair_is_called_untested_not_ns(disjoint):
    """irpref significance's verdict for a pair no test could score is
    'untested' (a tested pair that is not significant stays 'n.s.')."""
    from irpref.cli.significance import verdicts

    _, _, results = disjoint
    sig = S.significance(results, "sign", ci="none")
    sig["significant"] = sig["p_adjusted"] < 0.05
    sig["verdict"] = verdicts(sig)
    by_pair = sig.set_index(["run_a", "run_b"])["verdict"]
    assert by_pair[("A", "B")] == "untested"
    assert by_pair[("B", "C")] == "n.s."
