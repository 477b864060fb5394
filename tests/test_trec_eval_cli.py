"""``irpref trec_eval`` as a drop-in for trec_eval 10.0, and ``irpref measures``.

Every out.test* file of trec_eval's own suite is reproduced byte for byte by the
installed command, with the exact command line the suite's README names.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from irpref.cli.main import main as cli_main
from irpref.cli.trec_eval import parse_argv
from irpref.trec_eval_format import NICKNAMES, TREC_MEASURES, UNSUPPORTED


def te(*args: str, cwd=None, input: str | None = None) -> subprocess.CompletedProcess:
    """The installed command, in a subprocess."""
    return subprocess.run(["irpref", "trec_eval", *args], capture_output=True, text=True,
                          cwd=cwd, input=input)


class Result:
    def __init__(self, returncode: int, stdout: str, stderr: str):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


@pytest.fixture
def te_fast(capsys, monkeypatch):
    """The same command line, run in this process (fast)."""

    def call(*args: str, cwd=None) -> Result:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        code = cli_main(["trec_eval", *args])
        out = capsys.readouterr()
        return Result(code, out.out, out.err)

    return call


SUITE = {
    "out.test": ["qrels.test", "results.test"],
    "out.test.a": ["-m", "all_trec", "qrels.test", "results.test"],
    "out.test.aq": ["-m", "all_trec", "-q", "qrels.test", "results.test"],
    "out.test.aqc": ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"],
    "out.test.aqcM": ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"],
    "out.test.aql": ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level",
                     "results.test"],
}


@pytest.mark.parametrize("name", sorted(SUITE))
def test_reproduces_trec_eval_suite_byte_for_byte(data_dir, name):
    d = data_dir / "trec_eval"
    out = te(*SUITE[name], cwd=d)
    assert out.returncode == 0, out.stderr
    assert out.stdout == (d / name).read_text()
    assert out.stdout.encode() == (d / name).read_bytes()


def test_flag_spellings_are_equivalent(data_dir, te_fast):
    d = data_dir / "trec_eval"
    want = (d / "out.test.aqcM").read_text()
    for flags in (["-M", "100"], ["-M100"], ["--Max_retrieved_per_topic=100"],
                  ["--Max_retrieved_per_topic", "100"], ["--Max_ret", "100"]):
        out = te_fast("-mall_trec", "-qc", *flags, "qrels.test", "results.trunc", cwd=d)
        assert out.stdout == want, flags
    # options after the files (GNU argument permutation)
    out = te("qrels.test", "results.trunc", "--measure=all_trec", "-c", "-q", "-M100", cwd=d)
    assert out.stdout == want


def test_nosummary_and_query_flags(data_dir, te_fast):
    d = data_dir / "trec_eval"
    full = (d / "out.test.aq").read_text().splitlines()
    out = te_fast("-q", "-n", "-m", "all_trec", "qrels.test", "results.test", cwd=d)
    assert out.stdout.splitlines() == [ln for ln in full if "\tall\t" not in ln]
    assert te_fast("-n", "qrels.test", "results.test", cwd=d).stdout == ""


def test_measure_parameters(data_dir, te_fast):
    d = data_dir / "trec_eval"
    a = {ln.split("\t")[0].strip(): ln.split("\t")[2]
         for ln in (d / "out.test.a").read_text().splitlines()}
    out = te_fast("-m", "P.10,5", "-m", "ndcg_cut.10", "-m", "iprec_at_recall.0.5",
             "-m", "Rprec_mult.0.2", "qrels.test", "results.test", cwd=d).stdout.splitlines()
    names = [ln.split("\t")[0].strip() for ln in out]
    assert names == ["iprec_at_recall_0.50", "P_5", "P_10", "Rprec_mult_0.20", "ndcg_cut_10"]
    for ln in out:
        name, qid, value = ln.split("\t")
        assert qid == "all" and value == a[name.strip()]
    # the first parameters given for a measure win, as in trec_eval
    out = te_fast("-m", "P.5", "-m", "P.10", "qrels.test", "results.test", cwd=d).stdout
    assert out.startswith("P_5 ") and "P_10" not in out
    # parametrised names: rbp.p=0.8, set_F.0.5, utility, relstring
    out = te_fast("-q", "-m", "rbp.p=0.9", "-m", "set_F.1.0", "-m", "relstring",
             "qrels.test", "results.test", cwd=d).stdout
    assert "rbp_p=0.9             \tall\t0.3234\n" in out
    assert "set_F_1.0             \tall\t0.1194\n" in out
    assert "relstring             \t301\t'0000011000'\n" in out


def test_gm_map_floors_missing_queries_with_c(data_dir, tmp_path, te_fast):
    d = data_dir / "trec_eval"
    lines = [ln for ln in (d / "results.test").read_text().splitlines()
             if not ln.startswith("302")]
    run = tmp_path / "run"
    run.write_text("\n".join(lines) + "\n")
    plain = te_fast("-m", "map", "-m", "gm_map", "-m", "num_q", str(d / "qrels.test"), str(run))
    comp = te_fast("-c", "-m", "map", "-m", "gm_map", "-m", "num_q", str(d / "qrels.test"),
              str(run))
    vals = {ln.split("\t")[0].strip(): float(ln.split("\t")[2])
            for ln in plain.stdout.splitlines()}
    cvals = {ln.split("\t")[0].strip(): float(ln.split("\t")[2])
             for ln in comp.stdout.splitlines()}
    assert vals["num_q"] == 2 and cvals["num_q"] == 3
    assert cvals["map"] == pytest.approx(vals["map"] * 2 / 3, abs=1e-4)
    assert cvals["gm_map"] == pytest.approx((vals["gm_map"] ** 2 * 1e-5) ** (1 / 3), abs=1e-4)


def test_stdin_and_gzip(data_dir, tmp_path):
    import gzip

    d = data_dir / "trec_eval"
    text = (d / "results.test").read_text()
    assert te(str(d / "qrels.test"), "-", input=text).stdout == (d / "out.test").read_text()
    gz = tmp_path / "run.gz"
    with gzip.open(gz, "wt") as handle:
        handle.write(text)
    assert te(str(d / "qrels.test"), str(gz)).stdout == (d / "out.test").read_text()


def test_errors(data_dir, te_fast):
    d = data_dir / "trec_eval"
    bad = te_fast("-m", "nosuch", "qrels.test", "results.test", cwd=d)
    assert bad.returncode == 2 and "illegal measure 'nosuch'" in bad.stderr
    prefs = te_fast("-m", "prefs_simp", "qrels.test", "results.test", cwd=d)
    assert prefs.returncode == 2 and "not supported" in prefs.stderr
    gains = te_fast("-m", "ndcg.1=3.5", "qrels.test", "results.test", cwd=d)
    assert gains.returncode == 2 and "custom gains" in gains.stderr
    usage = te_fast("qrels.test", cwd=d)
    assert usage.returncode == 2 and "Usage" in usage.stderr
    missing = te_fast("qrels.test", "nosuchfile", cwd=d)
    assert missing.returncode == 1 and "nosuchfile" in missing.stderr
    assert te_fast("-h").stdout.startswith("Usage")


def test_real_runs_deep_and_shallow(data_dir, te_fast):
    d = data_dir / "robust03"
    for name in ("NLPR03vb10.gz", "humR03dc.gz"):
        out = te_fast("-m", "all_trec", "-q", "-c", str(d / "qrels.txt"), str(d / "runs" / name))
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        assert lines[-1].startswith("unj_20                \tall\t")
        num_q = next(ln for ln in lines if ln.startswith("num_q"))
        assert num_q.endswith("\t100")  # -c: every qrels topic


def test_parse_argv_getopt():
    opts, args = parse_argv(["-qc", "-mP.5", "q", "-l", "2", "r", "--", "-x"])
    assert opts == [("q", None), ("c", None), ("m", "P.5"), ("l", "2")]
    assert args == ["q", "r", "-x"]


def test_measure_table_covers_trec_eval():
    names = {m.name for m in TREC_MEASURES}
    for nick in ("official", "all_trec", "set"):
        assert set(NICKNAMES[nick]) <= names
    assert not names & set(UNSUPPORTED)


def test_measures_command():
    table = subprocess.run(["irpref", "measures"], capture_output=True, text=True, check=True)
    assert "nDCG" in table.stdout and "m_bpref.c" in table.stdout
    js = subprocess.run(["irpref", "measures", "--format", "json", "AP", "gRBP"],
                        capture_output=True, text=True, check=True)
    rows = json.loads(js.stdout)
    assert [r["measure"] for r in rows] == ["AP", "gRBP"]
    assert rows[1]["trec_eval"] == "rbp"
    tsv = subprocess.run(["irpref", "measures", "--format", "tsv"], capture_output=True,
                         text=True, check=True)
    header, *body = tsv.stdout.splitlines()
    assert header.split("\t")[:3] == ["measure", "syntax", "params"]
    assert len(body) >= 40
    bad = subprocess.run(["irpref", "measures", "NoSuch"], capture_output=True, text=True)
    assert bad.returncode != 0 and "unknown measure" in bad.stderr


def test_empty_run_and_no_common_query(data_dir, tmp_path, te_fast):
    d = data_dir / "trec_eval"
    empty = tmp_path / "empty"
    empty.write_text("")
    assert te_fast(str(d / "qrels.test"), str(empty)).returncode == 1
    other = tmp_path / "other"
    other.write_text("999 Q0 doc 1 1.0 tag\n")
    out = te_fast(str(d / "qrels.test"), str(other))
    assert out.returncode == 1 and "No queries" in out.stderr
    # with -c every qrels query is evaluated as an empty ranking, as trec_eval does
    out = te_fast("-c", "-m", "map", "-m", "num_q", "-m", "num_rel", str(d / "qrels.test"),
                  str(other))
    assert out.stdout == ("num_q                 \tall\t3\nnum_rel               \tall\t561\n"
                          "map                   \tall\t0.0000\n")
