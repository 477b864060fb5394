"""The CLI contract, case by case, through the installed ``irpref`` command.

Each case is a command line over small hand-made files and asserts the exit
code (0 success, 1 data error, 2 usage error, 130 Ctrl-C) and either a phrase
of the one-line message or the exact output value.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nall 0 d1 1\nall 0 d2 1\nall 0 d3 0\n"
# a: q1 relevant at 1, 3 -> AP (1 + 2/3)/2 = 5/6; all: relevant at 2, 3 -> (1/2 + 2/3)/2 = 7/12
RUN_A = ("q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\nq1 Q0 d3 3 1 a\n"
         "all Q0 d3 1 3 a\nall Q0 d2 2 2 a\nall Q0 d1 3 1 a\n")
# b: q1 relevant at 1, 3 -> 5/6; all: relevant at 1, 2 -> 1
RUN_B = ("q1 Q0 d3 1 3 b\nq1 Q0 d2 2 2 b\nq1 Q0 d1 3 1 b\n"
         "all Q0 d1 1 3 b\nall Q0 d2 2 2 b\nall Q0 d3 3 1 b\n")
AP_Q1 = (1 / 1 + 2 / 3) / 2  # sums in trec_eval's order: precisions, then / num_rel
AP_ALL_A = (1 / 2 + 2 / 3) / 2
AP_A = (AP_Q1 + AP_ALL_A) / 2
AP_B = (AP_Q1 + 1.0) / 2


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN_A)
    (tmp_path / "b.run").write_text(RUN_B)
    (tmp_path / "trunc.run.gz").write_bytes(gzip.compress(RUN_A.encode())[:-12])
    (tmp_path / "latin.run").write_bytes(b"q1 Q0 d\xe9 1 3 a\n")
    (tmp_path / "tab\tname.run").write_text(RUN_A)
    (tmp_path / "empty.run").write_text("")
    return tmp_path


def irpref(*args: str, cwd=None, stdout=None) -> subprocess.CompletedProcess:
    return subprocess.run(["irpref", *args], capture_output=stdout is None, text=True, cwd=cwd,
                          stdout=stdout, stderr=subprocess.PIPE if stdout else None)


Q, A, B = "qrels.txt", "a.run", "b.run"
EVAL, COMP, SIG, TIES = "evaluate", "compare", "significance", "ties"

# (command line, exit code, phrase expected in stderr)
CASES = [
    # --rel: one rule (>= 1) in every command
    *[((cmd, Q, A, B, "--rel", v), 2, f"--rel {v}: must be >= 1")
      for cmd in (EVAL, COMP, SIG, TIES) for v in ("-1", "0")],
    *[((cmd, Q, A, B, "--rel", "x"), 2, "--rel x: must be an integer")
      for cmd in (EVAL, COMP, SIG, TIES)],
    # other options, checked at parse time
    *[((cmd, Q, A, B, "--depth", "0"), 2, "--depth 0: must be >= 1")
      for cmd in (EVAL, COMP, SIG, TIES)],
    ((EVAL, Q, A, "--corpus-size", "-5"), 2, "--corpus-size -5: must be >= 1"),
    ((COMP, Q, A, B, "--teleport", "2"), 2, "--teleport 2: must be in [0, 1)"),
    ((COMP, Q, A, B, "--teleport", "-0.1"), 2, "--teleport -0.1: must be in [0, 1)"),
    ((SIG, Q, A, B, "--alpha", "1.5"), 2, "--alpha 1.5: must be in (0, 1)"),
    ((SIG, Q, A, B, "--alpha", "nan"), 2, "--alpha nan: must be a number"),
    ((SIG, Q, A, B, "--permutations", "0"), 2, "--permutations 0: must be >= 1"),
    ((SIG, Q, A, B, "--seed", "-3"), 2, "--seed -3: must be >= 0"),
    ((SIG, Q, A, B, "--bootstrap", "-1"), 2, "--bootstrap -1: must be >= 0"),
    ((SIG, Q, A, B, "--confidence", "1"), 2, "--confidence 1: must be in (0, 1)"),
    # trec_eval flags get the irpref spelling
    ((EVAL, Q, A, "-l", "2"), 2, "did you mean --rel 2"),
    ((EVAL, Q, A, "-l2"), 2, "did you mean --rel 2"),
    ((COMP, Q, A, B, "-l", "2"), 2, "did you mean --rel 2"),
    ((SIG, Q, A, B, "-l", "2"), 2, "did you mean --rel 2"),
    ((TIES, Q, A, "-l", "2"), 2, "did you mean --rel 2"),
    ((EVAL, Q, A, "-M", "100"), 2, "did you mean --depth 100"),
    ((EVAL, Q, A, "-q"), 2, "did you mean --per-query"),
    ((EVAL, Q, A, "-c"), 2, "did you mean --missing zero"),
    ((EVAL, Q, A, "-n"), 2, "'no summary' flag"),
    # -m swallowing the files
    ((EVAL, "-m", "AP", Q, A), 2, "-m took 'qrels.txt' as a measure name"),
    ((COMP, "-m", "sgnLP", Q, A, B), 2, "-m took 'qrels.txt' as a measure name"),
    # the subcommand's own usage
    ((EVAL, Q, A, "--bogus"), 2, "usage: irpref evaluate"),
    ((COMP, Q, A, "--bogus"), 2, "usage: irpref compare"),
    ((SIG, Q, A, "--bogus"), 2, "usage: irpref significance"),
    ((TIES, Q, A, "--bogus"), 2, "usage: irpref ties"),
    # unknown names: usage error, refused before any input is read
    ((EVAL, Q, "nosuch.run", "-m", "NoSuchMeasure"), 2, "NoSuchMeasure"),
    ((TIES, Q, "nosuch.run", "-m", "NoSuchMeasure"), 2, "NoSuchMeasure"),
    ((COMP, Q, "nosuch.run", "-m", "NoSuchPref"), 2, "NoSuchPref"),
    # data errors: exit 1, file named
    ((EVAL, Q, "nosuch.run"), 1, "nosuch.run"),
    ((COMP, Q, A, "nosuch.run"), 1, "nosuch.run"),
    ((SIG, Q, A, "nosuch.run"), 1, "nosuch.run"),
    ((TIES, "nosuch.qrels", A), 1, "nosuch.qrels"),
    ((EVAL, Q, "trunc.run.gz"), 1, "error"),
    ((EVAL, Q, "latin.run"), 1, "error"),
    # trec_eval drop-in: the same contract
    (("trec_eval", Q, "trunc.run.gz"), 1, "trunc.run.gz"),
    (("trec_eval", Q, "latin.run"), 1, "error"),
    (("trec_eval", Q, "nosuch.run"), 1, "nosuch.run"),
    (("trec_eval", Q), 2, "Usage"),
    (("trec_eval", "-m", "nosuch", Q, A), 2, "illegal measure"),
    (("trec_eval", "-x", Q, A), 2, "invalid option"),
    (("trec_eval", "-M-1", Q, A), 2, "-M -1: must be >= 0"),
    (("trec_eval", Q, "empty.run"), 1, "empty.run"),
    # options added for the reports, the compact layout, Dask and the meta lab
    ((EVAL, Q, A, B, "-m", "AP", "--ci", "bootstrap", "--bootstrap", "0"), 2,
     "--bootstrap 0: must be >= 1"),
    ((EVAL, Q, A, B, "-m", "AP", "--ci", "bootstrap", "--bootstrap", "x"), 2,
     "--bootstrap x: must be an integer"),
    (("judge", Q, A, B, "--layout", "nope", "-o", "j.parquet"), 2, "invalid choice: 'nope'"),
    ((COMP, Q, A, B, "-m", "sgnLP", "--dask", "bogus"), 2, "--dask bogus: expected local:N"),
    (("meta", "agreement", Q, A, B, "-m", "MAP-IA", "AP", "--subtopics", "nosuch.txt"), 1,
     "nosuch.txt: no such file"),
    (("meta", "recall-levels", Q, A, B, "--levels", "-3"), 2, "--levels -3: must be >= 1"),
    (("meta", "worst-case-agreement", "-m", "RR", "--n", "0"), 2, "--n 0: must be >= 1"),
    (("meta", "rr-given-p1", "--n", "-5"), 2, "--n -5: must be >= 1"),
]


@pytest.mark.slow
@pytest.mark.parametrize("args,code,phrase", CASES, ids=[" ".join(c[0]) for c in CASES])
def test_case(files, args, code, phrase):
    out = irpref(*args, cwd=files)
    assert out.returncode == code, out.stderr
    assert phrase in out.stderr
    assert "Traceback" not in out.stderr
    assert out.stdout == ""  # nothing printed before validation / on error
    if code == 1:  # one line
        assert len(out.stderr.strip().splitlines()) == 1, out.stderr


def _tsv(text: str) -> list[list[str]]:
    return [line.split("\t") for line in text.splitlines()]


def test_query_named_all_is_a_query(files):
    out = irpref(EVAL, Q, A, B, "-m", "AP", "--format", "tsv", cwd=files)
    assert out.returncode == 0, out.stderr
    rows = _tsv(out.stdout)
    assert rows[0] == ["run", "measure", "value"]
    assert {r[0]: float(r[2]) for r in rows[1:]} == {"a": AP_A, "b": AP_B}


@pytest.mark.slow
def test_query_named_all_per_query(files):
    out = irpref(EVAL, Q, A, "-m", "AP", "--format", "tsv", "--per-query", cwd=files)
    rows = _tsv(out.stdout)[1:]
    assert ["a", "all", "AP", repr(AP_ALL_A)] in rows
    assert ["a", "", "AP", repr(AP_A)] == rows[-1]  # the mean row: empty query
    js = json.loads(irpref(EVAL, Q, A, "-m", "AP", "--format", "json", "--per-query",
                           cwd=files).stdout)
    assert {r["query"] for r in js} == {"q1", "all", None}


@pytest.mark.slow
def test_query_named_all_in_significance(files):
    out = irpref(SIG, Q, A, B, "-m", "AP", "--format", "json", "--seed", "1", cwd=files)
    assert out.returncode == 0, out.stderr
    (row,) = json.loads(out.stdout)
    assert row["n"] == 2 and row["mean"] == pytest.approx(AP_A - AP_B)


def test_query_named_all_in_trec_eval(files):
    out = irpref("trec_eval", "-m", "map", "-m", "num_q", Q, A, cwd=files)
    expected = f"num_q                 \tall\t2\nmap                   \tall\t{AP_A:.4f}\n"
    assert out.stdout == expected


def test_api_query_named_all(files):
    import irpref as api

    res = api.evaluate(files / Q, [files / A, files / B], ["AP"])
    means = api.summarize(res)
    assert list(means.columns) == ["run", "measure", "value"]
    assert dict(zip(means["run"], means["value"])) == {"a": AP_A, "b": AP_B}
    table = api.compare(files / Q, [files / A, files / B], ["rrLP"])
    assert "all" in set(table["query"].astype(str))
    assert list(api.mean_preferences(table).columns) == ["run_a", "run_b", "measure", "value"]
    with pytest.raises(api.UsageError if hasattr(api, "UsageError") else ValueError,
                       match="rel=0: must be >= 1"):
        api.evaluate(files / Q, files / A, ["AP"], rel=0)


@pytest.mark.slow
def test_tab_in_run_name_is_escaped(files):
    out = irpref(EVAL, Q, "tab\tname.run", "-m", "AP", "--format", "tsv", cwd=files)
    rows = _tsv(out.stdout)
    assert rows[1] == ["tab\\tname", "AP", repr(AP_A)]


@pytest.mark.slow
def test_floats_round_trip_exactly(files):
    out = irpref(COMP, Q, A, B, "-m", "rrLP", "RPP", "--format", "tsv", "--per-query",
                 cwd=files)
    import irpref as api

    table = api.compare(files / Q, [files / A, files / B], ["rrLP", "RPP"])
    got = {tuple(r[:4]): float(r[4]) for r in _tsv(out.stdout)[1:] if r[2]}
    for a, b, q, m, v in table.itertuples(index=False):
        assert got[str(a), str(b), str(q), str(m)] == v  # bit-exact


@pytest.mark.slow
def test_output_file_via_rename(files):
    out = irpref(EVAL, Q, A, "-m", "AP", "--format", "tsv", "-o", "res.tsv", cwd=files)
    assert out.returncode == 0 and out.stdout == ""
    assert (files / "res.tsv").read_text().splitlines()[1] == f"a\tAP\t{AP_A!r}"
    bad = irpref(EVAL, Q, "nosuch.run", "-o", "res2.tsv", cwd=files)
    assert bad.returncode == 1 and not (files / "res2.tsv").exists()
    assert not [p for p in os.listdir(files) if p.endswith(".tmp")]


@pytest.mark.slow
@pytest.mark.parametrize("cmd", [(EVAL, Q, A), ("trec_eval", Q, A), (COMP, Q, A, B)])
def test_dev_full(files, cmd):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    with open("/dev/full", "w") as full:
        out = subprocess.run(["irpref", *cmd], cwd=files, stdout=full, stderr=subprocess.PIPE,
                             text=True)
    assert out.returncode == 1
    assert "cannot write the output: No space left on device" in out.stderr
    assert "Traceback" not in out.stderr and "Exception ignored" not in out.stderr


@pytest.mark.slow
def test_python_dash_m(files):
    out = subprocess.run([sys.executable, "-m", "irpref", EVAL, Q, A, "-m", "AP", "--format",
                          "tsv"], capture_output=True, text=True, cwd=files)
    assert out.returncode == 0 and out.stdout.splitlines()[1] == f"a\tAP\t{AP_A!r}"
    bad = subprocess.run([sys.executable, "-m", "irpref", EVAL, Q, A, "--rel", "0"],
                         capture_output=True, text=True, cwd=files)
    assert bad.returncode == 2 and "--rel 0: must be >= 1" in bad.stderr


@pytest.mark.slow
def test_quiet_silences_warnings(files):
    (files / "extra.run").write_text(RUN_A + "q9 Q0 d1 1 1 a\n")
    loud = irpref(EVAL, Q, "extra.run", "-m", "AP", cwd=files)
    assert loud.returncode == 0 and "absent from the qrels" in loud.stderr
    assert len(loud.stderr.strip().splitlines()) == 1
    for args in ((EVAL, Q, "extra.run", "-m", "AP", "--quiet"),
                 ("--quiet", EVAL, Q, "extra.run", "-m", "AP")):
        quiet = irpref(*args, cwd=files)
        assert quiet.returncode == 0 and quiet.stderr == ""


@pytest.mark.slow
def test_trec_eval_complete_num_rel_counts_grade_above_zero(tmp_path):
    """trec_eval 10.0, -c: the num_rel summary counts every qrels line with grade > 0
    over all qrels queries, ignoring -l (m_num_rel.c); per-query lines keep -l."""
    (tmp_path / "q").write_text("q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 a 1\nq2 0 b 2\n"
                                "q3 0 x 1\nq3 0 y 2\nq3 0 z 2\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 2 t\nq1 Q0 c 2 1 t\n")
    out = irpref("trec_eval", "-c", "-l2", "-m", "num_rel", "-q", "q", "r", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout == ("num_rel               \tq1\t1\n"
                          "num_rel               \tq2\t1\n"
                          "num_rel               \tq3\t2\n"
                          "num_rel               \tall\t7\n")
    # without -c the run lacks q2: trec_eval 10.0 stops there (trec_eval.c:389-393)
    plain = irpref("trec_eval", "-l2", "-m", "num_rel", "q", "r", cwd=tmp_path)
    assert plain.returncode == 1 and plain.stdout == ""
    assert "result qid 'q2' not found in qrels" in plain.stderr


@pytest.mark.slow
def test_internal_error_one_line_and_debug(files, monkeypatch):
    env = {**os.environ, "PYTHONPATH": str(files)}
    (files / "sitecustomize.py").write_text(
        "import irpref.report.formats as t\n"
        "def boom(*a, **k):\n    raise RuntimeError('boom')\n"
        "t.write_table = boom\n")
    args = ["irpref", EVAL, Q, A, "-m", "AP"]
    out = subprocess.run(args, capture_output=True, text=True, cwd=files, env=env)
    if "boom" not in out.stderr:
        pytest.skip("sitecustomize not honoured here")
    assert out.returncode == 1
    assert "irpref evaluate: internal error: RuntimeError: boom" in out.stderr
    assert "run with --debug for the traceback" in out.stderr
    assert "Traceback" not in out.stderr
    debug = subprocess.run([*args, "--debug"], capture_output=True, text=True, cwd=files,
                           env=env)
    assert "Traceback" in debug.stderr and debug.returncode == 1


def _wait_until_reading(proc: subprocess.Popen, folder, timeout: float = 60) -> None:
    """Wait until ``proc`` has a file of ``folder`` open or mapped: past
    Python's start-up and imports, inside the command (on a loaded machine
    start-up alone can take seconds; run files are memory-mapped while they
    are judged, their descriptors closed at once). Without /proc, wait a
    fixed 1.5 s."""
    fds, maps = f"/proc/{proc.pid}/fd", f"/proc/{proc.pid}/maps"
    if not os.path.isdir(fds):
        time.sleep(1.5)
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        with contextlib.suppress(OSError):
            if any(os.readlink(os.path.join(fds, fd)).startswith(str(folder))
                   for fd in os.listdir(fds)):
                return
            with open(maps) as mapped:
                if str(folder) in mapped.read():
                    return
        time.sleep(0.01)


@pytest.mark.slow
def test_ctrl_c_is_130_and_one_line(tmp_path):
    import numpy as np

    rng = np.random.default_rng(0)
    lines = [f"q{q} 0 d{d} {int(rng.integers(0, 3))}" for q in range(200) for d in range(50)]
    (tmp_path / "qrels").write_text("\n".join(lines) + "\n")
    runs = []
    for r in range(60):
        docs = rng.integers(0, 5000, size=(200, 300))
        rows = [f"q{q} Q0 d{doc} {i} {300 - i} r{r}" for q in range(200)
                for i, doc in enumerate(dict.fromkeys(docs[q]))]
        path = tmp_path / f"r{r}.run"
        path.write_text("\n".join(rows) + "\n")
        runs.append(str(path))
    proc = subprocess.Popen(["irpref", COMP, str(tmp_path / "qrels"), *runs, "--per-query",
                             "--format", "tsv"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    _wait_until_reading(proc, tmp_path)
    if proc.poll() is not None:
        pytest.skip("finished before the interrupt")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.strip().splitlines()[-1] == "interrupted"
    assert "Traceback" not in err


@pytest.mark.slow
@pytest.mark.parametrize("env, args", [
    ("IRPREF_SCAN", ["evaluate", "-m", "AP"]),
    ("IRPREF_KERNELS", ["significance", "-m", "AP", "--test", "hsd", "--permutations", "50"]),
    ("IRPREF_KERNELS", ["evaluate", "-m", "AP", "nDCG", "--bounds"]),  # the bounds' C scans
])
def test_bad_environment_switch_is_a_usage_error(env, args):
    """A bad value of an environment switch: a usage error (exit 2), no traceback."""
    example = Path(__file__).resolve().parents[1] / "src" / "irpref" / "examples" / "dl19"
    runs = sorted(str(p) for p in example.glob("*.gz"))[:2]
    out = subprocess.run(["irpref", args[0], str(example / "qrels.txt"), *runs, *args[1:]],
                         capture_output=True, text=True, env=dict(os.environ, **{env: "fortran"}))
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines()[-1] == (
        f"irpref {args[0]}: error: {env} must be "
        + ("'c' or 'python', not 'fortran'" if env == "IRPREF_SCAN"
           else "'c' or 'numpy', got 'fortran'"))
