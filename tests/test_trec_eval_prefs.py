"""``irpref trec_eval -R prefs | qrels_prefs | qrels_jg``: trec_eval's preference and
judgment-group formats, byte for byte.

Expected outputs: trec_eval's own ``out.test.prefs``, and ``te10.*`` files made by
trec_eval 10.0 compiled from its public source (tests/data/README.md) on
trec_eval's test files and on real TREC runs (DL 2019 passage, Robust 2003).
The counts are also checked against a brute-force reading of trec_eval's
definitions on random judgments (hypothesis), and bad files through the
installed command.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from helpers import irpref_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from irpref.cli.main import main as cli_main
from irpref.io.prefs import Preferences, read_qrels_jg
from irpref.io.records import Run
from irpref.io.trec import read_run
from irpref.measures.pref_judgments import judge_preferences
from irpref.measures.pref_pairs import preference_pairs
from irpref.measures.trec_prefs import PREFS_MEASURES, prefs_values
from irpref.trec_eval.judgments import per_judge

TE = "trec_eval"


def run_fast(capsys, monkeypatch, cwd, *args: str):
    monkeypatch.chdir(cwd)
    code = cli_main(["trec_eval", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


# ---- the acceptance: out.test.prefs through the installed command ------------

@pytest.mark.parametrize("prefs", ["prefs.test", "prefs.comment.test"])
def test_out_test_prefs_byte_for_byte(data_dir, prefs):
    d = data_dir / "trec_eval"
    out = irpref_cli(TE, "-m", "all_prefs", "-q", "-R", "prefs", d / prefs,
                     d / "prefs.results.test")
    assert (out.returncode, out.stderr) == (0, "")
    assert out.stdout == (d / "out.test.prefs").read_text()


# ---- trec_eval 10.0's outputs on its test files ---------------------------------------

SUITE = {
    "te10.qrels_prefs.aq": ["-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.test",
                            "results.test"],
    "te10.qrels_prefs.aqcM": ["-m", "all_prefs", "-q", "-c", "-M100", "-R", "qrels_prefs",
                              "qrels.test", "results.trunc"],
    "te10.qrels_prefs.aql": ["-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.rel_level",
                             "results.test"],
    "te10.prefs.aqcM": ["-m", "all_prefs", "-q", "-c", "-M3", "-R", "prefs", "prefs.test",
                        "prefs.results.test"],
    "te10.qrels_jg.aq": ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels_jg.test",
                         "results.test"],
    "te10.qrels_jg.aqcMJ": ["-m", "qrels_jg", "-q", "-c", "-M100", "-J", "-R", "qrels_jg",
                            "qrels_jg.test", "results.trunc"],
    "te10.qrels_jg.aql": ["-m", "qrels_jg", "-m", "P_avgjg.3,7", "-m",
                          "Rprec_mult_avgjg.0.5,1.5", "-q", "-l2", "-R", "qrels_jg",
                          "qrels_jg.test", "results.test"],
}


@pytest.mark.parametrize("name", sorted(SUITE))
def test_trec_eval_test_files(data_dir, capsys, monkeypatch, name):
    d = data_dir / "trec_eval"
    code, out, err = run_fast(capsys, monkeypatch, d, *SUITE[name])
    assert (code, err) == (0, "")
    assert out == (d / name).read_text()


def test_summary_only_and_nicknames(data_dir, capsys, monkeypatch):
    """Without -q only the summary; ``-m prefs`` is trec_eval's shorter set."""
    d = data_dir / "trec_eval"
    want = [ln for ln in (d / "out.test.prefs").read_text().splitlines(keepends=True)
            if "\tall\t" in ln]
    code, out, _ = run_fast(capsys, monkeypatch, d, "-m", "all_prefs", "-R", "prefs",
                            "prefs.test", "prefs.results.test")
    assert code == 0 and out == "".join(want)
    code, out, _ = run_fast(capsys, monkeypatch, d, "-m", "prefs", "-R", "prefs",
                            "prefs.test", "prefs.results.test")
    names = [ln.split()[0] for ln in out.splitlines()]
    assert names == ["runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
                     "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg"]


# ---- real TREC runs -------------------------------------------------------------------

