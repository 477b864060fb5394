"""``irpref agree``, label side: kappa and alpha against the reference implementations
and the published LLMJudge figures, brute-force definitions, coverage, the CLI contract."""

from __future__ import annotations

import json
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from helpers import irpref_cli, write_qrels
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

import irpref
from irpref.errors import InputError
from irpref.llm_judged.agreement.labels import (
    alpha_from_confusion,
    join_labels,
    kappa_from_confusion,
)

DATA = Path(__file__).parent / "data" / "llmjudge-sample"
HUMAN, H2O = DATA / "human.qrels", DATA / "h2oloo-fewself.qrels"
WILLIA = DATA / "willia-umbrela1.qrels"


def _table(result) -> dict:
    st_ = result.statistics
    return {(s, None if pd.isna(t) else int(t)): v
            for s, t, v in zip(st_["statistic"], st_["threshold"].astype(object), st_["value"])}


def _tsv(text: str) -> list[list[str]]:
    return [line.split("\t") for line in text.splitlines()]


# --------------------------------------------------------------------------- anchors


def test_published_llmjudge_figures():
    """h2oloo-fewself against the human labels: the challenge's published values."""
    got = _table(irpref.agree(HUMAN, H2O))
    assert got[("pairs", None)] == 4423
    assert got[("alpha_ordinal", None)] == pytest.approx(0.495764, abs=1e-6)
    for t, alpha, kappa in [(1, 0.410792, 0.417169), (2, 0.428016, 0.427999),
                            (3, 0.297844, 0.304812)]:
        assert got[("alpha_binary", t)] == pytest.approx(alpha, abs=1e-6)
        assert got[("kappa_binary", t)] == pytest.approx(kappa, abs=1e-6)
    assert got[("kappa", None)] == pytest.approx(0.277434, abs=1e-6)
    assert got[("kappa_quadratic", None)] == pytest.approx(0.5046, abs=1e-4)
    conf = irpref.agree(HUMAN, H2O).confusion(2)
    assert conf["pairs"].tolist() == [2719, 519, 483, 702]
    assert conf["grade_a"].tolist() == [0, 0, 1, 1] and conf["grade_b"].tolist() == [0, 1, 0, 1]


@pytest.mark.parametrize("other", [H2O, WILLIA])
def test_equals_krippendorff_and_sklearn_on_real_labels(other):
    result = irpref.agree(HUMAN, other)
    got = _table(result)
    labels = join_labels(irpref.read_qrels(HUMAN), irpref.read_qrels(other))
    a, b = labels.grade_a, labels.grade_b
    data = np.vstack([a, b]).astype(float)
    for level in ("nominal", "ordinal", "interval"):
        ref = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert got[(f"alpha_{level}", None)] == pytest.approx(ref, abs=1e-6)
    for name, weights in [("kappa", None), ("kappa_linear", "linear"),
                          ("kappa_quadratic", "quadratic")]:
        assert got[(name, None)] == pytest.approx(cohen_kappa_score(a, b, weights=weights),
                                                  abs=1e-6)
    for t in (1, 2, 3):
        ba, bb = (a >= t).astype(int), (b >= t).astype(int)
        assert got[("kappa_binary", t)] == pytest.approx(cohen_kappa_score(ba, bb), abs=1e-6)
        ref = krippendorff.alpha(reliability_data=np.vstack([ba, bb]).astype(float),
                                 level_of_measurement="nominal")
        assert got[("alpha_binary", t)] == pytest.approx(ref, abs=1e-6)
    # leniency
    assert got[("mean_grade_a", None)] == pytest.approx(a.mean())
    assert got[("share_b_higher", None)] == pytest.approx((b > a).mean())
    assert got[("share_b_lower", None)] == pytest.approx((b < a).mean())


