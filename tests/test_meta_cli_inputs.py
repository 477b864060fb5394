"""``irpref meta``: every subcommand reads every shared input (a saved ``irpref
judge`` file, ``--corpus-size``, ``--depth``, ``--ties``, ``--missing``,
``--rel``) with the rules of every other command, refuses an option given twice
unless it is a list, and orders systems in each measure's own direction."""

from __future__ import annotations

import pytest
from helpers import QRELS, RUNS, irpref_cli, write_qrels, write_run

from irpref.meta.catalog import EXPERIMENTS

REAL = [e for e in EXPERIMENTS if e.reads_runs]
SYNTHETIC = [e for e in EXPERIMENTS if not e.reads_runs]
MEASURES = {"ties": ["AP", "sgnLP"], "agreement": ["AP", "RR"], "degrade": ["AP", "RR"],
            "subsample": ["AP", "RR"], "interleaving": ["AP"]}
FAST = {"degrade": ["--samples", "2", "--fractions", "0.5"],
        "subsample": ["--samples", "3", "--sizes", "5"],
        "interleaving": ["--samples", "2"]}


def _args(name: str) -> list[str]:
    m = MEASURES.get(name)
    return [*(["-m", *m] if m else []), *FAST.get(name, [])]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """The example collection judged once, full and compact layouts."""
    d = tmp_path_factory.mktemp("judged")
    out = {}
    for layout in ("full", "compact"):
        path = d / f"{layout}.parquet"
        r = irpref_cli("judge", QRELS, *RUNS, "--layout", layout, "-o", path)
        assert r.returncode == 0, r.stderr
        out[layout] = path
    return out


def test_the_real_run_subcommands_are_the_ten_of_the_papers():
    assert [e.name for e in REAL] == [
        "ties", "agreement", "degrade", "subsample", "suffix-agreement", "recall-levels",
        "locality", "disaggregate", "interleaving", "asl-reorder"]
    assert [e.name for e in SYNTHETIC] == [
        "worst-case", "worst-case-agreement", "tie-probability", "rr-given-p1"]


_FILES: dict[str, str] = {}


def _from_files(name: str) -> str:
    if name not in _FILES:
        r = irpref_cli("meta", name, QRELS, *RUNS, *_args(name))
        assert r.returncode == 0, r.stderr
        _FILES[name] = r.stdout
    return _FILES[name]


