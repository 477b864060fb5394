"""Benchmark: the residual-bound rules of the trec_eval extras, recall-level and
search-length families against their plain kernels (in-process, kernel only).

A seeded synthetic collection (``--runs`` runs x ``--queries`` queries, depth
``--depth``, a share ``--unjudged`` of the retrieved documents absent from the
qrels, grades 0..2) is judged once (full layout); for every measure the median
time of ``measure.compute(judged)`` and of its record's rule ``(lower, upper)``
are printed with their ratio. Target of the issue: bounds <= 1.3 x the plain
measure. Usage::

    python benchmarks/bench_bounds_rules.py [--runs 20] [--queries 50] [--depth 1000]
                                            [--unjudged 0.5] [--repeat 5] [--seed 1]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

from irpref.evaluate import judge_inputs
from irpref.measures import parse_measure
from irpref.measures.bounds import assign, top_grade

MEASURES = ["SetP", "SetF", "Utility", "NumNonRelJudgedRet", "RelP@10", "RprecMult", "GMAP",
            "YAAP", "Bpref", "infAP", "IPrec(recall=0.5)", "IPrecAvg", "RL-AP", "RL-nDCG",
            "RL-RR", "RL(e=ap,z=ap,impute=optimistic)", "TSE(e=ap)", "SL1", "SL3", "RE",
            "ASL", "ASL(golds=10)"]


def collection(runs: int, queries: int, depth: int, unjudged: float, seed: int):
    rng = np.random.default_rng(seed)
    n_docs = depth * 3
    q_rows, r_frames = [], {}
    pool = {}
    for q in range(queries):
        docs = rng.choice(n_docs, size=depth * 2, replace=False)
        judged = docs[: int(len(docs) * (1 - unjudged))]
        pool[q] = set(judged.tolist())
        grades = rng.choice(3, size=len(judged), p=[0.8, 0.15, 0.05])
        q_rows += [(f"q{q}", f"d{d}", int(g)) for d, g in zip(judged, grades)]
    for r in range(runs):
        rows = []
        for q in range(queries):
            docs = rng.choice(n_docs, size=depth, replace=False)
            scores = rng.integers(0, depth // 4, size=depth).astype(float)
            rows += [(f"q{q}", f"d{d}", s) for d, s in zip(docs, scores)]
        r_frames[f"run{r}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame(q_rows, columns=["query_id", "doc_id", "relevance"])
    return qrels, r_frames


def median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def bounds_of(judged, m):
    rule = m.family.bounds
    if rule == "monotone":
        return m.compute(judged), m.compute(assign(judged, top_grade(judged)))
    return rule(judged, m)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--unjudged", type=float, default=0.5)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ties", default="docid")
    a = ap.parse_args()
    qrels, runs = collection(a.runs, a.queries, a.depth, a.unjudged, a.seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        judged = judge_inputs(qrels, runs, ties=a.ties, corpus_size=a.depth * 3)
    print(f"{a.runs} runs x {a.queries} queries, depth {a.depth}, unjudged {a.unjudged}, "
          f"ties={a.ties}: {judged.n_items} items")
    print(f"{'measure':36s} {'plain s':>9s} {'bounds s':>9s} {'ratio':>6s}")
    for text in MEASURES:
        m = parse_measure(text)
        plain = median_time(lambda m=m: m.compute(judged), a.repeat)
        bound = median_time(lambda m=m: bounds_of(judged, m), a.repeat)
        print(f"{text:36s} {plain:9.4f} {bound:9.4f} {bound / plain:6.2f}")


if __name__ == "__main__":
    main()
