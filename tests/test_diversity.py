"""Diversity measures against ndeval's definitions.

ndeval (the TREC Web track tool) is not installable here, so the expected
values below are computed BY HAND from its definitions (ndeval.c 4.5:
``computeDCG``, ``computeERR``, ``computeMAP``, ``computeSTRecall``,
``idealResult``), each case's arithmetic in its docstring, and hypothesis
compares irpref with a literal, loop-per-rank transcription of those
definitions (``brute``) on random subtopic qrels and runs.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irpref
from irpref.errors import UsageError
from irpref.io.subtopics import read_subtopic_qrels
from irpref.measures import parse_measure

WEB = Path(__file__).parent / "data" / "web13-diversity-201-204.ndeval.txt.gz"
ALL = ["alpha-nDCG@5", "ERR-IA@5", "nERR-IA@5", "MAP-IA", "S-recall@5"]


def frame(rows):
    return pd.DataFrame(rows, columns=["query", "subtopic", "doc", "grade"])


def values(sub, runs, measures=ALL, **kw) -> dict:
    res = irpref.evaluate(None, runs, measures, subtopics=sub, **kw)
    return {(r, q, m): v for r, q, m, v in res.itertuples(index=False)}


# subtopic 1: {a, c}; subtopic 2: {a, d}; subtopic 3: judged, nothing relevant (ignored)
CASE = frame([
    ("q1", "1", "a", 1), ("q1", "2", "a", 1), ("q1", "1", "c", 1),
    ("q1", "2", "d", 2), ("q1", "3", "x", 0), ("q1", "1", "b", 0),
])
RUN = {"r": {"q1": {"a": 5.0, "b": 4.0, "c": 3.0, "e": 2.0, "d": 1.0}}}


def test_by_hand_alpha_ndcg():
    """Run a b c e d, alpha = 0.5, S = 2 (subtopic 3 has no relevant document).
    Gains: a covers 1 and 2 -> 2; c covers 1 again -> 0.5; d covers 2 again -> 0.5.
    alpha-DCG@5 = 2/log2(2) + 0.5/log2(4) + 0.5/log2(6) = 2 + 0.25 + 0.193426 = 2.443426.
    Greedy ideal: a (gain 2), then c and d tie at 0.5 -> d (larger docid), then c (0.5):
    2 + 0.5/log2(3) + 0.5/log2(4) = 2 + 0.315465 + 0.25 = 2.565465.
    alpha-nDCG@5 = 2.443426 / 2.565465 = 0.952430."""
    got = values(CASE, RUN)
    dcg = 2 + 0.5 / 2 + 0.5 / math.log2(6)
    ideal = 2 + 0.5 / math.log2(3) + 0.5 / 2
    assert got["r", "q1", "alpha-nDCG@5"] == pytest.approx(dcg / ideal, abs=1e-12)
    assert dcg / ideal == pytest.approx(0.952430, abs=1e-6)


def test_by_hand_err_ia():
    """Same run. sum_i sum_t J (0.5)^c / i = 2/1 + 0.5/3 + 0.5/5 = 2.266667.
    ndeval's ideal-ideal: S sum_{i<=5} 0.5^(i-1)/i = 2 (1 + 1/4 + 1/12 + 1/32 + 1/80)
    = 2.754167, so ERR-IA@5 = 0.822995. nERR-IA@5 divides by the greedy ideal
    a, d, c: 2/1 + 0.5/2 + 0.5/3 = 2.416667 -> 0.937931."""
    got = values(CASE, RUN)
    num = 2 + 0.5 / 3 + 0.5 / 5
    assert got["r", "q1", "ERR-IA@5"] == pytest.approx(
        num / (2 * (1 + 1 / 4 + 1 / 12 + 1 / 32 + 1 / 80)), abs=1e-12)
    assert got["r", "q1", "nERR-IA@5"] == pytest.approx(num / (2 + 0.25 + 0.5 / 3), abs=1e-12)
    assert got["r", "q1", "ERR-IA@5"] == pytest.approx(0.822995, abs=1e-6)


def test_by_hand_map_ia_and_s_recall():
    """AP_1: a at rank 1 (1/1), c at rank 3 (2/3), 2 relevant -> 0.833333;
    AP_2: a (1/1), d at rank 5 (2/5) -> 0.7. MAP-IA = 0.766667.
    S-recall@1 = 2/2 (a covers both); with the run b c only: S-recall@2 = 1/2."""
    got = values(CASE, RUN, ["MAP-IA", "S-recall@1"])
    assert got["r", "q1", "MAP-IA"] == pytest.approx((5 / 6 + 0.7) / 2, abs=1e-12)
    assert got["r", "q1", "S-recall@1"] == 1.0
    got = values(CASE, {"r": {"q1": {"b": 2.0, "c": 1.0}}}, ["S-recall@2"])
    assert got["r", "q1", "S-recall@2"] == 0.5


def test_by_hand_grades_rel_and_subtopic_zero():
    """Subtopic 0 is a subtopic, as in ndeval (single-facet Web 2013 topics use only 0).
    q2: subtopic 0 {p (grade 1), s (grade 2)}. Run s p: alpha-DCG@2 = 1 + 0.5/log2(3);
    the greedy ideal ties p and s at gain 1 and takes s (larger docid): the same, so 1.0.
    With rel=2 only s is relevant: the run scores 1/1 and S-recall@1 = 1; the run p s
    scores 0.5/log2(3) / 1 = 0.315465 for alpha-nDCG@2."""
    sub = frame([("q2", "0", "p", 1), ("q2", "0", "s", 2)])
    got = values(sub, {"r": {"q2": {"s": 2.0, "p": 1.0}}}, ["alpha-nDCG@2", "S-recall@1"])
    assert got["r", "q2", "alpha-nDCG@2"] == pytest.approx(1.0, abs=1e-15)
    got = values(sub, {"r": {"q2": {"p": 2.0, "s": 1.0}}}, ["alpha-nDCG@2"], rel=2)
    assert got["r", "q2", "alpha-nDCG@2"] == pytest.approx(1 / math.log2(3), abs=1e-12)


def test_no_relevant_subtopic_scores_zero():
    """A topic whose judgments are all 0 has S = 0: every measure is 0 (ndeval)."""
    sub = frame([("q", "1", "a", 0), ("q", "2", "b", 0)])
    got = values(sub, {"r": {"q": {"a": 1.0}}})
    assert all(v == 0.0 for v in got.values())


def test_missing_subtopics_is_a_usage_error():
    with pytest.raises(UsageError, match=r"alpha-nDCG@20 needs subtopic qrels: pass --subtopics"):
        irpref.evaluate({"q": {"a": 1}}, {"r": {"q": {"a": 1.0}}}, ["alpha-nDCG@20"])


def test_bad_alpha():
    with pytest.raises(UsageError, match=r"alpha must be in \[0, 1\]"):
        values(CASE, RUN, ["alpha-nDCG(alpha=1.5)@5"])


def test_expected_ties_refused():
    with pytest.raises(ValueError, match="no tie-aware"):
        values(CASE, RUN, ["alpha-nDCG@5"], ties="expected")


# ---- a literal transcription of ndeval's definitions ---------------------------------
def brute(sub: pd.DataFrame, ranking: list[str], k: int | None, alpha: float, rel: int):
    """{measure: value} for one topic, ranking already in rank order."""
    def order_key(label):
        return (0, int(label), "") if label.isdigit() else (1, 0, label)

    labels = sorted({t for t in sub["subtopic"]}, key=order_key)
    relevant = {t: {d for _, tt, d, g in sub.itertuples(index=False) if tt == t and g >= rel}
                for t in labels}
    topics = [t for t in labels if relevant[t]]  # "actual subtopics"
    s = len(topics)
    out = dict.fromkeys(["adcg", "ideal_dcg", "err", "ideal_err", "map", "srec"], 0.0)
    if s == 0:
        return {"alpha-nDCG": 0.0, "ERR-IA": 0.0, "nERR-IA": 0.0, "MAP-IA": 0.0,
                "S-recall": 0.0}
    kk = k if k is not None else len(ranking)
    gain = {t: 1.0 for t in topics}
    seen = set()
    for i, d in enumerate(ranking[:kk]):
        score = 0.0
        for t in topics:
            if d in relevant[t]:
                score += gain[t]
                gain[t] *= 1 - alpha
                seen.add(t)
        out["adcg"] += score / math.log2(i + 2)
        out["err"] += score / (i + 1)
    # greedy ideal over every judged document of the topic
    docs = sorted(set(sub["doc"]))
    gain = {t: 1.0 for t in topics}
    left = list(docs)
    for i in range(kk):
        if not left:
            break
        best, where = None, None
        for d in left:  # ascending docid; ties go to the later (larger) one
            score = sum(gain[t] for t in topics if d in relevant[t])
            if best is None or score >= best:
                best, where = score, d
        left.remove(where)
        for t in topics:
            if where in relevant[t]:
                gain[t] *= 1 - alpha
        out["ideal_dcg"] += best / math.log2(i + 2)
        out["ideal_err"] += best / (i + 1)
    ap = 0.0
    for t in topics:
        hits, total = 0, 0.0
        for i, d in enumerate(ranking[:kk]):
            if d in relevant[t]:
                hits += 1
                total += hits / (i + 1)
        ap += total / len(relevant[t])
    perfect = s * sum((1 - alpha) ** i / (i + 1) for i in range(kk))
    return {
        "alpha-nDCG": out["adcg"] / out["ideal_dcg"] if out["ideal_dcg"] > 0 else 0.0,
        "ERR-IA": out["err"] / perfect,
        "nERR-IA": out["err"] / out["ideal_err"] if out["ideal_err"] > 0 else 0.0,
        "MAP-IA": ap / s,
        "S-recall": len(seen) / s,
    }


def trec_order(run: dict[str, float]) -> list[str]:
    return [d for d, _ in sorted(sorted(run.items(), reverse=True), key=lambda x: -x[1])]


DOCS = [f"d{i}" for i in range(9)]
ROW = st.tuples(st.sampled_from(["0", "1", "2", "10", "x"]), st.sampled_from(DOCS),
                st.integers(0, 2))


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(ROW, min_size=1, max_size=16, unique_by=lambda r: (r[0], r[1])),
    scores=st.dictionaries(st.sampled_from(DOCS + ["u1", "u2"]), st.integers(0, 4),
                           min_size=1, max_size=10),
    k=st.integers(1, 7),
    alpha=st.sampled_from([0.5, 0.25, 1.0, 0.0]),
    rel=st.integers(1, 2),
)
def test_against_brute_force(rows, scores, k, alpha, rel):
    sub = frame([("q", t, d, g) for t, d, g in rows])
    run = {"q": {d: float(s) for d, s in scores.items()}}
    names = [f"alpha-nDCG(alpha={alpha})@{k}", f"ERR-IA(alpha={alpha})@{k}",
             f"nERR-IA(alpha={alpha})@{k}", "MAP-IA", f"MAP-IA@{k}", f"S-recall@{k}"]
    res = irpref.evaluate(None, {"r": run}, names, subtopics=sub, rel=rel)
    by_label = dict(zip(res["measure"], res["value"]))
    # labels are the canonical form or the string passed (default alpha omitted or not)
    got = {n: by_label.get(n, by_label.get(str(parse_measure(n)))) for n in names}
    ranking = trec_order(run["q"])
    at_k = brute(sub, ranking, k, alpha, rel)
    full = brute(sub, ranking, None, alpha, rel)
    assert got[names[0]] == pytest.approx(at_k["alpha-nDCG"], abs=1e-12)
    assert got[names[1]] == pytest.approx(at_k["ERR-IA"], abs=1e-12)
    assert got[names[2]] == pytest.approx(at_k["nERR-IA"], abs=1e-12)
    assert got["MAP-IA"] == pytest.approx(full["MAP-IA"], abs=1e-12)
    assert got[f"MAP-IA@{k}"] == pytest.approx(at_k["MAP-IA"], abs=1e-12)
    assert got[names[5]] == pytest.approx(at_k["S-recall"], abs=1e-12)


# ---- real Web track qrels with a synthetic run ----------------------------------------
def synthetic_runs(sub_path: Path, seed: int = 7) -> dict:
    """Two seeded runs: judged documents of each topic shuffled, with unjudged ones mixed in."""
    sub = read_subtopic_qrels(sub_path)
    table = pd.DataFrame({"q": sub.query.to_pylist(), "d": sub.doc.to_pylist()})
    rng = np.random.default_rng(seed)
    runs = {}
    for name in ("s1", "s2"):
        run = {}
        for q, docs in table.groupby("q")["d"]:
            pool = sorted(set(docs))[:60] + [f"unjudged-{i}" for i in range(10)]
            picked = rng.permutation(pool)[:40]
            run[q] = {d: float(40 - i) for i, d in enumerate(picked)}
        runs[name] = run
    return runs


def test_web_track_qrels_against_brute_force():
    runs = synthetic_runs(WEB)
    measures = ["alpha-nDCG@20", "ERR-IA@20", "nERR-IA@20", "MAP-IA", "S-recall@20"]
    res = irpref.evaluate(WEB, runs, measures, subtopics=WEB)
    assert set(res["query"]) == {"201", "203", "204"}
    sub = read_subtopic_qrels(WEB)
    frame_all = frame(list(zip(sub.query.to_pylist(), sub.subtopic.to_pylist(),
                               sub.doc.to_pylist(), sub.grade.tolist())))
    for (run, q), group in res.groupby(["run", "query"]):
        want = brute(frame_all[frame_all["query"] == q], trec_order(runs[run][q]), 20, 0.5, 1)
        full = brute(frame_all[frame_all["query"] == q], trec_order(runs[run][q]), None, 0.5, 1)
        got = dict(zip(group["measure"], group["value"]))
        for m in measures:
            family = m.split("@")[0]
            expect = full[family] if m == "MAP-IA" else want[family]
            assert got[m] == pytest.approx(expect, abs=1e-12), (run, q, m)
    assert res["value"].between(0, 1).all()


def irpref_cli(*args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).parent / "irpref"
    return subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True)


@pytest.mark.slow
def test_cli(tmp_path):
    runs = synthetic_runs(WEB)
    path = tmp_path / "s1.txt"
    path.write_text("".join(f"{q} Q0 {d} {i} {s} s1\n" for q, docs in runs["s1"].items()
                            for i, (d, s) in enumerate(docs.items())))
    proc = irpref_cli("evaluate", WEB, path, "--subtopics", WEB, "-m", "alpha-nDCG@20",
                      "ERR-IA@20", "--format", "tsv")
    assert proc.returncode == 0, proc.stderr
    api = irpref.summarize(irpref.evaluate(WEB, [path], ["alpha-nDCG@20", "ERR-IA@20"],
                                           subtopics=WEB))
    lines = [ln.split("\t") for ln in proc.stdout.strip().splitlines()[1:]]
    printed = {ln[-2]: float(ln[-1]) for ln in lines}
    for m, v in zip(api["measure"], api["value"]):
        assert printed[m] == pytest.approx(v, abs=1e-12)
    proc = irpref_cli("evaluate", WEB, path, "-m", "alpha-nDCG@20")
    assert proc.returncode != 0
    assert "alpha-nDCG@20 needs subtopic qrels: pass --subtopics FILE" in proc.stderr


def test_measures_listing():
    proc = irpref_cli("measures")
    assert proc.returncode == 0
    for name in ("ERR", "Judged", "alpha-nDCG", "ERR-IA", "MAP-IA", "S-recall"):
        assert name in proc.stdout