def test_per_query_equals_reference_per_query():
    result = irpref.agree(HUMAN, H2O)
    table = result.per_query(threshold=2)
    labels = join_labels(irpref.read_qrels(HUMAN), irpref.read_qrels(H2O))
    assert len(table) == 25 and table["pairs"].sum() == 4423
    assert (np.diff(table["agreement"].to_numpy()) >= 0).all()  # most disagreement first
    for _, row in table.iterrows():
        q = int(np.flatnonzero(labels.queries == row["query"])[0])
        a, b = labels.grade_a[labels.query == q], labels.grade_b[labels.query == q]
        data = np.vstack([a, b]).astype(float)
        assert row["pairs"] == len(a)
        assert row["agreement"] == pytest.approx((a == b).mean())
        assert row["kappa"] == pytest.approx(cohen_kappa_score(a, b), abs=1e-9)
        assert row["alpha_ordinal"] == pytest.approx(
            krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal"), abs=1e-9)
        assert row["kappa_binary@2"] == pytest.approx(cohen_kappa_score(a >= 2, b >= 2),
                                                      abs=1e-9)


# --------------------------------------------------------------------------- definitions


def _kappa_brute(a, b, weights):
    cats = sorted(set(a) | set(b))
    pos = {c: i for i, c in enumerate(cats)}

    def w(x, y):
        d = pos[x] - pos[y]
        return {"unweighted": float(d != 0), "linear": abs(d), "quadratic": d * d}[weights]

    n = len(a)
    observed = sum(w(x, y) for x, y in zip(a, b)) / n
    expected = sum(w(x, y) for x in a for y in b) / (n * n)
    return 1 - observed / expected if expected > 0 else float("nan")


def _alpha_brute(a, b, metric):
    """Krippendorff's D_o / D_e over pairable values (2011, Sec. A), no matrices."""
    values = list(a) + list(b)
    n = len(values)
    freq = {v: values.count(v) for v in set(values)}
    cats = sorted(freq)

    def delta(c, k):
        if metric == "nominal":
            return float(c != k)
        if metric == "interval":
            return float((c - k) ** 2)
        lo, hi = min(c, k), max(c, k)
        between = sum(freq[g] for g in cats if lo <= g <= hi)
        return (between - (freq[c] + freq[k]) / 2) ** 2

    d_o = sum(delta(x, y) + delta(y, x) for x, y in zip(a, b)) / n
    d_e = sum(delta(values[i], values[j]) for i in range(n) for j in range(n) if i != j)
    d_e /= n * (n - 1)
    return 1 - d_o / d_e if d_e > 0 else float("nan")


def _confusion(a, b):
    cats = np.union1d(a, b)
    k = len(cats)
    ia, ib = np.searchsorted(cats, a), np.searchsorted(cats, b)
    return np.bincount(ia * k + ib, minlength=k * k).reshape(k, k), cats


grades = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=25)


@settings(max_examples=150, deadline=None)
@given(grades)
def test_kappa_and_alpha_match_brute_force(pairs):
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    conf, cats = _confusion(a, b)
    for w in ("unweighted", "linear", "quadratic"):
        assert float(kappa_from_confusion(conf, w)) == pytest.approx(
            _kappa_brute(a.tolist(), b.tolist(), w), abs=1e-9, nan_ok=True)
    for m in ("nominal", "ordinal", "interval"):
        assert float(alpha_from_confusion(conf, cats, m)) == pytest.approx(
            _alpha_brute(a.tolist(), b.tolist(), m), abs=1e-9, nan_ok=True)


# --------------------------------------------------------------------------- coverage


