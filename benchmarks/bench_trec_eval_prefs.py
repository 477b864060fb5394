"""Benchmark: trec_eval's preference counts (``-R qrels_prefs`` / ``-R prefs``).

No Python tool computes trec_eval's prefs_* measures, so this script times
irpref alone on seeded synthetic judgments, per shape (queries, judged
documents per query, retrieved per query), and prints the median of
``--repeats``:

- ``pairs``: the preferences of the judgments (``preference_pairs``: every
  preference A > B of every JG, closed transitively where a JG has several
  subgroups), built once per judgment set;
- ``run``: one run's counts (``judge_preferences``) and the 14 measures;
- ``n_pairs``: the number of preferences, which both costs follow.

``--subgroups 3`` splits each query's judgments into three overlapping
subgroups of one JG (as ``-R prefs`` files do), so the transitive closure runs.

Usage::

    python benchmarks/bench_trec_eval_prefs.py [--repeats 5] [--seed 1] [--subgroups 1]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pyarrow as pa

from irpref.io.prefs import Preferences
from irpref.io.records import Run
from irpref.measures.pref_judgments import judge_preferences, preference_pairs
from irpref.measures.trec_prefs import PREFS_MEASURES, prefs_values

SHAPES = [(50, 200, 100), (50, 1000, 1000), (250, 200, 1000), (250, 1000, 1000)]


def judgments(queries: int, judged: int, subgroups: int, rng) -> Preferences:
    """Grades 0-3 (70% non-relevant); with subgroups, each subgroup holds two
    adjacent grades (3-2, 2-1, 1-0), the level being the grade."""
    q = np.repeat([f"q{i:04d}" for i in range(queries)], judged)
    d = np.tile([f"doc{j:05d}" for j in range(judged)], queries)
    g = rng.choice(4, size=len(q), p=[0.7, 0.15, 0.1, 0.05])
    if subgroups == 1:
        return Preferences(q.astype(object), np.full(len(q), "u", object),
                           np.full(len(q), "s", object), d.astype(object), g.astype(float),
                           np.arange(len(q)))
    rows = [(qq, f"s{k}", dd, gg) for qq, dd, gg in zip(q, d, g)
            for k, pair in enumerate(((3, 2), (2, 1), (1, 0))) if gg in pair]
    qq, ss, dd, gg = (np.array(c, dtype=object) for c in zip(*rows))
    return Preferences(qq, np.full(len(qq), "u", object), ss, dd, gg.astype(float),
                       np.arange(len(qq)))


def ranking(queries: int, judged: int, depth: int, rng) -> Run:
    """Each query retrieves ``depth`` documents, half of them judged."""
    q = np.repeat([f"q{i:04d}" for i in range(queries)], depth)
    pick = rng.integers(0, 2 * judged, size=len(q))
    d = np.array([f"doc{j:05d}" for j in pick])
    keep = ~(np.char.add(q, d) == np.roll(np.char.add(q, d), 1))
    return Run("run", pa.array(q[keep].tolist()), pa.array(d[keep].tolist()),
               rng.random(int(keep.sum())))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--subgroups", type=int, choices=(1, 3), default=1)
    args = parser.parse_args()
    print("queries judged depth   n_pairs   pairs s    run s")
    for queries, judged, depth in SHAPES:
        rng = np.random.default_rng(args.seed)
        prefs = judgments(queries, judged, args.subgroups, rng)
        run = ranking(queries, judged, depth, rng)
        build, per_run = [], []
        for _ in range(args.repeats):
            start = time.perf_counter()
            pairs = preference_pairs(prefs)
            mid = time.perf_counter()
            counts = judge_preferences(pairs, [run])
            for name in PREFS_MEASURES:
                prefs_values(counts, name)
            end = time.perf_counter()
            build.append(mid - start)
            per_run.append(end - mid)
        print(f"{queries:7d} {judged:6d} {depth:5d} {len(pairs.pair_a):9d} "
              f"{statistics.median(build):8.3f} {statistics.median(per_run):8.3f}")


if __name__ == "__main__":
    main()
