"""``irpref trec_eval`` against trec_eval 10.0's own output (tests/data/trec_eval_10/).

Every case of ``cases.tsv`` holds irpref's command line and the output trec_eval
10.0 printed (``NAME.te10``, written by ``scripts/trec_eval_10_expected.py``):
on the same command line for the differences irpref fixed (``-J`` NaN per
query, ``-Z`` of gm_map, ``rbp_resid.p``, ``-c`` with parameters, a run lacking
a query, ``-l 0``, ``-M 0``, ``-D 0.QID``, ...), on a repaired input where
trec_eval 10.0 is wrong (the folder's README says how). The values trec_eval
reads through ``atol`` whose answer is not a number are refused.
"""

from __future__ import annotations

import csv

import pytest
from helpers import irpref_cli

from irpref.cli.main import main as cli_main

CASES_FILE = "cases.tsv"


def _cases(data_dir) -> dict[str, dict[str, str]]:
    with open(data_dir / "trec_eval_10" / CASES_FILE, newline="") as handle:
        return {row["name"]: row for row in csv.DictReader(handle, delimiter="\t")}


def _names() -> list[str]:
    from pathlib import Path

    here = Path(__file__).resolve().parent / "data" / "trec_eval_10" / CASES_FILE
    return [line.split("\t")[0] for line in here.read_text().splitlines()[1:]]


def _run(monkeypatch, capsys, where, args: list[str]) -> tuple[int, str, str]:
    monkeypatch.chdir(where)
    code = cli_main(["trec_eval", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("name", _names())
def test_case_prints_trec_eval_10_output(data_dir, monkeypatch, capsys, name):
    case = _cases(data_dir)[name]
    where = data_dir / "trec_eval_10"
    code, out, err = _run(monkeypatch, capsys, where, case["irpref"].split())
    want = (where / f"{name}.te10").read_text()
    if name == "11pt_unsorted":  # trec_eval given the points sorted: its name for them
        out = out.replace("11pt_avg_1.0,.5,0", "11pt_avg_0,.5,1.0")
    assert out == want
    # trec_eval's exit codes 1-10 are irpref's 1 (bad input) under its contract
    assert code == (0 if case["exit"] == "0" else 1), err
    assert (err == "") == (code == 0)


def test_run_lacking_a_query_stops_as_trec_eval_10(data_dir, monkeypatch, capsys):
    """trec_eval.c:389-393: the -q lines of the queries before the missing one, then
    the error (trec_eval exits 4; irpref 1, bad input)."""
    where = data_dir / "trec_eval_10"
    args = _cases(data_dir)["missing_no_c"]["irpref"].split()
    code, out, err = _run(monkeypatch, capsys, where, args)
    assert code == 1
    assert out == (where / "missing_no_c.te10").read_text()
    assert [line.split("\t")[:2] for line in out.splitlines()] == [
        ["map                   ", "301"], ["P_5                   ", "301"]]
    assert err == ("irpref trec_eval: error: result qid '302' not found in qrels: the run "
                   "has no results for this judged query (trec_eval 10.0 stops here too; -c "
                   "scores it as trec_eval's one-document bogus ranking)\n")
    code, out, err = _run(monkeypatch, capsys, where, [a for a in args if a != "-q"])
    assert (code, out) == (1, "") and "result qid '302'" in err


@pytest.mark.parametrize("flag, value, message", [
    ("-l", "-1", "-l -1: must be >= 0 (below 0 trec_eval counts unjudged documents as "
                 "relevant in some measures and not in others)"),
    ("-M", "-1", "-M -1: must be >= 0 (below 0 trec_eval's number retrieved is negative "
                 "and it crashes)"),
    ("-N", "-5", "-N -5: must be >= 0 (0: unknown, the default)"),
    ("-D", "1", "-D 1: only level 0 is supported (-D 0.qid evaluates one query; higher "
                "levels print trec_eval's internal traces)"),
    ("-D", "2.301", "-D 2: only level 0 is supported"),
])
def test_atol_values_without_a_number_are_refused(data_dir, monkeypatch, capsys, flag,
                                                  value, message):
    where = data_dir / "trec_eval"
    code, out, err = _run(monkeypatch, capsys, where, [flag, value, "qrels.test",
                                                       "results.test"])
    assert (code, out) == (2, "")
    assert err.startswith(f"irpref trec_eval: {message}")


@pytest.mark.parametrize("flag, value, same_as", [
    ("-l", "x", "0"), ("-l", "2.7", "2"), ("-M", "3x", "3"), ("-D", ".302", "0.302"),
    ("-D", "-4.302", "0.302"), ("-N", "", "0"),
])
def test_numbers_are_read_with_atol(data_dir, monkeypatch, capsys, flag, value, same_as):
    """trec_eval.c:241-256 reads -l, -M, -N and -D's level with atol."""
    where = data_dir / "trec_eval"
    files = ["-q", "-m", "official", "-m", "utility.1,-1,0,1", "qrels.test", "results.test"]
    got = _run(monkeypatch, capsys, where, [flag, value, *files])
    want = _run(monkeypatch, capsys, where, [flag, same_as, *files])
    assert got == want and got[0] == 0


def test_negative_preference_levels_take_the_lowest_class_itself(data_dir, monkeypatch,
                                                                 capsys):
    """One JG, one subgroup: a 2, b 1, c 0, d 0, e -1 (form_prefs_counts.c:485-491 counts
    e as non-relevant: R = 2 < N = 3); ranking a e c b d. m_prefs_avgjg_Rnonrel.c
    recalculates with the lowest class cut to R documents; that class {e} holds one, and
    trec_eval reads a second past its end (it prints 0.6667 here). irpref takes {e}:
    between the classes above it a>b a>c a>d b>c b>d (4 fulfilled), then every
    document against {e}, e itself included as trec_eval counts it: a>e fulfilled, b, c,
    d and e not: 5 of 10."""
    where = data_dir / "trec_eval_10"
    code, out, err = _run(monkeypatch, capsys, where, [
        "-R", "prefs", "-m", "prefs_avgjg_Rnonrel", "-m", "prefs_avgjg", "negative.prefs",
        "negative.prefs.run"])
    assert code == 0, err
    assert out == ("prefs_avgjg           \tall\t0.5556\n"
                   "prefs_avgjg_Rnonrel   \tall\t0.5000\n")


@pytest.mark.slow
def test_installed_command_exit_codes(data_dir):
    """The installed command: a run lacking a query exits 1 after the earlier -q lines;
    -l 0 and -M 0 print trec_eval 10.0's output."""
    where = data_dir / "trec_eval_10"
    cases = _cases(data_dir)
    for name, code in (("missing_no_c", 1), ("l0", 0), ("M0", 0)):
        args = [a if not a.startswith("../") else str(where / a)
                for a in cases[name]["irpref"].split()]
        proc = irpref_cli("trec_eval", *args)
        assert proc.returncode == code, proc.stderr
        assert proc.stdout == (where / f"{name}.te10").read_text()
