"""``irpref trec_eval`` as a drop-in for trec_eval 10.0, and ``irpref measures``.

Every out.test* file of trec_eval's own suite is reproduced byte for byte by the
installed command, with the exact command line the suite's README names, and so
are irpref's verified outputs for -J, -Z and the measure parameters test
(irpref.test.*). trec_eval's pre-10.0 outputs (pre10.*) are compared line by
line, their differences explained (tests/data/README.md).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers import irpref_cli

from irpref.cli.main import main as cli_main
from irpref.cli.trec_eval import parse_argv
from irpref.trec_eval.format import NICKNAMES, TREC_MEASURES


def te(*args: str, cwd=None, input: str | None = None) -> subprocess.CompletedProcess:
    """The installed command, in a subprocess (file names relative to ``cwd``)."""
    if cwd is not None:
        args = tuple(str(cwd / a) if (cwd / a).exists() else a for a in args)
    return irpref_cli("trec_eval", *args, input=input)


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


MEAS_PARAMS = ["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m",
               "recall.20,2000", "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m",
               "11pt_avg..25,.5,.75", "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4",
               "-msuccess.2,5,20", "qrels.test", "results.test"]

# irpref's outputs for trec_eval's other test command lines and for -J, each verified
# independently (tests/data/README.md): byte for byte, so any change shows
VERIFIED = {
    "irpref.test.meas_params": MEAS_PARAMS,
    "irpref.test.aqZ": ["-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test",
                        "results.test"],
    "irpref.test.aqJ": ["-J", "-m", "all_trec", "-q", "qrels.test", "results.test"],
    "irpref.test.aqlJ": ["-J", "-m", "all_trec", "-mrelstring.20", "-q", "-l2",
                         "qrels.rel_level", "results.test"],
    "irpref.test.aqcMJ": ["-J", "-m", "all_trec", "-q", "-c", "-M100", "qrels.test",
                          "results.trunc"],
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SUITE) + sorted(VERIFIED))
def test_reproduces_trec_eval_suite_byte_for_byte(data_dir, name):
    d = data_dir / "trec_eval"
    out = te(*(SUITE | VERIFIED)[name], cwd=d)
    assert out.returncode == 0, out.stderr
    assert out.stdout == (d / name).read_text()
    assert out.stdout.encode() == (d / name).read_bytes()


def _lines(text: str) -> list[tuple[str, str, str]]:
    return [tuple(f.strip() for f in ln.split("\t")) for ln in text.splitlines()]


def _iprec(qrels: Path, run: Path, points: list[float], cut) -> dict[str, list[float]]:
    """Interpolated precision at recall points, straight from m_iprec_at_recall.c's
    loop, with the recall cut-off rule ``cut(x, R)``: per query, the best precision
    at or below the rank where the cut-off's relevant document is retrieved."""
    rel: dict[str, dict[str, int]] = {}
    for ln in qrels.read_text().split("\n"):
        if ln.split():
            q, _, doc, g = ln.split()
            rel.setdefault(q, {})[doc] = int(g)
    ranked: dict[str, list[tuple[float, str]]] = {}
    for ln in run.read_text().split("\n"):
        if ln.split():
            q, _, doc, _, score = ln.split()[:5]
            ranked.setdefault(q, []).append((float(score), doc))
    out = {}
    for q, docs in ranked.items():
        docs.sort(key=lambda sd: sd[1], reverse=True)
        docs.sort(key=lambda sd: sd[0], reverse=True)  # score desc, then docid desc
        hits = [rel[q].get(doc, -1) >= 1 for _, doc in docs]
        n_rel = sum(g >= 1 for g in rel[q].values())
        values = []
        for x in points:
            c = cut(x, n_rel)
            found = [i for i, h in enumerate(hits) if h]
            if c > len(found):
                values.append(0.0)
                continue
            start = found[c - 1] if c >= 1 else 0
            values.append(max(sum(hits[: k + 1]) / (k + 1) for k in range(start, len(hits))))
        out[q] = values
    return out


