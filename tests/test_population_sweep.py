"""Every command announces the population it used (issue "one answer per question").

A sweep through the installed command: every command that reads runs, with a run
lacking 5 of the 43 judged queries and with a run sharing none (its query ids
carry a leading zero: qrels ``1037798``, run ``01037798``), under every
``--missing`` value.

- lacking: exit 0; exactly one warning line on stderr naming the run, the count
  and the ``--missing`` rule (however many steps of the command read the run);
- sharing none: exit 1, one error naming the run and a few ids of each side, as
  trec_eval's "No queries with both results and relevance info".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import QRELS, RUNS, irpref_cli

from irpref.io import read_run
from irpref.params import MISSING

pytestmark = pytest.mark.slow

OTHER = RUNS[1]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """``lacking.txt`` (the first example run without its first 5 queries) and
    ``none.txt`` (the same run, every query id with a leading zero)."""
    base = tmp_path_factory.mktemp("population")
    run = read_run(RUNS[0])
    queries, docs = run.query.to_pylist(), run.doc.to_pylist()
    scores = [float(s) for s in run.score]
    drop = set(sorted(set(queries))[:5])
    lacking, none = base / "lacking.txt", base / "none.txt"
    with open(lacking, "w") as out:
        out.writelines(f"{q} Q0 {d} 0 {s!r} lacking\n"
                       for q, d, s in zip(queries, docs, scores) if q not in drop)
    with open(none, "w") as out:
        out.writelines(f"0{q} Q0 {d} 0 {s!r} none\n" for q, d, s in zip(queries, docs, scores))
    return {"lacking": lacking, "none": none, "dir": base}


def commands(run, out_dir):
    """(name, argv) of every command reading QRELS RUN..., with its run list."""
    q = QRELS
    meta = [(f"meta {name}", ["meta", name, q, run, OTHER, *extra])
            for name, extra in [("ties", ["-m", "AP", "sgnLP"]),
                                ("agreement", ["-m", "AP", "sgnLP"]),
                                ("degrade", ["-m", "AP", "--samples", "1",
                                             "--fractions", "0.5"]),
                                ("subsample", ["-m", "AP", "--samples", "1", "--sizes", "10"]),
                                ("suffix-agreement", []), ("recall-levels", []),
                                ("locality", []), ("disaggregate", []),
                                ("interleaving", ["--samples", "1"]), ("asl-reorder", [])]]
    return [
        ("evaluate", ["evaluate", q, run, OTHER, "-m", "AP", "RR"]),
        ("compare", ["compare", q, run, OTHER, "-m", "sgnLP", "RPP"]),
        ("significance", ["significance", q, run, OTHER, "-m", "AP", "sgnLP"]),
        ("ties", ["ties", q, run, OTHER, "-m", "AP"]),
        ("design", ["design", "--min-diff", "0.05", q, run, OTHER, "-m", "AP", "nDCG@10"]),
        ("agree", ["agree", q, q, run, OTHER, "-m", "AP", "sgnLP"]),
        ("plot", ["plot", "differences", q, run, OTHER, "-m", "AP", "-o",
                  out_dir / "f.png"]),
        *meta,
    ]


CASES = [name for name, _ in commands("RUN", Path("."))]


@pytest.mark.slow
@pytest.mark.parametrize("missing", MISSING)
@pytest.mark.parametrize("name", CASES)
def test_a_run_lacking_queries_is_announced_once(runs, name, missing):
    argv = dict(commands(runs["lacking"], runs["dir"]))[name]
    out = irpref_cli(*argv, "--rel", "2", "--missing", missing)
    assert out.returncode == 0, out.stderr
    lines = [ln for ln in out.stderr.splitlines() if "lacks" in ln]
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("irpref: warning: run lacking lacks 5 of 43 judged queries")
    if missing == "zero":
        assert "scored as empty rankings (--missing zero)" in lines[0]
    else:
        assert "its means are over 38 queries" in lines[0]


@pytest.mark.slow
@pytest.mark.parametrize("missing", MISSING)
@pytest.mark.parametrize("name", CASES)
def test_a_run_sharing_no_query_is_refused(runs, name, missing):
    argv = dict(commands(runs["none"], runs["dir"]))[name]
    out = irpref_cli(*argv, "--rel", "2", "--missing", missing)
    assert out.returncode == 1, (out.stdout, out.stderr)
    assert out.stdout == ""
    err = out.stderr.strip().splitlines()
    assert len(err) == 1, out.stderr
    assert "run none: it shares no query with the qrels" in err[0]
    assert "01037798" in err[0] and "1037798," in err[0]


@pytest.mark.slow
def test_saved_judgments_announce_and_refuse_the_same(runs, tmp_path):
    saved = tmp_path / "j.parquet"
    assert irpref_cli("judge", QRELS, runs["lacking"], OTHER, "-o", saved,
                      "--rel", "2").returncode == 0
    out = irpref_cli("evaluate", saved, "-m", "AP", "--rel", "2")
    assert out.returncode == 0
    assert out.stderr.count("run lacking lacks 5 of 43") == 1, out.stderr
    none = irpref_cli("judge", QRELS, runs["none"], "-o", tmp_path / "n.parquet")
    assert none.returncode == 1 and "run none: it shares no query" in none.stderr
    assert not (tmp_path / "n.parquet").exists()
