"""Dask (irpref.distributed): a LocalCluster of 2 worker processes gives the
single-process tables value for value, on the shipped example and on seeded
random collections, through the Python API and ``--dask local:2``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irpref
from irpref import examples

distributed = pytest.importorskip("distributed")

from irpref import distributed as D  # noqa: E402

EXAMPLE = Path(examples.__file__).parent / "dl19"
MEASURES = ["AP", "nDCG@10", "RR", "P@10", "R@1000"]


@pytest.fixture(scope="module")
def client():
    c = D.client_for("local:2")
    yield c
    cluster = c.cluster
    c.close()
    cluster.close()


def _random_collection(tmp: Path, seed: int, runs: int = 5, queries: int = 12) -> tuple:
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(60)]
    with open(tmp / "qrels.txt", "w") as f:
        for q in range(queries):
            for d in rng.choice(docs, 15, replace=False):
                f.write(f"q{q} 0 {d} {rng.integers(0, 3)}\n")
    paths = []
    for r in range(runs):
        path = tmp / f"run{r}.txt"
        with open(path, "w") as f:
            for q in range(queries - int(rng.integers(0, 2))):  # some runs lack a query
                for i, d in enumerate(rng.choice(docs, 30, replace=False)):
                    score = float(rng.integers(0, 8))  # many tied scores
                    f.write(f"q{q} Q0 {d} {i + 1} {score} run{r}\n")
        paths.append(path)
    return tmp / "qrels.txt", paths


def test_example_evaluate_and_significance_identical(client):
    runs = sorted(EXAMPLE.glob("*.gz"))
    local = irpref.evaluate(EXAMPLE / "qrels.txt", runs, MEASURES, rel=2)
    dask = D.evaluate(EXAMPLE / "qrels.txt", runs, MEASURES, rel=2, client=client)
    pd.testing.assert_frame_equal(local, dask)
    a = irpref.significance(local, ["t", "hsd"], seed=5, permutations=300, bootstrap=100)
    b = D.significance(local, ["t", "hsd"], seed=5, permutations=300, bootstrap=100,
                       client=client)
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("ties,missing", [("docid", "skip"), ("expected", "zero")])
def test_random_collections_identical(client, tmp_path, seed, ties, missing):
    qrels, runs = _random_collection(tmp_path, seed)
    kw = dict(rel=1, ties=ties, missing=missing, depth=20)
    local = irpref.evaluate(qrels, runs, MEASURES, **kw)
    dask = D.evaluate(qrels, runs, MEASURES, client=client, **kw)
    pd.testing.assert_frame_equal(local, dask)


def test_cli_dask_local_matches(tmp_path):
    qrels, runs = _random_collection(tmp_path, 7)
    args = ["-m", "AP", "RR", "--per-query", "--format", "tsv"]
    one = subprocess.run(["irpref", "evaluate", qrels, *runs, *args], capture_output=True,
                         text=True)
    two = subprocess.run(["irpref", "evaluate", qrels, *runs, *args, "--dask", "local:2"],
                         capture_output=True, text=True)
    assert one.returncode == 0 and two.returncode == 0, two.stderr
    assert one.stdout == two.stdout


def test_bad_local_address_is_a_usage_error():
    from irpref.errors import UsageError

    with pytest.raises(UsageError, match="local:N"):
        D.client_for("local:0")