def test_trec_eval_meas_params_file(data_dir):
    """trec_eval's own out.test.meas_params (pre10.out.test.meas_params): every line
    reproduces, except the lines
    of iprec_at_recall and 11pt_avg. The stored file predates 10.0, which turned a
    recall level x into the cut-off lround(x R) instead of (long)(x R + 0.9)
    (out.test.aq, recorded with 10.0, holds the lround values). Both rules are
    recomputed here from the data: the file's lines follow the old rule, irpref's
    the 10.0 one; custom ndcg gains and the cut-off 23.4 (read as 23) match."""
    d = data_dir / "trec_eval"
    out = te(*MEAS_PARAMS, cwd=d)
    assert out.returncode == 0, out.stderr
    want, got = _lines((d / "pre10.out.test.meas_params").read_text()), _lines(out.stdout)
    assert [w[:2] for w in want] == [g[:2] for g in got]
    assert ("ndcg_1=3,2=9,4=4.5", "all", "0.4021") in got
    assert ("ndcg_cut_23", "all", "0.3429") in got
    points = [0.10, 0.20, 0.25, 0.50, 0.75]
    rules = {"old": lambda x, r: int(x * r + 0.9), "v10": lambda x, r: int(x * r + 0.5)}
    for which, lines in (("old", want), ("v10", got)):
        iprec = _iprec(d / "qrels.test", d / "results.test", points, rules[which])
        for q, values in iprec.items():
            for x, v in zip(points, values):
                assert (f"iprec_at_recall_{x:.2f}", q, f"{v:6.4f}") in lines, (which, q, x)
            eleven = sum(_iprec(d / "qrels.test", d / "results.test", [x], rules[which])[q][0]
                         for x in (0.75, 0.5, 0.25)) / 3
            assert ("11pt_avg_.25,.5,.75", q, f"{eleven:6.4f}") in lines, (which, q)
    differ = [(w, g) for w, g in zip(want, got) if w != g]
    assert differ and all(w[0].startswith(("iprec_at_recall", "11pt_avg")) for w, _ in differ)


def test_zscores(data_dir, tmp_path):
    """-Z: each value becomes (value - mean) / stddev with the mean and stddev of its
    query and printed name (convert_zscores.c). Checked against the 10.0 values of
    out.test.aq (4 decimals, hence the tolerance) and trec_eval's zscores_file;
    the lines are those of trec_eval's own out.test.aqZ (recorded before rbp and
    unj joined all_trec, with an older zscores file: only its lines are compared)."""
    d = data_dir / "trec_eval"
    out = te("-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test", "results.test", cwd=d)
    assert out.returncode == 0, out.stderr
    got = _lines(out.stdout)
    old = [w[:2] for w in _lines((d / "pre10.out.test.aqZ").read_text())]
    assert [g[:2] for g in got if not g[0].startswith(("Zrbp", "Zunj"))] == old
    raw = {(n, q): float(v) for n, q, v in _lines((d / "out.test.aq").read_text())
           if n != "relstring" and q != "all"}
    ref = {}
    for ln in (d / "zscores_file").read_text().splitlines():
        q, n, mean, sd = ln.split()
        ref[(n, q)] = (float(mean), float(sd))
    checked = 0
    for name, q, value in got:
        if q == "all" or name == "relstring":
            continue
        assert name.startswith("Z")
        key = (name[1:], q)
        mean, sd = ref.get(key, (None, None))
        if mean is None or (sd == 0 and raw[key] != mean):
            assert value == "-1000000.0000", (key, value)
        elif sd == 0:
            assert value == "0.0000"
        else:
            assert float(value) == pytest.approx((raw[key] - mean) / sd,
                                                 abs=0.5e-4 / sd + 1e-4), key
        checked += 1
    assert checked == 3 * 95  # every numeric per-query line of all_trec
    summary = {n: v for n, q, v in got if q == "all"}
    assert summary["runid"] == "STANDARD" and summary["Znum_q"] == "3.0000"
    assert summary["Zgm_map"] == "0.0000"  # gm_map has no mean: -1000000 floored to 1e-5
    per_query = {(n, q): float(v) for n, q, v in got if q != "all" and n != "relstring"}
    total = sum(per_query[("Znum_ret", q)] for q in ("301", "302", "303"))
    assert float(summary["Znum_ret"]) == pytest.approx(total, abs=2e-4)  # counts: sums