def _real(data_dir, run_dir, run):
    return [str(data_dir / run_dir / "runs" / f"{run}.gz")]


REAL = {
    "te10.dl19.ICT-BERT2.qrels_prefs": (["-m", "all_prefs", "-q", "-c", "-R", "qrels_prefs",
                                         "dl19-passage/qrels.txt"], "dl19-passage", "ICT-BERT2"),
    "te10.dl19.bm25base_p.qrels_prefs.M50": (["-m", "all_prefs", "-q", "-M50", "-R",
                                              "qrels_prefs", "dl19-passage/qrels.txt"],
                                             "dl19-passage", "bm25base_p"),
    "te10.dl19.ICT-BERT2.qrels_jg": (["-m", "qrels_jg", "-q", "-R", "qrels_jg",
                                      "trec_eval/real/dl19.qrels_jg.gz"], "dl19-passage",
                                     "ICT-BERT2"),
    "te10.dl19.bm25base_p.qrels_jg.l2M100J": (["-m", "qrels_jg", "-q", "-l2", "-M100", "-J",
                                               "-R", "qrels_jg",
                                               "trec_eval/real/dl19.qrels_jg.gz"],
                                              "dl19-passage", "bm25base_p"),
    "te10.dl19.ICT-BERT2.prefs": (["-m", "all_prefs", "-q", "-R", "prefs",
                                   "trec_eval/real/dl19.prefs.gz"], "dl19-passage",
                                  "ICT-BERT2"),
    "te10.robust03.rutcor03100.qrels_prefs": (["-m", "all_prefs", "-q", "-R", "qrels_prefs",
                                               "robust03/qrels.txt"], "robust03",
                                              "rutcor03100"),
    "te10.robust03.humR03dc.qrels_prefs": (["-m", "all_prefs", "-q", "-c", "-R",
                                            "qrels_prefs", "robust03/qrels.txt"], "robust03",
                                           "humR03dc"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REAL))
def test_real_runs(data_dir, capsys, monkeypatch, name):
    args, run_dir, run = REAL[name]
    code, out, err = run_fast(capsys, monkeypatch, data_dir, *args,
                              *_real(data_dir, run_dir, run))
    assert (code, err) == (0, "")
    assert out == (data_dir / "trec_eval" / "real" / name).read_text()


# ---- refusals, through the installed command -------------------------------------------

def _prefs_cli(tmp_path, text, *extra, run="q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\n"):
    prefs = tmp_path / "p.prefs"
    prefs.write_text(text)
    results = tmp_path / "r.run"
    results.write_text(run)
    return irpref_cli(TE, "-m", "all_prefs", "-R", "prefs", *extra, prefs, results), prefs


@pytest.mark.slow
@pytest.mark.parametrize("text, line, problem", [
    ("q1 u s d1 2\nq1 u s d2\n", 2, "expected 5 fields 'qid jg jsg docid rel_level', got 4"),
    ("q1 u s d1 2\nq1 u s d2 x\n", 2, "level 'x' is not a finite number"),
    ("q1 u s d1 2\nq1 u s d2 nan\n", 2, "level 'nan' is not a finite number"),
    ("q1 u s d1 2\nq1 u s d2 1\nq1 u s d1 0\n", 3,
     "document listed twice in one judgment subgroup (first at line 1)"),
    ("q1 u a d1 2\nq1 u a d2 1\nq1 u b d2 2\nq1 u b d1 1\n", 4,
     "judgment group u of query q1 contradicts itself"),
    ("q1 u a d1 2\nq1 u a d2 0\nq1 u b d2 1\nq1 u b d3 0\n", 3,
     "document d2 has level 0 and a level > 0 in judgment group u of query q1"),
])
def test_bad_prefs_file_names_the_line(tmp_path, text, line, problem):
    out, path = _prefs_cli(tmp_path, text)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.startswith(f"irpref trec_eval: error: {path}:{line}: {problem}")


