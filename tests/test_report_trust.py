"""``irpref report``'s trust sections: several baselines, "How sure are we" (the rows
of ``irpref significance``, the topic-set-size verdict of ``irpref design``), "How
much was judged" (``irpref ties --coverage``) and the agreement with a second
qrels (``irpref agree``); their options and refusals."""

from __future__ import annotations

import gzip
import io
import json
import re
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest
from helpers import QRELS, RUNS, irpref_cli, write_qrels, write_trec

import irpref
from irpref.cli.main import main as cli_main

pytest.importorskip("matplotlib")

# one worker builds the module's report once (xdist --dist loadgroup)
pytestmark = pytest.mark.xdist_group("report")

THREE = [str(p) for p in RUNS[:3]]  # TUA1-1, UNH_bm25, bm25base_p
BASELINES = ["UNH_bm25", "bm25base_p"]
NUMBERS = ["mean", "ci_low", "ci_high", "effect", "effect_low", "effect_high", "es_anova",
           "p", "p_adjusted", "family_size"]


def _cli(*args) -> str:
    """``irpref ARGS`` in this process (stdout), for the numbers-equal tests."""
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main([str(a) for a in args]) == 0
    return out.getvalue()


def _tsv(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text), sep="\t", dtype={"family": str})


@pytest.fixture(scope="module")
def results():
    return irpref.evaluate(QRELS, THREE, ["AP", "ASL"], rel=2)


def perturbed_qrels(path):
    """The example qrels with some grades moved and some pairs dropped (deterministic)."""
    opener = gzip.open if str(QRELS).endswith(".gz") else open
    with opener(QRELS, "rt") as fh:
        rows = [(f[0], f[2], int(f[3])) for f in (line.split() for line in fh) if f]
    out = []
    for i, (q, d, g) in enumerate(rows):
        if i % 11 == 0:
            continue
        g = max(0, g - 1) if i % 5 == 0 else min(3, g + 1) if i % 7 == 0 else g
        out.append((q, d, g))
    return write_qrels(path, out)


# ------------------------------------------------------------ How sure are we: numbers


def comparisons(results, baselines=BASELINES, **options):
    """The report's comparison rows of ``results`` (AP and ASL of THREE) under ``options``."""
    from irpref.params import Settings
    from irpref.report.context import Population, ReportContext, ReportOptions
    from irpref.report.trust import comparison_rows
    from irpref.report.verdicts import test_pairs

    o = ReportOptions(**options)
    ctx = ReportContext(
        settings=Settings(rel=2), options=o, qrels=QRELS, runs=THREE, judged=None,
        saved=False, results=results, prefs=None, measures=list(pd.unique(results["measure"])),
        preferences=[], names=list(pd.unique(results["run"])), baselines=list(baselines),
        labels={}, population=Population(43),
        verdicts=test_pairs([results], correction=o.correction, family=o.family, alpha=o.alpha))
    return comparison_rows(ctx)


@pytest.mark.parametrize("correction, family, confidence", [
    ("holm", "measure", 0.95), ("bonferroni", "all", 0.9), ("by", "all", 0.99)])
