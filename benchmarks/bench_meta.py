"""Benchmark: label degradation on the 37 TREC DL 2019 passage runs.

The issue-12 target: 10 samples x 9 fractions of label degradation for 6
measures (RR, sgnLP, rrLP, AP, sgnLR, nDCG@10) on the 37 runs (43 topics,
grade >= 2 relevant; ``../shared/data/dl19-passage``) in under 60 s. The runs
are judged once (timed as "judge"); every sample only rewrites grades.
Prints wall and CPU seconds and the machine's load average.

Usage::

    python benchmarks/bench_meta.py [--samples 10] [--method uniform|frequency] [--data DIR]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from irpref.evaluate import judge_inputs
from irpref.meta.degradation import degrade

MEASURES = ["RR", "sgnLP", "rrLP", "AP", "sgnLR", "nDCG@10"]
FRACTIONS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]


def main() -> None:
    root = Path(__file__).resolve().parents[1]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=root.parent / "shared" / "data")
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--method", choices=("uniform", "frequency"), default="uniform")
    args = ap.parse_args()
    d = args.data / "dl19-passage"
    runs = sorted((d / "runs").glob("*.gz"))
    w0, c0 = time.perf_counter(), time.process_time()
    judged = judge_inputs(d / "qrels.txt", runs, rel=2)
    w1, c1 = time.perf_counter(), time.process_time()
    table = degrade(measures=MEASURES, fractions=FRACTIONS, samples=args.samples,
                    method=args.method, seed=0, judged=judged)
    w2, c2 = time.perf_counter(), time.process_time()
    print(f"runs={len(runs)} measures={len(MEASURES)} fractions={len(FRACTIONS)} "
          f"samples={args.samples} method={args.method} rows={len(table)}")
    print(f"judge:   wall {w1 - w0:.2f} s  cpu {c1 - c0:.2f} s")
    print(f"degrade: wall {w2 - w1:.2f} s  cpu {c2 - c1:.2f} s")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