@pytest.mark.slow
@pytest.mark.parametrize("fmt, text, line, problem", [
    ("qrels_jg", "q1 a d1 1\nq1 a d2 x\n", 2, "grade 'x' is not an integer"),
    ("qrels_jg", "q1 a d1 1\nq1 b d1 0\nq1 a d1 0\n", 3,
     "document judged twice by one judge (first at line 1)"),
    ("qrels_jg", "q1 a d1 1 extra\n", 1, "expected 4 fields 'qid judge docid grade', got 5"),
    ("qrels_prefs", "q1 0 d1 1\nq1 0 d1 2\n", 2,
     "document judged twice by one judgment group (first at line 1)"),
    ("qrels_prefs", "q1 0 d1 1\nq1 0 d2 inf\n", 2, "level 'inf' is not a finite number"),
])
def test_bad_qrels_formats_name_the_line(tmp_path, fmt, text, line, problem):
    path = tmp_path / "j.txt"
    path.write_text(text)
    results = tmp_path / "r.run"
    results.write_text("q1 Q0 d1 1 3 r\n")
    marks = ["-m", "qrels_jg"] if fmt == "qrels_jg" else ["-m", "all_prefs"]
    out = irpref_cli(TE, *marks, "-R", fmt, path, results)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.startswith(f"irpref trec_eval: error: {path}:{line}: {problem}")


def test_comments_and_blank_lines(tmp_path):
    """'#' lines and blank lines are skipped; a '#' inside a field is data."""
    out, _ = _prefs_cli(tmp_path, "# note\n\nq1 u s d1 2\n  # indented note\nq1 u s d#2 1\n",
                        "-q", run="q1 Q0 d1 1 3 r\nq1 Q0 d#2 2 2 r\n")
    assert out.returncode == 0, out.stderr
    assert "prefs_num_prefs_ful   \tq1\t1\n" in out.stdout


@pytest.mark.slow
def test_empty_judgments_and_missing_query(tmp_path):
    out, path = _prefs_cli(tmp_path, "# only a comment\n")
    assert out.returncode == 1 and f"{path}: empty judgment file" in out.stderr
    out, _ = _prefs_cli(tmp_path, "q1 u s d1 2\nq1 u s d2 1\nq2 u s d1 1\nq2 u s d3 0\n")
    assert out.returncode == 1 and out.stdout == ""
    assert "result qid 'q2' not found in qrels" in out.stderr
    out, _ = _prefs_cli(tmp_path, "q1 u s d1 2\nq1 u s d2 1\nq2 u s d1 1\nq2 u s d3 0\n",
                        "-c", "-q")
    assert out.returncode == 0
    assert "prefs_num_prefs_poss  \tq2\t1\n" in out.stdout  # possible even if not retrieved
    assert "prefs_num_prefs_ful   \tq2\t0\n" in out.stdout


def test_measure_needs_its_format(data_dir, capsys, monkeypatch):
    d = data_dir / "trec_eval"
    code, out, err = run_fast(capsys, monkeypatch, d, "-m", "map_avgjg", "-R", "prefs",
                              "prefs.test", "prefs.results.test")
    assert (code, out) == (2, "") and "measure 'map_avgjg' needs -R qrels_jg" in err
    code, out, err = run_fast(capsys, monkeypatch, d, "-m", "map", "-R", "qrels_prefs",
                              "qrels.test", "results.test")
    assert (code, out) == (2, "") and "measure 'map' needs -R qrels" in err


# ---- judgment groups: per-judge values -------------------------------------------------

def test_per_judge_values_average_to_map_avgjg(data_dir):
    d = data_dir / "trec_eval"
    groups = read_qrels_jg(d / "qrels_jg.test")
    table = per_judge(groups, read_run(d / "results.test"), ["AP", "P@10"])
    assert sorted(set(table["judge"])) == ["assessor1", "assessor2", "assessor3"]
    ap = table[table["measure"] == "AP"].groupby("query")["value"].mean()
    want = {ln.split()[1]: float(ln.split()[2])
            for ln in (d / "te10.qrels_jg.aq").read_text().splitlines()
            if ln.startswith("map_avgjg") and "all" not in ln}
    assert {q: round(v, 4) for q, v in ap.items()} == want
    # assessor1 judges with qrels.test: its AP is trec_eval's map on qrels.test
    one = table[(table["judge"] == "assessor1") & (table["measure"] == "AP")]
    maps = {ln.split()[1]: float(ln.split()[2])
            for ln in (d / "out.test.aq").read_text().splitlines() if ln.startswith("map ")}
    assert {q: round(v, 4) for q, v in zip(one["query"], one["value"])} == {
        q: v for q, v in maps.items() if q != "all"}


