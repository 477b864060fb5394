"""Seeded synthetic TREC qrels and runs for tests that need many runs (e.g. 100).

``write_collection(directory, n_runs, n_queries, n_docs, seed)`` writes
``qrels.txt`` and one run file per system, and returns (qrels path, run paths,
run names). Runs differ in quality (a per-run skill mixes the relevance grade
into the score), some share scores (ties), and about one name in three is a
long TREC-style name of 30-60 characters.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

_PARTS = ["UMass_CIIR", "uogTr", "webis", "h2oloo", "bm25", "rm3", "monoT5", "duoT5",
          "colbert", "splade", "dense", "expansion", "fusion", "rerank", "title_desc",
          "baseline", "final", "v2", "ensemble", "lambdaMART"]


def run_names(n: int, seed: int = 0) -> list[str]:
    """``n`` distinct names, short (``run7``) or long TREC-like (30-60 characters)."""
    rng = np.random.default_rng(seed)
    names: list[str] = []
    for i in range(n):
        if i % 3 == 1:
            parts = list(rng.choice(_PARTS, size=6, replace=False))
            name = "-".join(parts) + f".{2019 + i % 5}.r{i}"
            while len(name) < 30:
                name += "_" + str(rng.choice(_PARTS))
            names.append(name[:56] + f"{i:02d}" if len(name) > 58 else name)
        else:
            names.append(f"run{i}")
    assert len(set(names)) == n
    return names


def write_collection(directory, n_runs: int = 100, n_queries: int = 20, n_docs: int = 50,
                     seed: int = 0) -> tuple[Path, list[Path], list[str]]:
    directory = Path(directory)
    rng = np.random.default_rng(seed)
    pool = 2 * n_docs  # documents per query
    grades = rng.choice([0, 0, 0, 1, 2], size=(n_queries, pool))
    queries = [f"{100 + q // 2}_{q}" if q % 4 == 0 else str(300 + q) for q in range(n_queries)]
    qrels = directory / "qrels.txt"
    with open(qrels, "w") as fh:
        for q, qid in enumerate(queries):
            for d in range(pool):
                if d % 2 == 0 or grades[q, d] > 0:  # half the pool judged, all relevant ones
                    fh.write(f"{qid} 0 D{q}-{d} {grades[q, d]}\n")
    names = run_names(n_runs, seed)
    skill = np.linspace(0.0, 1.5, n_runs)[rng.permutation(n_runs)]
    paths = []
    for r, name in enumerate(names):
        path = directory / f"{name}.txt"
        lines = []
        for q, qid in enumerate(queries):
            score = skill[r] * grades[q] + rng.normal(size=pool)
            if r % 5 == 0:
                score = np.round(score, 1)  # ties
            top = np.argsort(-score, kind="stable")[:n_docs]
            lines += [f"{qid} Q0 D{q}-{d} {i + 1} {score[d]:.3f} {name}\n"
                      for i, d in enumerate(top)]
        path.write_text("".join(lines))
        paths.append(path)
    return qrels, paths, names
