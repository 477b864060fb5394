"""Terminal tables list query ids and run names in natural order (106_2 < 106_10,
run2 < run10): irpref compare's matrix, orderings and per-query table, as evaluate."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from helpers import irpref_cli

from irpref.report.records import sort_runs

QUERIES = ["106_10", "q1", "106_2"]  # file order; natural: 106_2, 106_10, q1
RUNS = ["run10", "run2", "run1"]  # argument order; natural: run1, run2, run10


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("natural")
    (d / "qrels").write_text("".join(f"{q} 0 d{i} {1 + i % 2}\n" for q in QUERIES
                                     for i in range(3)))
    for k, run in enumerate(RUNS):
        lines = [f"{q} Q0 d{(i + k) % 3} {i + 1} {3 - i} {run}\n" for q in QUERIES
                 for i in range(3)]
        (d / run).write_text("".join(lines))
    return d


def cli(files, *args: str) -> str:
    proc = irpref_cli(*args[:1], files / "qrels", *[files / r for r in RUNS], *args[1:])
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def first_seen(text: str, names: list[str]) -> list[str]:
    """``names`` in the order they first appear as whole words in ``text``."""
    where = {n: re.search(rf"(?<![\w.]){re.escape(n)}(?![\w.])", text).start() for n in names}
    return sorted(names, key=where.get)


@pytest.mark.slow
def test_compare_matrix_and_orderings_in_natural_run_order(files):
    out = cli(files, "compare", "-m", "sgnLP")
    matrix = out.split("== sgnLP")[1].split("--")[0]
    rows = [line.split()[1] for line in matrix.splitlines()[2:] if line.strip()]
    assert rows == ["run1", "run2", "run10"]
    assert "-0.0000" not in matrix  # a tie is printed as +0.0000


@pytest.mark.slow
def test_compare_per_query_table_in_natural_order(files):
    out = cli(files, "compare", "-m", "sgnLP", "--per-query").split("\n\n== ")[0]
    lines = out.splitlines()[2:]
    # pairs keep their orientation (a listed before b); run_a then run_b in natural order
    run_a = [line.split()[0] for line in lines if not line.startswith(" ")]
    assert run_a == ["run2", "run10"]
    pairs = [line.split()[-3] for line in lines if len(line.split()) >= 3]
    assert pairs == ["run1", "run1", "run2"]
    block = lines[:3]  # the first pair's three queries
    assert [line.split()[-2] for line in block] == ["106_2", "106_10", "q1"]


def test_evaluate_table_in_natural_order(files):
    out = cli(files, "evaluate", "-m", "AP", "--per-query")
    assert first_seen(out, RUNS) == ["run1", "run2", "run10"]
    queries = [line.split()[-2] for line in out.splitlines()[2:6]]
    assert queries == ["106_2", "106_10", "q1", "(mean)"]


def test_tsv_keeps_the_input_run_order(files):
    out = cli(files, "evaluate", "-m", "AP", "--format", "tsv")
    assert [line.split("\t")[0] for line in out.splitlines()[1:]] == RUNS


def test_sort_runs_is_stable_and_natural():
    frame = pd.DataFrame({"run_a": ["r10", "r2", "r10", "r2"], "run_b": ["r3", "r3", "r1", "r1"],
                          "query": ["b", "b", "a", "a"], "value": range(4)})
    out = sort_runs(frame)
    assert list(zip(out["run_a"], out["run_b"])) == [("r2", "r1"), ("r2", "r3"), ("r10", "r1"),
                                                     ("r10", "r3")]