# ---- the counts against a brute-force reading of trec_eval's definitions ------------

def _brute(lines, ranking):
    """Per JG: ful_ret, poss_ret, ful_imp, poss_imp, notoccur (form_prefs_counts.c)."""
    judged = sorted({d for _, _, d, _ in lines})
    ret = [d for d in ranking if d in judged]
    rank = {d: i for i, d in enumerate(ret)}
    for d in sorted(set(judged) - set(ret)):
        rank[d] = len(rank)
    njr = len(ret)
    out = {}
    for g in sorted({g for g, _, _, _ in lines}):
        mine = [(s, d, lv) for gg, s, d, lv in lines if gg == g]
        prefs = {(a, b) for s1, a, la in mine for s2, b, lb in mine if s1 == s2 and la > lb}
        if len({s for s, _, _ in mine}) > 1:  # closed transitively
            changed = True
            while changed:
                new = {(a, c) for a, b in prefs for b2, c in prefs if b == b2}
                changed = not new <= prefs
                prefs |= new
        c = dict.fromkeys(("ful_ret", "poss_ret", "ful_imp", "poss_imp", "notoccur"), 0)
        for a, b in prefs:
            ra, rb = rank[a], rank[b]
            if ra < njr and rb < njr:
                c["poss_ret"] += 1
                c["ful_ret"] += ra < rb
            elif ra < njr:
                c["ful_imp"] += 1
                c["poss_imp"] += 1
            elif rb < njr:
                c["poss_imp"] += 1
            else:
                c["notoccur"] += 1
        out[g] = c
    return out


judgments = st.lists(
    st.tuples(st.sampled_from(["u", "v"]), st.sampled_from(["s", "t"]),
              st.sampled_from([f"d{i}" for i in range(7)]), st.integers(0, 3)),
    min_size=2, max_size=14, unique_by=lambda r: r[:3])


one_subgroup = st.lists(  # every JG of one subgroup: the equivalence-class path
    st.tuples(st.sampled_from(["u", "v"]), st.just("s"),
              st.sampled_from([f"d{i}" for i in range(7)]), st.integers(0, 3)),
    min_size=2, max_size=14, unique_by=lambda r: r[:3])


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.one_of(judgments, one_subgroup), st.permutations([f"d{i}" for i in range(9)]),
       st.integers(0, 9))
def test_counts_match_brute_force(lines, order, depth):
    # keep the JG's JSGs consistent (no cycle): one level per (JG, document), shifted
    level = {}
    lines = [(g, s, d, level.setdefault((g, d), lv)) for g, s, d, lv in lines]
    prefs = Preferences(*(np.array(c, dtype=object) for c in zip(*[("q", g, s, d)
                                                                for g, s, d, _ in lines])),
                        np.array([lv for *_, lv in lines], np.float64),
                        np.arange(1, len(lines) + 1))
    ranking = order[:depth] if depth else order[:1]
    import pyarrow as pa

    run = Run("r", pa.array(["q"] * len(ranking)), pa.array(ranking),
              np.linspace(2, 1, len(ranking)))
    jp = judge_preferences(preference_pairs(prefs), [run])
    want = _brute([(g, s, d, lv) for g, s, d, lv in lines], ranking)
    for i, g in enumerate(jp.pairs.group_names):
        got = {k: int(jp.groups[k][0, i]) for k in want[g]}
        assert got == want[g], (g, lines, ranking)
    # the summary measures follow from the counts
    c = {k: sum(w[k] for w in want.values()) for k in next(iter(want.values()))}
    ful, poss = c["ful_ret"] + c["ful_imp"], c["poss_ret"] + c["poss_imp"] + c["notoccur"]
    assert prefs_values(jp, "prefs_num_prefs_poss")[0, 0] == poss
    assert prefs_values(jp, "prefs_simp")[0, 0] == (ful / poss if poss else 0.0)


def test_every_prefs_measure_is_computed():
    assert len(PREFS_MEASURES) == 14
    assert len(set(itertools.chain(PREFS_MEASURES))) == 14