def test_rows_equal_irpref_significance(results, correction, family, confidence):
    """p, p_adjusted, family_size: ``irpref significance`` over every pair (the report's one
    family); the unadjusted interval: ``irpref significance --baseline --confidence``."""
    sure = comparisons(results, correction=correction, family=family, confidence=confidence)
    assert len(sure) == 2 * 2 * 2  # measures x baselines x other runs
    assert (sure["run"] != sure["baseline"]).all()
    every = _tsv(_cli("significance", QRELS, *THREE, "-m", "AP", "ASL", "--rel", "2",
                      "--correction", correction, "--family", family, "--format", "tsv"))
    key = {(m, frozenset((a, b))): i for i, (m, a, b) in
           enumerate(zip(every["measure"], every["run_a"], every["run_b"]))}
    at = [key[(m, frozenset((r, b)))] for m, r, b in
          zip(sure["measure"], sure["run"], sure["baseline"])]
    for col in ("p", "p_adjusted", "family_size"):
        np.testing.assert_allclose(sure[col].to_numpy(np.float64),
                                   every[col].to_numpy(np.float64)[at], rtol=1e-12)
    assert (every["family_size"] == (3 if family == "measure" else 6)).all()
    sig = _tsv(_cli("significance", QRELS, *THREE, "-m", "AP", "ASL", "--rel", "2",
                    "--baseline", ",".join(BASELINES), "--confidence", confidence,
                    "--format", "tsv")).rename(columns={"run_a": "run", "run_b": "baseline"})
    for col in ["measure", "run", "baseline"]:
        assert sig[col].astype(str).tolist() == sure[col].astype(str).tolist()
    for mine, theirs in [("unadjusted_low", "ci_low"), ("unadjusted_high", "ci_high"),
                         ("diff", "mean"), ("effect", "effect"), ("es_anova", "es_anova")]:
        np.testing.assert_allclose(sure[mine].to_numpy(np.float64),
                                   sig[theirs].to_numpy(np.float64), rtol=1e-12, atol=0)


def test_bootstrap_interval_equals_significance_ci_bootstrap(results):
    sure = comparisons(results, bootstrap=150, seed=7)
    text = _cli("significance", QRELS, *THREE, "-m", "AP", "ASL", "--rel", "2",
                "--baseline", BASELINES[0], "--baseline", BASELINES[1], "--ci", "bootstrap",
                "--bootstrap", "150", "--seed", "7", "--format", "tsv")
    sig = _tsv(text)
    np.testing.assert_array_equal(sure["bootstrap_unadjusted_low"].to_numpy(),
                                  sig["ci_low"].to_numpy())
    np.testing.assert_array_equal(sure["bootstrap_unadjusted_high"].to_numpy(),
                                  sig["ci_high"].to_numpy())
    assert not np.array_equal(sure["bootstrap_unadjusted_low"].to_numpy(),
                              sure["unadjusted_low"].to_numpy())


def test_verdicts_follow_the_record_orientation(results):
    sure = comparisons(results)
    sig = sure[sure["significant"]]
    assert len(sig) >= 2
    for rec in sig.itertuples(index=False):
        better = (rec.diff > 0) if rec.measure == "AP" else (rec.diff < 0)  # ASL: lower
        assert rec.verdict == ("better" if better else "worse")
        assert rec.marker == ("▲" if better else "▼")
    assert (sure.loc[~sure["significant"], "marker"] == "").all()
    assert set(sure.loc[~sure["significant"], "verdict"]) <= {"n.s."}


def test_topic_verdict_equals_irpref_design(results):
    from irpref.report.trust import topic_verdicts

    verdicts = topic_verdicts(results, 0.05, 0.2).set_index("measure")
    assert (verdicts["topics"] == 43).all()
    text = _cli("design", "--alpha", "0.05", "--beta", "0.2", "--min-diff", "0.05",
                QRELS, *THREE, "-m", "AP", "--rel", "2", "--format", "tsv")
    design = _tsv(text).set_index("design")["value"].astype(float)
    assert design["V_E"] == pytest.approx(verdicts.loc["AP", "V_E"], rel=1e-12)
    assert design["min-diff"] == pytest.approx(verdicts.loc["AP", "min_diff"], rel=1e-9)


def test_power_stays_a_number_for_large_differences():
    from irpref.topic_sets import paired_t_power

    power = paired_t_power(43, np.array([0.5, 1.357, 3.0]))  # noncentrality up to 19.7
    assert np.isfinite(power).all() and power[1] == pytest.approx(1.0) and power[2] == 1.0


