"""The compare API and CLI, subtopic qrels, and system aggregation."""

from __future__ import annotations

import gzip
import json
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import irpref_cli

import irpref
from irpref.compare import compare_matrices
from irpref.io import TrecFormatError
from irpref.io.subtopics import as_subtopic_qrels, collapse, read_subtopic_qrels
from irpref.preferences.aggregate import (
    borda,
    kendall_tau,
    matrices_from_tidy,
    mc4,
    ordering,
    system_orderings,
    win_rates,
)

QRELS = {"q1": {"a": 1, "b": 2, "c": 0, "d": 1}, "q2": {"a": 1, "e": 1}, "q3": {"x": 0}}
RUNS = {
    "A": {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"e": 2.0, "a": 1.0}},
    "B": {"q1": {"c": 3.0, "a": 2.0, "b": 1.0, "d": 0.5}},
    "C": {"q1": {"d": 3.0, "c": 2.0}, "q2": {"x": 1.0, "a": 0.5}},
}


def test_compare_skips_queries_a_run_lacks_by_default():
    """The one ``missing`` rule of evaluate: B lacks q2, so no pair with B is
    compared on q2 (skip); ``missing="zero"`` scores q2 as B's empty ranking."""
    skip = irpref.compare(QRELS, RUNS, ["sgnLP", "RPP"])
    zero = irpref.compare(QRELS, RUNS, ["sgnLP", "RPP"], missing="zero")
    pairs_q2 = skip[skip["query"] == "q2"]
    assert set(zip(pairs_q2["run_a"].astype(str), pairs_q2["run_b"].astype(str))) == {
        ("A", "C")}
    assert len(zero) == len(skip) + 2 * 2  # (A, B) and (B, C) on q2, two preferences
    means = irpref.mean_preferences(skip).set_index(["run_a", "run_b", "measure"])["value"]
    q1 = skip[(skip["query"] == "q1") & (skip["measure"] == "sgnLP")].set_index(
        ["run_a", "run_b"])["value"]
    assert means["A", "B", "sgnLP"] == q1["A", "B"]  # the pair's one shared query
    comp = compare_matrices(QRELS, RUNS, ["sgnLP"])
    assert comp.mean("sgnLP")[0, 1] == q1["A", "B"]
    assert comp.pairs_n("sgnLP")[0, 1] == 1 and comp.pairs_n("sgnLP")[0, 2] == 2
    with pytest.raises(ValueError, match="missing"):
        irpref.compare(QRELS, RUNS, ["sgnLP"], missing="drop")


def test_compare_tidy_table():
    t = irpref.compare(QRELS, RUNS, missing="zero")
    assert list(t.columns) == ["run_a", "run_b", "query", "measure", "value"]
    assert list(t["measure"].cat.categories) == [
        "sgnLP", "rrLP", "sgnLR", "RPP", "RPP(p=dcg)", "RPP(p=inverse)",
    ]
    # pairs a < b in input order; q3 has no relevant item: no row
    pairs = set(zip(t["run_a"].astype(str), t["run_b"].astype(str)))
    assert pairs == {("A", "B"), ("A", "C"), ("B", "C")}
    assert set(t["query"].astype(str)) == {"q1", "q2"}
    assert len(t) == 3 * 2 * 6
    key = ["run_a", "run_b", "query", "measure"]
    assert not t.duplicated(key).any()  # one row per key (verify_integrity is deprecated)
    v = t.set_index(key)["value"]
    # q1: A has relevant at 1,2 (a, b), missing d; B at 2,3,4; C at 1
    assert v["A", "B", "q1", "sgnLP"] == 1.0
    assert v["A", "B", "q1", "rrLP"] == pytest.approx(1 - 1 / 2)
    assert v["A", "B", "q1", "sgnLR"] == -1.0  # B retrieved all three relevant
    assert v["A", "C", "q1", "sgnLP"] == 1.0  # tie at level 1, A has a 2nd item
    assert v["A", "C", "q1", "rrLP"] == pytest.approx(1 / 2)
    # q2: B lacks the query -> it retrieved nothing
    assert v["A", "B", "q2", "sgnLP"] == 1.0 and v["A", "B", "q2", "RPP"] == 1.0
    # graded RPP on q1: λ=1 {a, b, d} (m=3), λ=2 {b} (m=1); A: b at 2, B: b at 3
    rpp1 = (1 + 1 - 1) / 3  # A (1,2,-) vs B (2,3,4)
    assert v["A", "B", "q1", "RPP"] == pytest.approx(3 / 4 * rpp1 + 1 / 4 * 1)