@pytest.mark.slow
def test_zscores_worked_example(tmp_path):
    """A query without a line in the file gets -1000000 everywhere; a zero deviation
    gives 0 for the mean itself and -1000000 otherwise; counts sum their z-scores."""
    qrels = tmp_path / "qrels"
    qrels.write_text("a 0 d1 1\na 0 d2 0\nb 0 d1 1\nc 0 d3 1\n")
    run = tmp_path / "run"
    run.write_text("a Q0 d1 1 2.0 r\na Q0 d2 2 1.0 r\nb Q0 d2 1 1.0 r\nc Q0 d3 1 1.0 r\n")
    zfile = tmp_path / "z"
    zfile.write_text("a P_1 0.5 0.25\na num_ret 1 0\nb P_1 0.5 0\nb num_ret 2 0.5\n"
                     "a\tmap  0.5  0.5\n")
    out = irpref_cli("trec_eval", "-q", "-Z", zfile, "-m", "P.1", "-m", "num_ret",
                     "-m", "map", qrels, run)
    assert out.returncode == 0, out.stderr
    assert out.stdout == (
        "Znum_ret               \ta\t-1000000.0000\n"   # num_ret 2, mean 1, sd 0
        "Zmap                   \ta\t1.0000\n"          # (1 - 0.5) / 0.5
        "ZP_1                   \ta\t2.0000\n"          # (1 - 0.5) / 0.25
        "Znum_ret               \tb\t-2.0000\n"         # (1 - 2) / 0.5
        "Zmap                   \tb\t-1000000.0000\n"   # no mean for map of b
        "ZP_1                   \tb\t-1000000.0000\n"   # 0 != mean 0.5, sd 0
        "Znum_ret               \tc\t-1000000.0000\n"   # c is not in the file
        "Zmap                   \tc\t-1000000.0000\n"
        "ZP_1                   \tc\t-1000000.0000\n"
        "Znum_ret               \tall\t-2000002.0000\n"
        "Zmap                   \tall\t-666666.3333\n"
        "ZP_1                   \tall\t-666666.0000\n")
    zfile.write_text("a P_1 0.5 0.25\nnot four fields\n")
    bad = irpref_cli("trec_eval", "-Z", zfile, qrels, run)
    assert bad.returncode == 1 and bad.stdout == ""
    assert bad.stderr == (f"irpref trec_eval: error: {zfile}:2: expected 'qid measure mean "
                          "stddev': 'not four fields'\n")
    zfile.write_text("a P_1 0.5 0.25\na P_1 0.4 x\n")
    bad = irpref_cli("trec_eval", "-Z", zfile, qrels, run)
    assert bad.returncode == 1 and f"{zfile}:2: mean and stddev must be numbers" in bad.stderr


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


def test_run_lacking_a_query_without_c_stops_there(data_dir, tmp_path, te_fast):
    """trec_eval 10.0 stops at a judged query the run lacks unless -c is given
    (trec_eval.c:389-393; tests/test_trec_eval_10.py has its own output); -c ranks that
    query as trec_eval's bogus one-document ranking (trec_eval.c:383-387)."""
    d = data_dir / "trec_eval"
    lines = [ln for ln in (d / "results.test").read_text().splitlines()
             if not ln.startswith("302")]
    run = tmp_path / "run"
    run.write_text("\n".join(lines) + "\n")
    plain = te_fast("-m", "map", "-m", "gm_map", "-m", "num_q", str(d / "qrels.test"), str(run))
    assert plain.returncode == 1 and plain.stdout == ""
    assert "result qid '302' not found in qrels" in plain.stderr
    comp = te_fast("-c", "-q", "-m", "map", "-m", "gm_map", "-m", "num_q",
                   str(d / "qrels.test"), str(run))
    assert comp.returncode == 0 and comp.stderr == ""
    rows = [ln.split("\t") for ln in comp.stdout.splitlines()]
    per_query = {(m.strip(), q): float(v) for m, q, v in rows}
    assert per_query[("num_q", "all")] == 3
    assert per_query[("map", "302")] == 0.0
    kept = [per_query[("map", q)] for q in ("301", "303")]
    assert per_query[("map", "all")] == pytest.approx(sum(kept) / 3, abs=1e-4)
    gm = (max(kept[0], 1e-5) * max(kept[1], 1e-5) * 1e-5) ** (1 / 3)
    assert per_query[("gm_map", "all")] == pytest.approx(gm, abs=1e-4)


def test_a_gain_that_is_not_a_number_is_refused_through_the_command(data_dir):
    """trec_eval's atof reads 'x' as 0 and prints a number; irpref refuses it (exit 2)."""
    d = data_dir / "trec_eval"
    proc = irpref_cli("trec_eval", "-m", "ndcg.1=x", d / "qrels.test", d / "results.test")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == "irpref trec_eval: ndcg.1=x: the gain of level 1 is 'x', not a number\n"


def test_run_lacking_a_query_stops_through_the_command(data_dir):
    d = data_dir / "trec_eval"
    proc = irpref_cli("trec_eval", d / "qrels.test", d / "results.trunc")
    assert proc.returncode == 1 and proc.stdout == ""
    assert "result qid '302' not found in qrels" in proc.stderr and "-c" in proc.stderr