def test_verdict_sentence_words():
    from irpref.report.trust import topic_verdicts, verdict_sentence

    # the example collection's six runs (AP, grade >= 2; README): V_E 0.0164, d_min 0.079
    six = irpref.evaluate(QRELS, [str(p) for p in RUNS], ["AP"], rel=2)
    row = next(topic_verdicts(six).itertuples(index=False))
    assert round(row.V_E, 4) == 0.0164 and round(row.min_diff, 3) == 0.079
    text = verdict_sentence(row, ["a vs b"], 4, "every judged topic")
    assert text.startswith("With 43 topics (every judged topic), differences below 0.0791 in "
                           "AP cannot be detected reliably (power 0.8 at alpha 0.05")
    assert "1 of the 4 observed differences against the baselines are smaller: a vs b." in text


# ------------------------------------------------------------ coverage


def small():
    qrels = {"q1": {"a": 1, "b": 0, "c": 1, "z": 1}, "q2": {"x": 2, "y": -1}}
    runs = {
        "r1": {"q1": {"a": 3.0, "u1": 2.0, "b": 1.0, "u2": 0.5}, "q2": {"x": 3.0, "y": 2.0}},
        "r2": {"q1": {"u3": 3.0, "u4": 2.0}, "q2": {"w": 1.0}},
    }
    return qrels, runs


def brute_coverage(qrels, runs, k):
    """Per (run, query): Judged@k (any grade in the qrels, / min(k, n)), unjudged docs."""
    out = {}
    for name, run in runs.items():
        for q, docs in run.items():
            ranked = sorted(docs, key=lambda d: (-docs[d], [-ord(c) for c in d]))
            judged = [d in qrels[q] for d in ranked]
            out[name, q] = (sum(judged[:k]) / min(k, len(ranked)), len(ranked) - sum(judged),
                            len(ranked))
    return out


def test_coverage_against_brute_force():
    from irpref.meta.ties import ties_report

    qrels, runs = small()
    rep = ties_report(qrels, runs, ["AP"], judged_at=(1, 3))
    cov = rep.coverage
    assert cov.depth == 4 and cov.cutoffs == (1, 3)
    per_query = cov.per_query.set_index(["run", "query"])
    for k in (1, 3):
        for key, (judged, unjudged, n) in brute_coverage(qrels, runs, k).items():
            assert per_query.loc[key, f"Judged@{k}"] == pytest.approx(judged)
            assert per_query.loc[key, "unjudged"] == unjudged
            assert per_query.loc[key, "retrieved"] == n
            assert per_query.loc[key, "unjudged_rate"] == pytest.approx(unjudged / n)
    per_run = cov.per_run.set_index("run")
    assert per_run.loc["r1", ["retrieved", "unjudged"]].tolist() == [6, 2]
    assert per_run.loc["r2", "unjudged_rate"] == 1.0
    assert per_run.loc["r1", "Judged@1"] == 1.0 and per_run.loc["r2", "Judged@1"] == 0.0
    tidy = rep.tidy()
    assert ((tidy["run"] == "r1") & (tidy["statistic"] == "unjudged")).sum() == 1


@pytest.mark.slow
def test_ties_coverage_cli(tmp_path):
    qrels, runs = small()
    qpath, paths = write_trec(tmp_path, qrels, runs)
    proc = irpref_cli("ties", qpath, *paths, "--coverage", "--per-query", "--judged-at", "1",
                      "3", "--format", "tsv")
    assert proc.returncode == 0, proc.stderr
    rows = [line.split("\t") for line in proc.stdout.splitlines()]
    assert rows[0] == ["run", "query", "retrieved", "Judged@1", "Judged@3", "unjudged",
                       "unjudged_rate"]
    assert ["r2", "q1", "2", "0", "0", "2", "1"] in rows
    out = _cli("ties", qpath, *paths, "--format", "json")
    coverage = {r["run"]: r for r in json.loads(out)["coverage"]}
    assert coverage["r1"]["unjudged"] == 2 and coverage["r1"]["Judged@10"] == 0.75  # (2/4 + 1) / 2
    table = _cli("ties", qpath, *paths)
    assert "Judged documents per run" in table and "unjudged_rate" in table
    bad = irpref_cli("ties", qpath, *paths, "--judged-at", "0")
    assert bad.returncode == 2 and "--judged-at 0: must be >= 1" in bad.stderr
    assert "Traceback" not in bad.stderr


