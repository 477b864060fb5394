"""The paper-reproduction scripts (experiments/*.py) on any collection:
``--collection NAME`` under IRPREF_DATA, the papers' rows per collection
(experiments/paper_rows.py) and the verdicts exact / within noise / differs.

A tiny collection is written to a temporary IRPREF_DATA; fake paper rows are
injected into the paper table to check the verdict logic.
"""

from __future__ import annotations

import gzip
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import write_qrels, write_run

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

import _common  # noqa: E402
import paper_rows  # noqa: E402

QRELS = [("q1", "a", 2), ("q1", "b", 1), ("q1", "c", 2), ("q1", "d", 0),
         ("q2", "a", 1), ("q2", "e", 2), ("q2", "f", 2),
         ("q3", "g", 2), ("q3", "h", 1), ("q3", "i", 2), ("q3", "j", 0)]
ORDERS = {  # run -> query -> documents in rank order
    "runA": {"q1": "abcdx", "q2": "efaxy", "q3": "ghijx"},
    "runB": {"q1": "cbadx", "q2": "xefay", "q3": "jighx"},
    "runC": {"q1": "xacbd", "q2": "feaxy", "q3": "gxhij"},
}


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    """IRPREF_DATA holding the collection ``tiny`` (3 queries, 3 runs)."""
    root = tmp_path_factory.mktemp("data")
    folder = root / "tiny"
    (folder / "runs").mkdir(parents=True)
    write_qrels(folder / "qrels.txt", QRELS)
    for run, queries in ORDERS.items():
        rows = [(q, d, 10.0 - k) for q, docs in queries.items() for k, d in enumerate(docs)]
        text = write_run(root / f"{run}.txt", rows, tag=run).read_bytes()
        with gzip.open(folder / "runs" / f"{run}.gz", "wb") as f:
            f.write(text)
    return root


def script(name: str, *args: str, data: Path) -> subprocess.CompletedProcess:
    """Run ``python experiments/NAME.py ARGS`` with IRPREF_DATA=data."""
    env = {**os.environ, "IRPREF_DATA": str(data), "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, str(EXPERIMENTS / f"{name}.py"), *args],
                          capture_output=True, text=True, env=env, timeout=120)


def load(name: str):
    return importlib.import_module(name)


def usage_error(name: str, args: list[str], capsys) -> list[str]:
    """Run ``NAME.main(args)`` in this process: exit 2, the stderr lines returned."""
    with pytest.raises(SystemExit) as exc:
        load(name).main(args)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.splitlines()


@pytest.mark.slow
def test_unknown_collection_is_one_line_exit_2(data):
    r = script("lexiprecision_table1_table2", "--collection", "dl20-passage", data=data)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("lexiprecision_table1_table2.py: error: unknown collection "
                               "'dl20-passage'")
    assert str(data) in lines[0] and "qrels.txt" in lines[0] and "runs/*.gz" in lines[0]


@pytest.mark.slow
def test_bad_run_line_is_one_line_exit_2(tmp_path):
    (tmp_path / "broken" / "runs").mkdir(parents=True)
    write_qrels(tmp_path / "broken" / "qrels.txt", QRELS)
    with gzip.open(tmp_path / "broken" / "runs" / "r.gz", "wt") as f:
        f.write("q1 Q0 a 1\n")
    r = script("lexiprecision_table1_table2", "--collection", "broken", data=tmp_path)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"lexiprecision_table1_table2.py: error: {tmp_path}/broken/runs/"
                               "r.gz:1: ")


def test_collection_without_runs_is_one_line_exit_2(tmp_path, monkeypatch, capsys):
    (tmp_path / "bare").mkdir()
    write_qrels(tmp_path / "bare" / "qrels.txt", QRELS)
    monkeypatch.setenv("IRPREF_DATA", str(tmp_path))
    assert usage_error("rpp_table3_table4", ["--collection", "bare"], capsys) == [
        f"rpp_table3_table4.py: error: collection 'bare' has no runs/*.gz; expected "
        f"bare/qrels.txt and bare/runs/*.gz in {tmp_path} (IRPREF_DATA names another "
        "data folder)"]


