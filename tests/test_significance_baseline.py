"""``irpref significance --baseline/--compact`` and ``--format markdown|latex|html`` for every
table command, via the library and the installed ``irpref`` command."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import irpref_cli

import irpref
from irpref import examples
from irpref.errors import UsageError
from irpref.report.formats import FORMATS, render_frame
from irpref.report.records import natural_key, natural_sorted, sort_queries
from irpref.stats import against_baseline

QRELS = str(examples.qrels_path())
RUNS = [str(p) for p in examples.run_paths()]


@pytest.fixture(scope="module")
def results():
    return irpref.evaluate(QRELS, RUNS, ["AP", "P@10"], rel=2)


def test_baseline_rows_are_the_oriented_pairs(results):
    full = irpref.significance(results, ["t", "sign", "wilcoxon"], bootstrap=200, seed=3,
                               correction="none")
    base = irpref.significance(results, ["t", "sign", "wilcoxon"], bootstrap=200, seed=3,
                               correction="holm", baseline="TUA1-1")
    runs = list(pd.unique(results["run"]))
    assert len(base) == 2 * 3 * (len(runs) - 1)
    assert (base["run_b"] == "TUA1-1").all()
    means = results.groupby(["run", "measure"])["value"].mean()
    for row in base.itertuples():
        assert row.mean == pytest.approx(means[(row.run_a, row.measure)]
                                         - means[("TUA1-1", row.measure)])
        d = (results[(results.run == row.run_a) & (results.measure == row.measure)]
             .set_index("query")["value"]
             - results[(results.run == "TUA1-1") & (results.measure == row.measure)]
             .set_index("query")["value"])
        assert (row.wins, row.losses, row.ties) == ((d > 0).sum(), (d < 0).sum(), (d == 0).sum())
        assert row.ci_low <= row.mean <= row.ci_high
        same = full[(full.measure == row.measure) & (full.test == row.test)
                    & (((full.run_a == row.run_a) & (full.run_b == "TUA1-1"))
                       | ((full.run_b == row.run_a) & (full.run_a == "TUA1-1")))]
        assert row.p == pytest.approx(same["p"].iloc[0])
    for _, group in base.groupby(["measure", "test"]):
        np.testing.assert_allclose(group["p_adjusted"],
                                   irpref.adjust_pvalues(group["p"].to_numpy(), "holm"))


def test_unknown_baseline_names_the_runs(results):
    with pytest.raises(UsageError, match="TUA1-1"):
        against_baseline(irpref.significance(results, bootstrap=0, seed=1), "nope")


@pytest.mark.slow
def test_cli_baseline_compact_table():
    r = irpref_cli("significance", QRELS, *RUNS, "--rel", "2", "-m", "AP", "--baseline", "TUA1-1",
            "--seed", "1")
    assert r.returncode == 0, r.stderr
    assert "significant" in r.stdout.splitlines()[0]
    assert "mean (a - b)" in r.stdout
    assert "mean = run_a - run_b (run_b = baseline TUA1-1)" in r.stdout
    body = r.stdout.splitlines()[1:6]
    assert all(line.split()[3] == "TUA1-1" for line in body)


@pytest.mark.slow
def test_cli_baseline_tsv_full_columns():
    r = irpref_cli("significance", QRELS, *RUNS, "--rel", "2", "-m", "AP", "--baseline", "TUA1-1",
            "--seed", "1", "--format", "tsv", "--bootstrap", "0")
    assert r.returncode == 0, r.stderr
    header = r.stdout.splitlines()[0].split("\t")
    assert "p_adjusted" in header and "significant" in header and len(r.stdout.splitlines()) == 6


def test_cli_unknown_baseline_exit_2():
    r = irpref_cli("significance", QRELS, *RUNS, "-m", "AP", "--baseline", "nope", "--seed", "1")
    assert r.returncode == 2
    assert r.stdout == ""
    errors = [line for line in r.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and "TUA1-1" in errors[0]


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    ["evaluate", "-m", "AP"], ["compare", "-m", "sgnLP"],
    ["significance", "-m", "AP", "--seed", "1", "--bootstrap", "0"],
    ["ties", "-m", "AP"],
])
@pytest.mark.parametrize("fmt,needle", [("markdown", "|---|"), ("latex", r"\toprule"),
                                        ("html", "<table>")])
def test_every_table_command_has_paper_formats(command, fmt, needle):
    r = irpref_cli(command[0], QRELS, *RUNS, "--rel", "2", *command[1:], "--format", fmt)
    assert r.returncode == 0, r.stderr
    assert needle in r.stdout
    if fmt == "latex":
        assert r"\bottomrule" in r.stdout and "UNH\\_bm25" in r.stdout


@pytest.mark.slow
def test_bad_format_refused_in_one_line():
    for command in ("evaluate", "compare", "significance", "ties"):
        r = irpref_cli(command, QRELS, *RUNS, "--format", "docx")
        assert r.returncode == 2
        assert sum("error" in line for line in r.stderr.splitlines()) == 1


def test_formats_in_one_place():
    assert FORMATS == ("table", "tsv", "json", "markdown", "latex", "html")
    import irpref.cli.baseline_view as bv

    assert not hasattr(bv, "add_format_choices")
    assert "action.choices" not in Path(bv.__file__).read_text()


@pytest.mark.slow
def test_latex_best_bold_and_superscript_markers():
    r = irpref_cli("evaluate", QRELS, *RUNS, "--rel", "2", "-m", "AP", "--baseline", "TUA1-1",
            "--format", "latex")
    assert r.returncode == 0, r.stderr
    assert r"\textbf{" in r.stdout and r"$^{\downarrow}$" in r.stdout


def test_render_frame_duplicate_labels_and_pvalues():
    frame = pd.DataFrame({"measure": ["AP", "AP"], "run_a": ["a_1", "b"], "p": [1e-8, 0.5],
                          "n": [3, 4], "significant": [True, False]})
    md = render_frame(frame, "markdown")
    assert "| AP | a_1 | 1e-08 | 3 | yes |" in md and "| AP | b | 0.5 | 4 | no |" in md
    assert r"a\_1" in render_frame(frame, "latex")


def test_natural_sort():
    ids = ["106_10", "106_2", "all", "10", "9", "106_1"]
    assert natural_sorted(ids) == ["9", "10", "106_1", "106_2", "106_10", "all"]
    assert natural_key(None) > natural_key("zzz")
    frame = pd.DataFrame({"query": ["q10", None, "q2", "q10"], "v": [1, 2, 3, 4]})
    assert list(sort_queries(frame)["v"]) == [3, 1, 4, 2]


def test_summarize_wide(results):
    table = irpref.summarize(results, wide=True)
    tidy = irpref.summarize(results)
    assert list(table.columns) == ["AP", "P@10"]
    assert list(table.index) == list(pd.unique(results["run"]))
    for row in tidy.itertuples():
        assert table.at[row.run, row.measure] == row.value


@pytest.mark.slow
def test_per_query_rows_in_natural_order(tmp_path):
    qids = ["106_10", "106_2", "9", "10"]
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 d1 1\n" for q in qids))
    run = tmp_path / "r1"
    run.write_text("".join(f"{q} Q0 d{i} {i} {5 - i} r1\n" for q in qids for i in (1, 2)))
    for command in (["evaluate", "-m", "AP", "--per-query"],
                    ["ties", "-m", "AP", "--per-query"]):
        r = irpref_cli(command[0], str(qrels), str(run), *command[1:], "--format", "tsv")
        assert r.returncode == 0, r.stderr
        seen = [line.split("\t")[1] for line in r.stdout.splitlines()[1:]]
        seen = [q for q in seen if q]
        assert seen == sorted(seen, key=natural_key)
        assert seen[0] == "9" and seen.index("106_2") < seen.index("106_10")


@pytest.mark.slow
def test_meta_tables_in_paper_formats():
    r = irpref_cli("meta", "ties", QRELS, *RUNS, "--rel", "2", "-m", "RR", "sgnLP",
                   "--format", "latex")
    assert r.returncode == 0, r.stderr
    assert r"\toprule" in r.stdout and "sgnLP" in r.stdout and r"percent\_tied" in r.stdout