# ------------------------------------------------------------ the report itself


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    from irpref.report import ReportOptions, build_report
    from irpref.report.document import render_html, write_markdown

    tmp = tmp_path_factory.mktemp("trust")
    qrels_b = perturbed_qrels(tmp / "llm.qrels")
    rep = build_report(QRELS, THREE, ["AP", "ASL", "NumRet"], baseline=BASELINES, rel=2,
                       options=ReportOptions(bootstrap=100, seed=3), qrels_b=qrels_b)
    md = tmp / "r.md"
    write_markdown(rep, md)
    return rep, md.read_text(encoding="utf-8"), render_html(rep), qrels_b


@pytest.mark.slow
def test_report_sections_and_baselines(report):
    rep, md, html, _ = report
    titles = [s.title for s in rep.sections]
    for title in ("Summary against the baselines", "How sure are we", "How much was judged",
                  "Agreement between the two judgments"):
        assert title in titles
        assert f"<h2>{title}</h2>" in html and f"## {title}" in md
    assert rep.baselines == BASELINES
    assert "baselines **UNH_bm25**, **bm25base_p**" in md
    assert "a = UNH_bm25, b = bm25base_p" in md
    rows = {r: re.search(rf"^\| {r} \| (.*) \|$", md, re.M).group(1).split(" | ")
            for r in ("TUA1-1", "UNH_bm25", "bm25base_p")}
    assert "(baseline a)" in rows["UNH_bm25"][0] and "(baseline b)" in rows["bm25base_p"][0]
    # the two baselines' comparison is one verdict, marked on both rows, each its own way
    assert rows["UNH_bm25"][0].endswith("▼b") and rows["bm25base_p"][0].endswith("▲a")
    # TUA1-1 beats both baselines on AP and on ASL (lower is better); NumRet has no mark
    assert rows["TUA1-1"][0].endswith("▲a ▲b") and rows["TUA1-1"][1].endswith("▲a ▲b")
    assert "▲" not in rows["TUA1-1"][2] and "▼" not in rows["TUA1-1"][2]


@pytest.mark.slow
def test_report_numbers_are_the_library_numbers(report, results):
    from irpref.report.trust import topic_verdicts

    rep, md, _, _ = report
    sure = comparisons(results, bootstrap=100, seed=3)
    section = next(s for s in rep.sections if s.id == "how-sure")
    shown = next(b for b in section.blocks if b.title.startswith("All ")).children[0].table
    assert "NumRet" not in set(shown["measure"])  # no better direction: not tested
    assert "power" not in shown.columns  # post-hoc power is not shown (Hoenig & Heisey)
    for col in ["p", "p_adjusted", "diff", "unadjusted_low", "unadjusted_high",
                "bootstrap_unadjusted_low", "bootstrap_unadjusted_high", "adjusted_low",
                "adjusted_high", "effect", "es_anova"]:
        np.testing.assert_allclose(shown[col].to_numpy(np.float64),
                                   sure[col].to_numpy(np.float64), rtol=1e-12)
    # printed to 4 significant digits, as every report table
    row = sure.iloc[0]
    assert f"| {row['measure']} | {row['run']} | {row['baseline']} | 43 | {row['diff']:.4g} |" \
        in md
    d_min = topic_verdicts(results).set_index("measure").loc["AP", "min_diff"]
    assert f"With 43 topics (every judged topic: every run has each), differences below " \
           f"{d_min:.3g} in AP cannot be detected reliably (power 0.8 at alpha 0.05" in md
    below = shown["below_min_diff"].to_numpy(bool)
    mins = topic_verdicts(results).set_index("measure")["min_diff"]
    assert (below == (shown["diff"].abs() < shown["measure"].map(mins)).to_numpy()).all()
    assert "p adjusted by Holm over the 3 run pairs of each measure" in md
    assert "runs x baselines" not in md  # one family: the report's pairs
    assert "100 resamples, seed 3" in md