@pytest.mark.parametrize("args", [["--collection", "../tiny"], ["--rel", "-1"],
                                  ["--rel", "x"], ["--collection"], ["--bogus"]])
def test_bad_options_exit_2_without_traceback(data, args, monkeypatch, capsys):
    monkeypatch.setenv("IRPREF_DATA", str(data))
    err = usage_error("lexiprecision_table1_table2", args, capsys)
    assert err[-1].startswith("lexiprecision_table1_table2.py: error: ")


def test_simulation_script_takes_no_collection(capsys):
    err = usage_error("lexirecall_table3_table4", ["--no-plot", "--collection", "tiny"], capsys)
    assert err[-1].endswith("unrecognized arguments: --collection tiny")


@pytest.mark.slow
def test_paper_reports_no_row_still_prints_irpref(data):
    r = script("lexiprecision_table1_table2", "--collection", "tiny", data=data)
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[0] == ("Diaz 2023 (lexiprecision), Table 2, §5.2, tiny, % tied (grade >= 1): "
                      "paper reports no row for tiny")
    assert out[1].split()[:4] == ["RR", "(δRR_1)", "paper", "-"]
    assert float(out[1].split()[-1]) >= 0  # irpref's number is printed
    assert not any("exact" in line or "differs" in line for line in out)


def test_verdicts_against_an_injected_paper_row(data, monkeypatch, capsys):
    monkeypatch.setenv("IRPREF_DATA", str(data))
    from irpref.meta import tie_rates

    coll = _common.collection("tiny")
    t = tie_rates(coll.qrels, coll.runs, ["RR", "sgnLP", "rrLP"], rel=1)
    got = dict(zip(t.measure, t.percent_tied))
    row = {"RR": f"{got['RR']:.2f}", "sgnLP": f"{got['sgnLP'] + 1:.2f}",
           "rrLP": f"{got['rrLP'] + 0.5:.1f}"}
    monkeypatch.setitem(paper_rows.LEXIPRECISION["Table 2"], "tiny", row)
    monkeypatch.setitem(paper_rows.REASONS, ("lexiprecision", "Table 2", "tiny", "rrLP"),
                        "a known cause")
    load("lexiprecision_table1_table2").main(["--collection", "tiny"])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Diaz 2023 (lexiprecision), Table 2, §5.2, tiny, % tied (grade >= 1)"
    assert out[1].endswith("  exact") and out[1].split()[:4] == ["RR", "(δRR_1)", "paper",
                                                                 row["RR"]]
    assert out[2].endswith("  differs: unexplained")
    assert out[3].endswith("  differs: a known cause")
    assert "paper reports no row for tiny" in out[4]  # Table 1 has no tiny row


def test_paper_level_and_rel_override(data, monkeypatch, capsys):
    monkeypatch.setenv("IRPREF_DATA", str(data))
    monkeypatch.setitem(paper_rows.REL["lexiprecision"], "tiny", 2)
    mod = load("lexiprecision_table1_table2")
    mod.main(["--collection", "tiny"])
    out = capsys.readouterr().out
    assert "% tied (grade >= 2)" in out
    # Table 1 only at the paper's level (grade >= 1): no "differs: unexplained" row at 2
    assert "δRR_1 (grade >= 1, the paper's Table 1 level)" in out
    assert "δRR_1 (grade >= 2" not in out
    mod.main(["--collection", "tiny", "--rel", "1"])
    assert "% tied (grade >= 1)" in capsys.readouterr().out