@pytest.mark.slow
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
    assert (prefs.returncode, prefs.stdout) == (2, "")
    assert prefs.stderr == ("irpref trec_eval: measure 'prefs_simp' needs -R prefs or -R "
                            "qrels_prefs (the rel_info format is 'qrels'; trec_eval stops with "
                            "\"Can't calculate measure\")\n")
    jg = te_fast("-R", "qrels_jg", "qrels.test", "results.test", cwd=d)  # official: map, ...
    assert jg.returncode == 2 and "measure 'num_ret' needs -R qrels" in jg.stderr
    fmt = te_fast("-R", "nosuch", "qrels.test", "results.test", cwd=d)
    assert fmt.returncode == 2 and "rel_info format 'nosuch' is not one of" in fmt.stderr
    for mark, message in (
        ("dcg.1=3", "irpref trec_eval: custom gains for dcg ('1=3') are not supported "
                    "(only for ndcg) (-m dcg.1=3)\n"),
        ("ndcg.1=3,1=4", "irpref trec_eval: ndcg.1=3,1=4: a relevance level is given twice\n"),
        ("ndcg.-1=2", "irpref trec_eval: ndcg.-1=2: gains of negative relevance levels "
                      "(unjudged documents) are not supported\n"),
        ("ndcg.1=3,2", "trec_eval: malformed pair parameters in '1=3,2' (-m ndcg.1=3,2)\n"),
        ("ndcg.1=1e999", "irpref trec_eval: ndcg.1=1e999: gains must be finite\n"),
        ("ndcg.1=3,2=x", "irpref trec_eval: ndcg.1=3,2=x: the gain of level 2 is 'x', "
                         "not a number\n"),
        ("P.x", "trec_eval: Negative cutoff detected (-m P.x)\n"),
        ("P.5,5.5", "trec_eval: duplicate cutoffs detected (-m P.5,5.5)\n"),
        ("rbp.p=0.5,2=3", "irpref trec_eval: custom gains for rbp (2) are not supported "
                          "(-m rbp.p=0.5,2=3)\n"),
    ):
        out = te_fast("-m", mark, "qrels.test", "results.test", cwd=d)
        assert (out.returncode, out.stdout, out.stderr) == (2, "", message), mark
    # gains less than 1 apart: trec_eval's truncating comparison leaves the ideal undefined
    close = te_fast("-m", "ndcg.1=0.5", "qrels.test", "results.test", cwd=d)
    assert close.returncode == 2 and close.stdout == ""
    assert "gains 0 and 0.5 differ by less than 1" in close.stderr
    # names that are not relevance levels are ignored, as trec_eval ignores them
    named = te_fast("-m", "ndcg.p=2", "-m", "ndcg_cut.1000", "qrels.test", "results.test",
                    cwd=d).stdout.splitlines()
    assert named[0] == "ndcg_p=2              \tall\t0.4021"
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
    for nick in ("official", "all_trec", "set", "all_prefs", "prefs", "qrels_jg"):
        assert set(NICKNAMES[nick]) <= names
    # every measure of trec_eval 10.0's measures.c, in its order
    assert [m.name for m in TREC_MEASURES][-22:] == [
        "num_nonrel_judged_ret", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
        "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg",
        "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
        "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
        "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap", "rbp", "rbp_resid", "unj"]


@pytest.mark.slow
def test_measures_command():
    table = irpref_cli("measures")
    assert table.returncode == 0, table.stderr
    assert "nDCG" in table.stdout and "m_bpref.c" in table.stdout
    js = irpref_cli("measures", "--format", "json", "AP", "gRBP")
    assert js.returncode == 0, js.stderr
    rows = json.loads(js.stdout)
    assert [r["measure"] for r in rows] == ["AP", "gRBP"]
    assert rows[1]["trec_eval"] == "rbp"
    tsv = irpref_cli("measures", "--format", "tsv")
    assert tsv.returncode == 0, tsv.stderr
    header, *body = tsv.stdout.splitlines()
    assert header.split("\t")[:3] == ["measure", "syntax", "params"]
    assert len(body) >= 40
    bad = irpref_cli("measures", "NoSuch")
    assert bad.returncode == 2 and "unknown measure" in bad.stderr


def test_empty_run_and_no_common_query(data_dir, tmp_path, te_fast):
    d = data_dir / "trec_eval"
    empty = tmp_path / "empty"
    empty.write_text("")
    assert te_fast(str(d / "qrels.test"), str(empty)).returncode == 1
    other = tmp_path / "other"
    other.write_text("999 Q0 doc 1 1.0 tag\n")
    out = te_fast(str(d / "qrels.test"), str(other))  # trec_eval.c:389: the first one
    assert out.returncode == 1 and "result qid '301' not found in qrels" in out.stderr
    # with -c every qrels query is evaluated as an empty ranking, as trec_eval does
    out = te_fast("-c", "-m", "map", "-m", "num_q", "-m", "num_rel", str(d / "qrels.test"),
                  str(other))
    assert out.stdout == ("num_q                 \tall\t3\nnum_rel               \tall\t561\n"
                          "map                   \tall\t0.0000\n")
