"""Dask (irpref.distributed): a LocalCluster of 2 worker processes gives the
single-process tables value for value, on the shipped example and on seeded
random collections, through the Python API and ``--dask local:2``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irpref
from irpref import examples

distributed = pytest.importorskip("distributed")

from irpref import distributed as D  # noqa: E402
from irpref.params import Settings  # noqa: E402

# under pytest-xdist (scripts/test.sh: -n 2 --dist loadgroup) this module runs on one
# worker, so its module-scoped dask LocalCluster is built once
pytestmark = pytest.mark.xdist_group("distributed")

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


@pytest.mark.slow
def test_example_evaluate_and_significance_identical(client):
    runs = sorted(EXAMPLE.glob("*.gz"))
    local = irpref.evaluate(EXAMPLE / "qrels.txt", runs, MEASURES, rel=2)
    dask = D.evaluate(EXAMPLE / "qrels.txt", runs, MEASURES, settings=Settings(rel=2),
                      client=client)
    pd.testing.assert_frame_equal(local, dask)
    a = irpref.significance(local, ["t", "hsd"], seed=5, permutations=300, bootstrap=100)
    b = D.significance(local, ["t", "hsd"], seed=5, permutations=300, bootstrap=100,
                       client=client)
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("ties,missing", [("docid", "skip"), ("expected", "zero")])
def test_random_collections_identical(client, tmp_path, seed, ties, missing):
    qrels, runs = _random_collection(tmp_path, seed)
    kw = dict(rel=1, ties=ties, missing=missing, depth=20)
    local = irpref.evaluate(qrels, runs, MEASURES, **kw)
    dask = D.evaluate(qrels, runs, MEASURES, client=client, settings=Settings(**kw))
    pd.testing.assert_frame_equal(local, dask)


@pytest.mark.slow
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


# ------------------------------------------------------------------- compare

PREFS = ["sgnLP", "rrLP", "sgnLR", "RPP", "RPP(p=dcg)", "RPP(p=inverse)", "RPP(grades=graded)",
         "rrLP(rel=2)"]


@pytest.fixture()
def small_blocks(monkeypatch):
    """Many population blocks and blocks of pairs even on small collections, so the
    blocks of pairs run as several tasks."""
    from irpref.preferences import comparison, pairs

    monkeypatch.setattr(pairs, "BUDGET", 400)
    monkeypatch.setattr(comparison, "PAIR_BUDGET", 90)


def test_example_compare_identical(client, small_blocks, monkeypatch):
    runs = sorted(EXAMPLE.glob("*.gz"))[:12]
    local = irpref.compare(EXAMPLE / "qrels.txt", runs, PREFS, rel=2)
    sizes = []
    call = D.PairMap.__call__

    def counted(self, func, shared, blocks, *args):
        blocks = list(blocks)
        sizes.append(len(blocks))
        return call(self, func, shared, blocks, *args)

    monkeypatch.setattr(D.PairMap, "__call__", counted)
    dask = irpref.compare(EXAMPLE / "qrels.txt", runs, PREFS, rel=2, client=client)
    pd.testing.assert_frame_equal(local, dask)
    assert max(sizes) > 4  # the blocks of pairs ran as several tasks


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("ties,depth", [("docid", None), ("input", 20)])
def test_random_compare_identical(client, tmp_path, seed, ties, depth, small_blocks):
    qrels, runs = _random_collection(tmp_path, 100 + seed, runs=6, queries=15)
    local = irpref.compare(qrels, runs, PREFS, ties=ties, depth=depth)
    dask = irpref.compare(qrels, runs, PREFS, ties=ties, depth=depth, client=client)
    pd.testing.assert_frame_equal(local, dask)
    assert len(local)


def _leaderboard(tmp: Path, seed: int = 3, runs: int = 60, queries: int = 30,
                 depth: int = 40) -> tuple:
    """A leaderboard-shaped collection: many runs of shallow rankings, graded qrels,
    a few runs lacking a query."""
    rng = np.random.default_rng(seed)
    pool = 120
    grades = rng.choice([0, 0, 1, 2, 3], size=(queries, pool))
    with open(tmp / "qrels.txt", "w") as f:
        for q in range(queries):
            for d in np.flatnonzero(rng.random(pool) < 0.6):
                f.write(f"q{q} 0 d{q}-{d} {grades[q, d]}\n")
    paths = []
    for r in range(runs):
        path = tmp / f"sys{r:02d}.txt"
        skill = rng.uniform(0.2, 2.0)
        with open(path, "w") as f:
            for q in range(queries):
                if rng.random() < 0.02:
                    continue
                score = np.round(skill * grades[q] + rng.standard_normal(pool), 1)
                for i, d in enumerate(np.argsort(-score, kind="stable")[:depth]):
                    f.write(f"q{q} Q0 d{q}-{d} {i + 1} {score[d]} sys{r}\n")
        paths.append(path)
    return tmp / "qrels.txt", paths


@pytest.mark.slow
def test_leaderboard_compare_and_significance_identical(client, tmp_path, monkeypatch):
    """60 runs x 30 queries: the blocks of pairs on Dask give the local numbers."""
    from irpref.compare import compare_matrices
    from irpref.inference import scored_tables
    from irpref.preferences import comparison

    monkeypatch.setattr(comparison, "PAIR_BUDGET", 18000)  # 600 pairs a block: 3 tasks
    monkeypatch.setattr(D, "TEST_VALUES", 18000)  # 600 pairs a significance task
    qrels, runs = _leaderboard(tmp_path)
    prefs = ["sgnLP", "rrLP", "RPP", "RPP(p=dcg)"]
    local = compare_matrices(qrels, runs, prefs)
    dask = compare_matrices(qrels, runs, prefs, client=client)
    assert type(dask) is type(local) and len(dask.blocks()) == 3
    pd.testing.assert_frame_equal(local.tidy_means(), dask.tidy_means())
    perm = np.random.default_rng(0).permutation(len(runs))
    for name in local.names:
        np.testing.assert_array_equal(local.win_rates(name, perm), dask.win_rates(name, perm))
    frames = [pd.concat(list(c.tidy_frames())) for c in (local, dask)]
    pd.testing.assert_frame_equal(*frames)
    tables = scored_tables(qrels, runs, ["AP", "sgnLP", "RPP"], Settings())
    options = dict(correction="holm", seed=3, ci="t")
    tests = ["paired", "wilcoxon"]
    pd.testing.assert_frame_equal(irpref.significance(tables, tests, **options),
                                  D.significance(tables, tests, client=client, **options))
    from functools import partial

    from irpref.stats.ranks import leaderboard

    pd.testing.assert_frame_equal(
        leaderboard(tables, "paired", seed=3),
        leaderboard(tables, "paired", seed=3, tester=partial(D.significance, client=client)))


def test_preference_significance_by_pair_blocks(client, tmp_path, monkeypatch):
    """Preferences tested on Dask by blocks of pairs (each task computes its pairs'
    values from the comparison's state) give the local rows."""
    from irpref.inference import scored_tables

    monkeypatch.setattr(D, "TEST_VALUES", 100)  # 8 pairs a task: 3 tasks a measure and test
    qrels, runs = _random_collection(tmp_path, 21, runs=7, queries=12)
    tables = scored_tables(qrels, runs, ["RR", "sgnLP", "RPP(p=dcg)"], Settings())
    for options in (dict(ci="t"), dict(ci="bca", bootstrap=60, baseline="run2")):
        options.update(seed=9, permutations=100)
        tests = ["paired", "wilcoxon", "hsd"]
        pd.testing.assert_frame_equal(irpref.significance(tables, tests, **options),
                                      D.significance(tables, tests, client=client, **options))


@pytest.mark.slow
def test_cli_leaderboard_dask_matches(tmp_path):
    qrels, runs = _leaderboard(tmp_path, runs=40, queries=20)
    for command, args in [("compare", ["-m", "sgnLP", "RPP", "--format", "tsv"]),
                          ("compare", ["-m", "rrLP", "--per-query", "--format", "tsv"]),
                          ("compare", ["-m", "sgnLP", "RPP(p=dcg)"]),
                          ("significance", ["-m", "AP", "sgnLP", "rrLP", "--format", "tsv"]),
                          ("rank", ["-m", "AP", "sgnLP", "RPP", "--format", "tsv"]),
                          ("rank", ["-m", "nDCG@10", "--test", "tukey", "--format", "tsv"])]:
        one = subprocess.run(["irpref", command, qrels, *runs, *args], capture_output=True,
                             text=True)
        two = subprocess.run(["irpref", command, qrels, *runs, *args, "--dask", "local:2"],
                             capture_output=True, text=True)
        assert one.returncode == 0 and two.returncode == 0, two.stderr
        assert one.stdout == two.stdout and len(one.stdout) > 1000


@pytest.mark.slow
def test_cli_compare_dask_matches(tmp_path):
    qrels, runs = _random_collection(tmp_path, 8)
    for args in (["--per-query", "--format", "tsv"], ["--format", "table"]):
        args = ["-m", "sgnLP", "rrLP", "RPP(p=dcg)", *args]
        one = subprocess.run(["irpref", "compare", qrels, *runs, *args], capture_output=True,
                             text=True)
        two = subprocess.run(["irpref", "compare", qrels, *runs, *args, "--dask", "local:2"],
                             capture_output=True, text=True)
        assert one.returncode == 0 and two.returncode == 0, two.stderr
        assert one.stdout == two.stdout


@pytest.mark.slow
def test_cli_evaluate_dask_subtopics(tmp_path):
    import gzip

    qrels = Path(__file__).parent / "data" / "web13-diversity-201-204.ndeval.txt.gz"
    docs: dict[str, list[str]] = {}
    with gzip.open(qrels, "rt") as f:
        for line in f:
            topic, _, doc, _ = line.split()
            docs.setdefault(topic, []).append(doc)
    rng = np.random.default_rng(12)
    runs = []
    for r in range(3):
        path = tmp_path / f"div{r}.txt"
        with open(path, "w") as f:
            for topic, ds in docs.items():
                pool = sorted(set(ds)) + [f"junk{i}" for i in range(20)]
                for i, d in enumerate(rng.permutation(pool)[:25]):
                    f.write(f"{topic} Q0 {d} {i + 1} {float(rng.integers(0, 5))} div{r}\n")
        runs.append(str(path))
    args = [str(qrels), *runs, "-m", "alpha-nDCG@10", "S-recall@10", "--subtopics",
            str(qrels), "--per-query", "--format", "tsv"]
    one = subprocess.run(["irpref", "evaluate", *args], capture_output=True, text=True)
    two = subprocess.run(["irpref", "evaluate", *args, "--dask", "local:2"],
                         capture_output=True, text=True)
    assert one.returncode == 0 and two.returncode == 0, (one.stderr, two.stderr)
    assert one.stdout == two.stdout and len(one.stdout.splitlines()) > 20


@pytest.mark.slow
@pytest.mark.parametrize("command,address,message", [
    ("compare", "local:0", "local:N"), ("compare", "local:x", "local:N"),
    ("compare", "nonsense", "scheduler address"), ("compare", "foo://x:1", "cannot connect"),
    ("compare", "tcp://127.0.0.1:1", "cannot connect"),
    ("evaluate", "local:0", "local:N"), ("evaluate", "tcp://127.0.0.1:1", "cannot connect"),
    ("significance", "local:0", "local:N"),
    ("significance", "tcp://127.0.0.1:1", "cannot connect"),
])
def test_cli_bad_address_is_a_usage_error(tmp_path, command, address, message):
    qrels, runs = _random_collection(tmp_path, 9, runs=2)
    proc = subprocess.run(["irpref", command, qrels, *runs, "--dask", address],
                          capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""


@pytest.mark.slow
def test_without_dask_the_error_names_the_extra(tmp_path):
    qrels, runs = _random_collection(tmp_path, 10, runs=2)
    code = ("import sys; sys.modules['distributed'] = None; sys.modules['dask'] = None; "
            "from irpref.cli.main import main; sys.exit(main())")
    for command in ("evaluate", "compare"):
        proc = subprocess.run([sys.executable, "-c", code, command, str(qrels), *map(str, runs),
                               "--dask", "local:2"], capture_output=True, text=True)
        assert proc.returncode == 2, proc.stderr
        assert "irpref[dask]" in proc.stderr and "Traceback" not in proc.stderr


def test_compare_client_refuses_st_rpp(client, tmp_path):
    qrels, runs = _random_collection(tmp_path, 11, runs=2)
    with pytest.raises(ValueError, match="ST-RPP"):
        irpref.compare(qrels, runs, ["ST-RPP"], client=client)


@pytest.mark.slow
def test_a_measure_counting_every_run_documents_is_refused_per_run_tasks():
    """ASL(missing=corpus) without a corpus size counts the documents of all
    runs: one run per task would give each run another corpus size."""
    from irpref.errors import UsageError

    qrels, runs = str(examples.qrels_path()), [str(p) for p in examples.run_paths()]
    with pytest.raises(UsageError, match="--corpus-size"):
        D.evaluate(qrels, runs, ["AP", "ASL(missing=corpus)"], client=object(),
                   settings=Settings())
    proc = subprocess.run(["irpref", "evaluate", qrels, *runs, "-m", "ASL(missing=corpus)",
                           "--dask", "local:1"], capture_output=True, text=True)
    assert proc.returncode == 2 and "--corpus-size" in proc.stderr
    assert "Traceback" not in proc.stderr
