"""Benchmark: judged-only evaluation (``X(judged_only=true)``) beside the plain measure.

The target (issue 23): judged-only evaluation costs at most 1.3x the plain
measure. A judged-only measure reads the condensed lists
(:func:`irpref.condense.condense`), built once per judged rankings however
many measures ask, so its extra cost is one pass over the items. On seeded
synthetic collections (``--runs`` runs; queries, depth and the share of
retrieved documents left unjudged varied; scores rounded so ties occur), this
script prints, per shape, the median of ``--repeats``:

- ``judge``: reading the run frames, sorting and joining with the qrels (what
  every evaluation pays first, plain or not);
- ``plain`` / ``judged_only``: computing the measures on fresh judged rankings
  (no cached views: the judged-only time includes condensing), and their
  ratio ``kernels x``;
- ``total x``: (judge + judged_only) / (judge + plain), the cost of an
  evaluation from the runs.

Usage::

    python benchmarks/bench_judged_only.py [--repeats 5] [--runs 20] [-m AP nDCG@10 ...]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
import warnings

import numpy as np
import pandas as pd

from irpref.evaluate import judge_inputs
from irpref.measures import parse_measure
from irpref.measures.base import with_params

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "Bpref"]
SHAPES = [  # (queries, depth, share of retrieved documents unjudged)
    (50, 100, 0.1), (50, 100, 0.9), (250, 100, 0.1), (250, 100, 0.9),
    (50, 1000, 0.1), (50, 1000, 0.9), (250, 1000, 0.1), (250, 1000, 0.9),
]


def collection(n_runs: int, n_q: int, depth: int, unjudged: float, seed: int = 1):
    """Seeded qrels and run frames: each query's corpus holds 2 * depth documents, a
    share ``1 - unjudged`` of them judged (grade 0 mostly, 1 and 2 rarer); each run
    retrieves ``depth`` of them with scores rounded to 2 decimals (ties)."""
    rng = np.random.default_rng(seed)
    n_docs = 2 * depth
    q = np.repeat(np.arange(n_q), n_docs)
    d = np.tile(np.arange(n_docs), n_q)
    judged = rng.random(len(q)) >= unjudged
    grade = rng.choice([0, 1, 2], size=len(q), p=[0.8, 0.15, 0.05])
    qrels = pd.DataFrame({"query_id": [f"q{i}" for i in q[judged]],
                          "doc_id": [f"d{i}" for i in d[judged]], "relevance": grade[judged]})
    qnames = np.array([f"q{i}" for i in range(n_q)], dtype=object)
    dnames = np.array([f"d{i}" for i in range(n_docs)], dtype=object)
    runs = {}
    for r in range(n_runs):
        picks = np.argsort(rng.random((n_q, n_docs)), axis=1)[:, :depth]
        scores = np.round(np.sort(rng.random((n_q, depth)), axis=1)[:, ::-1], 2)
        runs[f"run{r}"] = pd.DataFrame({"query_id": np.repeat(qnames, depth),
                                        "doc_id": dnames[picks.ravel()],
                                        "score": scores.ravel()})
    return qrels, runs


def fresh(judged):
    """The same judged rankings without any cached view (condensed lists included)."""
    return dataclasses.replace(judged)


def timed(func) -> float:
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("-m", "--measures", nargs="+", default=MEASURES)
    args = parser.parse_args(argv)
    plain = [parse_measure(m) for m in args.measures]
    only = [with_params(m, judged_only=True) for m in plain]
    print(f"{args.runs} runs; measures {' '.join(map(str, plain))}; "
          f"median of {args.repeats} (seconds)")
    print(f"{'queries':>7} {'depth':>5} {'unjudged':>8} {'judge':>7} {'plain':>7} "
          f"{'judged_only':>11} {'kernels x':>9} {'one AP x':>8} {'total x':>7}")
    for n_q, depth, unjudged in SHAPES:
        qrels, runs = collection(args.runs, n_q, depth, unjudged)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_judge = [timed(lambda q=qrels, r=runs: judge_inputs(q, r))
                       for _ in range(args.repeats)]
            judged = judge_inputs(qrels, runs)
        t_plain, t_only, t_ap, t_ap_only = [], [], [], []
        for _ in range(args.repeats):
            j = fresh(judged)
            t_plain.append(timed(lambda j=j: [m.compute(j) for m in plain]))
            j = fresh(judged)
            t_only.append(timed(lambda j=j: [m.compute(j) for m in only]))
            j = fresh(judged)
            t_ap.append(timed(lambda j=j: plain[0].compute(j)))
            j = fresh(judged)
            t_ap_only.append(timed(lambda j=j: only[0].compute(j)))
        for m, o in zip(plain, only):  # the values differ, as they should
            assert m.compute(judged.condensed).tolist() == o.compute(judged).tolist()
        jd, pl, on = (statistics.median(t) for t in (t_judge, t_plain, t_only))
        ap, ap_only = statistics.median(t_ap), statistics.median(t_ap_only)
        print(f"{n_q:>7} {depth:>5} {unjudged:>8.0%} {jd:>7.3f} {pl:>7.3f} {on:>11.3f} "
              f"{on / pl:>9.2f} {ap_only / ap:>8.2f} {(jd + on) / (jd + pl):>7.2f}")


if __name__ == "__main__":
    main()
