"""Collections and machine judges for the PPI coverage study (``bench_ppi_coverage.py``).

Held-out TREC data (``../shared/data`` relative to the project root, or the folder
``IRPREF_DATA`` names, as ``experiments/``); the human
grades are the truth. A *judge* relabels every judged (query, document) pair:

- ``confusion``: each grade redrawn from its row of the confusion matrix of the
  LLMJudge judge h2oloo-fewself against the NIST grades (an LLM's mistakes);
- ``over``: a lenient judge, each grade raised by one with probability 0.5
  (top grade kept): the machine's values are biased upwards;
- ``noisy``: with probability 0.3 a grade is replaced by a uniform random grade;
- ``query``: query-correlated errors: each query draws a leniency of -1, 0 or +1
  grade (probabilities 1/4, 1/2, 1/4) applied to 70% of its pairs, so a
  query's errors move together (the machine is wrong by query, not by pair);
- on the LLMJudge sample, the three real LLM label sets (``h2oloo``,
  ``willia``, ``TREMA``) of the same pairs.

:func:`values` gives, per collection, relevance level and judge, the per-query
values of every measure (run x query) and preference (run pair x query) under
the human and the machine labels, computed by the code path of ``--human-qrels``
(:func:`irpref.llm_judged.prediction_powered.judge_both`), cached in ``benchmarks/data``.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
SHARED = Path(os.environ.get("IRPREF_DATA", HERE.parent.parent / "shared" / "data"))
CACHE = HERE / "data" / "ppi-coverage"

MEASURES = ["AP", "nDCG", "nDCG@10", "P@10", "RR", "R@1000"]
"""``evaluate``'s default measures: every measure the README names for PPI (AP,
nDCG@10, RR, P@10) and the rest of what ``evaluate --human-qrels`` prints by default."""
PREFERENCES = ["sgnLP", "rrLP", "RPP"]

CONFUSION = np.array([[1586, 229, 98, 92], [602, 302, 183, 146], [225, 143, 212, 228],
                      [57, 58, 64, 198]])
"""NIST grade (rows 0-3) x h2oloo-fewself grade (columns) on the LLMJudge sample."""

SIMULATED = ("confusion", "over", "noisy", "query")
LLM_LABELS = {"h2oloo": "h2oloo-fewself.qrels", "willia": "willia-umbrela1.qrels",
              "TREMA": "TREMA-rubric0.qrels"}


def read_qrels(path: Path) -> pd.DataFrame:
    """A TREC qrels file as columns query, doc, grade."""
    return pd.read_csv(path, sep=r"\s+", header=None, names=["query", "it", "doc", "grade"],
                       dtype={"query": str, "doc": str}).drop(columns="it")


def _confusion(top: int) -> np.ndarray:
    """The confusion matrix on grades 0..top (higher machine grades merged into top)."""
    rows = CONFUSION[: top + 1].astype(np.float64)
    merged = np.concatenate([rows[:, :top], rows[:, top:].sum(1, keepdims=True)], axis=1)
    return merged / merged.sum(1, keepdims=True)


def judge(qrels: pd.DataFrame, name: str, seed: int) -> pd.DataFrame:
    """The qrels relabelled by the simulated judge ``name`` (module docstring), seeded."""
    rng = np.random.default_rng(seed)
    g = qrels["grade"].to_numpy().clip(0)
    top = int(g.max())
    if name == "confusion":
        cumulative = _confusion(top).cumsum(1)
        new = (rng.random(len(g))[:, None] > cumulative[g]).sum(1)
    elif name == "over":
        new = np.minimum(g + (rng.random(len(g)) < 0.5), top)
    elif name == "noisy":
        new = np.where(rng.random(len(g)) < 0.3, rng.integers(0, top + 1, len(g)), g)
    elif name == "query":
        codes, queries = pd.factorize(qrels["query"])
        shift = rng.choice([-1, 0, 1], size=len(queries), p=[0.25, 0.5, 0.25])[codes]
        new = np.clip(g + shift * (rng.random(len(g)) < 0.7), 0, top)
    else:
        raise ValueError(f"unknown judge {name!r}")
    return qrels.assign(grade=new.astype(np.int64))


def synthetic_runs(human: pd.DataFrame, n_runs: int, seed: int, depth: int = 100
                   ) -> list[pd.DataFrame]:
    """Runs over the LLMJudge pool (it has no submitted runs): score = skill x grade +
    query effect + noise, skill from 0.2 to 2, seeded."""
    rng = np.random.default_rng(seed)
    codes, queries = pd.factorize(human["query"])
    out = []
    for r, skill in enumerate(np.linspace(0.2, 2.0, n_runs)):
        hard = rng.normal(scale=0.8, size=len(queries))[codes]  # per-query skill
        score = (skill + hard) * human["grade"].to_numpy() + rng.normal(size=len(human))
        frame = human.assign(score=score).sort_values(["query", "score"],
                                                      ascending=[True, False])
        frame = frame.groupby("query", sort=False).head(depth)
        out.append(pd.DataFrame({"query_id": frame["query"], "doc_id": frame["doc"],
                                 "score": frame["score"], "run_id": f"synthetic{r}"}))
    return out


def collection(name: str) -> tuple[pd.DataFrame, list, list[str]]:
    """(human qrels, runs, judges) of ``dl19``, ``robust03`` or ``llmjudge``."""
    if name == "llmjudge":
        human = read_qrels(SHARED / "llmjudge-sample" / "human.qrels")
        return human, synthetic_runs(human, 12, seed=5), list(LLM_LABELS)
    folder = SHARED / {"dl19": "dl19-passage", "robust03": "robust03"}[name]
    runs = sorted(str(p) for p in (folder / "runs").glob("*.gz"))
    return read_qrels(folder / "qrels.txt"), runs, list(SIMULATED)


def machine_qrels(name: str, human: pd.DataFrame, judge_name: str, seed: int) -> pd.DataFrame:
    if name == "llmjudge":
        return read_qrels(SHARED / "llmjudge-sample" / LLM_LABELS[judge_name])
    return judge(human, judge_name, seed)


def _as_frame(qrels: pd.DataFrame) -> pd.DataFrame:
    return qrels.rename(columns={"query": "query_id", "doc": "doc_id", "grade": "relevance"})


def compute(name: str, rel: int, judge_name: str, seed: int) -> dict[str, np.ndarray]:
    """Per-query values under the human (``h:``) and machine (``m:``) labels: measures
    (runs, queries), preferences (pairs a < b, queries)."""
    from irpref.llm_judged.prediction_powered import judge_both, metric_values, preference_values
    from irpref.measures import parse_measure
    from irpref.params import Settings

    human, runs, _ = collection(name)
    machine = machine_qrels(name, human, judge_name, seed)
    settings = Settings.resolve(None, rel=rel)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both = judge_both(_as_frame(machine), _as_frame(human), runs, measures=MEASURES,
                          preferences=PREFERENCES, settings=settings)
        out: dict[str, np.ndarray] = {}
        for m in MEASURES:
            h, f = metric_values(both, parse_measure(m))
            out[f"h:{m}"], out[f"m:{m}"] = h, f
        a, b = np.triu_indices(len(both.runs), 1)
        for p, h, f in preference_values(both, PREFERENCES):
            out[f"h:{p}"], out[f"m:{p}"] = h[:, a, b].T, f[:, a, b].T
    return out


def values(name: str, rel: int, judge_name: str, seed: int = 0) -> dict[str, np.ndarray]:
    """:func:`compute`, cached under ``benchmarks/data/ppi-coverage``."""
    path = CACHE / f"{name}-rel{rel}-{judge_name}-{seed}.npz"
    if path.exists():
        with np.load(path) as data:
            return dict(data)
    out = compute(name, rel, judge_name, seed)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **out)
    return out
