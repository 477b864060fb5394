"""Intent-aware baselines inside the meta experiments (RPP section 5.5,
Tables 2b-4b): MAP-IA, ERR-IA@20, S-recall@20 and ST-RPP on the TREC 2013 Web
track diversity qrels (``tests/data/web-diversity``) with seeded synthetic
runs over the judged documents (there are no real web runs here). The meta
values must be those ``irpref evaluate/compare --subtopics`` give."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import irpref_cli, write_runs
from scipy import stats

import irpref
from irpref.errors import UsageError
from irpref.evaluate import judge_inputs
from irpref.io.subtopics import collapse, read_subtopic_qrels
from irpref.meta.comparisons import agreement, tie_rates
from irpref.meta.degradation import (
    _relevant_index,
    degrade,
    degraded_grades,
    degraded_subtopics,
)
from irpref.meta.pairwise import pairwise
from irpref.meta.subsampling import subsample

WEB = Path(__file__).parent / "data" / "web-diversity" / "qrels.web.201-250.ndeval.txt.gz"
METRICS = ["MAP-IA", "ERR-IA@20", "S-recall@20"]
MEASURES = ["ST-RPP", *METRICS]


@pytest.fixture(scope="module")
def sub():
    return read_subtopic_qrels(WEB)


def synthetic_runs(sub, n_runs: int = 4, depth: int = 30, seed: int = 3) -> dict:
    """Seeded runs: per topic, ``depth`` documents drawn from the judged ones
    (relevant ones favoured unevenly per run) and a few unjudged; run 0 lacks
    one topic."""
    table = pd.DataFrame({"q": sub.query.to_pylist(), "d": sub.doc.to_pylist(),
                          "g": sub.grade})
    best = table.groupby(["q", "d"])["g"].max().reset_index()
    rng = np.random.default_rng(seed)
    runs = {}
    for r in range(n_runs):
        run = {}
        for q, group in best.groupby("q"):
            if r == 0 and q == "210":
                continue
            docs = list(group["d"]) + [f"unjudged-{i}" for i in range(5)]
            weight = 1.0 + (r + 1) * np.r_[group["g"].to_numpy() > 0, np.zeros(5)]
            k = min(depth, len(docs))
            picked = rng.choice(len(docs), size=k, replace=False, p=weight / weight.sum())
            run[q] = {docs[i]: float(k - j) for j, i in enumerate(picked)}
        runs[f"s{r}"] = run
    return runs


@pytest.fixture(scope="module")
def runs(sub):
    return synthetic_runs(sub)


def _reference_differences(runs, measure):
    """(run pair, query) -> a - b from evaluate / compare --subtopics, over the
    queries with a relevant item that both runs retrieved."""
    names = list(runs)
    qrels = collapse(read_subtopic_qrels(WEB))
    relevant = {q for q, g in zip(qrels.query.to_pylist(), qrels.grade) if g >= 1}
    out = {}
    if measure == "ST-RPP":
        table = irpref.compare(WEB, runs, [measure])  # QRELS read as subtopic qrels
        for row in table.itertuples():
            if row.query in runs[row.run_a] and row.query in runs[row.run_b]:
                out[row.run_a, row.run_b, row.query] = row.value
        return out
    ev = irpref.evaluate(WEB, runs, [measure], subtopics=WEB)
    val = {(r.run, r.query): r.value for r in ev.itertuples()}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for q in sorted(relevant):
                if (a, q) in val and (b, q) in val:
                    out[a, b, q] = val[a, q] - val[b, q]
    return out


def _common(diffs: dict) -> list:
    keys = set.intersection(*(set(d) for d in diffs.values()))
    return sorted(keys)


def test_ties_and_agreement_equal_evaluate_and_compare(runs):
    diffs = {m: _reference_differences(runs, m) for m in MEASURES}
    keys = _common(diffs)
    assert all(len(d) == len(keys) for d in diffs.values())  # one comparison set
    vec = {m: np.array([diffs[m][k] for k in keys]) for m in MEASURES}
    ties = tie_rates(WEB, runs, MEASURES, subtopics=WEB)
    assert list(ties["measure"]) == MEASURES
    for m, got in zip(ties["measure"], ties["percent_tied"]):
        assert got == pytest.approx(100 * np.mean(np.abs(vec[m]) <= 1e-12), abs=1e-12)
    assert 0 < ties.set_index("measure").loc["S-recall@20", "percent_tied"] < 100

    agree = agreement(WEB, runs, MEASURES, subtopics=WEB).set_index(["measure_a", "measure_b"])
    sign = {m: np.where(v > 1e-12, 1, np.where(v < -1e-12, -1, 0)) for m, v in vec.items()}
    means = irpref.summarize(irpref.evaluate(WEB, runs, METRICS, subtopics=WEB))
    order = {m: means[means["measure"] == m].set_index("run")["value"].reindex(list(runs))
             for m in METRICS}
    for i, x in enumerate(MEASURES):
        for y in MEASURES[i + 1:]:
            row = agree.loc[(x, y)]
            assert row["sign_agreement"] == pytest.approx(np.mean(sign[x] == sign[y]), abs=1e-12)
            assert row["pearson"] == pytest.approx(np.corrcoef(vec[x], vec[y])[0, 1], abs=1e-9)
            if x in order and y in order:
                tau = stats.kendalltau(order[x], order[y]).statistic
                assert row["kendall_tau"] == pytest.approx(tau, abs=1e-12)


def test_st_rpp_win_rate_ordering_equals_compare(runs):
    """ST-RPP orders the systems by win rate of its compare matrices (RPP Eq. 7)."""
    comp = irpref.compare(WEB, runs, ["ST-RPP"])
    both = comp[[q in runs[a] and q in runs[b]
                 for a, b, q in zip(comp["run_a"], comp["run_b"], comp["query"])]]
    win = dict.fromkeys(runs, 0.0)
    queries = both["query"].unique()
    for row in both.itertuples():
        win[row.run_a] += row.value
        win[row.run_b] -= row.value
    wins = np.array([win[r] for r in runs]) / len(queries)
    means = irpref.summarize(irpref.evaluate(WEB, runs, ["MAP-IA"], subtopics=WEB))
    mapia = means.set_index("run")["value"].reindex(list(runs)).to_numpy()
    got = agreement(WEB, runs, ["ST-RPP", "MAP-IA"], subtopics=WEB)
    assert got["kendall_tau"].iloc[0] == pytest.approx(
        stats.kendalltau(wins, mapia).statistic, abs=1e-12)


def test_subtopic_measures_need_subtopics(runs):
    for fn in (tie_rates, agreement, degrade, subsample):
        with pytest.raises(UsageError, match=r"MAP-IA needs subtopic qrels: pass --subtopics"):
            fn(WEB, runs, ["AP", "MAP-IA"])
    with pytest.raises(UsageError, match=r"ST-RPP needs subtopic qrels"):
        tie_rates(WEB, runs, ["ST-RPP", "AP"])


def test_degraded_subtopics_remove_whole_documents(sub, runs):
    judged = judge_inputs(collapse(sub), runs, rel=1)
    ix = _relevant_index(judged)
    for method in ("uniform", "frequency"):
        low = degraded_grades(judged, 0.5, np.random.default_rng(1), method=method, index=ix)
        low_sub = degraded_subtopics(judged, low, sub)
        removed = judged.qrels_grade != low.qrels_grade
        gone = set(zip(judged.queries[judged.qrels_query[removed]],
                       np.asarray(judged.docs.to_pylist(), dtype=object)[
                           judged.qrels_doc[removed]]))
        assert gone
        pairs = list(zip(sub.query.to_pylist(), sub.doc.to_pylist()))
        hit = np.array([p in gone for p in pairs])
        # every judgment of a removed document is now non-relevant ...
        assert (low_sub.grade[hit] == 0).all()
        assert (sub.grade[hit] >= 1).any()
        # ... and every other (document, subtopic) judgment stays exactly
        np.testing.assert_array_equal(low_sub.grade[~hit], sub.grade[~hit])
        assert low_sub.query.equals(sub.query) and low_sub.doc.equals(sub.doc)
        assert low_sub.subtopic.equals(sub.subtopic)
        # collapsed degraded subtopic qrels = the degraded qrels
        flat = collapse(low_sub)
        key = dict(zip(zip(flat.query.to_pylist(), flat.doc.to_pylist()), flat.grade))
        docs = np.asarray(judged.docs.to_pylist(), dtype=object)
        want = [key[q, d] for q, d in zip(judged.queries[judged.qrels_query],
                                          docs[judged.qrels_doc])]
        np.testing.assert_array_equal(low.qrels_grade, want)


def test_degraded_values_equal_evaluate_on_degraded_qrels(sub, runs):
    """One degraded sample: the meta values are evaluate/compare --subtopics
    on the degraded subtopic qrels written out as a table."""
    judged = judge_inputs(collapse(sub), runs, rel=1)
    low = degraded_grades(judged, 0.7, np.random.default_rng(5), method="uniform")
    low_sub = degraded_subtopics(judged, low, sub)
    pw = pairwise(low, MEASURES, subtopics=low_sub)
    frame = pd.DataFrame({"query": low_sub.query.to_pylist(),
                          "subtopic": low_sub.subtopic.to_pylist(),
                          "doc": low_sub.doc.to_pylist(), "grade": low_sub.grade})
    ev = irpref.evaluate(None, runs, METRICS, subtopics=frame)
    val = {(r.run, r.query, r.measure): r.value for r in ev.itertuples()}
    comp = irpref.compare(frame, runs, ["ST-RPP"])
    pref = {(r.run_a, r.run_b, r.query): r.value for r in comp.itertuples()}
    names = pw.runs
    checked = 0
    for p, (a, b) in enumerate(zip(pw.a, pw.b)):
        for j, q in enumerate(pw.queries):
            if not pw.valid[p, j]:
                continue
            ra, rb = names[a], names[b]
            for m in METRICS:
                assert pw.values[m][p, j] == pytest.approx(
                    val[ra, q, m] - val[rb, q, m], abs=1e-12)
            assert pw.values["ST-RPP"][p, j] == pytest.approx(pref[ra, rb, q], abs=1e-12)
            checked += 1
    assert checked > 100


def test_degrade_and_subsample_seeded(runs):
    kw = dict(fractions=[0.3, 0.7], samples=3, subtopics=WEB)
    one = degrade(WEB, runs, MEASURES, seed=4, **kw)
    pd.testing.assert_frame_equal(one, degrade(WEB, runs, MEASURES, seed=4, **kw))
    assert list(one.columns[:5]) == ["measure", "fraction", "percent_tied", "agreement",
                                     "kendall_tau"]
    assert set(one["measure"]) == set(MEASURES)
    assert one["agreement"].between(0, 1).all()
    freq = degrade(WEB, runs, MEASURES, seed=4, method="frequency", **kw)
    assert not freq["agreement"].equals(one["agreement"])
    kw = dict(sizes=[5, 20], samples=4, subtopics=WEB)
    sub1 = subsample(WEB, runs, MEASURES, seed=2, **kw)
    pd.testing.assert_frame_equal(sub1, subsample(WEB, runs, MEASURES, seed=2, **kw))
    assert list(sub1.columns) == ["measure", "size", "kendall_tau", "kendall_tau_sd"]
    everything = subsample(WEB, runs, MEASURES, sizes=[50], samples=2, subtopics=WEB)
    assert everything["kendall_tau"].tolist() == pytest.approx([1.0] * 4)


@pytest.mark.slow
def test_cli_equals_api(tmp_path, runs):
    paths = write_runs(tmp_path, runs)
    proc = irpref_cli("meta", "agreement", WEB, *paths, "-m", *MEASURES, "--subtopics", WEB)
    assert proc.returncode == 0, proc.stderr
    lines = [ln.split("\t") for ln in proc.stdout.strip().splitlines()]
    assert lines[0] == ["measure_a", "measure_b", "sign_agreement", "pearson", "kendall_tau"]
    api = agreement(WEB, paths, MEASURES, subtopics=WEB)
    for ln, row in zip(lines[1:], api.itertuples(index=False)):
        assert ln[:2] == [row.measure_a, row.measure_b]
        assert [float(x) for x in ln[2:]] == [row.sign_agreement, row.pearson, row.kendall_tau]
    proc = irpref_cli("meta", "ties", WEB, *paths, "-m", *MEASURES, "--subtopics", WEB)
    assert proc.returncode == 0, proc.stderr
    api = tie_rates(WEB, paths, MEASURES, subtopics=WEB)
    got = [float(ln.split("\t")[1]) for ln in proc.stdout.strip().splitlines()[1:]]
    assert got == api["percent_tied"].tolist()
    proc = irpref_cli("meta", "degrade", WEB, *paths, "-m", "ST-RPP", "MAP-IA", "--subtopics",
                      WEB, "--fractions", "0.5", "--samples", "2", "--seed", "3")
    assert proc.returncode == 0, proc.stderr
    api = degrade(WEB, paths, ["ST-RPP", "MAP-IA"], fractions=[0.5], samples=2, seed=3,
                  subtopics=WEB)
    rows = [ln.split("\t") for ln in proc.stdout.strip().splitlines()[1:]]
    assert [float(r[4]) for r in rows] == api["kendall_tau"].tolist()
    proc = irpref_cli("meta", "agreement", WEB, *paths, "-m", "AP", "MAP-IA")
    assert proc.returncode == 2
    assert "MAP-IA needs subtopic qrels: pass --subtopics FILE" in proc.stderr
    assert proc.stdout == ""