def test_compare_binary_grades_and_rel():
    t = irpref.compare(QRELS, RUNS, ["RPP(grades=binary)", "sgnLP(rel=2)"], rel=1)
    v = t.set_index(["run_a", "run_b", "query", "measure"])["value"]
    assert v["A", "B", "q1", "RPP(grades=binary)"] == pytest.approx(1 / 3)
    assert set(t.loc[t["measure"] == "sgnLP(rel=2)", "query"].astype(str)) == {"q1"}
    assert v["A", "B", "q1", "sgnLP(rel=2)"] == 1.0


def test_means_and_matrix():
    t = irpref.compare(QRELS, RUNS, ["sgnLP", "RPP"])
    means = irpref.mean_preferences(t)
    assert "query" not in means and len(means) == 3 * 2
    per = t[t["measure"] == "RPP"].groupby(["run_a", "run_b"], observed=True)["value"].mean()
    got = means[means["measure"] == "RPP"].set_index(["run_a", "run_b"])["value"]
    for key, value in per.items():
        assert got[key] == pytest.approx(value)
    mat = irpref.preference_matrix(t, "RPP")
    assert list(mat.index) == ["A", "B", "C"]
    np.testing.assert_allclose(mat.to_numpy(), -mat.to_numpy().T)
    q1 = irpref.preference_matrix(t, "sgnLP", query="q1")
    assert q1.loc["A", "B"] == 1.0 and q1.loc["B", "A"] == -1.0
    with pytest.raises(ValueError, match="several measures"):
        irpref.preference_matrix(t)


def test_compare_errors():
    with pytest.raises(ValueError, match="irpref evaluate"):
        irpref.compare(QRELS, RUNS, ["AP"])
    with pytest.raises(ValueError, match=">= 1"):
        irpref.compare(QRELS, RUNS, rel=0)
    with pytest.raises(ValueError, match="ties"):
        irpref.compare(QRELS, RUNS, ties="expected")
    with pytest.raises(ValueError, match="subtopic"):
        irpref.compare(QRELS, RUNS, ["ST-RPP"])


def test_single_run_gives_no_pairs():
    t = irpref.compare(QRELS, {"A": RUNS["A"]}, ["sgnLP", "RPP"])
    assert t.empty and list(t.columns) == ["run_a", "run_b", "query", "measure", "value"]


# ---------------------------------------------------------------- subtopics


def test_read_web_diversity(data_dir):
    path = next((data_dir / "web-diversity").glob("*ndeval*"))
    sub = read_subtopic_qrels(path)
    assert len(sub) == 44814
    assert len(set(sub.query.to_pylist())) == 50
    plain = collapse(sub)
    frame = pd.DataFrame({"q": sub.query.to_pylist(), "d": sub.doc.to_pylist(), "g": sub.grade})
    expected = frame.groupby(["q", "d"])["g"].max()
    got = pd.Series(plain.grade, index=pd.MultiIndex.from_arrays(
        [plain.query.to_pylist(), plain.doc.to_pylist()])).sort_index()
    assert got.to_dict() == expected.to_dict()