def test_asl_table1_needs_existing_runs(data, monkeypatch, capsys):
    monkeypatch.setenv("IRPREF_DATA", str(data))
    args = ["--collection", "tiny", "--table1", "runA"]
    assert usage_error("asl_table2", [*args, "runZ"], capsys) == [
        "asl_table2.py: error: --table1: no run 'runZ' in tiny (no runs/runZ.gz)"]
    load("asl_table2").main([*args, "runB"])
    out = capsys.readouterr().out
    assert ("Alex, Hall & Metzler (ASL), Table 1, §4.3, tiny (grade >= 1; BM25 runA, neural "
            "runB): paper reports no row for tiny") in out
    assert "only ranges over 76 TREC tracks" in out


def test_dataset_facts_row(data, monkeypatch, capsys):
    """lexirecall Table 5 facts: requests, runs, relevant per request (grade >= 1: 3 in
    each query), documents retrieved per (run, request)."""
    monkeypatch.setenv("IRPREF_DATA", str(data))
    monkeypatch.setitem(paper_rows.LEXIRECALL["Table 5"], "tiny",
                        {"requests": "3", "runs": "4", "rel/request": "3.00",
                         "docs/request": "5.00"})
    load("lexirecall_fig10").main(["--collection", "tiny", "--no-plot"])
    out = capsys.readouterr().out.splitlines()
    assert out[1].split()[-2:] == ["3", "exact"]
    assert out[2].split()[-3:] == ["3", "differs:", "unexplained"]
    assert out[3].split()[-2:] == ["3.0000", "exact"]
    assert out[4].split()[-2:] == ["5.0000", "exact"]
    assert not list(EXPERIMENTS.glob("lexirecall_fig10.tiny*"))  # --no-plot: no figure


def test_verdict_rules():
    v = _common.verdict
    assert v(56.89, 56.886, 2) == "exact"
    assert v(0.825, 0.82566, 3) == "differs: unexplained"
    assert v(0.825, 0.82566, 3, reason="why") == "differs: why"
    assert v(42.34, 41.74, 2, se=0.3).startswith("within noise (|diff| 0.6 <= 3 se")
    assert v(42.34, 41.74, 2, se=0.1) == "differs: unexplained"
    assert v(42.34, 41.74, 2, se=0.1, reason="r") == "differs: r"


def test_paper_rows_are_consistent():
    """Every table row parses at its printed precision; every reason and level
    points at a known paper, table and collection."""
    for paper, tables in paper_rows.PAPERS.items():
        for table, rows in tables.items():
            assert (paper, table) in paper_rows.SOURCES
            for cells in rows.values():
                for text in cells.values():
                    value, digits = paper_rows.printed(text)
                    assert f"{value:.{digits}f}" == text
    for paper, table, coll, measure in paper_rows.REASONS:
        assert measure in paper_rows.PAPERS[paper][table][coll]
    assert set(paper_rows.REL) <= set(paper_rows.PAPERS)
    for paper in paper_rows.REL:
        for coll in paper_rows.REL[paper]:
            assert coll in paper_rows.COLLECTIONS
    names = {c for t in paper_rows.PAPERS.values() for rows in t.values() for c in rows}
    assert {c for c in names if not c[0].isdigit() and "=" not in c and " " not in c
            and "%" not in c and c not in ("tau low", "tau high")} <= set(
        paper_rows.COLLECTIONS)
    # the rows the README quotes for DL 2019 and DL 2020 passage
    assert paper_rows.row("lexiprecision", "Table 2", "dl19-passage")["RR"] == "56.89"
    assert paper_rows.row("lexiprecision", "Table 2", "dl20-passage")["rrLP"] == "2.58"
    assert paper_rows.row("rpp", "Table 4a", "dl20-passage")["RPP(p=inverse)"] == "55.93"
    assert paper_rows.rel("rpp", "dl20-passage") == 1
    assert paper_rows.rel("lexiprecision", "dl20-passage") == 2
    assert paper_rows.rel("lexiprecision", "robust04") == 1