@pytest.mark.slow
@pytest.mark.parametrize("name", [e.name for e in REAL])
def test_a_saved_judge_file_gives_the_table_of_the_files(name, saved):
    """The help offers a saved file; every subcommand reads one (the full layout)
    and prints the same bytes as from QRELS RUN..."""
    assert "saved by irpref judge" in irpref_cli("meta", name, "--help").stdout
    full = irpref_cli("meta", name, saved["full"], *_args(name))
    assert full.returncode == 0, full.stderr
    assert full.stdout == _from_files(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", [e.name for e in REAL])
def test_a_compact_saved_file_is_read_or_refused_with_the_reason(name, saved):
    compact = irpref_cli("meta", name, saved["compact"], *_args(name))
    if name in ("interleaving", "asl-reorder"):  # every retrieved item is needed
        assert compact.returncode == 2, compact.stderr
        assert "compact" in compact.stderr and "--layout full" in compact.stderr
        assert compact.stdout == ""
    else:
        assert compact.returncode == 0, compact.stderr
        assert compact.stdout == _from_files(name)


@pytest.mark.slow
def test_a_saved_file_with_run_files_or_another_rel_is_refused(saved):
    r = irpref_cli("meta", "ties", saved["full"], RUNS[0], "-m", "AP")
    assert r.returncode == 2
    assert "give no run files" in r.stderr
    r = irpref_cli("meta", "ties", saved["full"], "-m", "AP", "--rel", "2")
    assert r.returncode == 1
    assert "judged with --rel 1, asked --rel 2" in r.stderr


@pytest.mark.slow
@pytest.mark.parametrize("name", [e.name for e in REAL])
def test_corpus_size_is_accepted(name):
    """``-m 'TSE(e=ap)'`` says to pass --corpus-size: every subcommand takes it."""
    r = irpref_cli("meta", name, QRELS, *RUNS, *_args(name), "--corpus-size", "8841823")
    assert r.returncode == 0, r.stderr


@pytest.mark.slow
def test_corpus_size_reaches_the_measures():
    ev = irpref_cli("evaluate", QRELS, *RUNS, "-m", "SL1")
    r = irpref_cli("meta", "ties", QRELS, *RUNS, "-m", "TSE(e=ap)", "SL1", "RE")
    assert r.returncode == ev.returncode == 2  # as evaluate: a bad request (no corpus size)
    assert "(CLI: --corpus-size N)" in r.stderr
    r = irpref_cli("meta", "agreement", QRELS, *RUNS, "-m", "TSE(e=ap)", "SL1", "SL3", "RE",
                   "--corpus-size", "8841823")
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 1 + 6


@pytest.mark.slow
@pytest.mark.parametrize("value", ["0", "-1", "x"])
def test_rel_is_refused_with_evaluates_message(value):
    ev = irpref_cli("evaluate", QRELS, *RUNS, "-m", "AP", "--rel", value)
    assert ev.returncode == 2
    want = ev.stderr.splitlines()[-1].split("error: ", 1)[1]
    for e in REAL:
        r = irpref_cli("meta", e.name, QRELS, *RUNS, *_args(e.name), "--rel", value)
        assert r.returncode == 2, e.name
        assert r.stdout == ""
        assert r.stderr.splitlines()[-1] == f"irpref meta {e.name}: error: {want}"


@pytest.mark.slow
@pytest.mark.parametrize("option", ["--depth", "--corpus-size"])
def test_depth_and_corpus_size_follow_the_shared_rule(option):
    ev = irpref_cli("evaluate", QRELS, *RUNS, "-m", "AP", option, "0")
    r = irpref_cli("meta", "ties", QRELS, *RUNS, "-m", "AP", option, "0")
    assert ev.returncode == 2 and r.returncode == 2
    assert (r.stderr.splitlines()[-1].split("error: ", 1)[1]
            == ev.stderr.splitlines()[-1].split("error: ", 1)[1])


@pytest.fixture()
def tied_runs(tmp_path):
    """Four runs with many tied scores; run r3 lacks queries q4 and q5."""
    import numpy as np

    rng = np.random.default_rng(7)
    qrels = write_qrels(tmp_path / "qrels", [(f"q{q}", f"d{d}", int(rng.random() < 0.3) + 1
                                              if rng.random() < 0.5 else 0)
                                             for q in range(6) for d in range(15)])
    runs = {}
    for r in range(4):
        rows = []
        for q in range(6):
            if r == 3 and q >= 4:
                continue
            docs = rng.permutation(15)[:12]
            rows += [(f"q{q}", f"d{d}", float(rng.integers(0, 3))) for d in docs]
        runs[f"r{r}"] = rows
    return tmp_path, qrels, runs


def _meta_tables(qrels, paths, *extra):
    out = []
    for argv in (["ties", "-m", "AP", "RR", "nDCG@5", "sgnLP", "RPP"], ["recall-levels"]):
        r = irpref_cli("meta", argv[0], qrels, *paths, *argv[1:], *extra)
        assert r.returncode == 0, r.stderr
        out.append(r.stdout)
    return out


@pytest.mark.slow
def test_depth_ties_and_missing_change_what_is_judged(tied_runs):
    """--depth N is the run files cut at N, --ties input the file order made strict,
    --missing zero adds the comparisons with a query a run lacks (an empty ranking)."""
    d, qrels, runs = tied_runs
    plain = [write_run(d / name, rows) for name, rows in runs.items()]
    base = _meta_tables(qrels, plain)
    (d / "cut").mkdir()
    (d / "strict").mkdir()
    cut, strict = [], []
    for name, rows in runs.items():
        by_q: dict[str, list] = {}
        for q, doc, s in rows:
            by_q.setdefault(q, []).append((q, doc, s))
        # trec_eval's order: score desc, then docid desc
        ranked = [sorted(v, key=lambda x: x[1], reverse=True) for v in by_q.values()]
        ranked = [sorted(v, key=lambda x: -x[2]) for v in ranked]
        cut.append(write_run(d / "cut" / name, [x for v in ranked for x in v[:3]]))
        in_order = [x for v in by_q.values() for x in sorted(v, key=lambda x: -x[2])]
        strict.append(write_run(d / "strict" / name,  # ties in file order, made strict
                                [(q, doc, 100.0 - i) for i, (q, doc, _) in enumerate(in_order)]))
    assert _meta_tables(qrels, plain, "--depth", "3") == _meta_tables(qrels, cut)
    assert _meta_tables(qrels, plain, "--depth", "3") != base
    assert _meta_tables(qrels, plain, "--ties", "input") == _meta_tables(qrels, strict)
    assert _meta_tables(qrels, plain, "--ties", "input") != base
    zero = _meta_tables(qrels, plain, "--missing", "zero")
    n_base = int(base[1].splitlines()[1].split("\t")[1])
    n_zero = int(zero[1].splitlines()[1].split("\t")[1])
    assert n_zero > n_base  # r3's empty q4, q5 are compared with the other runs
    r = irpref_cli("meta", "ties", qrels, *plain, "-m", "AP", "--ties", "expected")
    assert r.returncode == 2
    assert "--ties" in r.stderr


@pytest.mark.parametrize("argv", [
    ["degrade", "--seed", "1", "--seed", "2"],
    ["degrade", "--samples", "2", "--samples", "3"],
    ["degrade", "--fractions", "0.5", "--fractions", "0.3"],
    ["subsample", "--sizes", "5", "--sizes", "3"],
    ["agreement", "--aggregate", "mc4", "--aggregate", "borda"],
    ["ties", "--rel", "1", "--rel", "2"],
    ["ties", "--format", "json", "--format", "tsv"],
    ["ties", "--depth", "10", "--depth", "20"],
    ["ties", "--subtopics", "a", "--subtopics", "b"],
    ["recall-levels", "--levels", "3", "--levels", "4"],
    ["asl-reorder", "--margin", "0.1", "--margin", "0.2"],
])
def test_an_option_given_twice_is_refused(argv):
    name, *rest = argv
    m = ["-m", "AP"] if name in MEASURES else []
    r = irpref_cli("meta", name, QRELS, *RUNS, *m, *rest)
    assert r.returncode == 2, r.stderr
    flag = rest[0]
    assert f"{flag} given twice" in r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize("argv", [
    ["tie-probability", "-m", "RR", "--n", "10", "--m", "2", "--n", "20"],
    ["rr-given-p1", "--n", "10", "--m", "2", "--p1", "1", "--seed", "1", "--seed", "2"],
])
def test_an_option_given_twice_is_refused_on_random_rankings(argv):
    r = irpref_cli("meta", *argv)
    assert r.returncode == 2, r.stderr
    assert "given twice" in r.stderr


@pytest.mark.slow
def test_list_options_collect_every_occurrence():
    """-m, --model and --discounts are lists: given twice, both values count."""
    one = irpref_cli("meta", "interleaving", QRELS, *RUNS, "-m", "AP", "RR", "--model",
                     "uniform", "dcg", *FAST["interleaving"])
    two = irpref_cli("meta", "interleaving", QRELS, *RUNS, "-m", "AP", "-m", "RR", "--model",
                     "uniform", "--model", "dcg", *FAST["interleaving"])
    assert one.returncode == 0, one.stderr
    assert two.stdout == one.stdout
    assert len(one.stdout.splitlines()) == 1 + 4
    d1 = irpref_cli("meta", "disaggregate", QRELS, *RUNS, "--discounts", "AP", "RR",
                    "--levels", "3")
    d2 = irpref_cli("meta", "disaggregate", QRELS, *RUNS, "--discounts", "AP", "--discounts",
                    "RR", "--levels", "3")
    assert d1.returncode == 0, d1.stderr
    assert d2.stdout == d1.stdout


# ------------------------------------------------------------------ orientation


@pytest.fixture()
def dominance(tmp_path):
    """Three runs strictly ordered on every query: good > middle > bad."""
    rows = [(str(q), f"r{q}_{i}", 1) for q in range(1, 7) for i in range(3)]
    q = write_qrels(tmp_path / "qrels", rows)
    runs = []
    for name, start in (("good", 0), ("middle", 2), ("bad", 5)):
        lines = []
        for qi in range(1, 7):
            docs = [f"n{qi}_{i}" for i in range(start)] + [f"r{qi}_{i}" for i in range(3)]
            docs += [f"n{qi}_{i}" for i in range(start, 8)]
            lines += [(str(qi), d, float(100 - k)) for k, d in enumerate(docs)]
        runs.append(write_run(tmp_path / name, lines))
    return q, runs


def _tsv(stdout: str) -> list[dict[str, str]]:
    head, *rows = [line.split("\t") for line in stdout.splitlines()]
    return [dict(zip(head, r)) for r in rows]


@pytest.mark.slow
def test_agreement_reads_orientation_from_the_record(dominance):
    q, runs = dominance
    r = irpref_cli("meta", "agreement", q, *runs, "-m", "AP", "SL1", "ASL", "SL3",
                   "--corpus-size", "100")
    assert r.returncode == 0, r.stderr
    for row in _tsv(r.stdout):
        assert float(row["sign_agreement"]) == 1.0, row
        assert float(row["kendall_tau"]) == pytest.approx(1.0), row
    c = irpref_cli("meta", "agreement", q, *runs, "-m", "AP", "SL1", "--conditional",
                   "--corpus-size", "100")
    assert [float(row["agreement"]) for row in _tsv(c.stdout)] == [1.0, 1.0]


@pytest.mark.slow
def test_degrade_with_a_reference_of_the_other_direction(dominance):
    q, runs = dominance
    r = irpref_cli("meta", "degrade", q, *runs, "-m", "SL1", "--reference", "AP",
                   "--fractions", "0.3", "--samples", "3", "--corpus-size", "100")
    assert r.returncode == 0, r.stderr
    (row,) = _tsv(r.stdout)
    assert float(row["agreement"]) == 1.0
    assert float(row["kendall_tau"]) == pytest.approx(1.0)


@pytest.mark.slow
def test_subsample_and_interleaving_with_a_lower_is_better_measure(dominance):
    q, runs = dominance
    s = irpref_cli("meta", "subsample", q, *runs, "-m", "SL1", "ASL", "--sizes", "2",
                   "--samples", "4", "--power", "--corpus-size", "100")
    assert s.returncode == 0, s.stderr
    assert {float(row["kendall_tau"]) for row in _tsv(s.stdout)} == {1.0}
    i = irpref_cli("meta", "interleaving", q, *runs, "-m", "SL1", "AP", "--samples", "2",
                   "--corpus-size", "100")
    assert i.returncode == 0, i.stderr
    assert {float(row["sign_agreement"]) for row in _tsv(i.stdout)} == {1.0}


@pytest.mark.slow
def test_asl_reorder_orders_asl_lower_is_better(dominance):
    q, runs = dominance
    r = irpref_cli("meta", "asl-reorder", q, *runs)
    assert r.returncode == 0, r.stderr
    rows = {row["step"]: row for row in _tsv(r.stdout)}
    assert float(rows["cumulative"]["kendall_tau"]) == pytest.approx(1.0)


def test_the_readme_lists_the_records():
    """The docs' list of experiments (Meta-evaluation page) is generated from the records."""
    from pathlib import Path

    from irpref.meta.catalog import README_BEGIN, README_END, readme_list

    page = Path(__file__).resolve().parents[1] / "docs" / "reference" / "meta-evaluation.md"
    text = page.read_text(encoding="utf-8")
    block = text.split(README_BEGIN, 1)[1].split(README_END, 1)[0]
    assert block == readme_list(), ("the docs' meta list is stale: python -m "
                                    "irpref.meta.catalog docs/reference/meta-evaluation.md")


@pytest.mark.slow
def test_a_count_without_direction_is_refused():
    """NumRet's record says orientation none: no experiment can say which run it prefers."""
    r = irpref_cli("meta", "agreement", QRELS, *RUNS, "-m", "AP", "NumRet")
    assert r.returncode == 2
    assert "NumRet is a count with no better direction" in r.stderr
    assert r.stdout == ""


def test_the_python_api_refuses_rel_0_with_the_shared_rule():
    import irpref.meta
    from irpref.errors import UsageError

    with pytest.raises(UsageError, match=r"^rel=0: must be >= 1"):
        irpref.meta.tie_rates(QRELS, RUNS[:2], ["AP"], rel=0)
    with pytest.raises(UsageError, match=r"^rel=0: must be >= 1"):
        irpref.meta.suffix_agreement(QRELS, RUNS[:2], rel=0)


def test_irpref_meta_exports_every_function_the_records_name():
    import importlib
    from pathlib import Path

    import irpref.meta
    from irpref.meta.catalog import exports

    modules = {f.stem for f in Path(irpref.meta.__file__).parent.glob("*.py")}
    for name, module in exports().items():
        assert name not in modules, f"module irpref.meta.{name} would hide the function"
        importlib.import_module(f"irpref.meta.{module}")  # a loaded module must not hide it
        assert getattr(irpref.meta, name).__module__ == f"irpref.meta.{module}", name
    from irpref.meta import agreement, subsample

    assert callable(agreement) and callable(subsample)


@pytest.mark.slow
def test_output_file_holds_the_table(tmp_path):
    out = tmp_path / "ties.tsv"
    r = irpref_cli("meta", "ties", QRELS, *RUNS, "-m", "AP", "RR", "-o", out)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    assert out.read_text() == irpref_cli("meta", "ties", QRELS, *RUNS, "-m", "AP", "RR").stdout