def test_subtopic_reader_errors(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1 1 d1 1\n1 2 d1 x\n")
    with pytest.raises(TrecFormatError, match=r"bad.txt:2: grade 'x'"):
        read_subtopic_qrels(bad)
    dup = tmp_path / "dup.txt"
    dup.write_text("1 1 d1 1\n1 2 d1 0\n1 1 d1 0\n")
    with pytest.raises(TrecFormatError, match=r"dup.txt:3: .*judged twice"):
        read_subtopic_qrels(dup)
    short = tmp_path / "short.txt"
    short.write_text("1 1 d1\n")
    with pytest.raises(TrecFormatError, match="expected 4 fields 'topic subtopic docid grade'"):
        read_subtopic_qrels(short)
    with pytest.raises(ValueError, match="no column"):
        as_subtopic_qrels(pd.DataFrame({"query_id": ["1"], "doc_id": ["d"], "relevance": [1]}))


def _write_runs(tmp_path: Path, sub_path: Path, n_runs: int = 3, depth: int = 30) -> list[Path]:
    """Synthetic runs over the judged documents of the diversity qrels (seeded)."""
    rng = np.random.default_rng(7)
    with gzip.open(sub_path, "rt") as f:
        rows = [line.split() for line in f]
    by_q: dict[str, list[str]] = {}
    for q, _t, d, _g in rows:
        if d not in by_q.setdefault(q, []):
            by_q[q].append(d)
    paths = []
    for r in range(n_runs):
        lines = []
        for q, docs in by_q.items():
            pick = rng.permutation(len(docs))[:depth]
            for rank, i in enumerate(pick):
                lines.append(f"{q} Q0 {docs[i]} {rank + 1} {depth - rank} run{r}\n")
        path = tmp_path / f"run{r}.txt"
        path.write_text("".join(lines))
        paths.append(path)
    return paths


def test_subtopic_rpp_on_web_diversity(data_dir, tmp_path):
    path = next((data_dir / "web-diversity").glob("*ndeval*"))
    runs = _write_runs(tmp_path, path)
    t = irpref.compare(path, runs, ["ST-RPP", "RPP(grades=binary)"])
    assert set(t["measure"].astype(str)) == {"ST-RPP", "RPP(grades=binary)"}
    assert t["value"].between(-1, 1).all()
    assert len(set(t["query"].astype(str))) >= 45
    # same values when the subtopic file is given separately
    t2 = irpref.compare(collapse(read_subtopic_qrels(path)), runs, ["ST-RPP"], subtopics=path)
    a = t[t["measure"] == "ST-RPP"]["value"].to_numpy()
    np.testing.assert_array_equal(a, t2["value"].to_numpy())


# ---------------------------------------------------------------- aggregation


def test_win_rate_borda_mc4():
    # three runs, per-query matrices; run 0 beats everyone on every query
    m = np.zeros((3, 3, 3))
    for q in range(3):
        m[q, 0, 1] = m[q, 0, 2] = 1
    m[:2, 1, 2] = 0.5
    m[2, 1, 2] = -0.25
    m -= m.transpose(0, 2, 1)
    w = win_rates(m)
    np.testing.assert_allclose(w[0], [2, -0.5, -1.5])
    assert ordering(w.mean(axis=0), ["x", "y", "z"]) == ["x", "y", "z"]
    np.testing.assert_allclose(borda(w), [6, 2, 1])
    for t in (0.0, 0.05, 0.3):
        pi = mc4(w, teleport=t)
        assert pi.sum() == pytest.approx(1)
        assert ordering(pi, ["x", "y", "z"])[0] == "x"
    # Condorcet winner absorbs the plain chain
    assert mc4(w, teleport=0.0)[0] == pytest.approx(1.0)
    assert mc4(w, teleport=0.05)[1] > mc4(w, teleport=0.05)[2]
    with pytest.raises(ValueError, match="teleport"):
        mc4(w, teleport=1.0)


def test_borda_ties_count_half():
    np.testing.assert_allclose(borda(np.array([[1.0, 1.0, 0.0]])), [1.5, 1.5, 0.0])


def test_kendall_tau():
    assert kendall_tau(["a", "b", "c"], ["a", "b", "c"]) == pytest.approx(1.0)
    assert kendall_tau(["a", "b", "c"], ["c", "b", "a"]) == pytest.approx(-1.0)
    assert kendall_tau(["a", "b", "c", "d"], ["b", "a", "c", "d"]) == pytest.approx(4 / 6)
    assert kendall_tau({"a": 1, "b": 2}, pd.Series({"a": 0.1, "b": 0.5})) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="different runs"):
        kendall_tau(["a", "b"], ["a", "c"])


