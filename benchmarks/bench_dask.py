"""Benchmark: ``evaluate`` in one process against Dask LocalClusters of 1 and 2 workers.

On a ``generate.py`` collection (``--data DIR``: ``DIR/qrels.txt``,
``DIR/runs/run-*``; default ``benchmarks/data``), 5 measures, wall seconds
(cluster start-up excluded and reported apart), and a check that the tables
are equal.

Usage::

    python benchmarks/generate.py --runs 20 --out /tmp/gen
    python benchmarks/bench_dask.py --data /tmp/gen [--workers 1 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
MEASURES = ["AP", "nDCG", "RR", "P@10", "R@1000"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=HERE / "data")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args(argv)
    import irpref
    from irpref import distributed as D

    qrels, runs = args.data / "qrels.txt", sorted((args.data / "runs").glob("run-*"))
    if not runs:
        print(f"no runs in {args.data}: run benchmarks/generate.py", file=sys.stderr)
        return 1
    start = time.perf_counter()
    local = irpref.evaluate(qrels, runs, MEASURES)
    print(f"{len(runs)} runs, {len(MEASURES)} measures\n"
          f"  single process      {time.perf_counter() - start:7.1f} s")
    for n in args.workers:
        start = time.perf_counter()
        client = D.client_for(f"local:{n}")
        up = time.perf_counter() - start
        start = time.perf_counter()
        table = D.evaluate(qrels, runs, MEASURES, client=client)
        secs = time.perf_counter() - start
        pd.testing.assert_frame_equal(local, table)
        print(f"  Dask local:{n}        {secs:7.1f} s  (+{up:.1f} s cluster start; "
              f"tables equal)")
        cluster = client.cluster
        client.close()
        cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