@pytest.mark.slow
def test_coverage_leniency_and_negative_grades(tmp_path):
    a = write_qrels(tmp_path / "a.qrels", [("q1", "d1", 2), ("q1", "d2", 0), ("q1", "d3", 1),
                                           ("q2", "d1", 3), ("q2", "d9", 2), ("q2", "d8", -1)])
    b = write_qrels(tmp_path / "b.qrels", [("q1", "d1", 1), ("q1", "d2", 0), ("q1", "d3", 3),
                                           ("q2", "d1", 3), ("q2", "d8", 2), ("q3", "d1", 1)])
    got = _table(irpref.agree(a, b))
    assert got[("pairs", None)] == 4  # q2/d8 is unjudged (-1) under A
    assert got[("pairs_only_a", None)] == 1  # q2/d9
    assert got[("pairs_only_b", None)] == 2  # q2/d8, q3/d1
    assert got[("pairs_unjudged_a", None)] == 1 and got[("pairs_unjudged_b", None)] == 0
    assert got[("queries", None)] == 2
    assert got[("mean_grade_a", None)] == pytest.approx(6 / 4)
    assert got[("mean_grade_b", None)] == pytest.approx(7 / 4)
    assert got[("share_b_higher", None)] == pytest.approx(1 / 4)
    assert got[("share_b_lower", None)] == pytest.approx(1 / 4)
    assert got[("relevant_only_a", 2)] == 1 and got[("relevant_only_b", 2)] == 1
    assert got[("relevant_only_b", 1)] == 2
    assert sorted(t for s, t in got if s == "kappa_binary") == [1, 2, 3]
    out = irpref_cli("agree", a, b, "--format", "tsv")
    assert out.returncode == 0
    assert out.stderr.count("irpref: warning: 1 pairs judged only by QRELS_A, 2 only by "
                            "QRELS_B") == 1
    assert irpref_cli("agree", a, b, "--quiet").stderr == ""


def test_one_category_is_undefined_not_a_number(tmp_path):
    a = write_qrels(tmp_path / "a.qrels", [("q1", "d1", 0), ("q1", "d2", 0)])
    b = write_qrels(tmp_path / "b.qrels", [("q1", "d1", 0), ("q1", "d2", 0)])
    got = _table(irpref.agree(a, b))
    assert np.isnan(got[("kappa", None)]) and np.isnan(got[("alpha_ordinal", None)])
    out = irpref_cli("agree", a, b)
    assert out.returncode == 0
    assert "undefined" in out.stdout and "nan" not in out.stdout.lower()


@pytest.mark.slow
def test_no_pair_in_common(tmp_path):
    a = write_qrels(tmp_path / "a.qrels", [("q1", "d1", 1)])
    b = write_qrels(tmp_path / "b.qrels", [("q1", "d2", 1)])
    with pytest.raises(InputError, match="no \\(query, document\\) pair"):
        irpref.agree(a, b)
    out = irpref_cli("agree", a, b, "--format", "tsv")
    assert out.returncode == 1
    assert out.stdout == ""
    assert out.stderr.startswith("irpref agree: error: ")
    assert "no (query, document) pair" in out.stderr and "Traceback" not in out.stderr


# --------------------------------------------------------------------------- the command


@pytest.mark.slow
def test_cli_tsv_interface():
    out = irpref_cli("agree", HUMAN, H2O, "--format", "tsv")
    assert out.returncode == 0, out.stderr
    rows = _tsv(out.stdout)
    assert rows[0] == ["statistic", "threshold", "value"]
    body = {(r[0], r[1]): r[2] for r in rows[1:]}
    assert len(body) == len(rows) - 1  # one row per statistic
    for name in ("pairs", "kappa", "kappa_linear", "kappa_quadratic", "alpha_nominal",
                 "alpha_ordinal", "alpha_interval"):
        assert (name, "") in body
    for t in ("1", "2", "3"):
        assert ("kappa_binary", t) in body and ("alpha_binary", t) in body
    assert body[("pairs", "")] == "4423"
    assert float(body[("alpha_binary", "2")]) == pytest.approx(0.428016, abs=1e-6)


