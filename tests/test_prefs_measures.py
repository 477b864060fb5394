"""The Prefs* measure families (trec_eval's prefs_*) in the Python API and
``irpref evaluate``, preference judgments as a qrels kind, and judgment groups
(one judge of a qrels_jg file) wherever qrels are read (``irpref agree``)."""

from __future__ import annotations

import gzip
import warnings

import pytest
from helpers import irpref_cli

import irpref
from irpref.errors import UsageError
from irpref.io import read_prefs
from irpref.measures import REGISTRY, parse_measure
from irpref.measures.trec_prefs import PREFS_MEASURES

NAMES = {"prefs_simp": "PrefsSimp", "prefs_pair": "PrefsPair",
         "prefs_avgjg_Rnonrel": "PrefsAvgJGRnonrel", "prefs_num_prefs_ful": "PrefsNumFul",
         "prefs_avgjg_imp": "PrefsAvgJGImp", "prefs_simp_ret": "PrefsSimpRet"}


def _trec(path) -> dict[tuple[str, str], str]:
    out = {}
    for ln in path.read_text().splitlines():
        m, q, v = ln.split()
        out[(m, q)] = v
    return out


def _agrees(results, want) -> None:
    back = {v: k for k, v in NAMES.items()}
    for row in results.itertuples():
        expect = want[(back[row.measure], row.query)]
        got = f"{row.value:.4f}" if "." in expect else str(int(row.value))
        assert got == expect, (row.measure, row.query)


def test_records():
    fams = {t.name: name for name, fam in REGISTRY.items() for t in fam.trec}
    for trec_name in PREFS_MEASURES:
        fam = REGISTRY[fams[trec_name]]
        assert parse_measure(trec_name).name == fam.name
        assert "trec_eval" in fam.follows and fam.source.startswith("trec_eval m_prefs")
        assert fam.range == ("[0, inf)" if trec_name.startswith("prefs_num") else "[0, 1]")
        assert fam.orientation == ("none" if trec_name == "prefs_num_prefs_poss" else "higher")
        assert fam.bounds is None and fam.bounds_note


def test_preference_judgments_in_evaluate(data_dir):
    d = data_dir / "trec_eval"
    results = irpref.evaluate(read_prefs(d / "prefs.test"), [d / "prefs.results.test"],
                              list(NAMES.values()))
    assert set(results["query"]) == {q for (_, q) in _trec(d / "out.test.prefs")} - {"all"}
    _agrees(results, _trec(d / "out.test.prefs"))
    with pytest.raises(UsageError, match="AP needs relevance judgments"):
        irpref.evaluate(read_prefs(d / "prefs.test"), [d / "prefs.results.test"], ["AP"])


def test_graded_qrels_are_preferences(data_dir):
    """Without preference judgments the Prefs* measures read the qrels as trec_eval's
    -R qrels_prefs does (ICT-BERT2 has no tied scores: both tie-breaks agree)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = irpref.evaluate(data_dir / "dl19-passage" / "qrels.txt",
                                  [data_dir / "dl19-passage" / "runs" / "ICT-BERT2.gz"],
                                  list(NAMES.values()), missing="zero")
    _agrees(results, _trec(data_dir / "trec_eval" / "real" / "te10.dl19.ICT-BERT2.qrels_prefs"))


@pytest.mark.slow
def test_evaluate_command_reads_a_prefs_file(data_dir, tmp_path):
    d = data_dir / "trec_eval"
    prefs = tmp_path / "judgments.prefs"
    prefs.write_bytes((d / "prefs.test").read_bytes())
    out = irpref_cli("evaluate", prefs, d / "prefs.results.test", "-m", "prefs_simp",
                     "--format", "tsv", "--per-query")
    assert out.returncode == 0, out.stderr
    rows = [ln.split("\t") for ln in out.stdout.splitlines()[1:]]
    got = {q: f"{float(v):.4f}" for _, q, m, v in rows if q}
    want = {q: v for (m, q), v in _trec(d / "out.test.prefs").items() if m == "prefs_simp"}
    assert got == {q: v for q, v in want.items() if q != "all"}
    bad = irpref_cli("evaluate", prefs, d / "prefs.results.test", "-m", "AP")
    assert bad.returncode == 2 and "AP needs relevance judgments" in bad.stderr
    broken = tmp_path / "broken.prefs"
    broken.write_text("q1 u s d1 1\nq1 u s d2\n")
    bad = irpref_cli("evaluate", broken, d / "prefs.results.test", "-m", "PrefsSimp")
    assert bad.returncode == 1 and f"{broken}:2: expected 5 fields" in bad.stderr


@pytest.mark.slow
def test_agree_compares_two_judges_of_one_file(data_dir, tmp_path):
    path = tmp_path / "dl19.qrels_jg"
    with gzip.open(data_dir / "trec_eval" / "real" / "dl19.qrels_jg.gz", "rb") as handle:
        path.write_bytes(handle.read())
    out = irpref_cli("agree", f"judge:nist:{path}", f"judge:noisy:{path}", "--format", "tsv")
    assert out.returncode == 0, out.stderr
    stats = {ln.split("\t")[0]: ln.split("\t")[-1] for ln in out.stdout.splitlines()}
    assert stats["queries"] == "43" and stats["pairs_only_a"] == "992"  # noisy skipped 992
    same = irpref_cli("agree", f"judge:nist:{path}", data_dir / "dl19-passage" / "qrels.txt",
                      "--format", "tsv")
    assert same.returncode == 0, same.stderr
    assert {ln.split("\t")[0]: ln.split("\t")[-1] for ln in same.stdout.splitlines()}[
        "kappa"].startswith("1")
    bad = irpref_cli("agree", f"judge:nobody:{path}", f"judge:noisy:{path}")
    assert bad.returncode == 1 and "no judge 'nobody' (judges: nist, noisy)" in bad.stderr
