"""Benchmark: residual bounds of the diversity measures against their plain
values, on a seeded synthetic collection in the Web track's shape.

Subtopic qrels: ``--topics`` topics, 1-``--subtopics`` subtopic labels each
(a share of them with nothing judged relevant), ``--judged`` judged documents
per topic; ``--runs`` runs of ``--depth`` documents per topic drawn from the
judged ones and a larger unjudged pool (``--unjudged`` share). Prints the
median (of ``--repeats``) in-memory time of the plain measures and of the
plain measures plus :func:`irpref.measures.bounds.residual_bounds`, and their ratio,
per measure and together.

Usage::

    python benchmarks/bench_bounds_diversity.py [--topics 50] [--depth 1000] [--runs 10]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
import warnings

import numpy as np
import pandas as pd

MEASURES = ["alpha-nDCG@20", "ERR-IA@20", "nERR-IA@20", "MAP-IA", "S-recall@20"]


def collection(topics: int, subtopics: int, judged: int, runs: int, depth: int,
               unjudged: float, seed: int):
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(topics):
        n_sub = int(rng.integers(1, subtopics + 1))
        docs = [f"t{t}-d{i}" for i in range(judged)]
        for s in range(n_sub):
            dead = rng.random() < 0.15  # a label nobody judged relevant
            for d in docs:
                if rng.random() < 0.3:
                    grade = 0 if dead else int(rng.choice([0, 0, 1, 2]))
                    rows.append((f"q{t}", str(s), d, grade))
    sub = pd.DataFrame(rows, columns=["query", "subtopic", "doc", "grade"])
    judged_docs = sub.groupby("query")["doc"].unique()
    out = {}
    for r in range(runs):
        run = {}
        for q, docs in judged_docs.items():
            n_unj = int(depth * unjudged)
            pool = list(rng.choice(docs, size=min(len(docs), depth - n_unj), replace=False))
            pool += [f"{q}-u{r}-{i}" for i in range(depth - len(pool))]
            order = rng.permutation(len(pool))
            run[q] = {pool[i]: float(depth - k) for k, i in enumerate(order)}
        out[f"run{r}"] = run
    return sub, out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--topics", type=int, default=50)
    p.add_argument("--subtopics", type=int, default=6)
    p.add_argument("--judged", type=int, default=300)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--depth", type=int, default=1000)
    p.add_argument("--unjudged", type=float, default=0.7)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    from irpref.evaluate import judge_inputs
    from irpref.io.subtopics import as_subtopic_qrels, collapse
    from irpref.measures import parse_measure
    from irpref.measures.bounds import residual_bounds
    from irpref.measures.diversity import attach_subtopics

    sub, runs = collection(args.topics, args.subtopics, args.judged, args.runs, args.depth,
                           args.unjudged, args.seed)
    sq = as_subtopic_qrels(sub)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        judged = judge_inputs(collapse(sq), runs)
    attach_subtopics(judged, sq)
    print(f"{args.topics} topics, {args.runs} runs x depth {args.depth}: "
          f"{judged.n_items:,} items, {float((judged.grade < 0).mean()):.0%} unjudged; "
          f"medians of {args.repeats}")

    def row(label: str, ms: list) -> None:
        """Each repeat on a fresh copy (no cache): the plain values pay the
        subtopic join, the bounds their own pieces."""
        plain, extra = [], []
        for _ in range(args.repeats + 1):
            fresh = dataclasses.replace(judged)
            attach_subtopics(fresh, sq)
            start = time.perf_counter()
            values = {m: m.compute(fresh) for m in ms}
            mid = time.perf_counter()
            residual_bounds(fresh, ms, values=values)
            plain.append(mid - start)
            extra.append(time.perf_counter() - mid)
        a, b = statistics.median(plain[1:]), statistics.median(extra[1:])
        print(f"{label:22} plain {a:7.3f} s  bounds {b:7.3f} s  (plain + bounds) / plain "
              f"{(a + b) / a:6.2f}")

    ms = [parse_measure(t) for t in MEASURES]
    for m in ms:
        row(str(m), [m])
    row("all five", ms)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
