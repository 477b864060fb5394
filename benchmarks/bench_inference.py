"""Benchmark: inference against baselines (t interval, ES_E, seeded bootstrap percentile and BCa).

Writes the seeded synthetic collection of ``generate.py`` (``--runs`` x
``--queries``, ``--docs`` per ranking) into a temporary folder, evaluates
``--measures`` once (timed as "evaluate"), then times, in process,
:func:`irpref.significance` of every run against ``--baselines`` baselines
under every measure, family ``all``, with

- the t interval (``ci="t"``),
- the paired bootstrap percentile interval (``ci="bootstrap"``) and BCa
  (``ci="bca"``), ``--samples`` resamples each, seed ``--seed``,

and checks that two bootstrap runs with the same seed give identical tables.
Target: 100 runs x 3 baselines x 5 measures x 10,000 samples in at most 30 s
on 2 cores. Prints wall and CPU seconds (median of ``--repeats``).

Usage::

    python benchmarks/bench_inference.py                        # the full target
    python benchmarks/bench_inference.py --runs 30 --queries 100 --samples 2000
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

MEASURES = ["AP", "nDCG@10", "RR", "P@10", "ASL"]


def _time(fn, repeats: int):
    walls, cpus, out = [], [], None
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return out, statistics.median(walls), statistics.median(cpus)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--queries", type=int, default=250)
    p.add_argument("--docs", type=int, default=100, help="documents retrieved per query")
    p.add_argument("--baselines", type=int, default=3)
    p.add_argument("--measures", nargs="+", default=MEASURES)
    p.add_argument("--samples", type=int, default=10_000, help="bootstrap resamples")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeats", type=int, default=1)
    args = p.parse_args(argv)

    import pandas as pd
    from generate import generate

    import irpref

    with tempfile.TemporaryDirectory() as tmp:
        qrels, runs = generate(Path(tmp), seed=args.seed, runs=args.runs,
                               queries=args.queries, docs=args.docs)
        table, wall, cpu = _time(lambda: irpref.evaluate(str(qrels), [str(r) for r in runs],
                                                         args.measures), 1)
    names = list(pd.unique(table["run"]))
    bases = names[: args.baselines]
    rows = (len(names) - 1) * len(bases) * len(args.measures)
    print(f"{len(names)} runs x {table['query'].nunique()} queries, {len(bases)} baselines, "
          f"{len(args.measures)} measures ({rows} comparisons), {args.samples} bootstrap samples")
    print(f"{'evaluate':<22} wall {wall:7.2f} s  cpu {cpu:7.2f} s")

    def sig(ci: str):
        return irpref.significance(table, "t", baseline=bases, family="all", ci=ci,
                                   bootstrap=args.samples, seed=args.seed)

    sig("t")  # warm up: scipy is imported on first use
    for ci in ("t", "bootstrap", "bca"):
        frame, wall, cpu = _time(lambda ci=ci: sig(ci), args.repeats)
        assert len(frame) == rows, (len(frame), rows)
        print(f"{'significance ci=' + ci:<22} wall {wall:7.2f} s  cpu {cpu:7.2f} s")
    again = sig("bca")
    pd.testing.assert_frame_equal(frame, again)
    print("same seed, same table: ok")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
