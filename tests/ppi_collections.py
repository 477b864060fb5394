"""Collections with machine labels on every query and human labels on some, for the
prediction-powered inference tests (seeded; see tests/data/README.md).

- :func:`dl19_pair`: TREC DL 2019 passage (``tests/data/dl19-passage``): the NIST
  grades are the human labels; machine labels are drawn, per (query, passage),
  from the row of the NIST grade in the confusion matrix of an LLM judge
  (:func:`confusion`); the human qrels keep a random subset of the queries.
- :func:`llmjudge_pair`: the LLMJudge sample (``tests/data/llmjudge-sample``):
  h2oloo-fewself's labels as the machine qrels, the NIST labels of a random
  subset of the queries as the human qrels, and synthetic runs over the judged
  pool (score = skill x NIST grade + noise, seeded).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

DATA = Path(__file__).resolve().parent / "data"
LLMJUDGE = DATA / "llmjudge-sample"
DL19 = DATA / "dl19-passage"

CONFUSION = np.array([[1586, 229, 98, 92],
                      [602, 302, 183, 146],
                      [225, 143, 212, 228],
                      [57, 58, 64, 198]])
"""Human grade (rows 0-3) x h2oloo-fewself grade (columns 0-3) over the 4,423 pairs of
the LLMJudge sample (tests/data/README.md; :func:`confusion` recomputes it)."""


def read_qrels(path) -> pd.DataFrame:
    """A TREC qrels file as columns query, doc, grade (ids as text)."""
    return pd.read_csv(path, sep=r"\s+", header=None, names=["query", "it", "doc", "grade"],
                       dtype={"query": str, "doc": str}).drop(columns="it")


def write_qrels(path: Path, frame: pd.DataFrame) -> Path:
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in
                            zip(frame["query"], frame["doc"], frame["grade"])))
    return path


def confusion() -> np.ndarray:
    """The human x h2oloo-fewself grade counts of the LLMJudge sample."""
    pairs = read_qrels(LLMJUDGE / "human.qrels").merge(
        read_qrels(LLMJUDGE / "h2oloo-fewself.qrels"), on=["query", "doc"])
    return pd.crosstab(pairs["grade_x"], pairs["grade_y"]).to_numpy()


def machine_grades(grades: np.ndarray, seed: int) -> np.ndarray:
    """One machine grade per human grade, drawn from its row of :data:`CONFUSION`."""
    rng = np.random.default_rng(seed)
    cumulative = (CONFUSION / CONFUSION.sum(axis=1, keepdims=True)).cumsum(axis=1)
    draw = rng.random(len(grades))
    return (draw[:, None] > cumulative[np.asarray(grades)]).sum(axis=1)


def human_subset(qrels: pd.DataFrame, n_queries: int, seed: int) -> pd.DataFrame:
    """The rows of ``n_queries`` queries drawn uniformly without replacement."""
    rng = np.random.default_rng(seed)
    queries = sorted(qrels["query"].unique())
    chosen = set(rng.choice(queries, n_queries, replace=False))
    return qrels[qrels["query"].isin(chosen)]


def dl19_pair(directory: Path, n_human: int = 15, seed: int = 0,
              runs: int | None = 6) -> tuple[Path, Path, list[Path]]:
    """(machine qrels, human qrels, run files) on DL 2019 (``runs``: the first that many
    of its 37 runs, None: all)."""
    truth = read_qrels(DL19 / "qrels.txt")
    machine = truth.assign(grade=machine_grades(truth["grade"].to_numpy(), seed))
    m = write_qrels(Path(directory) / "machine.qrels", machine)
    h = write_qrels(Path(directory) / "human.qrels", human_subset(truth, n_human, seed + 1))
    files = sorted((DL19 / "runs").glob("*.gz"))
    return m, h, files if runs is None else files[:runs]


def llmjudge_pair(directory: Path, n_human: int = 10, n_runs: int = 5, seed: int = 0,
                  depth: int = 100) -> tuple[Path, Path, list[Path]]:
    """(machine qrels = h2oloo-fewself, human qrels = NIST labels of ``n_human`` queries,
    ``n_runs`` synthetic runs over the judged pool)."""
    directory = Path(directory)
    human = read_qrels(LLMJUDGE / "human.qrels")
    h = write_qrels(directory / "human-sample.qrels", human_subset(human, n_human, seed))
    rng = np.random.default_rng(seed + 100)
    skill = np.linspace(0.2, 2.0, n_runs)
    paths = []
    for r in range(n_runs):
        noise = rng.normal(size=len(human))
        frame = human.assign(score=skill[r] * human["grade"] + noise)
        frame = frame.sort_values(["query", "score"], ascending=[True, False])
        frame = frame.groupby("query", sort=False).head(depth)
        path = directory / f"synthetic{r}.run"
        path.write_text("".join(f"{q} Q0 {d} 0 {s:.6f} synthetic{r}\n" for q, d, s in
                                zip(frame["query"], frame["doc"], frame["score"])))
        paths.append(path)
    return LLMJUDGE / "h2oloo-fewself.qrels", h, paths
