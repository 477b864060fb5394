"""Benchmark: ``evaluate`` and ``compare`` in one process against Dask LocalClusters.

On a ``generate.py`` collection (``--data DIR``: ``DIR/qrels.txt``,
``DIR/runs/run-*``; default ``benchmarks/data``; ``--runs N`` takes the first
N runs): ``evaluate`` of 5 measures and ``compare`` of 6 preferences, wall
seconds in one process and on LocalClusters of 1 and 2 worker processes
(cluster start-up excluded and reported apart), and a check that the tables
are equal.

Usage::

    python benchmarks/generate.py --runs 20 --out /tmp/gen
    python benchmarks/bench_dask.py --data /tmp/gen [--workers 1 2] [--runs 20]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
MEASURES = ["AP", "nDCG", "RR", "P@10", "R@1000"]
PREFERENCES = ["sgnLP", "rrLP", "sgnLR", "RPP", "RPP(p=dcg)", "RPP(p=inverse)"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=HERE / "data")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--runs", type=int, default=None, help="use the first N runs")
    args = ap.parse_args(argv)
    import irpref
    from irpref import distributed as D

    qrels, runs = args.data / "qrels.txt", sorted((args.data / "runs").glob("run-*"))
    runs = runs[: args.runs] if args.runs else runs
    if not runs:
        print(f"no runs in {args.data}: run benchmarks/generate.py", file=sys.stderr)
        return 1
    jobs = {
        "evaluate": lambda client=None: (
            irpref.evaluate(qrels, runs, MEASURES) if client is None
            else D.evaluate(qrels, runs, MEASURES, client=client)),
        "compare": lambda client=None: irpref.compare(qrels, runs, PREFERENCES, client=client),
    }
    print(f"{len(runs)} runs; evaluate: {len(MEASURES)} measures, compare: "
          f"{len(PREFERENCES)} preferences")
    local = {}
    for name, job in jobs.items():
        start = time.perf_counter()
        local[name] = job()
        print(f"  {name:<9} single process   {time.perf_counter() - start:7.1f} s")
    for n in args.workers:
        start = time.perf_counter()
        client = D.client_for(f"local:{n}")
        up = time.perf_counter() - start
        for name, job in jobs.items():
            start = time.perf_counter()
            table = job(client)
            secs = time.perf_counter() - start
            pd.testing.assert_frame_equal(local[name], table)
            print(f"  {name:<9} Dask local:{n}     {secs:7.1f} s  (+{up:.1f} s cluster start; "
                  f"tables equal)")
        D.close(client)
    return 0


if __name__ == "__main__":
    sys.exit(main())