@pytest.mark.slow
def test_cli_other_formats_and_views():
    js = irpref_cli("agree", HUMAN, H2O, "--format", "json")
    assert js.returncode == 0
    records = json.loads(js.stdout)
    assert {"statistic": "kappa_binary", "threshold": 2,
            "value": pytest.approx(0.427999, abs=1e-6)} in records
    md = irpref_cli("agree", HUMAN, H2O, "--format", "markdown")
    assert md.returncode == 0 and "| alpha_ordinal |  | 0.4958 |" in md.stdout
    tex = irpref_cli("agree", HUMAN, H2O, "--format", "latex")
    assert tex.returncode == 0 and r"kappa\_binary & 2 & 0.4280 \\" in tex.stdout
    table = irpref_cli("agree", HUMAN, H2O)
    assert table.returncode == 0 and "alpha_ordinal" in table.stdout
    conf = irpref_cli("agree", HUMAN, H2O, "--confusion-at", "2", "--format", "tsv")
    assert conf.returncode == 0
    assert _tsv(conf.stdout) == [["grade_a", "grade_b", "pairs"], ["0", "0", "2719"],
                                 ["0", "1", "519"], ["1", "0", "483"], ["1", "1", "702"]]
    full = irpref_cli("agree", HUMAN, H2O, "--confusion", "--format", "tsv")
    assert sum(int(r[2]) for r in _tsv(full.stdout)[1:]) == 4423
    per = irpref_cli("agree", HUMAN, H2O, "--per-query", "--rel", "2", "--format", "tsv")
    assert per.returncode == 0
    head = _tsv(per.stdout)[0]
    assert head[:3] == ["query", "pairs", "agreement"] and "kappa_binary@2" in head
    assert len(_tsv(per.stdout)) == 26
    some = irpref_cli("agree", HUMAN, H2O, "--thresholds", "2", "--format", "tsv")
    assert {r[1] for r in _tsv(some.stdout)[1:]} == {"", "2"}


@pytest.mark.slow
@pytest.mark.parametrize("args, message", [
    (["--thresholds", "0"], "--thresholds 0: must be >= 1"),
    (["--thresholds", "x"], "--thresholds"),
    (["--thresholds", "4"], "no pair both sides judge has a grade >= 4"),
    (["--confusion-at", "9"], "grade >= 9"),
    (["--rel", "0"], "--rel 0: must be >= 1"),
    (["--top", "0"], "--top 0: must be >= 1"),
    (["--alpha", "1.5"], "--alpha"),
    (["-m", "AP"], "needs RUN"),
    (["--swaps"], "needs RUN"),
    (["--confusion", "--per-query"], "not allowed with"),
])
def test_cli_usage_errors(args, message):
    out = irpref_cli("agree", HUMAN, H2O, *args)
    assert out.returncode == 2, out.stderr
    assert message in out.stderr and "Traceback" not in out.stderr
    assert out.stdout == ""


@pytest.mark.slow
def test_cli_bad_file_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.qrels"
    bad.write_text("q1 0 d1 1\nq1 0 d2 relevant\n")
    out = irpref_cli("agree", HUMAN, bad)
    assert out.returncode == 1
    assert f"{bad}:2" in out.stderr and "Traceback" not in out.stderr
    missing = irpref_cli("agree", HUMAN, tmp_path / "nope.qrels")
    assert missing.returncode == 1 and "nope.qrels" in missing.stderr


@pytest.mark.parametrize("docs_b", [["d1", "d2", "d3"], ["e1"]])
def test_join_is_exact_when_hashes_collide(tmp_path, monkeypatch, docs_b):
    """Every document hashes alike: the join must still pair only equal ids."""
    from irpref.llm_judged.agreement import labels as module

    a = write_qrels(tmp_path / "a.qrels", [("q1", "d1", 1), ("q1", "d2", 0), ("q2", "e1", 2)]
                    if len(docs_b) > 1 else [("q1", "e2", 1)])
    b = write_qrels(tmp_path / "b.qrels", [("q1", d, 1) for d in docs_b])
    expected = module.join_labels(irpref.read_qrels(a), irpref.read_qrels(b))
    monkeypatch.setattr(module, "hash_strings", lambda arr: np.zeros(len(arr), np.uint64))
    got = module.join_labels(irpref.read_qrels(a), irpref.read_qrels(b))
    assert got.n == expected.n == (2 if len(docs_b) > 1 else 0)
    assert got.grade_a.tolist() == expected.grade_a.tolist()
    assert got.grade_b.tolist() == expected.grade_b.tolist()
    assert len(got.only_a) == len(expected.only_a) and len(got.only_b) == len(expected.only_b)


@pytest.mark.slow
def test_cli_output_file(tmp_path):
    target = tmp_path / "agree.tsv"
    out = irpref_cli("agree", HUMAN, H2O, "--format", "tsv", "-o", target)
    assert out.returncode == 0 and out.stdout == ""
    assert target.read_text() == irpref_cli("agree", HUMAN, H2O, "--format", "tsv").stdout