def test_report_coverage_and_agreement_are_the_library_tables(report):
    from irpref.evaluate import judge_inputs
    from irpref.llm_judged.agreement import agree
    from irpref.meta.ties import coverage

    rep, md, _, qrels_b = report
    judged = next(s for s in rep.sections if s.id == "judged")
    cov = coverage(judge_inputs(QRELS, THREE, rel=2), (10, 100))
    pd.testing.assert_frame_equal(judged.blocks[0].table, cov.per_run)
    assert judged.blocks[0].table.columns.tolist() == [
        "run", "queries", "retrieved", "Judged@10", "Judged@100", "unjudged", "unjudged_rate"]
    ag = next(s for s in rep.sections if s.id == "agreement")
    ref = agree(QRELS, qrels_b, THREE, ["AP", "ASL"], rel=2, judged_at=10)
    stats = ag.blocks[0].table
    assert stats["statistic"].tolist() == ref.statistics["statistic"].tolist()
    kappa = ref.statistics.set_index("statistic").loc["kappa", "value"]
    assert f"| kappa |  | {kappa:.4g} |" in md
    orders = ag.blocks[1].table.set_index("measure")
    assert list(orders.index) == ["AP", "ASL"]  # NumRet orders no systems
    want = ref.orderings.set_index(["measure", "statistic"])["value"]
    for m in ("AP", "ASL"):
        for stat in ("tau_b", "tau_ap_a", "tau_ap", "swaps"):
            assert orders.loc[m, stat] == pytest.approx(want[(m, stat)])
    assert "verdict_a" in md or "No run pair changes order." in md


# ------------------------------------------------------------ options through the command


@pytest.mark.slow
@pytest.mark.parametrize("args, code, message", [
    (["--correction", "nope"], 2, "--correction nope: must be one of holm"),
    (["--family", "runs"], 2, "--family runs: must be one of measure"),
    (["--confidence", "1.5"], 2, "--confidence 1.5: must be in (0, 1)"),
    (["--bootstrap", "-1"], 2, "--bootstrap -1: must be >= 0"),
    (["--seed", "-3"], 2, "--seed -3: must be >= 0"),
    (["--beta", "0"], 2, "--beta 0: must be in (0, 1)"),
    (["--family", "baseline"], 2, "--family baseline: a report tests every pair of runs"),
    (["--qrels-b", "MISSING"], 1, "MISSING"),
    (["--qrels-b", "BAD"], 1, "BAD:2:"),
])
def test_report_refusals(tmp_path, args, code, message):
    bad = tmp_path / "bad.qrels"
    bad.write_text("q1 0 d1 1\nq1 0 d2 x\n")
    subst = {"MISSING": str(tmp_path / "missing.qrels"), "BAD": str(bad)}
    args = [subst.get(a, a) for a in args]
    message = message.replace("MISSING", subst["MISSING"]).replace("BAD", subst["BAD"])
    proc = irpref_cli("report", QRELS, *THREE[:2], *args, "-o", tmp_path / "r.html")
    assert proc.returncode == code, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "r.html").exists()


@pytest.mark.slow
def test_qrels_b_refused_with_saved_judgments(tmp_path):
    saved = tmp_path / "j.parquet"
    assert irpref_cli("judge", QRELS, *THREE[:2], "-o", saved).returncode == 0
    proc = irpref_cli("report", saved, "--qrels-b", QRELS, "-o", tmp_path / "r.html")
    assert proc.returncode == 2 and "--qrels-b needs QRELS RUN..." in proc.stderr