def test_system_orderings_from_tidy(data_dir):
    d = data_dir / "dl19-passage"
    runs = sorted((d / "runs").glob("*.gz"))[:6]
    t = irpref.compare(d / "qrels.txt", runs, ["RPP", "sgnLP"], rel=2)
    names, queries, mats = matrices_from_tidy(t, "RPP")
    assert len(names) == 6 and mats.shape == (len(queries), 6, 6)
    orders = system_orderings(t)
    assert set(orders["method"]) == {"win_rate", "mc4", "borda"}
    assert len(orders) == 2 * 3 * 6
    rpp = orders[orders["measure"] == "RPP"]
    by = {m: list(g["run"]) for m, g in rpp.groupby("method")}
    # the aggregations broadly agree on real runs
    assert kendall_tau(by["win_rate"], by["borda"]) > 0.5
    assert kendall_tau(by["win_rate"], by["mc4"]) > 0.5


# ---------------------------------------------------------------- CLI


def _cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = irpref_cli("compare", *args)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def dl19_small(data_dir):
    d = data_dir / "dl19-passage"
    return d / "qrels.txt", sorted((d / "runs").glob("*.gz"))[:4]


@pytest.mark.slow
def test_cli_tsv(dl19_small):
    qrels, runs = dl19_small
    out = _cli(qrels, *runs, "-m", "sgnLP", "RPP(p=dcg)", "--rel", "2", "--format", "tsv")
    lines = out.stdout.splitlines()
    assert lines[0] == "run_a\trun_b\tmeasure\tvalue"
    assert len(lines) == 1 + 6 * 2
    rows = [line.split("\t") for line in lines[1:]]
    api = irpref.mean_preferences(irpref.compare(qrels, runs, ["sgnLP", "RPP(p=dcg)"], rel=2))
    expected = {(a, b, m): v for a, b, m, v in api.itertuples(index=False)}
    for a, b, m, v in rows:
        assert float(v) == expected[a, b, m]  # full precision
    per_query = _cli(qrels, *runs, "-m", "sgnLR", "--rel", "2", "--format", "tsv",
                     "--per-query").stdout.splitlines()
    assert len(per_query) == 1 + 6 * 43 + 6
    assert [line.split("\t")[2] for line in per_query[-6:]] == [""] * 6  # mean rows


@pytest.mark.slow
def test_cli_table_and_json(dl19_small):
    qrels, runs = dl19_small
    out = _cli(qrels, *runs, "-m", "RPP", "sgnLR", "--rel", "2").stdout
    assert "== RPP (real): mean over 43 queries" in out
    assert "== sgnLR (sign)" in out
    assert "MC4" in out and "Borda" in out and "win rate (Eq. 7)" in out
    records = json.loads(_cli(qrels, *runs, "-m", "rrLP", "--format", "json").stdout)
    assert len(records) == 6 and all("query" not in r for r in records)


@pytest.mark.slow
def test_cli_errors(dl19_small, tmp_path):
    qrels, runs = dl19_small
    bad = _cli(qrels, *runs, "-m", "nDCG", check=False)
    assert bad.returncode == 2 and "irpref evaluate" in bad.stderr
    missing = _cli(tmp_path / "none.txt", *runs, check=False)
    assert missing.returncode == 1


@pytest.mark.slow
def test_cli_subtopics(data_dir, tmp_path):
    path = next((data_dir / "web-diversity").glob("*ndeval*"))
    runs = _write_runs(tmp_path, path, n_runs=2, depth=10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = _cli(path, *runs, "-m", "ST-RPP", "sgnLP", "--format", "tsv").stdout.splitlines()
    assert out[0].startswith("run_a\trun_b") and len(out) == 3
